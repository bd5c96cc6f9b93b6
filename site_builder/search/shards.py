"""The search index in shards: the search page loads a small manifest, then only the shards of the
terms a query reads and the records of the results it shows (as Pagefind loads its index chunks and
page fragments, https://pagefind.app/docs/). ``assets/search-transport.js`` (``SearchTransport.shards``)
makes of the loaded shards a ``lunr.Index`` that gives every query the results, scores and order of
the whole index (:func:`site_builder.search.indexer.lunr_json`; ``tests/search/test_search_transport.py``,
``scripts/shard_equality.py``).

Every file is a classic script, so the index loads from ``file://`` as over HTTP:

- ``search/manifest.js``::

      window.SEARCH_SHARDS = {"format": "site-lunr-shards-1", "version": "2.3.9", "fields": [name, ...],
        "count": <documents>, "terms": <terms>, "first": [the first term of each shard, ...],
        "start": '<numbers>', "facets": [[venue, year, track or null], ...], "runs": '<numbers>'};

  ``start``: the term number (lunr's ``_index``) of each shard's first term; ``runs``: the documents,
  in order, as runs of the same facets: per run its length and its number in ``facets`` (documents
  are numbered by position; a document's ref is its number in base 36, :func:`site_builder.model.urls.search_ref`).
- ``search/terms/<k>.js``, shard ``k``, a run of consecutive terms (in JavaScript string order)::

      searchShard(k, {"terms": '<numbers>', "suffixes": '<text>', "postings": '<numbers>', "scores": '<numbers>'});

  ``terms`` and ``suffixes`` front-code the shard's terms (the first one whole) as
  :func:`transport.front_code` does; ``postings`` per term, as :func:`transport.posting_parts` writes them: a mask of
  the fields holding it, then per such field the number of documents and their numbers as gaps;
  ``scores`` per posting entry, in the same order, lunr's field-vector score of the term times
  1000. A term's entries are its whole column of the field vectors, so the loaded shards give
  every field vector's entries for the terms loaded, which is all a query's scores read.
- ``search/records/<ref>.js``: ``searchRecord("<ref>", <record>);`` what a result shows of one paper
  (:func:`index.search_record`).

``<numbers>`` are :func:`transport.pack_numbers` strings. A shard holds terms until its packed
postings and scores reach :data:`SHARD_CHARS` characters (a term larger than that is a shard alone).
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

import numpy as np

from ..model import urls
from .indexer import LUNR_VERSION, IndexTables
from .transport import check_refs, front_code, js_text, json_text, pack_numbers, pack_sized, posting_parts

FORMAT = "site-lunr-shards-1"
#: Characters of packed postings and scores after which a shard takes no more terms (about 8 kB gzip).
SHARD_CHARS = 16_000


def shard_starts(sizes: np.ndarray, target: int = SHARD_CHARS) -> list[int]:
    """The first term of each shard, for terms of ``sizes`` characters each (int64, in term order): a
    shard takes terms while its size stays within ``target``, and at least one. ``[0]`` for no term."""
    ends = np.cumsum(sizes)
    starts, n = [0], len(sizes)
    while True:
        before = int(ends[starts[-1] - 1]) if starts[-1] else 0
        nxt = max(int(np.searchsorted(ends, before + target, side="right")), starts[-1] + 1)
        if nxt >= n:
            return starts
        starts.append(nxt)


def facet_runs(facets: Sequence[tuple]) -> tuple[list[list], str]:
    """``(facets, runs)`` of the manifest for the documents' ``facets`` (each ``(venue, year, track)``,
    :func:`~site_builder.search.documents.result_facet`), in document order: the distinct ones as lists, in
    order of first use, and the packed runs."""
    numbers: dict[tuple, int] = {}
    runs: list[int] = []
    for facet in facets:
        number = numbers.setdefault(tuple(facet), len(numbers))
        if runs and runs[-1] == number:
            runs[-2] += 1
        else:
            runs += [1, number]
    return [list(f) for f in numbers], pack_numbers(np.array(runs, dtype=np.int64))


def shard_script(k: int, terms: Sequence[str], postings: str, scores: str) -> str:
    """The text of ``search/terms/<k>.js`` for its ``terms`` and their packed ``postings`` and ``scores``."""
    lengths, suffixes = front_code(tuple(terms))
    return (f"searchShard({k},{{\"terms\":'{lengths}',\"suffixes\":{js_text(suffixes)},"
            f"\"postings\":'{postings}',\"scores\":'{scores}'}});\n")


def record_script(ref: str, record: dict) -> str:
    """The text of ``search/records/<ref>.js``."""
    return f"searchRecord({json_text(ref)},{json_text(record)});\n"


def manifest_script(tables: IndexTables, starts: list[int], facets: Sequence[tuple]) -> str:
    """The text of ``search/manifest.js`` (see the module doc), for the documents' ``facets`` (see :func:`facet_runs`)."""
    facets, runs = facet_runs(facets)
    head = {"format": FORMAT, "version": LUNR_VERSION, "fields": list(tables.fields), "count": len(tables.refs),
            "terms": len(tables.terms), "first": [tables.terms[s] for s in starts if s < len(tables.terms)],
            "start": pack_numbers(np.array(starts if tables.terms else [], dtype=np.int64)),
            "facets": facets, "runs": runs}
    return "window.SEARCH_SHARDS = {" + ",\n".join(f"{json_text(k)}:{json_text(v)}" for k, v in head.items()) + "};\n"


