"""Round trip the real corpus through every list layout and check the reader gives back every field.

Each corpus record (``../shared/corpus/papers.jsonl``, or ``$PAPERS_CORPUS``) is written as text
in list layouts like those people paste (headings in English or Chinese or
none, titles/tracks/authors present or absent, labels, numbering, bullets,
page words, blank-line runs, edge spaces, CRLF/CR line ends, UTF-8 with BOM,
UTF-16 and GB18030), read back with :func:`site_builder.read.plaintext.read_list`
semantics (:func:`decode_bytes` + :func:`read_text`) and compared field by
field.  A paper that does not come back exactly must be explained by a
diagnostic on one of the lines it was written to, or naming one of them
("read as a further paragraph of the abstract at line 53").  An exact paper
with a diagnostic on its lines counts as a false warning.

Comparison rules (the only normalisation applied to the expected values):
line ends inside an abstract are compared as ``\\n`` (a text list cannot keep
a CRLF apart from its own line ends); the strict figure without that rule is
printed too.  Records are never edited.

With ``--own-output``, the other round trip of issue 26: our own output fed back in as lists. The corpus is
read as a JSON Lines list (every fourth record with ``title_derived``, so its title is derived from the abstract),
the site's model made (:func:`site_builder.model.site.build_site`), and its ``papers.json`` records (as JSON Lines)
and its ``papers.bib`` (the entries the build writes, :meth:`~site_builder.model.library.Library.bib_file`) are
each read back as a list and made into a site again; every field of every ``papers.json`` record (id, slug,
title, ``title_derived``, authors in order, ``et_al``, venue, year, track, abstract, keywords, DOI, landing page,
code links, URL) is compared with the first site's (:func:`own_roundtrip`). The rules (:func:`normalised`): a
title, name or track comes back with its white space folded, and in ``papers.bib`` a line end inside an abstract
is the file's (CRLF and CR come back as LF; the page renders the same); the strict figure without them is printed
too.

Usage::

    PYTHONPATH=$PWD python scripts/roundtrip_corpus.py [--corpus PATH] [--per-list N] [--show N]
    PYTHONPATH=$PWD python scripts/roundtrip_corpus.py --own-output [--corpus PATH] [--show N]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from site_builder.config import SiteConfig
from site_builder.corpus import DEFAULT_CORPUS, require_corpus
from site_builder.diagnostics import Diagnostics
from site_builder.model import bibtex
from site_builder.model.site import Site, build_site
from site_builder.model.urls import absolute_url
from site_builder.read import formats
from site_builder.read.plaintext import Entry, decode_bytes, read_text

CORPUS = DEFAULT_CORPUS


@dataclass(frozen=True)
class Layout:
    """How one list is written: which fields, labels, numbering, spacing, encoding and line ends."""

    name: str
    heading: str | None = "{venue} {year} Papers"  # None: no heading; without {venue}: config gives it
    title: bool = True
    track: bool = False
    authors: bool = True
    labels: dict | None = None  # field -> label prefix
    number: str | None = None  # "{n}. ", "[{n}] ", "({n}) ", "- ", "• "
    number_alone: bool = False  # the number on its own line
    compact: bool = False  # header lines and abstract in one block
    blank_runs: bool = False  # 1-3 blank lines between fields and entries
    author_sep: str = ", "
    last_and: bool = False  # "A, B and C"
    et_al: str | None = None  # marker written after the first 5 of more than 6 authors
    pages: str | None = None  # a page-word line after the abstract, e.g. "PDF · Bibtex"
    status: bool = False  # the status word (Oral/Poster/Spotlight) on its own line after the abstract
    noise: bool = False  # edge spaces, tabs, NBSP, full-width spaces on structure lines
    encoding: str = "utf-8"
    newline: str = "\n"
    wrap: int = 0  # abstracts hard-wrapped at this many columns (0: one line per paragraph)


EN = {"title": "Title: ", "authors": "Authors: ", "abstract": "Abstract: ", "track": "Track: "}
ZH = {"title": "标题：", "authors": "作者：", "abstract": "摘要：", "track": "领域："}

LAYOUTS = [
    Layout("abstract-only", heading="{venue} {year} Papers", title=False, authors=False),
    Layout("abstract-only-zh-crlf", heading="{venue} {year} 论文列表", title=False, authors=False, newline="\r\n"),
    Layout("track-authors-abstract", heading="论文检索", title=False, track=True),
    Layout("title-authors-abstract", heading="{venue} {year} Accepted Papers"),
    Layout("title-track-authors", heading="{venue} {year}", track=True, et_al=" 等", noise=True),
    Layout("title-only", heading="{venue} {year} Papers", authors=False, encoding="utf-16"),
    Layout("authors-only", heading="{venue} {year} 论文列表", title=False, et_al=" et al.", encoding="gb18030"),
    Layout("numbered-dot", number="{n}. ", pages="PDF · Bibtex", newline="\r"),
    Layout("numbered-bracket-alone", number="[{n}]", number_alone=True, title=False, blank_runs=True),
    Layout("numbered-paren-compact", number="({n}) ", compact=True, author_sep="; ", status=True),
    Layout("bullets", heading=None, number="- ", track=True, last_and=True, encoding="utf-8-sig"),
    Layout("labels-en", labels=EN, track=True, et_al="…", blank_runs=True, noise=True),
    Layout("labels-zh", heading="{venue} {year} 论文", labels=ZH, compact=True, encoding="gb18030",
           newline="\r\n"),
    Layout("pages-status", number="• ", status=True, pages="PDF\nCode", noise=True, author_sep="、"),
    Layout("mixed-noisy", heading="{venue} {year} Accepted Papers", track=True, number="{n}. ", blank_runs=True,
           noise=True, et_al=" 等", status=True, pages="Bibtex", encoding="utf-16", newline="\r"),
    Layout("title-authors-no-heading-crlf", heading=None, et_al=" et al", encoding="gb18030", newline="\r\n"),
    Layout("title-authors-wrapped-compact", compact=True, wrap=80),
]

NOISE = ["  ", "\t", "\u00a0", "\u3000", " \u00a0"]


def area(record: dict) -> str | None:
    """The record's single-level track: ``primary_area`` or ``track``."""
    return record.get("primary_area") or record.get("track") or None


