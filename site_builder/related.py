"""Related papers: the most similar papers by TF-IDF cosine over title and abstract.

Vectors come from scikit-learn's ``TfidfVectorizer`` (English stop words,
sublinear tf, L2-normalised rows, so the cosine of two papers is the dot product
of their rows; see scikit-learn's "Text feature extraction" guide). Similarities
are computed block pair by block pair over the upper triangle of the symmetric
cosine matrix (``block`` × ``block`` at a time), so memory is O(block² + N·k),
never the dense N × N matrix; per row, the best ``k`` are kept with
``numpy.argpartition`` and ordered by score, ties by position, so the result is
deterministic for the same input.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

DEFAULT_K = 5
DEFAULT_BLOCK = 512


def tfidf_matrix(texts: Sequence[str]):
    """The L2-normalised TF-IDF matrix (scipy CSR, ``len(texts)`` × vocabulary) of ``texts``.

    Raises nothing for texts without any word: their rows are all zero.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer  # heavy: imported when first needed

    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, dtype=np.float32)
    try:
        return vectorizer.fit_transform(texts)
    except ValueError:  # empty vocabulary: no text has a word
        from scipy.sparse import csr_matrix
        return csr_matrix((len(texts), 1), dtype=np.float32)


def _block_best(scores: np.ndarray, take: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``scores``, the columns and scores of its best ``take`` entries under the total
    order (score descending, column ascending): ``(columns, scores)``, both rows × ``min(take, columns)``.

    ``argpartition`` picks among columns tied at the cut arbitrarily, so rows with such a
    tie are picked again exactly from the tied pool.
    """
    width = scores.shape[1]
    t = min(take, width)
    if t < width:
        picked = np.argpartition(-scores, t - 1, axis=1)[:, :t]
    else:
        picked = np.broadcast_to(np.arange(width), scores.shape).copy()
    picked_scores = np.take_along_axis(scores, picked, axis=1)
    cut = picked_scores.min(axis=1)
    for r in np.flatnonzero((scores >= cut[:, None]).sum(axis=1) > t):
        best = np.array(sorted(np.flatnonzero(scores[r] >= cut[r]), key=lambda j: (-scores[r, j], j))[:t])
        picked[r], picked_scores[r] = best, scores[r, best]
    return picked, picked_scores


def top_k_similar(matrix, k: int = DEFAULT_K, block: int = DEFAULT_BLOCK) -> list[list[tuple[int, float]]]:
    """For each row ``i`` of ``matrix`` (rows L2-normalised), up to ``k`` ``(j, cosine)`` with ``j != i``.

    Only strictly positive similarities count; ordered by decreasing cosine,
    ties by increasing ``j``. The cosine matrix is symmetric, so only its
    upper block triangle is computed, one ``block`` × ``block`` product at a
    time, each used for the rows of both blocks; every row keeps a running
    best ``k``. Memory: O(block² + N·k).
    """
    n = matrix.shape[0]
    take = min(k, n - 1)
    if take <= 0:
        return [[] for _ in range(n)]
    best_cols = np.full((n, take), n, dtype=np.int64)
    best_scores = np.full((n, take), -np.inf, dtype=np.float64)

    def merge(first_row: int, cols: np.ndarray, scores: np.ndarray) -> None:
        rows = slice(first_row, first_row + cols.shape[0])
        all_cols = np.concatenate([best_cols[rows], cols], axis=1)
        all_scores = np.concatenate([best_scores[rows], scores], axis=1)
        order = np.lexsort((all_cols, -all_scores), axis=1)[:, :take]
        best_cols[rows] = np.take_along_axis(all_cols, order, axis=1)
        best_scores[rows] = np.take_along_axis(all_scores, order, axis=1)

    starts = range(0, n, block)
    blocks = [matrix[s:s + block] for s in starts]
    for bi, a in enumerate(starts):
        for bj in range(bi, len(blocks)):
            c = starts[bj]
            scores = (blocks[bi] @ blocks[bj].T).toarray().astype(np.float64)
            if bi == bj:
                np.fill_diagonal(scores, -1.0)  # a paper is not related to itself
            cols, values = _block_best(scores, take)
            merge(a, cols + c, values)
            if bj != bi:
                cols, values = _block_best(scores.T, take)
                merge(c, cols + a, values)
    return [[(int(j), float(v)) for j, v in zip(cols, values) if v > 0]
            for cols, values in zip(best_cols, best_scores)]


def related_indices(texts: Sequence[str], k: int = DEFAULT_K, block: int = DEFAULT_BLOCK) -> list[list[int]]:
    """For each text, the indices of up to ``k`` most similar other texts (TF-IDF cosine), most similar first."""
    if len(texts) < 2:
        return [[] for _ in texts]
    return [[j for j, _ in row] for row in top_k_similar(tfidf_matrix(texts), k, block)]


def related_papers(papers: Sequence, k: int = DEFAULT_K, block: int = DEFAULT_BLOCK) -> dict[str, list]:
    """``{paper.id: [related Paper, …]}`` over title and abstract text (``paper.title_text``, ``paper.rendered.text``)."""
    texts = [f"{p.title_text}. {p.rendered.text}" for p in papers]
    return {p.id: [papers[j] for j in row] for p, row in zip(papers, related_indices(texts, k, block))}
