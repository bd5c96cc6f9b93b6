"""The plan of pages: which template renders which view to which path.

Every page but ``search.html`` gets only the views of :mod:`site_builder.pages.views`
in its context (plus ``config`` for all pages, see :func:`common_context`), so
that what it shows is a function of its :class:`Page` and the config alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache, partial
from itertools import accumulate, chain, repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Callable, NamedTuple

from ..model import urls
from ..model.site import Paper, Site
from .views import AuthorLink, TermEntry, TermView, Views, track_chart

if TYPE_CHECKING:
    from ..model.library import Library


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


class Planned(NamedTuple):
    """One page of the plan before its context is built: its ``path``; ``sources``, the papers whose data
    its context shows, in the order and places it shows them, as :func:`paper_identity` (``""`` for an
    empty place; ``None`` for a page that is always built: ``search.html``); and ``make``, which builds
    the :class:`Page` (views are shared: any order)."""

    path: str
    sources: tuple[str, ...] | None
    make: Callable[[], Page]


def plan_pages(site: Site, library: "Library | None" = None) -> list[Page]:
    """Every HTML page of ``site``: home, search, the paper map, one per venue, per track and per paper;
    with a ``library`` (default: one without notes), also the reading-list pages
    (:func:`plan_library_pages`)."""
    return [planned.make() for planned in outline_pages(site, library)]


@lru_cache(maxsize=1024)
def _source_tag(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def paper_identity(paper: Paper) -> str:
    """A paper's identity for :mod:`site_builder.pages.replan`: where it was read (its list file's path, as a
    digest, and its line). An edited abstract changes a paper's id and an edited title its place in the
    site's order, neither this; ``""`` stands for "no paper" (a missing neighbour)."""
    return f"{_source_tag(paper.source)}:{paper.line}"


def identities_of(papers) -> list[str]:
    """:func:`paper_identity` of each of ``papers``, by maps in C (~10,000 papers). The answer for a
    tuple (``Site.papers``: a tuple of frozen papers, which cannot change) is kept for the next call with
    the same tuple (:func:`outline_pages` and :func:`site_builder.pages.replan.paper_digests` both need it)."""
    kept = _IDENTITIES_OF
    if kept and kept[0] is papers:
        return kept[1]
    identities = list(map("{}:{}".format, map(_source_tag, map(attrgetter("source"), papers)),
                          map(attrgetter("line"), papers)))
    if type(papers) is tuple:
        _IDENTITIES_OF[:] = [papers, identities]
    return identities


#: ``[papers, identities]`` of the last :func:`identities_of` of a tuple (one slot).
_IDENTITIES_OF: list = []


class _Identities:
    """:func:`paper_identity` of papers, computed once per paper (looked up by the paper object:
    the site's papers live through the build; None, a missing neighbour, is ``""``)."""

    def __init__(self, papers) -> None:
        self._of = of = dict(zip(map(id, papers), identities_of(papers)))
        of[id(None)] = ""
        self._get = of.__getitem__

    def __call__(self, papers) -> tuple[str, ...]:
        return tuple(map(self._get, map(id, papers)))

    def each(self, groups) -> list[tuple[str, ...]]:
        """``[self(papers) for papers in groups]`` (``groups``: an iterable of sequences of papers), by
        maps in C: the identities of all groups in one tuple, then cut into one slice per group (no Python
        code runs per group: ~28,800 pages per build)."""
        groups = list(groups)
        flat = tuple(map(self._get, map(id, chain.from_iterable(groups))))
        ends = list(accumulate(map(len, groups)))
        return list(map(flat.__getitem__, map(slice, chain((0,), ends), ends)))


def _make(kind: type, fields):
    """``[kind(*f) for f in fields]`` for a :class:`~typing.NamedTuple` ``kind`` (its ``__new__`` is
    ``tuple.__new__`` of the fields: made in C, without the Python ``__new__`` that NamedTuple writes)."""
    return list(map(tuple.__new__, repeat(kind), fields))


