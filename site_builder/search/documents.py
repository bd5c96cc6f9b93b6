"""What the index holds of each paper: its fields' texts and terms, and the record a result shows.

Pure functions of one paper (:class:`~site_builder.model.site.Paper`), shared by the index built
at once (:mod:`.index`) and the one kept between builds (:mod:`.state`, :mod:`.pack`).
"""

from __future__ import annotations

from typing import Iterable

from ..model.site import Paper
from .tokenize import query_alternatives, term_counts, transliterated

#: Indexed fields and their lunr boosts, in index order.
FIELDS = (("title", 10), ("authors", 3), ("track", 2), ("abstract", 1))
#: Characters of an abstract's plain text a result record keeps (99 % of the corpus's abstracts are shorter):
#: the page picks the passage that matches a query from it and checks phrases against it.
ABSTRACT_CHARS = 2000


#: Characters of Markdown/TeX/HTML markup; a text without any renders to itself (or a mere re-spacing of it).
MARKUP = frozenset("$\\*_`<>&[]{}^~#|")


def field_counts(texts: Iterable[str]) -> tuple[dict[str, int], int]:
    """``({term: frequency}, token count)`` of a field given as its source text then derived forms.

    All terms of the first text, then once each the terms of the others that
    the first lacks (so TeX source and its rendering are both findable without
    doubling the term frequencies); repeated texts count once, and derived
    forms of a first text without markup characters (:data:`MARKUP`) are not
    read (they hold the same words).
    """
    texts = list(dict.fromkeys(t for t in texts if t))
    if not texts:
        return {}, 0
    counts = term_counts(texts[0])
    length = sum(counts.values())
    if len(texts) == 1 or MARKUP.isdisjoint(texts[0]):
        return counts, with_transliterated(counts, length, texts[:1])
    return counts, with_transliterated(counts, with_terms(counts, length, texts[1:]), texts)


def with_terms(counts: dict[str, int], length: int, texts: Iterable[str]) -> int:
    """Add to ``counts`` once each the terms of ``texts`` it lacks; the token count ``length`` with them."""
    for text in texts:
        for t in term_counts(text):
            if t not in counts:
                counts[t] = 1
                length += 1
    return length


def with_transliterated(counts: dict[str, int], length: int, texts: list[str]) -> int:
    """Add to ``counts`` the terms of ``texts`` with German umlauts transliterated (``Müller`` → ``mueller``,
    :func:`~site_builder.search.tokenize.transliterated`) it lacks, once each, as a derived form; the token count."""
    return with_terms(counts, length, filter(None, map(transliterated, texts)))


def search_texts(paper: Paper) -> dict[str, list[str]]:
    """The texts of ``paper`` that each index field covers: ``{field: [text, ...]}``."""
    return {
        "title": [paper.title_text, paper.title],
        "authors": list(paper.authors),
        "track": [paper.track.label] if paper.track else [],
        "abstract": [paper.abstract, paper.rendered.text],
    }


def document_terms(texts: dict[str, list[str]]) -> dict[str, tuple[dict[str, int], int]]:
    """``{field: [text, ...]}`` → ``{field: ({term: frequency}, token count)}``; authors are all counted."""
    out = {}
    for name, _ in FIELDS:
        parts = texts.get(name) or []
        if name == "authors":  # one text, a line per author: the same terms as author by author
            counts = term_counts("\n".join(parts))
            out[name] = (counts, with_transliterated(counts, sum(counts.values()), parts))
        else:
            out[name] = field_counts(parts)
    return out


def recall_words(paper: Paper) -> set[str]:
    """The words a reader may copy from ``paper`` and expect to find it by: every white-space
    separated word of its title (source and rendered), authors and abstract (source and
    rendered text) that yields a query term (stop words and bare punctuation yield none).

    The recall tests and ``scripts/search_recall.py`` type each of them into the site.
    """
    words = set()
    for texts in search_texts(paper).values():
        for text in texts:
            words.update(text.split())
    return {w for w in words if query_alternatives(w)}


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


def result_record(paper: Paper) -> dict:
    """What a search result shows of ``paper`` (all plain text; the page inserts it as text):
    ``{"title", "url", "authors", "venue", "year", "track", "abstract"}``; ``year`` the venue's (int),
    ``abstract`` the abstract's plain text (math in the renderer's plain-text form, white space collapsed),
    at most :data:`ABSTRACT_CHARS` characters, cut at a word (``…`` added). The page shows the sentences of
    it that hold the query's words (``SearchCore.snippet``) and checks quoted phrases against the record."""
    venue, year, track = result_facet(paper)
    return {
        "title": paper.title_text,
        "url": paper.path,
        "authors": list(paper.authors) + (["et al."] if paper.et_al else []),
        "venue": venue,
        "year": year,
        "track": track,
        "abstract": snippet(paper.rendered.text),
    }


def result_facet(paper: Paper) -> tuple[str, int, str | None]:
    """``(venue, year, track)`` of ``paper``'s result record (:func:`result_record`): the venue's label and
    year, the track's label or None; the search page's filters read them from the manifest."""
    return paper.venue.label, paper.venue.year, paper.track.label if paper.track else None



def paper_terms(paper: Paper) -> dict[str, tuple[dict[str, int], int]]:
    """What the index holds of ``paper``: ``{field: ({term: frequency}, token count)}``.

    A pure function of the paper's texts (title, authors, track, abstract), so it can be memoised per paper.
    """
    return document_terms(search_texts(paper))
