"""The build's orchestration: garbage collection off in the build's own process (on again in its
workers and after the build), and what the search index process decides."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from conftest import CONFIG, SEEDS
from site_builder import pipeline
from site_builder import parallel
from site_builder.config import load_config


def _collecting(_item) -> bool:
    """Whether the process running this (a forked worker of :func:`parallel.parallel_map`) collects garbage."""
    return gc.isenabled()


def test_the_build_runs_without_the_collector_and_restores_it(tmp_path, monkeypatch):
    seen = []
    build_site = pipeline.build_site

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return build_site(*args, **kwargs)

    monkeypatch.setattr(pipeline, "build_site", spy)
    assert gc.isenabled()
    report = pipeline.build(SEEDS, tmp_path / "site", load_config(CONFIG), cache=tmp_path / "cache")
    assert report.files > 100
    assert seen == [False]
    assert gc.isenabled()


def test_the_build_leaves_a_disabled_collector_disabled(tmp_path):
    gc.disable()
    try:
        pipeline.build(SEEDS, tmp_path / "site", load_config(CONFIG), cache=None)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.forks
def test_forked_workers_collect_garbage_when_the_parent_does_not():
    if parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")
    gc.disable()
    try:
        results = parallel.parallel_map(_collecting, list(range(parallel.MIN_MAP_ITEMS)))
        job = parallel.start_background(lambda: [gc.isenabled()])
        assert job is not None
        background = job.result()
    finally:
        gc.enable()
    assert results == [True] * parallel.MIN_MAP_ITEMS
    assert background == [True]


def _signal_handlers(_=None) -> tuple:
    import signal
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)


@pytest.mark.forks
def test_forked_workers_ignore_ctrl_c_and_end_quietly_on_sigterm_whatever_the_parent_handles():
    """Found by the new-user pass: workers inherited the preview server's SIGTERM handler (raising
    KeyboardInterrupt), so Ctrl-C during its first build printed a traceback from each worker terminated."""
    import signal
    if parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")

    def raising(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, raising)
    try:
        with parallel.fork_pool(2) as pool:
            in_pool = pool.map(_signal_handlers, range(2))
        job = parallel.start_background(lambda: [_signal_handlers()])
        background = job.result()
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert set(in_pool + background) == {(signal.SIG_IGN, signal.SIG_DFL)}


def _seed_model():
    """The seed lists' site model (no cache)."""
    from site_builder.diagnostics import Diagnostics
    from site_builder.model.site import build_site

    config = load_config(CONFIG)
    diagnostics = Diagnostics()
    entries = pipeline.read_lists(pipeline.list_files(SEEDS), config, diagnostics)
    return build_site(entries, {}, config, diagnostics)


@pytest.mark.forks
def test_paper_digests_handed_over_by_a_forked_process_are_the_ones_computed_here():
    from site_builder.incremental.digest import Fingerprinter
    from site_builder.output.search_index import SharedDigests

    if parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")
    site = _seed_model()
    papers = list(site.papers)
    assert len(papers) > 20
    share = SharedDigests(len(papers))
    child = parallel.start_background(lambda: share.publish(Fingerprinter().digests(papers)) or [])
    share.forked()
    received = share.receive()
    child.result()
    share.close()
    here = Fingerprinter().digests(papers)
    assert received == here
    assert len(set(here)) == len(papers)
    # Adopted digests give the same digests of structures holding the papers as computing them here.
    adopted = Fingerprinter()
    adopted.adopt(papers, received)
    for paper in papers[:50]:
        assert adopted.of((paper, 1, "x")) == Fingerprinter().of((paper, 1, "x"))
    assert adopted.of(site) == Fingerprinter().of(site)


@pytest.mark.forks
def test_a_process_that_ends_without_publishing_hands_over_nothing():
    from site_builder.output.search_index import SharedDigests

    if parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")
    share = SharedDigests(3)
    child = parallel.start_background(lambda: [])
    share.forked()
    assert share.receive() is None
    child.result()
    share.close()


def test_a_kept_search_index_is_still_a_top_level_name_of_the_404_page(tmp_path):
    """A rebuild whose model is unchanged keeps the search index's files (decided in the index process); the
    404 page's script still lists their folder among the site's top-level names, and the site is a no-cache
    build's."""
    import json
    import re

    from site_builder.model.urls import SEARCH_FOLDER

    from conftest import assert_same_site

    site, cache = tmp_path / "site", tmp_path / "cache"
    config = load_config(CONFIG)
    pipeline.build(SEEDS, site, config, cache=cache)
    inodes = {f: f.stat().st_ino for f in (site / SEARCH_FOLDER).rglob("*.js")}
    page = next((site / "papers").glob("*.html"))
    page.unlink()  # the output changed, the inputs did not: a full build, with the same model
    report = pipeline.build(SEEDS, site, config, cache=cache)
    assert report.reused > 100
    assert len(inodes) > 60 and {f: f.stat().st_ino for f in (site / SEARCH_FOLDER).rglob("*.js")} == inodes  # kept
    assert page.is_file()
    names = json.loads(re.search(r"var TOP = (\[[^\]]*\]);", (site / "404.html").read_text(encoding="utf-8")).group(1))
    assert SEARCH_FOLDER in names and "papers" in names
    pipeline.build(SEEDS, tmp_path / "plain", config, cache=None)
    assert_same_site(tmp_path / "plain", site)


