#!/usr/bin/env python3
"""Measure the live-reload round trip of ``build.py serve``: list edit → change shown in the open page.

Copies the seeds into a temporary folder, starts the preview server on a free port under /repo/,
opens the home page in headless Chromium (Debian's, see tests/browser.py), then appends real
papers (AISTATS 2025's of the tests' sample, tests/fixtures/papers/: up to 35 rounds) to a list one at a
time and times how long until the page shows the new count.

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_livereload.py [ROUNDS]
"""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from browser import chromium_context  # noqa: E402
from serving import append_paper, copy_seeds, corpus_paper, serve_process  # noqa: E402


def main(rounds: int = 5) -> int:
    """Run ``rounds`` edits; print each latency and the median and maximum, in seconds."""
    with tempfile.TemporaryDirectory(prefix="bench-livereload-") as tmp:
        tmp = Path(tmp)
        seeds, config = copy_seeds(tmp)
        with serve_process("--seeds", str(seeds), "--config", str(config), "--base-path", "/repo/", cwd=tmp) as (url, _):
            with chromium_context() as context:
                page = context.new_page()
                page.goto(url)
                count = int(re.search(r"(\d+) papers in", page.locator("main").inner_text()).group(1))
                times = []
                for n in range(rounds):
                    record = corpus_paper("AISTATS", 2025, n)
                    started = time.perf_counter()
                    append_paper(seeds / "003_7bfb54ea2f2037fe.txt", record)
                    count += 1
                    page.wait_for_function(
                        f"document.querySelector('main').innerText.includes('{count} papers in')", timeout=30_000)
                    times.append(time.perf_counter() - started)
                    print(f"edit {n + 1}: shown after {times[-1]:.2f} s", flush=True)
                    time.sleep(0.3)
    print(f"median {statistics.median(times):.2f} s, max {max(times):.2f} s over {rounds} edits")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
