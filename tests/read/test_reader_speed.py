"""The reader's speed short cuts give what the full computation gives, on real text.

``reader_lines._surely_not_authors`` lets ``is_prose`` skip ``author_score`` on long lines; it must
only hold where ``author_score`` is below the author-line threshold (2.5)."""

from __future__ import annotations

import json
from pathlib import Path

from site_builder.read import lines as reader_lines
from site_builder.read.text import clean

CORPUS = Path("/work/shared/corpus/papers.jsonl")
SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def _texts() -> list[str]:
    texts = [clean(line) for path in sorted(SEEDS.glob("*.txt"))
             for line in path.read_text(encoding="utf-8").splitlines()]
    with CORPUS.open(encoding="utf-8") as f:
        for k, row in enumerate(map(json.loads, f)):
            if k % 5 == 0:
                texts.append(clean(row.get("abstract") or ""))
                # author lines long enough to be tested, with et al. and digits
                authors = ", ".join(row.get("authors") or [])
                texts += [clean(authors + " et al."), clean(authors + " 2"), clean(authors)]
    return [t for t in texts if len(t) > 200]


def test_surely_not_authors_only_where_author_score_is_low():
    texts = _texts()
    short_cut = [t for t in texts if reader_lines._surely_not_authors(t)]
    assert len(short_cut) > 1000  # the short cut is taken on most abstracts
    assert all(reader_lines.author_score(t) < 2.5 for t in short_cut)
    # and is_prose agrees with its full computation on every text
    for t in texts:
        assert reader_lines.is_prose(t) == (reader_lines.author_score(t) < 2.5)
