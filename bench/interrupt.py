"""Ctrl-C during a build: does it stop promptly and leave the previous site as it was?

Usage (from the repository root; OUT a site built before, e.g. of ``bench/lists.py 100000``)::

    PYTHONPATH=$PWD python3 bench/interrupt.py SEEDS CONFIG OUT SECONDS [--cache DIR]

Starts ``build.py --seeds SEEDS --config CONFIG --out OUT`` (``--no-cache`` unless ``--cache``) in a process
group of its own with SIGINT handled as from a terminal (a shell's background job would inherit it ignored),
sends SIGINT to the whole group after SECONDS (as a terminal's Ctrl-C does), and prints how long the build took
to exit and its status, the end of its stderr, the processes and staging folders (``.OUT.building-*``) left
behind, and whether every file of OUT (path, size, mtime) is as before. No assertion: a measurement.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def listing(folder: Path) -> tuple[int, str]:
    """``(files, digest)`` of every file under ``folder``: its path, size and mtime (ns)."""
    digest, count = hashlib.sha256(), 0
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            stat = os.stat(os.path.join(root, name))
            digest.update(f"{os.path.join(root, name)} {stat.st_size} {stat.st_mtime_ns}\n".encode())
            count += 1
    return count, digest.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", type=Path)
    parser.add_argument("config", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("seconds", type=float, help="when to send SIGINT, after the start")
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args(argv)
    before = listing(args.out) if args.out.is_dir() else None
    env = dict(os.environ, PYTHONPATH=str(ROOT), SOURCE_DATE_EPOCH="1700000000")
    argv = [sys.executable, str(ROOT / "build.py"), "--seeds", str(args.seeds), "--config", str(args.config),
            "--out", str(args.out), *(["--cache", str(args.cache)] if args.cache else ["--no-cache"])]
    build = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(args.seconds)
    sent = time.perf_counter()
    os.killpg(build.pid, signal.SIGINT)
    stderr = build.stderr.read().decode("utf-8", "replace")
    status = build.wait()
    print(f"SIGINT after {args.seconds:.0f} s; the build exited {time.perf_counter() - sent:.1f} s later, status {status}")
    print("stderr (warnings left out):", *[line for line in stderr.splitlines() if ": warning: " not in line][-5:],
          sep="\n  ")
    time.sleep(1)
    left = subprocess.run(["pgrep", "-g", str(build.pid)], capture_output=True, text=True).stdout.split()
    staging = sorted(p.name for p in args.out.resolve().parent.glob(f".{args.out.name}.*"))
    print("processes left:", left or "none", "; staging or set-aside folders left:", staging or "none")
    after = listing(args.out) if args.out.is_dir() else None
    print(f"{args.out}: {before} before, {after} after:", "unchanged" if before == after else "CHANGED")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
