"""Plan again only the pages a rebuild can have changed.

A page's context (:func:`site_builder.pages.plan.outline_pages`) is a function of three things:

- the site's **structure** (:func:`structure_digest`): what the index pages show (home, authors, tags,
  keywords, "My list": the pages without sources, which show no paper's data): the venues and tracks and their
  numbers of papers, every author's name, page and number of papers, every tag and keyword, the reading status
  counts, with the config, code and templates. It is the digest of those pages' keys, so it holds exactly what
  they receive, no list kept by hand;
- its **sources** (:attr:`~site_builder.pages.plan.Planned.sources`): which papers it shows, in which order
  and places (a paper page: the paper, its neighbours in its venue and track, its related papers), as
  :func:`~site_builder.pages.plan.paper_identity` (where each was read, which an edited abstract or title
  does not change); their digest per page is :func:`page_digests`;
- the **data of those papers** (:func:`paper_digests`): for each, its :class:`~site_builder.model.site.Paper`
  (every field) and its note. What else a page shows of a paper is a function of these and the
  structure: the author page of each author name (the name's :func:`~site_builder.model.authors.author_key`
  and the authors' keys and slugs), its tags (its note's tags and the tag terms) and keywords
  (``Paper.keywords`` and the keyword terms). The paper's own page shows two things more: its related
  papers, which are among that page's sources (so a changed related list moves the page, and a related
  paper whose id changed is a changed paper), and its BibTeX key (:func:`own_data`; a paper whose key
  changed counts as changed).

The previous build's digests are kept in its manifest (:class:`~site_builder.incremental.cache.BuildCache`,
``plan``). When the structure digest is unchanged, a page whose sources digest is the previous one
and none of whose source papers changed (data or BibTeX key) gets the same context, hence the same key, as in the
previous build: it is kept without building its views or digesting its context
(:func:`split_outline`). Every other page is planned and keyed as in a full build
(:meth:`site_builder.output.rendering.PageReuse.keys`), so a page kept here is one the full path would also keep.
With ``SITE_BUILDER_CHECK_REPLAN=1`` in the environment every kept page is keyed the full way too and
a difference raises :class:`ReplanMismatch` (``tests/incremental/test_cache.py`` runs its edits so).
"""

from __future__ import annotations

import hashlib
import os
from array import array
from dataclasses import dataclass
from itertools import compress, count, repeat
from operator import attrgetter, is_, is_not, methodcaller, ne, not_

from .plan import Planned, identities_of

#: Hex digits kept of each digest (128 bits).
DIGITS = 32


class ReplanMismatch(AssertionError):
    """A page kept by :func:`split_outline` would have had another key (only raised in check mode)."""


@dataclass
class PlanRecord:
    """What the next build compares: ``structure`` (hex digest, None when it cannot be trusted),
    ``papers`` (the papers' identities and the digests of their data, :func:`paper_digests`), ``pages`` (the pages' paths
    and the digests of their sources, :func:`page_digests`), ``own`` (what only each paper's page shows of it, in the
    order of ``papers``, :func:`own_data`). Digests are :class:`bytes` (the manifest is :mod:`marshal` data)."""

    structure: str | None
    papers: list
    pages: list
    own: list

    def to_json(self) -> dict:
        """The record as plain data for the manifest (:mod:`marshal`-able: str, bytes, dict, list, None)."""
        return {"structure": self.structure, "papers": self.papers, "pages": self.pages, "own": self.own}

    @staticmethod
    def from_json(data) -> "PlanRecord | None":
        """The record saved by :meth:`to_json`, or None when ``data`` is not one. (Values are only ever
        compared with ``==``/``!=``: a malformed value compares unequal, its page is planned again.)"""
        if not isinstance(data, dict):
            return None
        structure, papers, pages, own = data.get("structure"), data.get("papers"), data.get("pages"), data.get("own")
        if not (isinstance(structure, str) and isinstance(papers, list) and len(papers) == 2
                and isinstance(pages, list) and len(pages) == 3 and isinstance(own, list)):
            return None
        return PlanRecord(structure, papers, pages, own)


def _sha(value) -> str:
    return hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()[:DIGITS]


def structure_digest(index_keys: list[str | None]) -> str | None:
    """Hex digest of the site's structure (see the module docstring): of ``index_keys``, the keys of the index
    pages (the pages of the outline without sources, ``()``, in plan order, as
    :meth:`~site_builder.output.rendering.PageReuse.keys` gives them). None when one of them is None (a context
    or the common context that cannot be digested): nothing is then kept without its context."""
    if None in index_keys:
        return None
    return _sha(tuple(index_keys))


#: Bytes of one paper's digest in :attr:`PlanRecord.papers` (SHA-256).
PAPER_DIGEST_BYTES = 32


