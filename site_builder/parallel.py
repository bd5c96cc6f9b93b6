"""Work on every core: a pool of forked workers, jobs run in it, and one job in a background process.

With two or more cores and ``fork`` available, jobs run in forked processes that inherit the parent's
memory (the site model), so nothing is pickled but the results; otherwise, or for small work, they run in
this process. Either way the results are the same.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import multiprocessing
import os
import pickle
import signal
import tempfile
import threading
from typing import Callable

#: Below this many pages to render the build stays in one process (forking costs more than it saves).
MIN_PARALLEL_WORK = 500
#: Below this many items :func:`parallel_map` stays in one process.
MIN_MAP_ITEMS = 200

#: The jobs of the running :func:`run_jobs`: forked workers find theirs here by number.
_JOBS: list[Callable[[], list]] = []
#: The ``fork`` context, bound at import (None where there is no ``fork``).
_FORK = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def worker_count() -> int:
    """Processes to use: the usable cores, or 1 when ``fork`` is unavailable or threads are running.

    (Forking a process that runs other threads can deadlock; the preview
    server's rebuilds therefore stay in one process.)
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    if cores < 2 or "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return 1
    return cores


def parallel_workers(pages: int) -> bool:
    """Whether writing ``pages`` pages (and the index) should use a pool of forked workers."""
    return worker_count() >= 2 and pages >= MIN_PARALLEL_WORK


def _ignore_interrupt() -> None:
    """Pool initializer: workers ignore SIGINT, so Ctrl-C reaches only the parent, which
    terminates the pool (leaving no process behind) and discards the staging folder; they end
    quietly on SIGTERM (:func:`_worker_signals`); and they collect garbage (:func:`collect_garbage`)."""
    _worker_signals()
    collect_garbage()


def _worker_signals() -> None:
    """In a forked worker: ignore SIGINT (Ctrl-C is the parent's) and take SIGTERM's default, ending at once:
    a handler the parent set (the preview server's, raising KeyboardInterrupt) would otherwise print a
    traceback in each worker the parent terminates (found by the new-user pass)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def collect_garbage() -> None:
    """Turn the cyclic garbage collector on in a forked process: the build's own process runs without
    it (see :func:`site_builder.pipeline.build`), but a worker makes short-lived objects (rendered
    pages, the search index) whose cycles must not pile up. The objects inherited from the parent are
    frozen first (``gc.freeze``, https://docs.python.org/3/library/gc.html#gc.freeze): never collected
    by the parent, they are all in the youngest generation, and the worker's first collection would
    otherwise traverse them all, copying every memory page of the parent it touches."""
    gc.freeze()
    gc.enable()


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim`` among the symbols this process has loaded, or None (another C library, or none)."""
    try:
        return getattr(ctypes.CDLL(None), "malloc_trim", None)
    except (OSError, TypeError):  # TypeError: no CDLL(None) on Windows
        return None


def release_memory() -> None:
    """Give the memory the C allocator holds free back to the system, where it can (glibc's ``malloc_trim(0)``,
    https://man7.org/linux/man-pages/man3/malloc_trim.3.html; elsewhere nothing). Called before this process
    forks: the strings it has let go of since (large ones are the C allocator's, not Python's own small-object
    arenas) would otherwise stay in its resident memory between live objects, and every forked process would
    map them too."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _pool(processes: int):
    """A pool of ``processes`` forked workers (see :func:`_ignore_interrupt`), or None when the
    platform cannot make one (no ``fork``, no semaphores): the caller then works in this process."""
    release_memory()
    try:
        return multiprocessing.get_context("fork").Pool(processes, initializer=_ignore_interrupt)
    except (OSError, ValueError, ImportError):
        return None


def _run(number: int) -> list:
    return _JOBS[number]()


#: A long :func:`run_jobs` forks its workers afresh this many times, a generation of the jobs each: a worker's
#: private memory grows as it works (its caches, and the parent's memory pages it touches, copied on write as
#: reference counts change: 1.1-1.2 GB a page worker at 100,000 papers), and a fresh fork starts from the
#: parent's pages again (BENCHMARKS.md, issue 25, "page workers in generations").
GENERATIONS = 4
#: A generation holds at least this many jobs a worker (fewer jobs run in one generation).
GENERATION_JOBS = 4


def generations(count: int, processes: int) -> list[range]:
    """Job numbers ``0 … count − 1`` cut into at most :data:`GENERATIONS` consecutive ranges, each of at least
    ``processes`` × :data:`GENERATION_JOBS` jobs (but the last), in order."""
    size = max(processes * GENERATION_JOBS, -(-count // GENERATIONS), 1)
    return [range(a, min(a + size, count)) for a in range(0, count, size)]


def run_jobs(jobs: list[tuple[Callable[[], list], int]], on_done: Callable[[list, int], None],
             meanwhile: Callable[[], None] | list[Callable[[], None]] | None = None) -> None:
    """Run ``jobs`` (each a callable and its weight for progress) and call ``on_done(results, weight)`` per job.

    Jobs are started in the given order (put the longest first). Uses forked workers when :func:`worker_count`
    allows and the total weight is at least :data:`MIN_PARALLEL_WORK`: a pool for each of the
    :func:`generations` of the jobs, forked from this process (never from a thread) when the one before has
    finished. ``meanwhile`` (optional: a callable, or a
    list of them run in order) runs in this process once the workers have
    started (after the jobs when there are no workers); between its steps, the
    jobs finished so far are handed to ``on_done`` (so a progress line moves
    while this process works). An exception in a job or in ``meanwhile`` is raised here.
    Once the workers of a generation are forked (they hold its jobs), this process lets go of those jobs and of
    what they hold (e.g. the pages' contexts, ~0.3 GB at 100,000 papers) for ``meanwhile`` to use; ``jobs`` is
    emptied.
    """
    global _JOBS, _STOP
    steps = meanwhile if isinstance(meanwhile, list) else [meanwhile or (lambda: None)]
    processes = min(worker_count(), len(jobs))
    _JOBS = [job for job, _ in jobs]  # the forked workers find their jobs here
    _STOP = _FORK.RawValue("b", 0) if _FORK is not None else None
    pool = _pool(processes) if processes >= 2 and sum(w for _, w in jobs) >= MIN_PARALLEL_WORK else None
    if pool is None:
        _JOBS = []
        for job, weight in jobs:
            on_done(job(), weight)
        for step in steps:
            step()
        return
    weights = [w for _, w in jobs]
    jobs.clear()
    running = _Generations(pool, generations(len(weights), processes), processes)
    try:
        for step in steps:
            step()
            for number, written in running.finished():
                on_done(written, weights[number])
        for number, written in running.rest():
            on_done(written, weights[number])
        running.close()
    except KeyboardInterrupt:  # Ctrl-C: end at once
        raise
    except BaseException:
        running.drain()
        raise
    finally:
        running.terminate()
        _JOBS = []


class _Generations:
    """The generations of :func:`run_jobs` (job numbers, in order), each run by a pool of its own: ``pool``
    (forked already) runs the first."""

    def __init__(self, pool, ranges: list[range], processes: int) -> None:
        self._pending = list(ranges)
        self._processes = processes
        self._pool = None
        self._start(pool)

    def _start(self, pool) -> None:
        numbers = self._pending.pop(0)
        self._pool, self._left = pool, len(numbers)
        if pool is None:  # no pool to be had now: this process runs the generation
            self._results = iter([(number, _run(number)) for number in numbers])
        else:
            self._results = pool.imap_unordered(_numbered, numbers)
        for number in numbers:
            _JOBS[number] = None  # the workers have their copies

    def _next(self) -> bool:
        """Start the next generation once this one is done; False when there is none."""
        if self._left or not self._pending:
            return False
        self.close()
        self._start(_pool(self._processes))
        return True

    def finished(self):
        """The ``(number, result)`` of the jobs finished by now, without waiting (see :func:`_finished`)."""
        while True:
            for item in _finished(self._results):
                self._left -= 1
                yield item
            if not self._next():
                return

    def rest(self):
        """The ``(number, result)`` of every job not handed out yet, waiting for them."""
        while True:
            for item in self._results:
                self._left -= 1
                yield item
            if not self._next():
                return

    def drain(self) -> None:
        """End the running generation on an error: its workers skip the jobs still queued (:data:`_STOP`), finish the
        one they are running, and exit; no later generation starts."""
        self._pending = []
        if _STOP is not None:
            _STOP.value = 1
            self.close()

    def close(self) -> None:
        """End the running generation once its jobs are done: its workers exit when told there is no more work
        (``Pool.close`` and ``join``: never killed while they may hold one of the pool's locks)."""
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None

    def terminate(self) -> None:
        """End the workers of the running generation at once (Ctrl-C; after :meth:`close` or :meth:`drain`, nothing
        is left)."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool = None


def _finished(results):
    """The results of ``results`` (an ``imap_unordered`` iterator) that are there already, without waiting
    (``next(timeout=0)``, https://docs.python.org/3/library/multiprocessing.html#multiprocessing.pool.Pool.imap);
    the iterator goes on after them."""
    while True:
        try:
            yield results.next(timeout=0)
        except (multiprocessing.TimeoutError, StopIteration):
            return


def _numbered(number: int) -> tuple[int, list | None]:
    if _STOP is not None and _STOP.value:  # run_jobs is ending on an error: skip the jobs still queued
        return number, None
    return number, _run(number)


#: Set (to 1) when :func:`run_jobs` ends on an error: its workers skip the jobs still queued, so the pool can be closed
#: and joined rather than terminated. Terminating a pool whose workers are busy can leave its result queue's lock held
#: by a killed worker, and ``Pool.terminate`` then waits for it forever (https://github.com/python/cpython/issues/96995;
#: found by a clean-clone test run hanging in a failed rebuild). Shared memory without a lock (``RawValue``).
_STOP = None


def parallel_map(function: Callable, items: list, progress=None, chunk: int = 50) -> list:
    """``[function(x) for x in items]``, on every core when :func:`worker_count` allows and ``items`` are many.

    ``function`` must be a module-level function (it is sent to forked
    workers by name); items and results are pickled. ``progress`` is
    advanced per item. Order is kept.
    """
    processes = worker_count()
    if processes < 2 or len(items) < MIN_MAP_ITEMS:
        results = []
        for item in items:
            results.append(function(item))
            if progress is not None:
                progress.advance()
        return results
    results = []
    pool = _pool(processes)
    if pool is None:
        return [_advance(function(x), progress) for x in items]
    with pool:
        for result in pool.imap(function, items, chunksize=chunk):
            results.append(result)
            if progress is not None:
                progress.advance()
    return results


def _advance(result, progress):
    if progress is not None:
        progress.advance()
    return result


def fork_pool(processes: int):
    """A pool of ``processes`` forked workers that ignore SIGINT (see :func:`_pool`), or None when
    the platform cannot make one; leaving its ``with`` block terminates the workers."""
    return _pool(processes)


#: An answer of a background job pickled to more bytes than this is handed over in a file (see
#: :func:`_background_main`), not through the pipe, whose buffer (64 kB on Linux) would hold the process
#: until the parent reads it.
PIPE_ANSWER = 32 * 1024


class Background:
    """A job running in a forked process of its own (see :func:`start_background`)."""

    def __init__(self, process, connection, spill) -> None:
        self._process = process
        self._connection = connection
        self._spill = spill

    def result(self) -> list:
        """Wait for the job and return its result; re-raises the exception the job raised
        (``RuntimeError`` when the process ended without an answer)."""
        try:
            kind, value = self._connection.recv()
            if kind == "spilled":  # the pickled answer, ``value`` bytes, is in the spill file
                self._spill.seek(0)
                kind, value = pickle.loads(self._spill.read(value))
        except EOFError:
            kind, value = "error", RuntimeError(f"the background worker ended with status {self._process.exitcode}")
        finally:
            self._connection.close()
            self._spill.close()
            self._process.join()
        if kind == "error":
            raise value
        return value

    def cancel(self) -> None:
        """Stop the job (when it is still running) and reap its process."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._connection.close()
        self._spill.close()


def _background_main(job: Callable[[], list], connection, spill) -> None:
    """Run ``job`` and hand its answer to the parent: through ``connection`` when it is small, else written
    to ``spill`` (a file both processes hold) with its size sent, so that this process ends (and gives its
    memory back) at once instead of waiting, blocked on a full pipe, until the parent reads the answer."""
    _worker_signals()  # Ctrl-C reaches the parent, which cancels the job
    collect_garbage()
    try:
        answer = ("ok", job())
    except BaseException as exc:  # sent to the parent, raised there
        answer = ("error", exc)
    try:
        data = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # e.g. an exception that cannot be pickled
        data = pickle.dumps(("error", RuntimeError(f"background job failed: {answer[1]!r} ({exc})")))
    try:
        if len(data) <= PIPE_ANSWER:
            raise OSError("small enough for the pipe")
        spill.seek(0)
        spill.write(data)
        spill.flush()
    except OSError:  # small, or the file cannot be written: through the pipe
        connection.send_bytes(data)
    else:
        connection.send(("spilled", len(data)))
    connection.close()


def start_background(job: Callable[[], list]) -> Background | None:
    """Start ``job`` (a callable returning something picklable, e.g. ``list[Written]``) in a forked
    process that inherits this one's memory, or return None when :func:`worker_count` is below 2
    (the caller then runs ``job`` itself). Starts no thread, so a pool can still be forked after it."""
    if worker_count() < 2 or _FORK is None:
        return None
    release_memory()
    try:
        spill = tempfile.TemporaryFile()
        receiver, sender = _FORK.Pipe(duplex=False)
        process = _FORK.Process(target=_background_main, args=(job, sender, spill), daemon=True)
        process.start()
    except (OSError, ValueError):
        return None
    sender.close()
    return Background(process, receiver, spill)
