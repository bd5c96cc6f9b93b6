"""Measure ``site_builder.text.titles`` over a corpus of real papers with real titles.

Usage (from the repository root):

    PYTHONPATH=$PWD python scripts/title_metric.py [CORPUS.jsonl] [--samples N] [--misses N] [--seed S]

CORPUS defaults to ../shared/corpus/papers.jsonl (beside the repo) (one JSON object a line
with at least ``title`` and ``abstract``). Reports:

(1) how many abstracts introduce a method name (by ``introduced_name``);
(2) of those, how often ``derive_title`` contains that name (goal >= 90%);
(3) how often the real title contains the name: a sanity check and a lower
    bound on the precision of ``introduced_name`` (many real titles do not
    carry their method's name; ``--misses N`` prints N such cases with the
    sentence that introduced the name, to judge them by hand);
(4) sample (real title, derived title) pairs;
plus the time taken, the titles breaking a property, and a crude quality
proxy: the mean share of a real title's content words found in the derived one.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time

from site_builder.corpus import DEFAULT_CORPUS, require_corpus
from site_builder.text.titles import derive_title, introduced_name

DEFAULT = str(DEFAULT_CORPUS)
_STOP = set("a an and as at by for from in into of on or the to via with without under over is are can do does "
            "towards toward using through its their your our we how what when why".split())


def _norm(text: str) -> str:
    """Lower-case letters and digits only, so ``Q-Resafe`` and ``Q-resafe`` compare equal."""
    return re.sub(r"[^0-9a-z∂]+", "", text.lower())


def _content(title: str) -> set[str]:
    """Content words of a title, lower case, a plural "s" dropped (crude, enough for a proxy)."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in _STOP}


def _recall(real: str, derived: str) -> float:
    """Share of the real title's content words that the derived title also has."""
    want = _content(real)
    return len(want & _content(derived)) / len(want) if want else 0.0


def _broken(title: str) -> bool:
    return not title or "$" in title or "*" in title or len(title.split()) > 16 or title.count("(") != title.count(")")


def _timed(papers: list[dict]) -> tuple[list, list, float, float]:
    """Names and titles for every paper, with the wall and CPU seconds both calls took."""
    t0, c0 = time.perf_counter(), time.process_time()
    names = [introduced_name(p["abstract"]) for p in papers]
    titles = [derive_title(p["abstract"]) for p in papers]
    return names, titles, time.perf_counter() - t0, time.process_time() - c0


def _snippet(abstract: str, name: str) -> str:
    at = abstract.find(name)
    return abstract[max(0, at - 120): at + 120].replace("\n", " ") if at >= 0 else abstract[:240]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", nargs="?", default=DEFAULT)
    ap.add_argument("--samples", type=int, default=12, help="(real, derived) pairs to print")
    ap.add_argument("--misses", type=int, default=0, help="names the real title lacks, to print")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with open(require_corpus(args.corpus), encoding="utf-8") as f:
        papers = [json.loads(line) for line in f if line.strip()]
    n = max(len(papers), 1)
    names, titles, wall, cpu = _timed(papers)
    named = [(p, name, t) for p, name, t in zip(papers, names, titles) if name]
    k = max(len(named), 1)
    exact = sum(name in t for _, name, t in named)
    loose = sum(_norm(name) in _norm(t) for _, name, t in named)
    in_real = [(p, name) for p, name, _ in named if _norm(name) in _norm(p["title"])]
    recall = sum(_recall(p["title"], t) for p, t in zip(papers, titles)) / n
    print(f"papers: {len(papers)}; introduced_name + derive_title on each: {wall:.2f}s wall, {cpu:.2f}s CPU "
          f"({1e6 * cpu / n:.0f} us CPU a paper)")
    print(f"(1) abstracts introducing a name:   {len(named)} ({100 * len(named) / n:.1f}%)")
    print(f"(2) derived title contains it:      {exact}/{len(named)} ({100 * exact / k:.1f}%) as written, "
          f"{loose} ignoring case and punctuation")
    print(f"(3) real title contains it:         {len(in_real)}/{len(named)} ({100 * len(in_real) / k:.1f}%)")
    print(f"    titles breaking a property (empty, $, *, >16 words, parentheses): {sum(map(_broken, titles))}")
    print(f"    proxy: mean share of a real title's content words in the derived title: {100 * recall:.1f}%")
    rng = random.Random(args.seed)
    if args.samples:
        print("(4) samples: real title / derived title [introduced name]")
        for p, t, name in rng.sample(list(zip(papers, titles, names)), min(args.samples, len(papers))):
            print(f"    {p['title']}\n    {t}   [{name}]")
    misses = [(p, name) for p, name, _ in named if _norm(name) not in _norm(p["title"])]
    for p, name in rng.sample(misses, min(args.misses, len(misses))):
        print(f"  MISS [{name}] real title: {p['title']}\n       …{_snippet(p['abstract'], name)}…")


if __name__ == "__main__":
    main()
