"""The search index's tokenized papers kept from one build to the next, so a rebuild tokenizes only
what changed.

Tokenizing every paper's title, authors, track and abstract
(:func:`search.document_terms`) is most of the search index's cost; it is a
pure function of the texts :func:`search.search_texts` returns. The state
(kept in the build cache by :class:`~site_builder.incremental.store.Store`, :meth:`~Store.keep` and
:meth:`~Store.kept`, as ``<cache folder>/search-terms.marshal``, :data:`STATE_NAME`) holds, for the
papers of the previous build, each one's tokenized fields in compact numpy
form, keyed by a digest of those texts and of what its result record shows
(:func:`paper_digest`). :func:`prepare` reuses the rows of papers whose digest
is known, tokenizes only the others, and lays out this build's entries with
vectorised numpy (vocabulary merge, ``df`` by ``bincount``, unused terms
dropped, term numbers remapped to JavaScript string order). From that,
:func:`stateful_tables` scores the index with :func:`indexer.scored_tables`
(exactly ``index_tables`` over all papers); :mod:`site_builder.search.shards` writes it.

The kept value (:func:`state_value`, a dict of marshal-ready values; an array is kept as its bytes,
:func:`~site_builder.incremental.store.array_bytes`, little-endian ``<i8`` for int64, ``<i4`` for int32):

- ``digests`` (bytes, ``P × 16``): per paper, :func:`paper_digest`;
- ``models`` (bytes, ``P × 32``, or None): per paper, its :class:`cache.Fingerprinter` digest (of every
  field of the paper, a superset of what :func:`paper_digest` reads), when the build had them: a paper of
  this build with the same model digest has the same :func:`paper_digest`, which is then taken from
  the state instead of hashing the paper's texts again (:func:`text_digests`);
- ``vocab`` (str): the terms joined by NUL, in JavaScript string
  order (every term is held by some paper of the state); ``vocab_size`` (int);
- ``lengths`` (int64, ``(P, F)``): token count of each (paper, field), fields in :data:`search.FIELDS` order;
- ``starts`` (int64, ``P * F + 1``): entries of row ``p * F + f`` are ``starts[r]:starts[r + 1]``;
- ``term`` (int32) and ``tf`` (int32): per entry, a term number into ``vocab`` and its frequency;
  within a row, entries are by ascending term number.

The code version and the store's format are the store's (its file header): a state of another one is a
quiet miss. A missing or inconsistent state is ignored and rewritten; an unreadable or undecodable file,
or a damaged one (the store's checksum), too, with the
store's one corrupt-file warning
(:meth:`~site_builder.incremental.store.Store.corrupt`). The state only ever saves time, never changes the output. It is
written atomically by the store; a folder that cannot be written is the store's one write warning a build.
"""

from __future__ import annotations

import bisect
import hashlib
from array import array
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from .indexer import IndexTables, js_sort_key, scored_tables
from ..incremental.store import Store, array_bytes, array_of
from ..model.site import Paper
from .documents import FIELDS, document_terms, search_texts

#: The state's name in the build cache folder (:meth:`Store.keep <site_builder.incremental.store.Store.keep>`).
STATE_NAME = "search-terms.marshal"
#: Where an older version kept the state (a numpy ``.npz``; removed when the state is kept again).
_OLD_NAME = "search-terms.npz"
DIGEST_SIZE = 16
#: Bytes of a model digest (:meth:`cache.Fingerprinter.digests`, SHA-256).
MODEL_DIGEST_SIZE = 32
#: How the kept arrays are stored (:func:`~site_builder.incremental.store.array_bytes`).
INT64, INT32 = "<i8", "<i4"
_NAMES = tuple(name for name, _ in FIELDS)
_F = len(_NAMES)


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
class TermState:
    """Tokenized papers (see the module doc for the meaning of each array).

    ``vocab``: terms in JavaScript string order; ``digests``: one
    :data:`DIGEST_SIZE`-byte digest per paper; ``lengths`` int64 ``(P, F)``;
    ``starts`` int64 ``P * F + 1``; ``term``, ``tf`` int32 per entry, by
    ascending term within a row; ``models``: one model digest per paper, or None.
    """

    vocab: list[str]
    digests: list[bytes]
    lengths: np.ndarray
    starts: np.ndarray
    term: np.ndarray
    tf: np.ndarray
    models: list[bytes] | None = None


def _empty() -> TermState:
    return TermState([], [], np.zeros((0, _F), np.int64), np.zeros(1, np.int64),
                     np.zeros(0, np.int32), np.zeros(0, np.int32))


