"""Plan again only the pages a rebuild can have changed.

A page's context (:func:`site_builder.pages.outline_pages`) is a function of three things:

- the site's **structure** (:func:`structure_digest`): the config and templates, the venues and tracks,
  the number of papers of each venue and track, every author (key, slug, spellings, number of papers),
  every tag and keyword (slug, label, path, number of papers) and the reading status counts. Index
  pages (home, authors, tags, keywords, "My list") show nothing else;
- its **sources** (:attr:`~site_builder.pages.Planned.sources`): which papers it shows, in which order
  and places (a paper page: the paper, its neighbours in its venue and track, its related papers), as
  :func:`~site_builder.pages.paper_identity` (where each was read, which an edited abstract or title
  does not change); their digest per page is :func:`page_digests`;
- the **data of those papers** (:func:`paper_digests`): for each, its :class:`~site_builder.model.Paper`
  (every field), its note, its related papers (ids) and its BibTeX key. What else a page shows of a
  paper is a function of these and the structure: the author page of each author name (the name's
  :func:`~site_builder.authors.author_key` and the authors' keys and slugs), its tags (its note's
  tags and the tag terms) and keywords (``Paper.keywords`` and the keyword terms).

The previous build's digests are kept in its manifest (:class:`~site_builder.cache.BuildCache`,
``plan``). When the structure digest is unchanged, a page whose sources digest is the previous one
and none of whose source papers changed gets the same context, hence the same key, as in the
previous build: it is kept without building its views or digesting its context
(:func:`split_outline`). Every other page is planned and keyed as in a full build
(:func:`site_builder.pipeline.page_keys`), so a page kept here is one the full path would also keep.
With ``SITE_BUILDER_CHECK_REPLAN=1`` in the environment every kept page is keyed the full way too and
a difference raises :class:`ReplanMismatch` (``tests/test_cache.py`` runs its edits so).
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass
from operator import attrgetter

from .pages import AUTHORS_PER_INDEX_PAGE, Planned, paper_identity

#: Hex digits kept of each digest (128 bits).
DIGITS = 32


class ReplanMismatch(AssertionError):
    """A page kept by :func:`split_outline` would have had another key (only raised in check mode)."""


@dataclass
class PlanRecord:
    """What the next build compares: ``structure`` (hex digest, None when it cannot be trusted),
    ``papers`` (paper identity → hex digest of its data) and ``pages`` (path → hex digest of its sources)."""

    structure: str | None
    papers: dict[str, str]
    pages: dict[str, str]

    def to_json(self) -> dict:
        """The record as JSON-ready data (for the manifest)."""
        return {"structure": self.structure, "papers": self.papers, "pages": self.pages}

    @staticmethod
    def from_json(data) -> "PlanRecord | None":
        """The record saved by :meth:`to_json`, or None when ``data`` is not one."""
        if not isinstance(data, dict):
            return None
        structure, papers, pages = data.get("structure"), data.get("papers"), data.get("pages")
        if not (isinstance(structure, str) and isinstance(papers, dict) and isinstance(pages, dict)):
            return None
        return PlanRecord(structure, papers, pages)


def _sha(value) -> str:
    return hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()[:DIGITS]


def structure_digest(site, library, fingerprints, shared: tuple) -> str | None:
    """Hex digest of the site's structure (see the module docstring), with ``shared`` (the code,
    template and config digests of :func:`site_builder.pipeline.page_keys`). None when a part cannot
    be digested by ``fingerprints`` (a :class:`~site_builder.cache.Fingerprinter`)."""
    of = fingerprints.of
    places: dict[int, str | None] = {}

    def place(obj) -> str | None:
        digest = places.get(id(obj))
        if digest is None:
            digest = places[id(obj)] = of(obj)
        return digest

    # Papers per (venue, track), counted by object in C, then by digest (equal objects count together).
    papers = site.papers
    venue_of, track_of = list(map(attrgetter("venue"), papers)), list(map(attrgetter("track"), papers))
    objects = dict(zip(map(id, venue_of), venue_of))
    objects.update(zip(map(id, track_of), track_of))
    counts: Counter = Counter()
    for (venue, track), n in Counter(zip(map(id, venue_of), map(id, track_of))).items():
        track = objects[track]
        counts[place(objects[venue]), place(track) if track is not None else ""] += n
    venues = tuple([(place(v), tuple([place(t) for t in site.tracks_of(v)])) for v in site.venues])
    tracks = tuple([place(t) for t in site.tracks])
    authors = tuple([(a.key, a.slug, tuple(sorted(a.spellings.items())), len(a.papers))  # name: the top spelling
                     for a in library.authors.authors])
    terms = tuple([(t.kind, t.slug, t.label, t.path, len(t.papers)) for t in (*library.tags, *library.keywords)])
    notes = (bool(library.notes), library.status_counts() if library.notes else None)
    parts = (shared, len(site.papers), tuple(sorted(counts.items())), venues, tracks, authors, terms, notes,
             AUTHORS_PER_INDEX_PAGE)
    if None in shared or None in places.values():
        return None
    return _sha(parts)


def paper_digests(site, library, fingerprints) -> dict[str, str] | None:
    """``{paper identity: hex digest}`` of every paper's data as pages can show it (see the module
    docstring): its :class:`~site_builder.model.Paper` and its note (their digests by ``fingerprints``,
    a :class:`~site_builder.cache.Fingerprinter`), the ids of its related papers and its BibTeX key.
    None when a paper or note cannot be digested or two papers share an identity."""
    result: dict[str, str] = {}
    digest = fingerprints.digest
    note_of, related, bib_key = library.note, library.related, library.bib_key
    sha = hashlib.sha256
    for paper in site.papers:  # as tight as can be: ~10,000 papers per build
        note = note_of(paper)
        value = (digest(paper), None if note is None else digest(note), tuple([p.id for p in related(paper)]),
                 bib_key(paper))
        if value[0] is None or (note is not None and value[1] is None):
            return None
        result[paper_identity(paper)] = sha(repr(value).encode("utf-8", "surrogatepass")).hexdigest()[:DIGITS]
    return result if len(result) == len(site.papers) else None


def page_digests(outline: list[Planned]) -> dict[str, str]:
    """``{path: hex digest of its sources}`` of the pages of ``outline`` that have sources."""
    sha = hashlib.sha256
    return {planned.path: sha(repr(planned.sources).encode("utf-8", "surrogatepass")).hexdigest()[:DIGITS]
            for planned in outline if planned.sources is not None}  # _sha, inline: ~28,800 pages per build


def plan_record(site, library, outline: list[Planned], fingerprints, shared: tuple) -> PlanRecord:
    """The :class:`PlanRecord` of this build (structure None when the papers cannot be digested)."""
    papers = paper_digests(site, library, fingerprints)
    structure = structure_digest(site, library, fingerprints, shared) if papers is not None else None
    return PlanRecord(structure, papers or {}, page_digests(outline) if structure is not None else {})


def split_outline(outline: list[Planned], previous: PlanRecord | None,
                  current: PlanRecord) -> tuple[list[Planned], list[Planned]]:
    """``(unchanged, stale)``: the pages of ``outline`` whose context cannot differ from the
    previous build's (same structure, same sources, no source paper changed), and all the others
    (in plan order). Everything is stale without a previous record, or when either structure digest
    is None or they differ.
    """
    if previous is None or current.structure is None or previous.structure != current.structure:
        return [], list(outline)
    old = previous.papers
    changed = {identity for identity, digest in current.papers.items() if old.get(identity) != digest}
    # Pages whose sources' digest is not the previous one (or new pages): a set difference in C, few
    # pages, instead of two dict lookups for each of ~28,800 pages.
    moved = {path for path, _ in current.pages.items() - previous.pages.items()}
    unchanged: list[Planned] = []
    stale: list[Planned] = []
    for planned in outline:
        sources = planned.sources
        if sources is None or planned.path in moved or not changed.isdisjoint(sources):
            stale.append(planned)
        else:
            unchanged.append(planned)
    return unchanged, stale


def check_mode() -> bool:
    """Whether ``SITE_BUILDER_CHECK_REPLAN`` asks to verify every page kept by :func:`split_outline`."""
    return os.environ.get("SITE_BUILDER_CHECK_REPLAN", "") not in ("", "0")
