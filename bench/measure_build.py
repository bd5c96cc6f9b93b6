#!/usr/bin/env python3
"""One build measured as ``bench/run.py`` measures it: wall and CPU time, peak RSS of the largest process, peak
RSS and PSS of the process tree, and the build's own stage timings (issue 25's 100,000-paper figures).

Usage (from the repository root)::

    SITE_BUILDER_TIMINGS=1 PYTHONPATH=$PWD python3 bench/measure_build.py REPO SEEDS CONFIG OUT CACHE [BUILD OPTIONS…]

REPO is the checkout whose ``build.py`` runs (this one, or another revision's worktree, for A/B runs); the build
runs with ``PYTHONPATH=REPO`` and ``SOURCE_DATE_EPOCH=1700000000``, ``--cache CACHE`` (empty for a cold build) and
the further options given (e.g. ``--quiet``, ``--no-cache``). Prints the figures as one JSON line, then the end of
the build's standard error. A measurement, not a test: figures are of this machine at this moment.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import measure  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    repo, seeds, config, out, cache, *extra = argv
    env = dict(os.environ, PYTHONPATH=repo, SOURCE_DATE_EPOCH="1700000000")
    figures = measure([sys.executable, f"{repo}/build.py", "--seeds", seeds, "--config", config, "--out", out,
                       "--cache", cache, *extra], env=env)
    figures.pop("stdout", None)
    stderr = figures.pop("stderr", "")
    print(json.dumps(figures))
    print(stderr[-3000:], file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
