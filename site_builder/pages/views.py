"""What each page shows, as plain data: the only values a page template receives.

The page templates get no ``site`` and no ``library`` (only ``search.html``
still does, and is rendered on every build): each :class:`~site_builder.pages.plan.Page`
carries in its context the views built here, and every template also gets
``config`` (the :class:`~site_builder.config.SiteConfig`). Views are frozen
dataclasses of strings, numbers, tuples, model objects (:class:`Paper`,
:class:`Venue`, :class:`Track`, :class:`Note`) and other views; their
methods are pure functions of their fields. So a page's output is a function
of its :class:`Page` (path, template, title, context), ``config`` and the
code (templates and this package) alone, which is what makes the page key of
:mod:`site_builder.incremental.cache` complete (see there).

A paper shown in a list, as a neighbour or as a related paper is its
:class:`Item`, built once per paper; a list page's key therefore changes
only when what its items show changes (not, e.g., with an abstract).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from markupsafe import Markup

from ..i18n import N_, translations
from ..model import bibtex, citation, urls
from ..model.site import Paper, Track, Venue


@dataclass(frozen=True)
class TermLink:
    """A tag or keyword as a link: ``slug``, display ``label``, page ``path``."""

    slug: str
    label: str
    path: str


@dataclass(frozen=True)
class Item:
    """What a list (and a pager or a related-papers list) shows of one paper.

    ``authors`` are ``(name as written, author page path or None)``;
    ``noted`` whether the curator has a note on it, with its ``status``
    (``""`` for none), ``rating`` and ``tags``.
    """

    id: str
    path: str
    title_html: str
    title_text: str
    title_derived: bool
    authors: tuple[tuple[str, str | None], ...]
    et_al: bool
    venue: Venue
    track: Track | None
    noted: bool
    status: str
    rating: int | None
    tags: tuple[TermLink, ...]
    abstracts: str = ""  # names the file holding its abstract for list pages (urls.abstracts_ref); "": none


@dataclass(frozen=True)
class Citation:
    """A paper's citation data (BibTeX, Highwire tags, JSON-LD, the star button's data).

    The same values as :class:`~site_builder.model.library.Library`'s methods of
    those names (``tests/incremental/test_cache.py`` checks it), computed from the
    fields alone.
    """

    paper: Paper
    bib_key: str
    base_url: str

    def bibtex(self) -> str:
        """The BibTeX entry."""
        return self._bibtex

    @cached_property
    def _bibtex(self) -> str:  # shown twice on a paper page (the entry, the star button's data)
        return bibtex.entry(self.paper, self.bib_key, urls.absolute_url(self.base_url, self.paper.path))

    def highwire(self) -> list[tuple[str, str]]:
        """Highwire ``citation_*`` meta tags ``[(name, content)]``."""
        return citation.highwire_tags(self.paper, self.base_url)

    def json_ld(self) -> Markup:
        """ScholarlyArticle JSON-LD, escaped for a ``<script>`` element."""
        return Markup(citation.script_json(citation.json_ld(self.paper, self.base_url)))


@dataclass(frozen=True)
class AuthorLink:
    """An entry of the authors index: ``name``, ``path`` (the author's page, or for an author without one the
    search for their name, :func:`~site_builder.model.urls.author_search_path`) and number of papers ``count``."""

    name: str
    path: str
    count: int


@dataclass(frozen=True)
class AuthorView:
    """An author page: display ``name``, every other ``spellings`` (sorted) and the ``papers`` as items."""

    name: str
    spellings: tuple[str, ...]
    papers: tuple[Item, ...]

    @property
    def venues(self) -> list[Venue]:
        """The venues of the papers, in order without repeats."""
        return list(dict.fromkeys(item.venue for item in self.papers))

    def year_chart(self) -> "BarChart | None":
        """Papers per year (:func:`year_chart`), None when all are of one year."""
        return year_chart(self.papers)


@dataclass(frozen=True)
class TermView:
    """A tag or keyword page: display ``label`` and the ``papers`` as items."""

    label: str
    papers: tuple[Item, ...]


@dataclass(frozen=True)
class TermEntry:
    """An entry of the tags or keywords index: ``label``, page ``path``, number of papers ``count``."""

    label: str
    path: str
    count: int


@dataclass(frozen=True)
class TrackSummary:
    """A track on the home page and its number of papers."""

    track: Track
    count: int


@dataclass(frozen=True)
class VenueSummary:
    """A venue on the home page: its number of papers and its tracks (sorted by label)."""

    venue: Venue
    count: int
    tracks: tuple[TrackSummary, ...]


def tags_in(items) -> list[TermLink]:
    """The tags of ``items`` without repeats, in the order of the tags index (label case-folded, then slug)."""
    tags = {tag.slug: tag for item in items for tag in item.tags}
    return sorted(tags.values(), key=lambda t: (t.label.casefold(), t.slug))


class Views:
    """Builds the views of one site and library (each :class:`Item` once per paper)."""

    def __init__(self, site, library) -> None:
        self.site = site
        self.library = library
        self._items: dict[str, Item] = {}
        self._terms: dict[int, TermLink] = {}
        self._abstracts_refs: dict[str, str] | None = None
        self._cluster_of: dict[str, int] | None = None

    def words(self, message: str) -> str:
        """``message`` (page words of a template's catalog) in the site's language, for words a view holds as
        data (a chart's "Other papers" bar); :func:`~site_builder.i18n.translations` compiles a catalog once a
        process."""
        return translations(self.site.config.language).gettext(message)

    def term(self, term) -> TermLink:
        """The link of a :class:`~site_builder.model.library.Term` (one object per term)."""
        link = self._terms.get(id(term))
        if link is None:
            link = self._terms[id(term)] = TermLink(term.slug, term.label, term.path)
        return link

    def item(self, paper: Paper) -> Item:
        """The :class:`Item` of ``paper`` (built once)."""
        item = self._items.get(paper.id)
        if item is None:
            library = self.library
            note = library.note(paper)
            authors = []
            for name in paper.authors:
                author = library.author(name)
                authors.append((name, author.path if author else None))
            item = self._items[paper.id] = Item(
                paper.id, paper.path, paper.title_html, paper.title_text, paper.title_derived, tuple(authors),
                paper.et_al, paper.venue, paper.track, note is not None, (note.status or "") if note else "",
                note.rating if note else None, tuple(self.term(t) for t in library.tags_of(paper)),
                self.abstracts_ref(paper) if paper.abstract else "")
        return item

    def abstracts_ref(self, paper: Paper) -> str:
        """What names the file holding ``paper``'s abstract for list pages (:meth:`Site.abstracts_refs`)."""
        if self._abstracts_refs is None:
            self._abstracts_refs = self.site.abstracts_refs()
        return self._abstracts_refs[paper.id]

    def items(self, papers) -> tuple[Item, ...]:
        """The items of ``papers``, in order."""
        return tuple(map(self.item, papers))

    def paper_context(self, paper: Paper, previous, following, track_previous, track_next) -> dict:
        """The context of a paper page (``paper.html``)."""
        library = self.library
        neighbour = lambda p: self.item(p) if p is not None else None  # noqa: E731
        return {"paper": paper, "item": self.item(paper), "note": library.note(paper),
                "keywords": tuple(self.term(t) for t in library.keywords_of(paper)),
                "related": self.items(library.related(paper)),
                "cite": Citation(paper, library.bib_key(paper), self.site.config.base_url),
                "previous": neighbour(previous), "next": neighbour(following),
                "track_previous": neighbour(track_previous), "track_next": neighbour(track_next)}

    def author(self, author) -> AuthorView:
        """The view of an :class:`~site_builder.model.authors.Author` page."""
        name = author.name
        return AuthorView(name, tuple(sorted(s for s in author.spellings if s != name)), self.items(author.papers))

    def search_notes(self) -> list[list]:
        """The curator's reading status and tags (their labels) of each noted paper, for the search page's
        facets: ``[[ref, status or None, [tag label, …]], …]`` in site order, papers with neither left out;
        ``ref`` the paper's search index ref (:func:`urls.search_ref`)."""
        library = self.library
        return [[urls.search_ref(n), note.status, [tag.label for tag in library.tags_of(paper)]]
                for n, paper in enumerate(self.site.papers)
                if (note := library.note(paper)) and (note.status or note.tags)]

    def home(self) -> dict:
        """The context of the home page."""
        site, library = self.site, self.library
        counts: dict = {}
        for paper in site.papers:
            counts[paper.venue] = counts.get(paper.venue, 0) + 1
            if paper.track is not None:
                counts[paper.track] = counts.get(paper.track, 0) + 1
        venues = tuple(VenueSummary(v, counts.get(v, 0),
                                    tuple(TrackSummary(t, counts.get(t, 0)) for t in site.tracks_of(v)))
                       for v in site.venues)
        return {"venues": venues, "paper_count": len(site.papers), "chart": venue_chart(venues),
                "has_tags": bool(library.tags), "has_keywords": bool(library.keywords)}

    def _clusters(self) -> dict[str, int]:
        """Each paper's cluster on the map, by paper id."""
        if self._cluster_of is None:
            self._cluster_of = dict(zip((p.id for p in self.site.papers), self.library.layout.cluster.tolist()))
        return self._cluster_of

    def topics(self, papers) -> tuple[Topic, ...]:
        """The map's clusters that ``papers`` fall in, most of them first (ties by number), at most
        :data:`VENUE_TOPICS`, each with its number of these papers."""
        counts: dict[int, int] = {}
        cluster_of = self._clusters()
        for paper in papers:
            number = cluster_of[paper.id]
            counts[number] = counts.get(number, 0) + 1
        clusters = self.library.layout.clusters
        best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:VENUE_TOPICS]
        return tuple(Topic(number, clusters[number].label, count) for number, count in best)

    def map_topics(self) -> tuple[TopicGroup, ...]:
        """Every cluster of the map with its papers in site order (the map page)."""
        members: list[list[MapPaper]] = [[] for _ in self.library.layout.clusters]
        cluster_of = self._clusters()
        for paper in self.site.papers:
            members[cluster_of[paper.id]].append(MapPaper(paper.title_text, paper.path, paper.venue.label))
        return tuple(TopicGroup(Topic(c.number, c.label, c.size), tuple(members[c.number]))
                     for c in self.library.layout.clusters)


# --- charts and the paper map (issue 21) ------------------------------------------------------------

@dataclass(frozen=True)
class Bar:
    """One bar of a :class:`BarChart`: its ``label``, ``value`` (papers) and the page it links to (or None)."""

    label: str
    value: int
    path: str | None = None


@dataclass(frozen=True)
class BarChart:
    """A horizontal bar chart, drawn as SVG when the page is built (``_macros.html``, ``bar_chart``): one row per
    bar, ``title`` above it, a table of the same numbers below (its first column headed ``heading``). ``key``
    tells the chart's element ids apart on a page. Geometry in SVG user units (the SVG scales to the page)."""

    key: str
    title: str
    heading: str
    bars: tuple[Bar, ...]

    ROW = 22
    WIDTH = 640
    TOP = 6
    #: Longest label shown in full (characters); a longer one is cut with "…" (the table has it whole).
    LABEL_CHARS = 34

    def label_width(self) -> int:
        """Room for the labels: about 6.6 units a character of the longest shown label, at least 60."""
        longest = max((len(self.shown(bar)) for bar in self.bars), default=0)
        return max(60, round(longest * 6.6) + 12)

    def shown(self, bar: Bar) -> str:
        """The label as drawn (cut to :data:`LABEL_CHARS`)."""
        label = bar.label
        return label if len(label) <= self.LABEL_CHARS else label[:self.LABEL_CHARS - 1] + "…"

    def height(self) -> int:
        """The SVG's height."""
        return self.TOP * 2 + self.ROW * len(self.bars)

    def rows(self) -> list[tuple[Bar, int, int]]:
        """Each bar with the y of its row's top and its length (at least 1 for a non-zero value); the longest
        bar leaves room for its number (48 units)."""
        most = max((bar.value for bar in self.bars), default=0) or 1
        room = self.WIDTH - self.label_width() - 48
        return [(bar, self.TOP + i * self.ROW, max(round(bar.value * room / most), 1 if bar.value else 0))
                for i, bar in enumerate(self.bars)]


def bar_chart(key: str, title: str, heading: str, bars) -> BarChart | None:
    """A :class:`BarChart` of ``bars`` (:class:`Bar`), or None for fewer than two (nothing to compare)."""
    bars = tuple(bars)
    return BarChart(key, title, heading, bars) if len(bars) >= 2 else None


def venue_chart(venues) -> BarChart | None:
    """Papers per venue and year (the home page): ``venues`` are :class:`VenueSummary`."""
    return bar_chart("venues", N_("Papers per venue and year"), N_("Venue"),
                     (Bar(s.venue.label, s.count, s.venue.path) for s in venues))


def track_chart(papers, tracks, other: str = "Other papers") -> BarChart | None:
    """Papers per track of one venue (its page): ``papers`` are its :class:`Item`, ``tracks`` its tracks;
    ``other`` labels the papers of no track (in the site's language: :meth:`Views.words`)."""
    counts: dict = {}
    for item in papers:
        counts[item.track] = counts.get(item.track, 0) + 1
    bars = [Bar(track.label, counts.get(track, 0), track.path) for track in tracks]
    if counts.get(None):
        bars.append(Bar(other, counts[None]))
    return bar_chart("tracks", N_("Papers per track"), N_("Track"), bars)


def year_chart(papers) -> BarChart | None:
    """Papers per year (an author's page), every year from the first to the last: ``papers`` are :class:`Item`."""
    counts: dict[int, int] = {}
    for item in papers:
        counts[item.venue.year] = counts.get(item.venue.year, 0) + 1
    if len(counts) < 2:
        return None
    years = range(min(counts), max(counts) + 1)
    return bar_chart("years", N_("Papers per year"), N_("Year"), (Bar(str(year), counts.get(year, 0)) for year in years))


@dataclass(frozen=True)
class Topic:
    """A cluster of the paper map as a topic: its ``number`` (0 = the largest), ``label`` (its most distinctive
    terms) and ``count`` (its papers on the page that shows it)."""

    number: int
    label: str
    count: int

    @property
    def anchor(self) -> str:
        """Its element id on the map page, e.g. ``topic-1``."""
        return f"topic-{self.number + 1}"


@dataclass(frozen=True)
class MapPaper:
    """A paper in the map page's list of topics: ``title`` (text), page ``path`` and ``venue`` label."""

    title: str
    path: str
    venue: str


@dataclass(frozen=True)
class TopicGroup:
    """A topic with all its papers (the map page's text alternative)."""

    topic: Topic
    papers: tuple[MapPaper, ...]


#: Topics listed on a venue page, at most.
VENUE_TOPICS = 8
