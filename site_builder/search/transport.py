"""The packing of the search index's files (:mod:`site_builder.search.shards` writes them): numbers and
terms as compact strings that a classic script holds without escapes, read back by
``assets/search-transport.js`` (``tests/search/test_search_transport.py`` checks the two agree).

``<numbers>`` is a string of non-negative integers, each written in
:data:`DIGITS`: zero or more *continuation* digits (the first :data:`CONT`
characters, base :data:`CONT`, most significant first) then one *final* digit
(the other :data:`FINAL` characters): ``value = cont * FINAL + final``. All
of :data:`DIGITS` are printable ASCII other than ``'``, ``\\`` and ``<``, so
the strings need no escape. A list of ascending numbers is written as the
first, then each next minus the previous minus one ("gaps").

- Terms, in JavaScript string order, front-coded (:func:`front_code`): per term the length shared
  with the previous term and the length of the rest, both in UTF-16 code units (never inside a
  surrogate pair), as numbers; the rests concatenated, as text.
- Postings (:func:`posting_parts`), per term in order: a mask of the fields holding it (bit ``f``
  for field ``f``), then per such field, in field order: the number of documents, then their
  document numbers as gaps.
"""

from __future__ import annotations

import json
import re

import numpy as np


#: The digit characters: printable ASCII but ``'``, ``\\`` and ``<`` (safe in a quoted script string).
DIGITS = "".join(c for c in map(chr, range(0x20, 0x7F)) if c not in "'\\<")
#: Continuation digits (the first ``CONT`` of :data:`DIGITS`) and final digits (the rest).
CONT = 42
FINAL = len(DIGITS) - CONT
_DIGIT_BYTES = np.frombuffer(DIGITS.encode("ascii"), dtype=np.uint8)
_SAFE_REF = re.compile(r"[0-9a-z]+")


def pack_numbers(values: np.ndarray) -> str:
    """``values`` (non-negative integers) written in :data:`DIGITS` one after another (see the module doc).

    Raises ValueError on a negative value.
    """
    return _pack(values)[0]


def _pack(values) -> tuple[str, np.ndarray]:
    """:func:`pack_numbers` of ``values`` and the characters each value takes."""
    values = np.asarray(values, dtype=np.int64)
    if len(values) and values.min() < 0:
        raise ValueError("negative value cannot be packed")
    quotient = values // FINAL
    width = np.ones(len(values), dtype=np.int64)  # characters per value: 1 + continuation digits of quotient
    top, limit = (int(quotient.max()) if len(values) else 0), 1
    while limit <= top:
        width += quotient >= limit
        limit *= CONT
    end = np.cumsum(width)
    out = np.empty(int(end[-1]) if len(end) else 0, dtype=np.uint8)
    out[end - 1] = _DIGIT_BYTES[CONT + values - quotient * FINAL]
    live = np.flatnonzero(quotient)  # continuation digits, least significant first, of the values that have some
    rest, at = quotient[live], end[live] - 2
    while len(rest):
        out[at] = _DIGIT_BYTES[rest % CONT]
        rest //= CONT
        keep = rest > 0
        rest, at = rest[keep], at[keep] - 1
    return out.tobytes().decode("ascii"), width


def pack_sized(values) -> tuple[str, np.ndarray]:
    """:func:`pack_numbers` of ``values`` and the characters each value takes (int64, one per value), so
    that the text can be cut between values. Raises ValueError on a negative value."""
    return _pack(values)


def unpack_numbers(text: str) -> list[int]:
    """The integers of a :func:`pack_numbers` string (for tests and tools)."""
    value_of = {c: i for i, c in enumerate(DIGITS)}
    out, value = [], 0
    for c in text:
        d = value_of[c]
        if d < CONT:
            value = value * CONT + d
        else:
            out.append(value * FINAL + d - CONT)
            value = 0
    return out


def _utf16_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


