"""The search index files of one build: kept, or built in a forked process while the build goes on.

:class:`IndexRun` is started as soon as the site model exists (before the reading-list
features, see :func:`site_builder.pipeline.build`). Its manifest's path is claimed in the output at
once (so the 404 page's list of top-level names, :func:`site_builder.output.hosting.write_hosting_files`,
holds the index's folder whatever is decided; the other files are claimed when they are known). Then, in a forked process of its own
(:func:`site_builder.parallel.start_background`), or, where none can be forked, in this process at
:meth:`IndexRun.finish`: the index key is computed (:meth:`~site_builder.incremental.outputs.OutputRecord.key` of the
whole model, which is all the index shows); when the previous output's manifest has that key and the
index's files are untouched they are kept (the parent keeps them at :meth:`IndexRun.finish`), else
:func:`site_builder.search.index.index_items` makes them and the files whose text is unchanged are
kept, the others written. The bytes are the same either way.

Digesting the whole model is most of the key's cost, and the build needs the same digests of its
papers later (:func:`site_builder.pages.replan.paper_digests`). So the process that computes the key hands
every paper's digest back through an anonymous shared memory map (:class:`SharedDigests`), and the
build adopts them (:meth:`IndexRun.lend_digests`) instead of digesting the papers again: the whole-model
digest is off the build's serial path.
"""

from __future__ import annotations

import mmap
import os

from ..model import urls
from .. import parallel
from . import workers

#: The search index's folder (every file of :func:`site_builder.search.index.index_items` is in it) and its
#: manifest, claimed at once (the other files' names are known once the index is made).
INDEX_FOLDER = urls.SEARCH_FOLDER
MANIFEST = urls.SEARCH_MANIFEST_JS

#: Bytes of one paper digest (SHA-256, as :class:`~site_builder.incremental.cache.Fingerprinter` memoises them).
DIGEST_BYTES = 32


