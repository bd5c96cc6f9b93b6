"""Related papers: the most similar papers by TF-IDF cosine over title and abstract.

Vectors come from scikit-learn's ``TfidfVectorizer`` (English stop words,
sublinear tf, L2-normalised rows, so the cosine of two papers is the dot product
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


def tfidf_matrix(texts: Sequence[str]):
    """The L2-normalised TF-IDF matrix (scipy CSR, ``len(texts)`` × vocabulary) of ``texts``.

    Raises nothing for texts without any word: their rows are all zero.
    """
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, dtype=np.float32)
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
    take = min(k, n - 1)
    if take <= 0:
        return [[] for _ in range(n)]
    result: list[list[tuple[int, float]]] = []
    transposed = matrix.T.tocsr()
    for start in range(0, n, block):
        stop = min(start + block, n)
        scores = (matrix[start:stop] @ transposed).toarray()
        rows = np.arange(stop - start)
        scores[rows, rows + start] = -1.0  # a paper is not related to itself
        picked = np.argpartition(-scores, take - 1, axis=1)[:, :take]
        picked_scores = np.take_along_axis(scores, picked, axis=1)
        kth = picked_scores.min(axis=1)
        # A row whose k-th score is shared by more columns than were picked: argpartition chose
        # among the tied columns arbitrarily, so pick again by (score, column) over the tied pool.
        tied = (kth > 0) & ((scores >= kth[:, None]).sum(axis=1) > take)
        order = np.lexsort((picked, -picked_scores), axis=1)
        picked = np.take_along_axis(picked, order, axis=1)
        picked_scores = np.take_along_axis(picked_scores, order, axis=1)
        for r in rows:
            if tied[r]:
                pool = np.flatnonzero(scores[r] >= kth[r])
                best = sorted(pool, key=lambda j: (-scores[r, j], j))[:take]
                result.append([(int(j), float(scores[r, j])) for j in best])
            else:
                result.append([(int(j), float(v)) for j, v in zip(picked[r], picked_scores[r]) if v > 0])
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
