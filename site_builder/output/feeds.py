"""Files for crawlers and feed readers: the build date, ``sitemap.xml``, ``robots.txt`` and Atom feeds.

Formats:

- Sitemaps: the sitemaps.org protocol 0.9 (https://www.sitemaps.org/protocol.html): at most
  50,000 absolute ``<loc>`` URLs per file; above that, ``sitemap.xml`` is a sitemap index naming
  ``sitemap-1.xml``, ``sitemap-2.xml``, … Written only with a base URL (the protocol needs absolute URLs).
- ``robots.txt``: the Robots Exclusion Protocol (RFC 9309); names the sitemap when there is one.
  Crawlers read it only at a domain root, so under a GitHub Pages sub-path it is informative only.
- Atom 1.0 (RFC 4287): one feed for the whole site and one per venue, each with the newest
  :data:`FEED_LIMIT` papers (:func:`newest`): newest is the latest year, then the order in which the
  site lists the papers (venue, track, title: the lists carry no dates; the lists' file names and
  their order on disk must not change the output, ``tests/test_robustness.py``). Like Hugo's ``rssLimit`` and jekyll-feed's
  ``posts_limit`` (10), a feed is a window on recent items, not an archive: ``papers.json`` and the
  ``.bib`` files hold every paper.
  Links are absolute with a base URL, else relative to the feed file (RFC 4287 §3.3 allows IRI
  references resolved against the feed's own URI). Entry ids are ``urn:uuid:`` names (UUID v5 of the
  paper id), so they survive a move of the site.

Dates (:func:`build_time`): ``SOURCE_DATE_EPOCH`` when set (reproducible-builds.org spec), else the
newest modification time of the input files, so that the same input always gives the same output.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path

from ..model import urls
from ..model.site import Paper, Site, Venue

SITEMAP_LIMIT = 50_000
#: Entries per Atom feed (the newest papers, see :func:`newest`).
FEED_LIMIT = 50
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
ATOM_NS = "http://www.w3.org/2005/Atom"
GENERATOR = "site_builder"
#: Characters XML 1.0 does not allow in a document (https://www.w3.org/TR/xml/#charsets).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class DateError(ValueError):
    """``SOURCE_DATE_EPOCH`` is set but is not a non-negative integer."""


def build_time(inputs: list[Path], environ: dict | None = None) -> datetime:
    """The date the build stamps on feeds and the zip, as an aware UTC datetime (whole seconds).

    ``SOURCE_DATE_EPOCH`` (seconds since 1970-01-01 UTC, from ``environ``, default
    ``os.environ``) wins; else the newest mtime among the ``inputs`` that exist; else the epoch.
    Raises :class:`DateError` when ``SOURCE_DATE_EPOCH`` is malformed (the spec asks builds to fail).
    """
    environ = os.environ if environ is None else environ
    raw = environ.get("SOURCE_DATE_EPOCH")
    if raw is not None and raw.strip() != "":
        if not raw.strip().isdigit():
            raise DateError(f"SOURCE_DATE_EPOCH must be a non-negative integer, got {raw!r}")
        seconds = int(raw.strip())
    else:
        seconds = max((int(p.stat().st_mtime) for p in inputs if p.is_file()), default=0)
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def rfc3339(moment: datetime) -> str:
    """``moment`` as an RFC 3339 UTC timestamp, e.g. ``2025-01-31T12:00:00Z``."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def escape(data: str) -> str:
    """``data`` with ``&``, ``<`` and ``>`` escaped: :func:`xml.sax.saxutils.escape` (whose module imports
    ``urllib.request``, ``http.client`` and ``ssl``, ~10 ms of every build's start)."""
    return data.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(data: str) -> str:
    """``data`` escaped and quoted as an XML attribute value: :func:`xml.sax.saxutils.quoteattr`
    (newline, carriage return and tab as character references; ``'`` quotes when ``data`` holds
    ``"`` but no ``'``, else ``"`` quotes and ``&quot;``)."""
    data = escape(data).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' in data:
        return '"%s"' % data.replace('"', "&quot;") if "'" in data else "'%s'" % data
    return '"%s"' % data


def _text(value: str) -> str:
    return escape(_NOT_XML.sub("", value))


def _attr(value: str) -> str:
    return quoteattr(_NOT_XML.sub("", value))


