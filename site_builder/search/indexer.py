"""A lunr.js 2.3.9 index written directly in Python, from pre-tokenised fields.

Computes what lunr.js's ``lunr.Builder`` would serialise for the same
documents, fields, boosts and tokens with an empty pipeline (source:
lunr.js 2.3.9 ``Builder.add``, ``calculateAverageFieldLengths``,
``createFieldVectors``, ``createTokenSet``, ``lunr.idf``, ``Index.toJSON``):

- ``idf(term) = ln(1 + |(N - df + 0.5) / (df + 0.5)|)`` with ``df`` the number
  of (field, document) pairs holding the term and ``N`` the number of documents;
- a field vector holds, for each term of the field, BM25
  ``idf * (k1 + 1) * tf / (k1 * (1 - b + b * len / avglen) + tf)`` with
  ``k1 = 1.2``, ``b = 0.75``, ``len`` the field's token count and ``avglen``
  the field's total token count over ``N``; times the field boost; rounded
  half up to 3 places (``Math.round(score * 1000) / 1000``);
- terms are numbered (``_index``) and sorted in JavaScript string order
  (UTF-16 code units), which ``lunr.TokenSet.Builder`` requires on load.

Field vectors of empty fields are left out (lunr.js writes ``[]`` for them;
only a query made of prohibited terms alone would read them, and the site's
query code never makes one). :func:`index_tables` computes the index as flat
arrays (what :mod:`site_builder.search.transport` packs for the browser);
:func:`lunr_json` serialises them as ``Index.toJSON()`` does, which is what
``lunr.Index.load`` takes (``pipeline`` is empty: the query side normalises
terms itself, see ``assets/search-core.js``); :func:`build_index` does both.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    import numpy as np

LUNR_VERSION = "2.3.9"
#: The (shared, never mutated) metadata object of every posting: no metadata is stored.
EMPTY: dict = {}
K1 = 1.2
B = 0.75


def js_sort_key(term: str) -> bytes:
    """Sort key giving JavaScript's string order (UTF-16 code units) for ``term``."""
    return term.encode("utf-16-be", "surrogatepass")


def _field_counts(value) -> tuple[dict[str, int], int]:
    """``(term → frequency, token count)`` of a field given as a term list or as such a pair."""
    if value is None:
        return {}, 0
    if isinstance(value, tuple):
        return value
    return Counter(value), len(value)


@dataclass(frozen=True)
class IndexTables:
    """A lunr 2.3.9 index as flat tables: what :func:`lunr_json` serialises and
    :mod:`site_builder.search.transport` packs for the browser.

    ``fields``: field names in index order; ``refs``: document refs in order
    (document number = position); ``terms``: every term, in JavaScript string
    order (term number = position = lunr's ``_index``). One entry per
    (term, field, document) triple, sorted by term, then field, then document:
    ``term``, ``field``, ``doc`` (int32 numbers into the lists above) and
    ``score`` (int32: the BM25 field-vector score times 1000, rounded as
    ``Math.round``; lunr's score is ``score / 1000``).
    """

    fields: tuple[str, ...]
    refs: tuple[str, ...]
    terms: tuple[str, ...]
    term: "np.ndarray"
    field: "np.ndarray"
    doc: "np.ndarray"
    score: "np.ndarray"


def build_index(documents: Iterable[tuple[str, dict[str, object]]],
                fields: Sequence[tuple[str, float]]) -> dict:
    """Serialise a lunr 2.3.9 index over ``documents``: ``lunr_json(index_tables(documents, fields))``.

    Returns the dict of ``Index.toJSON()``: ``version``, ``fields``,
    ``fieldVectors``, ``invertedIndex``, ``pipeline``. Raises ValueError on a
    repeated ref.
    """
    return lunr_json(index_tables(documents, fields))


