"""The prebuilt search index, read by lunr.js 2.3.9 in the browser.

The index is written directly (:mod:`site_builder.search.indexer`, BM25 field vectors
as lunr.js computes them) over terms from :mod:`site_builder.search.tokenize`, whose
rules ``assets/search-core.js`` repeats on the query side. The build writes it
as ``search-index.js`` (:func:`index_files`), packed by
:mod:`site_builder.search.transport`; ``assets/search-transport.js`` unpacks it in the
page into the same lunr index. The index and the records results show are::

    {"index": <lunr.Index serialisation, what lunr.Index.load takes>,
     "docs": {ref: {"id", "title", "url", "authors", "venue", "year", "track", "abstract"}}}

(:func:`build_search_data`; ``node scripts/search_index_json.js SITE`` prints
it from a built site).

``ref`` is short (the paper's position in base 36), ``id`` the paper's stable id; ``url`` is relative to the site root; ``authors`` a
list (``"et al."`` last when the list said so); ``year`` the venue's year; ``track`` a label or null;
``abstract`` the abstract's plain text, at most :data:`~site_builder.search.documents.ABSTRACT_CHARS`
characters, cut at a word (:func:`~site_builder.search.documents.result_record`). The records are one
string apart from the postings (``transport``), so a shard of the index can carry the records of its papers alone.
"""

from __future__ import annotations

import json
from typing import Sequence

from ..incremental.store import Store
from ..model import urls
from .indexer import IndexTables, index_tables, lunr_json
from ..model.site import Paper, Site
from .documents import FIELDS, paper_terms, result_record, short_ref
from .pack import stateful_parts
from .state import stateful_tables

def search_tables(site: Site, store: Store | None = None) -> tuple[IndexTables, dict[str, dict]]:
    """The index over every paper of ``site``, in the model's fixed order, as
    :class:`~site_builder.search.indexer.IndexTables`, and the result records ``{ref: record}``.

    Refs are short (:func:`short_ref` of the paper's position); each record
    carries the paper's stable ``id``. ``store``: the build cache's store
    (:attr:`BuildCache.store <site_builder.incremental.cache.BuildCache.store>`), keeping the tokenized papers from
    one build to the next, so only changed papers are tokenized again
    (:func:`state.stateful_tables`); the tables are the same with or without it.
    """
    refs = [short_ref(i) for i in range(len(site.papers))]
    if store is not None:
        tables = stateful_tables(site.papers, refs, store)
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


def index_files(site: Site, store: Store | None = None, models: Sequence[bytes] | None = None) -> dict[str, str]:
    """``{path: text}`` of the search index files of ``site`` (:data:`INDEX_FILES`):
    ``search-index.js``, the classic script that the search page loads (also from ``file://``).

    The text is ``transport.index_script(*search_tables(site))``, written by
    :func:`pack.stateful_parts`; ``store``: the build cache's store (its
    file :data:`state.STATE_NAME`, :func:`state.load_state`) keeping the tokenized papers and
    packed pieces from one build to the next (same output with or without it). ``models``: each paper's
    :meth:`cache.Fingerprinter.digests` digest, or None: lets the state find unchanged papers without
    hashing their texts (:func:`state.text_digests`; same output with or without them).
    """
    return {path: b"".join(parts).decode("utf-8") for path, parts in index_file_parts(site, store, models).items()}


def index_file_parts(site: Site, store: Store | None = None, models: Sequence[bytes] | None = None
                     ) -> dict[str, list[bytes]]:
    """:func:`index_files` as ``{path: the UTF-8 bytes of its text in parts}``, to be written one part after
    another (:func:`pack.stateful_parts`): the (large) packed parts are neither joined nor encoded again."""
    refs = [short_ref(i) for i in range(len(site.papers))]
    return {urls.SEARCH_INDEX_JS: stateful_parts(site.papers, refs, search_record, store, models)}


def dump_json(data: object) -> str:
    """Serialise ``data`` deterministically (sorted keys, compact, UTF-8 kept)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
