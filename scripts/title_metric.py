"""Measure ``site_builder.text.titles`` over a corpus of real papers with real titles.

Usage (from the repository root):

    PYTHONPATH=$PWD python scripts/title_metric.py [CORPUS.jsonl] [--split held-out|tune|all] [--samples N]
        [--misses N] [--generic N] [--seed S]

CORPUS defaults to ../shared/corpus/papers.jsonl (beside the repo) (one JSON object a line
with at least ``title`` and ``abstract``). The corpus is split in two fixed halves by the
CRC-32 of the real title (even: ``tune``, odd: ``held-out``); the heuristics were tuned on
``tune`` only, so the default ``--split held-out`` reports the half they never saw. Reports:

(1) how many abstracts introduce a method name (by ``introduced_name``);
(2) of those, how often ``derive_title`` contains that name (goal 100%);
(3) how often the real title contains the name: a sanity check and a lower
    bound on the precision of ``introduced_name`` (``--misses N`` prints N misses);
(4) closeness: the mean share of a real title's content words found in the derived
    one (a crude proxy, goal >= 40%);
(5) specificity: the share of derived titles with no content word besides generic ones
    (``GENERIC``: new, method, model, framework, …; goal <= 0.5%; ``--generic N`` prints N),
    and acronyms left unexpanded although the abstract expands them ("NPLL" beside
    "noisy partial label learning (NPLL)");
(6) readability: titles over 16 words, with unbalanced brackets, a dangling
    "This/These/Those/Such", "$" or "*", or empty;
(7) CPU time a paper, and sample (real title, derived title) pairs drawn with ``--seed``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
import zlib

from site_builder.corpus import DEFAULT_CORPUS, require_corpus
from site_builder.text.titles import abbreviations, derive_title, introduced_name

DEFAULT = str(DEFAULT_CORPUS)
_STOP = set("a an and as at by for from in into of on or the to via with without under over is are can do does "
            "towards toward using through its their your our we how what when why".split())
# Words that do not set a paper apart: the list, plus the like of them that derived titles used to lean on.
GENERIC = _STOP | set("""new novel method methods model models framework frameworks approach approaches algorithm
algorithms problem problems setting settings potential ai this these those such it that which a an efficient
effective simple general unified global improved better first solution solutions system systems technique
techniques strategy strategies scheme schemes architecture architectures paradigm procedure case cases class result
results way ways study studying analysis analyzing exploring investigating understanding task tasks one two three
several some many various different based towards toward learning deep large""".split())
_DANGLING = re.compile(r"\b(?:This|These|Those|Such|this|these|those|such)\b")
_ACRONYM = re.compile(r"(?<![\w-])[A-Z][A-Za-z]*[A-Z][A-Za-z]*s?(?![\w-])")  # not part of a hyphenated name


def _norm(text: str) -> str:
    """Lower-case letters and digits only, so ``Q-Resafe`` and ``Q-resafe`` compare equal."""
    return re.sub(r"[^0-9a-z∂]+", "", text.lower())


def _words(title: str) -> list[str]:
    """Words of a title, lower case, a plural "s" dropped (crude, enough for a proxy)."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words]


def _content(title: str) -> set[str]:
    """Content words of a title (not in ``_STOP``)."""
    return {w for w in _words(title) if w not in _STOP}


def _recall(real: str, derived: str) -> float:
    """Share of the real title's content words that the derived title also has."""
    want = _content(real)
    return len(want & _content(derived)) / len(want) if want else 0.0


def _generic(title: str, name: str | None) -> bool:
    """No word sets the title apart: every word generic, and no introduced name in it."""
    if name and name in title:
        return False
    return all(w in GENERIC for w in re.findall(r"[a-z0-9]+", title.lower()))


def _unexpanded(title: str, abstract: str, name: str | None) -> list[str]:
    """Acronyms of ``title`` (other than the introduced name) that the abstract expands but the title does not."""
    expanded = abbreviations(abstract)
    out = []
    for acr in _ACRONYM.findall(title):
        long = expanded.get(acr) or expanded.get(acr[:-1]) if acr != name else None
        if long and not _content(long) <= _content(title):
            out.append(acr)
    return out


def _violations(title: str) -> dict[str, bool]:
    """The readability rules a title breaks."""
    pairs = ("()", "[]", "{}")
    return {">16 words": len(title.split()) > 16,
            "unbalanced brackets": any(title.count(a) != title.count(b) for a, b in pairs),
            'dangling "This"': bool(_DANGLING.search(title)),
            "$, * or empty": not title or "$" in title or "*" in title}