def state_value(state: TermState) -> dict | None:
    """The value that keeps ``state`` (see the module doc); None when it cannot be kept: a term holding a NUL
    (never made by the tokenizer), or a vocabulary of the one empty term."""
    blob = "\0".join(state.vocab)
    if blob.count("\0") != max(len(state.vocab) - 1, 0) or (len(state.vocab) == 1 and not blob):
        return None
    models = state.models if state.models is not None and len(state.models) == len(state.digests) else None
    value = {"digests": b"".join(state.digests), "models": None if models is None else b"".join(models),
             "vocab": blob, "vocab_size": len(state.vocab), "lengths": array_bytes(np.asarray(state.lengths), INT64),
             "starts": array_bytes(np.asarray(state.starts), INT64), "term": array_bytes(np.asarray(state.term), INT32),
             "tf": array_bytes(np.asarray(state.tf), INT32)}
    return value


def load_state(store: Store | None) -> TermState | None:
    """The state the previous build kept in ``store`` (:data:`STATE_NAME`), or None: without a store (None, or
    one without a cache folder), when there is none, it is of another code version or store format, or it is
    malformed or inconsistent; an unreadable, damaged (the store's checksum) or undecodable file, with
    the store's corrupt-file warning (:meth:`Store.corrupt <site_builder.incremental.store.Store.corrupt>`).
    Never raises because of the file."""
    value = store.kept(STATE_NAME) if store is not None else None
    if value is None:
        return None
    try:
        return _decoded(value)
    except (KeyError, TypeError, ValueError, AttributeError, UnicodeError):
        return None


def _decoded(value: dict) -> TermState | None:
    """The :class:`TermState` of a kept ``value`` (:func:`state_value`); None when inconsistent. Raises
    KeyError, TypeError, ValueError (or AttributeError, UnicodeError) when it is malformed."""
    digests, vocab_size, blob = value["digests"], value["vocab_size"], value["vocab"]
    if type(digests) is not bytes or type(vocab_size) is not int or type(blob) is not str:  # noqa: E721
        raise TypeError("malformed search state")
    n, extra = divmod(len(digests), DIGEST_SIZE)
    lengths = array_of(value["lengths"], INT64, (n, _F)).astype(np.int64, copy=False)  # no copy where "<i8" is native
    starts = array_of(value["starts"], INT64).astype(np.int64, copy=False)
    term = array_of(value["term"], INT32).astype(np.int32, copy=False)
    tf = array_of(value["tf"], INT32).astype(np.int32, copy=False)
    vocab = blob.split("\0") if vocab_size else []
    if (extra or len(vocab) != vocab_size or starts.shape != (n * _F + 1,) or starts[0] != 0
            or term.shape != tf.shape or starts[-1] != len(term) or np.any(np.diff(starts) < 0)
            or (len(term) and (term.min() < 0 or term.max() >= vocab_size or tf.min() < 1))
            or np.any(lengths < 0)):
        return None
    models = value["models"]
    if type(models) is not bytes or len(models) != n * MODEL_DIGEST_SIZE:  # noqa: E721 - plain data
        models = None
    return TermState(vocab, _rows(digests, DIGEST_SIZE), lengths, starts, term, tf,
                     None if models is None else _rows(models, MODEL_DIGEST_SIZE))


def _rows(data: bytes, size: int) -> list[bytes]:
    """``data`` cut into rows of ``size`` bytes."""
    return [data[i:i + size] for i in range(0, len(data), size)]


def save_state(store: Store | None, state: TermState, warn: bool = True) -> OSError | None:
    """Keep ``state`` in ``store`` for the next build (:meth:`Store.keep
    <site_builder.incremental.store.Store.keep>` of :func:`state_value` as :data:`STATE_NAME`; written
    atomically; the file of an older version, ``search-terms.npz``, is removed). Nothing without a store (None,
    or one without a cache folder), nor for a state that cannot be kept (see :func:`state_value`). A failure to
    write is the store's one warning a build, or with ``warn`` False returned."""
    value = state_value(state) if store is not None and store.folder is not None else None
    if value is None:
        return None
    error = store.keep(STATE_NAME, value, warn)
    if error is None:
        store.discard(_OLD_NAME)
    return error


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
    (field, paper) pairs holding it. Entries (int32 arrays), by paper, field,
    then ascending term: ``term`` (number into ``terms``), ``tf``, ``row``
    (``paper * F + field``). ``lengths`` (int64 ``(P, F)``): token counts;
    ``starts`` (int64, ``P * F + 1``): entries of each row. ``digests``: per
    paper, :func:`paper_digest`; ``source`` (int64, per paper): its index in
    ``old`` (< ``len(old.digests)``) or not (a paper tokenized in this call);
    ``models``: per paper, its model digest, or None (see :func:`text_digests`);
    ``old``: the state read (empty when none).
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

    @property
    def unchanged(self) -> bool:
        """Whether the papers are exactly those of ``old``, in the same order."""
        n_old = len(self.old.digests)
        return len(self.source) == n_old and np.array_equal(self.source, np.arange(n_old))

    def state(self) -> TermState:
        """The state to save for the next build."""
        return TermState(list(self.terms), self.digests, self.lengths, self.starts,
                         self.term.astype(np.int32, copy=False), self.tf.astype(np.int32, copy=False), self.models)

    @property
    def save_needed(self) -> bool:
        """Whether the state is to be kept again: the papers, or their model digests, are not
        exactly those of ``old``."""
        return not self.unchanged or (self.models is not None and self.models != self.old.models)


