"""Nothing changed: a build whose inputs and output folder are exactly as the last build left them.

Such a build would write the same bytes to the same files and report the same diagnostics, so
:func:`site_builder.pipeline.build` returns the last build's report without reading a list. The
test, all of it required:

- **inputs** (:func:`inputs_digest`): the code version, the paths and bytes of every list file and of
  ``overrides.toml``, the config (every field), ``--strict``, the notes folder (path, and the names and
  bytes of every file under it), the template and asset folders and lunr.js as used, and the build
  date (:func:`site_builder.output.feeds.build_time`) are those of the last successful build;
- **output**: every file of the output folder is still as that build left it (size, mtime, inode) and
  the folder holds no other file or folder (:func:`output_unchanged`);
- **cache**: every file of the cache folder (but the output manifests) is as that build left it,
  so a corrupt or edited cache file is still reported by a full build.

The record (:func:`snapshot`) is saved in the output's manifest (:class:`~site_builder.incremental.cache.BuildCache`)
after the build committed its output. Anything else, and any unreadable record, means a full build.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .digest import Fingerprinter, folder_digest
from ..diagnostics import Diagnostic, Diagnostics

#: The cache's sub-folder of output manifests (never part of the cache's recorded state).
OUTPUTS = "outputs"


def _file_digest(h, path: Path) -> bytes | None:
    """Add the size and SHA-256 of the file at ``path`` (or that it is missing) to ``h``; returns that
    SHA-256 (None when missing)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        h.update(b"\x01missing\0")
        return None
    digest = hashlib.sha256(data).digest()
    h.update(len(data).to_bytes(8, "little"))
    h.update(digest)
    return digest


def inputs_digest(code: str, list_files: list[Path], overrides: Path, config, strict: bool, notes: Path | None,
                  folders: list[Path], files: list[Path], updated: str, digests: dict | None = None) -> str | None:
    """Hex SHA-256 over everything a build reads besides the cache: ``code`` (the code version), the
    ``list_files`` and ``overrides`` (paths as given, as diagnostics show them, and bytes), ``config``
    (a :class:`~site_builder.config.SiteConfig`, digested by :class:`~site_builder.incremental.cache.Fingerprinter`),
    ``strict``, the ``notes`` folder, the ``folders`` (templates, assets) and ``files`` (lunr.js) in use
    and ``updated`` (the build date as text). None when the config cannot be digested.

    ``digests``, when given, receives the 32-byte SHA-256 of each list file's bytes as read here,
    by its path as a string (for :func:`site_builder.incremental.lists.read_lists`, so it does not read and
    hash the lists again); a missing file gets none."""
    config_digest = Fingerprinter().of(config)
    if config_digest is None:
        return None
    h = hashlib.sha256()
    for part in (code, config_digest, "strict" if strict else "lenient", updated):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    for path in list_files:
        h.update(str(path).encode("utf-8", "surrogatepass") + b"\0")
        digest = _file_digest(h, path)
        if digests is not None and digest is not None:
            digests[str(path)] = digest
    h.update(str(overrides).encode("utf-8", "surrogatepass") + b"\0")
    _file_digest(h, overrides)
    h.update(f"notes {notes}\0".encode("utf-8", "surrogatepass"))
    if notes is not None:
        h.update(folder_digest(notes).encode())
    for folder in folders:
        h.update(f"{folder}\0{folder_digest(folder)}\0".encode("utf-8", "surrogatepass"))
    for path in files:
        h.update(str(path).encode("utf-8", "surrogatepass") + b"\0")
        _file_digest(h, path)
    return h.hexdigest()


def cache_state(folder: Path) -> dict[str, list[int]]:
    """``{relative path: [size, mtime_ns]}`` of every file in the cache ``folder`` but the output manifests."""
    state: dict[str, list[int]] = {}
    root = str(folder)
    for current, subfolders, names in os.walk(root):
        if current == root and OUTPUTS in subfolders:
            subfolders.remove(OUTPUTS)
        rel = os.path.relpath(current, root)
        for name in names:
            path = name if rel == "." else f"{rel}/{name}"
            try:
                st = os.stat(os.path.join(current, name))
            except OSError:
                continue
            state[path.replace(os.sep, "/")] = [st.st_size, st.st_mtime_ns]
    return state


