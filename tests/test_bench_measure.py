"""The benchmark's measuring: peak RSS and PSS of a process tree, and the package byte-compiled first."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import run  # noqa: E402

#: A parent touches 96 MB, then forks a child that shares them (copy-on-write) while both sleep.
SHARING = ("import os, time\n"
           "block = bytearray(96 << 20)\n"
           "for i in range(0, len(block), 4096): block[i] = 1\n"
           "pid = os.fork()\n"
           "time.sleep(1.5)\n"
           "if pid: os.waitpid(pid, 0)\n"
           "else: os._exit(0)\n")


def test_the_tree_pss_counts_pages_shared_by_a_forked_child_once_and_the_rss_sum_twice():
    result = run.measure([sys.executable, "-c", SHARING])
    if result["tree_pss_mb"] is None:  # a kernel without smaps_rollup (before 4.14)
        assert result["pss_samples"] >= 1
        return
    assert result["tree_rss_mb"] > 2 * 96 * 0.95  # parent and child each count the 96 MB
    assert 96 * 0.95 < result["tree_pss_mb"] < 96 * 1.5  # counted once (plus the interpreters' own pages)
    assert result["tree_pss_mb"] < result["tree_rss_mb"]
    assert result["pss_samples"] >= 1 and result["pss_sampling_s"] < result["wall_s"]


def test_the_package_is_byte_compiled_before_measuring(tmp_path):
    package = tmp_path / "site_builder"
    shutil.copytree(ROOT / "site_builder", package, ignore=shutil.ignore_patterns("__pycache__"))
    run.compile_package(package)
    modules = sorted(package.rglob("*.py"))
    assert len(modules) > 20
    for module in modules:
        compiled = Path(importlib.util.cache_from_source(str(module)))
        assert compiled.is_file() and compiled.stat().st_mtime >= module.stat().st_mtime, module


def test_the_build_without_index_builds_the_seeds_with_an_empty_index(tmp_path):
    """``bench/run.py --build-without-index`` (the benchmark's rows without the index) builds the seed lists,
    with and without a previous build in its cache, and writes an empty search index."""
    import subprocess

    from conftest import CONFIG, SEEDS

    argv = [sys.executable, str(ROOT / "bench" / "run.py"), "--build-without-index", "--seeds", str(SEEDS),
            "--config", str(CONFIG), "--out", str(tmp_path / "site"), "--cache", str(tmp_path / "cache"), "--quiet"]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    for _ in range(2):
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        assert (tmp_path / "site" / "search" / "manifest.js").read_text(encoding="utf-8") == ""
        assert (tmp_path / "site" / "index.html").is_file()


def test_the_memory_trace_logs_each_process_of_the_tree_and_the_peak(tmp_path):
    """``bench/memory_trace.py``: a line per sample with the tree's PSS and each process's PSS/private/RSS; the
    96 MB a forked child shares with its parent counted once in the tree, twice in the RSS of the two."""
    import memory_trace

    log = tmp_path / "trace.log"
    assert memory_trace.main([str(log), sys.executable, "-c", SHARING]) == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines[-1].startswith("peak ")
    samples = [line.split() for line in lines[:-1]]
    both = [s for s in samples if len(s) == 4]  # seconds, tree PSS, parent, child
    assert both, "no sample saw the child"
    seconds, tree, *processes = both[-1]
    pss, private, rss = zip(*(map(int, p.split(":")[1].split("/")) for p in processes))
    if int(lines[-1].split()[1]) == 0:  # a kernel without smaps_rollup (before 4.14)
        return
    assert 96 * 0.95 < int(tree) == sum(pss) < 96 * 1.5 and sum(rss) > 2 * 96 * 0.95
    assert max(private) < 48  # the shared block is neither's own
