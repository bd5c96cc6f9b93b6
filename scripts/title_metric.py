"""Measure ``site_builder.titles`` over a corpus of real papers with real titles.

Usage: PYTHONPATH=$PWD python scripts/title_metric.py [/work/shared/corpus/papers.jsonl] [--samples N] [--seed S]

Reports: (1) abstracts for which ``introduced_name`` finds a name; (2) of
those, how often ``derive_title`` contains the name (goal >= 90%); (3) how
often the real title contains the name (a precision estimate for
``introduced_name``: a real title carrying the name is evidence that it is the
method name); (4) time per abstract; (5) sample (real, derived) pairs.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time

from site_builder.titles import derive_title, introduced_name

DEFAULT = "/work/shared/corpus/papers.jsonl"


def _norm(text: str) -> str:
    """Lower-case alphanumerics only, so ``$\\partial$-CROWN`` ~ ``∂-CROWN`` differences fade."""
    return re.sub(r"[^0-9a-z∂]+", "", text.lower())


_STOP = set("a an and as at by for from in into of on or the to via with without under over is are can do does "
            "towards toward using through its their your our we how what when why".split())


def _content(title: str) -> set[str]:
    """Content words of a title, lower case, a plural "s" dropped (a crude match, enough for a proxy)."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in _STOP}


def _recall(real: str, derived: str) -> float:
    """Share of the real title's content words that the derived title also has."""
    want = _content(real)
    return len(want & _content(derived)) / len(want) if want else 0.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default=DEFAULT)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    papers = [json.loads(line) for line in open(args.corpus, encoding="utf-8") if line.strip()]
    t0, c0 = time.perf_counter(), time.process_time()
    names, titles = [], []
    for p in papers:
        names.append(introduced_name(p["abstract"]))
        titles.append(derive_title(p["abstract"]))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    named = [(p, n, t) for p, n, t in zip(papers, names, titles) if n]
    in_derived = sum(_norm(n) in _norm(t) for _, n, t in named)
    in_real = sum(_norm(n) in _norm(p["title"]) for p, n, _ in named)
    bad = [t for t in titles if not t or "$" in t or "*" in t or len(t.split()) > 16 or t.count("(") != t.count(")")]
    k = len(named) or 1
    t0, c0 = time.perf_counter(), time.process_time()
    for p in papers:
        derive_title(p["abstract"] + " ")  # not cached: a fresh abstract
    alone, alone_cpu = time.perf_counter() - t0, time.process_time() - c0
    n = max(len(papers), 1)
    print(f"papers: {len(papers)}")
    print(f"time, introduced_name + derive_title over all: {elapsed:.2f}s wall, {cpu:.2f}s CPU")
    print(f"time, derive_title alone: {alone:.2f}s wall, {alone_cpu:.2f}s CPU ({1e6 * alone_cpu / n:.0f} us/paper CPU)")
    print(f"(1) abstracts with an introduced name: {len(named)} ({100 * len(named) / max(len(papers), 1):.1f}%)")
    print(f"(2) derived title contains the name:   {in_derived}/{len(named)} ({100 * in_derived / k:.1f}%)")
    print(f"(3) real title contains the name:      {in_real}/{len(named)} ({100 * in_real / k:.1f}%)")
    recall = sum(_recall(p["title"], t) for p, t in zip(papers, titles)) / max(len(papers), 1)
    print(f"    word recall: share of a real title's content words in the derived title, mean {100 * recall:.1f}%")
    print(f"    titles breaking a property (empty, $, *, >16 words, parens): {len(bad)}")
    rng = random.Random(args.seed)
    print("(4) samples (real | derived | name):")
    for p, t, n in rng.sample(list(zip(papers, titles, names)), min(args.samples, len(papers))):
        print(f"  REAL    {p['title']}\n  DERIVED {t}   [{n}]")


if __name__ == "__main__":
    main()
