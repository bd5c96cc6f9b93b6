"""The site model: venues, tracks and papers, computed once from the read entries.

Identity follows Pelican: venues and tracks are value objects whose equality,
hashing and order come from their slug, so duplicates merge and lists sort the
same everywhere. Output paths come from :mod:`site_builder.model.urls`.
"""

from __future__ import annotations

import gc
import hashlib
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, fields
from functools import cached_property
from operator import attrgetter

from . import urls
from ..config import SiteConfig
from ..diagnostics import Diagnostics
from ..read.duplicates import paper_id
from ..read.plaintext import Entry
from ..text.render import RenderedAbstract, render_abstract, render_inline
from ..text.titles import derive_title

OVERRIDABLE = ("title", "authors", "track", "abstract", "slug", "venue", "year")


@dataclass(frozen=True, order=True)
class Venue:
    """A conference in one year, e.g. ICLR 2025; identity is its slug ``iclr-2025``."""

    slug: str = field(init=False, repr=False)
    name: str = field(compare=False)
    year: int = field(compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "slug", urls.make_slug(f"{self.name} {self.year}", "venue"))

    @property
    def label(self) -> str:
        """Display name, e.g. ``ICLR 2025``."""
        return f"{self.name} {self.year}"

    @property
    def path(self) -> str:
        """Site-root relative path of the venue page."""
        return urls.venue_path(self.slug)


@dataclass(frozen=True, order=True)
class Track:
    """A track within a venue, as an area path, e.g. ``("Theory", "Learning Theory")``.

    Identity is the venue and the parts; ``slug`` is unique within the venue
    (see :func:`unique_slugs`).
    """

    venue: Venue
    parts: tuple[str, ...]
    slug: str = field(compare=False)

    @property
    def label(self) -> str:
        """Display name, e.g. ``Theory · Learning Theory``."""
        return " · ".join(self.parts)

    @property
    def area(self) -> str:
        """The top-level area, e.g. ``Theory``."""
        return self.parts[0]

    @property
    def path(self) -> str:
        """Site-root relative path of the track page."""
        return urls.track_path(self.venue.slug, self.slug)


@dataclass(frozen=True)
class Paper:
    """One paper of the site.

    ``id`` is stable: a hash of the normalised abstract (see :func:`paper_id`),
    so adding lists or papers never changes it. ``abstract`` is the source
    text; ``rendered`` its HTML and plain text. ``source``/``line`` name where
    it was read.
    """

    id: str
    slug: str
    title: str
    title_derived: bool
    authors: tuple[str, ...]
    et_al: bool
    venue: Venue
    track: Track | None
    abstract: str
    rendered: RenderedAbstract
    source: str
    line: int
    keywords: tuple[str, ...] = ()  # as the list gives them (reader.Entry.keywords)
    doi: str = ""  # bare DOI (``10.…``) when the list or its reference gives one
    landing_url: str = ""  # the paper's landing page (proceedings, OpenReview, arXiv) when given
    given_code_urls: tuple[str, ...] = ()  # code repositories the list names beside the abstract's links
    status: str = ""  # how the venue presents it, as the list says: Oral, Spotlight, Poster, Submitted (OpenReview)

    @property
    def path(self) -> str:
        """Site-root relative path of the paper page."""
        return urls.paper_path(self.slug)

    @cached_property
    def title_html(self) -> str:
        """The title rendered inline (math as MathML), safe HTML."""
        return render_inline(self.title)[0]

    @cached_property
    def title_text(self) -> str:
        """The title as plain text."""
        return render_inline(self.title)[1]

    @property
    def code_urls(self) -> tuple[str, ...]:
        """Links to code: those the list gives (:attr:`given_code_urls`), then those found in the abstract,
        each once, in order."""
        if not self.given_code_urls:
            return self.rendered.code_urls
        return tuple(dict.fromkeys((*self.given_code_urls, *self.rendered.code_urls)))

    def record(self) -> dict:
        """The paper as a ``papers.json`` record (JSON-ready, keys as documented in README)."""
        return {
            "id": self.id, "slug": self.slug, "title": self.title, "title_derived": self.title_derived,
            "authors": list(self.authors), "et_al": self.et_al, "venue": self.venue.name,
            "year": self.venue.year, "track": self.track.label if self.track else None,
            "abstract": self.abstract, "code_urls": list(self.code_urls), "url": self.path,
            "keywords": list(self.keywords), "doi": self.doi or None, "landing_url": self.landing_url or None,
            "status": self.status or None,
        }