def shard_files(tables: IndexTables, docs: dict[str, dict], target: int = SHARD_CHARS) -> dict[str, str]:
    """``{path: text}`` of every file of the sharded index of ``tables`` with the result records ``docs``
    (``{ref: record}``, one for every ref), paths relative to the site root (see the module doc): the files
    of :func:`shard_items`. Raises ValueError when a ref is not made of ``[0-9a-z]`` or a term has no entry."""
    records = [docs[ref] for ref in tables.refs]
    facets = [(record["venue"], record["year"], record["track"]) for record in records]
    return dict(shard_items(tables, facets, records, target))


def shard_items(tables: IndexTables, facets: Sequence[tuple], records: Iterable[dict], target: int = SHARD_CHARS
                ) -> Iterator[tuple[str, str]]:
    """``(path, text)`` of every file of the sharded index of ``tables`` (see the module doc), made one at a
    time: the manifest, the term shards, then a result record per document. ``facets``: each document's
    ``(venue, year, track)``, in document order; ``records``: each document's result record, in document
    order, read once as its file is made (so none need be held: at 100,000 papers the records and their
    files held at once were some 400 MB of the index process). The postings and scores are packed
    :data:`PACK_CHUNK` entries at a time. Raises ValueError (at the first file) when a ref is not made of
    ``[0-9a-z]`` or a term has no entry, and when there are fewer or more records than documents."""
    check_refs(tables.refs)
    n_terms = len(tables.terms)
    postings, posting_sizes, scores, score_sizes = _packed(tables, n_terms)
    if n_terms and not posting_sizes.all():
        raise ValueError(f"term {tables.terms[int(np.argmin(posting_sizes))]!r} has no entry")
    starts = shard_starts(posting_sizes + score_sizes, target)
    p_at = np.r_[0, np.cumsum(posting_sizes)].tolist()
    s_at = np.r_[0, np.cumsum(score_sizes)].tolist()
    yield urls.SEARCH_MANIFEST_JS, manifest_script(tables, starts, facets)
    for k, (a, b) in enumerate(zip(starts, starts[1:] + [n_terms])):
        if a < b:
            yield urls.search_shard_path(k), shard_script(k, tables.terms[a:b], postings[p_at[a]:p_at[b]],
                                                          scores[s_at[a]:s_at[b]])
    for ref, record in zip(tables.refs, records, strict=True):
        yield urls.search_record_path(ref), record_script(ref, record)


#: Entries of the index packed at a time by :func:`shard_items` (the packing's temporaries are this long).
PACK_CHUNK = 1 << 20


def _packed(tables: IndexTables, n_terms: int) -> tuple[str, np.ndarray, str, np.ndarray]:
    """``(postings, posting sizes, scores, score sizes)``: the packed postings of every term
    (:func:`transport.posting_parts`) and their scores (:func:`transport.pack_sized`), in term order, with the
    characters of each term's part of each (int64, ``n_terms``); packed a chunk of terms at a time (the
    parts of a term depend on its entries alone, so the texts are those of packing them all at once)."""
    postings, scores = [], []
    posting_sizes = np.zeros(n_terms, dtype=np.int64)
    score_sizes = np.zeros(n_terms, dtype=np.int64)
    for a, b in term_chunks(tables.term, PACK_CHUNK):
        term = tables.term[a:b]
        text, sizes = posting_parts(term, tables.field[a:b], tables.doc[a:b], n_terms)
        postings.append(text)
        posting_sizes += sizes
        text, widths = pack_sized(tables.score[a:b])
        scores.append(text)
        score_sizes += np.bincount(term, weights=widths, minlength=n_terms).astype(np.int64)
    return "".join(postings), posting_sizes, "".join(scores), score_sizes


def term_chunks(term: np.ndarray, size: int) -> Iterator[tuple[int, int]]:
    """Consecutive ranges ``(a, b)`` covering the entries ``term`` (ascending term numbers), each cut between
    two terms and of at most ``size`` entries, but for a term with more entries, which is a range alone."""
    n, a = len(term), 0
    while a < n:
        b = min(a + size, n)
        if b < n:
            cut = int(np.searchsorted(term, term[b], side="left"))
            b = cut if cut > a else int(np.searchsorted(term, term[b], side="right"))
        yield a, b
        a = b
