"""Reading the list files with a per-file cache, on every core when there is work for them.

:func:`read_lists` gives exactly what :func:`reader.read_lists` gives (entries
and diagnostics, same order, same text), but

- a list file whose bytes, config defaults (venue, year), path and
  :func:`cache.code_version` are unchanged since the last build is not parsed
  again: its :class:`reader.ListResult` comes from
  ``<cache>/lists/<digest of the path>.marshal`` (one file per list path, so the
  folder never grows beyond the lists built), a file of the build cache's
  :class:`~site_builder.incremental.store.Store` whose digest is :func:`file_key`.
  It holds only lists, tuples, strings, numbers and None (the dataclasses are
  encoded as lists of their fields);
- an edited list is read again from the kept state of its previous read
  (``<cache>/lists/state/<digest of the path>.marshal``, :meth:`~site_builder.incremental.store.Store.keep`,
  written with the list's cache file):
  when the edit leaves its structure as it was (only abstract lines changed, in ways that change
  no title, track, author, number or label line nor any file-wide choice), only the changed
  abstracts are taken again and the entries assembled from the kept fields
  (:mod:`site_builder.read.reread`; exactly a full read's result, else the list is read in full);
  within the list, duplicates are looked for by the digests of the entries' identity keys, known
  from the previous cache file for the unchanged abstracts;
- the files that must be parsed are parsed in a pool of forked workers (largest
  first; results are put back in file order, so the output does not depend on
  which worker finished first), when :func:`parallel.worker_count` allows; the
  worker that parsed a list also writes its cache file (an error comes back to
  the parent, which warns once), so the parent only collects results;
- along with a file's entries the cache keeps each entry's paper id, a digest
  of its identity key (:func:`reader.identity_key`) and its per-paper work
  (:func:`~site_builder.incremental.memo.paper_work`: rendered abstract, derived title, rendered title),
  computed in the same worker. These are pure functions of the entry's
  abstract and title under the same code version, so they are handed to the
  build cache's memo (:meth:`~site_builder.incremental.memo.WorkMemo.remember_work`) and looked up
  by string, without digests; the values of a changed list's previous cache
  file are handed over too, so only new abstracts are rendered again.

Duplicates across lists: :func:`reader.merge_duplicates` is called on the
results that hold an identity key found more than once, in file order. That
is the same as calling it on all results: an entry whose key is unique is
kept unchanged and never looked up by another, so results made only of such
entries are left untouched by the merge (and with no duplicate at all the
merge does nothing). The identity keys come from the cache, so an unchanged
site does not compute them again.

A cache file is written only when decoding it gives back the very result it
was made from (checked when it is written), so a cached read can never
differ from a fresh one; a corrupt cache file is ignored with a warning.
"""

from __future__ import annotations

import gc
import hashlib
from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..read import formats, plaintext as reader, reread as reader_reread
from ..text import render
from .. import parallel
from .cache import BuildCache
from .memo import paper_work
from .store import SUFFIX
from ..diagnostics import Diagnostic
from ..read.duplicates import paper_id
from ..read.plaintext import Entry, Heading, ListResult

FOLDER = "lists"
STATES = "state"  # subfolder of FOLDER: each list's kept state for reading an edit again (reader_reread)
#: Below this many bytes of lists to parse, they are parsed in this process (forking costs more).
MIN_PARALLEL_BYTES = 200_000


@dataclass
class _Read:
    """One list file read: its result (before cross-list merging), per-entry ``ids`` ``[paper id, key digest]``
    and ``work`` (per entry, the :func:`~site_builder.incremental.memo.paper_work` values), the cache ``key`` of the bytes read, and
    ``unwritten``: ``(cache file, error)`` when its cache file could not be written (reported by the parent)."""

    result: ListResult
    ids: list
    work: list
    key: str | None
    unwritten: tuple[str, OSError] | None = None