def expected_fields(record: dict, layout: Layout) -> dict:
    """The fields a perfect reader returns for ``record`` written in ``layout``."""
    authors, et_al = list(record["authors"]), False
    if layout.authors and layout.et_al and len(authors) > 6:
        authors, et_al = authors[:5], True
    status = record.get("status") if layout.status and record.get("status") in ("Oral", "Poster", "Spotlight") else None
    return {
        "title": record["title"] if layout.title else None,
        "authors": tuple(authors) if layout.authors else (),
        "et_al": et_al if layout.authors else False,
        "track": (area(record),) if layout.track and area(record) else (),
        "abstract": wrapped(record["abstract"], layout.wrap),
        "venue": record["venue"],
        "year": record["year"],
        "status": status,
    }


def wrapped(abstract: str, width: int) -> str:
    """``abstract`` hard-wrapped at ``width`` columns (:func:`textwrap.wrap`, each line of it on its own),
    as a text editor or a terminal copy breaks it; unchanged when ``width`` is 0."""
    if not width:
        return abstract
    return "\n".join("\n".join(textwrap.wrap(line, width)) for line in re.split(r"\r\n|\r|\n", abstract))


def _noisy(text: str, layout: Layout, rng: random.Random) -> str:
    if not layout.noise:
        return text
    return rng.choice(NOISE + [""]) + text + rng.choice(NOISE + [""])


def _author_line(record: dict, layout: Layout) -> str:
    fields = expected_fields(record, layout)
    names = list(fields["authors"])
    if layout.last_and and len(names) > 1:
        text = layout.author_sep.join(names[:-1]) + " and " + names[-1]
    else:
        text = layout.author_sep.join(names)
    if fields["et_al"]:
        text += layout.et_al
    return text


