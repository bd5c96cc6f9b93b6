"""Benchmark the list reader: CPU time of ``reader.read_list`` per list file.

Usage: ``PYTHONPATH=$PWD python bench/reader_speed.py [--dump OUT.json] [--repeat N] DIR_OR_FILE...``

Reads every ``*.txt`` under each directory given (or each file given) with
:func:`site_builder.reader.read_list` and prints the process CPU time
(user+sys, ``time.process_time``, seconds) per file and in total; with
``--repeat N`` the best of N reads per file.  ``--dump`` writes every Entry
(all fields) and every diagnostic of every file, in file order, to a JSON
file, so two versions of the reader can be compared byte for byte
(``cmp a.json b.json``).  Defaults: the seeds/ and tests/fixtures lists.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

from site_builder import reader


def _files(args: list[str]) -> list[Path]:
    """The ``*.txt`` files named by ``args`` (directories are searched recursively), sorted per argument."""
    out: list[Path] = []
    for a in args:
        p = Path(a)
        out.extend(sorted(p.rglob("*.txt")) if p.is_dir() else [p])
    return out


def _dump(result) -> dict:
    """One ListResult as plain JSON data (entries and diagnostics with all fields)."""
    return {
        "path": result.path,
        "heading": dataclasses.asdict(result.heading) if result.heading else None,
        "entries": [dataclasses.asdict(e) for e in result.entries],
        "diagnostics": [dataclasses.asdict(d) if dataclasses.is_dataclass(d) else repr(d)
                        for d in result.diagnostics],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=["seeds", "tests/fixtures"])
    ap.add_argument("--dump", help="write all entries and diagnostics to this JSON file")
    ap.add_argument("--repeat", type=int, default=1, help="best of N reads per file")
    args = ap.parse_args()
    total = 0.0
    dumped = []
    for path in _files(args.paths):
        best = None
        for _ in range(max(1, args.repeat)):
            t0 = time.process_time()
            result = reader.read_list(path)
            dt = time.process_time() - t0
            best = dt if best is None else min(best, dt)
        total += best
        print(f"{best:8.3f} s  {len(result.entries):5d} entries  {path}")
        if args.dump:
            dumped.append(_dump(result))
    print(f"{total:8.3f} s  total CPU")
    if args.dump:
        Path(args.dump).write_text(json.dumps(dumped, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                                   encoding="utf-8")


if __name__ == "__main__":
    main()
