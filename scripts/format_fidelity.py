"""Fidelity of the structured list formats, measured on real papers.

Writes the corpus's papers (``../shared/corpus/papers.jsonl`` or ``$PAPERS_CORPUS``; ``--corpus``) in each
format the build reads (BibTeX, RIS, CSL-JSON, CSV, JSON Lines, paperlists JSON, OpenReview notes), with the
awkward cases of each: in BibTeX, non-ASCII letters as TeX accents (``{\\"u}``, pylatexenc's unicode_to_latex),
words with capitals braced (``{BERT}``), the venue as a ``@string`` macro of its proceedings' long name, a
``month`` name, names as "Family, Given", abstracts escaped as reference managers export them (``\\$``, ``\\%``);
in CSV, authors and keywords in one cell separated by ``;``; in OpenReview notes, every field as ``{"value": …}``.
Each file is read back by the build's reader (:func:`site_builder.read.formats.read_list`) and every paper's
fields compared with the record's (title, authors in order, abstract, venue, year, keywords, landing page, code
links, track where the format carries one): the share of papers that come back field-exact, per format.

Then the reference match: the corpus's abstracts as a pasted list (no titles), filled from a reference file
of the same papers (CSL-JSON) whose abstracts are edited as a second source would differ (white space, case,
quotes, a dropped word, a typo or an added sentence in half of them), at each threshold of ``--thresholds``: the share of papers that get
their real title, and the share of papers given a wrong one (the threshold chosen keeps that at 0).

Usage::

    PYTHONPATH=$PWD python scripts/format_fidelity.py [--corpus PATH] [--limit N]
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
import csv
import io
import json
import random
import re
import sys
import tempfile
from pathlib import Path

from site_builder.corpus import require_corpus
from site_builder.model.bibtex import abstract_value, escape, protect_case
from site_builder.read import formats, reference
from site_builder.read.entries import Entry
from site_builder.read.records import CODE_HOSTS, links_in

#: Long container names written for some venues (the reader maps them back to the short name).
LONG_NAMES = {"AISTATS": "Proceedings of The {n}th International Conference on Artificial Intelligence and Statistics",
              "COLT": "Proceedings of Thirty Sixth Conference on Learning Theory",
              "CoRL": "Proceedings of The {n}th Conference on Robot Learning",
              "ACL": "Proceedings of the {n}th Annual Meeting of the Association for Computational Linguistics"}


def load(path: Path, limit: int | None = None) -> list[dict]:
    """The corpus records (the first ``limit``)."""
    with open(path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    return records[:limit] if limit else records


def normalised(records: list[dict]) -> list[dict]:
    """Copies of corpus ``records`` with their keywords as a list (the corpus gives one string, ``"a; b"``)."""
    out = []
    for r in records:
        words = r.get("keywords")
        out.append({**r, "keywords": [k.strip() for k in words.split(";") if k.strip()]
                    if isinstance(words, str) else list(words or [])})
    return out


def _code(r: dict) -> list[str]:
    """The code links of a corpus record: its ``github`` cell, or each link in it when it holds several
    (``"https://a; https://b"``); a link with spaces in it (the corpus has a few, ``_`` lost in PDF extraction)
    as a valid URL writes it, the spaces as ``%20``."""
    cell = r.get("github") or ""
    links = links_in(cell)
    if len(links) > 1:
        return links
    return [cell.strip().replace(" ", "%20") if links else cell] if cell else []


def _track(r: dict) -> str:
    return r.get("track") or r.get("primary_area") or ""


def _tex(text: str, title: bool = False) -> str:
    """``text`` escaped for BibTeX, its non-ASCII characters as TeX macros (pylatexenc's unicode_to_latex:
    ``ü`` → ``\\"{u}``); in a title, words with capitals braced first (so no brace splits a macro from its argument)."""
    from pylatexenc.latexencode import unicode_to_latex
    escaped = protect_case(escape(text)) if title else escape(text)
    return unicode_to_latex(escaped, non_ascii_only=True, unknown_char_warning=False)


def _family_given(name: str) -> str:
    parts = name.split()
    return f"{parts[-1]}, {' '.join(parts[:-1])}" if len(parts) > 1 else name


def write_bib(records: list[dict]) -> str:
    """BibTeX with the awkward cases of the module doc."""
    out, strings = [], {}
    for n, r in enumerate(records):
        long = LONG_NAMES.get(r["venue"])
        container = long.format(n=r["year"] - 1990) if long else f"{r['venue']} {r['year']}"
        macro = strings.setdefault(container, f"venue{len(strings)}")
        fields = [("title", "{" + _tex(r["title"], title=True) + "}"),
                  ("author", "{" + " and ".join(_tex(_family_given(a)) for a in r["authors"]) + "}"),
                  ("booktitle", macro), ("year", str(r["year"])), ("month", "jul"),
                  ("abstract", "{" + abstract_value(r["abstract"]) + "}")]
        if r.get("keywords"):
            fields.append(("keywords", "{" + _tex("".join(k + "; " for k in r["keywords"]).strip()) + "}"))
        if r.get("site"):
            fields.append(("url", "{" + r["site"] + "}"))
        if _code(r):
            fields.append(("code", "{" + " ".join(_code(r)) + "}"))
        if _track(r):
            fields.append(("track", "{" + escape(_track(r)) + "}"))
        out.append(f"@inproceedings{{p{n},\n" + ",\n".join(f"  {k} = {v}" for k, v in fields) + "\n}\n")
    head = [f'@string{{{macro} = "{name}"}}\n' for name, macro in strings.items()]
    return "\n".join(head + out)


def write_ris(records: list[dict]) -> str:
    """RIS, written by rispy."""
    import rispy
    items = [{"type_of_reference": "CONF", "title": r["title"], "authors": r["authors"],
              "abstract": " ".join(r["abstract"].split()),  # one line per field, as RIS exporters write it
              "secondary_title": f"{r['venue']} {r['year']}", "year": str(r["year"]),
              "keywords": r.get("keywords") or [], "urls": [u for u in (r.get("site"), *_code(r)) if u]}
             for r in records]
    for item in items:
        if not item["keywords"]:
            del item["keywords"]
    return rispy.dumps(items)


def write_csl(records: list[dict]) -> str:
    """CSL-JSON (names split into given and family)."""
    items = []
    for n, r in enumerate(records):
        item = {"id": f"p{n}", "type": "paper-conference", "title": r["title"], "abstract": r["abstract"],
                "author": [{"given": " ".join(a.split()[:-1]), "family": a.split()[-1]} if len(a.split()) > 1
                           else {"literal": a} for a in r["authors"]],
                "container-title": f"{r['venue']} {r['year']}", "issued": {"date-parts": [[r["year"]]]}}
        if r.get("keywords"):
            item["keyword"] = "".join(k + "; " for k in r["keywords"]).strip()  # ";" after each: one may hold a comma
        if r.get("site"):
            item["URL"] = r["site"]
        if _code(r):
            item["note"] = "code: " + " ".join(_code(r))
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=1)


