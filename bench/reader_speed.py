"""Benchmark the list reader: CPU time of ``reader.read_list`` per list file.

Usage: ``PYTHONPATH=$PWD python bench/reader_speed.py [--dump OUT.json] [--repeat N] [--reread] DIR_OR_FILE...``

Reads every ``*.txt`` under each directory given (or each file given) with
:func:`site_builder.read.plaintext.read_list` and prints the process CPU time
(user+sys, ``time.process_time``, seconds) per file and in total; with
``--repeat N`` the best of N reads per file.  ``--dump`` writes every Entry
(all fields) and every diagnostic of every file, in file order, to a JSON
file, so two versions of the reader can be compared byte for byte
(``cmp a.json b.json``).  With ``--reread``, each file's longest line gets one more
sentence (in memory) and the time is that of reading it again from the state of the
first read (:func:`site_builder.read.reread.reread`; "full" when the edit needs a full
read), checked equal to a full read.  Defaults: the seeds/ and tests/fixtures lists.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

from site_builder.read import plaintext as reader, reread as reader_reread
from site_builder.read.text import decode_bytes, remove_controls


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
    ap.add_argument("--reread", action="store_true", help="time reading an edit again from the kept state")
    args = ap.parse_args()
    if args.reread:
        _reread(_files(args.paths), max(1, args.repeat))
        return
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


def _reread(paths: list[Path], repeat: int) -> None:
    """Print the CPU time of reading each list again after one more sentence on its longest line."""
    total = 0.0
    for path in paths:
        text, _ = remove_controls(decode_bytes(path.read_bytes()), str(path))
        _, state = reader_reread.read_text(text, str(path))
        lines = text.split("\n")
        longest = max(range(len(lines)), key=lambda k: len(lines[k]))
        edited = "\n".join(lines[:longest] + [lines[longest] + " One more sentence."] + lines[longest + 1:])
        best, again = None, None
        for _ in range(repeat):
            t0 = time.process_time()
            again = reader_reread.reread(state, edited, str(path), None, None) if state else None
            dt = time.process_time() - t0
            best = dt if best is None else min(best, dt)
        if again is not None:
            assert again[0] == reader.read_text(edited, str(path)), path
        total += best
        print(f"{best:8.4f} s  {'reread' if again is not None else 'full  '}  {path}")
    print(f"{total:8.4f} s  total CPU")


if __name__ == "__main__":
    main()
