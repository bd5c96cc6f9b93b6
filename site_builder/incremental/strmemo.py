"""Memo tables of small pure functions of strings (slugs, author keys), kept across builds.

Results may be str, int, float or bool (marshal keeps them exactly); a function returning None
is computed again on every call.

A function decorated with :func:`memoized` remembers its results in this
process, like :func:`functools.lru_cache`; in addition the build cache saves
the tables (:func:`tables`, ``<cache>/strings.marshal``: :mod:`marshal` keeps their
tuple keys as they are) and loads them into the next build's process
(:func:`load_tables`), so a rebuild does not transliterate tens of thousands
of names and titles again. The tables are only valid for the
same code version (the build cache checks it), and a function's result never
depends on the table: a value missing or unreadable is computed again.
Each table holds at most :data:`LIMIT` entries (it is cleared when full), so
a long-running preview server does not grow without bound.
"""

from __future__ import annotations

import inspect
from functools import wraps
from itertools import chain
from typing import Any, Callable

#: Most entries one table holds.
LIMIT = 1 << 18
TABLES: dict[str, dict[tuple, Any]] = {}
VALUE_TYPES = (str, int, float, bool)
_ADDED: set[str] = set()  # tables that gained entries since the last load or save


def memoized(name: str) -> Callable[[Callable], Callable]:
    """Decorator: memoize a function whose first argument is a str and whose other positional
    arguments are str or int, returning a str, int, float or bool, in table ``name`` (calls with
    keywords are not memoized)."""
    def decorate(function: Callable) -> Callable:
        table = TABLES.setdefault(name, {})
        parameters = inspect.signature(function).parameters.values()
        if len(parameters) == 1 and next(iter(parameters)).kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
            @wraps(function)
            def single(arg):  # the common case, kept lean: a dict lookup per call
                value = table.get(arg)
                if value is None:
                    if len(table) >= LIMIT:
                        table.clear()
                    value = table[arg] = function(arg)
                    _ADDED.add(name)
                return value

            single.cache_clear = table.clear  # type: ignore[attr-defined]
            return single

        @wraps(function)
        def wrapper(*args, **kwargs):
            if kwargs:
                return function(*args, **kwargs)
            key = args[0] if len(args) == 1 else args
            value = table.get(key)
            if value is None:
                if len(table) >= LIMIT:
                    table.clear()
                value = table[key] = function(*args)
                _ADDED.add(name)
            return value

        wrapper.cache_clear = table.clear  # type: ignore[attr-defined]
        return wrapper
    return decorate


def mark() -> dict[str, int]:
    """Start noting what the tables gain (for :func:`added_since`): their sizes now (also clears the
    record of tables changed since the last load or save; a process that forks and hands its
    additions back with :func:`merge` uses this)."""
    _ADDED.clear()
    return {name: len(table) for name, table in TABLES.items()}


def added_since(sizes: dict[str, int]) -> dict[str, list[tuple[Any, Any]]]:
    """``{table name: [(key, value), …]}``: the entries each table gained since :func:`mark` gave
    ``sizes`` (all of a table cleared meanwhile, when full)."""
    added = {}
    for name in _ADDED:
        table, before = TABLES[name], sizes.get(name, 0)
        added[name] = list(table.items())[before:] if len(table) >= before else list(table.items())
    return added


def merge(added: dict[str, list[tuple[Any, Any]]]) -> None:
    """Take the entries of :func:`added_since` (from another process) into the tables, clearing a table
    that would grow past :data:`LIMIT`; unknown tables are skipped."""
    for name, entries in added.items():
        table = TABLES.get(name)
        if table is not None and entries:
            if len(table) + len(entries) > LIMIT:
                table.clear()
            table.update(entries)
            _ADDED.add(name)


def changed() -> bool:
    """Whether a table gained entries since the last :func:`load_tables` or :func:`tables`."""
    return bool(_ADDED)


#: The types a table's key may be, and (for a tuple key) its parts.
_KEY_TYPES = {str, tuple}
_PART_TYPES = {str, int}


def tables() -> dict[str, dict]:
    """The tables as they are, ``{name: {key: value}}`` (a key is the first argument, or the tuple of the
    positional arguments), for saving in a format that keeps tuples (:mod:`marshal`); marks them saved.
    The dicts are the live tables: save them before calling a memoized function again."""
    _ADDED.clear()
    return dict(TABLES)


def load_tables(data: Any) -> bool:
    """Add the entries of a :func:`tables` result (read back) to the tables; False (nothing added) when
    malformed: a key that is not a str or a tuple of str and int, a value not of :data:`VALUE_TYPES`.
    Unknown tables are skipped; a table that would grow past :data:`LIMIT` is not loaded."""
    if not isinstance(data, dict):
        return False
    updates: list[tuple[dict, dict]] = []
    values_ok = set(VALUE_TYPES)
    for name, table in data.items():
        target = TABLES.get(name)
        if target is None:
            continue
        if type(table) is not dict or not set(map(type, table.values())) <= values_ok:
            return False
        kinds = set(map(type, table))
        if not kinds <= _KEY_TYPES:
            return False
        if tuple in kinds:  # the parts of every tuple key (all keys of a table of several arguments, as a rule)
            tuples = table if len(kinds) == 1 else [k for k in table if type(k) is tuple]
            if not set(map(type, chain.from_iterable(tuples))) <= _PART_TYPES:
                return False
        updates.append((target, table))
    for target, table in updates:
        if len(target) + len(table) <= LIMIT:
            target.update(table)
    return True
