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
                                   ["alpha beta", "gamma delta", "epsilon zeta", "eta theta"],
                                   ["Paper 1 We study it.", "Paper 2 We study it.", "Paper 3 We study it."]])
def test_small_and_unconnected_inputs_give_a_map(texts):
    """No text, one, two, texts that share no word (no neighbour at all: no t-SNE), and texts that share their
    only word (neighbours, but no TF-IDF spread to start from: openTSNE crashed the build, found by a new-user
    pass)."""
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


def kept_map(state, sample_layout) -> layout.MapState:
    return layout.MapState(list(state.keys), sample_layout, 0, state.k)


def edited_state(previous: related.State, texts: list[str]) -> related.State:
    """The related papers' state of ``texts``, updated from ``previous`` as a rebuild does."""
    return related.incremental_related(texts, None, previous=previous)[1]


def test_changed_texts_are_placed_by_their_related_papers_and_the_others_keep_their_points(state, sample_layout):
    texts = sample_texts()
    changed = list(range(3, len(texts), 29))  # 20 papers, 3.5 %
    for i in changed:
        texts[i] += " We also release our code."
    after = edited_state(state, texts)
    placed = layout.placed_layout(after, kept_map(state, sample_layout))
    assert placed is not None and placed.placed == len(changed) and placed.keys == after.keys
    new = placed.layout
    others = ~np.isin(np.arange(len(texts)), changed)
    for mine, before in ((new.x, sample_layout.x), (new.y, sample_layout.y), (new.cluster, sample_layout.cluster)):
        assert len(mine) == len(texts) and np.array_equal(mine[others], before[others])
    points = np.column_stack([new.x, new.y]).astype(float)
    near, everyone = [], []
    for i in changed:
        neighbours = after.lists()[i]
        # in a cluster of its related papers, among those of them in it (within the nudge)
        in_cluster = [j for j in neighbours if new.cluster[j] == new.cluster[i]]
        assert in_cluster
        low, high = points[in_cluster].min(axis=0) - layout.NUDGE, points[in_cluster].max(axis=0) + layout.NUDGE
        assert (low <= points[i]).all() and (points[i] <= high).all()
        near.append(np.linalg.norm(points[neighbours] - points[i], axis=1).mean())
        everyone.append(np.linalg.norm(points - points[i], axis=1).mean())
    assert np.median(near) < 0.4 * np.median(everyone)  # as test_related_papers_lie_closer_than_other_papers
    assert [c.terms for c in new.clusters] == [c.terms for c in sample_layout.clusters]  # the names stay
    assert [c.size for c in new.clusters] == np.bincount(new.cluster, minlength=len(new.clusters)).tolist()


def test_removed_texts_leave_the_map_and_added_ones_join_it_each_once(state, sample_layout):
    texts = sample_texts()
    kept = texts[:100] + texts[110:]  # ten removed ...
    added = kept + ["Graph neural networks for molecules. We learn node embeddings of molecular graphs.",
                    "Tokens alone: zyxwv qutsr"]  # ... two added, one of them sharing no word with any other
    after = edited_state(state, added)
    placed = layout.placed_layout(after, kept_map(state, sample_layout))
    assert placed is not None and placed.placed == 10
    n = len(added)
    assert len(placed.layout.x) == len(placed.layout.cluster) == n and placed.keys == after.keys
    assert sum(c.size for c in placed.layout.clusters) == n
    assert placed.layout.x.max() <= layout.GRID and placed.layout.y.min() >= 0
    moved = {key: i for i, key in enumerate(state.keys)}
    for i, key in enumerate(after.keys[:-2]):  # every kept text where it was
        assert (placed.layout.x[i], placed.layout.y[i]) == (sample_layout.x[moved[key]], sample_layout.y[moved[key]])


def test_too_many_changes_or_another_k_ask_for_the_full_layout(state, sample_layout):
    texts = sample_texts()
    share = int(layout.PLACED_SHARE * len(texts))
    few = edited_state(state, [t + " Edited." if i < share else t for i, t in enumerate(texts)])
    assert layout.placed_layout(few, kept_map(state, sample_layout)) is not None
    many = edited_state(state, [t + " Edited." if i <= share else t for i, t in enumerate(texts)])
    assert layout.placed_layout(many, kept_map(state, sample_layout)) is None
    # placed one by one, they add up until the next full layout
    one = edited_state(state, [t + " Edited." if i == 0 else t for i, t in enumerate(texts)])
    assert layout.placed_layout(one, layout.MapState(list(state.keys), sample_layout, share, state.k)) is None
    assert layout.placed_layout(one, layout.MapState(list(state.keys), sample_layout, 0, state.k + 1)) is None


def test_the_kept_map_gives_itself_back_and_a_malformed_one_is_refused(state, sample_layout):
    kept = layout.MapState(list(state.keys), sample_layout, 3, state.k)
    back = layout.map_state_of(layout.map_state_value(kept))
    assert back.keys == kept.keys and (back.placed, back.k) == (3, state.k)
    assert np.array_equal(back.layout.y, sample_layout.y) and back.layout.clusters == sample_layout.clusters
    value = layout.map_state_value(kept)
    for broken in ({**value, "keys": value["keys"][1:]}, {**value, "placed": -1}, {**value, "k": "5"},
                   {k: v for k, v in value.items() if k != "keys"}):
        assert layout.map_state_of(broken) is None
