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
query code never makes one). The result is what ``lunr.Index.load`` takes (``pipeline`` is empty: the
query side normalises terms itself, see ``assets/search-core.js``).
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import chain
from typing import Iterable, Sequence

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


def build_index(documents: Iterable[tuple[str, dict[str, object]]],
                fields: Sequence[tuple[str, float]]) -> dict:
    """Serialise a lunr 2.3.9 index over ``documents``.

    ``documents``: ``(ref, {field: terms})`` pairs in order, refs unique;
    ``terms`` is a list of already normalised terms (repeats are term
    frequencies) or a pair ``({term: frequency}, token count)``; a missing
    field is empty. ``fields``: ``(name, boost)`` pairs. Returns the dict of
    ``Index.toJSON()``: ``version``, ``fields``, ``fieldVectors``,
    ``invertedIndex``, ``pipeline``. Raises ValueError on a repeated ref.
    """
    import numpy as np

    names = [name for name, _ in fields]
    boosts = {name: float(boost or 1) for name, boost in fields}
    refs: list[str] = []
    seen: set[str] = set()
    totals = dict.fromkeys(names, 0)
    # One row per non-empty (document, field): key, field number, ref, token count, term → frequency.
    rows: list[tuple[str, int, str, int, dict[str, int]]] = []
    for ref, doc in documents:
        if ref in seen:
            raise ValueError(f"document ref {ref!r} appears twice")
        seen.add(ref)
        refs.append(ref)
        for f, name in enumerate(names):
            tf, length = _field_counts(doc.get(name))
            totals[name] += length
            if tf:
                rows.append((f"{name}/{ref}", f, ref, length, tf))
    n_docs = len(refs)
    average = {name: (totals[name] / n_docs if n_docs else 0) for name in names}
    # df counts (field, document) pairs, as lunr.idf does.
    df = Counter(chain.from_iterable(row[4] for row in rows))
    ordered = sorted(df, key=js_sort_key)
    index_of = {t: i for i, t in enumerate(ordered)}
    idf = np.array([math.log(1 + abs((n_docs - df[t] + 0.5) / (df[t] + 0.5))) for t in ordered], dtype=np.float64)

    # Every (row, term) entry as flat arrays.
    sizes = np.fromiter((len(row[4]) for row in rows), dtype=np.int64, count=len(rows))
    ids = np.fromiter(chain.from_iterable(map(index_of.__getitem__, row[4]) for row in rows),
                      dtype=np.int64, count=int(sizes.sum()))
    tfs = np.fromiter(chain.from_iterable(row[4].values() for row in rows), dtype=np.float64, count=len(ids))
    row_of = np.repeat(np.arange(len(rows)), sizes)

    # BM25 for every entry at once, in lunr.js's order of operations (same IEEE doubles).
    norm = np.array([K1 * (1 - B + B * (row[3] / average[names[row[1]]])) for row in rows], dtype=np.float64)
    boost = np.array([boosts[names[row[1]]] for row in rows], dtype=np.float64)
    score = idf[ids] * ((K1 + 1) * tfs) / (norm[row_of] + tfs)
    score *= boost[row_of]
    x = score * 1000  # Math.round(x) / 1000: ties toward +infinity
    r = np.floor(x)
    rounded = (r + (x - r >= 0.5)) / 1000
    order = np.lexsort((ids, row_of))
    id_list = ids[order].tolist()
    score_list = rounded[order].tolist()
    vectors = []
    start = 0
    for row, size in zip(rows, sizes.tolist()):
        elements = [0] * (2 * size)
        elements[0::2] = id_list[start:start + size]
        elements[1::2] = score_list[start:start + size]
        vectors.append([row[0], elements])
        start += size

    # Postings: per field, the refs of each term in document order.
    field_of = np.array([row[1] for row in rows], dtype=np.int64)[row_of]
    ref_of_row = [row[2] for row in rows]
    inverted = [[t, {"_index": i}] for i, t in enumerate(ordered)]
    for f, name in enumerate(names):
        mask = field_of == f
        f_ids = ids[mask]
        f_rows = row_of[mask]
        by_term = np.argsort(f_ids, kind="stable")  # rows ascend within a term: document order
        term_list = f_ids[by_term]
        row_list = f_rows[by_term].tolist()
        starts = np.flatnonzero(np.r_[True, term_list[1:] != term_list[:-1]]) if len(term_list) else np.array([], int)
        ends = np.r_[starts[1:], len(term_list)]
        present = set()
        for t, a, b in zip(term_list[starts].tolist(), starts.tolist(), ends.tolist()):
            inverted[t][1][name] = dict.fromkeys([ref_of_row[k] for k in row_list[a:b]], EMPTY)
            present.add(t)
        for t in range(len(ordered)):
            if t not in present:
                inverted[t][1][name] = {}
    return {"version": LUNR_VERSION, "fields": names, "fieldVectors": vectors,
            "invertedIndex": inverted, "pipeline": []}
