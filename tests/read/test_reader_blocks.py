"""The seed lists' papers shuffled and recombined: every paper comes back whole, whatever its neighbours."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SEEDS
from site_builder.read.plaintext import read_list, read_text

LISTS = sorted(SEEDS.glob("*.txt"))


def blocks_of(path: Path) -> tuple[list[str], list[tuple[list[str], tuple]]]:
    """``(heading lines, [(block lines, fields), ...])``: each paper's lines in ``path`` as the reader read
    them, with its fields (title, authors, track, abstract)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    entries = read_list(path).entries
    heading = lines[:entries[0].line - 1]
    return heading, [(lines[e.line - 1:e.end_line], fields(e)) for e in entries]


def fields(entry) -> tuple:
    return entry.title, entry.authors, entry.track, entry.abstract


BLOCKS = {path.name: blocks_of(path) for path in LISTS}


def assemble(heading: list[str], blocks: list[list[str]]) -> str:
    return "\n".join(heading).rstrip("\n") + "\n\n" + "\n\n".join("\n".join(b).strip("\n") for b in blocks) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(BLOCKS)), st.data())
def test_a_list_shuffled_reads_the_same_papers(name, data):
    heading, blocks = BLOCKS[name]
    order = data.draw(st.permutations(range(len(blocks))))
    keep = data.draw(st.integers(min_value=1, max_value=len(blocks)))
    chosen = [blocks[i] for i in order[:keep]]
    result = read_text(assemble(heading, [b for b, _ in chosen]), name)
    assert [fields(e) for e in result.entries] == [f for _, f in chosen]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_papers_of_two_lists_of_one_layout_read_the_same_together(data):
    (a, b) = [n for n in sorted(BLOCKS) if BLOCKS[n][1][0][1][0] is None][:2]  # the two lists of abstracts alone
    pool = BLOCKS[a][1] + BLOCKS[b][1]
    order = data.draw(st.permutations(range(len(pool))))
    keep = data.draw(st.integers(min_value=2, max_value=len(pool)))
    chosen = [pool[i] for i in order[:keep]]
    result = read_text(assemble(BLOCKS[a][0], [p for p, _ in chosen]), a)
    assert [fields(e) for e in result.entries] == [f for _, f in chosen]
