"""Related papers: the most similar papers by TF-IDF cosine over title and abstract.

**Vectors.** The weights are those of scikit-learn's ``TfidfVectorizer(stop_words="english",
sublinear_tf=True, dtype=float32)`` (see its "Text feature extraction" guide), computed here
with numpy and scipy so that a rebuild need not import scikit-learn: a text is lower-cased and
cut into tokens by ``(?u)\\b\\w\\w+\\b``, English stop words (scikit-learn's list, read from its
source file) are dropped; the weight of term ``t`` in a text where it occurs ``c`` times is
``(1 + ln c) · idf(t)`` with the smooth ``idf(t) = ln((1 + n) / (1 + df(t))) + 1`` (``n``
texts, ``df(t)`` of them contain ``t``), all in float32 as scikit-learn computes them; each row
is then divided by its L2 norm (sum of squares in float64, as ``sklearn.preprocessing.normalize``
does). The terms of a row are kept in sorted (vocabulary) order, so the cosine of two texts, the
float32 sum of the products over their common terms accumulated in term order by scipy's sparse
product, depends on those two rows only: not on the other texts, not on where a term falls in
the vocabulary, not on which block of rows it is computed in. (scikit-learn keeps a row's terms
in order of first appearance in the whole corpus, so its last bits depend on other texts; the
weights agree with it to float32 rounding, ``tests/test_rebuild_prepage.py``.)

**Best k.** For each text, the ``k`` others with the largest strictly positive cosine, ties by
position (total order: cosine descending, position ascending); so the result is a function of
the exact scores. The full computation runs over the upper block triangle of the symmetric
cosine matrix (``block`` × ``block`` products; the score of ``(i, j)`` equals that of
``(j, i)`` bit for bit, both being the same products summed in the same term order), on every
core when :func:`workers.worker_count` allows; memory O(block² + N·k).

**Incremental update** (:func:`related_indices` with the ``previous`` :class:`State`). Texts are
identified by a key (paper id and text). Let the new texts be the old ones with some removed and
some added, in the same number ``n`` (as when one abstract changes: its id changes, so its old
key is removed and a new one added), and the kept texts in the same relative order.

1. idf depends only on ``n`` and ``df(t)``. ``df`` changes only for the set ``T`` of terms that
   the removed and added texts do not have in equal numbers. So the vector of a kept text that
   contains no term of ``T`` is the same, bit for bit (same counts, same idf of its terms, same
   term order, same row-local arithmetic). Let ``A`` be the added texts and the kept texts that
   contain a term of ``T`` (their vectors may change), and ``U`` the other kept texts.
2. The cosine of two texts of ``U`` is unchanged (it depends on the two rows only, see above).
3. For a text ``a`` in ``A``, all its cosines are recomputed: row ``a`` against all texts. By
   symmetry that also gives the cosine of every ``u`` in ``U`` with ``a``.
4. For ``u`` in ``U``: if its previous best list holds a text that is removed or in ``A``, its row
   is recomputed in full. Otherwise its previous best list lies in ``U``; as the kept texts keep
   their relative order, it is exactly the best k of ``U`` (best of a set, all inside a subset,
   are the best of the subset), and the best k of all texts is the best k of (that list ∪ the
   cosines with ``A``); positive scores only: a positive text among the best of all is among
   the best of ``U`` or in ``A``.

Otherwise (different ``n``, texts reordered, another k, no previous state) everything is
computed again. ``tests/test_rebuild_prepage.py`` checks the update against the full
computation on corpus samples with many kinds of edits.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np

from . import workers

DEFAULT_K = 5
DEFAULT_BLOCK = 512
TOKEN = re.compile(r"(?u)\b\w\w+\b")
#: Below this many texts the full computation stays in one process.
MIN_PARALLEL_TEXTS = 2000
STATE_FORMAT = 1


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


def terms(text: str) -> Counter:
    """The term counts of ``text`` (scikit-learn's default analyzer with English stop words)."""
    stop = stop_words()
    return Counter(t for t in TOKEN.findall(text.lower()) if t not in stop)


# -- matrices -----------------------------------------------------------------------------------

def _csr(indptr, indices, data, shape):
    from scipy.sparse import csr_matrix
    return csr_matrix((data, indices, indptr), shape=shape)


def count_matrix(counts: Sequence[Counter], vocabulary: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts as CSR arrays ``(indptr int64, indices int32, counts float32)``, one row per text,
    columns by ``vocabulary`` (term → column), sorted within each row."""
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    indices: list[int] = []
    data: list[int] = []
    for row, counter in enumerate(counts):
        pairs = sorted((vocabulary[t], c) for t, c in counter.items())
        indices.extend(col for col, _ in pairs)
        data.extend(c for _, c in pairs)
        indptr[row + 1] = len(indices)
    return indptr, np.asarray(indices, dtype=np.int32), np.asarray(data, dtype=np.float32)


def weights(indptr: np.ndarray, indices: np.ndarray, counts: np.ndarray, vocabulary_size: int):
    """The L2-normalised TF-IDF matrix (scipy CSR float32, texts × vocabulary) of a count matrix.

    Row-local: a row's weights depend on its own counts and the idf of its terms only.
    """
    n = len(indptr) - 1
    df = np.bincount(indices, minlength=vocabulary_size).astype(np.float32)
    idf = np.full(vocabulary_size, n + 1, dtype=np.float32)
    idf /= df + np.float32(1.0)
    np.log(idf, out=idf)
    idf += np.float32(1.0)
    data = np.log(counts)
    data += np.float32(1.0)
    data *= idf[indices]
    squares = (data * data).astype(np.float64)
    lengths = np.diff(indptr)
    nonempty = lengths > 0
    sums = np.zeros(n, dtype=np.float64)
    if len(squares):
        sums[nonempty] = np.add.reduceat(squares, indptr[:-1][nonempty])
    norms = np.sqrt(sums)
    norms[norms == 0.0] = 1.0
    data = (data / np.repeat(norms, lengths)).astype(np.float32)
    return _csr(indptr, indices, data, (n, max(vocabulary_size, 1)))


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
    """A running best ``take`` per row (columns and scores), merged under the total order."""

    def __init__(self, rows: int, take: int, sentinel: int) -> None:
        self.cols = np.full((rows, take), sentinel, dtype=np.int64)
        self.scores = np.full((rows, take), -np.inf, dtype=np.float64)
        self.take = take

    def merge(self, rows, cols: np.ndarray, scores: np.ndarray) -> None:
        all_cols = np.concatenate([self.cols[rows], cols], axis=1)
        all_scores = np.concatenate([self.scores[rows], scores], axis=1)
        order = np.lexsort((all_cols, -all_scores), axis=1)[:, :self.take]
        self.cols[rows] = np.take_along_axis(all_cols, order, axis=1)
        self.scores[rows] = np.take_along_axis(all_scores, order, axis=1)

    def positive(self) -> "_Best":
        """Keep only strictly positive scores (the others become column ``n``, score ``-inf``)."""
        out = self.scores <= 0
        self.cols[out], self.scores[out] = self.cols.shape[0], -np.inf
        return self

    def lists(self) -> list[list[tuple[int, float]]]:
        return [[(int(j), float(v)) for j, v in zip(cols, values) if v > 0]
                for cols, values in zip(self.cols, self.scores)]


_MATRIX: list = []  # the matrix and block size, for forked workers


def _pair_job(pair: tuple[int, int]) -> tuple[int, int, tuple, tuple | None]:
    """Best ``take`` candidates of block pair ``(bi, bj)``: for the rows of ``bi`` and (if ``bj != bi``) of ``bj``."""
    matrix, block, take = _MATRIX
    bi, bj = pair
    a, c = bi * block, bj * block
    scores = (matrix[a:a + block] @ matrix[c:c + block].T).toarray().astype(np.float64)
    if bi == bj:
        np.fill_diagonal(scores, -1.0)  # a paper is not related to itself
    first = _block_best(scores, take)
    second = _block_best(scores.T, take) if bj != bi else None
    return bi, bj, first, second


def top_k_similar(matrix, k: int = DEFAULT_K, block: int = DEFAULT_BLOCK) -> list[list[tuple[int, float]]]:
    """For each row ``i`` of ``matrix`` (rows L2-normalised), up to ``k`` ``(j, cosine)`` with ``j != i``.

    Only strictly positive similarities count; ordered by decreasing cosine,
    ties by increasing ``j``. Only the upper block triangle is computed, one
    ``block`` × ``block`` product at a time (each used for the rows of both
    blocks), the block pairs on every core when there are many rows; every row
    keeps a running best ``k`` (merging is order-independent under the total
    order, so the result does not depend on which pair finished first).
    """
    n = matrix.shape[0]
    take = min(k, n - 1)
    if take <= 0:
        return [[] for _ in range(n)]
    best = _Best(n, take, n)
    count = (n + block - 1) // block
    pairs = [(bi, bj) for bi in range(count) for bj in range(bi, count)]
    _MATRIX[:] = [matrix, block, take]
    try:
        processes = min(workers.worker_count(), len(pairs))
        pool = workers.fork_pool(processes) if processes >= 2 and n >= MIN_PARALLEL_TEXTS else None
        if pool is None:
            results = map(_pair_job, pairs)
            _merge_pairs(best, results, block)
        else:
            with pool:
                _merge_pairs(best, pool.imap_unordered(_pair_job, pairs, chunksize=4), block)
    finally:
        _MATRIX[:] = []
    return best.lists()


def _merge_pairs(best: _Best, results, block: int) -> None:
    for bi, bj, (cols, values), second in results:
        a, c = bi * block, bj * block
        best.merge(slice(a, a + cols.shape[0]), cols + c, values)
        if second is not None:
            cols2, values2 = second
            best.merge(slice(c, c + cols2.shape[0]), cols2 + a, values2)


def top_k_rows(matrix, rows: np.ndarray, best: "_Best", also: np.ndarray | None = None,
               chunk: int = DEFAULT_BLOCK) -> None:
    """Merge into ``best`` the cosines of each row in ``rows`` (sorted) with every row of ``matrix``
    (itself excluded), and, when ``also`` (sorted rows, none in ``rows``) is given, the cosines of
    each row of ``also`` with the rows of ``rows`` (the same numbers, by symmetry)."""
    transposed = matrix.T.tocsr()
    for s in range(0, len(rows), chunk):
        part = rows[s:s + chunk]
        scores = (matrix[part] @ transposed).toarray().astype(np.float64)
        if also is not None and len(also):
            with_part = np.ascontiguousarray(scores[:, also].T)
            picked, picked_scores = _block_best(with_part, best.take)
            best.merge(also, part[picked], picked_scores)
        scores[np.arange(len(part)), part] = -1.0  # a paper is not related to itself
        cols, values = _block_best(scores, best.take)
        best.merge(part, cols, values)


# -- state of the previous build and the incremental update ---------------------------------------

@dataclass
class State:
    """What :func:`related_indices` needs from the previous build: the texts' ``keys`` (in order),
    the ``vocabulary`` (sorted terms), the count matrix (``indptr``, ``indices``, ``counts``) and the
    best lists (``best_cols``, ``best_scores``: texts × k, column ``n`` / score ``-inf`` = none), ``k``."""

    keys: list[str]
    vocabulary: list[str]
    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray
    best_cols: np.ndarray
    best_scores: np.ndarray
    k: int


def text_key(key: str, text: str) -> str:
    """The identity of a text: hex SHA-256 of its ``key`` (e.g. paper id) and the text."""
    return hashlib.sha256(f"{key}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def save_state(path: Path, state: State, code: str) -> None:
    """Write ``state`` (tagged with the code version ``code``) to ``path`` (``.npz``); raises OSError."""
    import os
    import tempfile
    path.parent.mkdir(parents=True, exist_ok=True)
    joined = lambda items: np.frombuffer("\n".join(items).encode("utf-8", "surrogatepass"), dtype=np.uint8)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, format=np.array([STATE_FORMAT, state.k]), code=joined([code]),
                     keys=joined(state.keys), vocabulary=joined(state.vocabulary), indptr=state.indptr,
                     indices=state.indices, counts=state.counts, best_cols=state.best_cols,
                     best_scores=state.best_scores)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_state(path: Path, code: str) -> State | None:
    """The state saved at ``path`` for code version ``code``; None when missing, of other code, or malformed."""
    try:
        with np.load(path, allow_pickle=False) as data:
            split = lambda name: bytes(data[name]).decode("utf-8", "surrogatepass").split("\n")
            fmt, k = (int(x) for x in data["format"])
            if fmt != STATE_FORMAT or split("code") != [code]:
                return None
            keys = split("keys")
            vocabulary = split("vocabulary") if len(data["vocabulary"]) else []
            state = State(keys, vocabulary, data["indptr"], data["indices"], data["counts"], data["best_cols"],
                          data["best_scores"], k)
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None
    n = len(state.keys)
    if not (state.indptr.shape == (n + 1,) and state.best_cols.shape == state.best_scores.shape
            and state.best_cols.shape[0] == n and len(state.indices) == len(state.counts) == state.indptr[-1]
            and (len(state.indices) == 0 or 0 <= state.indices.min() <= state.indices.max() < len(vocabulary))):
        return None
    return state


def _full(counts: list[Counter], keys: list[str], k: int, block: int) -> tuple[list, State]:
    vocabulary = sorted({t for c in counts for t in c})
    index = {t: i for i, t in enumerate(vocabulary)}
    indptr, indices, data = count_matrix(counts, index)
    matrix = weights(indptr, indices, data, len(vocabulary))
    lists = top_k_similar(matrix, k, block)
    take = max(min(k, len(keys) - 1), 0)
    best_cols = np.full((len(keys), take), len(keys), dtype=np.int64)
    best_scores = np.full((len(keys), take), -np.inf, dtype=np.float64)
    for i, row in enumerate(lists):
        for r, (j, v) in enumerate(row):
            best_cols[i, r], best_scores[i, r] = j, v
    return lists, State(keys, vocabulary, indptr, indices, data, best_cols, best_scores, k)


def _update(texts: Sequence[str], keys: list[str], k: int, previous: State) -> tuple[list, State] | None:
    """The incremental update (see the module docstring), or None when it does not apply."""
    n = len(keys)
    old_pos = {key: i for i, key in enumerate(previous.keys)}
    if previous.k != k or len(previous.keys) != n or len(old_pos) != n or len(set(keys)) != n:
        return None
    mapping = np.array([old_pos.get(key, -1) for key in keys], dtype=np.int64)
    kept = mapping >= 0
    if np.any(np.diff(mapping[kept]) <= 0):
        return None  # kept texts reordered: ties could break differently
    removed = np.ones(n, dtype=bool)
    removed[mapping[kept]] = False
    added_counts = {i: terms(texts[i]) for i in np.flatnonzero(~kept)}
    old_vocab = previous.vocabulary
    # term documents gained and lost
    delta: Counter = Counter()
    for counter in added_counts.values():
        delta.update(counter.keys())
    old_rows = np.flatnonzero(removed)
    for r in old_rows:
        for c in previous.indices[previous.indptr[r]:previous.indptr[r + 1]]:
            delta[old_vocab[c]] -= 1
    changed_terms = {t for t, d in delta.items() if d != 0}
    # new vocabulary: old terms still used, plus new ones
    old_df = np.bincount(previous.indices, minlength=len(old_vocab))
    new_df = {t: int(old_df[i]) for i, t in enumerate(old_vocab)}
    for t, d in delta.items():
        new_df[t] = new_df.get(t, 0) + d
    vocabulary = sorted(t for t, d in new_df.items() if d > 0)
    index = {t: i for i, t in enumerate(vocabulary)}
    remap = np.array([index.get(t, -1) for t in old_vocab], dtype=np.int64)
    # the new count matrix, rows in the new order
    lengths = np.diff(previous.indptr)
    pieces_idx, pieces_cnt, new_lengths = [], [], np.zeros(n, dtype=np.int64)
    for i in range(n):
        m = mapping[i]
        if m >= 0:
            a, b = previous.indptr[m], previous.indptr[m + 1]
            pieces_idx.append(remap[previous.indices[a:b]])
            pieces_cnt.append(previous.counts[a:b])
            new_lengths[i] = lengths[m]
        else:
            counter = added_counts[i]
            cols = sorted(index[t] for t in counter)
            inverse = {index[t]: t for t in counter}
            pieces_idx.append(np.asarray(cols, dtype=np.int64))
            pieces_cnt.append(np.asarray([counter[inverse[c]] for c in cols], dtype=np.float32))
            new_lengths[i] = len(cols)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(new_lengths, out=indptr[1:])
    indices = np.concatenate(pieces_idx).astype(np.int32) if pieces_idx else np.zeros(0, dtype=np.int32)
    counts = np.concatenate(pieces_cnt).astype(np.float32) if pieces_cnt else np.zeros(0, dtype=np.float32)
    if len(indices) and indices.min() < 0:
        return None  # a kept text uses a term that vanished: impossible unless the state is inconsistent
    matrix = weights(indptr, indices, counts, len(vocabulary))
    # affected rows: added texts and kept texts with a term whose df changed
    changed_cols = np.array(sorted(index[t] for t in changed_terms if t in index), dtype=np.int64)
    row_of_entry = np.repeat(np.arange(n), new_lengths)
    affected = np.zeros(n, dtype=bool)
    affected[~kept] = True
    if len(changed_cols):
        affected[np.unique(row_of_entry[np.isin(indices, changed_cols)])] = True
    # previous best lists, in new positions (-1: removed text)
    new_pos = np.full(n + 1, -1, dtype=np.int64)
    new_pos[mapping[kept]] = np.flatnonzero(kept)
    old_cols = previous.best_cols
    take = old_cols.shape[1]
    valid = old_cols < n
    translated = np.where(valid, new_pos[np.minimum(old_cols, n)], n)
    old_best = np.full((n, take), n, dtype=np.int64)
    old_best_scores = np.full((n, take), -np.inf, dtype=np.float64)
    old_best[kept] = translated[mapping[kept]]
    old_best_scores[kept] = previous.best_scores[mapping[kept]]
    hit = (old_best < 0) | np.where(old_best < n, affected[np.minimum(old_best, n - 1)], False)
    dirty = kept & ~affected & hit.any(axis=1)
    best = _Best(n, take, n)
    clean = np.flatnonzero(kept & ~affected & ~dirty)
    best.cols[clean], best.scores[clean] = old_best[clean], old_best_scores[clean]
    if take > 0:
        top_k_rows(matrix, np.flatnonzero(affected), best, clean)
        top_k_rows(matrix, np.flatnonzero(dirty), best)
    best.positive()
    _update.last = (int(affected.sum()), int(dirty.sum()))  # type: ignore[attr-defined]
    return best.lists(), State(keys, vocabulary, indptr, indices, counts, best.cols, best.scores, k)


def tfidf_matrix(texts: Sequence[str]):
    """The L2-normalised TF-IDF matrix (scipy CSR float32, ``len(texts)`` × vocabulary, terms sorted) of ``texts``.

    Texts without any word give all-zero rows.
    """
    counts = [terms(t) for t in texts]
    vocabulary = {t: i for i, t in enumerate(sorted({t for c in counts for t in c}))}
    return weights(*count_matrix(counts, vocabulary), len(vocabulary))


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
    keys = list(keys) if keys is not None else [text_key("", t) for t in texts]
    result = _update(texts, keys, k, previous) if previous is not None else None
    if result is None:
        result = _full([terms(t) for t in texts], keys, k, block)
    lists, state = result
    return [[j for j, _ in row] for row in lists], state


def paper_text(paper) -> str:
    """The text a paper is compared by: its title and abstract as plain text."""
    return f"{paper.title_text}. {paper.rendered.text}"


def related_papers(papers: Sequence, k: int = DEFAULT_K, block: int = DEFAULT_BLOCK,
                   previous: State | None = None) -> tuple[dict[str, list], State]:
    """``({paper.id: [related Paper, …]}, state)`` over title and abstract text (:func:`paper_text`);
    ``previous`` as for :func:`related_indices`."""
    texts = [paper_text(p) for p in papers]
    keys = [text_key(p.id, t) for p, t in zip(papers, texts)]
    rows, state = incremental_related(texts, keys, k, block, previous)
    return {p.id: [papers[j] for j in row] for p, row in zip(papers, rows)}, state