def write_csv(records: list[dict]) -> str:
    """CSV with a header row; authors and keywords joined by ``;``."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["title", "authors", "venue", "year", "track", "keywords", "site", "github", "abstract"])
    for r in records:
        writer.writerow([r["title"], "; ".join(r["authors"]), r["venue"], r["year"], _track(r),
                         "; ".join(r.get("keywords") or []), r.get("site") or "", "; ".join(_code(r)),
                         r["abstract"]])
    return out.getvalue()


def write_jsonl(records: list[dict]) -> str:
    """JSON Lines, the corpus's own fields (code links as valid URLs, :func:`_code`)."""
    return "".join(json.dumps({**r, "github": "; ".join(_code(r))}, ensure_ascii=False) + "\n" for r in records)


def write_paperlists(records: list[dict]) -> str:
    """The paperlists data set's JSON: ``author`` and ``keywords`` as ``"a; b"``."""
    items = [{**r, "author": "; ".join(r["authors"]), "keywords": "; ".join(r.get("keywords") or []),
              "github": "; ".join(_code(r))} for r in records]
    for item in items:
        del item["authors"]
    return json.dumps(items, ensure_ascii=False, indent=2)


def write_openreview(records: list[dict]) -> str:
    """OpenReview API v2 notes (``{"notes": [...]}``, every field ``{"value": …}``)."""
    notes = []
    for n, r in enumerate(records):
        content = {"title": r["title"], "authors": r["authors"], "abstract": r["abstract"],
                   "venue": f"{r['venue']} {r['year']} {r.get('status') or 'Poster'}", "keywords": r.get("keywords") or []}
        if _track(r):
            content["primary_area"] = _track(r)
        if _code(r):
            content["code"] = _code(r)
        notes.append({"id": f"note{n}", "forum": f"note{n}", "content": {k: {"value": v} for k, v in content.items()}})
    return json.dumps({"notes": notes}, ensure_ascii=False)


#: name → (file suffix, writer, whether the landing page, track comes back as written)
WRITERS = {"BibTeX": (".bib", write_bib, True, True), "RIS": (".ris", write_ris, True, False),
           "CSL-JSON": (".json", write_csl, True, False), "CSV": (".csv", write_csv, True, True),
           "JSON Lines": (".jsonl", write_jsonl, True, True), "paperlists JSON": (".json", write_paperlists, True, True),
           "OpenReview notes": (".json", write_openreview, False, True)}


def _line(text: str) -> str:
    return " ".join(text.split())


def expected(r: dict, landing: bool, track: bool) -> dict:
    """The fields a reader should give for record ``r`` (a title, name or keyword with its white space folded:
    each is one line of the page, as every list reader gives it)."""
    return {"title": _line(r["title"]), "authors": tuple(_line(a) for a in r["authors"]), "abstract": r["abstract"].strip(),
            "venue": r["venue"], "year": r["year"], "keywords": tuple(dict.fromkeys(
                _line(k) for k in r.get("keywords") or () if k.strip())),
            "url": (r.get("site") or None) if landing else "*", "code_urls": tuple(_code(r)),
            "track": tuple(p.strip() for p in _track(r).split("·") if p.strip()) if track else "*"}


