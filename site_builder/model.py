"""The site model: venues, tracks and papers, computed once from the read entries.

Identity follows Pelican: venues and tracks are value objects whose equality,
hashing and order come from their slug, so duplicates merge and lists sort the
same everywhere. Output paths come from :mod:`site_builder.urls`.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property

from . import urls
from .config import SiteConfig
from .diagnostics import Diagnostics
from .reader import Entry
from .render import RenderedAbstract, render_abstract, render_inline
from .titles import derive_title

ID_LENGTH = 10
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
    """A track within a venue, as an area path, e.g. ``("Theory", "Learning Theory")``."""

    venue: Venue
    slug: str = field(init=False)
    parts: tuple[str, ...] = field(compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "slug", urls.make_slug(" ".join(self.parts), "track"))

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
        """Links to code hosts found in the abstract."""
        return self.rendered.code_urls

    def record(self) -> dict:
        """The paper as a ``papers.json`` record (JSON-ready, keys as documented in README)."""
        return {
            "id": self.id, "slug": self.slug, "title": self.title, "title_derived": self.title_derived,
            "authors": list(self.authors), "et_al": self.et_al, "venue": self.venue.name,
            "year": self.venue.year, "track": self.track.label if self.track else None,
            "abstract": self.abstract, "code_urls": list(self.code_urls), "url": self.path,
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


def paper_id(abstract: str) -> str:
    """Stable id of a paper: the first 10 hex digits of SHA-1 over its normalised abstract.

    Normalisation (NFKC, case-folded, letters and digits only) makes the id
    survive re-wrapping, spacing and quoting changes of the same abstract.
    """
    norm = re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", abstract).casefold())
    return hashlib.sha1(norm.encode("utf-8")).hexdigest()[:ID_LENGTH]


def _apply_override(entry: Entry, override: dict) -> tuple[dict, bool]:
    fields = {
        "title": entry.title, "authors": entry.authors, "track": entry.track, "abstract": entry.abstract,
        "slug": None, "venue": entry.venue, "year": entry.year,
    }
    fields.update({k: (tuple(v) if isinstance(v, list) else v) for k, v in override.items() if k in OVERRIDABLE})
    return fields, "title" in override


def make_paper(entry: Entry, override: dict, diagnostics: Diagnostics, memo=None, pid: str | None = None) -> Paper | None:
    """Build the :class:`Paper` of ``entry`` with the curator's ``override`` applied.

    ``memo`` (e.g. a :class:`~site_builder.cache.BuildCache`) provides
    ``render_abstract``, ``derive_title``, ``render_inline`` and ``paper_id``
    with the same results as the functions of those names, possibly from a
    cache; ``pid`` is the entry's :func:`paper_id` when already known.
    Returns None (with an error diagnostic) when no venue and year are known.
    """
    pid = pid or paper_id(entry.abstract)
    f, titled = _apply_override(entry, override)
    if not f["venue"] or not f["year"]:
        diagnostics.error(entry.path, entry.line, "paper has no venue and year (heading names none, config gives none)")
        return None
    venue = Venue(f["venue"], int(f["year"]))
    derived = not f["title"]
    title = f["title"] or (memo.derive_title if memo else derive_title)(f["abstract"])
    rendered = (memo.render_abstract if memo else render_abstract)(f["abstract"])
    for message in rendered.warnings:
        diagnostics.warning(entry.path, entry.line, message)
    slug = f["slug"] or f"{urls.make_slug(title, 'paper', 50)}-{pid[:6]}"
    track = Track(venue, tuple(f["track"])) if f["track"] else None
    paper = Paper(pid, slug, title, derived and not titled, tuple(f["authors"]), entry.et_al, venue, track,
                  f["abstract"], rendered, entry.path, entry.line)
    if memo is not None:  # fill the cached properties title_html and title_text from the memo
        paper.__dict__["title_html"], paper.__dict__["title_text"] = memo.render_inline(title)
    return paper


def _sort_key(paper: Paper) -> tuple:
    return (paper.venue.slug, paper.track.label.casefold() if paper.track else "", paper.title.casefold(), paper.id)


def build_site(entries: list[Entry], overrides: dict[str, dict], config: SiteConfig,
               diagnostics: Diagnostics, memo=None, progress=None) -> Site:
    """Compute the site model from ``entries`` (in any order; the result is ordered).

    The same abstract listed twice is one paper, reported as a warning naming
    both places. An override keyed by an unknown id is a warning. ``memo``:
    see :func:`make_paper`; ``progress`` is advanced once per entry.
    """
    papers: dict[str, Paper] = {}
    for entry in sorted(entries, key=lambda e: (e.path, e.line)):
        if progress is not None:
            progress.advance()
        pid = (memo.paper_id if memo else paper_id)(entry.abstract)
        if pid in papers:
            first = papers[pid]
            diagnostics.warning(entry.path, entry.line, f"duplicate of the paper at {first.source}:{first.line}; listed once")
            continue
        paper = make_paper(entry, overrides.get(pid, {}), diagnostics, memo, pid)
        if paper is not None:
            papers[pid] = paper
    for pid in sorted(set(overrides) - set(papers)):
        diagnostics.warning(overrides[pid].get("__source__", "overrides"), 0, f"override for unknown paper id {pid!r}")
    ordered = tuple(sorted(papers.values(), key=_sort_key))
    venues = tuple(sorted({p.venue for p in ordered}))
    tracks = tuple(sorted({p.track for p in ordered if p.track}))
    return Site(config, ordered, venues, tracks)