def sitemap_files(base_url: str, paths: list[str], limit: int = SITEMAP_LIMIT) -> dict[str, str]:
    """The sitemap files for the pages at ``paths`` (site-root relative) under ``base_url``.

    Returns ``{output path: XML text}``: ``{"sitemap.xml": urlset}`` for up to ``limit`` pages,
    else ``sitemap.xml`` as a sitemap index over parts of at most ``limit`` URLs each.
    Empty without a base URL. Page order is kept.
    """
    if not base_url:
        return {}
    locs = [urls.canonical_url(base_url, p) for p in paths]
    chunks = [locs[i:i + limit] for i in range(0, len(locs), limit)] or [[]]

    def urlset(chunk: list[str]) -> str:
        body = "".join(f"<url><loc>{_text(loc)}</loc></url>\n" for loc in chunk)
        return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}">\n{body}</urlset>\n'

    if len(chunks) == 1:
        return {urls.SITEMAP: urlset(chunks[0])}
    files = {urls.sitemap_part_path(n): urlset(chunk) for n, chunk in enumerate(chunks, 1)}
    body = "".join(f"<sitemap><loc>{_text(urls.absolute_url(base_url, part))}</loc></sitemap>\n" for part in files)
    files[urls.SITEMAP] = (f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SITEMAP_NS}">\n'
                           f"{body}</sitemapindex>\n")
    return files


def robots_txt(base_url: str, sitemap: bool) -> str:
    """``robots.txt``: everything allowed; a ``Sitemap:`` line when ``sitemap`` and a base URL are given."""
    text = "User-agent: *\nAllow: /\n"
    if base_url and sitemap:
        text += f"\nSitemap: {urls.absolute_url(base_url, urls.SITEMAP)}\n"
    return text


def entry_id(paper: Paper) -> str:
    """The Atom id of ``paper``: ``urn:uuid:`` + UUID v5 (RFC 9562) of its stable paper id."""
    import uuid  # (here: only the feeds need it, written beside the pages on a rebuild)

    return "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"site-builder:paper:{paper.id}"))


def _href(base_url: str, feed_path: str, target: str) -> str:
    if base_url:
        return urls.canonical_url(base_url, target)
    return urls.relative_url_from(feed_path.rpartition("/")[0], target)


def atom_feed(site: Site, feed_path: str, title: str, papers: list[Paper], updated: datetime,
              page_path: str) -> str:
    """The Atom 1.0 document at ``feed_path`` with one entry per paper of ``papers``.

    ``page_path`` is the HTML page the feed mirrors (its ``alternate`` link); ``updated`` stamps
    the feed and every entry (the lists carry no dates). Summaries are the abstracts as plain text.
    """
    import uuid

    base = site.config.base_url
    stamp = rfc3339(updated)
    feed_id = (urls.absolute_url(base, feed_path) if base else
               "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"site-builder:feed:{site.config.title}:{feed_path}")))
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        f'<feed xmlns="{ATOM_NS}">\n',
        f"<id>{_text(feed_id)}</id>\n",
        f"<title>{_text(title)}</title>\n",
    ]
    if site.config.description:
        out.append(f"<subtitle>{_text(site.config.description)}</subtitle>\n")
    out += [
        f"<updated>{stamp}</updated>\n",
        f"<author><name>{_text(site.config.title)}</name></author>\n",
        f'<link rel="self" type="application/atom+xml" href={_attr(_href(base, feed_path, feed_path))}/>\n',
        f'<link rel="alternate" type="text/html" href={_attr(_href(base, feed_path, page_path))}/>\n',
        f"<generator>{GENERATOR}</generator>\n",
    ]
    for paper in papers:
        out.append("<entry>\n")
        out.append(f"<id>{entry_id(paper)}</id>\n")
        out.append(f"<title>{_text(paper.title_text)}</title>\n")
        out.append(f"<updated>{stamp}</updated>\n")
        out.append(f'<link rel="alternate" type="text/html" href={_attr(_href(base, feed_path, paper.path))}/>\n')
        for name in paper.authors:
            out.append(f"<author><name>{_text(name)}</name></author>\n")
        out.append(f"<category term={_attr(paper.venue.label)}/>\n")
        if paper.track:
            out.append(f"<category term={_attr(paper.track.label)}/>\n")
        out.append(f"<summary>{_text(paper.rendered.text)}</summary>\n")
        out.append("</entry>\n")
    out.append("</feed>\n")
    return "".join(out)


