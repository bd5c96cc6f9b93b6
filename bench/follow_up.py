#!/usr/bin/env python3
"""Typed follow-up queries on a built site's search page, from disk: the time from the input event to the
first result shown (issue 25).

Usage: PYTHONPATH=$PWD python3 bench/follow_up.py SITE_FOLDER

Opens ``search.html?q=model`` from ``file://`` in headless Chromium (``tests/browser.py``), waits for its
results, then types each query of :data:`WORDS` into the box (the value set and one ``input`` event, as
pasting does) and measures, with a ``MutationObserver`` on ``#search-results``, the time until its first
result is shown: first with the shards and records each query needs loaded from disk, then the same
queries again with them loaded. Prints each time and the medians. Timings are of this machine at this moment.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

#: Follow-up queries: common and rare words of machine-learning papers.
WORDS = ["framework", "method", "language", "absolute", "everyday", "project", "large language", "neural networks",
         "graph", "diffusion", "robust", "federated", "quantum", "policy", "reward", "vision", "token", "attention",
         "kernel", "bandit"]

LIVE_QUERY = """async (q) => {
  const input = document.getElementById('search-input');
  const results = document.getElementById('search-results');
  return await new Promise((resolve) => {
    results.textContent = '';
    const t0 = performance.now();
    const seen = new MutationObserver(() => {
      if (results.querySelector('li')) { seen.disconnect(); resolve(performance.now() - t0); }
    });
    seen.observe(results, {childList: true, subtree: true});
    input.value = q;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    setTimeout(() => { seen.disconnect(); resolve(null); }, 5000);
  });
}"""


def main(argv: list[str]) -> int:
    """Print the times; exit status 0 (2 without a site folder)."""
    if len(argv) != 1 or not (Path(argv[0]) / "search.html").is_file():
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    from browser import chromium_context

    site = Path(argv[0]).resolve()
    with chromium_context() as context:
        page = context.new_page()
        page.goto((site / "search.html").as_uri() + "?q=model")
        page.wait_for_selector("#search-results li")
        for label in ("new shards and records", "loaded already"):
            times = [page.evaluate(LIVE_QUERY, word) for word in WORDS]
            shown = [t for t in times if t is not None]
            print(f"{label}: median {statistics.median(shown):.0f} ms, "
                  f"each {[round(t) if t is not None else None for t in times]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
