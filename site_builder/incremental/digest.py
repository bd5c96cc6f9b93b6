"""Digests of what a build depends on: the code version, folders, and model objects (:class:`Fingerprinter`).

Every cache key (:mod:`.cache`, :mod:`.unchanged`) is made of these: content, never time stamps.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import sys
from functools import lru_cache
from itertools import islice
from importlib import metadata
from operator import attrgetter
from pathlib import Path
from typing import Any, Callable

FORMAT = 2
PACKAGE = Path(__file__).resolve().parent.parent
PROJECT = PACKAGE.parent
#: Python distributions whose version can change the output.
LIBRARIES = ("jinja2", "markdown-it-py", "mdit-py-plugins", "python-slugify", "text-unidecode", "latex2mathml",
             "scikit-learn", "numpy", "scipy")


@lru_cache(maxsize=1)
def code_version() -> str:
    """Hex SHA-256 over everything but the lists that shapes the output.

    Covers ``site_builder/**/*.py``, ``templates/**``, ``assets/**``, ``locale/**`` (the page words),
    ``package-lock.json``, the versions of :data:`LIBRARIES` and the Python
    version. Computed once per process.
    """
    h = hashlib.sha256(f"format {FORMAT}\0python {sys.version}\0".encode())
    for name in LIBRARIES:
        try:
            h.update(f"{name} {metadata.version(name)}\0".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name} -\0".encode())
    roots = [PACKAGE, PROJECT / "templates", PROJECT / "assets", PROJECT / "locale"]
    files = [p for root in roots if root.is_dir() for p in root.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts]
    files += [p for p in (PROJECT / "package-lock.json",) if p.is_file()]
    for path in sorted(files):
        h.update(path.relative_to(PROJECT).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def folder_digest(folder: Path) -> str:
    """Hex SHA-256 over the names and bytes of every file under ``folder`` (e.g. the templates in use)."""
    h = hashlib.sha256()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def content_digest(*parts: bytes | str) -> str:
    """Hex SHA-256 over ``parts`` (strings as UTF-8), each preceded by its length: no two lists of parts give the
    same input."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


class Undigestible(Exception):
    """Raised inside :class:`Fingerprinter` for a value it cannot digest."""


#: Values that stand for themselves in a canonical structure (exact types only: a subclass is undigestible).
_PLAIN = frozenset({str, int, float, bool, type(None)})
#: :mod:`marshal` format version of canonical structures. Version 2, not a later one: from version 3 on,
#: marshal writes back-references for objects referenced more than once (by reference count) and marks
#: interned strings, so equal values could give different bytes; version 2 writes every value in full, with a
#: type code (``True`` and ``1``, ``1`` and ``1.0``, a tuple and a list are told apart), strings as UTF-8 with
#: their length (``surrogatepass``), floats in binary; ``marshal.loads`` gives the value back, so equal bytes
#: mean equal canonical structures. (https://docs.python.org/3/library/marshal.html, CPython ``Python/marshal.c``.)
_MARSHAL = 2


class Fingerprinter:
    """Digests of model objects and views, for keys of rendered files.

    :meth:`of` digests strings, numbers, booleans, None, lists, tuples,
    dicts (in their order, which is the order a template iterates them),
    sets and frozensets of those and dataclass instances (by class name and
    every field, including ``compare=False`` and ``repr=False`` ones). The
    value is first turned into a canonical structure: scalars, tuples and
    lists stand for themselves (their exact types), a dict is
    ``(..., "d", ((key, value), ...))``, a set or frozenset
    ``(..., "S", (sorted marshal bytes of its elements))`` (``...``, Ellipsis,
    is no value of the model, so a tag cannot be mistaken for data), and every
    dataclass instance stands as its digest: the SHA-256 (32 bytes; no other
    ``bytes`` value is digestible) of the :mod:`marshal` bytes (format version
    :data:`_MARSHAL`, a decodable, type-tagged form: different structures
    never give the same bytes) of ``(class qualname, (field values, …))``.
    :meth:`of` is the SHA-256 of the marshal bytes of the canonical structure.
    Digests are the same in every process and run of the same code (no
    hash-seed or reference-count dependence). Dataclass digests are memoised
    per object for the lifetime of the fingerprinter (one build), so a paper
    shown on many pages is digested once. :meth:`of` returns None when ``obj``
    holds anything else (a subclass of ``str`` or ``dict``, ``bytes``, a
    library object, …): the file is then always rendered (never wrongly reused).
    """

    def __init__(self) -> None:
        self._memo: dict[int, tuple[object, bytes]] = {}
        # Per dataclass: its qualname and a getter of all its field values as a tuple (operator.attrgetter).
        self._getters: dict[type, tuple[str, Callable[[Any], tuple]]] = {}

    def of(self, obj: Any) -> str | None:
        """Hex digest of ``obj``'s data, or None when ``obj`` holds an object it cannot digest."""
        try:
            return hashlib.sha256(marshal.dumps(self._canon(obj), _MARSHAL)).hexdigest()
        except (Undigestible, ValueError):  # ValueError: nested beyond marshal's depth limit
            return None

    def _canon(self, obj: Any):
        kind = type(obj)
        plain = _PLAIN
        if kind in plain:
            return obj
        if kind is tuple or kind is list:
            for x in obj:
                if type(x) not in plain:  # copied only when it holds something else than scalars
                    canon = self._canon
                    return kind([x if type(x) in plain else canon(x) for x in obj])
            return obj
        if kind is dict:
            canon = self._canon
            return (..., "d", tuple([(k if type(k) in plain else canon(k), v if type(v) in plain else canon(v))
                                     for k, v in obj.items()]))
        if kind is set or kind is frozenset:
            return (..., "S", tuple(sorted([marshal.dumps(self._canon(x), _MARSHAL) for x in obj])))
        hit = self._memo.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        getter = self._getters.get(kind)
        if getter is None:
            getter = self._getter(kind)
        name, get = getter
        values = get(obj)
        for v in values:
            if type(v) not in plain:
                canon = self._canon
                values = tuple([v if type(v) in plain else canon(v) for v in values])
                break
        digest = hashlib.sha256(marshal.dumps((name, values), _MARSHAL)).digest()
        self._memo[id(obj)] = (obj, digest)
        return digest

    def _getter(self, kind: type) -> tuple[str, Callable[[Any], tuple]]:
        """``(qualname, getter of every field value as a tuple)`` of the dataclass ``kind``; raises
        :class:`Undigestible` for any other type."""
        if not (dataclasses.is_dataclass(kind) and isinstance(kind, type)):
            raise Undigestible(kind.__name__)
        names = tuple(f.name for f in dataclasses.fields(kind))
        if len(names) > 1:
            get = attrgetter(*names)
        else:  # attrgetter of one name returns the value itself, not a tuple
            get = lambda obj: tuple([getattr(obj, name) for name in names])  # noqa: E731
        self._getters[kind] = (kind.__qualname__, get)
        return self._getters[kind]

    def digest(self, obj: Any) -> bytes | None:
        """The 32-byte SHA-256 digest of the dataclass instance ``obj`` as :meth:`of` uses it inside a
        structure (memoised), or None when ``obj`` is not one or holds what cannot be digested."""
        hit = self._memo.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
            return None
        try:
            return self._canon(obj)
        except Undigestible:
            return None

    def digests(self, objects: list) -> list[bytes]:
        """The 32-byte SHA-256 digest of each dataclass instance of ``objects``, as :meth:`of` uses it
        inside a structure (memoised); raises :class:`Undigestible` for an object it cannot digest.
        For :meth:`adopt` in another process (see :class:`site_builder.output.search_index.SharedDigests`)."""
        canon = self._canon
        result = []
        for obj in objects:
            if not dataclasses.is_dataclass(obj):
                raise Undigestible(type(obj).__name__)
            result.append(canon(obj))
        return result

    def mark(self) -> int:
        """A mark for :meth:`forget_since`: the number of digests memoised so far."""
        return len(self._memo)

    def forget_since(self, mark: int, keep: tuple[type, ...] = ()) -> None:
        """Let go of the digests memoised since :meth:`mark` gave ``mark`` (and of the objects the memo held for
        them), but those of instances of ``keep``: for objects made for one file (a page's context), which the
        memo would otherwise keep alive to the end of the build. Digests are the same either way."""
        memo = self._memo
        for key in list(islice(reversed(memo), max(len(memo) - mark, 0))):
            if not isinstance(memo[key][0], keep):
                del memo[key]

    def adopt(self, objects: list, digests: list[bytes]) -> None:
        """Take ``digests`` (:meth:`digests` of the same ``objects``, computed by another fingerprinter, e.g.
        in a forked process that shares these objects) as the memoised digests of ``objects``."""
        if len(objects) != len(digests):
            raise ValueError(f"{len(objects)} objects but {len(digests)} digests")
        memo = self._memo
        for obj, digest in zip(objects, digests):
            memo[id(obj)] = (obj, digest)
