"""The prebuilt search index, read by lunr.js 2.3.9 in the browser.

The index is written directly (:mod:`site_builder.indexer`, BM25 field vectors
as lunr.js computes them) over terms from :mod:`site_builder.tokenize`, whose
rules ``assets/search-core.js`` repeats on the query side. The build writes it
as ``search-index.js`` (:func:`index_files`), packed by
:mod:`site_builder.transport`; ``assets/search-transport.js`` unpacks it in the
page into the same lunr index. The index and the records results show are::

    {"index": <lunr.Index serialisation, what lunr.Index.load takes>,
     "docs": {ref: {"id", "title", "url", "authors", "venue", "track", "snippet"}}}

(:func:`build_search_data`; ``node scripts/search_index_json.js SITE`` prints
it from a built site).

``ref`` is short (the paper's position in base 36), ``id`` the paper's stable id; ``url`` is relative to the site root; ``authors`` a
list (``"et al."`` last when the list said so); ``track`` a label or null;
``snippet`` the start of the abstract's plain text, at most
:data:`SNIPPET_CHARS` characters, cut at a word.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Sequence

from . import urls
from .indexer import IndexTables, index_tables, lunr_json
from .model import Paper, Site
from .tokenize import query_alternatives, term_counts

#: Indexed fields and their lunr boosts, in index order.
FIELDS = (("title", 10), ("authors", 3), ("track", 2), ("abstract", 1))
SNIPPET_CHARS = 200


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
        return counts, length
    for text in texts[1:]:
        for t in term_counts(text):
            if t not in counts:
                counts[t] = 1
                length += 1
    return counts, length


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
            out[name] = (counts, sum(counts.values()))
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


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
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
    """What a search result shows of ``paper`` (all plain text; the page inserts it as text)."""
    return {
        "title": paper.title_text,
        "url": paper.path,
        "authors": list(paper.authors) + (["et al."] if paper.et_al else []),
        "venue": paper.venue.label,
        "track": paper.track.label if paper.track else None,
        "snippet": snippet(paper.rendered.text),
    }


def short_ref(n: int) -> str:
    """The index ref of the ``n``-th paper: ``n`` in base 36 (``0``…``z``, ``10``…), short to keep the index small."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, d = divmod(n, 36)
        out = digits[d] + out
        if not n:
            return out


def paper_terms(paper: Paper) -> dict[str, tuple[dict[str, int], int]]:
    """What the index holds of ``paper``: ``{field: ({term: frequency}, token count)}``.

    A pure function of the paper's texts (title, authors, track, abstract), so it can be memoised per paper.
    """
    return document_terms(search_texts(paper))


def search_tables(site: Site, state: Path | None = None) -> tuple[IndexTables, dict[str, dict]]:
    """The index over every paper of ``site``, in the model's fixed order, as
    :class:`~site_builder.indexer.IndexTables`, and the result records ``{ref: record}``.

    Refs are short (:func:`short_ref` of the paper's position); each record
    carries the paper's stable ``id``. ``state``: a file (in the build cache
    folder, :func:`index_state.state_path`) keeping the tokenized papers from
    one build to the next, so only changed papers are tokenized again
    (:func:`index_state.stateful_tables`); the tables are the same with or without it.
    """
    refs = [short_ref(i) for i in range(len(site.papers))]
    if state is not None:
        from .index_state import stateful_tables
        tables = stateful_tables(site.papers, refs, Path(state))
    else:
        tables = index_tables(((r, paper_terms(p)) for r, p in zip(refs, site.papers)), FIELDS)
    return tables, {r: search_record(p) for r, p in zip(refs, site.papers)}


def build_search_data(site: Site) -> dict:
    """``{"index": <lunr 2.3.9 serialised index>, "docs": {ref: record}}`` of ``site`` (see the module doc).

    The build does not write this form (it writes :func:`index_files`); the
    tests compare what the page unpacks with it.
    """
    tables, docs = search_tables(site)
    return {"index": lunr_json(tables), "docs": docs}


#: The files the search index is written to, relative to the site root.
INDEX_FILES = (urls.SEARCH_INDEX_JS,)


def search_record(paper: Paper) -> dict:
    """The record of ``paper`` in the index: :func:`result_record` and its stable ``id``."""
    return {**result_record(paper), "id": paper.id}


def index_files(site: Site, state: Path | None = None, models: Sequence[bytes] | None = None) -> dict[str, str]:
    """``{path: text}`` of the search index files of ``site`` (:data:`INDEX_FILES`):
    ``search-index.js``, the classic script that the search page loads (also from ``file://``).

    The text is ``transport.index_script(*search_tables(site))``, written by
    :func:`index_pack.stateful_parts`; ``state``: a file (in the build cache
    folder, :func:`index_state.state_path`) keeping the tokenized papers and
    packed pieces from one build to the next (same output with or without it). ``models``: each paper's
    :meth:`cache.Fingerprinter.digests` digest, or None: lets the state find unchanged papers without
    hashing their texts (:func:`index_state.text_digests`; same output with or without them).
    """
    return {path: b"".join(parts).decode("utf-8") for path, parts in index_file_parts(site, state, models).items()}


def index_file_parts(site: Site, state: Path | None = None, models: Sequence[bytes] | None = None
                     ) -> dict[str, list[bytes]]:
    """:func:`index_files` as ``{path: the UTF-8 bytes of its text in parts}``, to be written one part after
    another (:func:`index_pack.stateful_parts`): the (large) packed parts are neither joined nor encoded again."""
    from .index_pack import stateful_parts

    refs = [short_ref(i) for i in range(len(site.papers))]
    return {urls.SEARCH_INDEX_JS: stateful_parts(site.papers, refs, search_record, state, models)}


def dump_json(data: object) -> str:
    """Serialise ``data`` deterministically (sorted keys, compact, UTF-8 kept)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
