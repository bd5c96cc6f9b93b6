"""Plan again only the pages a rebuild can have changed.

A page's context (:func:`site_builder.pages.outline_pages`) is a function of two things:

- the site's **structure** (:func:`structure_digest`): the config and templates, the papers'
  venues and tracks in site order, the venues and tracks, every author (key, slug, display
  name, spellings, papers), every tag and keyword (slug, label, path, papers) and the reading
  status counts. Index pages (home, authors, tags, keywords, "My list") show nothing else;
- the data of the papers it shows, its ``sources`` (:attr:`~site_builder.pages.Planned.sources`):
  for each such paper, its :class:`~site_builder.model.Paper` (every field), its note, its related
  papers and its BibTeX key: :func:`paper_digests`. What else a page shows of a paper is a function
  of these and the structure: the author page of each author name (the name's
  :func:`~site_builder.authors.author_key` and the authors' keys and slugs), its tags (its note's
  tags and the tag terms) and keywords (``Paper.keywords`` and the keyword terms).

The previous build's structure digest and paper digests are kept in its manifest
(:class:`~site_builder.cache.BuildCache`, ``plan``). When the structure digest is unchanged, a page
none of whose sources changed would get the same context, hence the same key, as in the
previous build: it is kept without building its views or digesting its context
(:func:`split_outline`). Every other page is planned and keyed as in a full build
(:func:`site_builder.pipeline.page_keys`), so a page kept here is one the full path would also keep.
With ``SITE_BUILDER_CHECK_REPLAN=1`` in the environment every kept page is keyed the full way too and
a difference raises :class:`ReplanMismatch` (the tests run the edits of ``tests/test_cache.py`` so).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from .pages import AUTHORS_PER_INDEX_PAGE, Planned

#: Hex digits kept of each digest (128 bits).
DIGITS = 32


class ReplanMismatch(AssertionError):
    """A page kept by :func:`split_outline` would have had another key (only raised in check mode)."""


@dataclass
class PlanRecord:
    """What the next build compares: ``structure`` (hex digest or None) and ``papers`` (hex digest of
    each paper, by position in ``site.papers``: positions, not ids, identify papers here, since an
    edited abstract changes its paper's id)."""

    structure: str | None
    papers: list[str]

    def to_json(self) -> dict:
        """The record as JSON-ready data (for the manifest)."""
        return {"structure": self.structure, "papers": self.papers}

    @staticmethod
    def from_json(data) -> "PlanRecord | None":
        """The record saved by :meth:`to_json`, or None when ``data`` is not one."""
        if not isinstance(data, dict):
            return None
        structure, papers = data.get("structure"), data.get("papers")
        if not (isinstance(structure, str) and isinstance(papers, list)):
            return None
        return PlanRecord(structure, papers)


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

    position = {p.id: i for i, p in enumerate(site.papers)}
    papers = tuple([(place(p.venue), place(p.track) if p.track is not None else "") for p in site.papers])
    venues = tuple([(place(v), tuple([place(t) for t in site.tracks_of(v)])) for v in site.venues])
    tracks = tuple([place(t) for t in site.tracks])
    authors = tuple([(a.key, a.slug, tuple(sorted(a.spellings.items())),  # the name is the most frequent spelling
                      tuple([position[p.id] for p in a.papers]))
                     for a in library.authors.authors])
    terms = tuple([(t.kind, t.slug, t.label, t.path, tuple([position[p.id] for p in t.papers]))
                   for t in (*library.tags, *library.keywords)])
    notes = (bool(library.notes), library.status_counts() if library.notes else None)
    parts = (shared, papers, venues, tracks, authors, terms, notes, AUTHORS_PER_INDEX_PAGE)
    if None in shared or None in places.values():
        return None
    return _sha(parts)


def paper_digests(site, library, fingerprints) -> list[str] | None:
    """The hex digest of every paper's data as pages can show it (see the module docstring), by
    position in ``site.papers``; None when a paper cannot be digested."""
    result: list[str] = []
    of = fingerprints.of
    for paper in site.papers:
        digest = of((paper, library.note(paper), tuple([p.id for p in library.related(paper)]),
                     library.bib_key(paper)))
        if digest is None:
            return None
        result.append(digest[:DIGITS])
    return result


def plan_record(site, library, fingerprints, shared: tuple) -> PlanRecord:
    """The :class:`PlanRecord` of this build."""
    return PlanRecord(structure_digest(site, library, fingerprints, shared),
                      paper_digests(site, library, fingerprints) or [])


def split_outline(outline: list[Planned], previous: PlanRecord | None,
                  current: PlanRecord) -> tuple[list[Planned], list[Planned]]:
    """``(unchanged, stale)``: the pages of ``outline`` whose context cannot differ from the
    previous build's (same structure, no source paper changed), and all the others (in plan order).

    Everything is stale without a previous record, when either structure digest is None or they
    differ, or when a paper digest is missing.
    """
    if (previous is None or current.structure is None or previous.structure != current.structure
            or not current.papers):
        return [], list(outline)
    old, new = previous.papers, current.papers
    changed = {i for i, digest in enumerate(new) if i >= len(old) or old[i] != digest}
    unchanged: list[Planned] = []
    stale: list[Planned] = []
    for planned in outline:
        sources = planned.sources
        if sources is None or not changed.isdisjoint(sources):
            stale.append(planned)
        else:
            unchanged.append(planned)
    return unchanged, stale


def check_mode() -> bool:
    """Whether ``SITE_BUILDER_CHECK_REPLAN`` asks to verify every page kept by :func:`split_outline`."""
    return os.environ.get("SITE_BUILDER_CHECK_REPLAN", "") not in ("", "0")
