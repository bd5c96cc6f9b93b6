"""Every output path and URL of the site, decided in one place.

Paths are POSIX, relative to the site root, and always name a file
(``…/index.html`` or ``….html``) so the same output works from ``file://``,
at a domain root and under a sub-path such as ``/repo/``.
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import Callable
from urllib.parse import quote

from ..incremental import strmemo

HOME = "index.html"
SEARCH = "search.html"
PAPERS_JSON = "papers.json"
# The search index in shards (site_builder/search/shards.py): its manifest, term shards and result records.
SEARCH_FOLDER = "search"
SEARCH_MANIFEST_JS = "search/manifest.js"
ASSETS = "assets"
LUNR_JS = "assets/lunr.min.js"
NOT_FOUND = "404.html"
NOJEKYLL = ".nojekyll"
ROBOTS = "robots.txt"
SITEMAP = "sitemap.xml"
FEED = "feed.xml"
# Reading-list features (issue 7): authors, tags, keywords, "My list", BibTeX.
AUTHORS = "authors/index.html"
TAGS = "tags/index.html"
KEYWORDS = "keywords/index.html"
STARS = "stars.html"
SITE_BIB = "papers.bib"
STARS_JS = "assets/stars.js"
STRINGS_JS = "assets/strings.js"  # written by the build for a site in another language than English
# The paper map (issue 21): its page, its data (a classic script, so the page works from file://), its script.
MAP = "map.html"
MAP_DATA_JS = "map-data.js"
MAP_JS = "assets/map.js"

#: Names the site's own files take; no slug may take one of them.
RESERVED = frozenset({"index", "search", "papers", "venues", "tracks", "assets", "search-index", "404", "sitemap",
                      "robots", "feed", "authors", "tags", "keywords", "stars", "map", "map-data"})
#: Device names Windows refuses as file names, whatever the extension.
WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)}
)


@functools.cache
def slugifier() -> Callable[..., str]:
    """python-slugify's ``slugify`` (https://github.com/un33k/python-slugify), imported on first use, not at
    import: ~10 ms of CPU (it and text-unidecode, its patterns) that a rebuild, whose slugs and BibTeX key words
    come from the :mod:`strmemo` tables, does not spend."""
    from slugify import slugify as function

    return function


@strmemo.memoized("make_slug")  # venue and track slugs repeat once per paper; kept across builds
def make_slug(text: str, fallback: str, max_length: int = 60) -> str:
    """Return a safe file-name slug for ``text``.

    ASCII letters, digits and hyphens only (non-Latin text is transliterated
    by python-slugify/text-unidecode); never empty (``fallback`` then), never
    a Windows device name (``con``, ``nul``, ``com1`` …) nor one of the
    site's own file names (:data:`RESERVED`); those get ``-<fallback>`` appended. A text longer than
    ``max_length`` is cut at a word boundary keeping the words' order (``save_order``: the slug is a prefix of
    the full one, never the first words and then some later ones that fit).
    """
    slug = slugifier()(text, max_length=max_length, word_boundary=True, save_order=True) or fallback
    if slug in WINDOWS_RESERVED or slug in RESERVED:
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


def venue_feed_path(venue_slug: str) -> str:
    """Path of a venue's Atom feed: ``venues/<venue-slug>/feed.xml``."""
    return f"venues/{venue_slug}/feed.xml"


def sitemap_part_path(number: int) -> str:
    """Path of part ``number`` (1-based) of a sitemap split by a sitemap index: ``sitemap-<n>.xml``."""
    return f"sitemap-{number}.xml"


def author_path(author_slug: str) -> str:
    """Path of an author page: ``authors/<author-slug>.html``."""
    return f"authors/{author_slug}.html"


def author_search_path(name: str) -> str:
    """Site-root relative address of the search for ``name`` as an author (the A–Z index's link for an author
    without a page of their own): ``search.html?q=author:"<name>"``, the characters that would end the
    phrase or the query (``"&#=?``) as spaces, the rest quoted by the page's ``link`` (:func:`relative_url`).

    >>> author_search_path("Ana Pérez")
    'search.html?q=author:"Ana Pérez"'
    """
    words = _QUERY_ENDS.sub(" ", name).split()
    return f'{SEARCH}?q=author:"{" ".join(words)}"'


_QUERY_ENDS = re.compile(r'["&#=?]')


def author_letter_path(letter: str) -> str:
    """Path of one letter of a large author index: ``authors/az/<a-z or other>.html``.

    (Author pages never live in a subfolder, so no author slug can take this path.)
    """
    name = letter.lower() if len(letter) == 1 and "a" <= letter.lower() <= "z" else "other"
    return f"authors/az/{name}.html"