def text_digests(papers: Sequence[Paper], old: TermState, models: Sequence[bytes] | None) -> list[bytes]:
    """:func:`paper_digest` of each of ``papers``; for a paper whose model digest (``models``, one per paper:
    :meth:`cache.Fingerprinter.digests`, or None) the state ``old`` holds, the digest ``old`` keeps with it.

    Sound because the model digest covers every field of the paper (a decodable form of all of them,
    hashed with SHA-256): equal model digests mean equal papers, so equal :func:`paper_digest` (a function
    of the paper's fields and of the code, whose version the store records with the state). It saves hashing
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
    papers; ``count``: the fresh papers; per (fresh paper, field) row, its token count (``lengths``, int64) and
    distinct terms (``sizes``, int64); ``new_terms``: the terms the state's vocabulary lacks, in order of first
    use; per entry of the rows, by row, its term (``term``, int32: its number in the state's vocabulary, or that
    vocabulary's size plus its place in ``new_terms``) and frequency (``tf``, int32)."""

    source: np.ndarray
    count: int
    lengths: np.ndarray
    sizes: np.ndarray
    new_terms: list[str]
    term: np.ndarray
    tf: np.ndarray


class _Numbering(dict):
    """Term → number: the terms of a vocabulary by their place in it, then each new term, numbered on its
    first lookup after them (``new`` lists those in that order). Entries are numbered as they are
    tokenized, so no list of every entry's term string is held (at 100,000 papers, millions of them)."""

    def __init__(self, vocab: list[str]) -> None:
        super().__init__(zip(vocab, range(len(vocab))))
        self.new: list[str] = []

    def __missing__(self, term: str) -> int:
        number = self[term] = len(self)
        self.new.append(term)
        return number