def file_key(path: str, venue: str | None, year: int | None, data: bytes | None, code: str, explicit: bool = True,
             digest: bytes | None = None) -> str:
    """Hex SHA-256 over the code version, the path as given, the config defaults (venue, year and
    whether a ``[lists."file"]`` entry gave them) and the SHA-256 of the file's bytes ``data`` (or that
    SHA-256 itself as ``digest``, 32 bytes, when the build has already hashed the bytes)."""
    h = hashlib.sha256()
    for part in (code, path, repr(venue), repr(year), repr(explicit)):
        raw = part.encode("utf-8", "surrogatepass")
        h.update(len(raw).to_bytes(8, "little") + raw)
    h.update(digest if digest is not None else hashlib.sha256(data).digest())
    return h.hexdigest()


def entry_ids(entry: Entry) -> list[str]:
    """``[paper id, digest of the identity key]`` of a reader entry (see :func:`~site_builder.read.duplicates.paper_id`)."""
    key = reader.identity_key(entry.abstract, entry.title)
    return [paper_id(entry), hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]]


# -- encoding -----------------------------------------------------------------------------------

def _row(obj: Any) -> list:
    """The fields of a dataclass instance, in order (``list(astuple(obj))`` for these flat
    dataclasses, whose values are strings, numbers, None and tuples of strings, without the copies)."""
    return [getattr(obj, name) for name in _FIELDS[type(obj)]]


_FIELDS = {kind: tuple(f.name for f in fields(kind)) for kind in (Heading, Entry, Diagnostic)}
#: :func:`decode` may fill an Entry's ``__dict__`` itself only while its __init__ does nothing more.
_PLAIN_ENTRY = not hasattr(Entry, "__post_init__") and "__slots__" not in vars(Entry)


def encode(result: ListResult) -> dict:
    """Plain-data form of a :class:`reader.ListResult` (dataclass fields in order, as lists)."""
    return {"path": result.path, "heading": _row(result.heading) if result.heading else None,
            "entries": [_row(e) for e in result.entries],
            "diagnostics": [_row(d) for d in result.diagnostics]}


def decode(data: dict) -> ListResult:
    """The :class:`reader.ListResult` of :func:`encode`'s output. Raises TypeError/ValueError/KeyError if malformed."""
    heading = Heading(*data["heading"]) if data["heading"] is not None else None
    # the rows come from marshal, which keeps the entries' tuples as tuples (no conversion needed); an Entry
    # (a frozen dataclass with no __post_init__) is made as its __init__ makes it, without one
    # object.__setattr__ call per field (3x faster)
    names, new = _FIELDS[Entry], object.__new__
    if not _PLAIN_ENTRY:
        return ListResult(data["path"], heading, [Entry(*row) for row in data["entries"]],
                          [Diagnostic(*row) for row in data["diagnostics"]])
    entries = []
    for row in data["entries"]:
        if len(row) != len(names):
            raise ValueError("an entry row of the wrong length")
        entry = new(Entry)
        entry.__dict__.update(zip(names, row))
        entries.append(entry)
    diagnostics = [Diagnostic(*row) for row in data["diagnostics"]]
    return ListResult(data["path"], heading, entries, diagnostics)


# -- one file -----------------------------------------------------------------------------------

#: ``(abstract, title or None)`` whose per-paper work the cache already holds (set before workers fork).
_KNOWN: frozenset = frozenset()
#: The build cache of the running :func:`read_lists` (set before workers fork): :func:`read_one` writes
#: the list cache files itself, in the worker, and recalls the work of :data:`_KNOWN` items from it.
_CACHE: BuildCache | None = None
#: ``(abstract, title or None) → [paper id, key digest]`` of the entries of the lists to read again, from
#: their previous cache files (set before workers fork).
_IDS: dict = {}
#: While lists are read in this process with ``defer_writes`` (see :func:`read_lists`): :func:`read_one`
#: hands the writing of their cache files to :meth:`cache.BuildCache.defer` instead of writing them.
_DEFER = False


