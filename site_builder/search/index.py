"""The prebuilt search index, read by lunr.js 2.3.9 in the browser.

The index is written directly (:mod:`site_builder.search.indexer`, BM25 field vectors
as lunr.js computes them) over terms from :mod:`site_builder.search.tokenize`, whose
rules ``assets/search-core.js`` repeats on the query side. The build writes it
in shards (:func:`index_items`, :mod:`site_builder.search.shards`); ``assets/search-transport.js``
makes of the shards a query loads a lunr index that answers it as the whole index would. The index and the records results show are::

    {"index": <lunr.Index serialisation, what lunr.Index.load takes>,
     "docs": {ref: {"id", "title", "url", "authors", "venue", "year", "track", "abstract"}}}

(:func:`build_search_data`; ``node scripts/search_index_json.js SITE`` prints
it from a built site).

``ref`` is short (the paper's position in base 36), ``id`` the paper's stable id; ``url`` is relative to the site root; ``authors`` a
list (``"et al."`` last when the list said so); ``year`` the venue's year; ``track`` a label or null;
``abstract`` the abstract's plain text, at most :data:`~site_builder.search.documents.ABSTRACT_CHARS`
characters, cut at a word (:func:`~site_builder.search.documents.result_record`). Each record is a file of
its own (:mod:`~site_builder.search.shards`), loaded for the results a page shows.
"""

from __future__ import annotations

import json
from typing import Iterator, Sequence

from ..incremental.store import Store
from ..model import urls
from .indexer import IndexTables, index_tables, lunr_json
from ..model.site import Paper, Site
from .documents import FIELDS, paper_terms, result_facet, result_record
from .shards import shard_items
from .state import stateful_tables

def search_tables(site: Site, store: Store | None = None,
                  models: Sequence[bytes] | None = None) -> tuple[IndexTables, dict[str, dict]]:
    """The index over every paper of ``site`` (:func:`paper_tables`) and the result records ``{ref: record}``.
    Refs are short (:func:`urls.search_ref` of the paper's position); each record carries the paper's stable
    ``id``. ``store`` and ``models`` as for :func:`paper_tables`.
    """
    tables = paper_tables(site, store, models)
    return tables, {r: search_record(p) for r, p in zip(tables.refs, site.papers)}


def paper_tables(site: Site, store: Store | None = None, models: Sequence[bytes] | None = None) -> IndexTables:
    """The index over every paper of ``site``, in the model's fixed order, as
    :class:`~site_builder.search.indexer.IndexTables` (refs: :func:`urls.search_ref` of the paper's position).
    ``store``: the build cache's store
    (:attr:`BuildCache.store <site_builder.incremental.cache.BuildCache.store>`), keeping the tokenized papers from
    one build to the next, so only changed papers are tokenized again
    (:func:`state.stateful_tables`); the tables are the same with or without it. ``models``: each paper's
    :meth:`cache.Fingerprinter.digests` digest, or None: lets the state find unchanged papers without
    hashing their texts (:func:`state.text_digests`; the same tables with or without them).
    """
    refs = [urls.search_ref(i) for i in range(len(site.papers))]
    if store is not None:
        return stateful_tables(site.papers, refs, store, models)
    return index_tables(((r, paper_terms(p)) for r, p in zip(refs, site.papers)), FIELDS)


def build_search_data(site: Site) -> dict:
    """``{"index": <lunr 2.3.9 serialised index>, "docs": {ref: record}}`` of ``site`` (see the module doc).

    The build does not write this form (it writes :func:`index_items`); the
    tests compare what the page unpacks with it.
    """
    tables, docs = search_tables(site)
    return {"index": lunr_json(tables), "docs": docs}


def search_record(paper: Paper) -> dict:
    """The record of ``paper`` in the index: :func:`result_record` and its stable ``id``."""
    return {**result_record(paper), "id": paper.id}


def index_files(site: Site, store: Store | None = None, models: Sequence[bytes] | None = None) -> dict[str, str]:
    """``{path: text}`` of the search index files of ``site``: those of :func:`index_items`."""
    return dict(index_items(site, store, models))


def index_items(site: Site, store: Store | None = None, models: Sequence[bytes] | None = None
                ) -> Iterator[tuple[str, str]]:
    """``(path, text)`` of each search index file of ``site``, made one at a time: the sharded index
    (:func:`shards.shard_items`), classic scripts the search page loads as a query needs them (also from
    ``file://``), a paper's result record made as its file is. ``store``: the build cache's store, keeping the
    tokenized papers from one build to the next (:func:`state.stateful_tables`; the same files with or without
    it), with the papers' digests ``models`` (see :func:`paper_tables`).
    """
    tables = paper_tables(site, store, models)
    return shard_items(tables, list(map(result_facet, site.papers)), map(search_record, site.papers))


def dump_json(data: object) -> str:
    """Serialise ``data`` deterministically (sorted keys, compact, UTF-8 kept)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