def _timed(papers: list[dict]) -> tuple[list, list, float]:
    """Names and titles for every paper, with the CPU seconds both calls took: one paper after the other,
    so ``introduced_name`` reuses the analysis ``derive_title`` cached (the last 2 abstracts), as on a
    build; two passes over all papers would analyse every abstract twice."""
    names, titles = [], []
    c0 = time.process_time()
    for p in papers:
        titles.append(derive_title(p["abstract"]))
        names.append(introduced_name(p["abstract"]))
    return names, titles, time.process_time() - c0


def _split(papers: list[dict], which: str) -> list[dict]:
    """The ``tune`` half (even CRC-32 of the title), the ``held-out`` half (odd) or ``all``."""
    if which == "all":
        return papers
    parity = 0 if which == "tune" else 1
    return [p for p in papers if zlib.crc32(p["title"].encode("utf-8")) % 2 == parity]


def _report(papers: list[dict], names: list, titles: list, cpu: float, split: str) -> None:
    """Print measures (1)–(7) but the samples."""
    n = max(len(papers), 1)
    named = [(p, name, t) for p, name, t in zip(papers, names, titles) if name]
    k = max(len(named), 1)
    exact = sum(name in t for _, name, t in named)
    in_real = sum(_norm(name) in _norm(p["title"]) for p, name, _ in named)
    recall = sum(_recall(p["title"], t) for p, t in zip(papers, titles)) / n
    generic = sum(_generic(t, name) for t, name in zip(titles, names))
    unexpanded = sum(bool(_unexpanded(t, p["abstract"], name)) for p, t, name in zip(papers, titles, names))
    print(f"papers: {len(papers)} (split: {split}); derive_title + introduced_name: {cpu:.2f}s CPU "
          f"({1e6 * cpu / n:.0f} us CPU a paper)")
    print(f"(1) abstracts introducing a name:   {len(named)} ({100 * len(named) / n:.1f}%)")
    print(f"(2) derived title contains it:      {exact}/{len(named)} ({100 * exact / k:.1f}%)")
    print(f"(3) real title contains it:         {in_real}/{len(named)} ({100 * in_real / k:.1f}%)")
    print(f"(4) mean share of a real title's content words in the derived title: {100 * recall:.1f}%")
    print(f"(5) generic titles (no specific word): {generic} ({100 * generic / n:.2f}%, 1 in "
          f"{n / max(generic, 1):.0f}); with an unexpanded acronym: {unexpanded} ({100 * unexpanded / n:.2f}%)")
    broken = [_violations(t) for t in titles]
    print("(6) titles breaking a rule: " + ", ".join(f"{rule} {sum(b[rule] for b in broken)}" for rule in broken[0])
          + f"; words a title: mean {sum(len(t.split()) for t in titles) / n:.1f}, max "
          + f"{max(len(t.split()) for t in titles)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="?", default=DEFAULT)
    ap.add_argument("--split", choices=("held-out", "tune", "all"), default="held-out")
    ap.add_argument("--samples", type=int, default=12, help="(real, derived) pairs to print")
    ap.add_argument("--misses", type=int, default=0, help="names the real title lacks, to print")
    ap.add_argument("--generic", type=int, default=0, help="generic derived titles to print")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with open(require_corpus(args.corpus), encoding="utf-8") as f:
        papers = _split([json.loads(line) for line in f if line.strip()], args.split)
    names, titles, cpu = _timed(papers)
    _report(papers, names, titles, cpu, args.split)
    rng = random.Random(args.seed)
    rows = list(zip(papers, titles, names))
    if args.samples:
        print(f"(7) samples (seed {args.seed}): real title / derived title [introduced name]")
        for p, t, name in rng.sample(rows, min(args.samples, len(rows))):
            print(f"    {p['title']}\n    {t}   [{name}]")
    generic = [(p, t) for p, t, name in rows if _generic(t, name)]
    for p, t in rng.sample(generic, min(args.generic, len(generic))):
        print(f"  GENERIC {t!r}  real: {p['title']}")
    misses = [(p, name) for p, _, name in rows if name and _norm(name) not in _norm(p["title"])]
    for p, name in rng.sample(misses, min(args.misses, len(misses))):
        at = p["abstract"].find(name)
        print(f"  MISS [{name}] real title: {p['title']}\n       …{p['abstract'][max(0, at - 120): at + 120]}…")


if __name__ == "__main__":
    main()
