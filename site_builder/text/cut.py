"""The start of a text, cut at a word: what a search result record keeps of an abstract's plain text
(:func:`site_builder.search.documents.result_record`), and so what the list pages' abstracts read from a record
(:mod:`site_builder.output.abstracts`). Here, below both, so the build's own process computes it without the
search modules (the index is built in a process of its own).
"""

from __future__ import annotations

#: Characters of an abstract's plain text a result record keeps (99 % of the corpus's abstracts are shorter):
#: the page picks the passage that matches a query from it and checks phrases against it.
ABSTRACT_CHARS = 2000


def snippet(text: str, limit: int = ABSTRACT_CHARS) -> str:
    """The start of ``text`` (white space collapsed), cut at a word, ``…`` added when cut."""
    # Only the start is shown: collapse a prefix when that alone is longer than the limit (the collapsed
    # prefix is a prefix of the collapsed text, so the result is the same); a short one first, it nearly always is.
    for size in (limit + 64, 4 * limit + 8):
        head = " ".join(text[:size].split()) if len(text) > size else ""
        if len(head) > limit:
            text = head
            break
    else:
        text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"
