"""The plan of pages: which template renders which model object to which path."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import urls
from .model import Paper, Site


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


def plan_pages(site: Site) -> list[Page]:
    """Every HTML page of ``site``: home, search, one per venue, per track and per paper."""
    pages = [Page(urls.HOME, "home.html", site.config.title), Page(urls.SEARCH, "search.html", "Search")]
    for venue in site.venues:
        papers = site.papers_of(venue)
        pages.append(Page(venue.path, "venue.html", venue.label,
                          {"venue": venue, "papers": papers, "tracks": site.tracks_of(venue)}))
        neighbours = _neighbours(papers)
        for paper in papers:
            previous, following = neighbours[paper.id]
            pages.append(Page(paper.path, "paper.html", paper.title_text,
                              {"paper": paper, "previous": previous, "next": following}))
    for track in site.tracks:
        pages.append(Page(track.path, "track.html", f"{track.label} · {track.venue.label}",
                          {"track": track, "venue": track.venue, "papers": site.papers_in(track)}))
    return pages
