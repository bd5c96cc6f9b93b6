"""The build cache's files: one codec, one corrupt-file warning, and values kept by the digest of their inputs.

A stage computes; :class:`Store` decides whether it has to. A value is kept in the cache folder under a name
(``authors.marshal``) with the key it was made for (a digest of its inputs): :meth:`Store.get` gives it back
only for the same key and the same code version, :meth:`Store.put` keeps it, :meth:`Store.cached` does both
around a computation. The file is a dict ``{"format": FORMAT, "code": code version, "digest": key, **value}``:

- a ``.marshal`` file: :data:`MANIFEST_MAGIC`, then :mod:`marshal` data (version :data:`MANIFEST_MARSHAL`);
- any other: UTF-8 JSON (compact, not ASCII-escaped).

A missing file, or one of another format or code version, is quietly a miss; an unreadable or malformed one is
a miss with a warning ``<path>:0: warning: cache file corrupt, ignored: …`` (:meth:`Store.corrupt`) and is
rewritten; a cache folder that cannot be written costs only speed (one warning a build, :meth:`Store.warn_write`).
"""

from __future__ import annotations

import json
import marshal
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, TypeVar

from .digest import FORMAT
from ..diagnostics import Diagnostics

#: First bytes of a ``.marshal`` cache file; the rest is :mod:`marshal` data (version :data:`MANIFEST_MARSHAL`)
#: of a dict. marshal, not JSON: the 10,000-paper manifest (~30,000 files, ~5 MB) loads in ~0.03 s and saves
#: in ~0.01 s, against ~0.09 s and ~0.11-0.17 s as JSON (a one-abstract rebuild does both).
MANIFEST_MAGIC = b"site-builder manifest\n"
MANIFEST_MARSHAL = 4
#: The file name suffix of marshal cache files (:data:`MANIFEST_MAGIC`): output manifests, the strings, …
MANIFEST_SUFFIX = ".marshal"
#: The start of the warning about a cache file that could not be written (once per build).
WRITE_WARNING = "cannot write the build cache"
#: The fields every cache file holds besides its value (see :meth:`Store.get`).
_HEADER = ("format", "code", "digest")

T = TypeVar("T")


def decode_marshal(raw: bytes) -> Any:
    """The object of ``.marshal`` cache file bytes ``raw`` (:data:`MANIFEST_MAGIC` + marshal data).

    Raises ValueError when ``raw`` is not such a file (wrong first bytes, truncated or malformed data). marshal
    only builds str, int, list, dict, … objects, never runs code; its format is documented at
    https://docs.python.org/3/library/marshal.html (stable across Python versions for a given format version)."""
    if not raw.startswith(MANIFEST_MAGIC):
        raise ValueError("not a manifest file")
    body = memoryview(raw)[len(MANIFEST_MAGIC):]
    try:
        data = marshal.loads(body)
    except (EOFError, TypeError) as exc:
        raise ValueError(f"truncated or malformed manifest: {exc}") from exc
    return data


