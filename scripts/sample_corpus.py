"""Draw the tests' sample of the corpus of real papers (``tests/fixtures/papers/sample.jsonl``).

Usage (from the repository root; the command that drew the committed sample):

    PYTHONPATH=$PWD python3 scripts/sample_corpus.py --papers 500 --least 10 --multi-paragraph 30 --seed 27 \\
        --pinned tests/fixtures/papers/pinned.txt --out tests/fixtures/papers/sample.jsonl

Stratified by venue-year, so that every venue-year of the corpus appears: each gets its share of
``--papers`` in proportion to its size in the corpus (rounded), and at least ``--least``, drawn with
``random.Random(seed)`` (venue-years in sorted order). Then ``--multi-paragraph`` more are drawn, with
the same generator, among the records whose abstract has several paragraphs (86 of the corpus's 10,448:
a list of abstracts alone must tell such a paragraph from the next paper, and a draw of a few hundred
holds about five). Then every record whose title is a line of ``--pinned`` is added (papers that tests
name: regression cases found on the full corpus). The records are written as the corpus holds them (the
lines' bytes, never edited), in the corpus's order.

The corpus is ``--corpus``, else ``$PAPERS_CORPUS``, else ``../shared/corpus/papers.jsonl``; without it,
exit status 2 (:func:`site_builder.corpus.require_corpus`).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

from site_builder.corpus import DEFAULT_CORPUS, require_corpus


def strata(lines: list[bytes]) -> dict[tuple[str, int], list[int]]:
    """The line numbers (0-based) of each venue-year's records."""
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for number, line in enumerate(lines):
        record = json.loads(line)
        groups[(record["venue"], int(record["year"]))].append(number)
    return groups


def draw(groups: dict[tuple[str, int], list[int]], papers: int, least: int, rng: random.Random) -> set[int]:
    """Line numbers drawn from each venue-year: its share of ``papers`` (at least ``least``)."""
    total = sum(len(numbers) for numbers in groups.values())
    picked: set[int] = set()
    for key in sorted(groups):
        numbers = groups[key]
        share = max(least, round(papers * len(numbers) / total))
        picked.update(rng.sample(numbers, min(share, len(numbers))))
    return picked


def several_paragraphs(abstract: str) -> bool:
    """Whether ``abstract`` has more than one paragraph (blank lines between them)."""
    return len(re.split(r"\n[ \t]*\n", abstract.replace("\r\n", "\n").replace("\r", "\n").strip())) > 1


def draw_paragraphs(lines: list[bytes], picked: set[int], count: int, rng: random.Random) -> set[int]:
    """``count`` line numbers drawn among the records not in ``picked`` whose abstract has several paragraphs."""
    candidates = [n for n, line in enumerate(lines)
                  if n not in picked and several_paragraphs(json.loads(line).get("abstract") or "")]
    return set(rng.sample(candidates, min(count, len(candidates))))


def pinned(lines: list[bytes], titles_file: Path | None) -> set[int]:
    """Line numbers of the records whose title is a line of ``titles_file`` (``#`` lines are comments);
    exits with status 2 naming a title that no record has."""
    if titles_file is None:
        return set()
    wanted = {t.strip() for t in titles_file.read_text(encoding="utf-8").splitlines()
              if t.strip() and not t.startswith("#")}
    found = {n for n, line in enumerate(lines) if json.loads(line).get("title") in wanted}
    missing = wanted - {json.loads(lines[n])["title"] for n in found}
    if missing:
        print(f"{titles_file}: no record with the title {sorted(missing)[0]!r}", file=sys.stderr)
        raise SystemExit(2)
    return found


def main(argv: list[str] | None = None) -> int:
    """Write the sample; print how many papers, venue-years and bytes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--papers", type=int, default=500, help="papers drawn, shared out by venue-year")
    parser.add_argument("--least", type=int, default=10, help="papers drawn at least from each venue-year")
    parser.add_argument("--multi-paragraph", type=int, default=30,
                        help="papers drawn besides among those whose abstract has several paragraphs")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--pinned", type=Path, help="titles to add, one a line")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    corpus = require_corpus(args.corpus)
    lines = [line if line.endswith(b"\n") else line + b"\n"
             for line in corpus.read_bytes().splitlines(keepends=True) if line.strip()]
    groups = strata(lines)
    rng = random.Random(args.seed)
    drawn = draw(groups, args.papers, args.least, rng)
    drawn |= draw_paragraphs(lines, drawn, args.multi_paragraph, rng)
    chosen = sorted(drawn | pinned(lines, args.pinned))
    data = b"".join(lines[n] for n in chosen)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    venue_years = {key for key, numbers in groups.items() if set(numbers) & set(chosen)}
    print(f"{args.out}: {len(chosen)} papers of {len(lines)}, {len(venue_years)} venue-years of {len(groups)}, "
          f"{len(data):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
