"""The search index's tokenized papers and packed pieces kept from one build to the next, so a
rebuild tokenizes and packs only what changed.

Tokenizing every paper's title, authors, track and abstract
(:func:`search.document_terms`) is most of the search index's cost; it is a
pure function of the texts :func:`search.search_texts` returns. The state file
(``<cache folder>/search-terms.npz``, :data:`STATE_NAME`) keeps, for the
papers of the previous build, each one's tokenized fields in compact numpy
form, keyed by a digest of those texts and of what its result record shows
(:func:`paper_digest`). :func:`prepare` reuses the rows of papers whose digest
is known, tokenizes only the others, and lays out this build's entries with
vectorised numpy (vocabulary merge, ``df`` by ``bincount``, unused terms
dropped, term numbers remapped to JavaScript string order). From that,
:func:`stateful_tables` scores the index with :func:`indexer.scored_tables`
(exactly ``index_tables`` over all papers), and :mod:`site_builder.search.pack`
writes ``search-index.js`` reusing the packed pieces the file also keeps
(postings per term, result record per paper, the front-coded term list).

File format (numpy ``.npz``, uncompressed, no pickled objects), arrays:

- ``format`` (int64 scalar, :data:`FORMAT`), ``code`` (uint8: ASCII of
  :func:`cache.code_version`): a file with another value of either is ignored;
- ``digests`` (uint8, ``(P, 16)``): per paper, :func:`paper_digest`;
- optionally ``models`` (uint8, ``(P, 32)``): per paper, its :class:`cache.Fingerprinter` digest (of every
  field of the paper, a superset of what :func:`paper_digest` reads), when the build had them: a paper of
  this build with the same model digest has the same :func:`paper_digest`, which is then taken from
  the file instead of hashing the paper's texts again (:func:`text_digests`);
- ``vocab`` (uint8): UTF-8 of the terms joined by NUL, in JavaScript string
  order (every term is held by some paper of the file); ``vocab_size`` (int64 scalar);
- ``lengths`` (int64, ``(P, F)``): token count of each (paper, field), fields in :data:`search.FIELDS` order;
- ``starts`` (int64, ``P * F + 1``): entries of row ``p * F + f`` are ``starts[r]:starts[r + 1]``;
- ``term`` (int32) and ``tf`` (int32): per entry, a term number into ``vocab`` and its frequency;
  within a row, entries are by ascending term number;
- optionally (all or none; :class:`PackedParts`, written by :mod:`site_builder.search.pack`, for
  papers at the positions of this file): ``postings`` (uint8, ASCII) and ``posting_sizes``
  (int64, one per vocab term): the term's part of ``search-index.js``'s ``postings``;
  ``records`` (uint8, UTF-8) and ``record_sizes`` (int64, per paper): each paper's result record
  line, escaped as inside the script's string, followed by the escaped line break ``\\n``;
  ``front`` (uint8, ASCII) and ``suffixes`` (uint8, UTF-8): the script's ``terms`` and
  ``suffixes`` of ``vocab``; ``vectors`` (uint8, ASCII) and ``vector_sizes`` (int64, per row):
  each row's field vector part of the script's ``vectors``; ``scores`` (int32, per entry): the
  scores it holds (lunr's score times 1000).

A missing, unreadable, corrupt (the zip CRC is checked on reading) or
inconsistent file, or one of another format or code version, is ignored and
rewritten: the state only ever saves time, never changes the output. It is
saved atomically (a temporary file in the same folder, then renamed); a
folder that cannot be written is silently skipped.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from .indexer import IndexTables, js_sort_key, scored_tables
from ..model.site import Paper
from .documents import FIELDS, document_terms, search_texts

#: Version of the state file layout; bump it on any change of the layout or of what a row means.
FORMAT = 3
#: The state file's name inside the build cache folder.
STATE_NAME = "search-terms.npz"
DIGEST_SIZE = 16
#: Bytes of a model digest (:meth:`cache.Fingerprinter.digests`, SHA-256).
MODEL_DIGEST_SIZE = 32
_NAMES = tuple(name for name, _ in FIELDS)
_F = len(_NAMES)


def state_path(cache_folder: Path | None) -> Path | None:
    """The state file inside ``cache_folder`` (a :class:`cache.BuildCache`'s ``folder``), None without one."""
    return None if cache_folder is None else Path(cache_folder) / STATE_NAME


def paper_digest(paper: Paper) -> bytes:
    """The key of ``paper`` in the state: the first :data:`DIGEST_SIZE` bytes of the SHA-256 of every text the
    index reads of it (:func:`search.search_texts`: title source and plain text, authors, track label,
    abstract source and plain text) and of what else its result record (:func:`search.result_record`)
    shows: id, slug (its URL), venue label, ``et al.``.

    The texts' lengths (in code points) and counts come first, so no two different papers share a form.
    """
    track = paper.track.label if paper.track else None
    texts = (paper.id, paper.slug, paper.venue.label, paper.title, paper.title_text, paper.abstract,
             paper.rendered.text, track or "", *paper.authors)
    head = f"{int(paper.et_al)} {int(track is None)} {len(paper.authors)} {' '.join(map(str, map(len, texts)))}\n"
    return hashlib.sha256((head + "".join(texts)).encode("utf-8", "surrogatepass")).digest()[:DIGEST_SIZE]


@dataclass
class PackedParts:
    """Pieces of the previous ``search-index.js`` (see the module doc): ``postings`` (ASCII bytes)
    with ``posting_sizes`` (int64, one per vocab term), ``records`` (UTF-8 bytes) with
    ``record_sizes`` (int64, one per paper), ``front`` and ``suffixes`` (the script's strings),
    ``vectors`` (ASCII bytes) with ``vector_sizes`` (int64, one per row) and ``scores`` (int32, per entry)."""

    postings: bytes
    posting_sizes: np.ndarray
    records: bytes
    record_sizes: np.ndarray
    front: str
    suffixes: str
    vectors: bytes
    vector_sizes: np.ndarray
    scores: np.ndarray


@dataclass
class TermState:
    """Tokenized papers (see the module doc for the meaning of each array).

    ``vocab``: terms in JavaScript string order; ``digests``: one
    :data:`DIGEST_SIZE`-byte digest per paper; ``lengths`` int64 ``(P, F)``;
    ``starts`` int64 ``P * F + 1``; ``term``, ``tf`` int32 per entry, by
    ascending term within a row; ``packed``: the packed pieces, or None.
    """

    vocab: list[str]
    digests: list[bytes]
    lengths: np.ndarray
    starts: np.ndarray
    term: np.ndarray
    tf: np.ndarray
    packed: PackedParts | None = None
    models: list[bytes] | None = None


def _code() -> str:
    from ..incremental.digest import code_version
    return code_version()


def _empty() -> TermState:
    return TermState([], [], np.zeros((0, _F), np.int64), np.zeros(1, np.int64),
                     np.zeros(0, np.int32), np.zeros(0, np.int32))


_PACKED = ("postings", "posting_sizes", "records", "record_sizes", "front", "suffixes", "vectors", "vector_sizes",
           "scores")


def load_state(path: Path) -> TermState | None:
    """The state saved at ``path``, or None when it is missing, unreadable, corrupt,
    inconsistent, or of another :data:`FORMAT` or code version. Never raises."""
    try:
        with open(path, "rb") as file, np.load(file, allow_pickle=False) as data:
            if int(data["format"]) != FORMAT or bytes(data["code"]).decode("ascii") != _code():
                return None
            digests = data["digests"]
            vocab_size = int(data["vocab_size"])
            blob = bytes(data["vocab"]).decode("utf-8")
            lengths, starts = data["lengths"].astype(np.int64, copy=False), data["starts"].astype(np.int64, copy=False)
            term, tf = data["term"].astype(np.int32, copy=False), data["tf"].astype(np.int32, copy=False)
            models = data["models"] if "models" in data.files else None
            packed = None
            if all(name in data.files for name in _PACKED):
                packed = PackedParts(data["postings"].tobytes(), data["posting_sizes"].astype(np.int64, copy=False),
                                     data["records"].tobytes(), data["record_sizes"].astype(np.int64, copy=False),
                                     data["front"].tobytes().decode("ascii"), data["suffixes"].tobytes().decode("utf-8"),
                                     data["vectors"].tobytes(), data["vector_sizes"].astype(np.int64, copy=False),
                                     data["scores"].astype(np.int32, copy=False))
    except Exception:  # unreadable, not an npz of ours, CRC mismatch (zipfile.BadZipFile), missing arrays: rebuilt
        return None
    vocab = blob.split("\0") if vocab_size else []
    n = len(digests)
    if (len(vocab) != vocab_size or digests.ndim != 2 or digests.shape[1] != DIGEST_SIZE
            or lengths.shape != (n, _F) or starts.shape != (n * _F + 1,) or starts[0] != 0
            or term.shape != tf.shape or starts[-1] != len(term) or np.any(np.diff(starts) < 0)
            or (len(term) and (term.min() < 0 or term.max() >= vocab_size or tf.min() < 1))
            or np.any(lengths < 0)):
        return None
    if packed is not None and (
            packed.posting_sizes.shape != (vocab_size,) or packed.record_sizes.shape != (n,)
            or int(packed.posting_sizes.sum()) != len(packed.postings) or np.any(packed.posting_sizes < 0)
            or int(packed.record_sizes.sum()) != len(packed.records) or np.any(packed.record_sizes < 2)
            or packed.vector_sizes.shape != (n * _F,) or packed.scores.shape != term.shape
            or int(packed.vector_sizes.sum()) != len(packed.vectors) or np.any(packed.vector_sizes < 0)):
        packed = None  # the tokens stay usable
    if models is not None and models.shape != (n, MODEL_DIGEST_SIZE):
        models = None
    return TermState(vocab, [bytes(d) for d in digests], lengths, starts, term, tf, packed,
                     None if models is None else _rows(models))


def _rows(table: np.ndarray) -> list[bytes]:
    """The rows of a 2-D uint8 array as ``bytes``, one per row."""
    data, size = table.tobytes(), table.shape[1]
    return [data[i:i + size] for i in range(0, len(data), size)]


def save_state(path: Path, state: TermState) -> bool:
    """Write ``state`` to ``path`` atomically (temporary file, then rename). Returns whether it was written;
    a folder that cannot be written, or a term holding a NUL (never made by the tokenizer), is skipped."""
    blob = "\0".join(state.vocab)
    if blob.count("\0") != max(len(state.vocab) - 1, 0) or (len(state.vocab) == 1 and not blob):
        return False
    arrays = {
        "format": np.array(FORMAT, np.int64),
        "code": np.frombuffer(_code().encode("ascii"), np.uint8),
        "digests": np.frombuffer(b"".join(state.digests), np.uint8).reshape(len(state.digests), DIGEST_SIZE),
        "vocab": np.frombuffer(blob.encode("utf-8"), np.uint8),
        "vocab_size": np.array(len(state.vocab), np.int64),
        "lengths": np.asarray(state.lengths, np.int64),
        "starts": np.asarray(state.starts, np.int64),
        "term": np.asarray(state.term, np.int32),
        "tf": np.asarray(state.tf, np.int32),
    }
    if state.models is not None and len(state.models) == len(state.digests):
        arrays["models"] = np.frombuffer(b"".join(state.models), np.uint8).reshape(len(state.models), MODEL_DIGEST_SIZE)
    if state.packed is not None:
        p = state.packed
        arrays.update(postings=np.frombuffer(p.postings, np.uint8), posting_sizes=np.asarray(p.posting_sizes, np.int64),
                      records=np.frombuffer(p.records, np.uint8), record_sizes=np.asarray(p.record_sizes, np.int64),
                      front=np.frombuffer(p.front.encode("ascii"), np.uint8),
                      suffixes=np.frombuffer(p.suffixes.encode("utf-8"), np.uint8),
                      vectors=np.frombuffer(p.vectors, np.uint8), vector_sizes=np.asarray(p.vector_sizes, np.int64),
                      scores=np.asarray(p.scores, np.int32))
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".search-terms-", suffix=".npz", dir=path.parent)
        with os.fdopen(fd, "wb") as out:
            np.savez(out, **arrays)
        os.replace(tmp, path)
        return True
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False


