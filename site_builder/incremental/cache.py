"""The build cache: reuse what did not change since the last build (under ``.cache/``).

Two kinds of reuse, both keyed by content, never by time stamps of inputs:

- **memo** (``<cache>/memo.marshal``): per-paper work that is expensive and a
  pure function of a string: :func:`render.render_abstract`,
  :func:`titles.derive_title`, :func:`render.render_inline`. Keyed by
  SHA-256 of the function name and its input.
- **outputs** (``<cache>/outputs/<digest of the output folder>.marshal``): a
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
  :mod:`.replan`; a build with nothing changed: :mod:`.unchanged`.

Every key includes :func:`code_version`, a digest of the package's sources,
templates, assets, the npm lock file and the versions of the Python libraries
that shape the output; any change there makes the whole cache miss. So a
stale cache never changes the output: the same inputs always give the same
bytes (``tests/incremental/test_cache.py`` compares cold and warm builds file by file).

A cache file that cannot be read or parsed is ignored with a warning
(``<path>:0: warning: …``) and rewritten; a cache folder that cannot be
written only costs speed (one warning).

The memo holds only the entries the last build used, so it never grows
beyond one site's worth.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import strmemo
from .digest import FORMAT, Fingerprinter, code_version, content_digest
from .store import SUFFIX, Store, decode
from ..diagnostics import Diagnostics
from ..read.duplicates import paper_id
from ..text.render import RenderedAbstract, render_abstract, render_inline
from ..text.titles import derive_title

#: The memo, output manifests, the strings and the list items' HTML are all read and written by
#: :class:`~site_builder.incremental.store.Store` (its codec and corrupt-file warning).
MEMO_NAME = "memo.marshal"
#: The tables of :mod:`strmemo` (~100,000 entries at 10,000 papers), in the manifest's format (marshal keeps
#: their tuple keys as they are: ~0.03 s to load and check, against ~0.05 s as JSON).
STRINGS_NAME = "strings.marshal"
#: Where an older version kept them (removed when the tables are saved).
_STRINGS_JSON = "strings.json"
#: The folder of the list items' HTML kept per page (:meth:`BuildCache.item_html`).
ITEMS_NAME = "items"


class BuildCache:
    """The cache of one build, in ``folder`` (None: disabled, every method then does the work).

    Problems with the cache become warnings in ``diagnostics`` (as
    ``<file>:0: warning: …``); they never fail the build.
    """

    def __init__(self, folder: Path | None, diagnostics: Diagnostics | None = None):
        self.folder = Path(folder) if folder is not None else None
        self.diagnostics = diagnostics if diagnostics is not None else Diagnostics()
        self.code = code_version()
        #: The cache's files (one codec, one corrupt-file warning), for stages keeping values of their own.
        self.store = Store(self.folder, self.code, self.diagnostics)
        self.fingerprints = Fingerprinter()
        self._memo_old: dict[str, Any] = {}
        self._memo_new: dict[str, Any] = {}
        self._memo_dirty = False  # memo values are kept in memory even without a cache folder
        self._strings_dirty = False
        # Values handed over by the list cache (see listcache), looked up by string, never saved in the memo:
        # one table per memo function (kind → source → encoded value): a lookup by the source string alone
        self._known: dict[str, dict[str, Any]] = {kind: {} for kind in MEMO_FUNCTIONS}
        self._known_abstracts, self._known_titles, self._known_inline = (
            self._known["render_abstract"], self._known["derive_title"], self._known["render_inline"])
        self._known_items: set[tuple[str, str | None]] = set()
        self._ids: dict[tuple[str, str | None], list] = {}
        self.reused = self.rendered = 0
        self._previous: dict[str, list] = {}
        self._manifest: dict[str, list] = {}
        self.previous_plan: dict | None = None  # the previous build's plan record (see replan), as saved
        self.snapshot: dict | None = None  # this build's record for a next build with nothing changed (see unchanged)
        self._parts_previous: dict = {}  # path → [[key, start, end], …] of a file written in parts (papersjson)
        self._parts: dict[str, list] = {}
        self.plan: dict | None = None  # this build's, saved with the manifest
        self._out: Path | None = None
        # The previous build's files checked early in a forked process (see check_files_meanwhile):
        self._check: tuple[dict, Any] | None = None  # (the manifest checked, its job's handle)
        self._not_as_recorded: set[str] | None = None  # its answer, once taken
        self._listing: dict | None = None  # the output folder's listing it made too (see output_listing)
        self._deferred: list[Callable[[], None]] = []  # cache files to write later (see defer)
        #: SHA-256 (32 bytes) of input files this build has read already, by path as a string (the lists, set by
        #: the build from :func:`site_builder.incremental.unchanged.inputs_digest`, taken by :mod:`site_builder.incremental.lists`).
        self.file_digests: dict[str, bytes] = {}
        #: Whether the list cache leaves the writing of an edited list's cache files to :meth:`defer`
        #: (set by a build that runs :meth:`run_deferred`; see :func:`site_builder.incremental.lists.read_lists`).
        self.defer_writes = False
        if self.folder is not None:
            data = self.store.load(self.folder / MEMO_NAME)
            self._memo_dirty = data is None  # (re)write a missing, stale or corrupt memo file
            strings = self.store.load(self.folder / STRINGS_NAME)
            self._strings_dirty = strings is None or not strmemo.load_tables(strings.get("tables"))
            if data is not None:
                self._memo_old = data.get("entries", {}) if isinstance(data.get("entries"), dict) else {}

    @property
    def enabled(self) -> bool:
        """Whether a cache folder is in use."""
        return self.folder is not None

    # -- memo of per-paper work ----------------------------------------------------------------

    def remember_work(self, abstract: str, title: str | None, work: list[tuple[str, str, Any]]) -> None:
        """Take the :func:`paper_work` values of item ``(abstract, title)`` from the list cache.

        They are looked up by their source string (no digest) and not written to the memo file:
        the list cache keeps them.
        """
        for kind, source, value in work:
            self._known[kind][source] = value
        self._known_items.add((abstract, title or None))

    def known(self, kind: str, source: str) -> Any:
        """The encoded value of memo function ``kind`` for ``source`` if the memo or the list cache holds it, else None."""
        table = self._known.get(kind)
        value = table.get(source) if table is not None else None
        if value is None:
            key = content_digest(kind, source)
            value = self._memo_new.get(key, self._memo_old.get(key))
        return value

    def known_items(self) -> set[tuple[str, str | None]]:
        """The ``(abstract, title or None)`` items whose per-paper work was handed over by :meth:`remember_work`."""
        return self._known_items

    def list_tables(self) -> tuple[dict, set, dict]:
        """The tables :meth:`remember_work` and :meth:`remember_ids` fill, ``(known, known items, ids)``,
        for the list cache to fill them itself in one loop (see :func:`site_builder.incremental.lists._remember`):
        ``known[kind][source] = value`` (one table per :data:`MEMO_FUNCTIONS` kind), ``known items`` of
        ``(abstract, title or None)``, and
        ``ids[abstract, title or None] = [paper id, key digest]``."""
        return self._known, self._known_items, self._ids

    def remember_ids(self, abstract: str, title: str | None, ids: list) -> None:
        """Take ``[paper id, identity key digest]`` of an entry ``(abstract, title)`` from the list cache."""
        self._ids[abstract, title or None] = ids

    def paper_id(self, entry) -> str:
        """:func:`~site_builder.read.duplicates.paper_id` of reader ``entry``, from the list cache when it holds it."""
        ids = self._ids.get((entry.abstract, entry.title or None))
        if ids is not None and isinstance(ids[0], str):
            return ids[0]
        return paper_id(entry)

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

    def _memo(self, kind: str, source: str):
        """The value of memo function ``kind`` (see :data:`MEMO_FUNCTIONS`) for ``source``."""
        known = self._known[kind].get(source)
        if known is not None:
            try:
                return MEMO_FUNCTIONS[kind][2](known)
            except (TypeError, ValueError, KeyError, IndexError):
                pass
        return self._memo_stored(kind, source)

    def _memo_stored(self, kind: str, source: str):
        """:meth:`_memo` past the list cache's values: from the memo file's, else computed (and kept)."""
        compute, encode, decode = MEMO_FUNCTIONS[kind]
        key = content_digest(kind, source)
        if key in self._memo_new:
            return decode(self._memo_new[key])
        if key in self._memo_old:
            try:
                value = decode(self._memo_old[key])
            except (TypeError, ValueError, KeyError, IndexError):
                value = None
            if value is not None:
                self._memo_new[key] = self._memo_old[key]
                return value
        value = compute(source)
        self._memo_new[key] = encode(value)
        self._memo_dirty = True
        return value

    def missing_work(self, entries) -> list[tuple[str, str | None]]:
        """The ``(abstract, title)`` items of reader ``entries`` whose id or rendering is not in the memo yet.

        For :func:`paper_work` in worker processes, then :meth:`store_work`.
        A title the memo cannot tell yet (derived, not cached) counts as missing.
        """
        seen: set[tuple[str, str | None]] = set()
        result = []
        for entry in entries:
            item = (entry.abstract, entry.title or None)
            if item in seen or item in self._known_items:
                continue
            seen.add(item)
            keys = [content_digest("render_abstract", entry.abstract)]
            title = entry.title
            if not title:
                derived = content_digest("derive_title", entry.abstract)
                value = self._memo_new.get(derived, self._memo_old.get(derived))
                title = value if isinstance(value, str) else None
            if title is None or not all(self._has(k) for k in keys + [content_digest("render_inline", title)]):
                result.append(item)
        return result

    def _has(self, key: str) -> bool:
        return key in self._memo_new or key in self._memo_old

    def store_work(self, results: list[list[tuple[str, str, Any]]]) -> None:
        """Add values computed by :func:`paper_work` (in any process) to the memo."""
        for work in results:
            for kind, source, value in work:
                self._memo_new[content_digest(kind, source)] = value
                self._memo_dirty = self._memo_dirty or bool(results)

    # The three below are :meth:`_memo` of their kind with the list cache's value taken first, written out:
    # the model calls each once per paper (30,000 calls a 10,000-paper rebuild).

    def render_abstract(self, source: str) -> RenderedAbstract:
        """:func:`render.render_abstract` of ``source``, from the cache when it holds it."""
        known = self._known_abstracts.get(source)
        if known is not None:
            try:
                return _decode_rendered(known)
            except (TypeError, ValueError, KeyError, IndexError):
                pass
        return self._memo_stored("render_abstract", source)

    def derive_title(self, abstract: str) -> str:
        """:func:`titles.derive_title` of ``abstract``, from the cache when it holds it."""
        known = self._known_titles.get(abstract)
        if isinstance(known, str):  # what _string, the decoder of derive_title, lets through
            return known
        return self._memo_stored("derive_title", abstract)

    def render_inline(self, source: str) -> tuple[str, str]:
        """:func:`render.render_inline` of ``source`` as ``(html, text)``, from the cache when it holds it."""
        known = self._known_inline.get(source)
        if known is not None:
            try:
                return _decode_inline(known)
            except (TypeError, ValueError, KeyError, IndexError):
                pass
        return self._memo_stored("render_inline", source)

    # -- list items' HTML ----------------------------------------------------------------------

    def item_html(self, path: str, shared: tuple) -> dict:
        """The HTML of the list items rendered in the folder of the page ``path`` (site-root relative) when
        a previous build of this code rendered that page with the same ``shared`` key parts
        (:attr:`site_builder.output.rendering.PageReuse.shared`, strings): ``{digest + show_track byte: html}``,
        see :class:`site_builder.output.writer.PageFolder`. Empty when there is none (or no cache)."""
        if self.folder is None or None in shared:
            return {}
        data = self.store.get(_items_name(path), content_digest(path, *shared))
        items = data.get("items") if data is not None else None
        return items if isinstance(items, dict) else {}

    def save_item_html(self, path: str, shared: tuple, items: dict) -> None:
        """Keep ``items`` (:meth:`site_builder.output.writer.PageFolder.rendered_items` of the folder of the page
        ``path``) for :meth:`item_html` of a next build (nothing without a cache or with a ``shared`` None)."""
        if self.folder is not None and None not in shared and items:
            self.store.put(_items_name(path), content_digest(path, *shared), {"items": items})

    # -- reuse of output files ------------------------------------------------------------------

    def _manifest_path(self, out: Path) -> Path:
        assert self.folder is not None
        return manifest_path(self.folder, out)

    def open_output(self, out: Path, data: dict | None = None) -> None:
        """Load the manifest of the previous build into ``out`` (call before rendering into it);
        ``data``: that manifest as :func:`read_manifest` gave it already (else it is read here)."""
        self._out = Path(out).resolve()
        if self.folder is None:
            return
        if data is None:
            data = self.store.load(self._manifest_path(self._out))
        files = data.get("files") if data else None
        self._previous = files if isinstance(files, dict) else {}
        if self._check is not None and self._check[0] is not data:  # it checked another manifest's files
            self.stop_file_check()
        parts = data.get("parts") if data and isinstance(files, dict) else None
        self._parts_previous = parts if isinstance(parts, dict) else {}
        self.previous_plan = data.get("plan") if data and isinstance(files, dict) else None

    def check_files_meanwhile(self, data: dict, job) -> None:
        """Take ``job``, a running :func:`files_not_as_recorded` of the previous build's manifest ``data``
        (the dict :func:`read_manifest` gave, to be handed to :meth:`open_output`): a handle with ``result()``
        (the paths, and the output folder's listing for :meth:`output_listing`) and ``cancel()``, e.g. :class:`site_builder.parallel.Background`. Pages are then kept
        (:meth:`keep_pages`, :meth:`reuse_pages`) on its answer instead of a ``stat`` each here: the same
        test, made earlier, off this process's path (~28,800 files, ~0.1 s). None: nothing to take."""
        self.stop_file_check()
        if job is not None:
            self._check = (data, job)

    def stop_file_check(self) -> None:
        """Stop the check of :meth:`check_files_meanwhile` when it still runs (its answer is not taken)."""
        check, self._check = self._check, None
        if check is not None:
            check[1].cancel()

    def _files_not_as_recorded(self) -> set[str] | None:
        """The previous build's paths whose files are not as it recorded them (or whose entries are
        malformed), from :meth:`check_files_meanwhile`; None when no such check ran for this output."""
        check, self._check = self._check, None
        if check is not None:
            try:
                paths, self._listing = check[1].result()
                self._not_as_recorded = set(paths)
            except Exception:  # the check failed (e.g. its process was killed): stat here instead
                self._not_as_recorded = self._listing = None
        return self._not_as_recorded

    def output_listing(self) -> tuple[dict | None, dict]:
        """``(listing, recorded)`` for :meth:`~site_builder.output.writer.Output.commit`: the output folder's listing
        (:func:`~site_builder.output.writer.unrecorded_names`) that the check of :meth:`check_files_meanwhile` made of
        the previous build's files ``recorded``; ``(None, {})`` when no such check answered."""
        if self._listing is None or self._not_as_recorded is None:
            return None, {}
        return self._listing, self._previous

    def key(self, *parts: Any) -> str | None:
        """Key of an output file: a digest of the code version and the digests of ``parts``.

        None when a part cannot be digested (the file is then always
        rendered) and when the cache is disabled.
        """
        if self.folder is None:
            return None
        digests = [self.fingerprints.of(p) for p in parts]
        return None if None in digests else content_digest(self.code, *digests)

    def reuse(self, path: str, key: str | None, output) -> bool:
        """Keep the previous build's ``path`` in ``output`` when its key is ``key``; True if done.

        The previous file must still be unchanged (size, mtime and inode as
        the manifest recorded them); it stays where it is
        (:meth:`~site_builder.output.writer.Output.keep`).
        """
        source = self.reusable(path, key)
        if source is None:
            return False
        output.keep(path)
        self._manifest[path] = self._previous[path]
        self.reused += 1
        return True

    def reuse_pages(self, keyed: list[tuple[str, str | None]], output) -> set[str]:
        """Keep in ``output`` (:meth:`~site_builder.output.writer.Output.keep_all`) every previous file of ``keyed``
        (``(path, key)`` pairs) whose key is unchanged and that is still as the previous build left it;
        returns the paths reused. The same test as :meth:`reuse`, for many files at once (pages)."""
        if self.folder is None or self._out is None:
            return set()
        done = []
        previous, manifest, stat = self._previous, self._manifest, os.stat
        changed = self._files_not_as_recorded()
        if changed is not None:  # checked already: well-formed entries of files as recorded
            for path, key in keyed:
                entry = previous.get(path)
                if key is not None and entry is not None and path not in changed and entry[0] == key:
                    manifest[path] = entry
                    done.append(path)
            output.keep_all(done)
            self.reused += len(done)
            return set(done)
        out = f"{self._out}/"
        for path, key in keyed:
            entry = previous.get(path)
            if key is None or not (isinstance(entry, list) and len(entry) == 4 and entry[0] == key):
                continue
            try:
                st = stat(out + path)
            except OSError:
                continue
            if st.st_size != entry[1] or st.st_mtime_ns != entry[2] or st.st_ino != entry[3]:
                continue
            manifest[path] = entry
            done.append(path)
        output.keep_all(done)
        self.reused += len(done)
        return set(done)

    def keep_pages(self, paths: list[str], output) -> set[str]:
        """:meth:`reuse_pages` of ``paths`` each on the key the previous build recorded for it (pages that
        :func:`~site_builder.pages.replan.split_outline` found unchanged, whose key cannot have changed): keeps
        every one whose file is still as that build left it (size, mtime and inode); returns the paths it
        did not keep (usually none: a rebuild keeps ~28,800 pages, with no call per page)."""
        if self.folder is None or self._out is None:
            return set(paths)
        previous = self._previous
        changed = self._files_not_as_recorded()
        if changed is None:
            kept = self.reuse_pages([(path, _recorded_key(previous.get(path))) for path in paths], output)
            return set(paths) - kept
        missing = set() if all(map(previous.__contains__, paths)) else set(paths) - previous.keys()
        not_kept = missing.union(changed.intersection(paths)) if changed else missing
        kept = [path for path in paths if path not in not_kept] if not_kept else paths
        self._manifest.update(zip(kept, map(previous.__getitem__, kept)))
        output.keep_all(kept)
        self.reused += len(kept)
        return not_kept

    @property
    def manifest(self) -> dict[str, list]:
        """This build's manifest so far: ``{path: [key, size, mtime_ns, inode]}`` of its keyed files."""
        return self._manifest

    @property
    def has_previous(self) -> bool:
        """Whether the previous build recorded any keyed file for this output (else nothing can be reused)."""
        return bool(self._previous)

    def previous_key(self, path: str) -> str | None:
        """The key the previous build recorded for its file ``path``, or None."""
        entry = self._previous.get(path)
        return entry[0] if isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], str) else None

    def previous_parts(self, path: str) -> list[list]:
        """The ``[key, start, end]`` parts the previous build recorded for ``path`` (:meth:`set_parts`),
        well-formed ones only; empty when none."""
        parts = self._parts_previous.get(path)
        if not isinstance(parts, list):
            return []
        return [p for p in parts if isinstance(p, list) and len(p) == 3 and isinstance(p[0], str)
                and isinstance(p[1], int) and isinstance(p[2], int) and 0 <= p[1] <= p[2]]

    def set_parts(self, path: str, parts: list[list]) -> None:
        """Record the parts of ``path`` written by this build: ``[key, start, end]`` (byte offsets)."""
        if self.folder is not None:
            self._parts[path] = parts

    def keep_parts(self, path: str) -> None:
        """Carry the previous build's parts of ``path`` over (the file was kept as it was)."""
        if self.folder is not None and path in self._parts_previous:
            self._parts[path] = self._parts_previous[path]

    def previous_file(self, path: str) -> Path | None:
        """The previous build's file ``path`` when it is still exactly as that build left it (whatever its key)."""
        if self.folder is None or self._out is None:
            return None
        entry = self._previous.get(path)
        if not (isinstance(entry, list) and len(entry) == 4):
            return None
        source = self._out / path
        try:
            st = source.stat()
        except OSError:
            return None
        return source if [st.st_size, st.st_mtime_ns, st.st_ino] == entry[1:] else None

    def reusable(self, path: str, key: str | None) -> Path | None:
        """The previous build's file ``path`` if its key is ``key`` and it is unchanged since, else None."""
        if key is None or self.previous_key(path) != key:
            return None
        return self.previous_file(path)

    def record(self, path: str, key: str | None, output) -> None:
        """Note that ``path`` was just written into ``output`` with ``key`` (for the next build)."""
        self.rendered += 1
        if self.folder is not None and key is not None:
            self._record_stat(path, key, output.staging / path)

    def record_stat(self, path: str, key: str | None, stat: list) -> None:
        """Note ``path`` written with ``key`` and its ``[size, mtime_ns, inode]`` (from a worker process)."""
        self.rendered += 1
        if self.folder is not None and key is not None:
            self._manifest[path] = [key, *stat]

    def _record_stat(self, path: str, key: str, file: Path) -> None:
        st = file.stat()
        self._manifest[path] = [key, st.st_size, st.st_mtime_ns, st.st_ino]

    def mark(self) -> CacheMark:
        """Where this build's records stand now, for :meth:`changes_since` (e.g. in a forked process)."""
        return CacheMark(dict(self._manifest), dict(self._parts), self.reused, self.rendered,
                         len(self.diagnostics.items), strmemo.mark())

    def changes_since(self, mark: CacheMark) -> CacheChanges:
        """What this cache recorded since ``mark`` (:meth:`mark`): for :meth:`apply` in another process."""
        manifest, parts = mark.manifest, mark.parts
        return CacheChanges(manifest={p: v for p, v in self._manifest.items() if manifest.get(p) is not v},
                            parts={p: v for p, v in self._parts.items() if parts.get(p) is not v},
                            reused=self.reused - mark.reused, rendered=self.rendered - mark.rendered,
                            diagnostics=self.diagnostics.items[mark.diagnostics:],
                            strings=strmemo.added_since(mark.strings))

    def apply(self, changes: CacheChanges) -> None:
        """Take ``changes`` (:meth:`changes_since` of this cache's copy in another process) into this cache."""
        self._manifest.update(changes.manifest)
        self._parts.update(changes.parts)
        self.reused += changes.reused
        self.rendered += changes.rendered
        self.diagnostics.extend(changes.diagnostics)
        strmemo.merge(changes.strings)

    def save(self) -> None:
        """Write the memo (if it changed) and the manifest of this build (call after the output is committed),
        after the jobs :meth:`defer` took that no other process ran."""
        self.run_deferred()
        if self.folder is None:
            return
        if self._memo_dirty or set(self._memo_new) != set(self._memo_old):
            self.store.save(self.folder / MEMO_NAME, {"entries": self._memo_new})
        if self._strings_dirty or strmemo.changed():
            self.store.save(self.folder / STRINGS_NAME, {"tables": strmemo.tables()})
            try:
                (self.folder / _STRINGS_JSON).unlink(missing_ok=True)
            except OSError:
                pass
        if self._out is not None:
            snapshot = self.snapshot
            if snapshot is not None:
                from .unchanged import cache_state  # the cache as this build leaves it (but the manifests)
                snapshot = {**snapshot, "cache": cache_state(self.folder)}
            self.store.save(self._manifest_path(self._out), {"out": str(self._out), "files": self._manifest,
                                                        "plan": self.plan, "snapshot": snapshot,
                                                        "parts": self._parts})