def read_one(item: tuple[str, str | None, int | None, bool, str], full: bool = True) -> _Read | None:
    """Read list ``(path, venue, year, explicit, code version)`` in its format (:mod:`site_builder.read.formats`),
    and its entries' ids and per-paper work (None for the items in :data:`_KNOWN`). A module function,
    so forked workers can run it. The key is None when the file changed while it was read.

    With a cache folder (:data:`_CACHE`), an edited list is read from the kept state of its previous
    read when the edit allows (:mod:`site_builder.read.reread`; the same result), and with a key
    the list's cache file (:func:`_store`, with the work of :data:`_KNOWN` items recalled from the
    cache) and its new state are written. Without ``full``, only such a read is done: None when the
    list has no kept state or its edit needs a full read."""
    path, venue, year, explicit, code = item
    folder = _CACHE.folder if _CACHE is not None else None
    fmt = formats.format_of(path)
    state = _load_state(_CACHE, path) if folder is not None and fmt is not None and fmt.reread else None
    if state is None and not full:
        return None
    before = _bytes(path)
    ids_of: dict[tuple[str, str | None], list] = {}

    def ids(entry: Entry) -> list:
        key = (entry.abstract, entry.title or None)
        found = ids_of.get(key) or _IDS.get(key)
        if found is None:
            found = entry_ids(entry)
        ids_of[key] = found
        return found

    def merge(result: ListResult) -> None:
        # reader.merge_duplicates merges nothing when every identity key is unique; the keys' digests
        # (of the ids) tell it without computing the keys of the entries whose ids are known
        digests = [ids(e)[1] for e in result.entries]
        if len(set(digests)) < len(digests):
            reader.merge_duplicates([result])

    if fmt is not None and fmt.reread is not None:
        read_list = fmt.reread(path, venue, year, explicit, state, merge, full)
    else:  # a format without kept state (or a file no format reads, an error diagnostic) is read in full
        read_list = formats.read_list(path, venue, year, explicit), None, False
    if read_list is None:
        return None
    result, kept, _ = read_list
    key = file_key(path, venue, year, before, code, explicit) if before is not None and before == _bytes(path) else None
    ids_list = [ids(e) for e in result.entries]
    work = [None if (e.abstract, e.title or None) in _KNOWN else paper_work((e.abstract, e.title or None))
            for e in result.entries]
    read = _Read(result, ids_list, work, key)
    if folder is not None and key is not None:
        # what is written is this read, before the merge of duplicates across lists changes its lists
        job = _writer(_CACHE, ListResult(result.path, result.heading, list(result.entries), list(result.diagnostics)),
                      ids_list, work, key, path, kept)
        if _DEFER:
            _CACHE.defer(lambda: _report(_CACHE, job()))
        else:
            read.unwritten = job()
    return read


def _bytes(path: str) -> bytes | None:
    """The bytes of the file at ``path``; None when it cannot be read."""
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _writer(cache: BuildCache, result: ListResult, ids_list: list, work: list, key: str, path: str,
            kept: reader_reread.State | None):
    """The job that writes the cache file and the kept state of one list read (:func:`_store`, then
    :meth:`Store.keep <site_builder.incremental.store.Store.keep>` or, with no state, ``discard``); it returns ``(cache file, error)`` when a file could not be written, else None."""
    def job() -> tuple[str, OSError] | None:
        full = [w if w is not None else _recall(cache, e) for e, w in zip(result.entries, work)]
        name = _cache_name(result.path)
        error = _store(cache, name, _Read(result, ids_list, full, key))
        if error is None:
            name = _state_name(path)
            error = cache.store.discard(name) if kept is None else cache.store.keep(name, kept.to_plain(), warn=False)
        return (str(cache.store.path(name)), error) if error is not None else None
    return job


def _report(cache: BuildCache, unwritten: tuple[str, OSError] | None) -> None:
    if unwritten is not None:
        cache.store.warn_write(Path(unwritten[0]), unwritten[1])


