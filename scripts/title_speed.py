"""Time ``site_builder.text.titles`` against an older version of it, in one process.

Usage (from the repository root):

    PYTHONPATH=$PWD python3 scripts/title_speed.py [REV ...] [--rounds 5] [--split all|tune|held-out]
        [--corpus PATH] [--diff N]

Each REV (a git revision, default ``HEAD``) has its ``site_builder/text/titles.py`` loaded as a module of
its own beside the working tree's; then, for ``--rounds`` rounds, each version in turn (the order rotated
a round) calls ``introduced_name`` and ``derive_title`` for every paper, one paper after the other as a
build does, timed with ``time.process_time``. Prints each version's CPU µs a paper, every round and the
median, and how many papers get another title or name than the working tree's (``--diff N`` prints N of
them). Alternating rounds in one process keep the machine's drift (a shared 2-core one here) out of the
comparison; quote the medians.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from site_builder.corpus import DEFAULT_CORPUS, require_corpus

HERE = Path(__file__).resolve().parents[1]
MODULE = "site_builder/text/titles.py"


def load(rev: str | None):
    """The titles module of git revision ``rev`` (None: the working tree), as a module of its own."""
    if rev is None:
        return _exec(HERE / MODULE, "titles_now")
    source = subprocess.run(["git", "show", f"{rev}:{MODULE}"], cwd=HERE, check=True,
                            capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "titles_old.py"
        path.write_text(source, encoding="utf-8")
        return _exec(path, f"titles_{rev}".replace("~", "_").replace("^", "_"))


def _exec(path: Path, name: str):
    """The module of the Python file ``path``, run under ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(module, abstracts: list[str]) -> tuple[float, list[tuple[str, str | None]]]:
    """CPU seconds for ``derive_title`` then ``introduced_name`` of each abstract, and their results."""
    out = []
    derive, name = module.derive_title, module.introduced_name
    c0 = time.process_time()
    for a in abstracts:
        out.append((derive(a), name(a)))
    return time.process_time() - c0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("revs", nargs="*", default=["HEAD"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--split", choices=("all", "tune", "held-out"), default="all")
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    ap.add_argument("--diff", type=int, default=0, help="papers whose title or name differs, to print")
    args = ap.parse_args()
    with open(require_corpus(args.corpus), encoding="utf-8") as f:
        papers = [json.loads(line) for line in f if line.strip()]
    if args.split != "all":
        parity = 0 if args.split == "tune" else 1
        papers = [p for p in papers if zlib.crc32(p["title"].encode("utf-8")) % 2 == parity]
    abstracts = [p["abstract"] for p in papers]
    versions = [("now", load(None))] + [(rev, load(rev)) for rev in args.revs]
    times: dict[str, list[float]] = {label: [] for label, _ in versions}
    results = {}
    for r in range(args.rounds):
        for label, module in versions[r % len(versions):] + versions[: r % len(versions)]:
            cpu, results[label] = run(module, abstracts)
            times[label].append(1e6 * cpu / len(abstracts))
    for label, ts in times.items():
        same = sum(a == b for a, b in zip(results[label], results["now"]))
        print(f"{label:>12}: median {statistics.median(ts):6.1f} µs a paper  rounds "
              + " ".join(f"{t:.0f}" for t in ts) + f"  same output as now: {same}/{len(abstracts)}")
    for label, _ in versions[1:]:
        diffs = [(a, b) for a, b in zip(results[label], results["now"]) if a != b]
        for old, new in diffs[: args.diff]:
            print(f"  {label}: {old}\n  now: {new}")


if __name__ == "__main__":
    main()
