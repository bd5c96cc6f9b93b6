"""The page render path (writer.render_page, the per-folder caches) gives the bytes of the plain path: a
stock jinja2.Environment, the macros module made for every page, every paper item and chrome part rendered
afresh and links by urls.relative_url."""

from __future__ import annotations

import sys
from pathlib import Path

import jinja2
import pytest

from conftest import CONFIG, ROOT, SEEDS
from features_support import NOTES
from site_builder.model import urls
from site_builder.output import writer
from site_builder.config import load_config
from site_builder.diagnostics import Diagnostics
from site_builder.model.library import build_library
from site_builder.model.site import build_site
from site_builder.pages.plan import common_context, plan_pages
from site_builder.pipeline import TEMPLATES, list_files, load_overrides, read_lists
from site_builder.pages.views import tags_in

sys.path.insert(0, str(ROOT / "bench"))

from lists import load_corpus, write_lists  # noqa: E402
from papers_sample import SAMPLE  # noqa: E402
from site_builder import i18n  # noqa: E402


def stock_environment() -> tuple[jinja2.Environment, callable]:
    """Jinja2 as it comes, with the globals of writer.make_environment done the plain way;
    returns the environment and its render(page, common) function."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, extensions=["jinja2.ext.i18n"])
    assert env.context_class is jinja2.runtime.Context
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(i18n.translations(i18n.DEFAULT_LANGUAGE), newstyle=True)

    def macros(link, page):
        return env.get_template("_macros.html").make_module({"page": page, "link": link})

    env.globals["link"] = jinja2.pass_context(lambda ctx, target: urls.relative_url(ctx["page"].path, target))
    env.globals["paper_item"] = jinja2.pass_context(
        lambda ctx, item, show_track=True: macros(ctx["link"], ctx["page"]).paper_item(item, show_track))
    env.globals["chrome"] = jinja2.pass_context(lambda ctx, part: getattr(env.get_template("_chrome.html").make_module(
        {"link": ctx["link"], "config": ctx["config"]}), part)())
    env.globals["tags_in"] = tags_in
    env.globals["urls"] = urls
    env.filters["count"] = writer.count_noun
    env.filters["number"] = lambda n: i18n.format_number(n, i18n.DEFAULT_LANGUAGE)

    def render(page, common) -> str:
        def link(target):
            return urls.relative_url(page.path, target)
        return env.get_template(page.template).render(page=page, link=link, macros=macros(link, page),
                                                      **common, **page.context)
    return env, render


def site_pages(seeds: Path, config_path: Path, notes: Path | None, base_url: str = ""):
    config = load_config(config_path).with_base_url(base_url)
    diagnostics = Diagnostics()
    site = build_site(read_lists(list_files(seeds), config, diagnostics), load_overrides(seeds, diagnostics),
                      config, diagnostics)
    library = build_library(site, notes, diagnostics)
    return plan_pages(site, library), common_context(site)


@pytest.fixture(scope="module")
def corpus_lists(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("corpus-lists")
    write_lists(load_corpus(SAMPLE, 800), folder / "seeds", folder / "site.toml")
    config = folder / "site.toml"  # every author a page: many pages, an authors folder split in jobs
    config.write_text("author_page_papers = 1\n" + config.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def assert_renders_like_stock(pages, common) -> None:
    env = writer.make_environment(TEMPLATES)
    assert env.code_generator_class is jinja2.compiler.CodeGenerator  # Jinja2's own compiling and rendering
    assert env.context_class is jinja2.runtime.Context
    _, stock = stock_environment()
    templates = set()
    for page in pages:
        ours = writer.render_page(env, page, common)
        assert ours == stock(page, common), page.path
        assert type(ours) is str
        templates.add(page.template)
    assert templates >= {"home.html", "paper.html", "venue.html", "author.html", "authors.html", "search.html",
                         "stars.html"}


@pytest.mark.parametrize("base_url", ["", "https://example.org/repo/"])
def test_seed_pages_with_notes_render_like_stock_jinja(base_url):
    pages, common = site_pages(SEEDS, CONFIG, NOTES, base_url)
    assert {"term.html", "terms.html", "track.html"} <= {page.template for page in pages}
    assert_renders_like_stock(pages, common)


def test_corpus_pages_render_like_stock_jinja(corpus_lists):
    pages, common = site_pages(corpus_lists / "seeds", corpus_lists / "site.toml", None)
    assert len(pages) > 1500
    assert_renders_like_stock(pages, common)


def test_folder_paper_items_keep_show_track_apart():
    """A folder's cached paper item is per show_track (the site's own pages never list one paper both
    ways in one folder, so the page comparisons above cannot see it)."""
    pages, common = site_pages(SEEDS, CONFIG, NOTES)
    item = next(page.context["item"] for page in pages if page.template == "paper.html"
                and page.context["item"].track is not None)
    env = writer.make_environment(TEMPLATES)
    folder = writer.page_folder(env, "venues/x/index.html", common["config"])
    stock_env, _ = stock_environment()
    link = writer.folder_link("venues/x")
    stock = stock_env.get_template("_macros.html").make_module({"page": None, "link": link})
    for show_track in (False, True, False, True):
        assert folder.paper_item(item, show_track) == stock.paper_item(item, show_track)
    assert folder.paper_item(item, False) != folder.paper_item(item, True)
    assert folder.paper_item(item) == folder.paper_item(item, True)


def test_page_chunks_cover_every_page_once_and_keep_small_folders_together(corpus_lists):
    from site_builder.output import workers

    pages, _ = site_pages(corpus_lists / "seeds", corpus_lists / "site.toml", None)
    todo = [(page, f"key-{n}") for n, page in enumerate(pages)]
    for size in (40, workers.CHUNK):
        jobs = workers.page_chunks(todo, size)
        assert sorted(entry[1] for job in jobs for entry in job) == sorted(key for _, key in todo)
        assert all(0 < len(job) <= size for job in jobs)
        job_of = {entry[0].path: n for n, job in enumerate(jobs) for entry in job}
        venues = [page for page in pages if page.template == "venue.html"]
        assert venues
        for venue in venues:  # a venue page and its track pages: one job
            folder = venue.path.rpartition("/")[0]
            assert {job_of[p.path] for p in pages if p.path.rpartition("/")[0] == folder
                    and p.template in ("venue.html", "track.html")} == {job_of[venue.path]}
        authors = [p.path for p in pages if p.template == "author.html"]
        assert len(authors) > size and len({job_of[path] for path in authors}) > 1  # the authors folder is split