@dataclass(frozen=True)
class Site:
    """The whole model: papers in display order, venues and tracks sorted by slug."""

    config: SiteConfig
    papers: tuple[Paper, ...]
    venues: tuple[Venue, ...]
    tracks: tuple[Track, ...]

    def papers_of(self, venue: Venue) -> list[Paper]:
        """Papers of ``venue`` in display order."""
        return [p for p in self.papers if p.venue == venue]

    def papers_in(self, track: Track) -> list[Paper]:
        """Papers of ``track`` in display order."""
        return [p for p in self.papers if p.track == track]

    def tracks_of(self, venue: Venue) -> list[Track]:
        """Tracks of ``venue`` sorted by label."""
        return sorted((t for t in self.tracks if t.venue == venue), key=lambda t: t.label.casefold())

    def abstracts_refs(self) -> dict[str, str]:
        """``{paper id: ref}``: what names the file holding each paper's abstract for list pages
        (:func:`urls.abstracts_ref`, by the paper's venue and the number of papers it has). The one rule both
        the list items (``pages/views.py``) and the files (``output/abstracts.py``) follow."""
        sizes = Counter(paper.venue for paper in self.papers)
        return {paper.id: urls.abstracts_ref(paper.venue.slug, paper.id, sizes[paper.venue])
                for paper in self.papers}




@dataclass(slots=True)
class _Draft:
    """An entry with the curator's override applied, before slugs are assigned."""

    entry: Entry
    id: str
    title: str | None
    authors: tuple[str, ...]
    track: tuple[str, ...]
    abstract: str
    slug: str | None
    venue: Venue


def _draft(entry: Entry, override: dict, diagnostics: Diagnostics, pid: str | None = None,
           venues: dict | None = None) -> _Draft | None:
    """Apply ``override`` to ``entry``; None (with an error diagnostic naming what is missing) when its venue or
    its year is not known."""
    if override:
        f = {"title": entry.title, "authors": entry.authors, "track": entry.track, "abstract": entry.abstract,
             "slug": None, "venue": entry.venue, "year": entry.year}
        f.update({k: (tuple(v) if isinstance(v, list) else v) for k, v in override.items() if k in OVERRIDABLE})
        title, authors, track, abstract, slug, venue_name, year = (f["title"], f["authors"], f["track"], f["abstract"],
                                                                   f["slug"], f["venue"], f["year"])
    else:  # most papers: the entry as read
        title, authors, track, abstract, slug, venue_name, year = (entry.title, entry.authors, entry.track,
                                                                   entry.abstract, None, entry.venue, entry.year)
    if not venue_name or not year:
        missing = " and ".join(name for name, value in (("venue", venue_name), ("year", year)) if not value)
        diagnostics.error(entry.path, entry.line, f"paper has no {missing} (the list names none, the config gives none)")
        return None
    venue_key = (str(venue_name), int(year))
    venue = venues.get(venue_key) if venues is not None else None
    if venue is None:
        venue = Venue(*venue_key)
        if venues is not None:
            venues[venue_key] = venue
    return _Draft(entry, pid or paper_id(entry), title, tuple(authors), tuple(track), abstract, slug, venue)


def _same_name_key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _warn_namesakes(drafts: list[_Draft], diagnostics: Diagnostics) -> None:
    """A warning for each paper whose list gives the title and first author of a paper before it (in file and
    line order; case, spacing and Unicode forms ignored) with another abstract: two papers are never merged on a
    guess, but one may be another version of the other, which the curator should know of (found by the new-user
    passes)."""
    first: dict[tuple, _Draft] = {}
    for draft in drafts:
        if not draft.title or not draft.authors:
            continue
        other = first.setdefault((_same_name_key(draft.title), _same_name_key(draft.authors[0])), draft)
        if other is not draft:
            diagnostics.warning(draft.entry.path, draft.entry.line,
                                f"the same title and first author as the paper at {other.entry.path}:{other.entry.line}, "
                                "with another abstract; kept as two papers (if they are one, list it once)")


