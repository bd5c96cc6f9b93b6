"""Related papers: the most similar papers by TF-IDF cosine over title and abstract.

**Vectors.** The weights are those of scikit-learn's ``TfidfVectorizer(stop_words="english",
sublinear_tf=True, dtype=float32)`` (see its "Text feature extraction" guide), computed here
with numpy and scipy so that a rebuild need not import scikit-learn (seconds): a text is
lower-cased and cut into tokens by ``(?u)\\b\\w\\w+\\b`` (a run holding Chinese, Japanese or Korean
characters into their character bigrams: :func:`tokens`), English stop words (scikit-learn's
list, read from its source file) are dropped; the weight of term ``t`` in a text where it occurs
``c`` times is ``(1 + ln c) · idf(t)`` with the smooth ``idf(t) = ln((1 + n) / (1 + df(t))) + 1``
(``n`` texts, ``df(t)`` of them contain ``t``), in float32 as scikit-learn computes them; each
row is divided by its L2 norm (an exactly rounded sum, :func:`math.fsum`). A row's weights thus
depend on its own counts and on ``n`` and the ``df`` of its own terms, nothing else.

**Scores.** Each weight ``w > 0`` is then fixed to the integer ``q = max(1, round(w · 2**24))``
(:func:`quantized`), and the score of two texts is the integer dot product of their rows, below
2**50: exact, whatever the order of summation, the blocking or the number of processes, and
symmetric; positive exactly when the texts share a term. It is the cosine to within about
1e-7: on the first 10,000 corpus papers the related lists equal those of scikit-learn's float32
cosine but for one paper, whose 4th and 5th (near-tied) related papers swap.

**Best k.** For each text, the ``k`` others with the largest positive score, ties by position
(total order: score descending, position ascending), so the result is a function of the exact
scores. Every text keeps ``k +`` :data:`SLACK` candidates (``take``) and a *bound*: every other
text scores at most the bound; a bound of 0 means no other text shares a term with it (the list
then holds every positive one). The full computation (:func:`_all_pairs`) cuts the texts into
blocks of ``block`` rows. The columns of the :data:`DENSE_TERMS` terms held by the most texts are
multiplied as dense float64 matrices (BLAS, one thread per process, via ``threadpoolctl``), the
others as sparse ones, terms held by one text only left out (they add to a text's score with
itself alone); every weight is an integer below 2**25 and every score below 2**53, so the float64
products and sums are exact in any order. First each diagonal block (a block's texts against each
other) gives every text its best ``take`` there; the lowest of them is the text's *cut*, below
which none of its best ``take`` overall can score. Then the pairs of different blocks (the upper
block triangle), in waves of growing distance, yield only the scores at or above the cut of their row;
after each wave a sort of its candidates and the texts' best so far under the total order gives each text's
best so far, whose lowest is the next wave's cut. The blocks run on every core when
:func:`parallel.worker_count` allows; memory O(block² + N·D + candidates), D = :data:`DENSE_TERMS`,
the candidates some ``take`` per text and wave (at most :data:`MERGE_CANDIDATES` held at once).

**Incremental update** (:func:`incremental_related` with the ``previous`` :class:`State`). Texts
are identified by a key (paper id and text). It applies when the new texts are the old ones with
some removed and as many added (as when one abstract changes: its id and text change, so its old
key goes and a new one comes), the kept texts in the same relative order. Then:

1. ``idf(t)`` depends on ``n`` and ``df(t)`` only, and ``df`` changes only for the terms ``T``
   that the removed and the added texts do not hold in equal numbers. A kept text with no term of
   ``T`` has the same weights, bit for bit (they depend on its own counts and idf only), so only
   the rows with a term of ``T`` are weighed again. A kept text whose integer vector changed,
   ``q' = q + d``, is *changed*; for any kept ``i, j``, by Cauchy–Schwarz,
   ``|s'(i,j) − s(i,j)| = |d_i·q'_j + q_i·d_j| ≤ |d_i|·max|q'| + |q_i|·max|d|`` =: ``slack_i``
   (computed in float64 with a relative margin of 1e-9 plus 4 units; 0 when nothing changed).
2. The scores between unchanged kept texts are unchanged (exact integers of unchanged rows).
   The candidates of each kept text are its previous ones, removed texts dropped, and the
   scores where either text changed recomputed exactly; the added texts are computed in full
   (their row against all texts), and, by symmetry, their score with every text is a candidate
   of that text too.
3. Any text not among a kept text ``i``'s candidates scored at most ``bound_i`` before, so now at
   most ``bound_i + slack_i`` (added texts are all candidates, removed ones are gone). So every
   candidate scoring more than that threshold is *certain*: nothing outside can come between
   them, and the certain candidates are exactly the best of all, in order. (With a bound of 0
   the threshold is 0: kept texts keep their terms, so one sharing no term still shares none.)
   The new list is the certain candidates, the new bound the threshold (or the last certain
   score when they fill the list). A text with fewer than ``k`` certain candidates is computed
   in full (rare: the slack is about 1e-4 of a score, the gap to the k-th of ``take`` much more).

The update's result therefore equals the full computation's. Otherwise (a different ``n``, kept
texts reordered, many texts added, another ``k``, no previous state) everything is computed
again. ``tests/incremental/test_rebuild_prepage.py`` checks the update against the full computation on
samples of real papers for many kinds of edit, chains of updates, and with one spare candidate
only (so that rows must be recomputed).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import importlib.util
import math
import re
from collections import Counter, abc
from itertools import chain, filterfalse
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from .. import parallel
from ..incremental.store import array_bytes, array_of

DEFAULT_K = 5
DEFAULT_BLOCK = 1024
TOKEN = re.compile(r"(?u)\b\w\w+\b")
#: Finds the same tokens as :data:`TOKEN` (greedy from the first word character of each run, a run of
#: two or more word characters is matched whole: ``\b`` holds at both ends), a fifth faster.
TOKEN_RUNS = re.compile(r"\w\w+")
#: Below this many texts the full computation stays in one process.
MIN_PARALLEL_TEXTS = 2000
#: Fixed-point scale of the weights (see :func:`quantized`).
SCALE = float(1 << 24)
#: Each text keeps this many more candidates than shown, so most rows survive an update unrecomputed.
SLACK = 5


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """scikit-learn's English stop words, read from its ``feature_extraction/_stop_words.py``
    without importing scikit-learn (which takes seconds)."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("scikit-learn is not installed")
    path = Path(list(spec.submodule_search_locations)[0]) / "feature_extraction" / "_stop_words.py"
    module_spec = importlib.util.spec_from_file_location("_site_builder_sklearn_stop_words", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)  # type: ignore[union-attr]
    return frozenset(module.ENGLISH_STOP_WORDS)


#: A character of a script written without spaces between words: Han, kana, Hangul (and their compatibility
#: and extension blocks).
CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]")
_CJK_PARTS = re.compile(f"{CJK.pattern}+|(?:(?!{CJK.pattern})\\w)+")


def tokens(text: str) -> list[str]:
    """The tokens of ``text``: scikit-learn's default analyzer's (lower case, runs of two or more word
    characters) where the text has no CJK character; a run holding CJK characters gives each pair of
    neighbouring CJK characters (character bigrams, as Lucene's ``CJKAnalyzer``) and its other parts of two or
    more characters, since a run of Chinese text is a whole sentence: without bigrams no two Chinese abstracts
    share a term, and none has related papers (found by a new-user pass)."""
    found = TOKEN_RUNS.findall(text.lower())
    if text.isascii() or not CJK.search(text):
        return found
    out: list[str] = []
    for run in found:
        if not CJK.search(run):
            out.append(run)
            continue
        for part in _CJK_PARTS.findall(run):
            if CJK.match(part):
                out.extend(part[i:i + 2] for i in range(len(part) - 1))
            elif len(part) >= 2:
                out.append(part)
    return out


def terms(text: str) -> Counter:
    """The term counts of ``text`` (:func:`tokens` without scikit-learn's English stop words)."""
    return Counter(filterfalse(stop_words().__contains__, tokens(text)))


