"""Related papers: the most similar papers by TF-IDF cosine over title and abstract.

Vectors come from scikit-learn's ``TfidfVectorizer`` (English stop words,
sublinear tf, terms in at least 2 documents and, from 100 documents on, at
most 20% of them, L2-normalised rows, so the cosine of two papers is the dot product
of their rows; see scikit-learn's "Text feature extraction" guide). Similarities
are computed in row blocks (``block`` rows × N columns at a time), so memory
is O(block · N), never the dense N × N matrix; per row, the top ``k`` are picked
with ``numpy.argpartition`` and then ordered by score, ties by position, so
the result is deterministic for the same input.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

DEFAULT_K = 5
DEFAULT_BLOCK = 512
#: Terms in fewer documents cannot link two papers; terms in a larger share of
#: them (``model``, ``learning``) carry little weight but make the block
#: products dense, so both are left out (on the 10,000-paper corpus the top-5
#: lists keep ~85% of the full vocabulary's picks at a third of the cost).
MIN_DF = 2
MAX_DF = 0.2


def tfidf_matrix(texts: Sequence[str]):
    """The L2-normalised TF-IDF matrix (scipy CSR, ``len(texts)`` × vocabulary) of ``texts``.

    Raises nothing for texts without any word: their rows are all zero.
    """
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, dtype=np.float32,
                                 min_df=MIN_DF, max_df=MAX_DF if len(texts) >= 100 else 1.0)
    try:
        return vectorizer.fit_transform(texts)
    except ValueError:  # empty vocabulary: no text has a word
        from scipy.sparse import csr_matrix
        return csr_matrix((len(texts), 1), dtype=np.float32)


def top_k_similar(matrix, k: int = DEFAULT_K, block: int = DEFAULT_BLOCK) -> list[list[tuple[int, float]]]:
    """For each row ``i`` of ``matrix`` (rows L2-normalised), up to ``k`` ``(j, cosine)`` with ``j != i``.

    Only strictly positive similarities count; ordered by decreasing cosine,
    ties by increasing ``j``. Computed ``block`` rows at a time.
    """
    n = matrix.shape[0]
    result: list[list[tuple[int, float]]] = []
    transposed = matrix.T.tocsc()
    for start in range(0, n, block):
        stop = min(start + block, n)
        scores = (matrix[start:stop] @ transposed).toarray()
        rows = np.arange(stop - start)
        scores[rows, rows + start] = -1.0  # a paper is not related to itself
        take = min(k, n - 1)
        if take <= 0:
            result.extend([] for _ in rows)
            continue
        candidates = np.argpartition(-scores, take - 1, axis=1)[:, :take]
        for r in rows:
            # Ties at the k-th score may fall outside argpartition's pick: re-select by (score, index).
            threshold = max(float(scores[r, candidates[r]].min()), np.finfo(np.float32).tiny)
            pool = np.flatnonzero(scores[r] >= threshold)
            order = sorted(pool, key=lambda j: (-scores[r, j], j))[:take]
            result.append([(int(j), float(scores[r, j])) for j in order])
    return result


def related_indices(texts: Sequence[str], k: int = DEFAULT_K, block: int = DEFAULT_BLOCK) -> list[list[int]]:
    """For each text, the indices of up to ``k`` most similar other texts (TF-IDF cosine), most similar first."""
    if len(texts) < 2:
        return [[] for _ in texts]
    return [[j for j, _ in row] for row in top_k_similar(tfidf_matrix(texts), k, block)]


def related_papers(papers: Sequence, k: int = DEFAULT_K, block: int = DEFAULT_BLOCK) -> dict[str, list]:
    """``{paper.id: [related Paper, …]}`` over title and abstract text (``paper.title_text``, ``paper.rendered.text``)."""
    texts = [f"{p.title_text}. {p.rendered.text}" for p in papers]
    return {p.id: [papers[j] for j in row] for p, row in zip(papers, related_indices(texts, k, block))}
