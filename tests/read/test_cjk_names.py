"""Author names written in CJK scripts (:data:`site_builder.read.lines.CJK_NAME_CHARS`): every ideograph, kana
and hangul block, the Basic Multilingual Plane and beyond, reads as a name and keeps its paper whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.read.lines import name_shape
from site_builder.read.plaintext import read_text

#: (first, last) code points of each block a name may be written in (those of CJK_NAME_CHARS).
BLOCKS = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2A6DF), (0x2A700, 0x2EBEF),
          (0x2F800, 0x2FA1F), (0x30000, 0x323AF), (0x3041, 0x3096), (0x30A1, 0x30FA), (0x31F0, 0x31FF),
          (0xFF66, 0xFF9D), (0xAC00, 0xD7A3), (0x1100, 0x11FF), (0x3131, 0x318E)]


def block_chars(first: int, last: int) -> st.SearchStrategy[str]:
    return st.characters(min_codepoint=first, max_codepoint=last, blacklist_categories=("Cn", "Cs", "Co"))


NAME_PART = st.sampled_from(BLOCKS).flatmap(lambda block: st.text(block_chars(*block), min_size=1, max_size=3))
# A name ending in 等 (等人) is a name and "et al." (README, Input): not a name as written, so not drawn here.
NAMES = st.tuples(NAME_PART, NAME_PART).map(" ".join).filter(lambda name: not name.endswith(("等", "等人")))


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_a_name_in_any_cjk_block_is_shaped_like_a_name(name):
    assert name_shape(name) == 1.0


@settings(max_examples=150, deadline=None)
@given(NAMES, NAMES)
def test_papers_with_cjk_author_names_are_read_whole(first, second):
    text = ("ICML 2024 Papers\n\nLearning Sparse Graphs Quickly\n"
            f"{first}, Ana Perez\n"
            "We propose a method for learning sparse graphs from few samples and prove that it is consistent.\n\n"
            "Robust Ranking with Noisy Feedback\n"
            f"Jian Li, {second}\n"
            "We study ranking from noisy pairwise feedback and give an algorithm with optimal sample complexity.\n")
    result = read_text(text, "names.txt")
    assert [(e.title, e.authors) for e in result.entries] == [
        ("Learning Sparse Graphs Quickly", (first, "Ana Perez")),
        ("Robust Ranking with Noisy Feedback", ("Jian Li", second))]
    assert result.diagnostics == []


def test_the_names_of_the_issue_read_as_written():
    for name in ("山﨑 太郎", "𠮷田 太郎", "佐々木 一郎", "김 민준", "さとう はなこ"):
        assert name_shape(name) == 1.0, name