def entry_lines(record: dict, layout: Layout, n: int, rng: random.Random) -> list[str]:
    """The lines of one record in ``layout`` ("" is a blank line); the record's abstract is written verbatim."""
    labels = layout.labels or {}
    header: list[str] = []
    prefix = layout.number.format(n=n) if layout.number else ""
    if layout.number_alone:
        header.append(prefix.strip())
        prefix = ""
    if layout.title:
        header.append(labels.get("title", "") + record["title"])
    if layout.track and area(record):
        header.append(labels.get("track", "") + area(record))
    if layout.authors:
        header.append(labels.get("authors", "") + _author_line(record, layout))
    header = [_noisy(h, layout, rng) for h in header]
    abstract = labels.get("abstract", "") + wrapped(record["abstract"], layout.wrap)
    if prefix:
        if header and not (layout.number_alone):
            header[0] = prefix + header[0]
        else:
            abstract = prefix + abstract
    gap = (lambda: [""] * rng.randint(1, 3)) if layout.blank_runs else (lambda: [""])
    lines: list[str] = []
    for h in header:
        lines.append(h)
        if not layout.compact:
            lines += gap()
    lines += re.split(r"\r\n|\r|\n", abstract)  # verbatim; a CR or CRLF inside is a line end like LF
    tail = []
    if layout.status and expected_fields(record, layout)["status"]:
        tail.append(_noisy(record["status"], layout, rng))
    if layout.pages:
        tail += [_noisy(p, layout, rng) for p in layout.pages.split("\n")]
    for t in tail:
        lines += gap() + [t]
    return lines


def write_list(records: list[dict], layout: Layout, seed: int = 0) -> tuple[bytes, list[tuple[int, int]], str | None, int | None]:
    """Write ``records`` (one venue-year) as a list file in ``layout``.

    Returns ``(data, spans, venue, year)``: the encoded bytes, the 1-based
    ``(first, last)`` line span of each record, and the venue/year the config
    must pass (None when the heading names them).
    """
    rng = random.Random(seed)
    venue, year = records[0]["venue"], records[0]["year"]
    lines: list[str] = []
    config = (venue, year)
    if layout.heading is not None:
        lines += [_noisy(layout.heading.format(venue=venue, year=year), layout, rng), ""]
        if "{venue}" in layout.heading:
            config = (None, None)
    spans = []
    for n, record in enumerate(records, 1):
        body = _flatten(entry_lines(record, layout, n, rng))  # a CR or CRLF inside an abstract is a line end
        spans.append((len(lines) + 1, len(lines) + len(body)))
        lines += body
        lines += [""] * (rng.randint(1, 3) if layout.blank_runs else 1)
    text = layout.newline.join(lines)
    return text.encode(layout.encoding), spans, config[0], config[1]


