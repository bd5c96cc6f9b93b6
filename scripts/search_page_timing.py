#!/usr/bin/env python3
"""Search page and type-ahead times in headless Chromium over a built site (issue 20).

Usage: python3 scripts/search_page_timing.py SITE_FOLDER

For each query below: the number of results and the time of the page's whole search (``SiteSearch.show``: the
query's index shards, the facet counts, the first page of 20 with its records and snippets), the median of 3 runs and the
first; then the type-ahead on the home page: the time from "/" and typing "lang" to the list shown, which includes
loading lunr.js, the index manifest and the shards "lang" needs (the box loads them on first use). Build the site first, e.g. the full
corpus with ``scripts/index_size.py``'s ``corpus_site`` and ``pipeline.write_site``. Timings are of this machine
at this moment.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from browser import chromium_context  # noqa: E402

WORDS = ["model", "learning", "language model", "neural", "diffusion", "graph", "-diffusion model",
         '"large language model"', "transformer OR attention", "reinforcement learning", "data", "network"]


def main(argv: list[str]) -> int:
    """Print the timings; exit status 0 (2 without a site folder)."""
    if len(argv) != 1 or not (Path(argv[0]) / "search.html").is_file():
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    site = Path(argv[0]).resolve()
    with chromium_context(viewport={"width": 1280, "height": 800}) as ctx:
        page = ctx.new_page()
        page.goto((site / "search.html").as_uri() + "?q=model")
        page.wait_for_selector("#search-results li")
        for w in WORDS:
            t = page.evaluate("""async q => { const out = []; for (let i = 0; i < 3; i++) {
                const t0 = performance.now(); const n = await SiteSearch.show(q); out.push([performance.now() - t0, n]); }
                return out; }""", w)
            print(f"{w!r:30} results {t[0][1]:5d}  search page ms {statistics.median(x[0] for x in t):7.1f} "
                  f"(first {t[0][0]:.1f})")
        page.goto((site / "index.html").as_uri())
        page.keyboard.press("/")
        t0 = page.evaluate("performance.now()")
        page.keyboard.type("lang")
        page.wait_for_selector("#site-search-list [role=option]")
        print(f"type-ahead: first list after '/' and typing 'lang' (loads the index): "
              f"{page.evaluate('performance.now()') - t0:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