def tag_path(tag_slug: str) -> str:
    """Path of the page of one of the curator's tags: ``tags/<tag-slug>.html``."""
    return f"tags/{tag_slug}.html"


def keyword_path(keyword_slug: str) -> str:
    """Path of the page of one keyword given by the lists: ``keywords/<keyword-slug>.html``."""
    return f"keywords/{keyword_slug}.html"


#: Papers an abstracts file holds at most, on average: a venue's papers are split by the first hex digits of
#: their ids (:func:`abstracts_digits`), so a paper's file never changes when papers are added or removed.
ABSTRACTS_PER_FILE = 64


def abstracts_digits(venue_size: int) -> int:
    """How many leading hex digits of a paper id name its abstracts file in a venue of ``venue_size`` papers:
    1 up to 1,024 papers (16 files of at most ~64), 2 up to 16,384, else 3."""
    digits = 1
    while 16 ** digits * ABSTRACTS_PER_FILE < venue_size and digits < 3:
        digits += 1
    return digits


def abstracts_ref(venue_slug: str, paper_id: str, venue_size: int) -> str:
    """What a list item names its abstracts file by, ``<venue-slug>/<first hex digits of the id>`` (short: a
    list page names one per item; ``assets/abstracts.js`` makes the file's path of it, :func:`abstracts_path`)."""
    return f"{venue_slug}/{paper_id[:abstracts_digits(venue_size)]}"


def abstracts_path(ref: str) -> str:
    """Path of the file holding the abstracts of :func:`abstracts_ref` ``ref`` for list pages (loaded on first
    use): ``venues/<venue-slug>/abstracts/<first hex digits of the ids>.js``."""
    venue_slug, digits = ref.rsplit("/", 1)
    return f"venues/{venue_slug}/abstracts/{digits}.js"


def venue_bib_path(venue_slug: str) -> str:
    """Path of a venue's BibTeX file: ``venues/<venue-slug>/papers.bib``."""
    return f"venues/{venue_slug}/papers.bib"


def relative_url(from_path: str, to_path: str) -> str:
    """URL of ``to_path`` as linked from the page at ``from_path`` (both site-root relative).

    >>> relative_url("papers/a.html", "venues/iclr-2025/index.html")
    '../venues/iclr-2025/index.html'
    """
    start = posixpath.dirname(from_path) or "."
    return quote(posixpath.relpath(to_path, start), safe="/#?=&.-_~")


def relative_url_from(folder: str, to_path: str) -> str:
    """:func:`relative_url` from a page in ``folder`` (``""``: the site root) to ``to_path``, computed on the
    strings alone (faster; the site's paths are normalised: no ``.``, ``..`` or empty segments).

    >>> relative_url_from("venues/iclr-2025", "venues/iclr-2025/theory.html")
    'theory.html'
    """
    here = folder.split("/") if folder else []
    there = to_path.split("/")
    common = 0
    while common < len(here) and common < len(there) - 1 and here[common] == there[common]:
        common += 1
    url = "/".join([".."] * (len(here) - common) + there[common:])
    return url if _URL_SAFE(url) else quote(url, safe="/#?=&.-_~")  # quote leaves these unchanged


#: Whether a string has only characters :func:`quote` with ``safe="/#?=&.-_~"`` keeps as they are.
_URL_SAFE = re.compile(r"[A-Za-z0-9/#?=&._~-]*").fullmatch


def absolute_url(base_url: str, path: str) -> str:
    """Absolute URL of ``path`` under ``base_url`` (which ends in ``/``); ``""`` without a base URL."""
    return base_url + quote(path, safe="/") if base_url else ""


def canonical_url(base_url: str, path: str) -> str:
    """Absolute URL of the page at ``path`` as search engines should name it: a folder's
    ``index.html`` is named by the folder (``…/venues/iclr-2025/``); ``""`` without a base URL."""
    if path == "index.html" or path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return absolute_url(base_url, path)


def search_shard_path(k: int) -> str:
    """The path of the search index's term shard number ``k`` (``k`` ≥ 0)."""
    return f"{SEARCH_FOLDER}/terms/{k}.js"


def search_record_path(ref: str) -> str:
    """The path of the search result record of the paper whose index ref is ``ref`` (``[0-9a-z]+``)."""
    return f"{SEARCH_FOLDER}/records/{ref}.js"


def search_ref(n: int) -> str:
    """The search index ref of the ``n``-th paper of the site: ``n`` in base 36 (``0``…``z``, ``10``…), short to keep the index small."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, d = divmod(n, 36)
        out = digits[d] + out
        if not n:
            return out
