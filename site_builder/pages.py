"""The plan of pages: which template renders which model object to which path."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import urls
from .model import Paper, Site

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


def plan_pages(site: Site, library: "Library | None" = None) -> list[Page]:
    """Every HTML page of ``site``: home, search, one per venue, per track and per paper;
    with a ``library``, also the reading-list pages (:func:`plan_library_pages`)."""
    pages = [Page(urls.HOME, "home.html", site.config.title), Page(urls.SEARCH, "search.html", "Search")]
    for venue in site.venues:
        papers = site.papers_of(venue)
        pages.append(Page(venue.path, "venue.html", venue.label,
                          {"venue": venue, "papers": papers, "tracks": site.tracks_of(venue)}))
        neighbours = _neighbours(papers)
        in_track = {}
        for track in site.tracks_of(venue):
            in_track.update(_neighbours(site.papers_in(track)))
        for paper in papers:
            previous, following = neighbours[paper.id]
            track_previous, track_next = in_track.get(paper.id, (None, None))
            pages.append(Page(paper.path, "paper.html", paper.title_text,
                              {"paper": paper, "previous": previous, "next": following,
                               "track_previous": track_previous, "track_next": track_next}))
    for track in site.tracks:
        pages.append(Page(track.path, "track.html", f"{track.label} · {track.venue.label}",
                          {"track": track, "venue": track.venue, "papers": site.papers_in(track)}))
    if library is not None:
        pages += plan_library_pages(library)
    return pages


#: Above this many authors the A–Z index is split into one page per letter.
AUTHORS_PER_INDEX_PAGE = 2000


def plan_library_pages(library: "Library") -> list[Page]:
    """The reading-list pages: author index and pages, tag and keyword indexes and pages, "My list".

    The author index is one page, or, with more than :data:`AUTHORS_PER_INDEX_PAGE`
    authors, a page of letters and one page per letter.
    """
    groups = library.authors.by_letter()
    split = len(library.authors) > AUTHORS_PER_INDEX_PAGE
    pages = [Page(urls.AUTHORS, "authors.html", "Authors", {"groups": groups, "split": split, "letter": None}),
             Page(urls.STARS, "stars.html", "My list")]
    if split:
        pages += [Page(urls.author_letter_path(letter), "authors.html", f"Authors: {letter}",
                       {"groups": [(letter, authors)], "split": False, "letter": letter}) for letter, authors in groups]
    pages += [Page(a.path, "author.html", a.name, {"author": a}) for a in library.authors.authors]
    for kind, terms, index in (("tag", library.tags, urls.TAGS), ("keyword", library.keywords, urls.KEYWORDS)):
        title = "Tags" if kind == "tag" else "Keywords"
        pages.append(Page(index, "terms.html", title, {"kind": kind, "terms": terms}))
        pages += [Page(t.path, "term.html", f"{title[:-1]}: {t.label}",
                       {"term": t, "kind": kind, "index_path": index, "index_title": title}) for t in terms]
    return pages
