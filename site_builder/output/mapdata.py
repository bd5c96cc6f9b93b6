"""``map-data.js``: the paper map's data for ``map.html`` (``assets/map.js``), as a classic script.

The page loads it with ``<script src>`` (not ``fetch``), so the map works from ``file://`` too, as the search
page's search index (``search/manifest.js`` and its shards) does. The script sets ``window.PAPER_MAP`` to one JSON object (keys sorted, no spaces, markup characters escaped:
the same bytes for the same site):

- ``grid``: the coordinates' range (``0 … grid``, :data:`~site_builder.model.layout.GRID`);
- ``venues``: venue labels; ``tracks``: ``"<venue> · <track>"`` labels; ``clusters``: per cluster its
  ``label`` (most distinctive terms), ``size``, label position ``x``, ``y`` and ``anchor`` (its id on the page);
- per paper, in site order, arrays of equal length: ``x``, ``y`` (integers), ``venue`` (index into ``venues``),
  ``track`` (index into ``tracks``, -1 for none), ``cluster``, ``title`` (plain text), ``authors`` (as written,
  joined by ``", "``), ``path`` (site-root relative).
"""

from __future__ import annotations

from ..model import urls
from ..model.citation import script_json


def map_data(site, layout) -> dict:
    """The object of ``map-data.js`` (see the module docstring) for ``site`` and its ``layout``
    (:class:`~site_builder.model.layout.Layout`, papers in site order)."""
    from ..model.layout import GRID  # here: a build that finds nothing changed imports neither it nor numpy

    papers = site.papers
    venues = {venue: i for i, venue in enumerate(site.venues)}
    tracks = {track: i for i, track in enumerate(site.tracks)}
    return {
        "grid": GRID,
        "venues": [venue.label for venue in site.venues],
        "tracks": [f"{track.venue.label} · {track.label}" for track in site.tracks],
        "clusters": [{"label": c.label, "size": c.size, "x": c.x, "y": c.y, "anchor": f"topic-{c.number + 1}"}
                     for c in layout.clusters],
        "x": layout.x.tolist(), "y": layout.y.tolist(), "cluster": layout.cluster.tolist(),
        "venue": [venues[p.venue] for p in papers],
        "track": [tracks[p.track] if p.track is not None else -1 for p in papers],
        "title": [p.title_text for p in papers],
        "authors": [", ".join(p.authors) + (" et al." if p.et_al else "") for p in papers],
        "path": [p.path for p in papers],
    }


def map_script(data: dict) -> str:
    """The text of ``map-data.js`` for :func:`map_data`'s ``data``: the JSON with ``<``, ``>``, ``&`` and the line
    and paragraph separators as ``\\u`` escapes (:func:`~site_builder.model.citation.script_json`), so no text
    of a list can end or open markup even where the file were inlined."""
    return f"window.PAPER_MAP = {script_json(data)};\n"


def write_map_data(site, library, output) -> None:
    """Write ``map-data.js`` of ``site`` and ``library.layout`` into ``output``."""
    output.write_text(urls.MAP_DATA_JS, map_script(map_data(site, library.layout)))
