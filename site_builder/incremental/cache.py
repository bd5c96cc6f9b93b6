"""The build cache: reuse what did not change since the last build (under ``.cache/``).

Two kinds of reuse, both keyed by content, never by time stamps of inputs:

- **memo** (:mod:`.memo`, ``<cache>/memo.marshal``): per-paper work that is expensive and a
  pure function of a string: :func:`render.render_abstract`,
  :func:`titles.derive_title`, :func:`render.render_inline`. Keyed by
  SHA-256 of the function name and its input.
- **outputs** (:mod:`.outputs`, ``<cache>/outputs/<digest of the output folder>.marshal``): a
  manifest of the previous build of one output folder: for each reusable file
  its key (a digest of everything the file shows) and its ``(size, mtime_ns,
  inode)``. A file whose key is unchanged and that is still exactly where the
  previous build left it (same stat) is kept where it is
  (:meth:`~site_builder.output.writer.Output.keep`) instead of being written again. Reusable: ``papers.json`` and
  the search index (key: the whole site model, which is all they show), and
  every page whose context can be digested (all but ``search.html``).

  **The rule for page keys** (:class:`site_builder.output.rendering.PageReuse`): the key
  of a page is the digest (:class:`Fingerprinter`) of exactly the values
  :func:`site_builder.output.writer.render_page` hands its template: the
  :class:`~site_builder.pages.plan.Page` (path, template, title and its whole
  context) and the ``common`` context (``config``), plus the code version and
  a digest of the template folder in use. It is not a list of fields kept by
  hand: whatever a template can show must reach it through those values, since
  page templates receive nothing else (no ``site``, no ``library``: their
  contexts hold the plain views of :mod:`site_builder.pages.views`, whose methods
  are pure functions of their fields; the template globals ``link``,
  ``paper_item``, ``chrome``, ``tags_in`` and ``urls``, and the ``link`` and
  ``macros`` that ``render_page`` derives from the page's folder, are pure
  functions of their arguments, the page's path and ``config``). A context holding anything the
  fingerprinter cannot digest (``search.html`` gets the whole library) gives
  no key: that page is rendered on every build. The build date is shown only
  by feeds, which are not pages and are written on every build; so are the
  site's ``papers.bib``, the sitemap and the 404 page. Venue ``.bib`` files and
  the parts of ``papers.json`` are keyed by their papers (:mod:`.bibfiles`,
  :mod:`.papersjson`). Which pages a rebuild plans and keys at all:
  :mod:`site_builder.pages.replan`; a build with nothing changed: :mod:`.unchanged`.

Every stage's own cache files (the lists, authors, BibTeX keys, related papers, the search index's state) go
through the same :class:`~.store.Store` (:attr:`BuildCache.store`).

Every key includes :func:`code_version`, a digest of the package's sources,
templates, assets, the npm lock file and the versions of the Python libraries
that shape the output; any change there makes the whole cache miss. So a
stale cache never changes the output: the same inputs always give the same
bytes (``tests/incremental/test_cache.py`` compares cold and warm builds file by file).

A cache file that cannot be read or parsed is ignored with a warning
(``<path>: warning: …``) and rewritten; a cache folder that cannot be
written only costs speed (one warning).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import strmemo
from .digest import Fingerprinter, code_version
from .memo import WorkMemo
from .outputs import OutputChanges, OutputMark, OutputRecord
from .store import Store
from .unchanged import cache_state
from ..diagnostics import Diagnostics


class BuildCache:
    """The cache of one build, in ``folder`` (None: disabled, every part then does the work).

    Its parts: :attr:`store`, the cache's files (one codec, one corrupt-file warning), for every stage keeping
    values of its own; :attr:`memo`, the per-paper work (:class:`~.memo.WorkMemo`); :attr:`outputs`, the record
    of the output folder's files and page reuse (:class:`~.outputs.OutputRecord`); and the cache files written
    off the build's path (:meth:`defer`). Problems with the cache become warnings in ``diagnostics`` (as
    ``<file>: warning: …``); they never fail the build.
    """

    def __init__(self, folder: Path | None, diagnostics: Diagnostics | None = None):
        self.folder = Path(folder) if folder is not None else None
        self.diagnostics = diagnostics if diagnostics is not None else Diagnostics()
        self.code = code_version()
        self.store = Store(self.folder, self.code, self.diagnostics)
        self.fingerprints = Fingerprinter()
        self.memo = WorkMemo(self.store)
        self.outputs = OutputRecord(self.store, self.fingerprints, self.code)
        self._deferred: list[Callable[[], None]] = []  # cache files to write later (see defer)
        #: SHA-256 (32 bytes) of input files this build has read already, by path as a string (the lists, set by
        #: the build from :func:`site_builder.incremental.unchanged.inputs_digest`, taken by
        #: :mod:`site_builder.incremental.lists`).
        self.file_digests: dict[str, bytes] = {}
        #: Whether the list cache leaves the writing of an edited list's cache files to :meth:`defer`
        #: (set by a build that runs :meth:`run_deferred`; see :func:`site_builder.incremental.lists.read_lists`).
        self.defer_writes = False

    @property
    def enabled(self) -> bool:
        """Whether a cache folder is in use."""
        return self.folder is not None

    def defer(self, job: Callable[[], None]) -> None:
        """Leave ``job`` (writing cache files for the next build, e.g. an edited list's, see
        :mod:`site_builder.incremental.lists`) to :meth:`run_deferred`: off the path of this build."""
        self._deferred.append(job)

    def run_deferred(self) -> None:
        """Run the jobs :meth:`defer` took, once (in this process: the build calls it in the process that
        writes the other files, beside the pages, and :meth:`save` calls it for what is left)."""
        jobs, self._deferred = self._deferred, []
        for job in jobs:
            job()

    def deferred_elsewhere(self) -> None:
        """Forget the jobs :meth:`defer` took: a forked process inheriting them runs them (:meth:`run_deferred`)."""
        self._deferred = []

    def mark(self) -> CacheMark:
        """Where this build's records stand now, for :meth:`changes_since` (e.g. in a forked process)."""
        return CacheMark(self.outputs.mark(), len(self.diagnostics.items), strmemo.mark())

    def changes_since(self, mark: CacheMark) -> CacheChanges:
        """What this cache recorded since ``mark`` (:meth:`mark`): for :meth:`apply` in another process."""
        return CacheChanges(self.outputs.changes_since(mark.outputs), self.diagnostics.items[mark.diagnostics:],
                            strmemo.added_since(mark.strings))

    def apply(self, changes: CacheChanges) -> None:
        """Take ``changes`` (:meth:`changes_since` of this cache's copy in another process) into this cache."""
        self.outputs.apply(changes.outputs)
        self.diagnostics.extend(changes.diagnostics)
        strmemo.merge(changes.strings)

    def save(self) -> None:
        """Run the jobs :meth:`defer` took that no other process ran, then write the memo (if it changed) and
        the manifest of this build (call after the output is committed)."""
        self.run_deferred()
        if self.folder is None:
            return
        self.memo.save()
        self.outputs.save(cache_state(self.folder) if self.outputs.snapshot is not None else None)


@dataclass(frozen=True)
class CacheMark:
    """Where a :class:`BuildCache`'s records stood (:meth:`BuildCache.mark`): its ``outputs``' mark, its number
    of diagnostics and a :func:`strmemo.mark`."""

    outputs: OutputMark
    diagnostics: int
    strings: Any


@dataclass
class CacheChanges:
    """What a :class:`BuildCache` recorded since a :class:`CacheMark` (:meth:`BuildCache.changes_since`),
    picklable: its ``outputs``' changes, the new ``diagnostics`` and the new :mod:`strmemo` entries ``strings``
    (per table)."""

    outputs: OutputChanges = field(default_factory=OutputChanges)
    diagnostics: list = field(default_factory=list)
    strings: dict = field(default_factory=dict)
