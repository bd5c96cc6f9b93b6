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

The result is what ``lunr.Index.load`` takes (``pipeline`` is empty: the
query side normalises terms itself, see ``assets/search-core.js``).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Iterable, Sequence

LUNR_VERSION = "2.3.9"
K1 = 1.2
B = 0.75


def js_sort_key(term: str) -> bytes:
    """Sort key giving JavaScript's string order (UTF-16 code units) for ``term``."""
    return term.encode("utf-16-be", "surrogatepass")


def js_round3(score: float) -> float:
    """``Math.round(score * 1000) / 1000`` (ties toward +infinity) as lunr.js does it."""
    x = score * 1000
    r = math.floor(x)
    return (r + 1 if x - r >= 0.5 else r) / 1000


def build_index(documents: Iterable[tuple[str, dict[str, list[str]]]],
                fields: Sequence[tuple[str, float]]) -> dict:
    """Serialise a lunr 2.3.9 index over ``documents``.

    ``documents``: ``(ref, {field: [term, ...]})`` pairs in order, refs unique,
    terms already normalised (repeats are term frequencies; a missing field is
    empty). ``fields``: ``(name, boost)`` pairs. Returns the dict of
    ``Index.toJSON()``: ``version``, ``fields``, ``fieldVectors``,
    ``invertedIndex``, ``pipeline``. Raises ValueError on a repeated ref.
    """
    names = [name for name, _ in fields]
    boosts = {name: float(boost or 1) for name, boost in fields}
    refs: list[str] = []
    seen: set[str] = set()
    counts: list[dict[str, Counter]] = []
    lengths: list[dict[str, int]] = []
    totals = dict.fromkeys(names, 0)
    postings: dict[str, dict[str, list[str]]] = {}
    for ref, doc in documents:
        if ref in seen:
            raise ValueError(f"document ref {ref!r} appears twice")
        seen.add(ref)
        refs.append(ref)
        doc_counts, doc_lengths = {}, {}
        for name in names:
            terms = doc.get(name) or []
            tf = Counter(terms)
            doc_counts[name] = tf
            doc_lengths[name] = len(terms)
            totals[name] += len(terms)
            for t in tf:
                posting = postings.get(t)
                if posting is None:
                    posting = postings[t] = {n: [] for n in names}
                posting[name].append(ref)
        counts.append(doc_counts)
        lengths.append(doc_lengths)
    n_docs = len(refs)
    average = {name: (totals[name] / n_docs if n_docs else 0) for name in names}
    ordered = sorted(postings, key=js_sort_key)
    index_of = {t: i for i, t in enumerate(ordered)}
    idf = {}
    for t, posting in postings.items():
        df = sum(len(v) for v in posting.values())
        idf[t] = math.log(1 + abs((n_docs - df + 0.5) / (df + 0.5)))
    vectors = []
    for ref, doc_counts, doc_lengths in zip(refs, counts, lengths):
        for name in names:
            tf_of = doc_counts[name]
            norm = K1 * (1 - B + B * (doc_lengths[name] / average[name])) if average[name] else K1 * (1 - B)
            boost = boosts[name]
            elements = []
            for t in sorted(tf_of, key=index_of.__getitem__):
                tf = tf_of[t]
                score = idf[t] * ((K1 + 1) * tf) / (norm + tf)
                score *= boost
                elements.append(index_of[t])
                elements.append(js_round3(score))
            vectors.append([f"{name}/{ref}", elements])
    inverted = []
    for i, t in enumerate(ordered):
        posting = {"_index": i}
        for name in names:
            posting[name] = {r: {} for r in postings[t][name]}
        inverted.append([t, posting])
    return {"version": LUNR_VERSION, "fields": names, "fieldVectors": vectors,
            "invertedIndex": inverted, "pipeline": []}
