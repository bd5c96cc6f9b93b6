"""The pages stage: which pages a build renders and which it keeps from the previous output, and the rendering.

One mechanism decides what is reused (:class:`PageReuse`), on one rule: a page's **key** is the digest
(:class:`~site_builder.incremental.digest.Fingerprinter`) of exactly what its template receives, the
:class:`~site_builder.pages.plan.Page` with its whole context and the common context, plus the code version and the
template folder (``shared``). Page templates receive nothing else, so a page whose key is the previous build's,
and whose file is untouched since, is kept where it is. Three ways of getting there cheaply follow from the rule:

- the **structure** of the site is what the index pages receive (the pages that show no paper's data: home,
  authors, tags, keywords, "My list"): the digest of their keys (:func:`site_builder.pages.replan.structure_digest`);
- when the structure is unchanged, a page none of whose source papers changed is kept on its previous key without
  building its context (:func:`site_builder.pages.replan.split_outline`);
- a long list page rendered again takes the HTML of its unchanged items (an item is a view: same digest, same
  folder, same ``shared``, same HTML) from the previous build (:meth:`PageReuse.take_items`).

Pages are rendered on every core when :func:`site_builder.parallel.parallel_workers` allows
(:func:`write_pages`). With ``SITE_BUILDER_CHECK_REPLAN=1`` every page kept without its context is keyed the full
way too and a difference raises :class:`~site_builder.pages.replan.ReplanMismatch`.
"""

from __future__ import annotations

from operator import attrgetter
from pathlib import Path
from typing import Callable

from .. import parallel
from ..incremental.cache import BuildCache
from ..incremental.digest import folder_digest
from ..pages import replan
from ..pages.plan import Page, Planned
from ..pages.views import Item, TermLink
from ..progress import Progress
from . import workers
from .writer import Output, page_folder, render_page

#: The views shared by many pages, whose digests a worker keeps from page to page (:meth:`PageReuse.final_key`).
SHARED_VIEWS = (Item, TermLink)
#: Key of a page computed where it is rendered (in the worker that renders it), on a first build.
DEFERRED_KEY = "deferred"
#: A page listing at least this many papers (a venue's or a track's) keeps the HTML of the list items rendered
#: in its folder for the next build (:meth:`PageReuse.take_items`).
ITEMS_KEPT = 200