def front_code(terms: tuple[str, ...]) -> tuple[str, str]:
    """``(lengths, suffixes)`` of ``terms`` as the module doc describes: per term, the UTF-16 code units
    it shares with the previous term (whole code points only) and the units of the rest; the rests joined.

    Computed on all the terms' UTF-16 code units at once: a term's shared prefix ends at its first unit
    unequal to the previous term's, moved back by one when that would split a surrogate pair (equal
    code points are equal units, and two astral code points differ in their second unit when their
    first is the same high surrogate); equal to :func:`_front_code_loop`, which compares code points
    one by one, and which terms holding a lone surrogate (not UTF-16) are given to."""
    joined = "".join(terms)
    try:
        units = np.frombuffer(joined.encode("utf-16-le"), dtype="<u2")
    except UnicodeEncodeError:  # a lone surrogate
        return _front_code_loop(terms)
    n = len(terms)
    if len(units) == len(joined):  # no astral code point: one unit per code point
        size = np.fromiter(map(len, terms), np.int64, n)
    else:
        size = np.fromiter(map(_utf16_len, terms), np.int64, n)
    start = np.zeros(n + 1, np.int64)
    np.cumsum(size, out=start[1:])
    limit = np.zeros(n, np.int64)  # units both a term and the previous one have
    if n > 1:
        np.minimum(size[1:], size[:-1], out=limit[1:])
    shared = limit.copy()
    total = int(limit.sum())
    if total:
        owner = np.repeat(np.arange(n, dtype=np.int64), limit)
        offset = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(limit) - limit, limit)
        at = start[owner] + offset
        unequal = np.flatnonzero(units[at] != units[at - size[owner - 1]])
        first = unequal[np.r_[True, owner[unequal[1:]] != owner[unequal[:-1]]]] if len(unequal) else unequal
        shared[owner[first]] = offset[first]
        last = units[np.maximum(start[:-1] + shared - 1, 0)]
        shared -= (shared > 0) & (last >= 0xD800) & (last < 0xDC00)  # a high surrogate: the pair stays whole
    values = np.empty(2 * n, np.int64)
    values[0::2], values[1::2] = shared, size - shared
    keep = np.arange(len(units), dtype=np.int64) >= np.repeat(start[:-1] + shared, size)
    return pack_numbers(values), units[keep].tobytes().decode("utf-16-le")


def _front_code_loop(terms: tuple[str, ...]) -> tuple[str, str]:
    """:func:`front_code`, term by term, comparing code points (also for terms that are not UTF-16)."""
    lengths, suffixes, previous = [], [], ""
    for term in terms:
        shared, limit = 0, min(len(previous), len(term))
        while shared < limit and previous[shared] == term[shared]:
            shared += 1
        rest = term[shared:]
        lengths += [_utf16_len(term[:shared]), _utf16_len(rest)]
        suffixes.append(rest)
        previous = term
    return pack_numbers(np.array(lengths, dtype=np.int64)), "".join(suffixes)


def _gaps(numbers: np.ndarray, new_list: np.ndarray) -> np.ndarray:
    """Ascending ``numbers`` as gaps, each list (starting where ``new_list`` is True) starting afresh."""
    previous = np.r_[-1, numbers[:-1]] if len(numbers) else numbers
    return np.where(new_list, numbers, numbers - previous - 1)


def posting_parts(term: np.ndarray, field: np.ndarray, doc: np.ndarray, n_terms: int) -> tuple[str, np.ndarray]:
    """The ``postings`` text of entries sorted by term, field, document (int64 arrays of equal length,
    ``term`` < ``n_terms``) and the characters of each term's part (int64, ``n_terms``; 0 for a term
    without entries, which the page never reads)."""
    n_entries = len(term)
    group = term * 64 + field  # fields < 64: the mask is a number of bits
    new_group = np.r_[True, group[1:] != group[:-1]] if n_entries else np.zeros(0, bool)
    group_start = np.flatnonzero(new_group)            # first entry of each (term, field) group
    group_term = term[group_start]
    present = np.bincount(group_term, minlength=n_terms) > 0
    # Positions among the values: a term's mask, then per group its count and documents.
    n_present = np.cumsum(present) - 1                  # rank of a present term
    first_group = np.flatnonzero(np.r_[True, group_term[1:] != group_term[:-1]]) if len(group_start) else group_start
    count_at = n_present[group_term] + 1 + np.arange(len(group_start)) + group_start
    mask_at = np.arange(len(first_group)) + first_group + np.r_[group_start, n_entries][first_group]
    values = np.empty(len(first_group) + len(group_start) + n_entries, dtype=np.int64)
    values[mask_at] = np.bitwise_or.reduceat(np.left_shift(1, field[group_start]), first_group) if len(first_group) else 0
    values[count_at] = np.diff(np.r_[group_start, n_entries])
    entry_group = np.cumsum(new_group) - 1
    values[count_at[entry_group] + 1 + np.arange(n_entries) - group_start[entry_group]] = _gaps(doc, new_group)
    text, width = _pack(values)
    sizes = np.zeros(n_terms, dtype=np.int64)
    if len(first_group):
        sizes[present] = np.add.reduceat(width, mask_at)
    return text, sizes


def js_text(text: str) -> str:
    """``text`` as a single-quoted JavaScript string literal that cannot end a script element."""
    text = (text.replace("\\", "\\\\").replace("'", "\\'").replace("<", "\\x3c").replace("\n", "\\n")
            .replace("\r", "\\r").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return f"'{text}'"


def json_text(data: object) -> str:
    """``data`` as compact deterministic JSON (keys sorted, UTF-8 kept), with ``<`` and U+2028/9 escaped."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def check_refs(refs) -> None:
    """Raise ValueError when a ref is not made of ``[0-9a-z]`` (refs become object keys in the browser:
    ``__proto__`` must never be one)."""
    bad = [r for r in refs if not _SAFE_REF.fullmatch(r)]
    if bad:
        raise ValueError(f"index refs must be [0-9a-z]+, not {bad[0]!r}")