def encode(path: Path, data: dict) -> bytes:
    """The bytes of the cache file ``path`` holding ``data``: marshal for a ``.marshal`` file, else JSON."""
    if path.suffix == MANIFEST_SUFFIX:
        return MANIFEST_MAGIC + marshal.dumps(data, MANIFEST_MARSHAL)
    # json.dumps, not json.dump: dump streams through the pure-Python encoder, several times slower
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def decode(path: Path, raw: bytes) -> dict:
    """The dict of the cache file ``path`` whose bytes are ``raw`` (the codec of :func:`encode`).

    Raises ValueError (or UnicodeDecodeError) when ``raw`` is not a cache file: malformed, or not a dict
    with an integer ``format``."""
    data = decode_marshal(raw) if path.suffix == MANIFEST_SUFFIX else json.loads(raw.decode("utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("format"), int):
        raise ValueError("not a cache file")
    return data


class Store:
    """The files of the cache ``folder`` (None: disabled, nothing is kept) for code version ``code``;
    problems with them become warnings in ``diagnostics`` (as ``<file>:0: warning: …``), never failures."""

    def __init__(self, folder: Path | None, code: str, diagnostics: Diagnostics):
        self.folder = Path(folder) if folder is not None else None
        self.code = code
        self.diagnostics = diagnostics
        self._warned_write = False

    def path(self, name: str) -> Path:
        """The file ``name`` (relative to the cache folder). Raises ValueError when the store is disabled."""
        if self.folder is None:
            raise ValueError("no cache folder")
        return self.folder / name

    def corrupt(self, path: Path, problem: object) -> None:
        """Warn that the cache file ``path`` is ignored because of ``problem`` (its text follows the warning)."""
        self.diagnostics.warning(str(path), 0, f"cache file corrupt, ignored: {problem}")

    def read_bytes(self, path: Path) -> bytes | None:
        """The bytes of the cache file at ``path``; None when it is missing, or unreadable (with a warning)."""
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.diagnostics.warning(str(path), 0, f"cache file unreadable, ignored: {exc.strerror}")
            return None

    def load(self, path: Path) -> dict | None:
        """The dict of the cache file at ``path`` (header fields included) if it is one of this format and
        code version, else None: quietly for a missing file or another version, with a warning for an
        unreadable or malformed one."""
        raw = self.read_bytes(path)
        if raw is None:
            return None
        try:
            data = decode(path, raw)
        except (ValueError, UnicodeDecodeError) as exc:
            self.corrupt(path, exc)
            return None
        if data.get("format") != FORMAT or data.get("code") != self.code:
            return None
        return data

    def save(self, path: Path, payload: dict) -> None:
        """Write ``payload`` after the format and code version to ``path`` atomically (:func:`encode`);
        a failure is one warning a build (:meth:`warn_write`)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            raw = encode(path, {"format": FORMAT, "code": self.code, **payload})
            with os.fdopen(fd, "wb") as handle:
                handle.write(raw)
            os.replace(tmp, path)
        except OSError as exc:
            self.warn_write(path, exc)

    def warn_write(self, path: Path, exc: OSError) -> None:
        """Report once per build that the cache file ``path`` could not be written (it only costs speed;
        once also when another process of the build, e.g. the one writing the other files, reported it)."""
        if self._warned_write or any(d.message.startswith(WRITE_WARNING) for d in self.diagnostics.items):
            return
        self.diagnostics.warning(str(path), 0, f"{WRITE_WARNING}: {exc.strerror or exc}")
        self._warned_write = True

    def get(self, name: str, key: str) -> dict | None:
        """The value :meth:`put` kept as ``name`` for ``key`` (a dict without the header fields), or None:
        when the store is disabled, the file is missing, of another code version or key, or unreadable or
        malformed (those two with a warning, :meth:`load`)."""
        if self.folder is None:
            return None
        data = self.load(self.folder / name)
        if data is None or data.get("digest") != key:
            return None
        return {field: value for field, value in data.items() if field not in _HEADER}

    def put(self, name: str, key: str, value: dict) -> None:
        """Keep ``value`` (a dict of marshal- or JSON-ready values, by the suffix of ``name``) as ``name`` for
        ``key``, for :meth:`get` of a next build (nothing when the store is disabled)."""
        if self.folder is not None:
            self.save(self.folder / name, {"digest": key, **value})

    def cached(self, name: str, key: str, compute: Callable[[], T], encode_value: Callable[[T], dict],
               decode_value: Callable[[dict], T | None], what: str) -> T:
        """``compute()``, or the value kept as ``name`` for ``key``: ``decode_value`` of what :meth:`get`
        gives (None when malformed: then a warning ``cache file corrupt, ignored: not <what>``, and computed).
        A computed value is kept (:meth:`put` of ``encode_value(value)``) for the next build."""
        saved = self.get(name, key)
        if saved is not None:
            value = decode_value(saved)
            if value is not None:
                return value
            self.corrupt(self.path(name), f"not {what}")
        value = compute()
        self.put(name, key, encode_value(value))
        return value
