"""Hosting files: ``404.html``, ``robots.txt``, ``sitemap.xml`` and the Atom feeds (see :mod:`.feeds`).

GitHub Pages answers a missing path at any depth (``/repo/a/b/missing``) with the site's
``/repo/404.html``, so the links of that page cannot be relative. With a base URL they are
absolute (``https://user.github.io/repo/index.html``). Without one they are root-absolute
(``/index.html``, right at a domain root and from the fallback) and a small inline script in the
page moves them under the real site root: from ``file://`` the page's own folder; over HTTP the
path before the first segment that is one of the site's top-level names (``papers``, ``venues``,
``search.html``, …), else the first segment on ``*.github.io``, else ``/``; then confirmed by asking
for ``<prefix>404.html`` from the longest prefix down, the first answering 200 being the root.
Its style is then inlined, since a root-absolute stylesheet would be fetched from the wrong place
before the script runs.
"""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from ..model import urls
from .feeds import robots_txt, sitemap_files, write_feeds
from ..model.site import Site
from ..pages.plan import Page
from .writer import Output

STYLESHEET = "assets/style.css"


def not_found_link(base_url: str):
    """The ``link(target)`` function of the 404 page: absolute under ``base_url``, else root-absolute."""
    def link(target: str) -> str:
        return urls.absolute_url(base_url, target) if base_url else "/" + quote(target, safe="/")
    return link


def inline_style(css: str) -> Markup:
    """``css`` made safe inside a ``<style>`` element (``</style`` cannot close it early)."""
    return Markup(re.sub(r"</(?=style)", r"<\\/", css, flags=re.IGNORECASE))


def render_not_found(env: jinja2.Environment, site: Site, top_names: list[str], css: str) -> str:
    """The HTML of ``404.html``; ``top_names`` are the site's top-level file and folder names,
    ``css`` the site's stylesheet (inlined when there is no base URL)."""
    page = Page(urls.NOT_FOUND, "404.html", "Page not found")
    return env.get_template(page.template).render(page=page, config=site.config, link=not_found_link(site.config.base_url),
                                                  top_names=top_names, inline_css=inline_style(css))


def write_hosting_files(env: jinja2.Environment, site: Site, output: Output, updated: datetime,
                        page_paths: list[str], cache=None) -> None:
    """Write ``404.html``, the sitemap (with a base URL) of ``page_paths``, ``robots.txt`` and the feeds of ``site``.

    Call after the assets are written: the 404 page's script needs the site's top-level names (those of
    ``output.written`` and of ``page_paths``, which may be written meanwhile by another process).
    ``updated`` stamps the feeds (see :func:`.feeds.build_time`); ``cache`` (a
    :class:`~site_builder.incremental.cache.BuildCache`, or None) keeps or restamps the unchanged feeds (:func:`.feeds.write_feeds`).
    """
    feeds = write_feeds(site, updated, output, cache)
    sitemaps = sitemap_files(site.config.base_url, page_paths)
    top = sorted({p.partition("/")[0] for p in [*output.written, *page_paths, *feeds, *sitemaps, urls.ROBOTS,
                                                urls.NOT_FOUND]} - {".site-builder", urls.NOJEKYLL})
    css_path = output.staging / STYLESHEET
    css = css_path.read_text(encoding="utf-8") if css_path.is_file() else ""
    output.write_text(urls.NOT_FOUND, render_not_found(env, site, top, css))
    for path, text in sitemaps.items():
        output.write_text(path, text)
    output.write_text(urls.ROBOTS, robots_txt(site.config.base_url, bool(sitemaps)))