@pytest.mark.parametrize("bad", [["/index.html"], ["a/../b.html"], ["./a.html"], ["a/./b.html"], ["a//b.html"],
                                 ["a/"], [""], [".."], ["papers/x.html\n/etc/passwd"],
                                 ["papers/dup.html", "papers/dup.html"], ["index.html"]])
def test_keeping_many_files_refuses_what_keeping_them_one_by_one_refuses(tmp_path, bad):
    from site_builder.output.writer import Output, OutputError

    site = tmp_path / "site"
    pipeline.build(SEEDS, site, load_config(CONFIG), cache=None)
    good = ["index.html", "papers/a.html", "venues/x/index.html", "a..b/c.d..html"]
    many, one = Output(site), Output(site)
    try:
        many.keep_all(good)
        assert set(good) <= many.kept and set(good) <= many.written
        for path in good:
            one.keep(path)

        def refused(keep) -> bool:
            try:
                keep()
            except OutputError:
                return True
            return False

        paths = ["papers/new.html", *bad]
        assert refused(lambda: many.keep_all(paths)) == refused(lambda: [one.keep(path) for path in paths])
        assert refused(lambda: many.keep_all(paths)) or "\n" in bad[0]  # (keep takes a name with a newline)
        assert many.written == one.written
    finally:
        many.discard()
        one.discard()


def test_the_quick_unsafe_path_check_agrees_with_the_regex():
    # Output.keep_all looks for a few substrings before running the regex over every path: both must agree
    # on every list of paths made of the characters that matter (all lists up to 5 characters long, split
    # into paths in every way, and random longer ones).
    import itertools
    import random

    from site_builder.output.writer import _UNSAFE_LINE, _unsafe_lines

    def agree(paths):
        assert _unsafe_lines(paths) == (_UNSAFE_LINE.search("\n".join(paths)) is not None), paths

    alphabet = "a./\n"
    for n in range(6):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            agree([text])
            agree(text.split("\n"))
            agree(["papers/x.html", text, "index.html"])
    rng = random.Random(8)
    for _ in range(3000):
        agree(["".join(rng.choice(alphabet + "bc") for _ in range(rng.randint(0, 12)))
               for _ in range(rng.randint(1, 4))])
    assert not _unsafe_lines(["index.html", "papers/a.html", "a..b/c.d..html", "v/.a"])
    assert _unsafe_lines(["index.html", "papers/./a.html"]) and _unsafe_lines(["a", ""])


def test_keeping_many_files_in_a_folder_this_tool_did_not_build_is_refused(tmp_path):
    from site_builder.output.writer import Output, OutputError

    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "index.html").write_text("not ours", encoding="utf-8")
    output = Output(tmp_path / "mine")
    with pytest.raises(OutputError, match="not built by this tool"):
        output.keep_all(["index.html"])
    output.discard()


def test_the_index_files_named_for_the_build_are_the_ones_the_index_writes():
    """The build claims the manifest and the index's folder before the index process has written anything:
    they are where the index writes its files."""
    from search_helpers import seed_model
    from site_builder.output import search_index as index_run
    from site_builder.search import index as search

    files = search.index_files(seed_model())
    assert index_run.MANIFEST in files and len(files) > 60
    assert all(path.startswith(index_run.INDEX_FOLDER + "/") for path in files)


def test_the_build_itself_does_not_import_the_search_modules(tmp_path):
    """A rebuild's own process never needs the search modules (the index process imports them)."""
    import subprocess
    import sys

    script = ("import sys; from site_builder import cli; assert "
              f"cli.main(['--seeds', {str(SEEDS)!r}, '--config', {str(CONFIG)!r}, '--out', {str(tmp_path / 'site')!r},"
              f" '--cache', {str(tmp_path / 'cache')!r}, '--quiet']) == 0; "
              "print(sorted(m for m in sys.modules if m.startswith('site_builder.search') or "
              "m in ('site_builder.search.indexer', 'site_builder.search.tokenize', 'site_builder.search.state')))")
    import os

    env = {**os.environ, "PYTHONPATH": str(Path(pipeline.__file__).resolve().parent.parent)}
    for _ in range(2):  # a cold build, then one with the cache
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
        assert result.stdout.strip() == "[]"
    assert (tmp_path / "site" / "search" / "manifest.js").stat().st_size > 500