def newest(papers: list[Paper], limit: int = FEED_LIMIT) -> list[Paper]:
    """The first ``limit`` of ``papers`` by year, latest first; papers of one year keep their order in
    ``papers`` (the site's display order; a stable sort)."""
    return sorted(papers, key=lambda paper: -paper.venue.year)[:limit]


def feed_plan(site: Site) -> list[tuple[str, str, list[Paper], str]]:
    """``(path, title, papers, page path)`` of every Atom feed of ``site`` (what :func:`atom_feed` takes):
    ``feed.xml`` for the whole site, then ``venues/<slug>/feed.xml`` per venue, each with the
    :func:`newest` :data:`FEED_LIMIT` papers."""
    plan = [(urls.FEED, site.config.title, newest(list(site.papers)), urls.HOME)]
    by_venue: dict[str, list[Paper]] = {}
    for paper in site.papers:
        by_venue.setdefault(paper.venue.slug, []).append(paper)
    for venue in site.venues:
        plan.append((urls.venue_feed_path(venue.slug), f"{venue.label} · {site.config.title}",
                     newest(by_venue.get(venue.slug, [])), venue.path))
    return plan


def feed_files(site: Site, updated: datetime) -> dict[str, str]:
    """Every Atom feed of ``site``: ``{"feed.xml": whole site, "venues/<slug>/feed.xml": one venue, …}``,
    each with the :func:`newest` :data:`FEED_LIMIT` papers (:func:`feed_plan`)."""
    return {path: atom_feed(site, path, title, papers, updated, page) for path, title, papers, page in feed_plan(site)}


def write_feeds(site: Site, updated: datetime, output, cache=None) -> list[str]:
    """Write every Atom feed of ``site`` (:func:`feed_files`) into ``output`` (a :class:`~site_builder.output.writer.Output`);
    returns their paths. The bytes are the same with or without ``cache``.

    With ``cache`` (a :class:`~site_builder.incremental.cache.BuildCache`), a feed's key is the digest of what it
    shows but the build date (its path, title, page, the config's title, description and base URL, its
    papers: :meth:`~site_builder.incremental.outputs.OutputRecord.key`). When the previous build wrote the feed with that
    key and the file is still as it left it (:meth:`~site_builder.incremental.outputs.OutputRecord.reusable`), the file is
    kept if it has this build's date, else written again as its text with the date replaced
    (:func:`_restamped`), instead of from the papers: a rebuild after an edit stamps the lists' newest
    mtime (:func:`build_time`) on every feed, while few feeds show an edited paper.
    """
    stamp, paths = rfc3339(updated), []
    enabled = cache is not None and cache.enabled
    config = site.config
    for path, title, papers, page in feed_plan(site):
        paths.append(path)
        key = cache.outputs.key("atom feed", path, title, page, config.title, config.description, config.base_url,
                        papers) if enabled else None
        previous = cache.outputs.reusable(path, key) if enabled else None
        text = _restamped(previous, stamp) if previous is not None else None
        if text is not None and text[0] == stamp and cache.outputs.reuse(path, key, output):
            continue
        output.write_text(path, text[1] if text is not None else atom_feed(site, path, title, papers, updated, page))
        if enabled:
            cache.outputs.record(path, key, output)
    return paths


def _restamped(file: Path, stamp: str) -> tuple[str, str] | None:
    """``(its date, its text with that date replaced by stamp)`` of a feed written by :func:`atom_feed`, or
    None when it cannot be read or holds no date. The date is the text of every ``<updated>`` element, the
    feed's (the first) and each entry's, and no other text of the feed can hold ``<updated>``: titles,
    names, summaries and the configured texts are escaped (:func:`_text`, :func:`_attr`)."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    start = text.find("<updated>")
    end = text.find("</updated>", start)
    if start < 0 or end < 0:
        return None
    old = text[start + len("<updated>"):end]
    return old, text if old == stamp else text.replace(f"<updated>{old}</updated>", f"<updated>{stamp}</updated>")


def venue_feed(site: Site, venue: Venue, updated: datetime, papers: list[Paper] | None = None) -> str:
    """The Atom feed of one venue's :func:`newest` papers (``papers``: the venue's papers in display
    order when the caller has them, else ``site.papers_of(venue)``)."""
    papers = papers if papers is not None else site.papers_of(venue)
    return atom_feed(site, urls.venue_feed_path(venue.slug), f"{venue.label} · {site.config.title}",
                     newest(list(papers)), updated, venue.path)