def output_unchanged(out: Path, files: dict[str, list[int]]) -> bool:
    """Whether the folder ``out`` holds exactly ``files`` (``{relative path: [size, mtime_ns, inode]}``),
    each unchanged, and no folder but theirs."""
    root = str(out)
    folders = {path.rpartition("/")[0] for path in files}
    expected_folders = set()
    for folder in folders:
        while folder and folder not in expected_folders:
            expected_folders.add(folder)
            folder = folder.rpartition("/")[0]
    seen = 0
    stack = [("", root)]
    while stack:
        rel, path = stack.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            return False
        for entry in entries:
            name = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_dir(follow_symlinks=False):
                if name not in expected_folders:
                    return False
                stack.append((name, entry.path))
                continue
            recorded = files.get(name)
            if recorded is None:
                return False
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                return False
            if st.st_size != recorded[0] or st.st_mtime_ns != recorded[1] or st.st_ino != recorded[2]:
                return False
            seen += 1
    return seen == len(files)


def snapshot(inputs: str, out: Path, written: set[str], keyed: dict[str, list], report: dict) -> dict:
    """The record of a committed build: its ``inputs`` digest, the stats of every file in ``out``
    (``written``: all of them; ``keyed``: the manifest entries ``[key, size, mtime_ns, inode]`` of
    those it has; the others are stat-ed here) and ``report`` (JSON-ready fields of the report).
    The cache state is added by :meth:`~site_builder.incremental.cache.BuildCache.save`."""
    others: dict[str, list[int]] = {}
    for path in sorted(written - keyed.keys()):  # (a few dozen of ~29,000: sorted after the difference)
        st = os.stat(Path(out) / path)
        others[path] = [st.st_size, st.st_mtime_ns, st.st_ino]
    return {"inputs": inputs, "others": others, "report": report}


def unchanged_report(data: dict | None, inputs: str | None, out: Path, cache_folder: Path) -> dict | None:
    """The saved report fields when ``data`` (the previous manifest of ``out``) records a build with
    these ``inputs`` whose output and cache are untouched since (see the module docstring), else None.
    ``reused`` is then every file the manifest keys (what a full build would keep)."""
    if not data or inputs is None:
        return None
    record, manifest = data.get("snapshot"), data.get("files")
    if not (isinstance(record, dict) and isinstance(manifest, dict) and record.get("inputs") == inputs):
        return None
    others, cache, report = record.get("others"), record.get("cache"), record.get("report")
    if not (isinstance(others, dict) and isinstance(cache, dict) and isinstance(report, dict)):
        return None
    try:
        files = {path: entry[1:] for path, entry in manifest.items()}
        files.update(others)
        if not all(isinstance(v, list) and len(v) == 3 for v in files.values()):
            return None
        if cache_state(cache_folder) != cache:
            return None
        if not output_unchanged(out, files):
            return None
    except (TypeError, IndexError, AttributeError):
        return None
    # A full build would keep every keyed file of the last one, as they are all unchanged.
    return {**report, "reused": len(manifest)}


def report_fields(diagnostics: Diagnostics, files: int, pages: int, index_bytes: int, reused: int,
                  papers: int, updated: str) -> dict:
    """The JSON-ready fields of a build report kept in the snapshot."""
    return {"diagnostics": [[d.path, d.line, d.level, d.message] for d in diagnostics],
            "files": files, "pages": pages, "index_bytes": index_bytes, "reused": reused, "papers": papers,
            "updated": updated}


def diagnostics_of(report: dict) -> Diagnostics:
    """The :class:`Diagnostics` saved by :func:`report_fields` (raises ValueError when malformed)."""
    result = Diagnostics()
    for item in report.get("diagnostics", []):
        path, line, level, message = item
        if level not in ("warning", "error") or not isinstance(line, int):
            raise ValueError("not a diagnostic")
        result.items.append(Diagnostic(str(path), line, level, str(message)))
    return result
