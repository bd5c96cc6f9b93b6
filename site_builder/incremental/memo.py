"""The memo of per-paper work: rendered abstracts, derived titles and inline-rendered titles, kept across builds.

Each is a pure function of a string (:data:`MEMO_FUNCTIONS`), so its value is kept by the SHA-256 of the
function's name and its input in ``<cache>/memo.marshal`` (:data:`MEMO_NAME`, through the build cache's
:class:`~site_builder.incremental.store.Store`), and looked up again by the next build. The list cache
(:mod:`site_builder.incremental.lists`) hands over the values it keeps with each list
(:meth:`WorkMemo.remember_work`), which are then looked up by their source string alone and not written to the
memo file. The tables of :mod:`.strmemo` (slugs, author keys) are kept beside it (``strings.marshal``).

The memo file holds only the entries the last build used, so it never grows beyond one site's worth.

A rendered abstract, once the model has asked for it, is kept in the memo's :class:`~.texts.TextStore` (its
HTML and text in a file for the build, see :mod:`.texts`) and held by the memo and the paper as that
:class:`~.texts.StoredAbstract`; the memo file and the list cache get its plain value.
"""

from __future__ import annotations

from typing import Any, Callable

from . import strmemo
from .digest import content_digest
from .store import Store
from .texts import TextStore
from ..read.duplicates import paper_id
from ..text.render import RenderedAbstract, render_abstract, render_inline
from ..text.titles import derive_title

MEMO_NAME = "memo.marshal"
#: The tables of :mod:`strmemo` (~100,000 entries at 10,000 papers): marshal keeps their tuple keys as they are
#: (~0.03 s to load and check, against ~0.05 s as JSON).
STRINGS_NAME = "strings.marshal"
#: Where an older version kept them (removed when the tables are saved).
_STRINGS_JSON = "strings.json"


class WorkMemo:
    """The memo of one build, kept in ``store`` (a disabled store keeps nothing: every value is computed, and
    kept in memory for this build). Loads the memo file and the string tables when made."""

    def __init__(self, store: Store):
        self.store = store
        self._memo_old: dict[str, Any] = {}
        self._memo_new: dict[str, Any] = {}
        self._memo_dirty = False  # memo values are kept in memory even without a cache folder
        self._strings_dirty = False
        # Values handed over by the list cache, looked up by string, never saved in the memo:
        # one table per memo function (kind → source → encoded value): a lookup by the source string alone
        self._known: dict[str, dict[str, Any]] = {kind: {} for kind in MEMO_FUNCTIONS}
        self._known_titles = self._known["derive_title"]
        self._known_items: set[tuple[str, str | None]] = set()
        self._ids: dict[tuple[str, str | None], list] = {}
        #: Where the rendered abstracts' HTML and text are kept once the model has them (see :mod:`.texts`).
        self.texts = TextStore(store.folder)
        if store.folder is not None:
            data = store.load(store.path(MEMO_NAME))
            self._memo_dirty = data is None  # (re)write a missing, stale or corrupt memo file
            strings = store.load(store.path(STRINGS_NAME))
            self._strings_dirty = strings is None or not strmemo.load_tables(strings.get("tables"))
            if data is not None:
                self._memo_old = data.get("entries", {}) if isinstance(data.get("entries"), dict) else {}

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
        return _plain(value)

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

    def _memo_stored(self, kind: str, source: str):
        """The value of memo function ``kind`` for ``source`` from the memo file, else computed (and kept)."""
        compute, _, decode = MEMO_FUNCTIONS[kind]
        key = content_digest(kind, source)
        if key in self._memo_new:
            return self._keep(key, kind, decode(self._memo_new[key]))
        if key in self._memo_old:
            try:
                value = decode(self._memo_old[key])
            except (TypeError, ValueError, KeyError, IndexError):
                value = None
            if value is not None:
                return self._keep(key, kind, value)
        self._memo_dirty = True
        return self._keep(key, kind, compute(source))

    def _keep(self, key: str, kind: str, value: Any) -> Any:
        """Hold ``value`` (decoded) under ``key`` for the rest of the build and return it: a rendered abstract in
        :attr:`texts` (a :class:`~.texts.StoredAbstract`, held as it is), any other value encoded
        (:func:`_plain` gives the plain data of both)."""
        if kind == "render_abstract":
            value = self._memo_new[key] = self.texts.keep(value)
        else:
            self._memo_new[key] = MEMO_FUNCTIONS[kind][1](value)
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

    # The three below look up the list cache's value first, then the memo file's (:meth:`_memo_stored`):
    # the model calls each once per paper (30,000 calls a 10,000-paper rebuild).

    def render_abstract(self, source: str) -> RenderedAbstract:
        """:func:`render.render_abstract` of ``source``, from the cache when it holds it."""
        return self._known_value("render_abstract", source)

    def derive_title(self, abstract: str) -> str:
        """:func:`titles.derive_title` of ``abstract``, from the cache when it holds it."""
        known = self._known_titles.get(abstract)
        if isinstance(known, str):  # what _string, the decoder of derive_title, lets through
            return known
        return self._memo_stored("derive_title", abstract)

    def render_inline(self, source: str) -> tuple[str, str]:
        """:func:`render.render_inline` of ``source`` as ``(html, text)``, from the cache when it holds it."""
        return self._known_value("render_inline", source)

    def _known_value(self, kind: str, source: str):
        """The value of memo function ``kind`` for ``source``: the list cache's (decoded by the kind's decoder of
        :data:`MEMO_FUNCTIONS`) when it holds a well-formed one, else :meth:`_memo_stored`."""
        table = self._known[kind]
        known = table.get(source)
        if known is not None:
            try:
                value = MEMO_FUNCTIONS[kind][2](known)
            except (TypeError, ValueError, KeyError, IndexError):
                pass
            else:
                if kind == "render_abstract":
                    value = table[source] = self.texts.keep(value)
                return value
        return self._memo_stored(kind, source)

    def save(self) -> None:
        """Write the memo file (when it changed) and the string tables (when they changed) to the store."""
        store = self.store
        if store.folder is None:
            return
        if self._memo_dirty or set(self._memo_new) != set(self._memo_old):
            entries = {key: _plain(value) for key, value in self._memo_new.items()}
            store.save(store.path(MEMO_NAME), {"entries": entries})
        if self._strings_dirty or strmemo.changed():
            store.save(store.path(STRINGS_NAME), {"tables": strmemo.tables()})
            try:
                store.path(_STRINGS_JSON).unlink(missing_ok=True)
            except OSError:
                pass


def _string(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError("not a string")
    return v


def _plain(value: Any) -> Any:
    """A memo value as plain data (lists, strings): a rendered abstract (the one kind the memo holds decoded) encoded,
    any other value as it is (None stays None)."""
    return MEMO_FUNCTIONS["render_abstract"][1](value) if isinstance(value, RenderedAbstract) else value


def _decode_rendered(v: Any) -> RenderedAbstract:
    if isinstance(v, RenderedAbstract):  # kept in the memo's text store already
        return v
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


