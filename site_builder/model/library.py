"""The reader's layer over the site model: authors, related papers, citations, notes, tags and keywords.

Built once per build by :func:`build_library` and handed to every template as
``library``; templates ask it about one paper (``library.related(paper)``,
``library.note(paper)``, ``library.bibtex(paper)``, …).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Callable, Iterable

from markupsafe import Markup

from . import bibtex, citation, urls
from .authors import Author, AuthorIndex, cached_index
from ..diagnostics import Diagnostics
from .notes import STATUSES, Note, load_notes
from . import layout as map_layout, related
from .related import DEFAULT_K


@dataclass
class Term:
    """A tag (from notes) or keyword (from the lists): ``slug`` (identity), display ``label``
    (the most frequent spelling, ties by sorted order), ``papers`` in site order, ``path``."""

    kind: str
    slug: str
    path: str
    spellings: Counter = field(default_factory=Counter)
    papers: list = field(default_factory=list)

    @property
    def label(self) -> str:
        """The display spelling."""
        return min(self.spellings.items(), key=lambda kv: (-kv[1], kv[0]))[0]


@lru_cache(maxsize=1 << 16)
def term_slug(label: str, kind: str) -> str:
    """The slug of a tag or keyword ``label`` (spaces normalised); never ``index`` (the index page)."""
    slug = urls.make_slug(" ".join(label.split()), kind)
    return f"index-{kind}" if slug == "index" else slug


def build_terms(pairs: Iterable[tuple[str, object]], kind: str, path_of: Callable[[str], str]) -> list[Term]:
    """Group ``(label, paper)`` pairs (papers in site order) into terms, one per slug, sorted by label.

    Labels that slugify alike (``Bandits``/``bandits``) are one term; the slug ``index`` is avoided.
    """
    terms: dict[str, Term] = {}
    for label, paper in pairs:
        label = " ".join(label.split())
        if not label:
            continue
        slug = term_slug(label, kind)
        term = terms.get(slug) or terms.setdefault(slug, Term(kind, slug, path_of(slug)))
        term.spellings[label] += 1
        if not term.papers or term.papers[-1] is not paper:
            term.papers.append(paper)
    return sorted(terms.values(), key=lambda t: (t.label.casefold(), t.slug))


class Library:
    """Everything the reading-list features know about a :class:`~site_builder.model.site.Site`."""

    def __init__(self, site, notes: dict[str, Note] | None = None, k: int = DEFAULT_K,
                 related_state: related.State | None = None, authors: AuthorIndex | None = None,
                 bib_keys: dict[str, str] | None = None, layout: map_layout.Layout | None = None,
                 progress=None) -> None:
        self.site = site
        self._layout = layout
        self.base_url = site.config.base_url
        self.authors = authors if authors is not None else AuthorIndex(site.papers, site.config.author_page_papers)
        self._related, self.related_state = related.related_papers(list(site.papers), k, previous=related_state,
                                                                          progress=progress)
        self.bib_keys = bib_keys if bib_keys is not None else bibtex.assign_keys(site.papers)
        self._bibtex: dict[str, str] = {}
        self.notes = notes or {}
        by_id = {p.id: p for p in site.papers}
        self.tags = build_terms(((t, by_id[pid]) for pid, n in self._in_site_order(self.notes) for t in n.tags),
                                "tag", urls.tag_path)
        self.keywords = build_terms(((k, p) for p in site.papers for k in getattr(p, "keywords", ())),
                                    "keyword", urls.keyword_path)
        self._tag_of = {t.slug: t for t in self.tags}
        self._keyword_of = {t.slug: t for t in self.keywords}

    def _in_site_order(self, notes: dict[str, Note]) -> list[tuple[str, Note]]:
        return [(p.id, notes[p.id]) for p in self.site.papers if p.id in notes]

    @property
    def layout(self) -> map_layout.Layout:
        """The paper map (:mod:`site_builder.model.layout`) of the site's papers, in site order: computed on first
        use when :func:`build_library` did not give it."""
        if self._layout is None:
            self._layout = map_layout.compute_layout(self.related_state)
        return self._layout

    # --- one paper -------------------------------------------------------
    def related(self, paper) -> list:
        """Up to five most similar papers (TF-IDF cosine over title and abstract)."""
        return self._related.get(paper.id, [])

    def author(self, name: str) -> Author | None:
        """The author page that ``name`` as written links to, or None (e.g. "et al.")."""
        return self.authors.get(name)

    def note(self, paper) -> Note | None:
        """The curator's note on ``paper``, or None."""
        return self.notes.get(paper.id)

    def tags_of(self, paper) -> list[Term]:
        """The tag terms of ``paper`` (from its note), in the note's order."""
        note = self.note(paper)
        if note is None:
            return []
        return [self._tag_of[s] for s in dict.fromkeys(self._slug(t, "tag") for t in note.tags) if s in self._tag_of]

    def keywords_of(self, paper) -> list[Term]:
        """The keyword terms of ``paper``, in the list's order."""
        slugs = dict.fromkeys(self._slug(k, "keyword") for k in getattr(paper, "keywords", ()))
        return [self._keyword_of[s] for s in slugs if s in self._keyword_of]

    _slug = staticmethod(term_slug)

    def bib_key(self, paper) -> str:
        """The paper's BibTeX key, unique within the site."""
        return self.bib_keys[paper.id]

    def bibtex(self, paper) -> str:
        """The paper's BibTeX entry (computed once per paper)."""
        text = self._bibtex.get(paper.id)
        if text is None:
            text = self._bibtex[paper.id] = bibtex.entry(paper, self.bib_key(paper),
                                                         urls.absolute_url(self.base_url, paper.path))
        return text

    def bib_file(self, papers: Iterable) -> str:
        """A ``.bib`` file of ``papers``' entries."""
        return bibtex.bib_file(bibtex.entry(p, self.bib_key(p), urls.absolute_url(self.base_url, p.path), True)
                               for p in papers)

    def highwire(self, paper) -> list[tuple[str, str]]:
        """Highwire ``citation_*`` meta tags of ``paper``."""
        return citation.highwire_tags(paper, self.base_url)

    def json_ld(self, paper) -> Markup:
        """ScholarlyArticle JSON-LD of ``paper``, escaped for a ``<script>`` element (safe to insert)."""
        return Markup(citation.script_json(citation.json_ld(paper, self.base_url)))

    # --- lists -----------------------------------------------------------
    def status_counts(self) -> dict[str, int]:
        """How many notes have each reading status, in :data:`STATUSES` order."""
        counts = Counter(n.status for n in self.notes.values() if n.status)
        return {s: counts[s] for s in STATUSES}


