"""Write the pages and the search index, on every core when that helps.

The pages to render are jobs in chunks. With two or more cores and ``fork``
available they run in a pool of forked worker processes that inherit the site
model, so nothing is pickled but the results (paths and file stats).
Otherwise, or for small builds, they run in this process. The search index
(one job: :func:`search.index_files`, a black box over the whole site) runs
in a forked process of its own (:func:`start_background`) while the build
goes on: reading-list features, planning, pages, ``.bib`` files and feeds.
Either way the bytes written are the same.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import jinja2

from .pages import Page
from .views import Item
from .writer import Output, render_page, write_file, write_spliced

#: Pages per job: small enough to balance the cores, large enough to keep overhead low.
CHUNK = 250
#: Below this many pages to render the build stays in one process (forking costs more than it saves).
MIN_PARALLEL_WORK = 500
#: Below this many items :func:`parallel_map` stays in one process.
MIN_MAP_ITEMS = 200

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
    terminates the pool (leaving no process behind) and discards the staging folder; and they
    collect garbage (:func:`collect_garbage`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    collect_garbage()


def collect_garbage() -> None:
    """Turn the cyclic garbage collector on in a forked process: the build's own process runs without
    it (see :func:`site_builder.pipeline.build`), but a worker makes short-lived objects (rendered
    pages, the search index) whose cycles must not pile up. The objects inherited from the parent are
    frozen first (``gc.freeze``, https://docs.python.org/3/library/gc.html#gc.freeze): never collected
    by the parent, they are all in the youngest generation, and the worker's first collection would
    otherwise traverse them all, copying every memory page of the parent it touches."""
    gc.freeze()
    gc.enable()


def _pool(processes: int):
    """A pool of ``processes`` forked workers (see :func:`_ignore_interrupt`), or None when the
    platform cannot make one (no ``fork``, no semaphores): the caller then works in this process."""
    try:
        return multiprocessing.get_context("fork").Pool(processes, initializer=_ignore_interrupt)
    except (OSError, ValueError, ImportError):
        return None


@dataclass
class Written:
    """A file a job wrote: site-root relative ``path``, cache ``key`` (or None), ``[size, mtime_ns, inode]``."""

    path: str
    key: str | None
    stat: list


def _write(staging: Path, path: str, text: str | list[bytes], key: str | None) -> Written:
    """Write ``text`` (or the bytes parts of its UTF-8, one after another) to ``path`` under ``staging``."""
    file = os.path.join(staging, path)
    return Written(path, key, write_file(file, text) if isinstance(text, str) else write_spliced(file, text))


def page_job(env: jinja2.Environment, pages: list[tuple[Page, str | None]], common: dict,
             staging: Path, key_of: Callable | None = None,
             after: Callable[[list[Page]], None] | None = None) -> Callable[[], list[Written]]:
    """A job rendering ``pages`` (each with its cache key) into their claimed files under ``staging``;
    ``key_of(page, key)``, when given, gives the key recorded for each page (computed in the worker);
    ``after(pages)``, when given, runs once they are written (in the worker)."""
    key_of = key_of or (lambda page, key: key)

    def run() -> list[Written]:
        written = [_write(staging, page.path, render_page(env, page, common), key_of(page, key))
                   for page, key in pages]
        if after is not None:
            after([page for page, _ in pages])
        return written
    return run


def index_files(site, state: Path | None = None, models=None) -> dict[str, str | list[bytes]]:
    """:func:`site_builder.search.index_file_parts` (``{path: bytes parts of its text}``; a text is
    written as well), imported on first use: the search modules are needed only where the index is
    built (the index process), not for the build's own start-up."""
    from .search import index_file_parts
    return index_file_parts(site, state, models)


def index_job(site, paths: tuple[str, ...], key: str | None, staging: Path,
              state: Path | None = None, models=None) -> Callable[[], list[Written]]:
    """A job building the search index of ``site`` into the claimed files ``paths`` (:data:`search.INDEX_FILES`),
    with the tokenized papers kept in ``state`` and the papers' model digests ``models`` (or None; see
    :func:`search.index_files`)."""
    def run() -> list[Written]:
        files = index_files(site, state, models)
        return [_write(staging, path, files[path], key) for path in paths]
    return run


def _run(number: int) -> list[Written]:
    return _JOBS[number]()


def run_jobs(jobs: list[tuple[Callable[[], list[Written]], int]], on_done: Callable[[list[Written], int], None],
             meanwhile: Callable[[], None] | None = None) -> None:
    """Run ``jobs`` (each a callable and its weight for progress) and call ``on_done(results, weight)`` per job.

    Jobs are started in the given order (put the longest first). Uses a
    forked pool when :func:`worker_count` allows and the total weight is at
    least :data:`MIN_PARALLEL_WORK`. ``meanwhile`` (optional) runs in this
    process once the workers have started (after the jobs when there are no
    workers). An exception in a job or in ``meanwhile`` is raised here.
    """
    global _JOBS
    meanwhile = meanwhile or (lambda: None)
    processes = min(worker_count(), len(jobs))
    _JOBS = [job for job, _ in jobs]  # the forked workers find their jobs here
    pool = _pool(processes) if processes >= 2 and sum(w for _, w in jobs) >= MIN_PARALLEL_WORK else None
    if pool is None:
        _JOBS = []
        for job, weight in jobs:
            on_done(job(), weight)
        meanwhile()
        return
    weights = [w for _, w in jobs]
    try:
        with pool:  # leaving the block (also on an exception or Ctrl-C) terminates the workers
            results = pool.imap_unordered(_numbered, range(len(jobs)))
            meanwhile()
            for number, written in results:
                on_done(written, weights[number])
    finally:
        _JOBS = []


def _numbered(number: int) -> tuple[int, list[Written]]:
    return number, _run(number)


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


def chunks(items: list, size: int = CHUNK) -> list[list]:
    """``items`` cut into consecutive lists of at most ``size``."""
    return [items[i:i + size] for i in range(0, len(items), size)]


def _listed_ids(page: Page) -> tuple[str, ...]:
    """The ids of the papers ``page`` lists as items (through the ``paper_item`` of its folder): those
    of a venue, track, author or tag/keyword page; ``()`` for other pages."""
    context = page.context
    shown = context.get("papers")
    if shown is None:
        view = context.get("author") or context.get("term")
        shown = getattr(view, "papers", None)
    if not isinstance(shown, tuple) or not shown or not isinstance(shown[0], Item):
        return ()
    return tuple(item.id for item in shown)


def page_chunks(todo: list[tuple[Page, str | None]], size: int = CHUNK) -> list[list[tuple[Page, str | None]]]:
    """``todo`` (pages with their keys) cut into jobs of at most about ``size`` pages, so that the pages
    listing the same papers from one folder share a job (and so a worker): a folder's paper items
    (:meth:`writer.PageFolder.paper_item`) are then rendered by one worker rather than by each.

    List pages come first, by folder; a folder of at most ``size`` of them (a venue and its tracks,
    started first: venue pages are the longest) is never split, a larger one (the authors) is ordered by the smallest id of the papers each
    page lists, so co-authors of a paper tend to fall in one job. The other pages follow in their
    order. Every entry of ``todo`` is in exactly one job; the order of the pages written does not
    change the output.
    """
    lists: dict[str, list] = {}
    others = []
    for entry in todo:
        ids = _listed_ids(entry[0])
        if ids:
            lists.setdefault(entry[0].path.rpartition("/")[0], []).append((min(ids), entry))
        else:
            others.append(entry)
    jobs: list[list] = []
    current: list = []
    for folder in sorted(lists, key=lambda f: (len(lists[f]) > size, f)):  # the small folders' heavy pages first
        group = [entry for _, entry in sorted(lists[folder], key=lambda pair: (pair[0], pair[1][0].path))]
        if len(group) > size:
            jobs += chunks(group, size)
            continue
        if current and len(current) + len(group) > size:
            jobs.append(current)
            current = []
        current += group
    if current:
        jobs.append(current)
    return jobs + chunks(others, size)


def claim_all(output: Output, paths: list[str]) -> None:
    """Reserve ``paths`` in ``output`` before worker processes write them."""
    for path in paths:
        output.claim(path)


def fork_pool(processes: int):
    """A pool of ``processes`` forked workers that ignore SIGINT (see :func:`_pool`), or None when
    the platform cannot make one; leaving its ``with`` block terminates the workers."""
    return _pool(processes)


class Background:
    """A job running in a forked process of its own (see :func:`start_background`)."""

    def __init__(self, process, connection) -> None:
        self._process = process
        self._connection = connection

    def result(self) -> list:
        """Wait for the job and return its result; re-raises the exception the job raised
        (``RuntimeError`` when the process ended without an answer)."""
        try:
            kind, value = self._connection.recv()
        except EOFError:
            kind, value = "error", RuntimeError(f"the background worker ended with status {self._process.exitcode}")
        finally:
            self._connection.close()
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


def _background_main(job: Callable[[], list], connection) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which cancels the job
    collect_garbage()
    try:
        answer = ("ok", job())
    except BaseException as exc:  # sent to the parent, raised there
        answer = ("error", exc)
    try:
        connection.send(answer)
    except Exception as exc:  # e.g. an exception that cannot be pickled
        connection.send(("error", RuntimeError(f"background job failed: {answer[1]!r} ({exc})")))
    connection.close()


def start_background(job: Callable[[], list]) -> Background | None:
    """Start ``job`` (a callable returning something picklable, e.g. ``list[Written]``) in a forked
    process that inherits this one's memory, or return None when :func:`worker_count` is below 2
    (the caller then runs ``job`` itself). Starts no thread, so a pool can still be forked after it."""
    if worker_count() < 2 or _FORK is None:
        return None
    try:
        receiver, sender = _FORK.Pipe(duplex=False)
        process = _FORK.Process(target=_background_main, args=(job, sender), daemon=True)
        process.start()
    except (OSError, ValueError):
        return None
    sender.close()
    return Background(process, receiver)