def unique_slugs(wanted: dict[object, str]) -> dict[object, str]:
    """Map each key to its wanted slug, made unique: every key whose slug collides gets ``-<hash>`` appended.

    The hash is the first 6 hex digits of SHA-1 over ``str(key)``, so the
    result does not depend on order and is the same in every build.
    """
    counts: dict[str, int] = {}
    for slug in wanted.values():
        counts[slug] = counts.get(slug, 0) + 1
    return {key: slug if counts[slug] == 1 else f"{slug}-{hashlib.sha1(str(key).encode()).hexdigest()[:6]}"
            for key, slug in wanted.items()}


def _tracks(drafts: list[_Draft]) -> dict[tuple, Track]:
    """One Track per (venue, parts) among ``drafts``, with slugs unique within each venue."""
    keys = sorted({(d.venue.slug, d.track): d.venue for d in drafts if d.track}.items())
    slugs = unique_slugs({key: f"{key[0]}/{urls.make_slug(' '.join(key[1]), 'track')}" for key, _ in keys})
    return {key: Track(venue, key[1], slugs[key].split("/", 1)[1]) for key, venue in keys}


def make_paper(draft: _Draft, slug: str, track: Track | None, title: str, diagnostics: Diagnostics,
               memo=None) -> Paper:
    """Build the :class:`Paper` of ``draft`` with its resolved ``slug``, ``track`` and ``title``.

    ``memo`` (e.g. a :class:`~site_builder.incremental.cache.BuildCache`) provides ``render_abstract`` and
    ``render_inline`` with the same results as the functions of those names, possibly from a cache.
    """
    rendered = (memo.render_abstract if memo else render_abstract)(draft.abstract)
    for message in rendered.warnings:
        diagnostics.warning(draft.entry.path, draft.entry.line, message)
    entry = draft.entry
    values = (draft.id, slug, title, not draft.title, draft.authors, entry.et_al, draft.venue, track,
              draft.abstract, rendered, entry.path, entry.line, tuple(entry.keywords), entry.doi or "",
              entry.url or "", tuple(entry.code_urls), entry.status or "")
    if memo is None:
        return Paper(*values)
    # The fields set as the dataclass's __init__ sets them (it only assigns: no __post_init__), at a third
    # of the cost of a frozen __init__; and the cached properties title_html and title_text from the memo.
    paper = _new_paper(Paper)
    data = paper.__dict__
    data.update(zip(_PAPER_FIELDS, values))
    data["title_html"], data["title_text"] = memo.render_inline(title)
    return paper


_PAPER_FIELDS = tuple(f.name for f in fields(Paper))
_new_paper = object.__new__


def _sort_key(paper: Paper) -> tuple:
    return (paper.venue.slug, paper.track.label.casefold() if paper.track else "", paper.title.casefold(), paper.id)


def _make_papers(drafts: dict[str, _Draft], slugs: dict[str, str], tracks: dict[tuple, Track],
                 titles: dict[str, str], diagnostics: Diagnostics, memo) -> list[Paper]:
    """:func:`make_paper` of each draft (by id), in site order (:func:`_sort_key`), the rendering warnings
    reported in the order of the papers' ids. With a ``memo``, the fields are set as the dataclass's
    ``__init__`` sets them (it only assigns), and the papers are ordered without one key tuple each: grouped
    by venue slug and folded track label (each track's label folded once), the groups sorted, and each
    group sorted by ``(folded title, id)`` (ids are unique, so the same order as :func:`_sort_key`)."""
    if memo is None:
        papers = [make_paper(d, slugs[pid], tracks.get((d.venue.slug, d.track)), titles[pid], diagnostics)
                  for pid, d in sorted(drafts.items())]
        return sorted(papers, key=_sort_key)
    render_abstract, render_inline, new = memo.render_abstract, memo.render_inline, _new_paper
    folded = {key: track.label.casefold() for key, track in tracks.items()}
    groups: dict[tuple[str, str], list] = {}
    warned = []
    for pid, draft in drafts.items():
        entry, venue = draft.entry, draft.venue
        rendered = render_abstract(draft.abstract)
        if rendered.warnings:
            warned.append((pid, entry, rendered.warnings))
        title = titles[pid]
        track_key = (venue.slug, draft.track)
        paper = new(Paper)
        paper.__dict__.update(zip(_MEMO_FIELDS, (
            pid, slugs[pid], title, not draft.title, draft.authors, entry.et_al, venue, tracks.get(track_key),
            draft.abstract, rendered, entry.path, entry.line, tuple(entry.keywords), entry.doi or "",
            entry.url or "", tuple(entry.code_urls), entry.status or "", *render_inline(title))))
        group = (venue.slug, folded.get(track_key, ""))
        members = groups.get(group)
        if members is None:
            members = groups[group] = []
        members.append((title.casefold(), pid, paper))  # ids are unique: papers themselves never compared
    for pid, entry, warnings in sorted(warned, key=_first):
        for message in warnings:
            diagnostics.warning(entry.path, entry.line, message)
    ordered: list[Paper] = []
    for group in sorted(groups):
        members = groups[group]
        members.sort()
        ordered.extend([paper for _, _, paper in members])
    return ordered


