"""``search-index.js`` written from the state kept between builds, re-packing only what changed.

:func:`stateful_script` gives exactly ``transport.index_script`` of
``search.search_tables`` (byte for byte; ``tests/search/test_search_state.py``), from
:func:`state.prepare`'s entries and the packed pieces of the previous
build (:class:`state.PackedParts`):

- field vectors: every entry scored again (:func:`indexer.bm25_scores`) on
  every build: every score depends on the document count, the average field
  lengths and the terms' ``df``, so one changed abstract can change any of
  them (in practice the rounded scores of a few thousand entries); when the
  term numbers did not move, a field vector of a paper the state holds is
  copied with only its changed scores packed anew in place, a new paper's
  packed, in the entries' own order (by paper, field, term: no sort);
- postings: a term's part depends only on which (field, paper) pairs hold it;
  when the papers are those of the previous build at the same positions (some
  edited), only the terms an edited paper gained or lost in a field are packed
  again, the others' parts copied from the state; otherwise all are packed
  (one sort of the entries by term);
- result records: each paper's line is kept under its digest, made only for new or edited papers;
- the front-coded term list: kept when the vocabulary is the same.

The state (with the pieces) is saved for the next build unless nothing changed.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from .state import PackedParts, Prepared, ranges, prepare, save_state
from .indexer import bm25_scores
from ..incremental.store import Store
from ..model.site import Paper
from .documents import FIELDS
from .transport import CONT, FINAL, check_refs, front_code, pack_numbers, posting_parts, record_line, script_bytes, vector_parts

def _starts(sizes: np.ndarray) -> np.ndarray:
    """Offsets of parts of ``sizes``: ``[0, s0, s0 + s1, ...]`` (int64, one more than ``sizes``)."""
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


#: Above this many runs :func:`_gather` copies with one array gather instead of a slice per run.
_SLICED_RUNS = 2000


def _gather(blobs: Sequence[bytes], begins: np.ndarray, sizes: np.ndarray) -> bytes:
    """The byte ranges ``[begin, begin + size)`` of the concatenation of ``blobs``, one after another.

    Ranges that follow one another in the source are copied as one run, so a rebuild that keeps
    most parts in place copies a few long runs: one slice each; many runs (e.g. every field vector
    spliced around a renumbered term) are copied by one gather of the bytes' positions, which are
    made with one cumulative sum (no Python step per run)."""
    keep = np.flatnonzero(sizes > 0)
    if not len(keep):
        return b""
    begins, ends = begins[keep], begins[keep] + sizes[keep]
    cut = np.flatnonzero(begins[1:] != ends[:-1]) + 1  # a new run where a range does not continue the last
    first, last = np.r_[0, cut], np.r_[cut, len(begins)] - 1
    run_begin, run_end = begins[first], ends[last]
    if len(run_begin) <= _SLICED_RUNS:
        whole = memoryview(b"".join(blobs))
        return b"".join([whole[a:b] for a, b in zip(run_begin.tolist(), run_end.tolist())])
    source = np.frombuffer(b"".join(blobs), np.uint8)
    kind = np.int32 if len(source) < 2 ** 31 else np.int64
    run_size = run_end - run_begin
    # Byte positions: +1 within a run, a jump from one run's last byte to the next one's first.
    step = np.ones(int(run_size.sum()), kind)
    step[0] = run_begin[0]
    step[np.cumsum(run_size[:-1])] = run_begin[1:] - run_end[:-1] + 1
    return source[np.cumsum(step, dtype=kind)].tobytes()


def _edited_terms(prep: Prepared, fields: int) -> np.ndarray | None:
    """Per term (bool): whether its postings may differ from the state's: held, in some field, by a
    paper edited since the state either before or after the edit but not both (a term an edited paper
    holds in a field before and after the edit keeps the same (field, paper) pairs, so the same part);
    None when the state's postings cannot be reused (no packed pieces, or papers added, removed or moved)."""
    old, n = prep.old, len(prep.source)
    n_old = len(old.digests)
    in_place = prep.source == np.arange(n)
    if old.packed is None or n != n_old or not np.all(in_place | (prep.source >= n_old)):
        return None
    n_terms = max(len(prep.terms), 1)
    # The edited papers' (row, term) pairs now (rows: paper * fields + field, at the same positions) ...
    now = ~in_place[prep.row // fields]
    after = prep.row[now] * n_terms + prep.term[now]
    # ... and before the edit (a term gone from the vocabulary is held by no paper: nothing to pack).
    rows = (np.flatnonzero(~in_place)[:, None] * fields + np.arange(fields)).reshape(-1)
    sizes = old.starts[rows + 1] - old.starts[rows]
    known = prep.old_term >= 0
    final_of_old = np.full(len(old.vocab), -1, np.int64)
    final_of_old[prep.old_term[known]] = np.flatnonzero(known)
    before_term = final_of_old[old.term[ranges(old.starts[rows], sizes)]]
    kept = before_term >= 0
    before = np.repeat(rows, sizes)[kept] * n_terms + before_term[kept]
    # Within a row every term is held once: a pair found once is in one of the two sides only.
    pairs, count = np.unique(np.concatenate([after, before]), return_counts=True)
    touched = np.zeros(len(prep.terms), bool)
    touched[pairs[count == 1] % n_terms] = True
    return touched if not np.any(~touched & ~known) else None  # (a term new to the state is always an edited one's)


def _postings(prep: Prepared, fields: int) -> tuple[bytes, np.ndarray]:
    """``(postings, sizes per term)`` of ``prep``: only the edited terms' parts (:func:`_edited_terms`)
    packed, the others copied from the state, when it allows; else every term's part packed."""
    n = max(len(prep.source), 1)
    touched = _edited_terms(prep, fields)
    if touched is None:
        term, row = prep.term, prep.row
    else:
        pick = np.flatnonzero(touched[prep.term]) if touched.any() else np.zeros(0, np.int64)
        term, row = prep.term[pick], prep.row[pick]
    doc, field = row // fields, row % fields
    order = np.argsort((term * fields + field) * n + doc, kind="stable")  # by term, field, paper
    text, sizes = posting_parts(term[order], field[order], doc[order], len(prep.terms))
    if touched is None:
        return text.encode("ascii"), sizes
    old = prep.old.packed
    kept = prep.old_term.clip(0)
    begins = np.where(touched, len(old.postings) + _starts(sizes)[:-1], _starts(old.posting_sizes)[kept])
    sizes = np.where(touched, sizes, old.posting_sizes[kept])
    return _gather([old.postings, text.encode("ascii")], begins, sizes), sizes


def _widths(values: np.ndarray) -> np.ndarray:
    """The characters each of ``values`` (non-negative int64) takes in :func:`transport.pack_numbers`'s text:
    one final digit and a continuation digit per power of ``CONT`` its quotient by ``FINAL`` reaches."""
    quotient = values // FINAL
    width = np.ones(len(values), dtype=np.int64)
    top, limit = (int(quotient.max()) if len(values) else 0), 1
    while limit <= top:
        width += quotient >= limit
        limit *= CONT
    return width


def _gap_values(term: np.ndarray, head: np.ndarray) -> np.ndarray:
    """The numbers the ``vectors`` text holds for the term numbers ``term`` (int64, by row then ascending
    term): the term number where ``head`` (bool) marks the first entry of a row, else the gap from the
    entry before minus one."""
    gap = term.copy()
    if len(term):
        gap[1:] -= term[:-1] + 1
        gap[head] = term[head]
    return gap


class _Splices(NamedTuple):
    """The changed entries of kept rows, written anew in place of their old text (:func:`_splices`), in
    entry order: per entry its ``row`` (int64), where its old gap and score stand in the state's text
    (``at``) and their width there (``old_width``), the width of the new ones (``new_width``); ``text``:
    the new gaps and scores packed, entry after entry."""

    row: np.ndarray
    at: np.ndarray
    old_width: np.ndarray
    new_width: np.ndarray
    text: str


def _vectors(prep: Prepared, score: np.ndarray, fields: int) -> tuple[bytes, np.ndarray]:
    """``(vectors, sizes per row)`` of ``prep`` with the entries' scores ``score``. A row (field vector)
    of a paper the state holds has the entries of its row in the state, in the same order (the same
    terms, whose numbers keep their order): it is copied from the state, with each entry whose term
    gap or score differs from the state's written anew in place of the old one (the row's text is its
    entries' term gap then score, each packed alone); a new paper's rows are packed. Term numbers
    moved by a term added or dropped change only the gaps that span it (and a row's first number).
    Without the state's packed pieces every row is packed."""
    old, n_rows = prep.old, len(prep.starts) - 1
    packed = old.packed
    if packed is None or not len(old.digests) or not len(old.term):
        text, sizes = vector_parts(prep.term, prep.row, score, n_rows)
        return text.encode("ascii"), sizes
    kept = prep.old_entry >= 0  # the entries of rows the state holds (a new paper's entries are -1)
    changed = _changed_entries(prep, score, kept)
    fresh = np.repeat(prep.source >= len(old.digests), fields)  # rows of papers the state lacks: packed whole
    pick = np.flatnonzero(~kept)
    text, fresh_sizes = vector_parts(prep.term[pick], prep.row[pick], score[pick], n_rows)
    old_row = (prep.source[:, None] * fields + np.arange(fields)).reshape(-1).clip(max=len(packed.vector_sizes) - 1)
    old_begin = _starts(packed.vector_sizes)[old_row]  # per row: its part in the state's text
    old_size = packed.vector_sizes[old_row]
    splices = _splices(prep, score, changed, old_begin)
    # Whole rows come from the state's text (kept) or the fresh rows' text (new papers).
    whole_begin = np.where(fresh, len(packed.vectors) + _starts(fresh_sizes)[:-1], old_begin)
    whole_size = np.where(fresh, fresh_sizes, old_size)
    begins, sizes = _pieces(splices, whole_begin, whole_size, old_begin, old_size, len(packed.vectors) + len(text))
    row_sizes = whole_size + np.bincount(
        splices.row, weights=splices.new_width - splices.old_width, minlength=n_rows).astype(np.int64)
    return _gather([packed.vectors, text.encode("ascii"), splices.text.encode("ascii")], begins, sizes), row_sizes


def _changed_entries(prep: Prepared, score: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The entries (int64, ascending) of rows the state holds (``kept``, per entry) whose score (``score``)
    or term gap differs from the state's."""
    old = prep.old
    differs = old.packed.scores[prep.old_entry] != score  # (-1 reads the last score: a new paper's, masked below)
    if not np.array_equal(prep.old_term, np.arange(len(old.vocab))):
        differs |= _gaps_moved(prep)
    differs &= kept
    return np.flatnonzero(differs)


def _gaps_moved(prep: Prepared) -> np.ndarray:
    """Per entry (bool): whether its term gap (or a row's first term number) changed because term numbers
    moved: its term number moved otherwise than the entry's before it (for a row's first entry: at all)."""
    starts = prep.starts
    heads = starts[:-1][starts[1:] > starts[:-1]]  # the first entry of each row that has entries
    moved = (np.arange(len(prep.terms)) - prep.old_term)[prep.term]
    gap_moved = np.empty(len(moved), bool)
    np.not_equal(moved[1:], moved[:-1], out=gap_moved[1:])
    gap_moved[heads] = moved[heads] != 0
    return gap_moved


def _splices(prep: Prepared, score: np.ndarray, changed: np.ndarray, old_begin: np.ndarray) -> _Splices:
    """The :class:`_Splices` of the ``changed`` entries (ascending), the rows' parts in the state's text
    starting at ``old_begin`` (per row). An entry's old gap and score stand at its row's start for a row's
    first entry, else after the old numbers of the entries before it in the row."""
    old, starts, old_entry = prep.old, prep.starts, prep.old_entry
    row = prep.row[changed]
    head = changed == starts[row]
    before = changed - 1
    before[head] = changed[head]
    old_term = old.term[old_entry[changed]].astype(np.int64)
    old_gap = np.where(head, old_term, old_term - old.term[old_entry[before]] - 1)
    old_score = old.packed.scores[old_entry[changed]].astype(np.int64)
    old_width = _widths(old_gap) + _widths(old_score)
    at = old_begin[row]
    inner = np.flatnonzero(~head)
    if len(inner):
        at[inner] += _offsets_in_rows(prep, changed[inner], row[inner])
    term = prep.term[changed]
    values = np.empty(2 * len(changed), np.int64)
    values[0::2] = np.where(head, term, term - prep.term[before] - 1)
    values[1::2] = score[changed]
    new_width = _widths(values)
    return _Splices(row, at, old_width, new_width[0::2] + new_width[1::2], pack_numbers(values))


def _offsets_in_rows(prep: Prepared, entries_at: np.ndarray, rows_of: np.ndarray) -> np.ndarray:
    """Per entry of ``entries_at`` (ascending, none a row's first; their rows ``rows_of``), where its old
    numbers start within its row's part of the state's text: the widths of the old gaps and scores of
    the entries before it in the row, summed (for every entry of those rows at once, by one cumulative sum)."""
    old, starts, old_entry = prep.old, prep.starts, prep.old_entry
    rows = np.unique(rows_of)
    sizes = starts[rows + 1] - starts[rows]
    entries = ranges(starts[rows], sizes)  # every entry of those rows, ascending
    first = np.zeros(len(entries), bool)
    first[_starts(sizes)[:-1]] = True
    term_then = old.term[old_entry[entries]].astype(np.int64)
    width = _widths(_gap_values(term_then, first)) + _widths(old.packed.scores[old_entry[entries]].astype(np.int64))
    end = np.cumsum(width)
    offset = end - width - (end - width)[np.flatnonzero(first)][np.cumsum(first) - 1]
    return offset[np.searchsorted(entries, entries_at)]


def _pieces(splices: _Splices, whole_begin: np.ndarray, whole_size: np.ndarray, old_begin: np.ndarray,
            old_size: np.ndarray, new_at: int) -> tuple[np.ndarray, np.ndarray]:
    """``(begins, sizes)`` of the byte ranges of the sources :func:`_vectors` gathers, in output order (row,
    then place in the row): a row without splices whole (``whole_begin``, ``whole_size``); a spliced row's
    old text (``old_begin``, ``old_size`` per row) up to each changed entry, the entry anew (the splices'
    text at ``new_at``), and after the last one the rest of the row."""
    n_rows = len(whole_size)
    row, at, old_width, new_width = splices.row, splices.at, splices.old_width, splices.new_width
    splice = np.zeros(n_rows, bool)
    splice[row] = True
    same_row = np.r_[False, row[1:] == row[:-1]] if len(row) else np.zeros(0, bool)
    last = np.r_[~same_row[1:], True] if len(row) else np.zeros(0, bool)
    rank = np.arange(len(row)) - np.maximum.accumulate(np.where(same_row, 0, np.arange(len(row))))
    previous_end = np.zeros(len(row), np.int64)
    previous_end[1:] = (at + old_width)[:-1]
    from_ = np.where(same_row, previous_end, old_begin[row])
    whole = np.flatnonzero(~splice)
    piece_row = np.concatenate([whole, row, row, row[last]])
    piece_place = np.concatenate([np.zeros(len(whole), np.int64), 2 * rank, 2 * rank + 1,
                                  np.full(int(last.sum()), 2 * n_rows + 2 * len(row), np.int64)])
    begins = np.concatenate([whole_begin[whole], from_, new_at + _starts(new_width)[:-1], (at + old_width)[last]])
    sizes = np.concatenate([whole_size[whole], at - from_, new_width, (old_begin + old_size)[row[last]] - (at + old_width)[last]])
    order = np.lexsort((piece_place, piece_row))
    return begins[order], sizes[order]


def _records(prep: Prepared, papers: Sequence[Paper], record) -> tuple[bytes, np.ndarray]:
    """``(record lines, bytes per paper)``: each paper's :func:`transport.record_line` of ``record(paper)``
    and ``\\n``, kept from the state for the papers it has."""
    old = prep.old
    n_old = len(old.digests)
    reuse = old.packed is not None
    fresh = [i for i, s in enumerate(prep.source.tolist()) if not reuse or s >= n_old]
    lines = [(record_line(record(papers[i])) + "\\n").encode("utf-8") for i in fresh]
    new_sizes = np.fromiter(map(len, lines), np.int64, len(lines))
    if not reuse:
        return b"".join(lines), new_sizes
    old_at = _starts(old.packed.record_sizes)
    source = prep.source.clip(max=n_old - 1) if n_old else np.zeros(len(prep.source), np.int64)
    begins = old_at[:-1][source] if n_old else np.zeros(len(source), np.int64)
    sizes = old.packed.record_sizes[source] if n_old else np.zeros(len(source), np.int64)
    begins[fresh] = len(old.packed.records) + _starts(new_sizes)[:-1]
    sizes[fresh] = new_sizes
    return _gather([old.packed.records, b"".join(lines)], begins, sizes), sizes


def stateful_script(papers: Sequence[Paper], refs: Sequence[str], record, store: Store | None,
                    models: Sequence[bytes] | None = None) -> str:
    """The text of ``search-index.js`` over ``papers``: :func:`stateful_parts` joined."""
    return b"".join(stateful_parts(papers, refs, record, store, models)).decode("utf-8")


def stateful_parts(papers: Sequence[Paper], refs: Sequence[str], record, store: Store | None,
                   models: Sequence[bytes] | None = None) -> list[bytes]:
    """The UTF-8 bytes of ``search-index.js`` over ``papers`` in parts, to be written one after another
    (:func:`transport.script_bytes`; refs ``refs``; fields :data:`search.FIELDS`; ``record(paper)``: the
    result record of a paper, a function of what :func:`state.paper_digest` covers): joined, they
    are ``transport.index_script(search_tables(...))``. Reuses and then keeps the state in ``store``
    (:func:`state.load_state`, :func:`state.save_state`; None: none; see the module doc). ``models``: the
    papers' model digests, or None (see :func:`state.prepare`).

    Raises ValueError on a ref not made of ``[0-9a-z]``. Never raises because of the kept state (its
    problems, a corrupt file or one that cannot be written, are the store's warnings).
    """
    check_refs(refs)
    fields = FIELDS
    prep = prepare(papers, store, models)
    n, n_fields = len(papers), len(fields)
    totals = [int(x) for x in prep.lengths.sum(axis=0)] if n else [0] * n_fields
    flat_lengths = prep.lengths.reshape(-1)
    score = bm25_scores(fields, n, prep.df, totals, prep.term, prep.row % n_fields, flat_lengths[prep.row], prep.tf)
    vectors, vector_sizes = _vectors(prep, score, n_fields)
    postings, posting_sizes = _postings(prep, n_fields)
    records, record_sizes = _records(prep, papers, record)
    old = prep.old
    if old.packed is not None and len(prep.terms) == len(old.vocab) and np.all(prep.old_term == np.arange(len(old.vocab))):
        front, suffixes = old.packed.front, old.packed.suffixes
    else:
        front, suffixes = front_code(prep.terms)
    if store is not None and (prep.save_needed or old.packed is None):
        save_state(store, prep.state(PackedParts(postings, posting_sizes, records, record_sizes, front, suffixes,
                                                vectors, vector_sizes, score.astype(np.int32))))
    records = records[:-2]
    # The packed numbers are ASCII and the records UTF-8, as the text of each was (checked, not copied).
    if not (postings.isascii() and vectors.isascii()):
        raise ValueError("packed postings or vectors are not ASCII")
    if not records.isascii():
        records.decode("utf-8")
    return script_bytes([name for name, _ in fields], refs, front, suffixes, postings, pack_numbers(posting_sizes),
                        vectors, pack_numbers(vector_sizes), records)
