"""The search index as the browser receives it: ``search-index.js``, a compact packing of the
lunr 2.3.9 index that :mod:`site_builder.indexer` computes, plus the records results show.

``assets/search-transport.js`` unpacks it into a ``lunr.Index`` equal to what
``lunr.Index.load`` makes of :func:`site_builder.indexer.lunr_json` (every
term, posting, field vector and score; ``tests/test_search_transport.py``
checks this deep and exact through Node). Nothing is recomputed in the browser:
scores are the Python ones, sent as integers (score × 1000, which lunr rounds to).

The file is one classic script, so it loads from ``file://`` too::

    window.SEARCH_DATA = {"format": "site-lunr-pack-1", "version": "2.3.9",
      "fields": [name, ...], "refs": [ref, ...], "counts": [terms, entries, numbers in postings],
      "lengths": '<numbers>', "suffixes": '<text>', "postings": '<numbers>',
      "docs": JSON.parse('<{ref: record} as JSON>')};

``<numbers>`` is a string of non-negative integers, each written in
:data:`DIGITS`: zero or more *continuation* digits (the first :data:`CONT`
characters, base :data:`CONT`, most significant first) then one *final* digit
(the other :data:`FINAL` characters): ``value = cont * FINAL + final``. All
of :data:`DIGITS` are printable ASCII other than ``'``, ``\\`` and ``<``, so
the strings need no escape.

- Terms, in JavaScript string order, front-coded: ``lengths`` holds per term
  the length shared with the previous term and the length of the rest, both
  in UTF-16 code units (never inside a surrogate pair); ``suffixes`` the rests,
  concatenated.
- ``postings``, per term in order: a mask of the fields holding it (bit ``f``
  for ``fields[f]``), then per such field, in field order: the number ``n`` of
  documents, their document numbers (positions in ``refs``) ascending, the
  first as is and each next as the gap minus one, then their ``n`` scores
  (``round(score * 1000)``).
"""

from __future__ import annotations

import json
import re

import numpy as np

from .indexer import LUNR_VERSION, IndexTables

FORMAT = "site-lunr-pack-1"
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
    values = np.asarray(values, dtype=np.int64)
    if len(values) and values.min() < 0:
        raise ValueError("negative value cannot be packed")
    quotient = values // FINAL
    width = np.ones(len(values), dtype=np.int64)  # characters per value
    rest = quotient.copy()
    while (rest > 0).any():
        width += rest > 0
        rest //= CONT
    end = np.cumsum(width)
    out = np.empty(int(end[-1]) if len(end) else 0, dtype=np.uint8)
    out[end - 1] = _DIGIT_BYTES[CONT + values % FINAL]
    rest, at = quotient, end - 2
    while True:
        live = rest > 0
        if not live.any():
            break
        out[at[live]] = _DIGIT_BYTES[rest[live] % CONT]
        rest = rest // CONT
        at = at - 1
    return out.tobytes().decode("ascii")


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
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def front_code(terms: tuple[str, ...]) -> tuple[str, str]:
    """``(lengths, suffixes)`` of ``terms`` as the module doc describes."""
    lengths, suffixes, previous = [], [], ""
    for term in terms:
        shared = 0
        for a, b in zip(previous, term):
            if a != b:
                break
            shared += 1
        rest = term[shared:]
        lengths += [_utf16_len(term[:shared]), _utf16_len(rest)]
        suffixes.append(rest)
        previous = term
    return pack_numbers(np.array(lengths, dtype=np.int64)), "".join(suffixes)


def pack_postings(tables: IndexTables) -> tuple[str, int]:
    """The ``postings`` string of ``tables`` (see the module doc) and how many numbers it holds,
    built with array arithmetic."""
    n_fields = len(tables.fields)
    n_terms, n_entries = len(tables.terms), len(tables.term)
    group = tables.term * n_fields + tables.field
    new_group = np.r_[True, group[1:] != group[:-1]] if n_entries else np.zeros(0, bool)
    group_start = np.flatnonzero(new_group)            # first entry of each (term, field) group
    group_count = np.diff(np.r_[group_start, n_entries])
    group_term = tables.term[group_start]
    group_field = tables.field[group_start]
    entry_group = np.cumsum(new_group) - 1
    # Term t's block: its mask, then its groups; position of a group's count among all values.
    term_groups = np.bincount(group_term, minlength=n_terms)
    first_group = np.r_[0, np.cumsum(term_groups)[:-1]]
    count_at = group_term + 1 + np.arange(len(group_start)) + 2 * group_start
    mask_at = np.arange(n_terms) + first_group + 2 * np.r_[group_start, n_entries][first_group]
    values = np.empty(n_terms + len(group_start) + 2 * n_entries, dtype=np.int64)
    values[mask_at] = np.bincount(group_term, weights=1 << group_field, minlength=n_terms).astype(np.int64)
    values[count_at] = group_count
    within = np.arange(n_entries) - group_start[entry_group]
    previous = np.r_[-1, tables.doc[:-1]] if n_entries else np.zeros(0, np.int64)
    values[count_at[entry_group] + 1 + within] = np.where(new_group, tables.doc, tables.doc - previous - 1)
    values[count_at[entry_group] + 1 + group_count[entry_group] + within] = tables.score
    return pack_numbers(values), len(values)


def js_text(text: str) -> str:
    """``text`` as a single-quoted JavaScript string literal that cannot end a script element."""
    text = (text.replace("\\", "\\\\").replace("'", "\\'").replace("<", "\\x3c").replace("\n", "\\n")
            .replace("\r", "\\r").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return f"'{text}'"


def json_text(data: object) -> str:
    """``data`` as compact deterministic JSON (keys sorted, UTF-8 kept), with ``<`` and U+2028/9 escaped."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def index_script(tables: IndexTables, docs: dict) -> str:
    """The text of ``search-index.js`` for the index ``tables`` and the result records ``docs`` ({ref: record}).

    Raises ValueError when a ref is not made of ``[0-9a-z]`` (refs become
    object keys in the browser: ``__proto__`` must never be one) or when
    the numbers cannot be packed.
    """
    bad = [r for r in tables.refs if not _SAFE_REF.fullmatch(r)]
    if bad:
        raise ValueError(f"index refs must be [0-9a-z]+, not {bad[0]!r}")
    lengths, suffixes = front_code(tables.terms)
    postings, numbers = pack_postings(tables)
    head = {"format": FORMAT, "version": LUNR_VERSION, "fields": list(tables.fields), "refs": list(tables.refs),
            "counts": [len(tables.terms), len(tables.term), numbers]}
    parts = [f"{json_text(k)}:{json_text(v)}" for k, v in head.items()]
    parts += [f'"lengths":{js_text(lengths)}', f'"suffixes":{js_text(suffixes)}',
              f'"postings":{js_text(postings)}',
              f'"docs":JSON.parse({js_text(json.dumps(docs, ensure_ascii=False, sort_keys=True, separators=(",", ":")))})']
    return "window.SEARCH_DATA = {" + ",\n".join(parts) + "};\n"
