"""The search index as the browser receives it: ``search-index.js``, a compact packing of the
lunr 2.3.9 index that :mod:`site_builder.indexer` computes, plus the records results show.

``assets/search-transport.js`` unpacks it into a ``lunr.Index`` equal to what
``lunr.Index.load`` makes of :func:`site_builder.indexer.lunr_json` (every
term, posting, field vector and score; ``tests/test_search_transport.py``
checks this deep and exact through Node). Nothing is recomputed in the browser:
scores are the Python ones, sent as integers (score × 1000, which lunr rounds to).

The file is one classic script, so it loads from ``file://`` too::

    window.SEARCH_DATA = {"format": "site-lunr-pack-2", "version": "2.3.9",
      "fields": [name, ...], "refs": [ref, ...],
      "terms": '<numbers>', "suffixes": '<text>',
      "postings": '<numbers>', "postingSizes": '<numbers>',
      "vectors": '<numbers>', "vectorSizes": '<numbers>',
      "records": '<record of refs[0] as JSON>\\n<record of refs[1]>...'};

``<numbers>`` is a string of non-negative integers, each written in
:data:`DIGITS`: zero or more *continuation* digits (the first :data:`CONT`
characters, base :data:`CONT`, most significant first) then one *final* digit
(the other :data:`FINAL` characters): ``value = cont * FINAL + final``. All
of :data:`DIGITS` are printable ASCII other than ``'``, ``\\`` and ``<``, so
the strings need no escape. A list of ascending numbers is written as the
first, then each next minus the previous minus one ("gaps").

- Terms, in JavaScript string order, front-coded: ``terms`` holds per term
  the length shared with the previous term and the length of the rest, both
  in UTF-16 code units (never inside a surrogate pair); ``suffixes`` the rests,
  concatenated. Term number = position = lunr's ``_index``.
- ``postings``, per term in order: a mask of the fields holding it (bit ``f``
  for ``fields[f]``), then per such field, in field order: the number of
  documents, then their document numbers (positions in ``refs``) as gaps.
  ``postingSizes``: the characters of each term's part.
- ``vectors``, per document and field (slot ``document * len(fields) +
  field``), the field vector: per term of the field, ascending, the term
  number (as gaps) and the score times 1000 (lunr rounds scores to 3
  places; ``score = n / 1000``). ``vectorSizes``: the characters of each
  slot's part (0 for an empty field).
- ``records``: what a result shows of each document (``{"id", "title", "url",
  "authors", "venue", "track", "snippet"}``), one compact JSON text per line in
  ``refs`` order; the page parses only those it shows or filters.

The sizes let the page read one term's postings or one field vector without
reading the rest: it unpacks only what a query touches.
"""

from __future__ import annotations

import json
import re

import numpy as np

from .indexer import LUNR_VERSION, IndexTables

FORMAT = "site-lunr-pack-2"
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
    return out.tobytes().decode("ascii"), width


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
    """``(lengths, suffixes)`` of ``terms`` as the module doc describes."""
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


def pack_postings(tables: IndexTables) -> tuple[str, str]:
    """``(postings, postingSizes)`` of ``tables`` (see the module doc), built with array arithmetic."""
    n_fields = len(tables.fields)
    n_terms, n_entries = len(tables.terms), len(tables.term)
    group = tables.term * n_fields + tables.field
    new_group = np.r_[True, group[1:] != group[:-1]] if n_entries else np.zeros(0, bool)
    group_start = np.flatnonzero(new_group)            # first entry of each (term, field) group
    group_term = tables.term[group_start]
    # Positions among the values: term t's mask, then per group its count and documents.
    first_group = np.r_[0, np.cumsum(np.bincount(group_term, minlength=n_terms))[:-1]]
    count_at = group_term + 1 + np.arange(len(group_start)) + group_start
    mask_at = np.arange(n_terms) + first_group + np.r_[group_start, n_entries][first_group]
    values = np.empty(n_terms + len(group_start) + n_entries, dtype=np.int64)
    values[mask_at] = np.bincount(group_term, weights=1 << tables.field[group_start], minlength=n_terms).astype(np.int64)
    values[count_at] = np.diff(np.r_[group_start, n_entries])
    entry_group = np.cumsum(new_group) - 1
    values[count_at[entry_group] + 1 + np.arange(n_entries) - group_start[entry_group]] = _gaps(tables.doc, new_group)
    text, width = _pack(values)
    term_of_value = np.repeat(np.arange(n_terms), np.diff(np.r_[mask_at, len(values)]))
    return text, pack_numbers(np.bincount(term_of_value, weights=width, minlength=n_terms).astype(np.int64))


def pack_vectors(tables: IndexTables) -> tuple[str, str]:
    """``(vectors, vectorSizes)`` of ``tables`` (see the module doc), built with array arithmetic."""
    n_slots = len(tables.refs) * len(tables.fields)
    order = np.lexsort((tables.term, tables.field, tables.doc))
    slot = tables.doc[order] * len(tables.fields) + tables.field[order]
    new_slot = np.r_[True, slot[1:] != slot[:-1]] if len(slot) else np.zeros(0, bool)
    values = np.empty(2 * len(order), dtype=np.int64)
    values[0::2] = _gaps(tables.term[order], new_slot)
    values[1::2] = tables.score[order]
    text, width = _pack(values)
    sizes = np.bincount(slot, weights=width[0::2] + width[1::2], minlength=n_slots).astype(np.int64)
    return text, pack_numbers(sizes)


def js_text(text: str) -> str:
    """``text`` as a single-quoted JavaScript string literal that cannot end a script element."""
    text = (text.replace("\\", "\\\\").replace("'", "\\'").replace("<", "\\x3c").replace("\n", "\\n")
            .replace("\r", "\\r").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return f"'{text}'"


def json_text(data: object) -> str:
    """``data`` as compact deterministic JSON (keys sorted, UTF-8 kept), with ``<`` and U+2028/9 escaped."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _compact_json(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def index_script(tables: IndexTables, docs: dict) -> str:
    """The text of ``search-index.js`` for the index ``tables`` and the result records ``docs`` ({ref: record},
    a record for every ref of ``tables``).

    Raises ValueError when a ref is not made of ``[0-9a-z]`` (refs become
    object keys in the browser: ``__proto__`` must never be one) or when
    the numbers cannot be packed.
    """
    bad = [r for r in tables.refs if not _SAFE_REF.fullmatch(r)]
    if bad:
        raise ValueError(f"index refs must be [0-9a-z]+, not {bad[0]!r}")
    lengths, suffixes = front_code(tables.terms)
    postings, posting_sizes = pack_postings(tables)
    vectors, vector_sizes = pack_vectors(tables)
    head = {"format": FORMAT, "version": LUNR_VERSION, "fields": list(tables.fields), "refs": list(tables.refs)}
    parts = [f"{json_text(k)}:{json_text(v)}" for k, v in head.items()]
    packed = {"terms": lengths, "suffixes": suffixes, "postings": postings, "postingSizes": posting_sizes,
              "vectors": vectors, "vectorSizes": vector_sizes,
              "records": "\n".join(_compact_json(docs[ref]) for ref in tables.refs)}
    parts += [f'"{k}":{js_text(v)}' for k, v in packed.items()]
    return "window.SEARCH_DATA = {" + ",\n".join(parts) + "};\n"
