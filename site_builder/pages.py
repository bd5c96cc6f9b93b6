"""The plan of pages: which template renders which view to which path.

Every page but ``search.html`` gets only the views of :mod:`site_builder.views`
in its context (plus ``config`` for all pages, see :func:`common_context`), so
that what it shows is a function of its :class:`Page` and the config alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import urls
from .model import Paper, Site
from .views import AuthorLink, TermEntry, TermView, Views

if TYPE_CHECKING:
    from .library import Library


@dataclass(frozen=True)
class Page:
    """One HTML page to write: its site-root relative ``path``, ``template`` name and context."""

    path: str
    template: str
    title: str
    context: dict = field(default_factory=dict)


def _neighbours(papers: list[Paper]) -> dict[str, tuple[Paper | None, Paper | None]]:
    """Previous and next paper of each paper id within ``papers`` (display order)."""
    return {
        p.id: (papers[i - 1] if i else None, papers[i + 1] if i + 1 < len(papers) else None)
        for i, p in enumerate(papers)
    }


def common_context(site: Site) -> dict:
    """What every page template gets besides its page: ``{"config": site.config}``."""
    return {"config": site.config}


def plan_pages(site: Site, library: "Library | None" = None) -> list[Page]:
    """Every HTML page of ``site``: home, search, one per venue, per track and per paper;
    with a ``library`` (default: one without notes), also the reading-list pages
    (:func:`plan_library_pages`)."""
    if library is None:
        from .library import Library
        library = Library(site)
    views = Views(site, library)
    pages = [Page(urls.HOME, "home.html", site.config.title, views.home()),
             Page(urls.SEARCH, "search.html", "Search", {"site": site, "library": library})]
    by_venue: dict = {}
    by_track: dict = {}
    for paper in site.papers:
        by_venue.setdefault(paper.venue, []).append(paper)
        if paper.track is not None:
            by_track.setdefault(paper.track, []).append(paper)
    for venue in site.venues:
        papers = by_venue.get(venue, [])
        tracks = site.tracks_of(venue)
        pages.append(Page(venue.path, "venue.html", venue.label,
                          {"venue": venue, "papers": views.items(papers), "tracks": tuple(tracks)}))
        neighbours = _neighbours(papers)
        in_track = {}
        for track in tracks:
            in_track.update(_neighbours(by_track.get(track, [])))
        for paper in papers:
            previous, following = neighbours[paper.id]
            track_previous, track_next = in_track.get(paper.id, (None, None))
            pages.append(Page(paper.path, "paper.html", paper.title_text,
                              views.paper_context(paper, previous, following, track_previous, track_next)))
    for track in site.tracks:
        pages.append(Page(track.path, "track.html", f"{track.label} · {track.venue.label}",
                          {"track": track, "venue": track.venue, "papers": views.items(by_track.get(track, []))}))
    pages += plan_library_pages(library, views)
    return pages


#: Above this many authors the A–Z index is split into one page per letter.
AUTHORS_PER_INDEX_PAGE = 2000


def plan_library_pages(library: "Library", views: Views) -> list[Page]:
    """The reading-list pages: author index and pages, tag and keyword indexes and pages, "My list".

    The author index is one page, or, with more than :data:`AUTHORS_PER_INDEX_PAGE`
    authors, a page of letters and one page per letter.
    """
    groups = [(letter, tuple(AuthorLink(a.name, a.path, len(a.papers)) for a in authors))
              for letter, authors in library.authors.by_letter()]
    split = len(library.authors) > AUTHORS_PER_INDEX_PAGE
    count = len(library.authors)
    pages = [Page(urls.AUTHORS, "authors.html", "Authors",
                  {"groups": tuple(groups), "split": split, "letter": None, "author_count": count}),
             Page(urls.STARS, "stars.html", "My list")]
    if split:
        pages += [Page(urls.author_letter_path(letter), "authors.html", f"Authors: {letter}",
                       {"groups": ((letter, authors),), "split": False, "letter": letter, "author_count": count})
                  for letter, authors in groups]
    pages += [Page(a.path, "author.html", a.name, {"author": views.author(a)}) for a in library.authors.authors]
    status_counts = library.status_counts() if library.notes else None
    for kind, terms, index in (("tag", library.tags, urls.TAGS), ("keyword", library.keywords, urls.KEYWORDS)):
        title = "Tags" if kind == "tag" else "Keywords"
        pages.append(Page(index, "terms.html", title,
                          {"kind": kind, "terms": tuple(TermEntry(t.label, t.path, len(t.papers)) for t in terms),
                           "status_counts": status_counts if kind == "tag" else None}))
        pages += [Page(t.path, "term.html", f"{title[:-1]}: {t.label}",
                       {"term": TermView(t.label, views.items(t.papers)), "kind": kind, "index_path": index,
                        "index_title": title}) for t in terms]
    return pages
