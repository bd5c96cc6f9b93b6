"""What reading a reference file costs a build, at realistic sizes.

Writes the first ``--size`` corpus papers (``../shared/corpus/papers.jsonl`` or ``$PAPERS_CORPUS``) as a CSL-JSON
reference file (as ``scripts/format_fidelity.py`` writes it: Zotero's export of a venue's papers) and times, median
of ``--repeat`` runs in this process, what a build that is not skipped does with it
(:func:`site_builder.pipeline.reference_index`): reading the file (``json`` + the CSL-JSON records → entries,
:func:`site_builder.read.formats.read_list`) and indexing it (:class:`~site_builder.read.reference.ReferenceIndex`:
normalised keys, 5-gram postings); then the fill of a pasted list of the same papers without titles
(:func:`~site_builder.read.reference.fill`, which the list cache does not spare either).

Usage::

    PYTHONPATH=$PWD python scripts/reference_cost.py [--corpus PATH] [--size 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from site_builder.corpus import require_corpus
from site_builder.diagnostics import Diagnostics
from site_builder.incremental.cache import BuildCache
from site_builder.pipeline import reference_index
from site_builder.read import formats, reference
from site_builder.read.entries import Entry

_spec = importlib.util.spec_from_file_location("format_fidelity", Path(__file__).with_name("format_fidelity.py"))
fidelity = importlib.util.module_from_spec(_spec)
sys.modules["format_fidelity"] = fidelity
_spec.loader.exec_module(fidelity)


def timed(work, repeat: int) -> tuple[float, object]:
    """Median wall seconds of ``repeat`` calls of ``work()`` and its last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    records = fidelity.normalised(fidelity.load(require_corpus(args.corpus), args.size))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "reference.json"
        path.write_text(fidelity.write_csl(records), encoding="utf-8")
        size = path.stat().st_size
        read, result = timed(lambda: formats.read_list(path), args.repeat)
        index_time, index = timed(lambda: reference.ReferenceIndex(result.entries), args.repeat)
        cache = BuildCache(Path(folder) / "cache")
        first, _ = timed(lambda: reference_index((str(path),), Diagnostics(), cache), 1)
        warm, again = timed(lambda: reference_index((str(path),), Diagnostics(), cache), args.repeat)
        assert again.keys == index.keys and again.entries == index.entries and (again.hashes == index.hashes).all()
        kept = sum(f.stat().st_size for f in (Path(folder) / "cache").rglob("reference-*"))
    pasted = [Entry(path="list.txt", line=n, abstract=r["abstract"]) for n, r in enumerate(records)]
    fill, filled = timed(lambda: reference.fill(pasted, index, []), args.repeat)
    print(f"reference: {len(result.entries)} papers, CSL-JSON, {size / 1e6:.1f} MB")
    print(f"read {read:.3f} s + index {index_time:.3f} s = {read + index_time:.3f} s per build that is not skipped")
    print(f"with the build cache: first build {first:.3f} s, next builds {warm:.3f} s (the index loaded; "
          f"file {kept / 1e6:.1f} MB)")
    print(f"fill of a pasted list of the same {len(pasted)} papers: {fill:.3f} s "
          f"({sum(e.title is not None for e in filled)} titled)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