@dataclass(frozen=True)
class CacheMark:
    """Where a :class:`BuildCache`'s records stood (:meth:`BuildCache.mark`): copies of its manifest and
    parts (``{path: entry}``), its counters, its number of diagnostics and a :func:`strmemo.mark`."""

    manifest: dict
    parts: dict
    reused: int
    rendered: int
    diagnostics: int
    strings: Any


@dataclass
class CacheChanges:
    """What a :class:`BuildCache` recorded since a :class:`CacheMark` (:meth:`BuildCache.changes_since`), picklable:
    new or changed ``manifest`` entries and ``parts`` (``{path: entry}``), the increments of ``reused`` and
    ``rendered``, the new ``diagnostics`` and the new :mod:`strmemo` entries ``strings`` (per table)."""

    manifest: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)
    reused: int = 0
    rendered: int = 0
    diagnostics: list = field(default_factory=list)
    strings: dict = field(default_factory=dict)


def files_not_as_recorded(out: Path, files: dict) -> list[str]:
    """The paths of ``files`` (a manifest's ``{path: [key, size, mtime_ns, inode]}``) whose entry is not
    such a list with a string key, or whose file in the folder ``out`` is missing or has another size,
    mtime or inode: the test of :meth:`BuildCache.reuse` for every file at once (for
    :meth:`BuildCache.check_files_meanwhile`, in a forked process)."""
    result = []
    stat, prefix = os.stat, f"{Path(out).resolve()}/"
    for path, entry in files.items():
        if not (type(entry) is list and len(entry) == 4 and type(entry[0]) is str and type(path) is str):
            result.append(path)
            continue
        try:
            st = stat(prefix + path)
        except (OSError, ValueError):
            result.append(path)
            continue
        if st.st_size != entry[1] or st.st_mtime_ns != entry[2] or st.st_ino != entry[3]:
            result.append(path)
    return result


