"""What the paper map and the charts (issue 21) cost a cold build: CPU time of this process, nothing written.

Usage (from the repository root; the folder as written by ``bench/lists.py``)::

    PYTHONPATH=$PWD python bench/lists.py 10000 /tmp/lists-10000
    PYTHONPATH=$PWD python bench/map_cost.py /tmp/lists-10000

Reads the lists and builds the site model and library first (not timed), then times the full layout
(:func:`~site_builder.model.layout.compute_layout`), ``map-data.js``'s text, the map page's rendering, and the
charts: the pages that draw one (home, venues, authors) rendered with and without their charts, the difference.
Compare the sum with a cold build's CPU time (``farm-bench`` of ``build.py --no-cache``). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_builder.output.mapdata import map_data, map_script  # noqa: E402
from site_builder.output.writer import render_page  # noqa: E402
from site_builder.pages import plan, views  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from pages import site_and_library  # noqa: E402

CHART_TEMPLATES = ("home.html", "venue.html", "author.html")


def cpu(function) -> tuple[float, object]:
    """``function()``'s CPU seconds (this process) and its result."""
    start = time.process_time()
    result = function()
    return time.process_time() - start, result


def render_all(site, library, env, templates) -> float:
    """CPU seconds of planning every page and rendering those of ``templates``."""
    def run() -> None:
        common = plan.common_context(site)
        for page in plan.plan_pages(site, library):
            if page.template in templates:
                render_page(env, page, common)
    return cpu(run)[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CPU time of the paper map and the charts of a cold build.")
    parser.add_argument("folder", type=Path, help="a folder written by bench/lists.py (seeds/ and site.toml)")
    args = parser.parse_args(argv)
    site, library, env = site_and_library(args.folder)
    seconds_layout = cpu(lambda: library.layout)[0]  # computed on first use (Library.layout)
    seconds_data = cpu(lambda: map_script(map_data(site, library.layout)))[0]
    planning = min(cpu(lambda: plan.plan_pages(site, library))[0] for _ in range(2))
    seconds_page = render_all(site, library, env, ("map.html",)) - planning  # its view: the topics
    with_charts = min(render_all(site, library, env, CHART_TEMPLATES) for _ in range(2))  # the first compiles
    for name in ("venue_chart", "track_chart", "year_chart"):  # no chart: the macro is not called
        setattr(views, name, lambda *args, **kwargs: None)
        setattr(plan, name, lambda *args, **kwargs: None)
    without = render_all(site, library, env, CHART_TEMPLATES)
    total = seconds_layout + seconds_data + seconds_page + with_charts - without
    print(f"{len(site.papers)} papers: layout {seconds_layout:.2f} s, map-data.js {seconds_data:.2f} s, map page "
          f"{seconds_page:.2f} s, charts {with_charts - without:.2f} s (pages with them {with_charts:.2f} s, "
          f"without {without:.2f} s); map and charts {total:.2f} s CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
