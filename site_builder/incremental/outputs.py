"""The record of one output folder's files, for keeping the unchanged ones on the next build.

The manifest (``<cache>/outputs/<digest of the output folder>.marshal``, through the build cache's
:class:`~site_builder.incremental.store.Store`) holds, for each reusable file of the last build, its key (a digest
of everything the file shows) and its ``(size, mtime_ns, inode)``. A file whose key is unchanged and that is still
exactly where the previous build left it (same stat) is kept where it is
(:meth:`~site_builder.output.writer.Output.keep`) instead of being written again. The manifest also carries the
parts of files written in parts (``papers.json``), the page plan (:mod:`site_builder.pages.replan`) and the
record of a build with nothing changed (:mod:`.unchanged`). The list items' HTML of long list pages is kept
beside it, per page (``<cache>/items/``). The rule for page keys: :mod:`site_builder.incremental.cache`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .digest import FORMAT, Fingerprinter, code_version, content_digest
from .store import SUFFIX, Store, decode

#: The folder of the list items' HTML kept per page (:meth:`OutputRecord.item_html`).
ITEMS_NAME = "items"


@dataclass(frozen=True)
class OutputMark:
    """Where an :class:`OutputRecord` stood (:meth:`OutputRecord.mark`): copies of its manifest and parts
    (``{path: entry}``) and its counters."""

    manifest: dict
    parts: dict
    reused: int
    rendered: int


@dataclass
class OutputChanges:
    """What an :class:`OutputRecord` recorded since an :class:`OutputMark` (:meth:`OutputRecord.changes_since`),
    picklable: new or changed ``manifest`` entries and ``parts`` (``{path: entry}``), the increments of ``reused``
    and ``rendered``."""

    manifest: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)
    reused: int = 0
    rendered: int = 0


class OutputRecord:
    """What one build writes into its output folder and what the previous build left there, kept in ``store``
    (a disabled store keeps nothing: no file is reused, every key is None); keys are digests by ``fingerprints``
    and the ``code`` version."""

    def __init__(self, store: Store, fingerprints: Fingerprinter, code: str):
        self.store = store
        self.folder = store.folder
        self.fingerprints = fingerprints
        self.code = code
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

    def _manifest_path(self, out: Path) -> Path:
        assert self.folder is not None
        return manifest_path(self.folder, out)

    def open(self, out: Path, data: dict | None = None) -> None:
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
        (the dict :func:`read_manifest` gave, to be handed to :meth:`open`): a handle with ``result()``
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

    def previous_paths(self, folder: str) -> list[str]:
        """The paths under ``folder`` (site-root relative, no trailing slash) of the files the previous
        build recorded, sorted."""
        prefix = folder + "/"
        return sorted(path for path in self._previous if path.startswith(prefix))

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

    def mark(self) -> OutputMark:
        """Where this record stands now, for :meth:`changes_since` (e.g. in a forked process)."""
        return OutputMark(dict(self._manifest), dict(self._parts), self.reused, self.rendered)

    def changes_since(self, mark: OutputMark) -> OutputChanges:
        """What this record took since ``mark`` (:meth:`mark`): for :meth:`apply` in another process."""
        manifest, parts = mark.manifest, mark.parts
        return OutputChanges(manifest={p: v for p, v in self._manifest.items() if manifest.get(p) is not v},
                             parts={p: v for p, v in self._parts.items() if parts.get(p) is not v},
                             reused=self.reused - mark.reused, rendered=self.rendered - mark.rendered)

    def apply(self, changes: OutputChanges) -> None:
        """Take ``changes`` (:meth:`changes_since` of this record's copy in another process) into this record."""
        self._manifest.update(changes.manifest)
        self._parts.update(changes.parts)
        self.reused += changes.reused
        self.rendered += changes.rendered

    def save(self, cache_state: dict | None = None) -> None:
        """Write the manifest of this build of the output folder (call after the output is committed); the
        record of a build with nothing changed gets ``cache_state`` (the cache as this build leaves it)."""
        if self.folder is None or self._out is None:
            return
        snapshot = self.snapshot
        if snapshot is not None:
            snapshot = {**snapshot, "cache": cache_state}
        self.store.save(self._manifest_path(self._out), {"out": str(self._out), "files": self._manifest,
                                                         "plan": self.plan, "snapshot": snapshot,
                                                         "parts": self._parts})


def files_not_as_recorded(out: Path, files: dict) -> list[str]:
    """The paths of ``files`` (a manifest's ``{path: [key, size, mtime_ns, inode]}``) whose entry is not
    such a list with a string key, or whose file in the folder ``out`` is missing or has another size,
    mtime or inode: the test of :meth:`OutputRecord.reuse` for every file at once (for
    :meth:`OutputRecord.check_files_meanwhile`, in a forked process)."""
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
    """The store name of the list items' HTML of the page ``path`` (:meth:`OutputRecord.item_html`)."""
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


def _recorded_key(entry) -> str | None:
    """The key of a manifest entry ``[key, size, mtime_ns, inode]`` (None for anything else)."""
    return entry[0] if isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], str) else None