def tex_spaces(fields: dict) -> dict:
    """``fields`` with the abstract's runs of ASCII white space as one space within each paragraph (TeX keeps
    no run of spaces: a BibTeX abstract cannot carry them; the page renders the same)."""
    paragraphs = re.split(r"\n[ \t\r]*\n", fields["abstract"])
    return {**fields, "abstract": "\n\n".join(re.sub(r"[ \t\r\n]+", " ", p).strip(" ") for p in paragraphs if p.strip())}


def got(entry: Entry, landing: bool, track: bool) -> dict:
    """The same fields of a read entry."""
    return {"title": entry.title, "authors": entry.authors, "abstract": entry.abstract, "venue": entry.venue,
            "year": entry.year, "keywords": entry.keywords, "url": entry.url if landing else "*",
            "code_urls": entry.code_urls, "track": entry.track if track else "*"}


def fidelity(records: list[dict], folder: Path) -> dict[str, tuple[int, int, list, Counter]]:
    """``{format: (papers field-exact, papers, first differences, count of papers by field differing)}``: each format
    written into ``folder``, read back."""
    records = normalised(records)
    out = {}
    for name, (suffix, write, landing, track) in WRITERS.items():
        path = folder / f"{name.replace(' ', '_')}{suffix}"
        path.write_text(write(records), encoding="utf-8")
        entries = formats.read_list(path).entries
        exact, diffs, fields = 0, [], Counter()
        by_abstract = {e.abstract: e for e in entries}
        for r in records:
            want = expected(r, landing, track)
            if suffix == ".bib":
                want = tex_spaces(want)
            elif suffix == ".ris":  # RIS has one line per field (no paragraph survives) and one list of links:
                code = [u for u in want["code_urls"] if CODE_HOSTS.match(u)]  # code is told by its host
                others = [u for u in (r.get("site"), *want["code_urls"]) if u and not CODE_HOSTS.match(u)]
                want = {**want, "abstract": " ".join(want["abstract"].split()), "code_urls": tuple(code),
                        "url": others[0] if others else None}
            entry = by_abstract.get(want["abstract"])
            have = got(entry, landing, track) if entry else None
            if have == want:
                exact += 1
            else:
                wrong = {k: (want[k], have and have[k]) for k in want if not have or want[k] != have[k]}
                fields.update(list(wrong))
                if len(diffs) < int(os.environ.get("FIDELITY_SHOW", "5")):
                    diffs.append(wrong)
        out[name] = (exact, len(records), diffs, fields)
    return out


def _edited(abstract: str, rng: random.Random) -> str:
    """The abstract as a second source may give it: quotes and dashes changed, white space doubled (these
    alone still match exactly), and in half the papers a word edited: one word dropped, a typo (two letters
    swapped) or a sentence added ("Code is available online.")."""
    words = abstract.replace("'", "\u2019").replace(" - ", " \u2013 ").split()
    change = rng.random()
    if words and change < 0.5:
        i = rng.randrange(len(words))
        if change < 0.2:
            del words[i]
        elif change < 0.35 and len(words[i]) > 3:
            words[i] = words[i][1] + words[i][0] + words[i][2:]
        else:
            words.append("Code is available online.")
    return "  ".join(words)


def reference_match(records: list[dict], thresholds: list[float], seed: int = 0) -> dict[float, tuple[int, int, int]]:
    """``{threshold: (real titles, wrong titles, papers)}`` of the corpus as a pasted list filled from an edited
    reference of the same papers (see the module doc)."""
    rng = random.Random(seed)
    refs = [Entry(path="ref", line=n, abstract=_edited(r["abstract"], rng), title=r["title"])
            for n, r in enumerate(records)]
    pasted = [Entry(path="list", line=n, abstract=r["abstract"]) for n, r in enumerate(records)]
    index = reference.ReferenceIndex(refs)
    out = {}
    for threshold in thresholds:
        reference.THRESHOLD = threshold
        filled = reference.fill(pasted, index, [])
        right = sum(e.title == r["title"] for e, r in zip(filled, records))
        wrong = sum(e.title is not None and e.title != r["title"] for e, r in zip(filled, records))
        out[threshold] = (right, wrong, len(records))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--thresholds", default="70,80,85,90,95")
    args = parser.parse_args(argv)
    records = load(require_corpus(args.corpus), args.limit)
    with tempfile.TemporaryDirectory() as folder:
        for name, (exact, total, diffs, fields) in fidelity(records, Path(folder)).items():
            print(f"{name:18} {exact}/{total} field-exact ({100 * exact / total:.2f} %); fields that differ: "
                  f"{dict(fields) or 'none'}")
            for diff in diffs[:2]:
                print("   e.g.", str(diff)[:300])
    for threshold, (right, wrong, total) in reference_match(records, [float(t) for t in args.thresholds.split(",")]).items():
        print(f"reference match at token_set_ratio >= {threshold:g}: {right}/{total} real titles "
              f"({100 * right / total:.2f} %), {wrong} wrong")
    return 0


if __name__ == "__main__":
    sys.exit(main())