#: The related-papers state in the cache (kept from one build to the next, :meth:`Store.keep
#: <site_builder.incremental.store.Store.keep>`; its value is :func:`related.state_value
#: <site_builder.model.related.state_value>`'s).
RELATED_STATE = "related.marshal"


def build_library(site, notes_dir: Path | None, diagnostics: Diagnostics, cache=None, progress=None) -> Library:
    """The :class:`Library` of ``site`` with the notes in ``notes_dir`` (None: no notes).

    With ``cache`` (a :class:`~site_builder.incremental.cache.BuildCache`), the related papers are updated
    from the previous build's state (``<cache>/related.marshal``, :func:`load_related`; same result, see
    :mod:`site_builder.model.related`) and the new state is kept there (by :meth:`BuildCache.defer
    <site_builder.incremental.cache.BuildCache.defer>`: in the process that writes the other files, or at
    :meth:`~site_builder.incremental.cache.BuildCache.save` at the latest); the author index is kept in
    ``<cache>/authors.marshal`` while the papers' authors are unchanged (:func:`~site_builder.model.authors.cached_index`),
    and the papers' BibTeX base keys in ``<cache>/bibkeys.marshal`` (:func:`~site_builder.model.bibtex.cached_keys`).
    The paper map is :func:`place_papers`'s. ``progress`` (a :class:`~site_builder.progress.Progress`, or None) shows
    the related papers' full computation (:func:`~site_builder.model.related.related_papers`).
    """
    store = cache.store if cache is not None and cache.folder is not None else None
    previous = load_related(store) if store is not None else None
    authors = cached_index(site.papers, cache, site.config.author_page_papers)
    bib_keys = bibtex.cached_keys(site.papers, cache, getattr(authors, "input_digest", None))
    library = Library(site, load_notes(notes_dir, site.papers, diagnostics), related_state=previous,
                      authors=authors, bib_keys=bib_keys, progress=progress)
    if store is not None and library.related_state is not previous:
        cache.defer(partial(save_related, store, library.related_state))
    return library


def place_papers(library: Library, cache=None) -> None:
    """Give ``library`` its paper map (:attr:`Library.layout`): computed whole without a cache (``cache``: a
    :class:`~site_builder.incremental.cache.BuildCache`, None: computed) or after many changes, else the previous
    build's map with the changed papers placed by their neighbours (:func:`~site_builder.model.layout.kept_layout`).
    The build calls it as a stage of its own; without it the map is computed when first asked for. The map is the
    related papers' state's last reader: ``library.related_state`` is None afterwards (its save for the next build,
    :meth:`BuildCache.defer <site_builder.incremental.cache.BuildCache.defer>`, holds it until it has run), so
    the page workers forked after that save do not carry it (its arrays and strings: some 190 MB at 100,000 papers)."""
    library._layout = map_layout.kept_layout(library.related_state, cache)
    library.related_state = None


def load_related(store) -> related.State | None:
    """The related-papers state the previous build kept in ``store`` (a :class:`~site_builder.incremental.store.Store`
    with a folder) as :data:`RELATED_STATE`; None when there is none or it is of another code version (quietly),
    or when the file is unreadable or its value malformed (with a warning ``cache file corrupt, ignored: …``
    naming the file, :meth:`Store.corrupt <site_builder.incremental.store.Store.corrupt>`; it is then recomputed)."""
    value = store.kept(RELATED_STATE)
    if value is None:
        return None
    try:
        return related.state_of(value)
    except ValueError as exc:
        store.corrupt(store.path(RELATED_STATE), exc)
        return None


def save_related(store, state: related.State) -> None:
    """Keep the related-papers ``state`` in ``store`` as :data:`RELATED_STATE` for the next build (a job for
    :meth:`BuildCache.defer <site_builder.incremental.cache.BuildCache.defer>`: off the build's serial path, in the
    process that writes the other files); a failure to write is one cache warning a build
    (:meth:`Store.warn_write <site_builder.incremental.store.Store.warn_write>`)."""
    store.keep(RELATED_STATE, related.state_value(state))