def paper_digests(site, library, fingerprints, identities: list[str] | None = None) -> list | None:
    """``[identities, digests]``: each paper's :func:`~site_builder.pages.plan.paper_identity` (``identities``, in
    site order; default: computed) and the digest of its data as pages can show it (see the module docstring),
    concatenated (bytes, 32 per paper): its :class:`~site_builder.model.site.Paper`'s digest by ``fingerprints`` (a
    :class:`~site_builder.incremental.cache.Fingerprinter`, which may have it from the index process already), or, for a
    paper with a note, SHA-256 of ``b"note"``, that digest and the note's. None when a paper or note cannot be
    digested or two papers share an identity."""
    papers = site.papers
    identities = identities if identities is not None else identities_of(papers)
    digests = list(map(fingerprints.digest, papers))  # memoised: ~10,000 papers, no hashing here
    if None in digests or len(set(identities)) != len(papers):
        return None
    if library.notes:
        note_of, digest, sha = library.note, fingerprints.digest, hashlib.sha256
        for n, paper in enumerate(papers):
            note = note_of(paper)
            if note is not None:
                note_digest = digest(note)
                if note_digest is None:
                    return None
                digests[n] = sha(b"note" + digests[n] + note_digest).digest()
    joined = b"".join(digests)
    return [identities, joined] if len(joined) == PAPER_DIGEST_BYTES * len(papers) else None


def own_data(site, library) -> list[str]:
    """Each paper's BibTeX key, in site order: what a paper's page shows of its paper besides the paper's
    data (:func:`paper_digests`) and its sources (see the module docstring). A paper whose key changed counts
    as changed (:func:`split_outline`): a key changes with the paper's data but for a rare shift of another
    paper's suffix."""
    return list(map(library.bib_keys.__getitem__, map(attrgetter("id"), site.papers)))


def _changed_papers(previous: "PlanRecord", current: "PlanRecord") -> set[str]:
    """The identities of ``current``'s papers whose data or BibTeX key is not the one ``previous`` recorded
    for the same identity (or that it did not record); with the same number of papers, also those at the (at
    most :data:`MAX_SHIFTED`) places whose identity is not the previous one (a safe excess: their pages are
    planned again). Raises ValueError or TypeError for a malformed ``previous``."""
    (old_ids, old_digests), old_keys = previous.papers, previous.own
    (ids, digests), keys = current.papers, current.own
    if not (type(old_ids) is list and type(old_digests) is bytes and type(old_keys) is list
            and len(old_digests) == PAPER_DIGEST_BYTES * len(old_ids) and len(old_keys) == len(old_ids)):
        raise ValueError("not a record of papers")
    if len(old_ids) == len(ids):
        shifted = list(compress(count(), map(ne, old_ids, ids)))
        if len(shifted) <= MAX_SHIFTED:
            return {ids[n] for n in _differing(old_digests, digests, PAPER_DIGEST_BYTES).union(
                shifted, compress(count(), map(ne, old_keys, keys)))}
    old = dict(zip(old_ids, zip(_slots(old_digests, PAPER_DIGEST_BYTES), old_keys)))
    return {identity for identity, value in zip(ids, zip(_slots(digests, PAPER_DIGEST_BYTES), keys))
            if old.get(identity) != value}


#: Bytes of one page's sources digest in :attr:`PlanRecord.pages` (SHA-256) and of its number of sources.
PAGE_DIGEST_BYTES, PAGE_LENGTH_BYTES = 32, 4


def page_digests(outline: list[Planned]) -> list:
    """``[paths, digests, lengths]`` of the pages of ``outline`` that have sources, in plan order: their
    paths (list), the SHA-256 of each one's sources joined by newlines, concatenated (bytes, 32 per page),
    and each one's number of sources (bytes, a native ``array("I")``). An identity holds no newline
    (:func:`~site_builder.pages.plan.paper_identity` or ``""``), so the joined text and the number tell the sources
    apart. Every step is a ``map`` in C (~28,800 pages per build): no Python code runs per page."""
    sources = list(map(attrgetter("sources"), outline))
    paths = list(map(attrgetter("path"), outline))
    if None in sources:
        kept = list(map(is_not, sources, repeat(None)))
        sources, paths = list(compress(sources, kept)), list(compress(paths, kept))
    digests = b"".join(map(methodcaller("digest"), map(hashlib.sha256, map(str.encode, map("\n".join, sources)))))
    return [paths, digests, array("I", map(len, sources)).tobytes()]


