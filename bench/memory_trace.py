#!/usr/bin/env python3
"""Memory of a command's process tree over time: where a build's peak is, and which process holds it.

Usage (from the repository root)::

    python3 bench/memory_trace.py LOG COMMAND [ARGS…]

Runs COMMAND (its standard output discarded, its standard error written to ``LOG.err``) and, every
``--interval`` seconds (0.5), appends to LOG a line ``SECONDS TREE_PSS PID:PSS/PRIVATE/RSS …``: the sum of PSS over
the process tree (MiB; a page shared by forked processes counted once, in shares) and, per process, its PSS, its
private dirty pages and its RSS (MiB), from ``/proc/<pid>/smaps_rollup`` (Linux 4.14+). The last line is
``peak TREE_PSS``. Exit status: the command's. A measurement, not a test (issue 25, BENCHMARKS.md, session 15).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

INTERVAL = 0.5
FIELDS = ("Pss", "Private_Dirty", "Rss")


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (``/proc/<pid>/task/*/children``), those still running."""
    found = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as handle:
                for child in handle.read().split():
                    found += tree(int(child))
    except OSError:
        pass
    return found


def memory(pid: int) -> tuple[int, ...]:
    """``(PSS, private dirty, RSS)`` of ``pid`` in MiB; zeros when it has ended."""
    values = dict.fromkeys(FIELDS, 0)
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                key, _, rest = line.partition(":")
                if key in values:
                    values[key] = int(rest.split()[0]) // 1024
    except OSError:
        pass
    return tuple(values[key] for key in FIELDS)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    log, command = argv[0], argv[1:]
    start, peak = time.monotonic(), 0
    with open(log, "w", encoding="utf-8") as out, open(log + ".err", "w", encoding="utf-8") as err:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        while process.poll() is None:
            sampled = [(pid, memory(pid)) for pid in tree(process.pid)]
            total = sum(m[0] for _, m in sampled)
            peak = max(peak, total)
            out.write(f"{time.monotonic() - start:.1f} {total} "
                      + " ".join(f"{pid}:{'/'.join(map(str, m))}" for pid, m in sampled) + "\n")
            out.flush()
            time.sleep(INTERVAL)
        out.write(f"peak {peak}\n")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