class PageReuse:
    """Page keys and reuse for one build: ``cache`` (a :class:`BuildCache`; disabled: every page is rendered),
    ``common`` (the context every template gets, :func:`site_builder.pages.plan.common_context`) and the
    ``templates`` folder in use."""

    def __init__(self, cache: BuildCache, common: dict, templates: Path) -> None:
        self.cache = cache
        self.common = common
        #: What every key includes: the code version, the template folder's digest and the digest of ``common``
        #: (None when it cannot be digested); None without a cache.
        self.shared = ((cache.code, folder_digest(templates), cache.fingerprints.of(common))
                       if cache.enabled else None)

    def key(self, page: Page) -> str | None:
        """The key of ``page`` (see the module docstring); None when its context cannot be digested."""
        return self.cache.fingerprints.of((self.shared, page))

    def keys(self, pages: list[Page]) -> list[tuple[str, str | None]]:
        """``(path, key)`` of each page; the key None (the page is always rendered) without a cache, when the
        common context cannot be digested, or when the page's context holds something that cannot be
        (``search.html`` gets the whole library)."""
        if not self.cache.enabled or self.shared[2] is None:
            return [(page.path, None) for page in pages]
        return [(page.path, self.key(page)) for page in pages]

    def final_key(self, page: Page, key: str | None) -> str | None:
        """``key``, or the page's key computed now when it is :data:`DEFERRED_KEY` (in a worker). The digests of
        what was made for this page alone are let go then (:meth:`Fingerprinter.forget_since
        <site_builder.incremental.digest.Fingerprinter.forget_since>`; the list items and term links, shared by many
        pages, are kept): the memo would otherwise keep every page's context alive in the worker to the end."""
        if key != DEFERRED_KEY:
            return key
        fingerprints = self.cache.fingerprints
        mark = fingerprints.mark()
        key = self.key(page)
        fingerprints.forget_since(mark, SHARED_VIEWS)
        return key

    def pages_to_render(self, outline: list[Planned], site, library,
                        output: Output) -> list[tuple[Page | Planned, str | None]]:
        """The pages of ``outline`` that must be rendered, each with its key; every other page is kept from the
        previous output (:meth:`OutputRecord.keep_pages`, :meth:`OutputRecord.reuse_pages`). Without a cache every
        page is returned (key None). On a first build into this output, keyed pages but the index pages (keyed
        here for the structure) come with :data:`DEFERRED_KEY`: their keys are computed where they are rendered,
        off the build's serial path.

        Without a cache and on a first build, the pages but the index pages come as their :class:`Planned`: their
        contexts are made where they are rendered (:func:`write_pages`), one job at a time, so that no process holds
        every page's context (0.3 GB at 100,000 papers) and the forked workers do not copy those the parent made."""
        cache = self.cache
        if not cache.enabled:
            return [(planned, None) for planned in outline]
        index = [planned.make() for planned in outline if planned.sources == ()]
        index_keys = self.keys(index)
        previous = replan.PlanRecord.from_json(cache.outputs.previous_plan)
        record = replan.plan_record(site, library, outline, cache.fingerprints, [key for _, key in index_keys])
        cache.outputs.plan = record.to_json()
        made = {page.path: page for page in index}
        if not cache.outputs.has_previous and self.shared[2] is not None:
            keys = dict(index_keys)  # the index pages' keys are computed already: not again in the workers
            return [(made[planned.path], keys[planned.path]) if planned.path in made
                    else (planned, None if planned.sources is None else DEFERRED_KEY) for planned in outline]
        unchanged, stale = replan.split_outline(outline, previous, record)
        return self._stale_pages(unchanged, stale, made, output)

    def _stale_pages(self, unchanged: list[Planned], stale: list[Planned], made: dict[str, Page],
                     output: Output) -> list[tuple[Page, str | None]]:
        """The pages to render of a rebuild: ``stale`` ones and those of ``unchanged`` whose previous file is
        gone, less those whose key is the previous one (``made``: the index pages, already made and keyed)."""
        cache = self.cache
        not_kept = cache.outputs.keep_pages(list(map(attrgetter("path"), unchanged)), output)
        if replan.check_mode():
            self._check_kept([planned for planned in unchanged if planned.path not in not_kept])
        if not_kept:
            stale += [planned for planned in unchanged if planned.path in not_kept]
        always = [planned.make() for planned in stale if planned.sources is None]
        pages = [made.get(planned.path) or planned.make() for planned in stale if planned.sources is not None]
        keys = self.keys(pages)  # an index page's key again: its digest is memoised by the fingerprinter
        reused = cache.outputs.reuse_pages(keys, output)
        return ([(page, None) for page in always]
                + [(page, key) for page, (_, key) in zip(pages, keys) if page.path not in reused])

    def _check_kept(self, kept: list[Planned]) -> None:
        """Check mode: every page kept without its context has the key a full build gives it."""
        for (path, key), planned in zip(self.keys([planned.make() for planned in kept]), kept):
            if key != self.cache.outputs.previous_key(path):
                raise replan.ReplanMismatch(f"{path}: kept by replan, but its key changed")

    def take_items(self, env, pages: list[Page]) -> set[str]:
        """The paths of ``pages`` that list at least :data:`ITEMS_KEPT` papers (their context's ``papers``), after
        handing the :class:`~site_builder.output.writer.PageFolder` of each one's folder the HTML of the items the
        previous build rendered there (:meth:`OutputRecord.item_html`) and the fingerprinter's digest: an item of
        the same digest (the same :class:`~site_builder.pages.views.Item`) in the same folder, with the same
        ``shared``, is the same HTML, so a one-abstract rebuild renders one item of the largest venue's ~1,600
        instead of all. Empty without a cache."""
        cache, shared = self.cache, self.shared
        if not cache.enabled or shared is None or None in shared:
            return set()
        lists = set()
        for page in pages:
            papers = page.context.get("papers")
            if type(papers) is tuple and len(papers) >= ITEMS_KEPT:
                lists.add(page.path)
                folder = page_folder(env, page.path, self.common["config"])
                folder.digest = cache.fingerprints.digest
                folder.known.update(cache.outputs.item_html(page.path, shared))
        return lists

    def keep_items(self, env, pages: list[Page]) -> None:
        """Keep for the next build (:meth:`OutputRecord.save_item_html`) the items' HTML rendered in the folder of
        each of ``pages`` (pages of :meth:`take_items`, once rendered)."""
        for page in pages:
            self.cache.outputs.save_item_html(page.path, self.shared,
                                      page_folder(env, page.path, self.common["config"]).rendered_items())


def write_pages(env, outline: list[Planned], site, library, output: Output, reuse: PageReuse, progress: Progress,
                meanwhile: list[Callable[[], None]] = ()) -> None:
    """Write the pages of ``outline`` into ``output`` that ``reuse`` does not keep
    (:meth:`PageReuse.pages_to_render`), and run the steps ``meanwhile`` (the build's other files), in order: on
    every core when :func:`site_builder.parallel.parallel_workers` allows (``meanwhile`` then runs in this process
    while the workers render, the pages' progress taken between its steps), else in this process (``meanwhile``
    after the pages)."""
    progress.stage("page keys and reuse")
    todo = reuse.pages_to_render(outline, site, library, output)
    progress.stage("pages", len(todo), "pages")
    cache, common = reuse.cache, reuse.common
    lists = reuse.take_items(env, [page for page, _ in todo if isinstance(page, Page)])

    def make(entry: Page | Planned) -> Page:  # where the page is rendered (a forked worker's copy of lists)
        if isinstance(entry, Page):
            return entry
        page = entry.make()
        lists.update(reuse.take_items(env, [page]))
        return page

    def keep_items(pages: list[Page]) -> None:
        reuse.keep_items(env, [page for page in pages if page.path in lists])

    if not parallel.parallel_workers(len(todo)):
        listing = []
        for entry, key in todo:
            page = make(entry)
            output.write_text(page.path, render_page(env, page, common))
            cache.outputs.record(page.path, reuse.final_key(page, key), output)
            progress.advance()
            if page.path in lists:
                listing.append(page)
        keep_items(listing)
        for step in meanwhile:
            step()
        return
    jobs = [(workers.page_job(env, chunk, common, output.staging, reuse.final_key, keep_items, make), len(chunk))
            for chunk in workers.page_chunks(todo)]
    workers.claim_all(output, [page.path for page, _ in todo])
    del todo  # the jobs hold the pages; run_jobs lets go of them once the workers have them

    def done(results, weight):
        for written in results:
            cache.outputs.record_stat(written.path, written.key, written.stat)
        progress.advance(weight)

    parallel.run_jobs(jobs, done, meanwhile)