#: The fields :func:`_make_papers` sets with a memo: the dataclass's, then the cached properties.
_MEMO_FIELDS = (*_PAPER_FIELDS, "title_html", "title_text")


def _first(pair: tuple):
    return pair[0]


def build_site(entries: list[Entry], overrides: dict[str, dict], config: SiteConfig,
               diagnostics: Diagnostics, memo=None, progress=None) -> Site:
    """Compute the site model from ``entries`` (in any order; the result is ordered).

    The same abstract listed twice is one paper, reported as a warning naming
    both places. An override keyed by an unknown id is a warning. ``memo``
    provides ``derive_title`` (and see :func:`make_paper`) from a cache;
    ``progress`` (a :class:`~site_builder.progress.Progress`) is advanced once per entry.
    """
    paused = gc.isenabled()
    if paused:  # ~10^5 objects made and none freed: the collector would only traverse the lists read so far
        gc.disable()
    try:
        return _build_site(entries, overrides, config, diagnostics, memo, progress)
    finally:
        if paused:
            gc.enable()


def _build_site(entries: list[Entry], overrides: dict[str, dict], config: SiteConfig,
                diagnostics: Diagnostics, memo, progress) -> Site:
    drafts: dict[str, _Draft] = {}
    venues: dict[tuple, Venue] = {}  # one Venue object per (name, year): fewer slugs to compute
    id_of = memo.paper_id if memo is not None else paper_id
    for entry in sorted(entries, key=_PLACE):
        if progress is not None:
            progress.advance()
        pid = id_of(entry)
        if pid in drafts:
            first = drafts[pid].entry
            diagnostics.warning(entry.path, entry.line, f"duplicate of the paper at {first.path}:{first.line}; listed once")
            continue
        draft = _draft(entry, overrides.get(pid, _NO_OVERRIDE), diagnostics, pid, venues)
        if draft is not None:
            drafts[pid] = draft
    for pid in sorted(set(overrides) - set(drafts)):
        diagnostics.warning(overrides[pid].get("__source__", "overrides"), overrides[pid].get("__line__", 0),
                            f"override for unknown paper id {pid!r}")
    _warn_namesakes(list(drafts.values()), diagnostics)
    tracks = _tracks(list(drafts.values()))
    derive, make_slug = memo.derive_title if memo else derive_title, urls.make_slug
    titles: dict[str, str] = {}
    wanted: dict[str, str] = {}
    for pid, d in drafts.items():
        title = titles[pid] = d.title or derive(d.abstract)
        wanted[pid] = make_slug(d.slug, "paper", 60) if d.slug else f"{make_slug(title, 'paper', 50)}-{pid[:6]}"
    ordered = tuple(_make_papers(drafts, unique_slugs(wanted), tracks, titles, diagnostics, memo))
    return Site(config, ordered, _venues(ordered, venues), tuple(sorted(tracks.values())))


#: The order :func:`_build_site` takes entries in: by file, then line.
_PLACE = attrgetter("path", "line")
#: The override of a paper that has none (read, never changed).
_NO_OVERRIDE: dict = {}


def _venues(papers: tuple[Paper, ...], made: dict[tuple, Venue]) -> tuple[Venue, ...]:
    """The venues of ``papers`` sorted by slug, one per slug. ``made``: the Venue objects :func:`_draft` made for
    them (every paper's venue is one); when their slugs differ, they are that set without looking at each paper
    (else the first paper's venue of each slug, as a set of all the papers' venues keeps it)."""
    if len({venue.slug for venue in made.values()}) == len(made):
        return tuple(sorted(made.values()))
    return tuple(sorted({p.venue for p in papers}))