def _flatten(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if "\r" in line or "\n" in line:
            out += re.split(r"\r\n|\r|\n", line)
        else:
            out.append(line)
    return out


def actual_fields(entry: Entry) -> dict:
    """The compared fields of a read entry."""
    return {k: getattr(entry, k) for k in ("title", "authors", "et_al", "track", "abstract", "venue", "year", "status")}


def compare(record: dict, entry: Entry | None, layout: Layout, strict: bool = False) -> list[str]:
    """Names of the fields that differ (``["missing"]`` when no entry was read for the record)."""
    if entry is None:
        return ["missing"]
    want = expected_fields(record, layout)
    if not strict:
        want["abstract"] = want["abstract"].replace("\r\n", "\n").replace("\r", "\n")
    got = actual_fields(entry)
    return [k for k in want if want[k] != got[k]]


def roundtrip(records: list[dict], layout: Layout, seed: int = 0, path: str = "list.txt"):
    """Write and read back one list; yields ``(record, entry_or_None, diffs, strict_diffs, explained, diags)``:
    ``explained`` when a diagnostic sits on the record's lines or names one of them, ``diags`` those on its lines."""
    data, spans, venue, year = write_list(records, layout, seed)
    result = read_text(decode_bytes(data), path, venue, year)
    by_line = sorted(result.entries, key=lambda e: e.line)
    starts = [e.line for e in by_line]
    import bisect
    for record, (first, last) in zip(records, spans):
        k = bisect.bisect_left(starts, first)
        entry = by_line[k] if k < len(starts) and starts[k] <= last else None
        diags = [d for d in result.diagnostics if first <= d.line <= last]
        named = [d for d in result.diagnostics if _names_line(d.message, first, last)]
        yield (record, entry, compare(record, entry, layout), compare(record, entry, layout, True),
               bool(diags or named), diags)


def _names_line(message: str, first: int, last: int) -> bool:
    """True when a diagnostic's message names a line of ``first..last`` ("the abstract at line 53")."""
    return any(first <= int(n) <= last for n in re.findall(r"\bline (\d+)\b", message))


def load(path: Path = CORPUS) -> list[dict]:
    """The corpus records, in file order."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def chunks(records: list[dict], size: int) -> list[list[dict]]:
    """Records grouped by venue-year, cut into lists of at most ``size``."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in records:
        groups[(r["venue"], r["year"])].append(r)
    out = []
    for key in sorted(groups, key=str):
        g = groups[key]
        out += [g[i:i + size] for i in range(0, len(g), size)]
    return out


# --- our own output read back as lists -------------------------------------------------------------

#: The ``papers.json`` fields compared (every field of :meth:`~site_builder.model.site.Paper.record`).
OWN_FIELDS = ("id", "slug", "url", "title", "title_derived", "authors", "et_al", "venue", "year", "track",
              "abstract", "keywords", "doi", "landing_url", "code_urls", "status")


def site_of(files: list[Path], config: SiteConfig) -> Site:
    """The site model of the list ``files`` (each read by its format with the config's venue and year for it)."""
    entries = []
    for path in files:
        defaults = config.list_defaults(path.name)
        entries += formats.read_list(path, defaults.venue, defaults.year, defaults.explicit).entries
    return build_site(entries, {}, config, Diagnostics())


def own_files(site: Site, folder: Path, base_url: str = "https://example.org/") -> dict[str, Path]:
    """``papers.jsonl`` (the ``papers.json`` records, one a line) and ``papers.bib`` (the entries as the build
    writes them: keys, absolute URL, every field) of ``site`` written into ``folder``, each in its own folder."""
    keys = bibtex.assign_keys(site.papers)
    texts = {"papers.jsonl": "".join(json.dumps(p.record(), ensure_ascii=False) + "\n" for p in site.papers),
             "papers.bib": bibtex.bib_file(bibtex.entry(p, keys[p.id], absolute_url(base_url, p.path), True)
                                           for p in site.papers)}
    out = {}
    for name, text in texts.items():
        (folder / name.replace(".", "-")).mkdir(parents=True, exist_ok=True)
        out[name] = folder / name.replace(".", "-") / name
        out[name].write_text(text, encoding="utf-8")
    return out


def _fold(text: str | None) -> str | None:
    return " ".join(text.split()) if isinstance(text, str) else text


def normalised(record: dict, bib: bool) -> dict:
    """``record`` as compared (both sides): what reading it back may change and still be the same paper with the
    same fields made the same: the title, each name and the track with their white space folded (each is one line of a page; every structured reader folds
    it: a run of spaces or a U+2028 in a pasted list's title comes back as one space), and in ``.bib`` files
    (``bib``) CRLF and CR inside the abstract as LF (the file's line ends; the page renders the same)."""
    out = {**record, "title": _fold(record["title"]), "authors": [_fold(a) for a in record["authors"]],
           "track": _fold(record["track"])}
    if bib:
        out["abstract"] = re.sub(r"\r\n?", "\n", record["abstract"])
    return out


def own_roundtrip(site: Site, folder: Path, show: int = 0) -> dict[str, dict]:
    """Our ``papers.json`` (as JSON Lines) and ``papers.bib`` of ``site`` read back: ``{file: {"papers": n,
    "exact": papers every field equal, "strict": the same without :func:`normalised`, "fields":
    Counter of differing fields ("missing": no paper of that id), "extra": papers read that ``site`` lacks,
    "shown": the first ``show`` differences (id, field, want, got)}}``."""
    want = {p.id: p.record() for p in site.papers}
    out = {}
    for name, path in own_files(site, folder).items():
        again = {p.id: p.record() for p in site_of([path], site.config).papers}
        fields, shown, exact, strict = Counter(), [], 0, 0
        for pid, record in want.items():
            got = again.get(pid)
            if got is None:
                fields["missing"] += 1
                continue
            strict += got == record
            expected, got = normalised(record, name.endswith(".bib")), normalised(got, name.endswith(".bib"))
            diffs = [k for k in OWN_FIELDS if expected.get(k) != got.get(k)]
            exact += not diffs
            fields.update(diffs)
            shown += [(pid, k, expected.get(k), got.get(k)) for k in diffs][:max(0, show - len(shown))]
        out[name] = {"papers": len(want), "exact": exact, "strict": strict, "fields": fields,
                     "extra": len(again.keys() - want.keys()), "shown": shown}
    return out


def own_output_main(records: list[dict], show: int) -> int:
    """Print :func:`own_roundtrip` of the corpus ``records`` (every fourth with ``title_derived``); status 0 when
    every paper comes back field-exact from both files."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "corpus.jsonl"
        source.write_text("".join(json.dumps(r | ({"title_derived": True} if n % 4 == 3 else {}),
                                             ensure_ascii=False) + "\n" for n, r in enumerate(records)),
                          encoding="utf-8")
        site = site_of([source], SiteConfig())
        results = own_roundtrip(site, Path(tmp), show)
    derived = sum(p.title_derived for p in site.papers)
    print(f"papers: {len(site.papers)} ({derived} with a derived title) from {len(records)} corpus records")
    for name, r in results.items():
        print(f"{name:13} field-exact {r['exact']}/{r['papers']} ({100 * r['exact'] / r['papers']:.2f}%), "
              f"strict {r['strict']} ({100 * r['strict'] / r['papers']:.2f}%); extra papers {r['extra']}; "
              f"differing fields {dict(r['fields'])}")
        for pid, key, want, got in r["shown"]:
            print(f"    {pid} {key}: want {want!r:.150}\n    {' ' * len(pid)} {key}:  got {got!r:.150}")
    return 0 if all(r["exact"] == r["papers"] and not r["extra"] for r in results.values()) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--per-list", type=int, default=60, help="papers per written list")
    parser.add_argument("--show", type=int, default=0, help="print this many failures")
    parser.add_argument("--layout", action="append", help="only these layouts (by name)")
    parser.add_argument("--own-output", action="store_true",
                        help="read our own papers.json (as JSON Lines) and papers.bib back instead (issue 26)")
    args = parser.parse_args(argv)
    records = load(require_corpus(args.corpus))
    if args.own_output:
        return own_output_main(records, args.show)
    layouts = [l for l in LAYOUTS if not args.layout or l.name in args.layout]
    total = exact = strict_exact = explained = false_warnings = 0
    multi = Counter()  # records whose abstract has several paragraphs, in lists of abstracts alone
    per_layout: dict[str, Counter] = defaultdict(Counter)
    fields = Counter()
    shown = 0
    for layout in layouts:
        for i, chunk in enumerate(chunks(records, args.per_list)):
            for record, entry, diffs, sdiffs, expl, diags in roundtrip(chunk, layout, seed=i, path=f"{layout.name}-{i}.txt"):
                total += 1
                c = per_layout[layout.name]
                c["papers"] += 1
                if not (layout.title or layout.authors or layout.number or layout.labels) and \
                        len(re.split(r"\n[ \t]*\n", record["abstract"].replace("\r\n", "\n").strip())) > 1:
                    multi["exact" if not diffs else "explained" if expl else "unexplained"] += 1
                if not diffs:
                    exact += 1
                    c["exact"] += 1
                    if diags:
                        false_warnings += 1
                        c["false"] += 1
                else:
                    fields.update(diffs)
                    if expl:
                        explained += 1
                        c["explained"] += 1
                    else:
                        c["unexplained"] += 1
                        if shown < args.show:
                            shown += 1
                            print(f"--- {layout.name}-{i}: {record['title'][:70]!r} differs in {diffs}")
                            if entry is not None:
                                for k in diffs:
                                    print(f"    {k}: want {repr(expected_fields(record, layout)[k])[:150]}")
                                    print(f"    {k}:  got {repr(getattr(entry, k))[:150]}")
                if not sdiffs:
                    strict_exact += 1
    print(f"{'layout':28} {'papers':>7} {'exact':>7} {'explained':>9} {'unexpl.':>7} {'false w.':>8}")
    for name, c in per_layout.items():
        print(f"{name:28} {c['papers']:7} {c['exact']:7} {c['explained']:9} {c['unexplained']:7} {c['false']:8}")
    others = total - exact
    print(f"papers written and read: {total} ({len(records)} records x {len(layouts)} layouts)")
    print(f"papers read with every field exact: {exact} ({100 * exact / total:.2f}%)")
    print(f"  strict (CRLF inside abstracts must survive too): {strict_exact} ({100 * strict_exact / total:.2f}%)")
    print(f"other papers: {others}; explained by a diagnostic on their lines: {explained}; "
          f"unexplained: {others - explained}")
    print(f"exact papers with a diagnostic on their lines (false warnings): {false_warnings}")
    print(f"multi-paragraph abstracts in lists of abstracts alone: {sum(multi.values())}: read exactly "
          f"{multi['exact']}, explained {multi['explained']}, unexplained {multi['unexplained']}")
    print(f"differing fields: {dict(fields)}")
    return 0 if exact / total >= 0.995 and explained == others else 1


if __name__ == "__main__":
    sys.exit(main())