def outline_pages(site: Site, library: "Library | None" = None) -> list[Planned]:
    """The pages of :func:`plan_pages`, in the same order, as :class:`Planned` (cheap: no view is built
    until ``make`` is called). A page's context is a function of the site's structure (see
    :func:`site_builder.pages.replan.structure_digest`) and of the data of its ``sources``' papers alone.

    Each venue's paper pages are made by maps in C (~10,000 pages per build): ``sources`` of a paper page
    are the paper, its previous and next paper in its venue and in its track (None at either end, and
    for both when it has no track) and its related papers."""
    if library is None:
        from ..model.library import Library
        library = Library(site)
    views = Views(site, library)
    _ids = _Identities(site.papers)
    everyone = _ids(site.papers)
    pages = [Planned(urls.HOME, (), lambda: Page(urls.HOME, "home.html", site.config.title, views.home())),
             Planned(urls.SEARCH, None, lambda: Page(urls.SEARCH, "search.html", "Search",
                                                     {"site": site, "library": library,
                                                      "notes": views.search_notes()})),
             # The map's layout and clusters depend on every paper's text: its sources are all the papers.
             Planned(urls.MAP, everyone, lambda: Page(urls.MAP, "map.html", "Map of the papers",
                                                     {"topics": views.map_topics(), "paper_count": len(site.papers)}))]
    by_venue: dict = {}
    by_track: dict = {}
    for paper in site.papers:
        by_venue.setdefault(paper.venue, []).append(paper)
        if paper.track is not None:
            by_track.setdefault(paper.track, []).append(paper)
    no_track = (None, None)
    for venue in site.venues:
        papers = by_venue.get(venue, [])
        tracks = site.tracks_of(venue)
        # its topics are the map's clusters, which depend on every paper's text: every paper is a source too
        pages.append(Planned(venue.path, _ids(papers) + everyone, _venue_page(views, venue, papers, tuple(tracks))))
        if not papers:
            continue
        previous, following = [None, *papers[:-1]], [*papers[1:], None]
        in_track: dict = {}  # paper id -> (previous, next) in its track
        for track in tracks:
            in_track.update(_neighbours(by_track.get(track, [])))
        track_previous, track_next = zip(*map(in_track.get, map(attrgetter("id"), papers), repeat(no_track)))
        shown = map(tuple, map(chain, zip(papers, previous, following, track_previous, track_next),
                               map(library.related, papers)))
        makes = map(partial, repeat(_paper_page), repeat(views), papers, previous, following, track_previous,
                    track_next)
        pages += _make(Planned, zip(map(attrgetter("path"), papers), _ids.each(shown), makes))
    for track in site.tracks:
        papers = by_track.get(track, [])
        pages.append(Planned(track.path, _ids(papers), _track_page(views, track, papers)))
    pages += outline_library_pages(library, views, _ids)
    return pages


def _venue_page(views: Views, venue, papers, tracks) -> Callable[[], Page]:
    def make() -> Page:
        items = views.items(papers)
        return Page(venue.path, "venue.html", venue.label,
                    {"venue": venue, "papers": items, "tracks": tracks, "chart": track_chart(items, tracks, views.words("Other papers")),
                     "topics": views.topics(papers)})
    return make


def _paper_page(views: Views, paper, previous, following, track_previous, track_next) -> Page:
    """The page of ``paper`` (made by ``Planned.make``, a :func:`functools.partial` of this: cheaper
    to create for every paper than a closure)."""
    return Page(paper.path, "paper.html", paper.title_text,
                views.paper_context(paper, previous, following, track_previous, track_next))


def _track_page(views: Views, track, papers) -> Callable[[], Page]:
    return lambda: Page(track.path, "track.html", f"{track.label} · {track.venue.label}",
                        {"track": track, "venue": track.venue, "papers": views.items(papers)})