class SharedDigests:
    """The :class:`~site_builder.incremental.cache.Fingerprinter` digests of ``count`` papers, handed from a forked
    process to its parent: an anonymous shared memory map of ``count`` × 32 bytes (``mmap(-1, …)`` is
    ``MAP_SHARED``, https://docs.python.org/3/library/mmap.html) and a pipe that says when they are
    there. Make it before forking; :meth:`publish` in the child, :meth:`receive` in the parent after
    :meth:`forked`."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._map = mmap.mmap(-1, max(1, count * DIGEST_BYTES))
        self._read, self._write = os.pipe()

    def forked(self) -> None:
        """In the parent, once the child is started: close the pipe's writing end (so :meth:`receive`
        sees the end of the pipe when the child ends without publishing)."""
        if self._write is not None:
            os.close(self._write)
            self._write = None

    def publish(self, digests: list[bytes] | None) -> None:
        """In the child: hand over ``digests`` (one 32-byte digest per paper, in order), or None for
        "none to give" (the model could not be digested)."""
        ok = digests is not None and len(digests) == self.count and all(len(d) == DIGEST_BYTES for d in digests)
        if ok:
            self._map[:self.count * DIGEST_BYTES] = b"".join(digests)
        os.write(self._write, b"\x01" if ok else b"\x00")

    def receive(self) -> list[bytes] | None:
        """In the parent: wait for :meth:`publish`; the digests, or None when the child gave none or
        ended without publishing. Call once."""
        try:
            flag = os.read(self._read, 1)
        finally:
            os.close(self._read)
        if flag != b"\x01":
            return None
        data = self._map[:self.count * DIGEST_BYTES]
        return [data[i:i + DIGEST_BYTES] for i in range(0, len(data), DIGEST_BYTES)]

    def close(self) -> None:
        """Release the pipe ends still open in this process and the map."""
        for fd in (self._read, self._write):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._read = self._write = None
        self._map.close()


def index_job(site, cache, staging, share: SharedDigests | None):
    """The job of :class:`IndexRun`: key the index (handing the papers' digests to ``share``), then
    ``(written, kept)``: ``list[Written]`` of the files written into ``staging`` and the ``(path, key)`` of
    the previous build's files to keep (:func:`workers.index_job`); every previous index file when the
    previous manifest has the whole model's key and no file of the folder was touched since (nothing is
    computed then). The index's state is kept in ``cache.store``. The job returns that and the
    diagnostics it added to ``cache.diagnostics`` (a corrupt state file, one that cannot be written: the
    store's warnings), for a parent process to take (:meth:`IndexRun.finish`), as :meth:`BuildCache.changes_since
    <site_builder.incremental.cache.BuildCache.changes_since>` hands them from the process writing the other files."""
    def run():
        found = len(cache.diagnostics.items)
        key = cache.outputs.key("search-index", site)
        try:  # memoised by the key's digest of the whole model
            digests = cache.fingerprints.digests(site.papers) if key is not None else None
        except Exception:  # noqa: BLE001 - a paper that cannot be digested: the build digests them itself
            digests = None
        if share is not None:
            share.publish(digests)
        previous = cache.outputs.previous_paths(INDEX_FOLDER)
        if cache.outputs.reusable(MANIFEST, key) is not None and all(map(cache.outputs.previous_file, previous)):
            result = [], [(path, cache.outputs.previous_key(path)) for path in previous]
        else:
            result = workers.index_job(site, key, staging, cache.store, cache.outputs, digests)()
        return result, cache.diagnostics.items[found:]
    return run


class IndexRun:
    """The search index of ``site`` written into ``output`` (a :class:`~site_builder.output.writer.Output`),
    with ``cache`` (a :class:`~site_builder.incremental.cache.BuildCache`, possibly disabled).

    ``background`` False builds it in this process at :meth:`finish` (no fork).
    """

    def __init__(self, site, output, cache, background: bool = True) -> None:
        self.cache = cache
        self.paths: list[str] = [MANIFEST]  # the index's files, once finished
        self.reused = False
        self._site, self._output = site, output
        output.claim(MANIFEST)
        self._share = None
        if background and parallel.worker_count() >= 2 and cache.enabled:
            self._share = SharedDigests(len(site.papers))
        self._job = index_job(site, cache, output.staging, self._share)
        self._worker = parallel.start_background(self._job) if background else None
        if self._share is not None:
            if self._worker is None:  # no process could be forked: the job runs here, without the share
                self._share.close()
                self._share = None
                self._job = index_job(site, cache, output.staging, None)
            else:
                self._share.forked()

    @property
    def pending(self) -> bool:
        """Whether :meth:`finish` has work to wait for or do."""
        return self._job is not None

    def lend_digests(self, fingerprints) -> bool:
        """Give ``fingerprints`` (the build's :class:`~site_builder.incremental.cache.Fingerprinter`) the papers'
        digests computed by the index process, waiting for them; True when it got them (else it
        digests the papers itself when asked). Call at most once, before :meth:`finish`."""
        share, self._share = self._share, None
        if share is None:
            return False
        try:
            digests = share.receive()
        finally:
            share.close()
        if digests is None:
            return False
        fingerprints.adopt(self._site.papers, digests)
        return True

    def finish(self) -> None:
        """Wait for the index (or build it here), keep the previous files it found unchanged and note the
        new ones in the cache. Re-raises what the job raised. Call once, before the output is committed."""
        if self._job is None:
            return
        job, worker = self._job, self._worker
        self._job = self._worker = None
        self._drop_share()
        result, found = worker.result() if worker is not None else job()
        if worker is not None:  # the index process's cache warnings (in this process they are there already)
            self.cache.diagnostics.extend(found)
        written, kept = result
        self._output.release(MANIFEST)
        reused = self.cache.outputs.reuse_pages(kept, self._output)
        self.reused = bool(kept) and not written and len(reused) == len(kept)
        if len(reused) < len(kept):  # a kept file changed since the index process looked: write it here
            key = self.cache.outputs.key("search-index", self._site)
            redo = workers.index_job(self._site, key, self._output.staging, self.cache.store, self.cache.outputs)
            missing = {path for path, _ in kept} - reused
            written = written + [w for w in redo()[0] if w.path in missing]
        for item in written:
            self._output.claim(item.path)
            self.cache.outputs.record_stat(item.path, item.key, item.stat)
        self.paths = sorted(reused.union(item.path for item in written))

    def _drop_share(self) -> None:
        if self._share is not None:
            self._share.close()
            self._share = None

    def cancel(self) -> None:
        """Stop a running index process (after a failure); nothing more is recorded."""
        self._drop_share()
        worker, self._job, self._worker = self._worker, None, None
        if worker is not None:
            worker.cancel()