def _fingerprinter():
    from site_builder.incremental.digest import Fingerprinter

    return Fingerprinter()


def _run_python(script: str, *args: str, cwd: Path | None = None, **env: str):
    import os
    import subprocess
    import sys

    environ = {**os.environ, "PYTHONPATH": str(Path(pipeline.__file__).resolve().parent.parent), **env}
    environ.pop("PYTHONUNBUFFERED", None)  # (set on some machines) output to a pipe is then block-buffered
    return subprocess.run([sys.executable, *(["-c", script] if script else []), *args], capture_output=True,
                          text=True, env=environ, cwd=cwd)


def test_exit_now_runs_the_exit_functions_flushes_and_exits_with_the_status():
    script = ("import atexit, sys; from site_builder.cli import exit_now; "
              "atexit.register(lambda: print('exit function ran')); "
              "sys.stdout.write('buffered '); sys.stderr.write('on stderr'); exit_now(3)")
    result = _run_python(script)
    assert result.returncode == 3
    assert result.stdout == "buffered exit function ran\n"  # a pipe: block-buffered until exit_now flushes it
    assert result.stderr == "on stderr"


def test_a_build_by_build_py_ends_at_once_with_everything_written(tmp_path):
    """build.py ends without the interpreter's teardown (cli.run): its summary line, its files and its
    cache are all there, the site is byte for byte the one an in-process build writes, and the next
    build finds everything as the first left it."""
    import filecmp

    root = Path(pipeline.__file__).resolve().parent.parent
    args = [str(root / "build.py"), "--seeds", str(SEEDS), "--config", str(CONFIG), "--out", "site",
            "--cache", "cache"]
    first = _run_python("", *args, cwd=tmp_path, SITE_BUILDER_TIMINGS="1")
    assert first.returncode == 0, first.stderr
    assert "\nbuilt " in first.stderr and first.stderr.endswith("warning(s)\n")
    from conftest import build_into

    assert build_into(tmp_path / "in-process", "--no-cache", "--quiet") == 0

    def same(a: Path, b: Path) -> None:
        compared = filecmp.dircmp(a, b)
        assert not (compared.left_only or compared.right_only or compared.funny_files), (a, b)
        assert filecmp.cmpfiles(a, b, compared.common_files, shallow=False)[1:] == ([], [])
        for sub in compared.common_dirs:
            same(a / sub, b / sub)

    same(tmp_path / "site", tmp_path / "in-process")
    second = _run_python("", *args, cwd=tmp_path, SITE_BUILDER_TIMINGS="1")
    assert second.returncode == 0, second.stderr
    assert "stage nothing changed" in second.stderr  # the first build's cache and report were saved whole
    failed = _run_python("", *[a if a != str(SEEDS) else str(tmp_path / "none") for a in args], cwd=tmp_path)
    assert failed.returncode == 2 and "no such folder" in failed.stderr


def test_kept_objects_outlive_the_build_only_when_asked(tmp_path, monkeypatch):
    import weakref

    for keep in (False, True):
        monkeypatch.setattr(pipeline, "_KEPT", None)
        if keep:
            pipeline.keep_objects()
        report = pipeline.build(SEEDS, tmp_path / f"site-{keep}", load_config(CONFIG), cache=tmp_path / "cache")
        library, diagnostics = weakref.ref(report.library), weakref.ref(report.diagnostics)
        del report
        gc.collect()
        assert (library() is not None) == keep and (diagnostics() is not None) == keep


def test_write_spliced_joins_bytes_and_ranges_of_open_files_with_or_without_the_kernel_copy(tmp_path, monkeypatch):
    import errno
    import os

    from site_builder.output import writer

    source = tmp_path / "source"
    data = ("0123456789" * 1000 + "é ü").encode("utf-8")
    source.write_bytes(data)
    fd = os.open(source, os.O_RDONLY)
    try:
        pieces = [b"[", (fd, 5, 20), b",\n", (fd, 9000, len(data) - 9000), (fd, 0, 0), b"]"]
        expected = b"[" + data[5:25] + b",\n" + data[9000:] + b"]"
        stat = writer.write_spliced(str(tmp_path / "kernel"), pieces)
        assert (tmp_path / "kernel").read_bytes() == expected
        assert stat[0] == len(expected) and stat[2] == (tmp_path / "kernel").stat().st_ino

        def refused(*args):
            raise OSError(errno.EXDEV, "cross-device")

        monkeypatch.setattr(writer, "_copy_file_range", refused)
        writer.write_spliced(str(tmp_path / "here"), pieces)
        assert (tmp_path / "here").read_bytes() == expected
        assert writer._copy_file_range is None  # refused once: copied here from then on
        with pytest.raises(ValueError, match="ends before"):
            writer.write_spliced(str(tmp_path / "short"), [(fd, len(data) - 3, 10)])
    finally:
        os.close(fd)


