"""Benchmark: related papers (TF-IDF top-5) over the shared corpus of real papers.

Usage: PYTHONPATH=$PWD python scripts/bench_related.py [CORPUS] [N]
Prints the number of papers, the seconds taken (wall, CPU of this process and of its forked workers) and the
process's peak memory.
"""

from __future__ import annotations

import json
import os
import sys
import time
import resource

from site_builder.corpus import require_corpus
from site_builder.model.related import DEFAULT_BLOCK, related_indices

path = require_corpus(sys.argv[1] if len(sys.argv) > 1 else None)
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
with open(path, encoding="utf-8") as f:
    records = [json.loads(line) for line in f][:limit]
texts = [f"{r.get('title') or ''}. {r.get('abstract') or ''}" for r in records]


def children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


start, cpu, workers = time.perf_counter(), time.process_time(), children()
rows = related_indices(texts)
seconds, cpu, workers = time.perf_counter() - start, time.process_time() - cpu, children() - workers
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{len(texts)} papers: related top-5 in {seconds:.2f} s wall, {cpu:.2f} s CPU "
      f"(+ {workers:.2f} s in worker processes); peak RSS of the process {peak:.0f} MiB "
      f"(blocks of {DEFAULT_BLOCK}×{DEFAULT_BLOCK}; a dense N×N float32 would be {len(texts) ** 2 * 4 / 2**20:.0f} MiB)")
print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
print("example:", records[0]["title"], "->", [records[j]["title"] for j in rows[0]])