def _moved(previous: list, current: list) -> set[str]:
    """The paths of ``current`` (:func:`page_digests`) whose sources are not those ``previous`` recorded
    for the same path (or that it did not record); with the same number of pages, also those of the (at most
    :data:`MAX_SHIFTED`) places whose path is not the previous one (a page counted as moved is only planned
    and keyed again: a safe excess). Raises ValueError or TypeError for a malformed ``previous``."""
    old_paths, old_digests, old_lengths = previous
    paths, digests, lengths = current
    if not (type(old_paths) is list and type(old_digests) is bytes and type(old_lengths) is bytes
            and len(old_digests) == PAGE_DIGEST_BYTES * len(old_paths)
            and len(old_lengths) == PAGE_LENGTH_BYTES * len(old_paths)):
        raise ValueError("not a record of pages")
    if len(old_paths) == len(paths):
        # The same number of pages: those at the same place under the same path are compared by their bytes,
        # the others (an edited abstract changes its paper's path) count as moved, when they are few.
        shifted = list(compress(count(), map(ne, old_paths, paths)))
        if len(shifted) <= MAX_SHIFTED:
            return {paths[n] for n in _differing(old_digests, digests, PAGE_DIGEST_BYTES).union(
                shifted, _differing(old_lengths, lengths, PAGE_LENGTH_BYTES))}
    old = dict(zip(old_paths, zip(_slots(old_digests, PAGE_DIGEST_BYTES), _slots(old_lengths, PAGE_LENGTH_BYTES))))
    new = zip(paths, zip(_slots(digests, PAGE_DIGEST_BYTES), _slots(lengths, PAGE_LENGTH_BYTES)))
    return {path for path, value in new if old.get(path) != value}


#: Above this many pages whose path is not the previous build's at the same place, :func:`_moved` looks each
#: path up instead of counting them all as moved.
MAX_SHIFTED = 200


def _slots(data: bytes, size: int) -> list[bytes]:
    return [data[start:start + size] for start in range(0, len(data), size)]


def _differing(old: bytes, new: bytes, size: int, block: int = 256) -> set[int]:
    """The numbers of the ``size``-byte slots in which ``old`` and ``new`` (of equal length) differ: blocks of
    ``block`` slots compared at once, slots only in the blocks that differ."""
    if old == new:
        return set()
    result = set()
    step = size * block
    for start in range(0, len(new), step):
        if old[start:start + step] != new[start:start + step]:
            result.update(n // size for n in range(start, min(start + step, len(new)), size)
                          if old[n:n + size] != new[n:n + size])
    return result


def plan_record(site, library, outline: list[Planned], fingerprints, index_keys: list[str | None]) -> PlanRecord:
    """The :class:`PlanRecord` of this build: the structure digest of ``index_keys`` (:func:`structure_digest`),
    the papers' digests by ``fingerprints`` (a :class:`~site_builder.incremental.digest.Fingerprinter`), the
    pages' sources. The structure is None, and the record empty, when either cannot be digested."""
    papers = paper_digests(site, library, fingerprints)
    structure = structure_digest(index_keys) if papers is not None else None
    if structure is None:
        return PlanRecord(None, [[], b""], [[], b"", b""], [])
    return PlanRecord(structure, papers, page_digests(outline), own_data(site, library))


def split_outline(outline: list[Planned], previous: PlanRecord | None,
                  current: PlanRecord) -> tuple[list[Planned], list[Planned]]:
    """``(unchanged, stale)``: the pages of ``outline`` whose context cannot differ from the
    previous build's (same structure, same sources, no source paper changed), and all the others
    (in plan order). Everything is stale without a previous record, or when either structure digest
    is None or they differ, or the previous record is malformed.
    """
    if previous is None or current.structure is None or previous.structure != current.structure:
        return [], list(outline)
    try:
        changed = _changed_papers(previous, current)
        moved = _moved(previous.pages, current.pages)
    except (TypeError, ValueError):  # a malformed previous record: plan everything
        return [], list(outline)
    # The places of the stale pages (a few dozen of ~28,800 on a rebuild), found by maps in C: no sources
    # (always planned), moved, or showing a changed paper.
    sources = list(map(attrgetter("sources"), outline))
    always = list(compress(count(), map(is_, sources, repeat(None))))
    stale = set(always)
    if moved:
        stale.update(compress(count(), map(moved.__contains__, map(attrgetter("path"), outline))))
    if changed:
        shown = sources
        if always:  # (planned anyway) no sources to look at: as none
            shown = list(sources)
            for n in always:
                shown[n] = ()
        stale.update(compress(count(), map(not_, map(changed.isdisjoint, shown))))
    return _without(outline, stale), [outline[n] for n in sorted(stale)]


#: Up to this many stale pages, :func:`_without` deletes them from a copy of the outline one by one.
FEW_STALE = 64


def _without(outline: list, places: set[int]) -> list:
    """The items of ``outline`` but those at ``places``, in order: a copy of the list with the places deleted
    (from the last) when they are at most :data:`FEW_STALE`, else the items kept by one flag each."""
    if len(places) <= FEW_STALE:
        kept = list(outline)
        for n in sorted(places, reverse=True):
            del kept[n]
        return kept
    return list(compress(outline, map(not_, map(places.__contains__, range(len(outline))))))


def check_mode() -> bool:
    """Whether ``SITE_BUILDER_CHECK_REPLAN`` asks to verify every page kept by :func:`split_outline`."""
    return os.environ.get("SITE_BUILDER_CHECK_REPLAN", "") not in ("", "0")