def test_a_build_that_finds_nothing_changed_does_not_import_numpy(tmp_path):
    """pipeline imports site_builder.model.library (numpy with it) only for a build that makes a site; before
    the index process is forked, so that process does not import numpy again."""
    script = ("import sys; from site_builder import cli; assert "
              f"cli.main(['--seeds', {str(SEEDS)!r}, '--config', {str(CONFIG)!r}, '--out', {str(tmp_path / 'site')!r},"
              f" '--cache', {str(tmp_path / 'cache')!r}, '--quiet']) == 0; "
              "print('numpy' in sys.modules)")
    results = [_run_python(script, SITE_BUILDER_TIMINGS="1") for _ in range(2)]  # a cold build, then the same
    assert [r.stdout.strip() for r in results] == ["True", "False"], [r.stderr[-500:] for r in results]
    assert "stage nothing changed" in results[1].stderr
    assert pipeline.build_library.__module__ == "site_builder.model.library"




@pytest.mark.forks
def test_jobs_run_once_each_by_workers_forked_afresh_for_each_generation():
    """:func:`parallel.run_jobs` over many jobs: every job's result handed to ``on_done`` once with its weight, the
    steps ``meanwhile`` run in this process, and the jobs of each generation run in processes forked for it
    (none of them ran a job of another generation), which see what this process did before forking them."""
    if parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")
    import os
    count = 40
    ranges = parallel.generations(count, 2)
    assert len(ranges) == parallel.GENERATIONS and [n for r in ranges for n in r] == list(range(count))
    seen = []  # what this process did before each job's workers were forked
    jobs = [((lambda n=n: [(n, os.getpid(), len(seen))]), n + 1) for n in range(count)]
    done, steps = [], []
    parallel.run_jobs(jobs, lambda result, weight: (done.append((result[0], weight)), seen.append(1)),
                      [lambda: steps.append(os.getpid())] * 3)
    assert sorted(n for (n, _, _), _ in done) == list(range(count))
    assert all(weight == n + 1 for (n, _, _), weight in done)
    assert jobs == [] and steps == [os.getpid()] * 3
    generation = {n: g for g, r in enumerate(ranges) for n in r}
    pids = {}
    for (n, pid, _), _ in done:
        pids.setdefault(pid, set()).add(generation[n])
    assert os.getpid() not in pids and all(len(g) == 1 for g in pids.values())
    assert len({g for gs in pids.values() for g in gs}) == parallel.GENERATIONS
    for (n, _, before), _ in done:  # a later generation's workers were forked after the earlier ones finished
        assert before >= ranges[generation[n]].start


@pytest.mark.forks
def test_a_job_that_fails_ends_the_run_with_its_error_the_queued_jobs_skipped_and_no_worker_left(tmp_path):
    """A job raising in a worker: :func:`parallel.run_jobs` raises its error once the workers have finished what they
    were running and skipped the jobs still queued (the pool is closed and joined, not terminated: terminating busy
    workers can leave a queue's lock held and ``Pool.terminate`` waiting forever, which hung a clean-clone test run)."""
    import multiprocessing
    import time
    if parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")
    log = tmp_path / "ran"

    def job(n: int) -> list:
        if n == 3:
            raise ValueError("job 3 failed")
        time.sleep(0.05)
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{n}\n")
        return [n]

    jobs = [((lambda n=n: job(n)), 20) for n in range(200)]
    done = []
    with pytest.raises(ValueError, match="job 3 failed"):
        parallel.run_jobs(jobs, lambda result, weight: done.append(result))
    ran = [int(n) for n in log.read_text(encoding="utf-8").split()]
    assert 3 not in ran and len(ran) < 100  # the queued jobs were skipped, not run
    assert multiprocessing.active_children() == []


def test_release_memory_gives_the_freed_strings_pages_back_before_a_fork():
    """Large strings freed between live ones stay resident until :func:`parallel.release_memory` (glibc's
    ``malloc_trim``); measured in a fresh interpreter, as the build's process would be."""
    import platform
    import subprocess
    import sys
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("needs glibc's malloc_trim")
    script = (
        "from site_builder import parallel\n"
        "def rss():\n"
        "    return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS:')) // 1024\n"
        "strings = ['x' * 1500 + str(i) for i in range(200000)]\n"
        "kept = strings[::8]\n"  # one string in eight lives on: the freed ones lie between them
        "del strings\n"
        "before = rss(); parallel.release_memory(); print(before, rss())\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                            cwd=Path(__file__).resolve().parent.parent)
    before, after = map(int, result.stdout.split())
    assert before - after > 100, (before, after)  # of 260 MB freed, the pages no live string shares
