"""The search index files of one build: kept, or built in a forked process while the build goes on.

:class:`IndexRun` is started as soon as the site model exists (before the reading-list
features, see :func:`site_builder.pipeline.build`): when the previous output's index files
have the key of this site (:meth:`~site_builder.cache.BuildCache.key` of the whole model, which
is all they show) they are kept; else :func:`site_builder.search.index_files` runs in a forked
process of its own (:func:`site_builder.workers.start_background`), or, where none can be
forked, in this process at :meth:`IndexRun.finish`. The bytes are the same either way.
"""

from __future__ import annotations

from . import workers
from .index_state import state_path
from .search import INDEX_FILES


class IndexRun:
    """The search index of ``site`` written into ``output`` (a :class:`~site_builder.writer.Output`),
    with ``cache`` (a :class:`~site_builder.cache.BuildCache`, possibly disabled).

    ``background`` False builds it in this process at :meth:`finish` (no fork).
    """

    def __init__(self, site, output, cache, background: bool = True) -> None:
        self.cache = cache
        self.paths = INDEX_FILES
        self.key = cache.key("search-index", site)
        self.reused = (all(cache.reusable(path, self.key) is not None for path in self.paths)
                       and all([cache.reuse(path, self.key, output) for path in self.paths]))
        self._job = self._worker = None
        if self.reused:
            return
        workers.claim_all(output, list(self.paths))
        self._job = workers.index_job(site, self.paths, self.key, output.staging, state_path(cache.folder))
        self._worker = workers.start_background(self._job) if background else None

    @property
    def pending(self) -> bool:
        """Whether :meth:`finish` has work to wait for or do."""
        return self._job is not None

    def finish(self) -> None:
        """Wait for the index (or build it here) and note its files in the cache. Re-raises what the
        job raised. Call once, before the output is committed."""
        if self._job is None:
            return
        job, worker = self._job, self._worker
        self._job = self._worker = None
        for written in (worker.result() if worker is not None else job()):
            self.cache.record_stat(written.path, written.key, written.stat)

    def cancel(self) -> None:
        """Stop a running index process (after a failure); nothing more is recorded."""
        worker, self._job, self._worker = self._worker, None, None
        if worker is not None:
            worker.cancel()
