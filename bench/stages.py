"""Time the stages of one build before the pages: reading, per-paper work, model, library (authors, related
papers, BibTeX keys, notes, terms), with wall and CPU time of this process (and of its workers in total).

Usage (from the repository root)::

    PYTHONPATH=$PWD python bench/lists.py 10000 /tmp/l10k
    PYTHONPATH=$PWD python bench/stages.py /tmp/l10k /tmp/l10k-out /tmp/l10k-cache           # cold
    PYTHONPATH=$PWD python bench/stages.py /tmp/l10k /tmp/l10k-out /tmp/l10k-cache           # nothing changed
    PYTHONPATH=$PWD python bench/stages.py /tmp/l10k /tmp/l10k-out /tmp/l10k-cache --edit    # one abstract changed

``--edit`` first appends the sentence of ``bench/run.py`` to the last abstract of the largest list.
``--pages`` also writes the pages (by default ``write_site`` is skipped, so only the stages before
the pages are timed and nothing is written but the cache). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

START = time.perf_counter()
from site_builder.model import library  # noqa: E402
from site_builder import pipeline
from site_builder.model import related as related_module  # noqa: E402
from site_builder.config import load_config  # noqa: E402

IMPORTS = time.perf_counter() - START
TIMES: dict[str, list[float]] = {}


def timed(module, name: str, label: str) -> None:
    """Wrap ``module.name`` (if it exists) so that its wall and CPU time add up under ``label``."""
    function = getattr(module, name, None)
    if function is None:
        return

    def wrapper(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            total = TIMES.setdefault(label, [0.0, 0.0])
            total[0] += time.perf_counter() - wall
            total[1] += time.process_time() - cpu

    setattr(module, name, wrapper)


def edit_one_abstract(seeds: Path) -> None:
    """As ``bench/run.py``: append a sentence to the last paper of the largest list."""
    path = max(sorted(seeds.glob("*.txt")), key=lambda p: p.stat().st_size)
    text = path.read_text(encoding="utf-8").rstrip("\n")
    path.write_text(text + " We also release our code.\n", encoding="utf-8")


class _NoOutput:
    """Stands in for :class:`writer.Output` when pages are not written."""

    def __init__(self, out) -> None:
        self.staging = self.target = Path(out)
        self.written: list[str] = []

    def file(self, path: str) -> Path:
        return self.staging / path

    def commit(self) -> None:
        pass

    def discard(self) -> None:
        pass


class _NoIndex:
    """Stands in for :class:`index_run.IndexRun` when pages (and the index) are not written."""

    pending = False

    def __init__(self, *args, **kwargs) -> None:
        pass

    def finish(self) -> None:
        pass

    def cancel(self) -> None:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lists", type=Path, help="folder written by bench/lists.py (seeds/ and site.toml)")
    parser.add_argument("out", type=Path)
    parser.add_argument("cache", type=Path)
    parser.add_argument("--edit", action="store_true")
    parser.add_argument("--pages", action="store_true")
    args = parser.parse_args()
    seeds = args.lists / "seeds"
    if args.edit:
        edit_one_abstract(seeds)
    timed(pipeline, "BuildCache", "cache files loaded")
    timed(pipeline, "read_lists", "reading the lists")
    timed(pipeline.workers, "parallel_map", "per-paper work left over")
    timed(pipeline, "build_site", "model (build_site)")
    timed(pipeline, "build_library", "library")
    timed(library, "AuthorIndex", "  authors")  # computed by Library (no cache) ...
    timed(library, "cached_index", "  authors")  # ... or computed or loaded by build_library (authors.marshal)
    timed(library, "related_papers", "  related papers")
    timed(related_module, "related_papers", "  related papers")
    timed(library.bibtex, "assign_keys", "  BibTeX keys")
    if args.pages:
        timed(pipeline, "write_site", "pages, index, assets")
    else:
        pipeline.write_site = lambda *a, **k: 0
        pipeline.Output = _NoOutput
        pipeline.IndexRun = _NoIndex
    wall, cpu = time.perf_counter(), time.process_time()
    report = pipeline.build(seeds, args.out, load_config(args.lists / "site.toml"), cache=args.cache)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"{len(report.site.papers) if report.site else 0} papers; 1-min load average {os.getloadavg()[0]:.1f}")
    print(f"{'imports':28s} wall {IMPORTS:6.2f} s")
    for label, (w, c) in TIMES.items():
        print(f"{label:28s} wall {w:6.2f} s   CPU {c:6.2f} s")
    print(f"{'build() in all':28s} wall {wall:6.2f} s   CPU {cpu:6.2f} s, workers {children.ru_utime + children.ru_stime:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