#: Above this many authors the A–Z index is split into one page per letter.
AUTHORS_PER_INDEX_PAGE = 2000


def plan_library_pages(library: "Library", views: Views) -> list[Page]:
    """The reading-list pages: author index and pages, tag and keyword indexes and pages, "My list".

    The author index is one page, or, with more than :data:`AUTHORS_PER_INDEX_PAGE`
    authors, a page of letters and one page per letter; it links an author without a page of their own
    (:attr:`~site_builder.model.authors.Author.path` None) to the search for their name (not to their paper,
    whose path changes with its abstract: these pages show no paper's data, so a rebuild keeps them while
    the site's structure is unchanged, ``replan.py``).
    """
    return [planned.make() for planned in outline_library_pages(library, views)]


def outline_library_pages(library: "Library", views: Views, identities=None) -> list[Planned]:
    """The pages of :func:`plan_library_pages` as :class:`Planned` (see :func:`outline_pages`)."""
    _ids = identities if identities is not None else _Identities(library.site.papers)
    count = len(library.authors)
    split = count > AUTHORS_PER_INDEX_PAGE
    by_letter = library.authors.by_letter()
    made: list = []

    def groups() -> list:
        if not made:
            made.append([(letter, tuple(AuthorLink(a.name, a.path or urls.author_search_path(a.name), len(a.papers))
                                        for a in authors))
                         for letter, authors in by_letter])
        return made[0]

    pages = [Planned(urls.AUTHORS, (), lambda: Page(urls.AUTHORS, "authors.html", "Authors",
                                                    {"groups": tuple(groups()), "split": split, "letter": None,
                                                     "author_count": count})),
             Planned(urls.STARS, (), lambda: Page(urls.STARS, "stars.html", "My list"))]
    if split:
        for number, (letter, _) in enumerate(by_letter):
            path = urls.author_letter_path(letter)
            pages.append(Planned(path, (), _letter_page(groups, number, letter, path, count)))
    authors = [author for author in library.authors.authors if author.path]
    pages += _make(Planned, zip(map(attrgetter("path"), authors), _ids.each(map(attrgetter("papers"), authors)),
                                map(partial, repeat(_author_page), repeat(views), authors)))
    status_counts = library.status_counts() if library.notes else None
    for kind, terms, index in (("tag", library.tags, urls.TAGS), ("keyword", library.keywords, urls.KEYWORDS)):
        title = "Tags" if kind == "tag" else "Keywords"
        pages.append(Planned(index, (), _terms_page(index, kind, title, terms,
                                                    status_counts if kind == "tag" else None)))
        pages += [Planned(t.path, _ids(t.papers), _term_page(views, t, kind, index, title)) for t in terms]
    return pages


def _letter_page(groups, number: int, letter: str, path: str, count: int) -> Callable[[], Page]:
    def make() -> Page:
        found, authors = groups()[number]
        assert found == letter
        return Page(path, "authors.html", f"Authors: {letter}",
                    {"groups": ((letter, authors),), "split": False, "letter": letter, "author_count": count})
    return make


def _author_page(views: Views, author) -> Page:
    """The page of ``author`` (``Planned.make`` is a :func:`functools.partial` of this)."""
    return Page(author.path, "author.html", author.name, {"author": views.author(author)})


def _terms_page(index: str, kind: str, title: str, terms, status_counts) -> Callable[[], Page]:
    return lambda: Page(index, "terms.html", title,
                        {"kind": kind, "terms": tuple(TermEntry(t.label, t.path, len(t.papers)) for t in terms),
                         "status_counts": status_counts})


def _term_page(views: Views, term, kind: str, index: str, title: str) -> Callable[[], Page]:
    return lambda: Page(term.path, "term.html", f"{title[:-1]}: {term.label}",
                        {"term": TermView(term.label, views.items(term.papers)), "kind": kind, "index_path": index,
                         "index_title": title})
