"""The build cache's files: one codec, one corrupt-file warning, values kept by the digest of their inputs,
and the state a stage carries from one build to the next.

A stage computes; :class:`Store` decides whether it has to. A value is kept in the cache folder under a name
(``authors.marshal``) with the key it was made for (a digest of its inputs): :meth:`Store.get` gives it back
only for the same key and the same code version, :meth:`Store.put` keeps it, :meth:`Store.cached` does both
around a computation. A stage that updates what it made last time (the related papers, the search index's
tokens, a list read again after an edit) keeps that state with :meth:`Store.keep` and finds it with
:meth:`Store.kept`, whatever its inputs were.

Every file is a dict ``{"format": FORMAT, "code": code version, "digest": key, **value}`` written as
:data:`MAGIC`, a checksum, then :mod:`marshal` data (version :data:`MARSHAL_VERSION`): str, bytes, int, float,
None, tuples, lists and dicts only (numpy arrays are kept as their bytes, see :func:`array_bytes`). A missing
file, or one of another format or code version, is quietly a miss; an unreadable, damaged or malformed one is a miss with a
warning ``<path>: warning: cache file corrupt, ignored: …`` (:meth:`Store.corrupt`) and is rewritten; a
cache folder that cannot be written costs only speed (one warning a build, :meth:`Store.warn_write`).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any, Callable, TypeVar

from .digest import FORMAT
from ..diagnostics import Diagnostics

#: First bytes of a cache file; then the :func:`zlib.crc32` of the rest (4 bytes, little-endian), then
#: :mod:`marshal` data (version :data:`MARSHAL_VERSION`) of a dict. marshal, not JSON or pickle: the 10,000-paper
#: manifest (~30,000 files, ~5 MB) loads in ~0.03 s and saves in ~0.01 s, against ~0.09 s and ~0.11-0.17 s as
#: JSON; the lists' cache files (22 MB) load in 0.021 s against 0.028 s with a restricted unpickler, and save in
#: a third of pickle's time. The checksum (~0.4 ms a MB) finds a damaged byte that marshal would read as another
#: letter of a string, which would otherwise reach the output.
MAGIC = b"site-builder cache 1\n"
#: The first bytes of cache files of earlier layouts: a quiet miss (as another format), rewritten.
_EARLIER = (b"site-builder manifest\n",)
_HEAD = len(MAGIC) + 4
MARSHAL_VERSION = 4
#: The file name suffix of cache files.
SUFFIX = ".marshal"
#: The start of the warning about a cache file that could not be written (once per build).
WRITE_WARNING = "cannot write the build cache"
#: The fields every cache file holds besides its value (see :meth:`Store.get`).
_HEADER = ("format", "code", "digest")

T = TypeVar("T")


def framed(data: dict) -> tuple[bytes, bytes]:
    """The two parts of a cache file holding ``data``: its head (:data:`MAGIC` and the checksum) and its body
    (the marshal data), to write one after the other (:func:`encode` joins them). Raises ValueError when
    ``data`` holds something marshal cannot write (an object of another class, a subclass of str, …)."""
    body = marshal.dumps(data, MARSHAL_VERSION)
    return MAGIC + zlib.crc32(body).to_bytes(4, "little"), body


def encode(data: dict) -> bytes:
    """The bytes of a cache file holding ``data`` (:func:`framed`, joined). Raises ValueError as :func:`framed`."""
    return b"".join(framed(data))


def decode(raw: bytes) -> dict:
    """The dict of the cache file bytes ``raw`` (the codec of :func:`encode`); a file of an earlier layout gives
    ``{"format": 0}`` (a format no build writes: a quiet miss).

    Raises ValueError when ``raw`` is not such a file: wrong first bytes, cut short, a checksum that does not
    match (a damaged byte), malformed data, or not a dict with an integer ``format``. marshal only builds str,
    bytes, int, list, dict, … objects, never runs code; its format is documented at
    https://docs.python.org/3/library/marshal.html (stable across Python versions for a given format version)."""
    if raw.startswith(_EARLIER):
        return {"format": 0}
    if not raw.startswith(MAGIC):
        raise ValueError("not a cache file")
    if len(raw) < _HEAD:
        raise ValueError("truncated cache file")
    body = memoryview(raw)[_HEAD:]
    if zlib.crc32(body) != int.from_bytes(raw[len(MAGIC):_HEAD], "little"):
        raise ValueError("checksum mismatch")
    try:
        data = marshal.loads(body)
    except (EOFError, TypeError, ValueError) as exc:
        raise ValueError(f"truncated or malformed cache file: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("format"), int):
        raise ValueError("not a cache file")
    return data


def array_bytes(array: Any, dtype: str) -> bytes:
    """The bytes of the numpy ``array`` as ``dtype`` (e.g. ``"<i8"``), for a cache value; :func:`array_of`
    makes it again (its shape is the stage's to keep)."""
    return array.astype(dtype, copy=False).tobytes()


def array_of(raw: bytes, dtype: str, shape: tuple[int, ...] | None = None) -> Any:
    """The numpy array of ``dtype`` whose bytes are ``raw`` (:func:`array_bytes`), reshaped to ``shape``: a
    read-only view of ``raw``, no copy (a stage copies what it changes; the 26 MB search state would otherwise be
    held twice). Raises ValueError (or TypeError) when ``raw`` is not bytes of that many items."""
    import numpy as np  # only the stages that keep arrays load numpy (a rebuild's start-up does not)
    if type(raw) is not bytes:  # noqa: E721 - plain data from marshal
        raise TypeError("array bytes expected")
    array = np.frombuffer(raw, dtype)
    return array if shape is None else array.reshape(shape)


def _value(data: dict) -> dict:
    """The value a cache file's dict holds: the dict without its header fields (:data:`_HEADER`)."""
    return {field: value for field, value in data.items() if field not in _HEADER}


class Store:
    """The files of the cache ``folder`` (None: disabled, nothing is kept) for code version ``code``;
    problems with them become warnings in ``diagnostics`` (as ``<file>: warning: …``), never failures."""

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
            data = decode(raw)
        except ValueError as exc:
            self.corrupt(path, exc)
            return None
        if data.get("format") != FORMAT or data.get("code") != self.code:
            return None
        return data

    def save(self, path: Path, payload: dict) -> None:
        """Write ``payload`` after the format and code version to ``path`` atomically (:meth:`write`);
        a failure is one warning a build (:meth:`warn_write`)."""
        error = self.write(path, payload)
        if error is not None:
            self.warn_write(path, error)

    def write(self, path: Path, payload: dict, verify: bool = False) -> OSError | None:
        """Write ``payload`` after the format and code version to ``path`` atomically (a temporary file in the
        same folder, then renamed, or removed when that fails); returns the error when it could not be written
        (for a process that reports it elsewhere, e.g. a forked worker), else None. With ``verify``, nothing is
        written unless the bytes decode to ``payload`` again (equal values of the same types: lists stay lists,
        tuples tuples), nor when ``payload`` cannot be encoded: what is read back is then always what was kept."""
        try:
            data = {"format": FORMAT, "code": self.code, **payload}
            head, body = framed(data)
            if verify and marshal.loads(body) != data:
                return None
        except ValueError:
            if verify:
                return None
            raise
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            with os.fdopen(fd, "wb") as handle:
                handle.write(head)
                handle.write(body)
            os.replace(tmp, path)
        except OSError as exc:
            if tmp is not None:  # e.g. a full disk or ``path`` a folder: no partial copy is left behind
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            return exc
        return None

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
        return _value(data) if data is not None and data.get("digest") == key else None

    def put(self, name: str, key: str, value: dict, warn: bool = True, verify: bool = False) -> OSError | None:
        """Keep ``value`` (a dict of marshal-ready values) as ``name`` for ``key``, for :meth:`get` of a next
        build (nothing when the store is disabled; with ``verify``, as :meth:`write` says). A failure to write
        is one warning a build, or with ``warn`` False returned (for a forked worker to hand to the parent)."""
        return self._put(name, key, value, warn, verify)

    def _put(self, name: str, key: str | None, value: dict, warn: bool, verify: bool = False) -> OSError | None:
        if any(field in value for field in _HEADER):
            raise ValueError(f"a cache value may not hold the fields {_HEADER}")
        if self.folder is None:
            return None
        error = self.write(self.folder / name, {"digest": key, **value}, verify)
        if error is not None and warn:
            self.warn_write(self.folder / name, error)
        return error if not warn else None

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

    def kept(self, name: str) -> dict | None:
        """The state :meth:`keep` kept as ``name`` by the previous build of this code version (a dict without
        the header fields), whatever it was made from; None as for :meth:`get`."""
        if self.folder is None:
            return None
        data = self.load(self.folder / name)
        return _value(data) if data is not None else None

    def keep(self, name: str, value: dict, warn: bool = True) -> OSError | None:
        """Keep ``value`` (a dict of marshal-ready values) as ``name``: the state a stage updates from one build
        to the next (:meth:`kept`). Nothing when the store is disabled; a failure to write as for :meth:`put`."""
        return self._put(name, None, value, warn)

    def discard(self, name: str) -> OSError | None:
        """Remove the file ``name`` (kept state that no longer holds); the error when it could not be removed."""
        if self.folder is not None:
            try:
                (self.folder / name).unlink(missing_ok=True)
            except OSError as exc:
                return exc
        return None
