"""How far a map with papers placed by their neighbours (model/layout.py, "Reuse") is from a full layout.

Usage: ``PYTHONPATH=$PWD python bench/map_quality.py`` (the first 10,000 papers of the shared corpus; ~1 minute).
Lays out the papers, replaces the abstract of 1 % and 5 % of them by another paper's (a real change of content),
then places them in the kept map (:func:`~site_builder.model.layout.placed_layout`) and lays the edited texts out
whole; prints, for the changed papers and for a sample of 1,000, the share of each paper's related papers among its
10 nearest points on each map. A measurement, not a test.
"""

from __future__ import annotations

import json

import numpy as np

from site_builder.corpus import require_corpus
from site_builder.model import layout, related

PAPERS = 10000


def neighbours_kept(result: layout.Layout, state: related.State, rows) -> float:
    """Of the related papers of ``rows``, the share among the 10 nearest points (ties by position) on ``result``."""
    points = np.column_stack([result.x, result.y]).astype(float)
    lists = state.lists()
    hits = total = 0
    for i in rows:
        distance = np.linalg.norm(points - points[i], axis=1)
        distance[i] = np.inf
        near = set(np.argsort(distance, kind="stable")[:10].tolist())
        hits += sum(j in near for j in lists[i])
        total += len(lists[i])
    return hits / total


def main() -> None:
    texts = []
    with open(require_corpus(), encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            texts.append(f"{record['title']}. {record['abstract']}")
            if len(texts) == PAPERS:
                break
    state = related.incremental_related(texts, None)[1]
    full = layout.compute_layout(state)
    rng = np.random.default_rng(0)
    sample = rng.choice(len(texts), 1000, replace=False)
    print(f"full layout, sample: {neighbours_kept(full, state, sample):.3f}")
    for share in (0.01, 0.05):
        changed = rng.choice(len(texts), int(share * len(texts)), replace=False)
        edited = list(texts)
        for i in changed:
            edited[i] = texts[i].split(". ")[0] + ". " + texts[(i * 7919 + 13) % len(texts)]
        after = related.incremental_related(edited, None, previous=state)[1]
        placed = layout.placed_layout(after, layout.MapState(list(state.keys), full, 0, state.k)).layout
        again = layout.compute_layout(after)
        print(f"{share:.0%} changed: the changed papers {neighbours_kept(placed, after, changed):.3f} placed, "
              f"{neighbours_kept(again, after, changed):.3f} laid out whole; the sample "
              f"{neighbours_kept(placed, after, sample):.3f} placed, {neighbours_kept(again, after, sample):.3f} whole")


if __name__ == "__main__":
    main()
