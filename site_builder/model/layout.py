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
by size (largest first, ties by their first paper) when laid out; papers placed later ("Reuse") keep the
numbers and names.

**Reuse.** A cold build (and one without cache) computes the whole layout; the build cache keeps it with each
point's text key (:data:`LAYOUT_STATE`, :class:`MapState`). A rebuild whose texts are those of the previous build
takes it as it is; one where few texts changed, were added or removed places them by their neighbours instead of
running t-SNE again (:func:`placed_layout`): the unchanged papers keep their points; each changed or new paper joins
the cluster holding the largest share of its related papers' scores (the t-SNE neighbours above) and stands at the
score-weighted mean of those related papers in that cluster, nudged by :data:`NUDGE` grid units in a direction drawn
from its key; removed papers go; the clusters keep their numbers and terms, their sizes and label positions are
counted again. Once the papers so placed since the last full layout would be more than :data:`PLACED_SHARE` of the
papers (or a cluster would be left empty), the layout is computed whole again. The map of such a rebuild is
therefore not a cold build's: what the layout shows (``map-data.js``, ``map.html`` and the venue pages' topics)
depends on the build history, everything else does not (``tests/incremental/test_cache.py``); the same input and the
same cache give the same bytes.
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
#: The last build's map in the build cache (:meth:`Store.keep <site_builder.incremental.store.Store.keep>`,
#: :func:`map_state_value`).
LAYOUT_STATE = "layout.marshal"
#: A rebuild places changed papers by their neighbours while the papers so placed since the last full layout are
#: at most this share of the papers (``BENCHMARKS.md``, issue 21: how far the map then is from a full layout's).
PLACED_SHARE = 0.05
#: A placed paper stands this many grid units from its neighbours' weighted mean, so that it is not hidden under one.
NUDGE = 4
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


def spread(n: int) -> np.ndarray:
    """``n`` distinct starting points (n × 2 float64) on a circle of radius 1e-4 (the scale of the PCA start), for
    texts whose TF-IDF rows do not spread (found by a new-user pass: three papers "We study it." made the build
    die in openTSNE with a segmentation fault)."""
    angles = 2 * math.pi * np.arange(n) / max(n, 1)
    return 1e-4 * np.column_stack([np.cos(angles), np.sin(angles)])


def embed(state: State, threads: int = 1) -> np.ndarray:
    """The t-SNE map (n × 2 float64) of the state's texts (see the module docstring); the initial
    positions alone when no text has a neighbour or there are fewer than 3 texts."""
    from openTSNE import TSNEEmbedding, affinity

    start = initial_positions(state)
    affinities = neighbour_affinities(state)
    if len(start) < 3 or not affinities.nnz:
        return start
    if not np.isfinite(start).all() or not np.ptp(start, axis=0).any():
        start = spread(len(start))  # texts of no distinct terms: openTSNE's FFT crashes on coinciding points
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


@dataclass(frozen=True)
class MapState:
    """The map a build keeps for the next (:data:`LAYOUT_STATE`): its ``layout``, each point's text key (``keys``,
    the related papers' :attr:`State.keys <site_builder.model.related.State.keys>`: paper id and text), how many
    papers were ``placed`` by their neighbours since the last full layout, and the related papers' ``k``."""

    keys: list[str]
    layout: Layout
    placed: int
    k: int


#: What the last :func:`kept_layout` did, for tests and benchmarks: ``"full"`` (t-SNE ran), ``"placed"`` (papers
#: placed by their neighbours this build) and ``"kept"`` (the previous map taken as it was).
LAST_LAYOUT: dict[str, int] = {}


def map_state_value(state: MapState) -> dict:
    """``state`` as plain data for the build cache: :func:`layout_value`'s fields, ``keys`` (list of str),
    ``placed`` and ``k`` (int)."""
    return {"keys": list(state.keys), "placed": state.placed, "k": state.k, **layout_value(state.layout)}


def map_state_of(value: dict) -> MapState | None:
    """The :class:`MapState` of :func:`map_state_value`'s dict; None when it is not one."""
    keys, placed, k = value.get("keys"), value.get("placed"), value.get("k")
    if type(keys) is not list or not all(type(key) is str for key in keys) or type(placed) is not int \
            or type(k) is not int or placed < 0:  # plain data from marshal
        return None
    layout = layout_of(value, len(keys))
    return MapState(keys, layout, placed, k) if layout is not None else None


def _nudged(key: str, x: float, y: float) -> tuple[int, int]:
    """``(x, y)`` moved :data:`NUDGE` grid units in a direction drawn from ``key`` (SHA-256), rounded, on the grid."""
    turn = int.from_bytes(hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()[:4], "little") / 2 ** 32
    angle = 2 * math.pi * turn
    return (int(min(max(round(x + NUDGE * math.cos(angle)), 0), GRID)),
            int(min(max(round(y + NUDGE * math.sin(angle)), 0), GRID)))


