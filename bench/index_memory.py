"""Memory and time of the search index job (what the build's index process does) over N corpus papers.

Usage (from the repository root; needs the team's corpus, exit status 2 without it)::

    PYTHONPATH=$PWD python3 bench/index_memory.py 30000 [--trace]

Makes N papers of the corpus (the first N, or distinct copies of it beyond its size, as ``bench/lists.py``
does), builds their site model (:func:`site_builder.corpus.corpus_site`), then runs
:func:`site_builder.output.workers.index_job` into a temporary folder with a build cache's store, as the
index process does, and prints its wall and CPU seconds, the files it wrote, the process's resident memory
before and after and its high-water mark (``VmHWM``, MiB) and, with ``--trace``, ``tracemalloc``'s peak of
the job (slower). The model's own memory is before the job; what the job adds is the high-water mark less
that. A measurement, not a test (issue 25, BENCHMARKS.md, session 16).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lists import distinct_copies, load_corpus  # noqa: E402
from run import proc_field  # noqa: E402
from site_builder.corpus import read_corpus, require_corpus, corpus_site  # noqa: E402
from site_builder.diagnostics import Diagnostics  # noqa: E402
from site_builder.incremental.store import Store  # noqa: E402
from site_builder.output import workers  # noqa: E402


def status(field: str) -> int:
    """A ``/proc/self/status`` memory field (``VmRSS``, ``VmHWM``) in MiB (:func:`run.proc_field`)."""
    return (proc_field("/proc/self/status", field + ":") or 0) >> 20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("papers", type=int)
    parser.add_argument("--trace", action="store_true", help="also tracemalloc's peak (slower)")
    args = parser.parse_args()
    corpus = require_corpus(None)
    with tempfile.TemporaryDirectory() as scratch:
        papers = Path(scratch) / "papers.jsonl"
        with papers.open("w", encoding="utf-8") as out:
            for record in distinct_copies(load_corpus(corpus, 10448), args.papers):
                out.write(json.dumps(record) + "\n")
        site = corpus_site(read_corpus(str(papers)))
        before = status("VmRSS")
        store = Store(Path(scratch) / "cache", "bench", Diagnostics())
        if args.trace:
            tracemalloc.start()
        wall, cpu = time.perf_counter(), time.process_time()
        written, _ = workers.index_job(site, None, Path(scratch) / "out", store)()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{len(site.papers)} papers: index job {wall:.1f} s wall, {cpu:.1f} s CPU, {len(written)} files; "
              f"RSS {before} MiB before, {status('VmRSS')} after, high water {status('VmHWM')}"
              + (f"; traced peak {tracemalloc.get_traced_memory()[1] >> 20} MiB" if args.trace else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