def index_tables(documents: Iterable[tuple[str, dict[str, object]]],
                 fields: Sequence[tuple[str, float]]) -> IndexTables:
    """The index over ``documents`` as :class:`IndexTables`.

    ``documents``: ``(ref, {field: terms})`` pairs in order, refs unique;
    ``terms`` is a list of already normalised terms (repeats are term
    frequencies) or a pair ``({term: frequency}, token count)``; a missing
    field is empty. ``fields``: ``(name, boost)`` pairs. Raises ValueError on
    a repeated ref.
    """
    import numpy as np

    names = [name for name, _ in fields]
    refs: list[str] = []
    seen: set[str] = set()
    totals = dict.fromkeys(names, 0)
    # One row per non-empty (document, field): document number, field number, token count, term → frequency.
    rows: list[tuple[int, int, int, dict[str, int]]] = []
    for ref, doc in documents:
        if ref in seen:
            raise ValueError(f"document ref {ref!r} appears twice")
        seen.add(ref)
        for f, name in enumerate(names):
            tf, length = _field_counts(doc.get(name))
            totals[name] += length
            if tf:
                rows.append((len(refs), f, length, tf))
        refs.append(ref)
    n_docs = len(refs)
    # df counts (field, document) pairs, as lunr.idf does.
    df = Counter(chain.from_iterable(row[3] for row in rows))
    ordered = sorted(df, key=js_sort_key)
    index_of = {t: i for i, t in enumerate(ordered)}

    # Every (row, term) entry as flat arrays.
    sizes = np.fromiter((len(row[3]) for row in rows), dtype=np.int64, count=len(rows))
    ids = np.fromiter(chain.from_iterable(map(index_of.__getitem__, row[3]) for row in rows),
                      dtype=np.int64, count=int(sizes.sum()))
    tfs = np.fromiter(chain.from_iterable(row[3].values() for row in rows), dtype=np.int64, count=len(ids))
    row_of = np.repeat(np.arange(len(rows)), sizes)
    doc_of = np.array([row[0] for row in rows], dtype=np.int64)[row_of]
    field_of = np.array([row[1] for row in rows], dtype=np.int64)[row_of]
    length_of = np.array([row[2] for row in rows], dtype=np.int64)[row_of]
    return scored_tables(fields, tuple(refs), tuple(ordered), np.array([df[t] for t in ordered], dtype=np.int64),
                         [totals[name] for name in names], ids, field_of, doc_of, length_of, tfs)


def scored_tables(fields: Sequence[tuple[str, float]], refs: tuple[str, ...], terms: tuple[str, ...],
                  df: "np.ndarray", totals: Sequence[int], term: "np.ndarray", field: "np.ndarray",
                  doc: "np.ndarray", length: "np.ndarray", tf: "np.ndarray") -> IndexTables:
    """The BM25 scoring, rounding and ordering shared by every way of building :class:`IndexTables`.

    ``fields``: ``(name, boost)`` pairs; ``refs``: document refs (their count
    is lunr's ``N``); ``terms``: the distinct terms in JavaScript string order
    (:func:`js_sort_key`), each held by at least one entry; ``df`` (int64, one
    per term): number of (field, document) pairs holding it; ``totals``: each
    field's token count summed over all documents (empty fields count 0).
    One entry per (term, field, document) triple, in any order, as integer
    arrays of equal length: ``term`` (number into ``terms``), ``field``,
    ``doc``, ``length`` (that field's token count in that document) and ``tf``
    (the term's frequency there, > 0). Arithmetic in lunr.js 2.3.9's order of
    operations (see the module doc); the result is sorted by term, field, document.
    No temporary longer than the entries is held but the sort's key and order (int64).
    """
    import numpy as np

    names = tuple(name for name, _ in fields)
    n_docs = len(refs)
    rounded = bm25_scores(fields, n_docs, df, totals, term, field, length, tf)
    # By term, then field, then document: one int64 key per entry (the triples are distinct).
    key = np.asarray(term).astype(np.int64) * len(names)
    key += np.asarray(field)
    key *= max(n_docs, 1)
    key += np.asarray(doc)
    order = np.argsort(key, kind="stable")
    del key
    narrow = (np.asarray(values).astype(np.int32, copy=False)[order] for values in (term, field, doc))
    return IndexTables(names, tuple(refs), tuple(terms), *narrow, rounded[order])


#: Entries scored at a time by :func:`bm25_scores` (its float64 temporaries are this long).
SCORE_CHUNK = 1 << 20