def _by_neighbours(state: State, i: int, x: np.ndarray, y: np.ndarray, cluster: np.ndarray,
                   placed: np.ndarray) -> tuple[int, int, int] | None:
    """Where text ``i`` goes among its placed related papers (``placed``: a mask): ``(x, y, cluster)``, the cluster
    with the largest sum of their scores (ties: the lower number) and the score-weighted mean of those in it; None
    when none of its related papers is placed."""
    n = len(state.keys)
    held = [(int(c), float(s)) for c, s in zip(state.best_cols[i, :state.k], state.best_scores[i, :state.k])
            if s > 0 and c < n and placed[c]]
    if not held:
        return None
    votes: dict[int, float] = {}
    for c, score in held:
        votes[int(cluster[c])] = votes.get(int(cluster[c]), 0.0) + score
    chosen = min(votes, key=lambda number: (-votes[number], number))
    members = [(c, score) for c, score in held if cluster[c] == chosen]
    total = sum(score for _, score in members)
    mean_x = sum(score * float(x[c]) for c, score in members) / total
    mean_y = sum(score * float(y[c]) for c, score in members) / total
    return (*_nudged(state.keys[i], mean_x, mean_y), chosen)


def _place(state: State, x: np.ndarray, y: np.ndarray, cluster: np.ndarray, todo: list[int]) -> None:
    """Give the texts ``todo`` (positions, in order) a point and a cluster in ``x``, ``y``, ``cluster`` (in place)
    by their related papers: in rounds, each text whose related papers include one placed before the round
    (:func:`_by_neighbours`); those none of whose related papers is ever placed stand at the median point of the
    others (nudged) in the cluster of the point nearest to it (ties: the first)."""
    placed = np.ones(len(state.keys), dtype=bool)
    placed[todo] = False
    while todo:
        spots = {i: _by_neighbours(state, i, x, y, cluster, placed) for i in todo}
        done = [i for i in todo if spots[i] is not None]
        if not done:
            break
        for i in done:
            x[i], y[i], cluster[i] = spots[i]
            placed[i] = True
        todo = [i for i in todo if spots[i] is None]
    others = np.flatnonzero(placed)
    for i in todo:
        px, py = _nudged(state.keys[i], float(np.median(x[others])), float(np.median(y[others])))
        nearest = others[int(np.argmin((x[others] - px) ** 2 + (y[others] - py) ** 2))]
        x[i], y[i], cluster[i] = px, py, cluster[nearest]


def placed_layout(state: State, previous: MapState) -> MapState | None:
    """The map of ``state``'s texts made from the ``previous`` build's without t-SNE (see the module docstring,
    "Reuse"): unchanged texts (same key) keep their points and clusters, the others are placed by their related
    papers (:func:`_place`). None when it does not apply: another ``k``, no text kept, the papers placed since
    the last full layout (``previous.placed`` and this build's changes: the more of the texts added and removed)
    more than :data:`PLACED_SHARE` of the texts, or a cluster left empty."""
    n = len(state.keys)
    old = {key: i for i, key in enumerate(previous.keys)}
    where = np.fromiter((old.get(key, -1) for key in state.keys), dtype=np.int64, count=n)
    added = np.flatnonzero(where < 0)
    kept = n - len(added)
    placed = previous.placed + max(len(added), len(previous.keys) - kept)
    if previous.k != state.k or not kept or placed > PLACED_SHARE * n:
        return None
    before = previous.layout
    x, y, cluster = (np.where(where < 0, 0, values[where]).astype(np.int32) for values in
                     (before.x, before.y, before.cluster))
    _place(state, x, y, cluster, added.tolist())
    count = len(before.clusters)
    sizes = np.bincount(cluster, minlength=count)
    if not sizes.all():
        return None
    clusters = tuple(Cluster(c.number, c.terms, int(sizes[c.number]), int(np.median(x[cluster == c.number])),
                             int(np.median(y[cluster == c.number]))) for c in before.clusters)
    return MapState(list(state.keys), Layout(x, y, cluster, clusters), placed, state.k)


def load_map_state(store) -> MapState | None:
    """The map the previous build kept in ``store`` (a :class:`~site_builder.incremental.store.Store`) as
    :data:`LAYOUT_STATE`; None when there is none or it is of another code version, or when it is malformed (with
    a warning ``cache file corrupt, ignored: not a paper map``, :meth:`Store.corrupt
    <site_builder.incremental.store.Store.corrupt>`)."""
    value = store.kept(LAYOUT_STATE)
    if value is None:
        return None
    state = map_state_of(value)
    if state is None:
        store.corrupt(store.path(LAYOUT_STATE), "not a paper map")
    return state


def kept_layout(state: State, cache=None) -> Layout:
    """The :class:`Layout` of ``state``'s texts: without a cache (``cache``: a
    :class:`~site_builder.incremental.cache.BuildCache`, None or disabled) or a map kept by the previous build
    (:func:`load_map_state`), :func:`compute_layout`; with one, that map as it is when the texts are its texts,
    else :func:`placed_layout` when it applies, else :func:`compute_layout`. The map made is kept for the next
    build (:meth:`BuildCache.defer <site_builder.incremental.cache.BuildCache.defer>`). Sets :data:`LAST_LAYOUT`."""
    previous = load_map_state(cache.store) if cache is not None and cache.enabled else None
    if previous is not None and previous.keys == state.keys and previous.k == state.k:
        LAST_LAYOUT.update(full=0, placed=0, kept=1)
        return previous.layout
    made = placed_layout(state, previous) if previous is not None else None
    LAST_LAYOUT.update(full=int(made is None), placed=made.placed - previous.placed if made else 0, kept=0)
    if made is None:
        made = MapState(list(state.keys), compute_layout(state), 0, state.k)
    if cache is not None and cache.enabled:
        cache.defer(lambda: cache.store.keep(LAYOUT_STATE, map_state_value(made)))
    return made.layout