def _items_name(path: str) -> str:
    """The store name of the list items' HTML of the page ``path`` (:meth:`BuildCache.item_html`)."""
    return f"{ITEMS_NAME}/{content_digest(path)[:24]}{SUFFIX}"


def manifest_path(folder: Path, out: Path) -> Path:
    """The manifest file of the output folder ``out`` in the cache ``folder``."""
    return Path(folder) / "outputs" / f"{content_digest(str(Path(out).resolve()))[:24]}{SUFFIX}"


def read_manifest(folder: Path, out: Path) -> dict | None:
    """The manifest of ``out`` in the cache ``folder`` when it is one of this code version, else None
    (quietly: a full build then reads it again and reports what is wrong)."""
    try:
        data = decode(manifest_path(folder, out).read_bytes())
    except (OSError, ValueError):
        return None
    if data.get("format") != FORMAT or data.get("code") != code_version():
        return None
    return data


def _string(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError("not a string")
    return v


def _decode_rendered(v: Any) -> RenderedAbstract:
    html, text, code_urls, warnings = v
    if not (type(html) is str and type(text) is str):
        raise ValueError("not a rendered abstract")
    # the fields set as the frozen dataclass's __init__ sets them (it only assigns), at a third of its cost
    rendered = _new_rendered(RenderedAbstract)
    rendered.__dict__.update(html=html, text=text, code_urls=tuple(code_urls), warnings=tuple(warnings))
    return rendered


_new_rendered = object.__new__


def _decode_inline(v: Any) -> tuple[str, str]:
    html, text = v
    if type(html) is not str or type(text) is not str:
        raise ValueError("not a string")
    return html, text


#: The memoised functions: kind → (compute, encode to plain data, decode from it; raises on a bad value).
MEMO_FUNCTIONS: dict[str, tuple[Callable, Callable, Callable]] = {
    "render_abstract": (render_abstract, lambda r: [r.html, r.text, list(r.code_urls), list(r.warnings)],
                        _decode_rendered),
    "render_inline": (render_inline, list, _decode_inline),
    "derive_title": (derive_title, str, _string),
}


def paper_work(item: tuple[str, str | None]) -> list[tuple[str, str, Any]]:
    """The memo values one paper needs: ``item`` is ``(abstract, title or None)``.

    Returns ``(kind, source, plain value)`` (lists, strings) for its rendered
    abstract, derived title (when ``title`` is None) and inline-rendered
    title. A module function, so forked worker processes can run it.
    """
    abstract, title = item
    encode = {kind: f[1] for kind, f in MEMO_FUNCTIONS.items()}
    work = [("render_abstract", abstract, encode["render_abstract"](render_abstract(abstract)))]
    if not title:
        title = derive_title(abstract)
        work.append(("derive_title", abstract, title))
    work.append(("render_inline", title, encode["render_inline"](render_inline(title))))
    return work


def _recorded_key(entry) -> str | None:
    """The key of a manifest entry ``[key, size, mtime_ns, inode]`` (None for anything else)."""
    return entry[0] if isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], str) else None