def bm25_scores(fields: Sequence[tuple[str, float]], n_docs: int, df: "np.ndarray", totals: Sequence[int],
                term: "np.ndarray", field: "np.ndarray", length: "np.ndarray", tf: "np.ndarray") -> "np.ndarray":
    """lunr.js 2.3.9's field-vector scores of entries, times 1000 and rounded as ``Math.round``: int32 (each
    below 2**31: an idf below 40 times at most 2.2 times a boost), one per entry, scored :data:`SCORE_CHUNK` at a time.

    ``fields``: ``(name, boost)`` pairs; ``n_docs``: lunr's ``N``; ``df``
    (one per term): (field, document) pairs holding the term; ``totals``: each
    field's token count over all documents. Per entry, as arrays of equal
    length in any order: ``term`` (number into ``df``), ``field``, ``length``
    (that field's token count in that document) and ``tf`` (> 0). Arithmetic
    in lunr.js's order of operations (``Builder.createFieldVectors``, see the
    module doc), on the same IEEE doubles; ``idf`` with Python's ``math.log``.
    """
    import numpy as np

    average = np.array([(total / n_docs if n_docs else 0) for total in totals], dtype=np.float64)
    boosts = np.array([float(boost or 1) for _, boost in fields], dtype=np.float64)
    # idf per distinct df value, in Python floats exactly as lunr.idf computes it.
    values, inverse = np.unique(np.asarray(df, dtype=np.int64), return_inverse=True)
    idf = np.array([math.log(1 + abs((n_docs - d + 0.5) / (d + 0.5))) for d in values.tolist()],
                   dtype=np.float64)[inverse.reshape(-1)]
    out = np.empty(len(term), dtype=np.int32)
    for a in range(0, len(term), SCORE_CHUNK):
        part = (np.asarray(values[a:a + SCORE_CHUNK]) for values in (term, field, length, tf))
        out[a:a + SCORE_CHUNK] = _rounded_scores(idf, average, boosts, *part)
    return out


def _rounded_scores(idf, average, boosts, term, field, length, tf) -> "np.ndarray":
    """:func:`bm25_scores` of some entries (integer arrays), given the per-term ``idf``, the per-field
    ``average`` length and ``boosts`` (float64): BM25 for every entry at once, in lunr.js's order of
    operations (the same IEEE doubles), times 1000 and rounded as ``Math.round`` (float64)."""
    import numpy as np
    field = field.astype(np.int64, copy=False)
    tfs = tf.astype(np.float64)
    norm = K1 * (1 - B + B * (length.astype(np.float64) / average[field]))
    score = idf[term.astype(np.int64, copy=False)] * ((K1 + 1) * tfs) / (norm + tfs)
    score *= boosts[field]
    x = score * 1000  # Math.round(x): ties toward +infinity
    r = np.floor(x)
    return r + (x - r >= 0.5)


def lunr_json(tables: IndexTables) -> dict:
    """The dict of lunr.js 2.3.9's ``Index.toJSON()`` for ``tables``.

    ``fieldVectors`` in document then field order, each ``[termIndex, score,
    ...]`` by term number; ``invertedIndex`` ``[term, {"_index": n, field:
    {ref: {}}}]`` in term order, every field present, refs in document order.
    """
    import numpy as np

    names, refs = tables.fields, tables.refs
    scores = (tables.score / 1000).tolist()
    # Field vectors: entries by document, field, term.
    order = np.lexsort((tables.term, tables.field, tables.doc))
    row_key = tables.doc[order] * len(names) + tables.field[order]
    starts = np.flatnonzero(np.r_[True, row_key[1:] != row_key[:-1]]) if len(order) else np.array([], int)
    ends = np.r_[starts[1:], len(order)].astype(int)
    term_list, order_list = tables.term[order].tolist(), order.tolist()
    vectors = []
    for key, a, b in zip(row_key[starts].tolist(), starts.tolist(), ends.tolist()):
        elements = [0] * (2 * (b - a))
        elements[0::2] = term_list[a:b]
        elements[1::2] = [scores[k] for k in order_list[a:b]]
        vectors.append([f"{names[key % len(names)]}/{refs[key // len(names)]}", elements])
    # Postings: entries are already by term, field, document.
    inverted = [[t, {"_index": i, **{name: {} for name in names}}] for i, t in enumerate(tables.terms)]
    group = tables.term * len(names) + tables.field
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if len(group) else np.array([], int)
    ends = np.r_[starts[1:], len(group)].astype(int)
    doc_list = tables.doc.tolist()
    for key, a, b in zip(group[starts].tolist(), starts.tolist(), ends.tolist()):
        inverted[key // len(names)][1][names[key % len(names)]] = dict.fromkeys([refs[d] for d in doc_list[a:b]], EMPTY)
    return {"version": LUNR_VERSION, "fields": list(names), "fieldVectors": vectors,
            "invertedIndex": inverted, "pipeline": []}
