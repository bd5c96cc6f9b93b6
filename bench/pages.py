"""Benchmark of the page stage alone: plan and render every page of a site in one process, per template.

Usage (from the repository root; the folder as written by ``bench/lists.py``)::

    PYTHONPATH=$PWD python bench/lists.py 10000 /tmp/lists-10000
    PYTHONPATH=$PWD python bench/pages.py /tmp/lists-10000

Reads the lists and builds the site model and library first (not timed),
then prints the CPU time (``time.process_time``, this process only, no
workers, nothing written) of planning the pages and of rendering them, in
total and per template. No assertion: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_builder import pipeline  # noqa: E402
from site_builder.config import load_config  # noqa: E402
from site_builder.diagnostics import Diagnostics  # noqa: E402
from site_builder.model.library import build_library  # noqa: E402
from site_builder.model.site import build_site  # noqa: E402
from site_builder.pages.plan import common_context, plan_pages  # noqa: E402
from site_builder.output.writer import make_environment, render_page  # noqa: E402


def site_and_library(folder: Path, notes: Path | None = None):
    """``(site, library, env)``: the site model of the lists of ``folder`` (``seeds/`` and ``site.toml``, as
    ``bench/lists.py`` writes them), its reading-list features (with the curator's ``notes`` folder, or none)
    and the templates' environment, as a build makes them (no cache)."""
    config = load_config(folder / "site.toml")
    diagnostics = Diagnostics()
    seeds = folder / "seeds"
    site = build_site(pipeline.read_lists(pipeline.list_files(seeds), config, diagnostics),
                      pipeline.load_overrides(seeds, diagnostics), config, diagnostics)
    return site, build_library(site, notes, diagnostics), make_environment(pipeline.TEMPLATES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CPU time of planning and rendering every page, per template.")
    parser.add_argument("folder", type=Path, help="a folder written by bench/lists.py (seeds/ and site.toml)")
    parser.add_argument("--notes", type=Path, default=None, help="a folder of the curator's notes")
    args = parser.parse_args(argv)
    site, library, env = site_and_library(args.folder, args.notes)
    start = time.process_time()
    pages = plan_pages(site, library)
    plan = time.process_time() - start
    common = common_context(site)
    seconds: collections.Counter = collections.Counter()
    count: collections.Counter = collections.Counter()
    for page in pages:
        t = time.process_time()
        render_page(env, page, common)
        seconds[page.template] += time.process_time() - t
        count[page.template] += 1
    print(f"{len(site.papers)} papers, {len(pages)} pages: planning {plan:.2f} s CPU, "
          f"rendering {sum(seconds.values()):.2f} s CPU")
    for template, s in seconds.most_common():
        print(f"  {template:15s} {count[template]:6d} pages {s:7.2f} s {1e6 * s / count[template]:7.0f} µs/page")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
