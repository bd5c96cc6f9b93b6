"""The paper map (site_builder/model/layout.py) on the tests' sample of real papers."""

from __future__ import annotations

import numpy as np
import pytest

from papers_sample import sample_texts
from site_builder.model import layout, related


@pytest.fixture(scope="module")
def state() -> related.State:
    return related.incremental_related(sample_texts(), None)[1]


@pytest.fixture(scope="module")
def sample_layout(state) -> layout.Layout:
    return layout.compute_layout(state)


def test_every_paper_is_a_point_on_the_grid(state, sample_layout):
    n = len(state.keys)
    assert len(sample_layout.x) == len(sample_layout.y) == len(sample_layout.cluster) == n
    for axis in (sample_layout.x, sample_layout.y):
        assert axis.min() >= 0 and axis.max() <= layout.GRID
    assert max(np.ptp(sample_layout.x), np.ptp(sample_layout.y)) == layout.GRID  # scaled to fill the grid
    assert len(set(zip(sample_layout.x.tolist(), sample_layout.y.tolist()))) > 0.9 * n  # not piled up


def test_related_papers_lie_closer_than_other_papers(state, sample_layout):
    """The map keeps the text's neighbourhoods: a paper's related papers are far nearer on the map than the
    average paper."""
    points = np.column_stack([sample_layout.x, sample_layout.y]).astype(float)
    n = len(points)
    near, everyone = [], []
    for i, row in enumerate(state.lists()):
        if row:
            near.append(np.linalg.norm(points[row] - points[i], axis=1).mean())
            everyone.append(np.linalg.norm(points - points[i], axis=1).sum() / (n - 1))
    assert len(near) > 0.9 * n
    assert np.median(near) < 0.4 * np.median(everyone)


def test_the_same_texts_give_the_same_map_whatever_the_threads(state, sample_layout):
    again = layout.compute_layout(state, threads=2)
    assert np.array_equal(again.x, sample_layout.x) and np.array_equal(again.y, sample_layout.y)
    assert np.array_equal(again.cluster, sample_layout.cluster) and again.clusters == sample_layout.clusters


def test_clusters_are_numbered_by_size_and_named_by_terms_their_papers_hold(state, sample_layout):
    n = len(state.keys)
    clusters = sample_layout.clusters
    assert len(clusters) == layout.cluster_count(n) > 1
    assert [c.number for c in clusters] == list(range(len(clusters)))
    sizes = [c.size for c in clusters]
    assert sizes == sorted(sizes, reverse=True) and sum(sizes) == n
    assert sizes == np.bincount(sample_layout.cluster).tolist()
    texts = sample_texts()
    for c in clusters:
        assert 1 <= len(c.terms) <= layout.TERMS
        members = [texts[i] for i in np.flatnonzero(sample_layout.cluster == c.number)]
        for term in c.terms:
            holding = sum(term in related.terms(text) for text in members)
            assert holding >= 2
            # distinctive: the term is more common in the cluster than in the whole sample
            assert holding / len(members) > sum(term in related.terms(t) for t in texts) / n
        inside = sample_layout.cluster == c.number
        assert min(sample_layout.x[inside]) <= c.x <= max(sample_layout.x[inside])


def test_a_cluster_is_a_region_of_the_map(sample_layout):
    """k-means on the coordinates: each point is nearer its own cluster's centre than most other centres."""
    points = np.column_stack([sample_layout.x, sample_layout.y]).astype(float)
    centres = np.array([points[sample_layout.cluster == c].mean(axis=0) for c in range(len(sample_layout.clusters))])
    nearest = np.linalg.norm(points[:, None, :] - centres[None], axis=2).argmin(axis=1)
    assert (nearest == sample_layout.cluster).mean() > 0.95


@pytest.mark.parametrize("texts", [[], ["Only one paper about graphs."], ["Graphs and nodes.", "Graphs of nodes."],
                                   ["alpha beta", "gamma delta", "epsilon zeta", "eta theta"]])
def test_small_and_unconnected_inputs_give_a_map(texts):
    """No text, one, two, and texts that share no word (no neighbour at all: no t-SNE)."""
    state = related.incremental_related(texts, None)[1]
    result = layout.compute_layout(state)
    assert len(result.x) == len(texts)
    assert sum(c.size for c in result.clusters) == len(texts)
    if texts:
        assert result.x.max() <= layout.GRID and result.cluster.max() < len(result.clusters)


def test_the_cache_value_gives_the_layout_back_and_a_malformed_one_is_refused(state, sample_layout):
    n = len(state.keys)
    value = layout.layout_value(sample_layout)
    back = layout.layout_of(value, n)
    assert np.array_equal(back.x, sample_layout.x) and np.array_equal(back.cluster, sample_layout.cluster)
    assert back.clusters == sample_layout.clusters
    assert layout.layout_of(value, n + 1) is None
    assert layout.layout_of({**value, "x": b"\0"}, n) is None
    assert layout.layout_of({k: v for k, v in value.items() if k != "clusters"}, n) is None
    assert layout.layout_of({**value, "clusters": value["clusters"][:1]}, n) is None


def test_the_key_follows_the_texts(state):
    texts = sample_texts()
    edited = related.incremental_related([texts[0] + " More words.", *texts[1:]], None)[1]
    assert layout.layout_key(state) == layout.layout_key(related.incremental_related(texts, None)[1])
    assert layout.layout_key(edited) != layout.layout_key(state)