# -- matrices -----------------------------------------------------------------------------------

def _csr(indptr, indices, data, shape):
    from scipy.sparse import csr_matrix
    return csr_matrix((data, indices, indptr), shape=shape)


def count_matrix(counts: Sequence[Counter], vocabulary: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts as CSR arrays ``(indptr int64, indices int32, counts float32)``, one row per text,
    columns by ``vocabulary`` (term → column), sorted within each row."""
    lengths = np.fromiter(map(len, counts), dtype=np.int64, count=len(counts))
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    total = int(indptr[-1])
    columns = np.fromiter(map(vocabulary.__getitem__, chain.from_iterable(counts)), dtype=np.int64, count=total)
    values = np.fromiter(chain.from_iterable(c.values() for c in counts), dtype=np.float32, count=total)
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), lengths)
    order = np.argsort(rows * max(len(vocabulary), 1) + columns, kind="stable")  # by row, then column
    return indptr, columns[order].astype(np.int32), values[order]


#: Texts tokenized at a time by :func:`counted_texts` (their tokens are let go chunk by chunk).
COUNT_CHUNK = 4096


def counted_texts(texts: Sequence[str], chunk: int = COUNT_CHUNK
                  ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """``(vocabulary, indptr, indices, counts)`` of ``texts``: the sorted terms of :func:`terms` over all texts and
    :func:`count_matrix` of each text's :func:`terms` by that vocabulary (the same arrays), without a ``Counter``
    per text: the tokens of ``chunk`` texts at a time are numbered by one dict and counted as numpy arrays (the
    ``Counter`` objects hold one string per term and text; at 100,000 papers the build's process held 1.9 GB RSS
    during the block pairs with them, 1.7 GB without: BENCHMARKS.md, issue 25 second pass)."""
    stop = stop_words()
    number: dict[str, int] = {}
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # per chunk: rows, numbers, counts
    for start in range(0, len(texts), chunk):
        found = [[w for w in tokens(text) if w not in stop] for text in texts[start:start + chunk]]
        for word in set(chain.from_iterable(found)).difference(number):
            number[word] = len(number)
        lengths = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        ids = np.fromiter(map(number.__getitem__, chain.from_iterable(found)), dtype=np.int64,
                          count=int(lengths.sum()))
        del found
        keys, counts = np.unique((np.repeat(np.arange(start, start + len(lengths), dtype=np.int64), lengths) << 32)
                                 | ids, return_counts=True)
        parts.append((keys >> 32, keys & 0xFFFFFFFF, counts))
    vocabulary = sorted(number)
    column = np.zeros(len(number), dtype=np.int64)
    column[np.fromiter(map(number.__getitem__, vocabulary), dtype=np.int64, count=len(vocabulary))] = \
        np.arange(len(vocabulary), dtype=np.int64)
    del number
    rows, ids, counts = (np.concatenate(arrays) for arrays in zip((np.zeros(0, np.int64),) * 3, *parts))
    del parts
    columns = column[ids]
    order = np.argsort(rows * max(len(vocabulary), 1) + columns, kind="stable")  # by row, then column
    indptr = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=len(texts)), out=indptr[1:])
    return vocabulary, indptr, columns[order].astype(np.int32), counts[order].astype(np.float32)


def weights(indptr: np.ndarray, indices: np.ndarray, counts: np.ndarray, vocabulary_size: int,
            df: np.ndarray | None = None, texts: int | None = None):
    """The L2-normalised TF-IDF matrix (scipy CSR float32, rows × vocabulary) of a count matrix.

    ``df`` (documents per term) and ``texts`` (their number) default to those of the rows given;
    pass them to weigh some rows of a larger corpus. Row-local: a row's weights depend on its own
    counts and the idf of its terms only (the norm is an exactly rounded sum, :func:`math.fsum`,
    so not even the summation order matters).
    """
    data = _weight_data(indptr, indices, counts, vocabulary_size, df, texts)
    return _csr(indptr, indices, data, (len(indptr) - 1, max(vocabulary_size, 1)))


def _weight_data(indptr: np.ndarray, indices: np.ndarray, counts: np.ndarray, vocabulary_size: int,
                 df: np.ndarray | None = None, texts: int | None = None) -> np.ndarray:
    """The data array (float32, aligned with ``indices``) of :func:`weights`, without scipy."""
    rows = len(indptr) - 1
    n = rows if texts is None else texts
    df = (np.bincount(indices, minlength=vocabulary_size) if df is None else df).astype(np.float32)
    idf = np.full(vocabulary_size, n + 1, dtype=np.float32)
    idf /= df + np.float32(1.0)
    np.log(idf, out=idf)
    idf += np.float32(1.0)
    data = np.log(counts)
    data += np.float32(1.0)
    data *= idf[indices]
    squares = (data * data).astype(np.float64).tolist()
    bounds = indptr.tolist()
    norms = np.array([math.sqrt(math.fsum(squares[bounds[i]:bounds[i + 1]])) for i in range(rows)], dtype=np.float64)
    norms[norms == 0.0] = 1.0
    return (data / np.repeat(norms, np.diff(indptr))).astype(np.float32)


def quantized(matrix):
    """``matrix`` (weights in [0, 1]) with each stored weight ``w`` as the integer ``max(1, round(w · 2**24))``
    (int64 CSR): dot products of its rows are exact integers (below 2**50), whatever the summation
    order, and positive exactly when two texts share a term."""
    return _csr(matrix.indptr, matrix.indices, _fixed(matrix.data), matrix.shape)


def _fixed(data: np.ndarray) -> np.ndarray:
    """:func:`quantized` of a data array: ``max(1, round(w · 2**24))`` as int64."""
    return np.maximum(1, np.rint(data.astype(np.float64) * SCALE)).astype(np.int64)


# -- best k -------------------------------------------------------------------------------------

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


class _Best:
    """A running best ``take`` per row (columns and exact integer scores held in float64), merged under
    the total order (score descending, column ascending); column ``sentinel`` / score ``-inf`` = none."""

    def __init__(self, rows: int, take: int, sentinel: int) -> None:
        self.cols = np.full((rows, take), sentinel, dtype=np.int64)
        self.scores = np.full((rows, take), -np.inf, dtype=np.float64)
        self.take = take
        self.sentinel = sentinel

    def merge(self, rows, cols: np.ndarray, scores: np.ndarray) -> None:
        """Merge candidates ``cols``/``scores`` (rows × any) into ``rows`` (none may repeat a held column)."""
        all_cols = np.concatenate([self.cols[rows], cols], axis=1)
        all_scores = np.concatenate([self.scores[rows], scores], axis=1)
        order = np.lexsort((all_cols, -all_scores), axis=1)[:, :self.take]
        self.cols[rows] = np.take_along_axis(all_cols, order, axis=1)
        self.scores[rows] = np.take_along_axis(all_scores, order, axis=1)

    def order(self, rows: np.ndarray) -> None:
        """Put those of ``rows`` (a boolean mask) that are out of the total order back in it (as :meth:`merge`
        with no candidates would; rows in order are left as they are, which that merge would also do)."""
        scores, cols = self.scores, self.cols
        later = scores[:, 1:]
        earlier = scores[:, :-1]
        out = ((later > earlier) | ((later == earlier) & (cols[:, 1:] < cols[:, :-1]))).any(axis=1)
        which = np.flatnonzero(out & rows)
        if len(which):
            self.merge(which, cols[which][:, :0], scores[which][:, :0])

    def positive(self) -> "_Best":
        """Keep only strictly positive scores."""
        out = self.scores <= 0
        self.cols[out], self.scores[out] = self.sentinel, -np.inf
        return self

    def bounds(self) -> np.ndarray:
        """Per row, a bound on the score of every column not held: the last held score when all
        ``take`` slots are used, else 0 (every other text shares no term)."""
        if self.take == 0:
            return np.zeros(self.cols.shape[0], dtype=np.float64)
        last = self.scores[:, -1]
        return np.where(np.isfinite(last), last, 0.0)


#: What the last incremental update did (texts whose vector changed, added, candidates rescored, rows
#: recomputed in full); empty until one ran. For tests and benchmarks.
LAST_UPDATE: dict[str, int] = {}

#: The terms held by the most texts whose columns are multiplied as a dense matrix (BLAS, float64);
#: the other terms' columns stay sparse. These few hundred terms hold about 40 % of the entries but,
#: as the cost of a sparse product grows with the square of a column's length, some 87 % of its work.
DENSE_TERMS = 300

_MATRIX: list = []  # dense row blocks, sparse row blocks, the same transposed, take: for forked workers


def _split_columns(matrix, dense_terms: int = DENSE_TERMS) -> tuple[np.ndarray, object]:
    """The integer ``matrix`` (scipy CSR, n × vocabulary) as ``(dense, sparse)`` with
    ``dense @ dense.T + sparse @ sparse.T`` equal to ``matrix @ matrix.T`` off its diagonal:
    ``dense`` (float64, n × at most ``dense_terms``) holds the columns of the terms held by the
    most rows (ties by column), ``sparse`` (scipy CSR float64, n × vocabulary) the other entries,
    but for those of terms held by one row only (they add to a row's score with itself alone).

    Every value is an integer below 2**25 and every dot product of two rows below 2**53, so
    float64 products and sums (in any order, fused or not) are exact."""
    from scipy.sparse import csr_matrix
    n, width = matrix.shape
    indices = matrix.indices
    df = np.bincount(indices, minlength=width)
    h = int(min(dense_terms, np.count_nonzero(df >= 2)))
    common = np.argsort(-df, kind="stable")[:h]
    rank = np.full(width, -1, dtype=np.int64)
    rank[common] = np.arange(h)
    row = np.repeat(np.arange(n, dtype=np.int64), np.diff(matrix.indptr))
    data = matrix.data.astype(np.float64)
    to_dense = rank[indices] >= 0
    dense = np.zeros((n, h), dtype=np.float64)
    dense[row[to_dense], rank[indices[to_dense]]] = data[to_dense]
    keep = ~to_dense & (df[indices] >= 2)
    sparse = csr_matrix((data[keep], indices[keep], np.concatenate([[0], np.cumsum(np.bincount(row[keep], minlength=n))])),
                        shape=(n, width))
    return dense, sparse


def _pair_scores(bi: int, bj: int) -> np.ndarray:
    """The exact scores (float64) of the rows of block ``bi`` against those of block ``bj``."""
    dense, sparse, sparse_t, _ = _MATRIX
    scores = (sparse[bi] @ sparse_t[bj]).toarray()
    scores += dense[bi] @ dense[bj].T
    return scores


def _diagonal_job(bi: int) -> tuple[int, np.ndarray, np.ndarray]:
    """Best ``take`` candidates of the rows of block ``bi`` within that block (itself excluded)."""
    scores = _pair_scores(bi, bi)
    np.fill_diagonal(scores, -1.0)  # a paper is not related to itself
    cols, values = _block_best(scores, _MATRIX[3])
    return bi, cols, values


def _pair_job(job: tuple[int, int, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidates of block pair ``(bi, bj)`` (``bi < bj``) as ``(rows, columns, scores)`` (row and column
    numbers of the whole matrix): every score of a row of ``bi`` at least its cut (``cut_i``, per row of
    ``bi``), and of a row of ``bj`` at least its cut (``cut_j``); a pair meeting both cuts comes twice, once
    from each side."""
    bi, bj, cut_i, cut_j = job
    block = _MATRIX[0][0].shape[0]
    scores = _pair_scores(bi, bj)
    rows, cols = np.nonzero(scores >= np.minimum(cut_i[:, None], cut_j[None, :]))
    values = scores[rows, cols]
    first, second = values >= cut_i[rows], values >= cut_j[cols]
    rows, cols = rows.astype(np.int32), cols.astype(np.int32)  # half the bytes to send back (n < 2**31)
    a, c = bi * block, bj * block
    return (np.concatenate([rows[first] + a, cols[second] + c]), np.concatenate([cols[first] + c, rows[second] + a]),
            np.concatenate([values[first], values[second]]))


def _blas_one_thread():
    """A context in which BLAS uses one thread (the forked workers share the cores already)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - declared in pyproject.toml
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _all_pairs(matrix, take: int, block: int, progress=None) -> _Best:
    """The best ``take`` of every row of the integer ``matrix`` (on every core when allowed).

    First every diagonal block (the rows of a block against each other) gives each row its best
    ``take`` there, and the lowest of them its *cut*: a row's best ``take`` overall all score at least
    that much. Then the pairs of different blocks (the upper block triangle) are taken in waves
    (:func:`_waves`); each pair yields only the scores at or above the cut of their row, and after each
    wave the candidates are merged into each row's best under the total order, which raises the cuts
    of the next wave (the ``take``-th best so far): a row gets some ``take`` candidates a wave instead of
    some ``take`` a block, and at most :data:`MERGE_CANDIDATES` of them wait to be merged. Memory
    O(block² + N·take + :data:`MERGE_CANDIDATES`). ``progress`` (a :class:`~site_builder.progress.Progress`, or
    None) shows the stage ``related papers``, advanced per block and block pair done.
    """
    n = matrix.shape[0]
    best = _Best(n, take, n)
    if take <= 0:
        return best
    count = (n + block - 1) // block
    if progress is not None:
        progress.stage("related papers", count * (count + 1) // 2, "blocks")
    dense, sparse = _split_columns(matrix)
    _MATRIX[:] = [[dense[a:a + block] for a in range(0, n, block)],
                  [sparse[a:a + block] for a in range(0, n, block)],
                  [sparse[a:a + block].T.tocsr() for a in range(0, n, block)], take]
    try:
        with _blas_one_thread():
            processes = min(parallel.worker_count(), count)
            pool = parallel.fork_pool(processes) if processes >= 2 and n >= MIN_PARALLEL_TEXTS else None
            with (pool if pool is not None else contextlib.nullcontext()):
                mapper = pool.imap_unordered if pool is not None else (lambda f, items, chunksize=1: map(f, items))
                for bi, cols, values in mapper(_diagonal_job, range(count)):
                    a = bi * block
                    best.cols[a:a + cols.shape[0], :cols.shape[1]] = cols + a
                    best.scores[a:a + cols.shape[0], :cols.shape[1]] = values
                    _advance(progress)
                for wave in _waves(count):
                    _pair_wave(best, wave, block, mapper, progress)
    finally:
        _MATRIX[:] = []
    return best.positive()


#: Candidates of block pairs held before they are merged into the rows' best (16 bytes each).
MERGE_CANDIDATES = 1 << 22


def _waves(count: int) -> list[list[tuple[int, int]]]:
    """The pairs ``(bi, bj)``, ``bi < bj < count``, in waves by their distance ``bj - bi``: 1, then 2–3, 4–7, …
    (each wave shows a block about as many others again as it has seen); one empty wave for one block (the
    merge after it puts the rows' best in order)."""
    waves, low = [], 1
    while low < count:
        high = min(2 * low, count)
        waves.append([(bi, bi + d) for d in range(low, high) for bi in range(count - d)])
        low = high
    return waves or [[]]


def _pair_wave(best: _Best, wave: list[tuple[int, int]], block: int, mapper, progress=None) -> None:
    """The candidates of the block pairs ``wave`` (:func:`_pair_job`, through ``mapper``) at the cuts of ``best``
    now, merged into ``best``; ``progress`` (or None) advanced per pair."""
    cut = np.maximum(best.scores.min(axis=1), 1.0)  # -inf (fewer than take held) and 0: any positive score
    jobs = ((bi, bj, cut[bi * block:(bi + 1) * block], cut[bj * block:(bj + 1) * block]) for bi, bj in wave)
    found, held = [], 0
    for part in mapper(_pair_job, jobs, chunksize=4):
        found.append(part)
        held += len(part[0])
        _advance(progress)
        if held >= MERGE_CANDIDATES:
            _merge_found(best, found)
            found, held = [], 0
    _merge_found(best, found)


def _advance(progress) -> None:
    if progress is not None:
        progress.advance()


def _merge_found(best: _Best, found: list) -> None:
    """Merge the ``(rows, columns, scores)`` candidates of :func:`_pair_job` in ``found`` into ``best``."""
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64))
    _merge_candidates(best, *(np.concatenate(parts) for parts in zip(empty, *found)))  # also orders the held ones


def _merge_candidates(best: _Best, rows: np.ndarray, cols: np.ndarray, scores: np.ndarray) -> None:
    """Merge candidate triples (each (row, column) pair at most once, none held already) into ``best``."""
    held = np.isfinite(best.scores)
    rows = np.concatenate([np.nonzero(held)[0], rows])
    cols = np.concatenate([best.cols[held], cols])
    scores = np.concatenate([best.scores[held], scores])
    order = np.lexsort((cols, -scores, rows))
    rows, cols, scores = rows[order], cols[order], scores[order]
    starts = np.searchsorted(rows, np.arange(best.cols.shape[0]))
    rank = np.arange(len(rows)) - starts[rows]
    keep = rank < best.take
    best.cols[:], best.scores[:] = best.sentinel, -np.inf
    best.cols[rows[keep], rank[keep]] = cols[keep]
    best.scores[rows[keep], rank[keep]] = scores[keep]


def top_k_similar(matrix, k: int = DEFAULT_K, block: int = DEFAULT_BLOCK) -> list[list[tuple[int, float]]]:
    """For each row ``i`` of the weight ``matrix``, up to ``k`` ``(j, score)`` with ``j != i``: the
    strictly positive cosines of :func:`quantized` rows (as exact integers, scaled by ``2**48``),
    best first, ties by increasing ``j``. Memory O(block² + N·k)."""
    n = matrix.shape[0]
    best = _all_pairs(quantized(matrix), max(min(k, n - 1), 0), block)
    return [[(int(j), float(v)) for j, v in zip(cols, values) if v > 0] for cols, values in zip(best.cols, best.scores)]


def _rows(matrix, rows: np.ndarray, take: int, chunk: int = DEFAULT_BLOCK) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The full rows ``rows`` of the integer ``matrix``: their best ``take`` (cols, scores; itself
    excluded, positive only) and their exact scores against every row (``len(rows)`` × n, float64)."""
    n = matrix.shape[0]
    best = _Best(len(rows), take, n)
    dense = np.zeros((len(rows), n), dtype=np.float64)
    for s in range(0, len(rows), chunk):
        part = rows[s:s + chunk]
        scores = (matrix @ matrix[part].T).toarray().T.astype(np.float64)
        dense[s:s + len(part)] = scores
        scores[np.arange(len(part)), part] = -1.0  # a paper is not related to itself
        if take > 0:
            cols, values = _block_best(scores, take)
            best.merge(slice(s, s + len(part)), cols, values)
    best.positive()
    return best.cols, best.scores, dense


class _Rows:
    """An integer CSR matrix as plain numpy arrays, with the few products an update needs, exact and
    without scipy (whose import costs a rebuild more than these products): rows sorted, terms sorted."""

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, columns: int) -> None:
        self.indptr, self.indices, self.data, self.columns = indptr, indices.astype(np.int64), data, columns
        self.n = len(indptr) - 1
        self.lengths = np.diff(indptr)

    #: Cells of the dense table :meth:`pair_scores` fills with rows at a time (int64: 8 MB; larger
    #: tables gather no faster, their cells fall out of the caches).
    TABLE_CELLS = 1 << 20

    def pair_scores(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The scores (int64) of the row pairs ``(a[p], b[p])``.

        The distinct rows of ``a`` are laid out densely, as many at a time as :data:`TABLE_CELLS`
        allows, and each pair's score gathered from its ``a`` row's dense copy by the entries of its
        ``b`` row: work proportional to the entries of the ``b`` rows and of the distinct ``a`` rows."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        out = np.zeros(len(a), dtype=np.int64)
        if not len(a):
            return out
        order = np.argsort(a, kind="stable")
        a_sorted = a[order]
        first = np.flatnonzero(np.r_[True, a_sorted[1:] != a_sorted[:-1]])  # each distinct a's first pair
        distinct = a_sorted[first]
        group = np.cumsum(np.r_[False, a_sorted[1:] != a_sorted[:-1]])  # per sorted pair: its distinct a
        per_table = max(1, self.TABLE_CELLS // max(self.columns, 1))
        table = np.zeros(min(per_table, len(distinct)) * self.columns, dtype=np.int64)
        bounds = np.r_[first, len(a)]
        for start in range(0, len(distinct), per_table):
            rows = distinct[start:start + per_table]
            set_at = np.repeat(np.arange(len(rows), dtype=np.int64) * self.columns, self.lengths[rows])
            entries = _entries(self.indptr, rows)
            set_at += self.indices[entries]
            table[set_at] = self.data[entries]
            pairs = order[bounds[start]:bounds[min(start + per_table, len(distinct))]]
            b_rows = b[pairs]
            b_entries = _entries(self.indptr, b_rows)
            at = np.repeat((group[bounds[start]:bounds[start] + len(pairs)] - start) * self.columns,
                           self.lengths[b_rows]) + self.indices[b_entries]
            out[pairs] = _segment_sums(table[at] * self.data[b_entries], self.lengths[b_rows])
            table[set_at] = 0
        return out

    def row_scores(self, row: int) -> np.ndarray:
        """The scores (int64) of row ``row`` with every row."""
        dense = np.zeros(self.columns, dtype=np.int64)
        a, b = self.indptr[row], self.indptr[row + 1]
        dense[self.indices[a:b]] = self.data[a:b]
        return _segment_sums(self.data * dense[self.indices], self.lengths)


def _segment_sums(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Sums (int64, exact) of consecutive segments of ``values`` of the given ``lengths``."""
    sums = np.zeros(len(lengths), dtype=np.int64)
    nonempty = lengths > 0
    if nonempty.any():
        starts = (np.cumsum(lengths) - lengths)[nonempty]
        sums[nonempty] = np.add.reduceat(values, starts)
    return sums


def _few_rows(rows_matrix: _Rows, rows: np.ndarray, take: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_rows` for a few rows, without scipy."""
    n = rows_matrix.n
    best = _Best(len(rows), take, n)
    dense = np.zeros((len(rows), n), dtype=np.float64)
    for r, row in enumerate(rows):
        dense[r] = rows_matrix.row_scores(int(row))
    if len(rows) and take > 0:
        scores = dense.copy()
        scores[np.arange(len(rows)), rows] = -1.0  # a paper is not related to itself
        cols, values = _block_best(scores, take)
        best.merge(slice(0, len(rows)), cols, values)
    best.positive()
    return best.cols, best.scores, dense


# -- state of the previous build and the incremental update ---------------------------------------

@dataclass
class State:
    """What :func:`incremental_related` needs from the previous build: the texts' ``keys`` (in order),
    the ``vocabulary`` (sorted terms), the count matrix (``indptr``, ``indices``, ``counts``) and its
    :func:`quantized` ``weights`` (aligned with ``indices``), per text
    its best candidates (``best_cols``, ``best_scores``: texts × (k + :data:`SLACK`), column ``n`` /
    score ``-inf`` = none) and ``bound``: every other text has a score at most ``bound``, and shares
    no term with it when ``bound`` is 0; ``k``."""

    keys: list[str]
    vocabulary: list[str]
    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    weights: np.ndarray
    best_cols: np.ndarray
    best_scores: np.ndarray
    bound: np.ndarray
    k: int

    def lists(self) -> list[list[int]]:
        """The best ``k`` of each text, best first."""
        n = len(self.keys)
        cols = np.where(self.best_scores[:, :self.k] > 0, self.best_cols[:, :self.k], n).tolist()
        return [[j for j in row if j < n] for row in cols]


def text_key(key: str, text: str) -> str:
    """The identity of a text: hex SHA-256 of its ``key`` (e.g. paper id) and the text."""
    return hashlib.sha256(f"{key}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


#: The dtypes of the integer arrays a state is kept with when their values fit (weights are at most 2**24, see
#: :func:`quantized`; columns are below the number of texts or terms): the same values in a quarter less to
#: write and read. Values that do not fit are kept as ``"<i8"``.
_NARROW = "<i4"
_INTEGER_DTYPES = ("<i4", "<i8")


def state_value(state: State) -> dict:
    """``state`` as plain data for the build cache (:meth:`Store.keep
    <site_builder.incremental.store.Store.keep>`): ``keys`` and ``vocabulary`` as lists of str, ``k`` and
    ``take`` (``best_cols.shape[1]``) as int, the arrays as little-endian bytes (:func:`array_bytes`):
    ``indptr`` int64, ``counts`` float32, ``best_scores`` and ``bound`` float64, and ``indices``, ``weights``
    and ``best_cols`` int32 when their values fit, else int64 (their dtypes under ``dtypes``).
    :func:`state_of` makes the state again."""
    dtypes = {name: _integer_dtype(getattr(state, name)) for name in ("indices", "weights", "best_cols")}
    return {"k": state.k, "take": state.best_cols.shape[1], "keys": list(state.keys),
            "vocabulary": list(state.vocabulary), "dtypes": dtypes,
            "indptr": array_bytes(state.indptr, "<i8"), "indices": array_bytes(state.indices, dtypes["indices"]),
            "counts": array_bytes(state.counts, "<f4"), "weights": array_bytes(state.weights, dtypes["weights"]),
            "best_cols": array_bytes(state.best_cols, dtypes["best_cols"]),
            "best_scores": array_bytes(state.best_scores, "<f8"), "bound": array_bytes(state.bound, "<f8")}


def _integer_dtype(values: np.ndarray) -> str:
    """:data:`_NARROW` when every value of ``values`` (integers) fits in it, else ``"<i8"``."""
    if values.size and (values.min() < -(1 << 31) or values.max() >= 1 << 31):
        return "<i8"
    return _NARROW


def state_of(value: dict) -> State:
    """The :class:`State` of :func:`state_value`'s dict ``value`` (as read back from the build cache): the
    arrays in the dtypes of a computed state (``indices`` int32 when kept so, ``weights`` and ``best_cols``
    int64), ``best_cols``/``best_scores`` texts × ``take``.

    Raises ValueError, with what is wrong, when ``value`` is not such a dict (a field missing or of the wrong
    type, array bytes not a whole number of items) or its arrays do not fit together: ``indptr`` of
    ``len(keys) + 1`` entries, ``indices``/``counts``/``weights`` of ``indptr[-1]``, columns within the
    vocabulary, ``best_cols``/``best_scores`` of ``len(keys) × take`` and ``bound`` of ``len(keys)``."""
    try:
        keys, vocabulary, k, take, dtypes = (value[f] for f in ("keys", "vocabulary", "k", "take", "dtypes"))
        if not (_strings(keys) and _strings(vocabulary) and type(k) is int and type(take) is int
                and k >= 0 and take >= 0 and type(dtypes) is dict
                and all(dtypes.get(f) in _INTEGER_DTYPES for f in ("indices", "weights", "best_cols"))):
            raise ValueError("fields of the wrong type")
        arrays = {name: array_of(value[name], dtype) for name, dtype in
                  (("indptr", "<i8"), ("indices", dtypes["indices"]), ("counts", "<f4"),
                   ("weights", dtypes["weights"]), ("best_cols", dtypes["best_cols"]), ("best_scores", "<f8"),
                   ("bound", "<f8"))}
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f"not a related-papers state: {type(exc).__name__}: {exc}") from exc
    n = len(keys)
    indptr, indices = arrays["indptr"], arrays["indices"]
    if not (indptr.shape == (n + 1,) and arrays["best_cols"].size == arrays["best_scores"].size == n * take
            and arrays["bound"].shape == (n,)
            and len(indices) == len(arrays["counts"]) == len(arrays["weights"]) == indptr[-1]
            and (len(indices) == 0 or 0 <= indices.min() <= indices.max() < len(vocabulary))):
        raise ValueError("arrays of inconsistent shapes")
    return State(keys, vocabulary, indptr, indices, arrays["counts"], arrays["weights"].astype(np.int64, copy=False),
                 arrays["best_cols"].astype(np.int64, copy=False).reshape(n, take),
                 arrays["best_scores"].reshape(n, take), arrays["bound"], k)


def _strings(items: object) -> bool:
    """Whether ``items`` is a list of str (as :mod:`marshal` gives them back: no subclasses)."""
    return type(items) is list and all(type(item) is str for item in items)  # plain data from marshal


def _full(texts: Sequence[str], keys: list[str], k: int, block: int, progress=None) -> State:
    """The :class:`State` of ``texts`` computed whole (their counts by :func:`counted_texts`)."""
    vocabulary, indptr, indices, data = counted_texts(texts)
    matrix = quantized(weights(indptr, indices, data, len(vocabulary)))
    best = _all_pairs(matrix, max(min(k + SLACK, len(keys) - 1), 0), block, progress)
    return State(keys, vocabulary, indptr, indices, data, matrix.data, best.cols, best.scores, best.bounds(), k)


def _row_sums(values: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Per-row sums of ``values`` (float64) for CSR ``indptr``; exact for integers when each row's sum is below 2**53."""
    rows = len(indptr) - 1
    sums = np.zeros(rows, dtype=np.float64)
    nonempty = np.diff(indptr) > 0
    if nonempty.any():
        sums[nonempty] = np.add.reduceat(values, indptr[:-1][nonempty])
    return sums


def _entries(indptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Positions in the CSR data of the entries of ``rows``, row after row."""
    lengths = indptr[rows + 1] - indptr[rows]
    return np.repeat(indptr[rows], lengths) + _ramp(lengths)


class _Alignment(NamedTuple):
    """How the texts of an update stand to the previous state's: ``n`` texts (as many as before), ``take``
    candidates kept per text, ``mapping`` (int64, per text: its previous position, -1 for an added text),
    ``kept`` (bool, per text: ``mapping >= 0``), ``removed`` (bool, per previous text: gone) and ``added``
    (int64: the positions of the added texts, ascending)."""

    n: int
    take: int
    mapping: np.ndarray
    kept: np.ndarray
    removed: np.ndarray
    added: np.ndarray


class _Vocabulary(NamedTuple):
    """The vocabulary after an update: ``terms`` (sorted), ``remap`` (int64, old column → new column, -1:
    the term is gone; None: the columns are the old ones), ``df`` (int64, documents per term), ``column``
    (term → new column, for every term the update touches and still held) and ``changed`` (int64, sorted:
    the columns of the held terms whose ``df`` changed)."""

    terms: list[str]
    remap: np.ndarray | None
    df: np.ndarray
    column: abc.Callable[[str], int]
    changed: np.ndarray


class _Counts(NamedTuple):
    """The count matrix of an update, rows in the new order: CSR ``indptr`` (int64) with the row
    ``lengths`` (int64), ``indices`` (int32, new columns), ``counts`` (float32) and ``data`` (int64,
    the :func:`quantized` weights: the previous ones, 0 for the added rows until weighed)."""

    indptr: np.ndarray
    lengths: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    data: np.ndarray


class _Reweighed(NamedTuple):
    """The ``rows`` (int64, ascending) weighed again by an update, the positions of their entries in the
    CSR data (``entry``, row after row) and those entries' own CSR ``indptr`` (int64)."""

    rows: np.ndarray
    entry: np.ndarray
    indptr: np.ndarray


def _update(texts: Sequence[str], keys: list[str], k: int, previous: State) -> State | None:
    """The incremental update (see the module docstring, steps 1 to 3), or None when it does not apply."""
    align = _alignment(keys, k, previous)
    if align is None:
        return None
    added_counts = {int(i): terms(texts[i]) for i in align.added}
    vocab = _updated_vocabulary(previous, added_counts, _df_delta(previous, added_counts, align.removed))
    counted = _count_rows(previous, align, _added_rows(added_counts, vocab.column), vocab.remap)
    if counted is None:
        return None  # a kept text uses a term that vanished: the state is inconsistent
    reweighed = _reweigh(counted, vocab, align)
    matrix = _Rows(counted.indptr, counted.indices, counted.data, max(len(vocab.terms), 1))
    changed, slack = _slack(previous, align, counted, reweighed)
    best, bound = _carried(previous, align)
    rescored = _rescore(best, changed, matrix)
    best.order(align.kept)  # the rows now out of order (a candidate rescored, or removed) are ordered again
    _add_texts(best, matrix, align)
    count, threshold, new_bound = _keep_certain(best, bound, slack, align)
    # rows with fewer than k certain candidates (rare) are computed in full
    again = np.flatnonzero((count < min(k, align.n - 1)) & align.kept & (threshold > 0))
    _recompute(best, new_bound, again, matrix, counted, align.take)
    LAST_UPDATE.update(changed=int(changed.sum()), added=len(align.added), reweighed=len(reweighed.rows),
                       rescored=rescored, recomputed=len(again))
    return State(keys, vocab.terms, counted.indptr, counted.indices, counted.counts, counted.data,
                 best.cols, best.scores, new_bound, k)


def _alignment(keys: list[str], k: int, previous: State) -> _Alignment | None:
    """How ``keys`` stand to ``previous``'s, or None when the update does not apply: another ``k`` or
    number of texts, keys repeated, kept texts reordered (ties could break differently) or many added."""
    n = len(keys)
    take = min(k + SLACK, n - 1)
    if (previous.k != k or len(previous.keys) != n or previous.best_cols.shape[1] != take or take <= 0
            or len(set(previous.keys)) != n or len(set(keys)) != n):
        return None
    mapping = _mapping(keys, previous.keys)
    kept = mapping >= 0
    if np.any(np.diff(mapping[kept]) <= 0):
        return None  # kept texts reordered: ties could break differently
    removed = np.ones(n, dtype=bool)
    removed[mapping[kept]] = False
    added = np.flatnonzero(~kept)
    if len(added) > max(16, n // 100):
        return None  # many new texts: recomputing is about as cheap
    return _Alignment(n, take, mapping, kept, removed, added)


def _df_delta(previous: State, added_counts: dict[int, Counter], removed: np.ndarray) -> Counter:
    """Documents gained (+) and lost (-) per term by adding the texts of ``added_counts`` and removing the
    previous texts marked in ``removed``; terms whose number of documents is the same left out."""
    old_vocab = previous.vocabulary
    delta: Counter = Counter()
    for counter in added_counts.values():
        delta.update(counter.keys())
    for r in np.flatnonzero(removed):
        for c in previous.indices[previous.indptr[r]:previous.indptr[r + 1]].tolist():
            delta[old_vocab[c]] -= 1
    return Counter({t: d for t, d in delta.items() if d != 0})


def _old_column(old_vocab: list[str], term: str) -> int | None:
    """The column of ``term`` in the sorted ``old_vocab``, None when it is not there."""
    i = bisect.bisect_left(old_vocab, term)
    return i if i < len(old_vocab) and old_vocab[i] == term else None


def _updated_vocabulary(previous: State, added_counts: dict[int, Counter], delta: Counter) -> _Vocabulary:
    """The vocabulary after adding the texts of ``added_counts`` and the documents per term changing by
    ``delta``: the previous one when no term comes or goes, else :func:`_new_vocabulary`."""
    old_vocab = previous.vocabulary
    old_df = np.bincount(previous.indices, minlength=len(old_vocab))
    columns = {t: _old_column(old_vocab, t) for t in set(delta) | {t for c in added_counts.values() for t in c}}
    if all(c is not None for c in columns.values()) and all(old_df[columns[t]] + d > 0 for t, d in delta.items()):
        return _same_vocabulary(old_vocab, old_df, columns, delta)
    vocabulary, remap, df, index = _new_vocabulary(old_vocab, old_df, columns, delta)
    changed = np.array(sorted(index[t] for t in delta if t in index), dtype=np.int64)
    return _Vocabulary(vocabulary, remap, df, index.__getitem__, changed)


def _same_vocabulary(old_vocab: list[str], old_df: np.ndarray, columns: dict, delta: Counter) -> _Vocabulary:
    """The previous vocabulary ``old_vocab`` kept (every term of ``columns`` held before and after), its
    documents per term ``old_df`` changed by ``delta``."""
    df = old_df.copy()
    for t, d in delta.items():
        df[columns[t]] += d
    changed = np.array(sorted(columns[t] for t in delta if df[columns[t]] > 0), dtype=np.int64)
    return _Vocabulary(old_vocab, None, df, columns.__getitem__, changed)


def _added_rows(added_counts: dict[int, Counter], column: abc.Callable[[str], int]
                ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per added text (position → term counts), its row: ``(columns int64, counts float32)`` by column."""
    added_rows = {}
    for i, counter in added_counts.items():
        pairs = sorted((column(t), c) for t, c in counter.items())
        added_rows[i] = (np.array([c for c, _ in pairs], dtype=np.int64), np.array([v for _, v in pairs], dtype=np.float32))
    return added_rows


def _count_rows(previous: State, align: _Alignment, added_rows: dict, remap: np.ndarray | None) -> _Counts | None:
    """The new count matrix: the kept rows the old ones (columns renamed by ``remap``), the ``added_rows``
    (``{row: (columns, counts)}``) at their places; None when a kept row holds a term that is gone."""
    kept, mapping = align.kept, align.mapping
    lengths = np.zeros(align.n, dtype=np.int64)
    lengths[kept] = np.diff(previous.indptr)[mapping[kept]]
    for i, (cols_i, _) in added_rows.items():
        lengths[i] = len(cols_i)
    indptr = np.zeros(align.n + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    if np.array_equal(mapping[kept], np.flatnonzero(kept)):
        # every kept text in its place (an edit in place: each added text where a removed one was): the old
        # arrays' runs of kept rows, with the added rows between them (the same arrays, copied in a few pieces)
        indices, counts, data = _spliced(previous, added_rows, remap)
    else:
        indices, counts, data = _moved(previous, align, indptr, added_rows, remap)
    if len(indices) and indices.min() < 0:
        return None
    return _Counts(indptr, lengths, indices.astype(np.int32), counts, data)


def _moved(previous: State, align: _Alignment, indptr: np.ndarray, added_rows: dict, remap: np.ndarray | None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(indices, counts, weights)`` (int64, float32, int64) as :func:`_spliced` gives them, for kept rows
    that moved: the kept rows' entries gathered to their new places (CSR ``indptr``), the added rows set."""
    old_entry = _entries(previous.indptr, align.mapping[align.kept])
    new_entry = _entries(indptr, np.flatnonzero(align.kept))
    indices = np.zeros(indptr[-1], dtype=np.int64)
    counts = np.zeros(indptr[-1], dtype=np.float32)
    old_indices = previous.indices[old_entry]
    indices[new_entry] = old_indices if remap is None else remap[old_indices]
    counts[new_entry] = previous.counts[old_entry]
    for i, (cols_i, values_i) in added_rows.items():
        indices[indptr[i]:indptr[i + 1]], counts[indptr[i]:indptr[i + 1]] = cols_i, values_i
    data = np.zeros(indptr[-1], dtype=np.int64)
    data[new_entry] = previous.weights[old_entry]
    return indices, counts, data


def _reweigh(counted: _Counts, vocab: _Vocabulary, align: _Alignment) -> _Reweighed:
    """Weigh again (into ``counted.data``) the rows with a term whose ``df`` changed, and the added rows;
    the others keep the previous weights, the same bit for bit (module docstring, step 1)."""
    indptr, lengths, indices = counted.indptr, counted.lengths, counted.indices
    reweigh = np.zeros(align.n, dtype=bool)
    reweigh[align.added] = True
    if len(vocab.changed):
        hit = np.zeros(max(len(vocab.terms), 1), dtype=bool)
        hit[vocab.changed] = True
        nonempty = lengths > 0
        reweigh[nonempty] |= np.logical_or.reduceat(hit[indices], indptr[:-1][nonempty])
    rows = np.flatnonzero(reweigh)
    entry = _entries(indptr, rows)
    sub_indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths[rows], out=sub_indptr[1:])
    counted.data[entry] = _fixed(_weight_data(sub_indptr, indices[entry], counted.counts[entry], len(vocab.terms),
                                              vocab.df, align.n))
    return _Reweighed(rows, entry, sub_indptr)


def _slack(previous: State, align: _Alignment, counted: _Counts, reweighed: _Reweighed
           ) -> tuple[np.ndarray, np.ndarray]:
    """``(changed, slack)``: per text, whether it is kept with a changed integer vector (bool), and the
    bound on the change of its score with any kept text (float64; module docstring, step 1)."""
    kept, mapping = align.kept, align.mapping
    rows = reweighed.rows
    # change of each kept vector (same terms, same order): new - old, exact integers
    # (only reweighed rows can have changed; per row the same sums as over the whole matrix)
    moved = rows[kept[rows]]
    change = counted.data[_entries(counted.indptr, moved)].astype(np.float64) - \
        previous.weights[_entries(previous.indptr, mapping[moved])].astype(np.float64)
    changed_norm = np.zeros(align.n, dtype=np.float64)  # 0 for texts whose vector is the same
    changed_norm[moved] = np.sqrt(_row_sums(change * change, _starts(counted.lengths[moved])))
    changed = kept & (changed_norm > 0)
    largest_change = changed_norm.max(initial=0.0)
    old_norm = np.zeros(align.n, dtype=np.float64)
    old_norm[kept] = np.sqrt(_row_sums(previous.weights.astype(np.float64) ** 2, previous.indptr))[mapping[kept]]
    norm = old_norm.copy()  # a row not weighed again is the same row: the same sum
    norm[rows] = np.sqrt(_row_sums(counted.data[reweighed.entry].astype(np.float64) ** 2, reweighed.indptr))
    # |new - old score of i, j| <= |d_i|·|new_j| + |old_i|·|d_j| (Cauchy-Schwarz), over all j; with a margin
    slack = (changed_norm * norm.max(initial=0.0) + old_norm * largest_change) * (1 + 1e-9) + 4
    if largest_change == 0:
        slack[:] = 0.0  # no kept vector changed: every kept score is the same
    return changed, slack


def _carried(previous: State, align: _Alignment) -> tuple[_Best, np.ndarray]:
    """``(best, bound)``: the previous candidates and bounds of the kept texts in their new positions,
    removed texts dropped (none for the added texts: candidates empty, bound 0)."""
    n, kept, mapping = align.n, align.kept, align.mapping
    new_pos = np.full(n + 1, n, dtype=np.int64)
    new_pos[mapping[kept]] = np.flatnonzero(kept)
    best = _Best(n, align.take, n)
    best.cols[kept] = new_pos[np.minimum(previous.best_cols[mapping[kept]], n)]
    best.scores[kept] = np.where(best.cols[kept] < n, previous.best_scores[mapping[kept]], -np.inf)
    bound = np.zeros(n, dtype=np.float64)
    bound[kept] = previous.bound[mapping[kept]]
    return best, bound


def _rescore(best: _Best, changed: np.ndarray, matrix: _Rows) -> int:
    """Rescore the candidates in ``best`` where either text ``changed`` (exact integer dot products of
    ``matrix``'s rows), dropping those no longer positive; the number of candidates rescored."""
    n = matrix.n
    held = best.cols < n
    redo = held & (changed[:, None] | changed[np.minimum(best.cols, n - 1)])
    if redo.any():
        i, j = np.broadcast_to(np.arange(n)[:, None], redo.shape)[redo], best.cols[redo]
        pairs, where = np.unique(np.minimum(i, j) * n + np.maximum(i, j), return_inverse=True)  # s(i, j) = s(j, i)
        a, b = pairs // n, pairs % n
        a, b = np.where(changed[a], a, b), np.where(changed[a], b, a)  # a: a changed text (fewer distinct rows)
        best.scores[redo] = matrix.pair_scores(a, b).astype(np.float64)[where]
        best.positive()
    return int(redo.sum())


def _add_texts(best: _Best, matrix: _Rows, align: _Alignment) -> None:
    """The added texts' rows computed in full into ``best``; their scores with every kept text merged into
    that text's candidates (by symmetry)."""
    added, kept = align.added, align.kept
    added_cols, added_scores, dense = _few_rows(matrix, added, align.take)
    if len(added):
        with_added = dense.T[kept]
        best.merge(kept, np.broadcast_to(added, with_added.shape).copy(), np.where(with_added > 0, with_added, -np.inf))
    best.cols[added], best.scores[added] = added_cols, added_scores


def _keep_certain(best: _Best, bound: np.ndarray, slack: np.ndarray, align: _Alignment
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Keep in ``best`` only the certain candidates: above every score a text outside the list can have now
    (``bound + slack``; module docstring, step 3). Returns per text ``(count, threshold, new bound)``:
    the number of certain candidates (int), the threshold and the bound (float64) for the next update."""
    n, added = align.n, align.added
    threshold = np.where(bound > 0, bound + slack, 0.0)
    threshold[added] = -1.0
    certain = best.scores > threshold[:, None]
    count = certain.sum(axis=1)
    new_bound = np.where(count < align.take, threshold, np.maximum(threshold, best.scores[:, -1]))
    new_bound[added] = best.bounds()[added]
    best.cols[~certain], best.scores[~certain] = n, -np.inf
    return count, threshold, new_bound


def _recompute(best: _Best, new_bound: np.ndarray, again: np.ndarray, matrix: _Rows, counted: _Counts,
               take: int) -> None:
    """Compute the rows ``again`` in full into ``best`` and ``new_bound``: a few without scipy
    (:func:`_few_rows`), many with scipy's sparse product (:func:`_rows` of the ``counted`` matrix)."""
    if not len(again):
        return
    n = matrix.n
    again_best = _Best(len(again), take, n)
    if len(again) <= 16:
        again_best.cols, again_best.scores, _ = _few_rows(matrix, again, take)
    else:  # many rows: scipy's sparse product
        again_best.cols, again_best.scores, _ = _rows(_csr(counted.indptr, counted.indices, counted.data,
                                                           (n, matrix.columns)), again, take)
    best.cols[again], best.scores[again] = again_best.cols, again_best.scores
    new_bound[again] = again_best.bounds()


def _mapping(keys: list[str], old_keys: list[str]) -> np.ndarray:
    """Per key of ``keys``, its position in ``old_keys`` or -1 (int64); both lists of ``n`` distinct keys.

    Only the positions where the lists differ are looked up: a key of ``keys`` at such a position cannot
    be an old key at a position where they agree (that old key is a new key there too, and the new keys
    are distinct), so it is looked up among the old keys at the differing positions alone (one edited
    abstract: one lookup instead of a table of every old key)."""
    differ = [i for i, (new, old) in enumerate(zip(keys, old_keys)) if new != old]
    mapping = np.arange(len(keys), dtype=np.int64)
    if differ:
        old_pos = {old_keys[i]: i for i in differ}
        mapping[differ] = [old_pos.get(keys[i], -1) for i in differ]
    return mapping


def _new_vocabulary(old_vocab: list[str], old_df: np.ndarray, columns: dict, delta: Counter
                    ) -> tuple[list[str], np.ndarray, np.ndarray, dict[str, int]]:
    """The vocabulary after an update that adds or drops terms: ``(vocabulary, remap, df, index)``.

    ``old_vocab`` (sorted) and ``old_df`` (documents per term) are the previous ones, ``columns`` maps each
    term the update touches (every term of ``delta`` and of the added texts) to its old column or None (a
    new term), ``delta`` gives each term's change of documents. ``vocabulary`` is the sorted terms whose
    new df is positive, ``remap`` (int64) each old column's new column (-1: the term is gone), ``df``
    (int64) the new documents per term, ``index`` the new column of each touched term still held. The
    same as sorting every term again, but only the touched terms are handled one by one: an old column
    moves by the number of terms dropped before it and inserted before it."""
    size = len(old_vocab)
    changed_df = old_df.astype(np.int64)
    for t, d in delta.items():
        if columns[t] is not None:
            changed_df[columns[t]] += d
    gone = np.flatnonzero(changed_df <= 0)
    fresh = sorted(t for t, c in columns.items() if c is None and delta.get(t, 0) > 0)
    at = np.array([bisect.bisect_left(old_vocab, t) for t in fresh], dtype=np.int64)  # old terms before each
    old_columns = np.arange(size, dtype=np.int64)
    remap = old_columns - np.searchsorted(gone, old_columns) + np.searchsorted(at, old_columns, side="right")
    remap[gone] = -1
    kept_before = at - np.searchsorted(gone, at)  # old terms kept before each new term
    fresh_columns = kept_before + np.arange(len(fresh), dtype=np.int64)
    kept_terms = _without(old_vocab, gone.tolist())
    vocabulary: list[str] = []
    start = 0
    for position, term in zip(kept_before.tolist(), fresh):
        vocabulary += kept_terms[start:position]
        vocabulary.append(term)
        start = position
    vocabulary += kept_terms[start:]
    alive = remap >= 0
    df = np.zeros(len(vocabulary), dtype=np.int64)
    df[remap[alive]] = changed_df[alive]
    index = dict(zip(fresh, fresh_columns.tolist()))
    for t in fresh:
        df[index[t]] = delta[t]
    for t, c in columns.items():
        if c is not None and remap[c] >= 0:
            index[t] = int(remap[c])
    return vocabulary, remap, df, index


def _without(items: list, positions: list[int]) -> list:
    """``items`` without those at ``positions`` (sorted, distinct); ``items`` itself when there are none."""
    if not positions:
        return items
    out: list = []
    start = 0
    for position in positions:
        out += items[start:position]
        start = position + 1
    out += items[start:]
    return out


def _spliced(previous: State, added_rows: dict, remap: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(indices, counts, weights)`` (int64, float32, int64) of the count matrix whose rows are ``previous``'s
    but for the rows ``added_rows`` (``{row: (columns, counts)}``, columns in the new vocabulary), which replace
    the previous rows at the same places, with weights 0; the previous rows' columns renamed by ``remap``
    (old column → new column; None: the same vocabulary)."""
    old_ptr = previous.indptr
    old_indices = previous.indices if remap is None else remap[previous.indices]
    index_parts, count_parts, weight_parts = [], [], []
    start = 0
    for row in sorted(added_rows):
        a, b = int(old_ptr[start]), int(old_ptr[row])
        cols, values = added_rows[row]
        index_parts += [old_indices[a:b], cols]
        count_parts += [previous.counts[a:b], values]
        weight_parts += [previous.weights[a:b], np.zeros(len(cols), dtype=np.int64)]
        start = row + 1
    a = int(old_ptr[start])
    index_parts.append(old_indices[a:])
    count_parts.append(previous.counts[a:])
    weight_parts.append(previous.weights[a:])
    return (np.concatenate(index_parts).astype(np.int64), np.concatenate(count_parts).astype(np.float32),
            np.concatenate(weight_parts).astype(np.int64))


def _starts(lengths: np.ndarray) -> np.ndarray:
    """CSR ``indptr`` (int64) of rows of the given ``lengths``."""
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return indptr


def _ramp(lengths: np.ndarray) -> np.ndarray:
    """``[0, 1, …, l0-1, 0, 1, …, l1-1, …]`` for the given lengths."""
    total = int(lengths.sum())
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(total, dtype=np.int64) - starts


def tfidf_matrix(texts: Sequence[str]):
    """The L2-normalised TF-IDF matrix (scipy CSR float32, ``len(texts)`` × vocabulary, terms sorted) of ``texts``.

    Texts without any word give all-zero rows.
    """
    vocabulary, indptr, indices, counts = counted_texts(texts)
    return weights(indptr, indices, counts, len(vocabulary))


def related_indices(texts: Sequence[str], k: int = DEFAULT_K, block: int = DEFAULT_BLOCK) -> list[list[int]]:
    """For each text, the indices of up to ``k`` most similar other texts (TF-IDF cosine), most similar first."""
    return incremental_related(texts, None, k, block)[0]


def incremental_related(texts: Sequence[str], keys: Sequence[str] | None, k: int = DEFAULT_K,
                        block: int = DEFAULT_BLOCK, previous: State | None = None
                        ) -> tuple[list[list[int]], State]:
    """:func:`related_indices` of ``texts`` and the :class:`State` to pass as ``previous`` next time.

    ``keys`` identify the texts across builds (None: the texts themselves, see :func:`text_key`);
    with ``previous``, the result is updated rather than recomputed when the update applies (see
    the module docstring); the result is the same either way.
    """
    state = _related_state(texts, keys, k, block, previous)
    return state.lists(), state


def _related_state(texts: Sequence[str], keys: Sequence[str] | None, k: int, block: int,
                   previous: State | None, progress=None) -> State:
    """The :class:`State` of :func:`incremental_related` (``previous`` itself when the texts are the same);
    ``progress`` as for :func:`_all_pairs` (a full computation's)."""
    keys = list(keys) if keys is not None else [text_key("", t) for t in texts]
    if previous is not None and previous.keys == keys and previous.k == k and \
            previous.best_cols.shape[1] == max(min(k + SLACK, len(keys) - 1), 0):
        return previous  # the same texts: the same result
    state = _update(texts, keys, k, previous) if previous is not None else None
    if state is None:
        state = _full(texts, keys, k, block, progress)
    return state


def paper_text(paper) -> str:
    """The text a paper is compared by: its title and abstract as plain text."""
    return f"{paper.title_text}. {paper.rendered.text}"


class _PaperTexts(abc.Sequence):
    """:func:`paper_text` of each paper, made when asked for (an update needs only the added papers'
    texts; keeping all of them would hold ~12 MB of strings for 10,000 papers)."""

    def __init__(self, papers: Sequence) -> None:
        self._papers = papers

    def __len__(self) -> int:
        return len(self._papers)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [paper_text(p) for p in self._papers[i]]
        return paper_text(self._papers[i])

    def __iter__(self):
        return map(paper_text, self._papers)


def paper_keys(papers: Sequence) -> list[str]:
    """:func:`text_key` of each paper's id and :func:`paper_text` (the texts are not kept)."""
    sha256 = hashlib.sha256
    return [sha256(f"{p.id}\0{p.title_text}. {p.rendered.text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
            for p in papers]


def related_papers(papers: Sequence, k: int = DEFAULT_K, block: int = DEFAULT_BLOCK,
                   previous: State | None = None, progress=None) -> tuple[dict[str, list], State]:
    """``({paper.id: [related Paper, …]}, state)`` over title and abstract text (:func:`paper_text`);
    ``previous`` as for :func:`incremental_related`; ``progress`` (a :class:`~site_builder.progress.Progress`, or
    None) shows a full computation as the stage ``related papers``, advanced per block pair."""
    state = _related_state(_PaperTexts(papers), paper_keys(papers), k, block, previous, progress)
    n = len(papers)
    if not n:
        return {}, state
    # State.lists() with each position taken to its paper at once: the best k of each row as an object
    # array of papers (None where a row holds fewer than k), rows with a None filtered (order kept)
    cols = state.best_cols[:, :k]
    held = (state.best_scores[:, :k] > 0) & (cols < n)
    table = np.fromiter(chain(papers, [None]), dtype=object, count=n + 1)  # never unpacks an item
    rows = table[np.where(held, cols, n)].tolist()
    for i in np.flatnonzero(~held.all(axis=1)).tolist():
        rows[i] = [paper for paper in rows[i] if paper is not None]
    return dict(zip([p.id for p in papers], rows)), state
