"""The reader's speed short cuts give what the full computation gives, on real text.

``reader_lines._surely_not_authors`` lets ``is_prose`` skip ``author_score`` on long lines; it must
only hold where ``author_score`` is below the author-line threshold (2.5)."""

from __future__ import annotations

from pathlib import Path

from papers_sample import sample_records
from site_builder.read import lines as reader_lines
from site_builder.read.text import clean

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def _texts() -> list[str]:
    texts = [clean(line) for path in sorted(SEEDS.glob("*.txt"))
             for line in path.read_text(encoding="utf-8").splitlines()]
    for row in sample_records():
        texts.append(clean(row.get("abstract") or ""))
        # author lines long enough to be tested, with et al. and digits
        authors = ", ".join(row.get("authors") or [])
        texts += [clean(authors + " et al."), clean(authors + " 2"), clean(authors)]
    return [t for t in texts if len(t) > 200]


def test_surely_not_authors_only_where_author_score_is_low():
    texts = _texts()
    short_cut = [t for t in texts if reader_lines._surely_not_authors(t)]
    assert len(short_cut) > 270  # the short cut is taken on about half the abstracts (320 of the sample's 565)
    assert all(reader_lines.author_score(t) < 2.5 for t in short_cut)
    # and is_prose agrees with its full computation on every text
    for t in texts:
        assert reader_lines.is_prose(t) == (reader_lines.author_score(t) < 2.5)