def _path_digest(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _state_name(path: str) -> str:
    """The store name of the kept state of list ``path`` (:mod:`site_builder.read.reread`)."""
    return f"{FOLDER}/{STATES}/{_path_digest(path)}{SUFFIX}"


def _cache_name(path: str) -> str:
    """The store name of the cache file of list ``path``."""
    return f"{FOLDER}/{_path_digest(path)}{SUFFIX}"


def _load_state(cache: BuildCache, path: str) -> reader_reread.State | None:
    """The kept state of the previous read of list ``path`` (:mod:`site_builder.read.reread`), or None
    when there is none, it is of another code version or layout, or it is malformed (a corrupt file with a
    warning, :meth:`Store.kept <site_builder.incremental.store.Store.kept>`; it only saves time)."""
    data = cache.store.kept(_state_name(path))
    return reader_reread.State.from_plain(data) if data is not None else None


def _load(cache: BuildCache, path: str) -> dict | None:
    """The cache file of list ``path`` (header fields included: its ``digest`` is the :func:`file_key` it was
    made for) if it is one of this code version, else None (with a warning when corrupt)."""
    return cache.store.load(cache.store.path(_cache_name(path)))


def _remember(cache: BuildCache, data: dict) -> bool:
    """Hand the per-entry ids and work of a loaded cache file to ``cache``; False when malformed.

    The loop of :meth:`WorkMemo.remember_ids <site_builder.incremental.memo.WorkMemo.remember_ids>` and
    :meth:`~site_builder.incremental.memo.WorkMemo.remember_work` (with :func:`_expand`) for every entry, written
    out on the memo's own tables (10,000 entries a rebuild)."""
    known, items, id_table = cache.memo.list_tables()
    abstracts, derived_titles, inline = known["render_abstract"], known["derive_title"], known["render_inline"]
    html_of = _PLAIN_HTML.format
    try:
        for row, ids, work in zip(data["result"]["entries"], data["ids"], data["work"], strict=True):
            abstract, title = row[2], row[3] or None
            if type(abstract) is not str or type(ids) is not list or len(ids) != 2:  # noqa: E721 - plain data
                return False
            id_table[abstract, title] = ids
            if work is None:
                continue
            rendered = work[0]
            if rendered[0] is None or rendered[1] is None:
                rendered = [html_of(abstract) if rendered[0] is None else rendered[0],
                            abstract if rendered[1] is None else rendered[1], *rendered[2:]]
            abstracts[abstract] = rendered
            if title is None:
                _, derived, title_inline = work
                if type(derived) is not str:  # noqa: E721
                    return False
                derived_titles[abstract] = derived
                inline[derived] = [derived, derived] if title_inline is None else title_inline
            else:
                _, title_inline = work
                inline[title] = [title, title] if title_inline is None else title_inline
            items.add((abstract, title))
    except (KeyError, TypeError, ValueError, IndexError):
        return False
    return True


def _old_ids(data: dict, into: dict) -> None:
    """Add the ``(abstract, title or None) → ids`` of a loaded cache file's entries to ``into`` (none if malformed)."""
    try:
        for row, ids in zip(data["result"]["entries"], data["ids"], strict=True):
            if isinstance(row[2], str) and isinstance(ids, list) and len(ids) == 2 and \
                    all(isinstance(i, str) for i in ids):
                into[row[2], row[3] or None] = ids
    except (KeyError, TypeError, ValueError, IndexError):
        pass


#: The HTML of a rendered abstract that is one paragraph of the abstract itself (most papers): kept as None.
_PLAIN_HTML = "<p>{}</p>\n"


def _compact(abstract: str, title: str | None, work: list) -> list:
    """The values of :func:`~site_builder.incremental.memo.paper_work` without their sources (they are the entry's own strings);
    the rendered abstract's text is None when it is the abstract itself and its HTML None when it is
    :data:`_PLAIN_HTML` of the abstract (most papers), an inline-rendered title None when its HTML and
    text are the title itself: ~40 % less to store and load, all rebuilt exactly by :func:`_expand`."""
    values = [value for _, _, value in work]
    rendered = values[0]
    if isinstance(rendered, list) and len(rendered) > 1:
        html, text = rendered[0], rendered[1]
        values[0] = [None if html == _PLAIN_HTML.format(abstract) else html, None if text == abstract else text,
                     *rendered[2:]]
    source = work[-1][1]  # the title rendered inline (given or derived)
    inline = values[-1]
    if isinstance(inline, list) and len(inline) == 2 and inline[0] == source and inline[1] == source:
        values[-1] = None
    return values


def _expand(abstract: str, title: str | None, values: list) -> list:
    """Inverse of :func:`_compact`: ``(kind, source, value)`` again."""
    rendered = values[0]
    if isinstance(rendered, list) and len(rendered) > 1 and (rendered[0] is None or rendered[1] is None):
        rendered = [_PLAIN_HTML.format(abstract) if rendered[0] is None else rendered[0],
                    abstract if rendered[1] is None else rendered[1], *rendered[2:]]
    if title:
        _, inline = values
        return [("render_abstract", abstract, rendered), ("render_inline", title, [title, title] if inline is None
                                                           else inline)]
    _, derived, inline = values
    if not isinstance(derived, str):
        raise ValueError("derived title is not a string")
    return [("render_abstract", abstract, rendered), ("derive_title", abstract, derived),
            ("render_inline", derived, [derived, derived] if inline is None else inline)]


def _store(cache: BuildCache, name: str, read: _Read) -> OSError | None:
    """Keep ``read`` as the cache file ``name`` if its bytes decode back to the same values
    (:meth:`~site_builder.incremental.store.Store.put` with ``verify``); returns the error when the file could
    not be written (for :meth:`~site_builder.incremental.store.Store.warn_write`)."""
    work = [None if w is None else _compact(e.abstract, e.title, w) for e, w in zip(read.result.entries, read.work)]
    value = {"result": encode(read.result), "ids": read.ids, "work": work}
    return cache.store.put(name, read.key, value, warn=False, verify=True)


# -- all files ----------------------------------------------------------------------------------

def _parse_all(items: list[tuple], sizes: list[int], defer_writes: bool = False, reread_first: bool = True,
               progress=None) -> list[_Read]:
    """:func:`read_one` of every item, largest file first on every core; results in the order of ``items``.
    With ``defer_writes``, the lists read in this process leave the writing of their cache files to
    :meth:`cache.BuildCache.defer` (the workers of a pool write theirs). With ``reread_first``, before
    forking workers, the lists that can be read from their kept state are read so in this process. ``progress``
    (or None) is advanced per list read."""
    global _DEFER
    order = sorted(range(len(items)), key=lambda i: (-sizes[i], i))
    processes = min(parallel.worker_count(), len(items))
    results: list[_Read | None] = [None] * len(items)
    forked = processes >= 2 and sum(sizes) >= MIN_PARALLEL_BYTES
    if forked and reread_first and _CACHE is not None and _CACHE.folder is not None:
        # edited lists read from their kept state take a tenth of a full read: read them here first, and
        # fork workers only for the full reads left (a rebuild after edits of a few lists forks none)
        _DEFER = defer_writes
        try:
            for i in order:
                results[i] = read_one(items[i], full=False)
                if results[i] is not None and progress is not None:
                    progress.advance()
        finally:
            _DEFER = False
        left = [i for i in order if results[i] is None]
        if len(left) < len(items):
            for i, read in zip(left, _parse_all([items[i] for i in left], [sizes[i] for i in left], defer_writes,
                                                False, progress)):
                results[i] = read
            return results  # type: ignore[return-value]
    if forked:  # import the renderer's libraries (imported lazily) once, before forking, not in every worker
        render.warm_up()
    pool = parallel.fork_pool(processes) if forked else None
    if pool is None:
        _DEFER = defer_writes
        try:
            for i in order:
                results[i] = read_one(items[i])
                if progress is not None:
                    progress.advance()
        finally:
            _DEFER = False
        return results  # type: ignore[return-value]
    with pool:
        for i, read in zip(order, pool.imap(read_one, [items[i] for i in order], chunksize=1)):
            results[i] = read
            if progress is not None:
                progress.advance()
    return results  # type: ignore[return-value]


def read_lists(configured: list[tuple], cache: BuildCache | None = None, digests: dict | None = None,
               defer_writes: bool | None = None, progress=None) -> list[ListResult]:
    """See :func:`_read_lists`; the cyclic garbage collector is paused meanwhile (restored after): reading
    makes hundreds of thousands of objects that live on (few, if any, in garbage cycles), and the
    collections they trigger cost about a third of a rebuild's reading stage.

    With ``defer_writes`` (default: the cache's :attr:`~cache.BuildCache.defer_writes`), the cache files of
    the lists read in this process (a rebuild's edited lists) are written later, by
    :meth:`cache.BuildCache.run_deferred` (the build runs it beside the pages, in the process that writes
    the other files, or when it saves the cache); the result is the same. ``digests`` default to the
    cache's :attr:`~cache.BuildCache.file_digests`. ``progress`` (a :class:`~site_builder.progress.Progress`, or
    None) is advanced once per list read (or found in the cache)."""
    if cache is not None:
        digests = digests if digests is not None else cache.file_digests
        defer_writes = defer_writes if defer_writes is not None else cache.defer_writes
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _read_lists(configured, cache, digests, bool(defer_writes), progress)
    finally:
        if enabled:
            gc.enable()


def _read_lists(configured: list[tuple], cache: BuildCache | None = None, digests: dict | None = None,
                defer_writes: bool = False, progress=None) -> list[ListResult]:
    """The :class:`reader.ListResult` of each ``(path, venue, year)`` or ``(path, venue, year, explicit)``
    (see :func:`reader.read_lists`), in order, duplicates across
    lists merged: the same as :func:`reader.read_lists` (see the module docstring).

    With ``cache`` (a :class:`cache.BuildCache`; a disabled one reads everything), unchanged files
    come from the cache and the per-paper values of every list are handed to it. ``digests``: the
    32-byte SHA-256 of list files' bytes that this build has already read (by path as a string,
    :func:`unchanged.inputs_digest`); a cached list whose digest is given is not read again (its cached
    result is that of the bytes hashed), the others are read here.
    """
    digests = digests if digests is not None else {}
    cache = cache if cache is not None else BuildCache(None)
    reads: list[_Read | None] = []
    todo: list[int] = []
    old_ids: dict = {}
    configured = [(path, venue, year, rest[0] if rest else True) for path, venue, year, *rest in configured]
    for index, (path, venue, year, explicit) in enumerate(configured):
        data = _load(cache, str(path)) if cache.folder is not None else None
        read = _cached_read(cache, data, path, venue, year, explicit, digests) if data is not None else None
        reads.append(read)
        if read is None:
            todo.append(index)
            if data is not None:
                _old_ids(data, old_ids)
    if progress is not None:
        progress.advance(len(configured) - len(todo))
    if todo:
        for i, read in zip(todo, _read_files(cache, [configured[i] for i in todo], old_ids, defer_writes, progress)):
            reads[i] = read
    _merge([read for read in reads if read is not None])
    return [read.result for read in reads]  # type: ignore[union-attr]


def _cached_read(cache: BuildCache, data: dict, path, venue: str | None, year: int | None, explicit: bool,
                 digests: dict) -> _Read | None:
    """The read of list ``path`` that its cache file (``data``, as :func:`_load` gives it) holds, when that
    is of the file's present bytes (their digest from ``digests``, else the file is read to hash it) and
    of this config and code; None otherwise (also when the file cannot be read or ``data`` is malformed).
    The cache file's per-paper values are handed to ``cache`` either way (:func:`_remember`)."""
    name = str(path)
    digest = digests.get(name)
    if digest is None:
        raw = _bytes(name)
        digest = hashlib.sha256(raw).digest() if raw is not None else None
    fresh = digest is not None and data.get("digest") == file_key(name, venue, year, None, cache.code, explicit, digest)
    if _remember(cache, data) and fresh:
        try:
            return _Read(decode(data["result"]), data["ids"], [], data["digest"])
        except (KeyError, TypeError, ValueError):
            return None
    return None


def _read_files(cache: BuildCache, configured: list[tuple], old_ids: dict, defer_writes: bool,
                progress=None) -> list[_Read]:
    """:func:`read_one` of each ``(path, venue, year, explicit)`` of ``configured``, in order (on every core,
    :func:`_parse_all`), and the per-paper values of each handed to ``cache``. ``old_ids``: the ids the
    old cache files of these lists held (:func:`_old_ids`), which the reads may take again."""
    global _KNOWN, _CACHE, _IDS
    _KNOWN, _CACHE, _IDS = frozenset(cache.memo.known_items()), cache, old_ids
    items = [(str(path), venue, year, explicit, cache.code) for path, venue, year, explicit in configured]
    sizes = [_file_size(path) for path, *_ in configured]
    try:
        parsed = _parse_all(items, sizes, defer_writes, progress=progress)
    finally:
        _KNOWN, _CACHE, _IDS = frozenset(), None, {}
    for read in parsed:
        for entry, ids, work in zip(read.result.entries, read.ids, read.work):
            cache.memo.remember_ids(entry.abstract, entry.title, ids)
            if work is not None:
                cache.memo.remember_work(entry.abstract, entry.title, work)
        if read.unwritten is not None:
            cache.store.warn_write(Path(read.unwritten[0]), read.unwritten[1])
    return parsed


def _file_size(path) -> int:
    """The size in bytes of the file at ``path``; 0 when it cannot be read."""
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


def _merge(reads: list[_Read]) -> None:
    """:func:`reader.merge_duplicates` over the results of ``reads``, computing identity keys only for
    the entries whose key (digest, from the cache) is not unique.

    The merge is run on stand-in results holding only those entries (and sharing the real
    results' diagnostics lists), in order: an entry with a unique key is kept as it is and is
    never looked up by another, so leaving it out changes nothing for the others. The outcome is
    then put back: an entry whose key was seen before is dropped, the first of each key takes
    the (possibly enriched) entry the merge kept in its place.
    """
    counts = Counter(ids[1] for read in reads for ids in read.ids)
    twice = {key for key, n in counts.items() if n > 1}
    if not twice:
        return
    stand_ins = []
    for read in reads:
        picked = [i for i, ids in enumerate(read.ids) if ids[1] in twice]
        if picked:
            result = read.result
            stand_ins.append((read, picked, ListResult(result.path, result.heading,
                                                       [result.entries[i] for i in picked], result.diagnostics)))
    reader.merge_duplicates([stand_in for _, _, stand_in in stand_ins])
    seen: set[str] = set()
    for read, picked, stand_in in stand_ins:
        kept = iter(stand_in.entries)
        entries: list = list(read.result.entries)
        dropped: set[int] = set()
        for i in picked:
            key = read.ids[i][1]
            if key in seen:
                dropped.add(i)
            else:
                seen.add(key)
                entries[i] = next(kept)
        read.result.entries = [e for i, e in enumerate(entries) if i not in dropped]
        read.ids = [ids for i, ids in enumerate(read.ids) if i not in dropped]


def _recall(cache: BuildCache, entry: Entry) -> list | None:
    """The :func:`~site_builder.incremental.memo.paper_work` triples of ``entry`` as the cache knows them, or None if it lacks one."""
    title = entry.title or None
    rendered = cache.memo.known("render_abstract", entry.abstract)
    if title is None:
        title = cache.memo.known("derive_title", entry.abstract)
        if title is None:
            return None
        work = [("render_abstract", entry.abstract, rendered), ("derive_title", entry.abstract, title)]
    else:
        work = [("render_abstract", entry.abstract, rendered)]
    inline = cache.memo.known("render_inline", title)
    if rendered is None or inline is None:
        return None
    return work + [("render_inline", title, inline)]
