"""Write the pages and the search index, on every core when that helps.

The pages to render are jobs in chunks. With two or more cores and ``fork``
available they run in a pool of forked worker processes that inherit the site
model, so nothing is pickled but the results (paths and file stats).
Otherwise, or for small builds, they run in this process. The search index
(one job: :func:`search.index_items`, a black box over the whole site) runs
in a forked process of its own (:func:`start_background`) while the build
goes on: reading-list features, planning, pages, ``.bib`` files and feeds.
Either way the bytes written are the same.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import jinja2

from ..model import urls
from ..pages.plan import Page, Planned
from ..pages.views import Item

from .writer import Output, render_page, write_file, write_spliced

#: Pages per job: small enough to balance the cores, large enough to keep overhead low.
CHUNK = 250


@dataclass
class Written:
    """A file a job wrote: site-root relative ``path``, cache ``key`` (or None), ``[size, mtime_ns, inode]``."""

    path: str
    key: str | None
    stat: list


def _write(staging: Path, path: str, text: str | list[bytes], key: str | None) -> Written:
    """Write ``text`` (or the bytes parts of its UTF-8, one after another) to ``path`` under ``staging``."""
    file = os.path.join(staging, path)
    return Written(path, key, write_file(file, text) if isinstance(text, str) else write_spliced(file, text))


def page_job(env: jinja2.Environment, pages: list[tuple[Page | Planned, str | None]], common: dict,
             staging: Path, key_of: Callable | None = None, after: Callable[[list[Page]], None] | None = None,
             make: Callable[[Page | Planned], Page] | None = None) -> Callable[[], list[Written]]:
    """A job rendering ``pages`` (each with its cache key) into their claimed files under ``staging``;
    ``key_of(page, key)``, when given, gives the key recorded for each page (computed in the worker);
    ``after(pages)``, when given, runs once they are written (in the worker). An entry of ``pages`` may be the
    :class:`Planned` page: ``make`` (default ``Planned.make``) makes its :class:`Page` in the worker, and it is let go
    once written (``after`` gets the pages made)."""
    key_of = key_of or (lambda page, key: key)
    make = make or (lambda entry: entry if isinstance(entry, Page) else entry.make())

    def run() -> list[Written]:
        written, made = [], []
        for entry, key in pages:
            page = make(entry)
            written.append(_write(staging, page.path, render_page(env, page, common), key_of(page, key)))
            made.append(page)
        if after is not None:
            after(made)
        return written
    return run


def index_items(site, store=None, models=None) -> Iterable[tuple[str, str]]:
    """:func:`site_builder.search.index.index_items` (``(path, text)`` of each file, made one at a time), imported
    on first use: the search modules are needed only where the index is built (the index process), not for the
    build's own start-up."""
    from ..search.index import index_items as items
    return items(site, store, models)


def index_job(site, key: str | None, staging: Path, store=None, outputs=None,
              models=None) -> Callable[[], tuple[list, list]]:
    """A job building the search index files of ``site`` (:func:`site_builder.search.index.index_items`) under
    ``staging``, each written as it is made, with the tokenized papers kept in ``store`` (the build cache's
    :class:`~site_builder.incremental.store.Store`, or None) and the papers' model digests ``models`` (or None;
    see :func:`site_builder.search.index.paper_tables`). The manifest (:data:`urls.SEARCH_MANIFEST_JS`) is
    keyed by ``key`` (the whole model's), every other file by its text; a file the previous build left
    with its key (``outputs``, an :class:`~site_builder.incremental.outputs.OutputRecord`, or None) is not
    written again. The job returns ``(written, kept)``: ``list[Written]`` and the kept ``(path, key)``."""
    def run() -> tuple[list, list]:
        written, kept, folders = [], [], set()
        for path, text in index_items(site, store, models):
            folder = path.rpartition("/")[0]
            if folder not in folders:
                os.makedirs(os.path.join(staging, folder), exist_ok=True)
                folders.add(folder)
            file_key = key if path == urls.SEARCH_MANIFEST_JS else (
                outputs.key("search-file", text) if outputs is not None and key is not None else None)
            if outputs is not None and outputs.reusable(path, file_key) is not None:
                kept.append((path, file_key))
            else:
                written.append(_write(staging, path, text, file_key))
        return written, kept
    return run


def chunks(items: list, size: int = CHUNK) -> list[list]:
    """``items`` cut into consecutive lists of at most ``size``."""
    return [items[i:i + size] for i in range(0, len(items), size)]


#: The folder of the paper pages (no paper page lists papers as items).
PAPERS_FOLDER = urls.paper_path("x").rpartition("/")[0]


def _listed_ids(page: Page | Planned) -> tuple[str, ...]:
    """The ids of the papers ``page`` lists as items (through the ``paper_item`` of its folder): those
    of a venue, track, author or tag/keyword page; ``()`` for other pages. For a :class:`Planned` page (its
    context not made), the identities of its ``sources`` when it is a page of a subfolder but the paper pages'."""
    if isinstance(page, Planned):
        folder = page.path.rpartition("/")[0]
        return page.sources if page.sources and folder not in ("", PAPERS_FOLDER) else ()
    context = page.context
    shown = context.get("papers")
    if shown is None:
        view = context.get("author") or context.get("term")
        shown = getattr(view, "papers", None)
    if not isinstance(shown, tuple) or not shown or not isinstance(shown[0], Item):
        return ()
    return tuple(item.id for item in shown)


def page_chunks(todo: list[tuple[Page | Planned, str | None]], size: int = CHUNK
                ) -> list[list[tuple[Page | Planned, str | None]]]:
    """``todo`` (pages with their keys) cut into jobs of at most about ``size`` pages, so that the pages
    listing the same papers from one folder share a job (and so a worker): a folder's paper items
    (:meth:`writer.PageFolder.paper_item`) are then rendered by one worker rather than by each.

    List pages come first, by folder; a folder of at most ``size`` of them (a venue and its tracks,
    started first: venue pages are the longest) is never split, a larger one (the authors) is ordered by the smallest id of the papers each
    page lists (of a :class:`Planned` page, the smallest identity of its sources), so co-authors of a paper tend
    to fall in one job. The other pages follow in their
    order. Every entry of ``todo`` is in exactly one job; the order of the pages written does not
    change the output.
    """
    lists: dict[str, list] = {}
    others = []
    for entry in todo:
        ids = _listed_ids(entry[0])
        if ids:
            lists.setdefault(entry[0].path.rpartition("/")[0], []).append((min(ids), entry))
        else:
            others.append(entry)
    jobs: list[list] = []
    current: list = []
    for folder in sorted(lists, key=lambda f: (len(lists[f]) > size, f)):  # the small folders' heavy pages first
        group = [entry for _, entry in sorted(lists[folder], key=lambda pair: (pair[0], pair[1][0].path))]
        if len(group) > size:
            jobs += chunks(group, size)
            continue
        if current and len(current) + len(group) > size:
            jobs.append(current)
            current = []
        current += group
    if current:
        jobs.append(current)
    return jobs + chunks(others, size)


def claim_all(output: Output, paths: list[str]) -> None:
    """Reserve ``paths`` in ``output`` before worker processes write them."""
    for path in paths:
        output.claim(path)