def ranges(begins: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(b, b + s)`` for each begin ``b`` and size ``s`` (int64 arrays of the
    same length, sizes non-negative), as one int64 array of ``sizes.sum()`` positions, made with one
    ``repeat`` and one ``arange`` (no Python step per range). E.g. the entries of some CSR rows:
    ``ranges(starts[rows], starts[rows + 1] - starts[rows])``."""
    total = int(sizes.sum())
    if not total:
        return np.zeros(0, np.int64)
    offsets = np.cumsum(sizes) - sizes
    return np.repeat(begins - offsets, sizes) + np.arange(total, dtype=np.int64)


def _merge_order(old: list[str], new: list[str]) -> tuple[list[str], np.ndarray]:
    """``(merged, position)``: ``old`` (sorted by :func:`js_sort_key`) and ``new`` (terms not in
    ``old``) merged in that order, and the merged position of every term of ``old + new``."""
    if not new:
        return old, np.arange(len(old), dtype=np.int64)
    keys = list(map(js_sort_key, new))
    order = sorted(range(len(new)), key=keys.__getitem__)
    at = np.array([bisect.bisect_left(old, keys[k], key=js_sort_key) for k in order] if old else [0] * len(new),
                  np.int64)
    position = np.empty(len(old) + len(new), np.int64)
    position[:len(old)] = np.arange(len(old)) + np.searchsorted(at, np.arange(len(old)), side="right")
    position[len(old) + np.array(order, np.int64)] = at + np.arange(len(new))
    merged = np.empty(len(old) + len(new), object)
    merged[position] = old + new
    return merged.tolist(), position


@dataclass
class Prepared:
    """One build's index entries laid out from the state (:func:`prepare`).

    ``terms``: every term, JavaScript string order; ``df`` (int64, per term):
    (field, paper) pairs holding it. Entries (int64 arrays), by paper, field,
    then ascending term: ``term`` (number into ``terms``), ``tf``, ``row``
    (``paper * F + field``). ``lengths`` (int64 ``(P, F)``): token counts;
    ``starts`` (int64, ``P * F + 1``): entries of each row. ``digests``: per
    paper, :func:`paper_digest`; ``source`` (int64, per paper): its index in
    ``old`` (< ``len(old.digests)``) or not (a paper tokenized in this call);
    ``models``: per paper, its model digest, or None (see :func:`text_digests`);
    ``old``: the state read (empty when none); ``old_term`` (int64, per term):
    its number in ``old.vocab``, -1 for a term ``old`` lacks; ``old_entry``
    (int64, per entry): the same entry's position in ``old``, -1 for a paper tokenized in this call.
    """

    terms: tuple[str, ...]
    df: np.ndarray
    term: np.ndarray
    tf: np.ndarray
    row: np.ndarray
    lengths: np.ndarray
    starts: np.ndarray
    digests: list[bytes]
    models: list[bytes] | None
    source: np.ndarray
    old: TermState
    old_term: np.ndarray
    old_entry: np.ndarray

    @property
    def unchanged(self) -> bool:
        """Whether the papers are exactly those of ``old``, in the same order."""
        n_old = len(self.old.digests)
        return len(self.source) == n_old and np.array_equal(self.source, np.arange(n_old))

    def state(self, packed: PackedParts | None = None) -> TermState:
        """The state to save for the next build (with the packed pieces ``packed``)."""
        return TermState(list(self.terms), self.digests, self.lengths, self.starts,
                         self.term.astype(np.int32), self.tf.astype(np.int32), packed, self.models)

    @property
    def save_needed(self) -> bool:
        """Whether the state file is to be written again: the papers, or their model digests, are not
        exactly those of ``old``."""
        return not self.unchanged or (self.models is not None and self.models != self.old.models)


def text_digests(papers: Sequence[Paper], old: TermState, models: Sequence[bytes] | None) -> list[bytes]:
    """:func:`paper_digest` of each of ``papers``; for a paper whose model digest (``models``, one per paper:
    :meth:`cache.Fingerprinter.digests`, or None) the state ``old`` holds, the digest ``old`` keeps with it.

    Sound because the model digest covers every field of the paper (a decodable form of all of them,
    hashed with SHA-256): equal model digests mean equal papers, so equal :func:`paper_digest` (a function
    of the paper's fields and of the code, whose version the state file records). It saves hashing
    every paper's texts again (~0.09 s at 10,000 papers) on a rebuild.
    """
    if models is None or old.models is None or len(models) != len(papers):
        return [paper_digest(p) for p in papers]
    known = dict(zip(old.models, old.digests))
    return [known.get(m) or paper_digest(p) for p, m in zip(papers, models)]


@dataclass
class _Fresh:
    """The papers of a build the state lacks, tokenized (:func:`_tokenize_fresh`). ``source`` (int64, per
    paper of the build): its index in the state, or ``len(old.digests)`` plus its number among the fresh
    papers; ``count``: the fresh papers; per (fresh paper, field) row, its token count (``lengths``) and
    distinct terms (``sizes``); per entry of those rows, by row, its term (``terms``) and frequency (``tf``)."""

    source: np.ndarray
    count: int
    lengths: list[int]
    sizes: list[int]
    terms: list[str]
    tf: list[int]


def prepare(papers: Sequence[Paper], path: Path | None, models: Sequence[bytes] | None = None) -> Prepared:
    """The index entries of ``papers`` (:class:`Prepared`), reusing the tokenized papers of the state
    saved at ``path`` (None: no state) and tokenizing (:func:`search.document_terms`) the others.
    ``models``: each paper's model digest (:meth:`cache.Fingerprinter.digests`, 32 bytes), or None: used to
    find papers the state holds without hashing their texts (:func:`text_digests`), and kept in the
    state. Saves nothing. Never raises because of the state file (raises ValueError when ``models`` is
    not one 32-byte digest per paper)."""
    models = _checked_models(papers, models)
    old = (load_state(path) if path is not None else None) or _empty()
    digests = text_digests(papers, old, models)
    fresh = _tokenize_fresh(papers, digests, old)
    new_terms, new_term = _number_new_terms(old.vocab, fresh)
    merged, position = _merge_order(old.vocab, new_terms)
    pool = _pool(old, fresh, position, new_term, len(merged))
    return _laid_out(old, fresh.source, merged, position, pool, digests, models)


def _checked_models(papers: Sequence[Paper], models: Sequence[bytes] | None) -> list[bytes] | None:
    """``models`` as a list (None stays None); raises ValueError unless it is one
    :data:`MODEL_DIGEST_SIZE`-byte digest per paper."""
    if models is None:
        return None
    models = list(models)
    if len(models) != len(papers) or any(len(m) != MODEL_DIGEST_SIZE for m in models):
        raise ValueError(f"{len(papers)} papers need as many {MODEL_DIGEST_SIZE}-byte model digests")
    return models


def _tokenize_fresh(papers: Sequence[Paper], digests: list[bytes], old: TermState) -> _Fresh:
    """Where each paper's rows are (in ``old``, by its digest of ``digests``, or fresh) and the fresh
    papers tokenized (:func:`search.document_terms`), in order (:class:`_Fresh`)."""
    known = {d: i for i, d in enumerate(old.digests)}
    n_old = len(old.digests)
    source = np.empty(len(papers), np.int64)
    fresh = 0
    new_lengths: list[int] = []
    new_sizes: list[int] = []
    fresh_terms: list[str] = []  # every (row, term) entry of the fresh papers: its term and frequency
    fresh_tf: list[int] = []
    for i, d in enumerate(digests):
        j = known.get(d)
        if j is not None:
            source[i] = j
            continue
        source[i] = n_old + fresh
        fresh += 1
        doc = document_terms(search_texts(papers[i]))
        for name in _NAMES:
            counts, length = doc[name]
            new_lengths.append(length)
            new_sizes.append(len(counts))
            fresh_terms.extend(counts)
            fresh_tf.extend(counts.values())
    return _Fresh(source, fresh, new_lengths, new_sizes, fresh_terms, fresh_tf)


def _number_new_terms(old_vocab: list[str], fresh: _Fresh) -> tuple[list[str], np.ndarray]:
    """``(new terms, term numbers)``: the fresh papers' terms ``old_vocab`` lacks, in order of first use,
    and per fresh entry its term's number (int64): its place in ``old_vocab``, or after it among the new terms."""
    if not fresh.count:
        return [], np.zeros(0, np.int64)
    v_old = len(old_vocab)
    lookup = dict(zip(old_vocab, range(v_old)))
    new_terms = [t for t in dict.fromkeys(fresh.terms) if t not in lookup]
    lookup.update(zip(new_terms, range(v_old, v_old + len(new_terms))))
    return new_terms, np.fromiter(map(lookup.__getitem__, fresh.terms), np.int64, len(fresh.terms))


class _Pool(NamedTuple):
    """The rows of the state's papers, then the fresh ones' (rows of F fields each): ``lengths`` (int64,
    ``(P, F)``), ``starts`` (int64, ``P * F + 1``) and per entry ``term`` (int64, numbered in the merged
    vocabulary) and ``tf`` (int64); within a row, entries by ascending term."""

    lengths: np.ndarray
    starts: np.ndarray
    term: np.ndarray
    tf: np.ndarray


def _pool(old: TermState, fresh: _Fresh, position: np.ndarray, new_term: np.ndarray, n_terms: int) -> _Pool:
    """The :class:`_Pool` of ``old``'s papers and the ``fresh`` ones, term numbers merged: ``position``
    (int64) maps the old terms' and then the new terms' numbers to the merged vocabulary of ``n_terms``
    terms, ``new_term`` (int64) is the fresh entries' numbers before merging (:func:`_number_new_terms`)."""
    pool_term = position[old.term]
    if not fresh.count:
        return _Pool(old.lengths, old.starts, pool_term, old.tf.astype(np.int64))
    sizes = np.array(fresh.sizes, np.int64)
    fresh_term = position[new_term]
    fresh_tf = np.fromiter(fresh.tf, np.int64, len(fresh.tf))
    order = np.argsort(np.repeat(np.arange(len(sizes), dtype=np.int64), sizes) * max(n_terms, 1) + fresh_term)
    lengths = np.concatenate([old.lengths, np.array(fresh.lengths, np.int64).reshape(fresh.count, _F)])
    starts = np.concatenate([[0], np.cumsum(np.concatenate([np.diff(old.starts), sizes]))]).astype(np.int64)
    return _Pool(lengths, starts, np.concatenate([pool_term, fresh_term[order]]),
                 np.concatenate([old.tf.astype(np.int64), fresh_tf[order]]))


def _laid_out(old: TermState, source: np.ndarray, merged: list[str], position: np.ndarray, pool: _Pool,
              digests: list[bytes], models: list[bytes] | None) -> Prepared:
    """This build's rows and entries (by paper, then field) picked from the ``pool`` by ``source`` (per paper,
    its pool paper), terms no picked entry holds dropped from ``merged`` (merged positions of the old
    terms: ``position``), as :class:`Prepared`."""
    v_old = len(old.vocab)
    rows = (source[:, None] * _F + np.arange(_F)).reshape(-1)
    row_sizes = pool.starts[rows + 1] - pool.starts[rows]
    picked = ranges(pool.starts[rows], row_sizes)
    term = pool.term[picked]
    df = np.bincount(term, minlength=len(merged))
    used = df > 0
    final = np.cumsum(used) - 1
    if not used.all():
        term = final[term]
    old_of_merged = np.full(len(merged), -1, np.int64)
    old_of_merged[position[:v_old]] = np.arange(v_old)
    return Prepared(
        terms=tuple(merged) if used.all() else tuple(t for t, u in zip(merged, used.tolist()) if u),
        df=df[used], term=term, tf=pool.tf[picked],
        row=np.repeat(np.arange(len(rows), dtype=np.int64), row_sizes),
        lengths=pool.lengths[source], starts=np.concatenate([[0], np.cumsum(row_sizes)]).astype(np.int64),
        digests=digests, models=models, source=source, old=old, old_term=old_of_merged[used],
        old_entry=np.where(picked < len(old.term), picked, -1))


def stateful_tables(papers: Sequence[Paper], refs: Sequence[str], path: Path | None) -> IndexTables:
    """``indexer.index_tables`` over ``(ref, search.paper_terms(paper))`` for ``papers``, exactly
    (every array and tuple equal), reusing the tokenized papers saved at ``path`` by the previous
    call and saving this call's there (tokens only, no packed pieces; see the module doc). ``path``
    None: no state, nothing saved.

    ``refs``: one unique ref per paper. Never raises because of the state file.
    """
    prep = prepare(papers, path)
    totals = [int(x) for x in prep.lengths.sum(axis=0)] if len(papers) else [0] * _F
    tables = scored_tables(FIELDS, tuple(refs), prep.terms, prep.df, totals, prep.term, prep.row % _F,
                           prep.row // _F, prep.lengths.reshape(-1)[prep.row], prep.tf)
    if path is not None and prep.save_needed:
        save_state(path, prep.state())
    return tables
