"""Every output path and URL of the site, decided in one place.

Paths are POSIX, relative to the site root, and always name a file
(``…/index.html`` or ``….html``) so the same output works from ``file://``,
at a domain root and under a sub-path such as ``/repo/``.
"""

from __future__ import annotations

import posixpath
from functools import lru_cache
from urllib.parse import quote

from slugify import slugify

HOME = "index.html"
SEARCH = "search.html"
PAPERS_JSON = "papers.json"
SEARCH_INDEX_JSON = "search-index.json"
SEARCH_INDEX_JS = "search-index.js"
ASSETS = "assets"
LUNR_JS = "assets/lunr.min.js"

#: Names the site's own files take at the root; no slug may produce them.
RESERVED = frozenset({"index", "search", "papers", "venues", "tracks", "assets", "search-index", "404"})
#: Device names Windows refuses as file names, whatever the extension.
WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)}
)


@lru_cache(maxsize=65536)  # venue and track slugs repeat once per paper
def make_slug(text: str, fallback: str, max_length: int = 60) -> str:
    """Return a safe file-name slug for ``text``.

    ASCII letters, digits and hyphens only (non-Latin text is transliterated
    by python-slugify/text-unidecode); never empty (``fallback`` then), never
    a Windows device name.
    """
    slug = slugify(text, max_length=max_length, word_boundary=True) or fallback
    if slug in WINDOWS_RESERVED:
        slug = f"{slug}-{fallback}"
    return slug


def paper_path(slug: str) -> str:
    """Path of a paper page: ``papers/<slug>.html``."""
    return f"papers/{slug}.html"


def venue_path(venue_slug: str) -> str:
    """Path of a venue page: ``venues/<venue-slug>/index.html``."""
    return f"venues/{venue_slug}/index.html"


def track_path(venue_slug: str, track_slug: str) -> str:
    """Path of a track page: ``venues/<venue-slug>/<track-slug>.html``."""
    return f"venues/{venue_slug}/{track_slug}.html"


def relative_url(from_path: str, to_path: str) -> str:
    """URL of ``to_path`` as linked from the page at ``from_path`` (both site-root relative).

    >>> relative_url("papers/a.html", "venues/iclr-2025/index.html")
    '../venues/iclr-2025/index.html'
    """
    start = posixpath.dirname(from_path) or "."
    return quote(posixpath.relpath(to_path, start), safe="/#?=&.-_~")


def absolute_url(base_url: str, path: str) -> str:
    """Absolute URL of ``path`` under ``base_url`` (which ends in ``/``); ``""`` without a base URL."""
    return base_url + quote(path, safe="/") if base_url else ""
