"""The paper map: every paper a point, papers with similar titles and abstracts close, in named clusters.

**Layout.** t-SNE (van der Maaten & Hinton 2008, "Visualizing Data using t-SNE", JMLR 9) by openTSNE
(Poličar, Stražar & Zupan 2024, https://opentsne.readthedocs.io), with the FFT-accelerated gradient
(Linderman et al. 2019, "Fast interpolation-based t-SNE", Nature Methods 16). It reuses the related
papers' computation (:mod:`site_builder.model.related`) rather than vectorising the texts again:

- the affinities are the *uniform kNN* ones (Böhm, Berens & Kobak 2022, "Attraction-repulsion spectrum in
  neighbor embeddings", JMLR 23, §3: t-SNE with uniform weights on a kNN graph looks like t-SNE with
  perplexity ≈ k/3) on the related papers' exact TF-IDF cosine neighbours: each paper's up to ``k`` (5) related
  papers, ``P = (A + Aᵀ) / sum``; no approximate neighbour search is run;
- the initialisation is the first two principal components (scaled to standard deviation 1e-4, openTSNE's
  ``initialization.pca``) of the TF-IDF rows reduced by scikit-learn's ``TruncatedSVD`` (randomized, fixed
  seed), as Kobak & Linderman 2021 ("Initialization is critical for preserving global data structure",
  Nature Biotechnology 39) recommend;
- a short optimisation (:data:`EARLY_ITERATIONS` with exaggeration 12, then :data:`ITERATIONS`; learning
  rate n/12), two interpolation points per interval: about 1 s at 10,000 papers, where openTSNE's defaults
  (250 + 500 iterations, three points, its own neighbour search) take about ten times that, for a map that looks
  alike (``BENCHMARKS.md``).

Coordinates are scaled into ``[0, GRID]`` (both axes by the same factor) and rounded to integers, so the
map data is small and the same bytes for the same input (fixed seeds; the result does not depend on the
number of threads, ``tests/model/test_layout.py``).

**Clusters.** k-means (scikit-learn ``KMeans``, fixed seed) on the map's coordinates, so a cluster is a
group of papers that lie together on the map; ``round(sqrt(n) / 3)`` clusters, between 1 and
:data:`MAX_CLUSTERS`. Each is named by its most distinctive terms, class-based TF-IDF (Grootendorst 2022,
"BERTopic", arXiv:2203.05794, §3.3): for term ``t`` and cluster ``c``, ``tf(t, c) · ln(1 + A / f(t))`` with
``tf`` the share of the cluster's papers holding ``t``, ``f(t)`` the papers holding it overall and ``A``
the mean cluster size; a term must be held by at least two of the cluster's papers. Clusters are numbered
by size (largest first, ties by their first paper).

The whole is a function of the texts (the related papers' state, which is one): a build whose texts are
those of the previous build takes the layout from the cache (:func:`cached_layout`); any other computes it
again (a rebuild must give the bytes of a build without cache, so a changed paper is not placed by its
neighbours into the old map).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from ..incremental.store import array_bytes, array_of
from .related import SCALE, State

#: Map coordinates run from 0 to this (integers).
GRID = 1000
#: Iterations with early exaggeration (12), then without.
EARLY_ITERATIONS = 75
ITERATIONS = 125
#: At most this many clusters; terms shown per cluster.
MAX_CLUSTERS = 30
TERMS = 3
#: The layout in the build cache (:meth:`Store.cached <site_builder.incremental.store.Store.cached>`).
LAYOUT_STATE = "layout.marshal"
#: The TF-IDF rows are reduced to this many dimensions for the initialisation (it takes the first two principal
#: components of these).
DIMENSIONS = 10
#: The seed of every random choice (SVD, t-SNE, k-means).
SEED = 0


@dataclass(frozen=True)
class Cluster:
    """A group of nearby papers: its ``number`` (0 = the largest), ``terms`` (most distinctive first),
    ``size`` (papers) and where its label stands on the map (``x``, ``y``: the median of its papers)."""

    number: int
    terms: tuple[str, ...]
    size: int
    x: int
    y: int

    @property
    def label(self) -> str:
        """The terms joined for display, e.g. ``"graph · node · gnn"`` (``"papers"`` when it has none)."""
        return " · ".join(self.terms) or "papers"


@dataclass(frozen=True)
class Layout:
    """The map of ``n`` papers (in the order of the related papers' state, the site's order): integer
    coordinates ``x``, ``y`` in ``[0, GRID]`` and ``cluster`` numbers (int32 arrays of length n), and the
    ``clusters``."""

    x: np.ndarray
    y: np.ndarray
    cluster: np.ndarray
    clusters: tuple[Cluster, ...]


def tfidf_rows(state: State):
    """The related papers' TF-IDF matrix (scipy CSR float32, texts × vocabulary), from the state's quantized
    weights (each within 2**-25 of scikit-learn's ``TfidfVectorizer`` weight)."""
    from scipy.sparse import csr_matrix

    data = (state.weights.astype(np.float64) / SCALE).astype(np.float32)
    return csr_matrix((data, state.indices, state.indptr), shape=(len(state.keys), max(len(state.vocabulary), 1)))


def neighbour_affinities(state: State):
    """Uniform kNN affinities (scipy CSR float64, n × n, symmetric, summing to 1; all zero without any
    neighbour) on each text's related papers (its best ``k`` of positive score: exactly those of a full
    computation after an incremental update too, where the spare candidates beyond ``k`` may differ)."""
    from scipy.sparse import csr_matrix

    n = len(state.keys)
    cols, scores = state.best_cols[:, :state.k], state.best_scores[:, :state.k]
    held = (scores > 0) & (cols < n)
    rows = np.repeat(np.arange(n), held.sum(axis=1))
    graph = csr_matrix((np.ones(len(rows)), (rows, cols[held])), shape=(n, n))
    graph = (graph + graph.T).tocsr()
    total = graph.sum()
    return graph / total if total else graph


def initial_positions(state: State) -> np.ndarray:
    """The PCA initialisation (n × 2 float64, standard deviation 1e-4 on the first axis) of the TF-IDF rows
    reduced to at most :data:`DIMENSIONS` dimensions by ``TruncatedSVD`` (two power iterations); zeros when there are fewer than 3 texts."""
    from openTSNE import initialization
    from sklearn.decomposition import TruncatedSVD

    n = len(state.keys)
    matrix = tfidf_rows(state)
    dims = min(DIMENSIONS, n - 1, matrix.shape[1] - 1)
    if n < 3 or dims < 2:
        return np.zeros((n, 2))
    reduced = TruncatedSVD(dims, n_iter=2, random_state=SEED).fit_transform(matrix)
    return initialization.pca(reduced - reduced.mean(axis=0), random_state=SEED)


def embed(state: State, threads: int = 1) -> np.ndarray:
    """The t-SNE map (n × 2 float64) of the state's texts (see the module docstring); the initial
    positions alone when no text has a neighbour or there are fewer than 3 texts."""
    from openTSNE import TSNEEmbedding, affinity

    start = initial_positions(state)
    affinities = neighbour_affinities(state)
    if len(start) < 3 or not affinities.nnz:
        return start
    embedding = TSNEEmbedding(start, affinity.PrecomputedAffinities(affinities, normalize=False), n_jobs=threads,
                              negative_gradient_method="fft", n_interpolation_points=2, random_state=SEED,
                              verbose=False)
    embedding = embedding.optimize(EARLY_ITERATIONS, exaggeration=12, momentum=0.5)
    return np.asarray(embedding.optimize(ITERATIONS, momentum=0.8))


def on_grid(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``points`` (n × 2) moved and scaled by one factor into ``[0, GRID]``, rounded: ``(x, y)`` int32."""
    if not len(points):
        return np.zeros(0, np.int32), np.zeros(0, np.int32)
    low = points.min(axis=0)
    span = float(np.ptp(points, axis=0).max()) or 1.0
    scaled = np.rint((points - low) * (GRID / span)).astype(np.int32)
    return scaled[:, 0].copy(), scaled[:, 1].copy()


def cluster_count(n: int) -> int:
    """How many clusters ``n`` papers are grouped in: ``round(sqrt(n) / 3)`` within 1 and :data:`MAX_CLUSTERS`
    (and at most ``n``)."""
    return max(min(round(math.sqrt(n) / 3), MAX_CLUSTERS, n), 1) if n else 0


def grouped(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each point's cluster (int32), numbered by size, largest first (ties by first point): k-means on the
    coordinates (:func:`cluster_count` clusters, fixed seed)."""
    n = len(x)
    count = cluster_count(len(set(zip(x.tolist(), y.tolist()))))
    if count <= 1:
        return np.zeros(n, np.int32)
    from sklearn.cluster import KMeans

    points = np.column_stack([x, y]).astype(np.float64)
    labels = KMeans(count, n_init=3, random_state=SEED).fit_predict(points)
    sizes = np.bincount(labels, minlength=count)
    first = np.array([np.flatnonzero(labels == c)[0] for c in range(count)])
    order = sorted(range(count), key=lambda c: (-sizes[c], first[c]))
    renumber = np.empty(count, np.int32)
    renumber[order] = np.arange(count, dtype=np.int32)
    return renumber[labels]


def distinctive_terms(state: State, cluster: np.ndarray, count: int) -> list[tuple[str, ...]]:
    """Per cluster ``0 … count-1``, its :data:`TERMS` most distinctive terms (class-based TF-IDF, see the
    module docstring; ties by term), each held by at least two of its papers."""
    from scipy.sparse import csr_matrix

    n, vocabulary = len(state.keys), len(state.vocabulary)
    if not n or not vocabulary:
        return [() for _ in range(count)]
    holds = csr_matrix((np.ones(len(state.indices)), state.indices, state.indptr), shape=(n, vocabulary))
    member = csr_matrix((np.ones(n), (cluster, np.arange(n))), shape=(count, n))
    held = np.asarray((member @ holds).todense())  # clusters × terms: papers holding the term
    sizes = np.bincount(cluster, minlength=count).astype(np.float64)
    weight = np.log1p((n / count) / np.maximum(held.sum(axis=0), 1.0))
    scores = np.where(held >= 2, held / np.maximum(sizes, 1.0)[:, None] * weight, 0.0)
    names = state.vocabulary
    return [tuple(names[t] for t in sorted(np.flatnonzero(row), key=lambda t: (-row[t], names[t]))[:TERMS])
            for row in scores]


def compute_layout(state: State, threads: int = 1) -> Layout:
    """The :class:`Layout` of the texts of ``state`` (a :class:`~site_builder.model.related.State`), with
    ``threads`` threads for t-SNE and for BLAS and OpenMP (``threadpoolctl``; one by default: the build's other
    processes use the other cores, and on a busy machine more threads cost more than they save)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(threads):
        x, y = on_grid(embed(state, threads))
        cluster = grouped(x, y)
    count = int(cluster.max()) + 1 if len(cluster) else 0
    terms = distinctive_terms(state, cluster, count)
    clusters = tuple(Cluster(c, terms[c], int((cluster == c).sum()), int(np.median(x[cluster == c])),
                             int(np.median(y[cluster == c]))) for c in range(count))
    return Layout(x, y, cluster, clusters)


def layout_value(layout: Layout) -> dict:
    """``layout`` as plain data for the build cache: the arrays as int32 bytes, the clusters as lists."""
    return {"x": array_bytes(layout.x, "<i4"), "y": array_bytes(layout.y, "<i4"),
            "cluster": array_bytes(layout.cluster, "<i4"),
            "clusters": [[list(c.terms), c.size, c.x, c.y] for c in layout.clusters]}


def layout_of(value: dict, n: int) -> Layout | None:
    """The :class:`Layout` of :func:`layout_value`'s dict for ``n`` papers; None when it is not one."""
    try:
        x, y, cluster = (array_of(value[f], "<i4") for f in ("x", "y", "cluster"))
        clusters = tuple(Cluster(i, tuple(map(str, terms)), int(size), int(cx), int(cy))
                         for i, (terms, size, cx, cy) in enumerate(value["clusters"]))
    except (KeyError, TypeError, ValueError):
        return None
    if not (len(x) == len(y) == len(cluster) == n) or (n and not 0 <= cluster.min() <= cluster.max() < len(clusters)):
        return None
    return Layout(x, y, cluster, clusters)


def layout_key(state: State) -> str:
    """The digest the layout is a function of: the texts' keys (ids and texts) in order, the related papers'
    ``k`` and the layout's parameters."""
    digest = hashlib.sha256(f"{GRID} {EARLY_ITERATIONS} {ITERATIONS} {MAX_CLUSTERS} {TERMS} {SEED} {state.k}\0"
                            .encode())
    digest.update("\0".join(state.keys).encode())
    return digest.hexdigest()


def cached_layout(state: State, cache=None) -> Layout:
    """:func:`compute_layout` of ``state``, taken from the build cache (``cache``: a
    :class:`~site_builder.incremental.cache.BuildCache`; None or disabled: computed) when the previous build
    had the same texts (:func:`layout_key`); a malformed cache file is a warning, then computed."""
    if cache is None or not cache.enabled:
        return compute_layout(state)
    n = len(state.keys)
    return cache.store.cached(LAYOUT_STATE, layout_key(state), lambda: compute_layout(state), layout_value,
                              lambda saved: layout_of(saved, n), "a paper map layout")