def prepare(papers: Sequence[Paper], store: Store | None, models: Sequence[bytes] | None = None) -> Prepared:
    """The index entries of ``papers`` (:class:`Prepared`), reusing the tokenized papers of the state
    kept in ``store`` (:func:`load_state`; None: no state) and tokenizing (:func:`search.document_terms`) the others.
    ``models``: each paper's model digest (:meth:`cache.Fingerprinter.digests`, 32 bytes), or None: used to
    find papers the state holds without hashing their texts (:func:`text_digests`), and kept in the
    state. Saves nothing. Never raises because of the kept state (raises ValueError when ``models`` is
    not one 32-byte digest per paper)."""
    models = _checked_models(papers, models)
    old = load_state(store) or _empty()
    digests = text_digests(papers, old, models)
    fresh = _tokenize_fresh(papers, digests, old)
    merged, position = _merge_order(old.vocab, fresh.new_terms)
    pool, source = _pool(old, fresh, position.astype(np.int32), len(merged)), fresh.source
    del fresh, position  # the fresh entries live on in the pool alone
    return _laid_out(old, source, merged, pool, digests, models)


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
    papers tokenized (:func:`search.document_terms`), their terms numbered as they come (:class:`_Fresh`)."""
    known = {d: i for i, d in enumerate(old.digests)}
    n_old = len(old.digests)
    source = np.empty(len(papers), np.int64)
    numbering: _Numbering | None = None  # made at the first fresh paper (a rebuild often has none)
    lengths, sizes, term, tf = array("q"), array("q"), array("i"), array("i")
    fresh = 0
    for i, d in enumerate(digests):
        j = known.get(d)
        if j is not None:
            source[i] = j
            continue
        source[i] = n_old + fresh
        fresh += 1
        numbering = numbering if numbering is not None else _Numbering(old.vocab)
        doc = document_terms(search_texts(papers[i]))
        for name in _NAMES:
            counts, length = doc[name]
            lengths.append(length)
            sizes.append(len(counts))
            term.extend(map(numbering.__getitem__, counts))
            tf.extend(counts.values())
    return _Fresh(source, fresh, np.frombuffer(lengths, np.int64), np.frombuffer(sizes, np.int64),
                  numbering.new if numbering is not None else [], np.frombuffer(term, np.int32),
                  np.frombuffer(tf, np.int32))


class _Pool(NamedTuple):
    """The rows of the state's papers, then the fresh ones' (rows of F fields each): ``lengths`` (int64,
    ``(P, F)``), ``starts`` (int64, ``P * F + 1``) and per entry ``term`` (int32, numbered in the merged
    vocabulary) and ``tf`` (int32); within a row, entries by ascending term."""

    lengths: np.ndarray
    starts: np.ndarray
    term: np.ndarray
    tf: np.ndarray


def _pool(old: TermState, fresh: _Fresh, position: np.ndarray, n_terms: int) -> _Pool:
    """The :class:`_Pool` of ``old``'s papers and the ``fresh`` ones, term numbers merged: ``position``
    (int32) maps the old terms' and then the new terms' numbers (:class:`_Numbering`) to the merged
    vocabulary of ``n_terms`` terms."""
    pool_term = position[old.term]
    if not fresh.count:
        return _Pool(old.lengths, old.starts, pool_term, old.tf.astype(np.int32, copy=False))
    fresh_term = position[fresh.term]
    key = np.repeat(np.arange(len(fresh.sizes), dtype=np.int64), fresh.sizes)
    key *= max(n_terms, 1)
    key += fresh_term
    order = np.argsort(key)
    del key
    lengths = np.concatenate([old.lengths, fresh.lengths.reshape(fresh.count, _F)])
    starts = np.concatenate([[0], np.cumsum(np.concatenate([np.diff(old.starts), fresh.sizes]))]).astype(np.int64)
    term = np.concatenate([pool_term, fresh_term[order]])
    del pool_term, fresh_term
    return _Pool(lengths, starts, term, np.concatenate([old.tf.astype(np.int32, copy=False), fresh.tf[order]]))


def _laid_out(old: TermState, source: np.ndarray, merged: list[str], pool: _Pool,
              digests: list[bytes], models: list[bytes] | None) -> Prepared:
    """This build's rows and entries (by paper, then field) picked from the ``pool`` by ``source`` (per paper,
    its pool paper), terms no picked entry holds dropped from ``merged``, as :class:`Prepared`."""
    rows = (source[:, None] * _F + np.arange(_F)).reshape(-1)
    row_sizes = pool.starts[rows + 1] - pool.starts[rows]
    picked = ranges(pool.starts[rows], row_sizes)
    term = pool.term[picked]
    tf = pool.tf[picked]
    del picked
    df = np.bincount(term, minlength=len(merged))
    used = df > 0
    if not used.all():
        term = (np.cumsum(used) - 1).astype(np.int32)[term]
    return Prepared(
        terms=tuple(merged) if used.all() else tuple(t for t, u in zip(merged, used.tolist()) if u),
        df=df[used], term=term, tf=tf,
        row=np.repeat(np.arange(len(rows), dtype=np.int32), row_sizes),
        lengths=pool.lengths[source], starts=np.concatenate([[0], np.cumsum(row_sizes)]).astype(np.int64),
        digests=digests, models=models, source=source, old=old)


def stateful_tables(papers: Sequence[Paper], refs: Sequence[str], store: Store | None,
                    models: Sequence[bytes] | None = None) -> IndexTables:
    """``indexer.index_tables`` over ``(ref, search.paper_terms(paper))`` for ``papers``, exactly
    (every array and tuple equal), reusing the tokenized papers kept in ``store`` by the previous
    call and keeping this call's there (see the module doc). ``store`` None: no state, nothing saved.

    ``refs``: one unique ref per paper; ``models``: each paper's model digest, or None (see :func:`prepare`).
    Never raises because of the kept state (its problems are the store's warnings); raises ValueError
    when ``models`` is not one 32-byte digest per paper.
    """
    prep = prepare(papers, store, models)
    totals = [int(x) for x in prep.lengths.sum(axis=0)] if len(papers) else [0] * _F
    tables = scored_tables(FIELDS, tuple(refs), prep.terms, prep.df, totals, prep.term, prep.row % _F,
                           prep.row // _F, prep.lengths.reshape(-1).astype(np.int32)[prep.row], prep.tf)
    if store is not None and prep.save_needed:
        save_state(store, prep.state())
    return tables
