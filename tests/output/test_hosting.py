"""Hosting: GitHub Pages files (404, sitemap, robots, feeds, canonical links), dates, zip, offline use."""

from __future__ import annotations

import os
import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit
from xml.etree import ElementTree

import pytest

from conftest import build_into
from linkcheck import all_links, broken_links, internal_links
from papers_sample import SAMPLE, sample_records
from serving import ROOT, copy_seeds, running
from site_builder.model import urls
from site_builder.output.feeds import FEED_LIMIT, SITEMAP_LIMIT, sitemap_files
from site_builder.serve import make_server

BASE = "https://user.github.io/repo/"
ATOM = "{http://www.w3.org/2005/Atom}"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
EPOCH = "1717243200"  # any fixed SOURCE_DATE_EPOCH


def html_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))


def tree_bytes(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def pages_site(tmp_path_factory) -> Path:
    """The seeds built for GitHub Pages: with a base URL and SOURCE_DATE_EPOCH."""
    out = tmp_path_factory.mktemp("pages") / "_site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        assert build_into(out, "--base-url", BASE.rstrip("/")) == 0
    return out


def _shared(name: str) -> bool:
    """Whether the page ``name`` is one of those with Open Graph tags: the home, venue and paper pages."""
    return name == "index.html" or name.startswith("papers/") or re.fullmatch(r"venues/[^/]+/index\.html", name) is not None


def test_hosting_files_without_base_url(seed_site, seed_records):
    assert (seed_site / ".nojekyll").read_text() == ""
    assert not (seed_site / "sitemap.xml").exists()
    assert "Sitemap:" not in (seed_site / "robots.txt").read_text()
    assert "User-agent: *" in (seed_site / "robots.txt").read_text()
    for name in html_pages(seed_site):
        html = (seed_site / name).read_text(encoding="utf-8")
        assert 'rel="canonical"' not in html and "og:url" not in html, name
        # Open Graph tags where a page is shared (paper, venue and home pages), the feed link where a reader looks
        # for the feed (home and venue pages); not repeated on the other pages (issue 25, the site's size).
        assert ('property="og:title"' in html) == _shared(name), name
        assert ('type="application/atom+xml"' in html) == (_shared(name) and not name.startswith("papers/")), name
        assert "og:description" not in html, name
    # The 404 page's links are root-absolute (served at any depth); every other link is relative.
    not_found = internal_links(seed_site / "404.html")
    assert "/index.html" in not_found and "/search.html" in not_found
    # … and its style is inline: a root-absolute stylesheet would be fetched from the wrong place.
    assert "assets/style.css" not in " ".join(not_found)
    style = (seed_site / "assets/style.css").read_text(encoding="utf-8")
    assert f"<style>{style}</style>" in (seed_site / "404.html").read_text(encoding="utf-8")
    assert all(link.startswith(("/", "#")) for link in not_found)
    for name in html_pages(seed_site):
        if name != "404.html":
            assert not [u for u in internal_links(seed_site / name) if u.startswith("/")], name
    assert broken_links(seed_site) == []


def test_base_url_gives_absolute_urls_only_where_needed(pages_site, seed_site):
    pages = [p for p in html_pages(pages_site) if p != "404.html"]
    sitemap = ElementTree.parse(pages_site / "sitemap.xml").getroot()
    assert sitemap.tag == f"{SM}urlset"
    locs = [e.text for e in sitemap.iter(f"{SM}loc")]
    assert sorted(locs) == sorted(urls.canonical_url(BASE, p) for p in pages)
    assert BASE in locs and f"{BASE}venues/icml-2025/" in locs
    assert (pages_site / "robots.txt").read_text().splitlines()[-1] == f"Sitemap: {BASE}sitemap.xml"
    for name in pages:
        html = (pages_site / name).read_text(encoding="utf-8")
        canonical = re.search(r'<link rel="canonical" href="([^"]+)">', html).group(1)
        assert canonical == urls.canonical_url(BASE, name)
        assert (f'<meta property="og:url" content="{canonical}">' in html) == _shared(name), name
        assert bool(re.search(r'<meta property="og:title" content="[^"]+">', html)) == _shared(name), name
        assert ('content="article"' in html) == name.startswith("papers/")
        # Links stay relative: the only absolute link into the site is the canonical one.
        absolute = [u for u in all_links(pages_site / name) if u.startswith(BASE)]
        assert absolute == [canonical], name
    not_found = (pages_site / "404.html").read_text(encoding="utf-8")
    assert 'rel="canonical"' not in not_found and "<script>" not in not_found
    assert f'href="{BASE}index.html"' in not_found and f'href="{BASE}assets/style.css"' in not_found


def test_sitemap_splits_above_50000_urls():
    """Real slugs from the sample of real papers, enough pages each, give more URLs than one sitemap may hold."""
    slugs = [urls.make_slug(record["title"], "paper") for record in sample_records()]
    paths = [urls.paper_path(f"{slug}-{n}") for n in range(SITEMAP_LIMIT // len(slugs) + 1) for slug in slugs]
    assert SITEMAP_LIMIT < len(paths) < 2 * SITEMAP_LIMIT
    files = sitemap_files(BASE, paths)
    index = ElementTree.fromstring(files["sitemap.xml"])
    assert index.tag == f"{SM}sitemapindex"
    parts = [e.text for e in index.iter(f"{SM}loc")]
    assert parts == [f"{BASE}sitemap-1.xml", f"{BASE}sitemap-2.xml"]
    seen = []
    for part in parts:
        root = ElementTree.fromstring(files[part[len(BASE):]])
        locs = [e.text for e in root.iter(f"{SM}loc")]
        assert root.tag == f"{SM}urlset" and 0 < len(locs) <= SITEMAP_LIMIT
        seen += locs
    assert seen == [urls.absolute_url(BASE, p) for p in paths]
    assert list(sitemap_files(BASE, paths[:SITEMAP_LIMIT])) == ["sitemap.xml"]


def _feed(path: Path) -> ElementTree.Element:
    root = ElementTree.parse(path).getroot()
    assert root.tag == f"{ATOM}feed"
    for tag in ("id", "title", "updated", "author"):
        assert root.find(f"{ATOM}{tag}") is not None, tag
    return root


def test_atom_feeds(seed_site, seed_records, pages_site):
    whole = _feed(seed_site / "feed.xml")
    entries = whole.findall(f"{ATOM}entry")
    assert len(entries) == min(FEED_LIMIT, len(seed_records))
    ids = [e.find(f"{ATOM}id").text for e in entries]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"urn:uuid:[0-9a-f-]{36}", i) for i in ids)
    by_url = {r["url"]: r for r in seed_records}
    venues = sorted({(r["venue"], r["year"]) for r in seed_records})
    for venue, year in venues:
        feed_path = f"venues/{urls.make_slug(f'{venue} {year}', 'venue')}/feed.xml"
        root = _feed(seed_site / feed_path)
        hrefs = [e.find(f"{ATOM}link[@rel='alternate']").get("href") for e in root.findall(f"{ATOM}entry")]
        # Relative links resolve, from the feed's own place, to the papers of that venue.
        targets = [unquote(urlsplit(urljoin(feed_path, h)).path) for h in hrefs]
        of_venue = [u for u, r in by_url.items() if (r["venue"], r["year"]) == (venue, year)]
        assert set(targets) <= set(of_venue) and len(targets) == len(set(targets)) == min(FEED_LIMIT, len(of_venue))
        assert root.find(f"{ATOM}title").text.startswith(f"{venue} {year}")
        # the venue's page names its own feed beside the site's (found by the bytes pass: it named the site's alone)
        page = (seed_site / feed_path).with_name("index.html").read_text(encoding="utf-8")
        assert re.search(r'<link rel="alternate" type="application/atom\+xml" title="[^"]+" href="feed.xml">', page)
        assert re.search(r'<link rel="alternate" type="application/atom\+xml" title="[^"]+" href="../../feed.xml">', page)
    # With a base URL every link is absolute and the entry ids are the same.
    pages_feed = _feed(pages_site / "feed.xml")
    assert [e.find(f"{ATOM}id").text for e in pages_feed.findall(f"{ATOM}entry")] == ids
    links = [link.get("href") for link in pages_feed.iter(f"{ATOM}link")]
    assert links and all(h.startswith(BASE) for h in links)
    assert pages_feed.find(f"{ATOM}link[@rel='self']").get("href") == f"{BASE}feed.xml"


def _updated(site: Path) -> set[str]:
    return {e.text for e in ElementTree.parse(site / "feed.xml").getroot().iter(f"{ATOM}updated")}


def test_dates_honour_source_date_epoch(pages_site):
    expected = datetime.fromtimestamp(int(EPOCH), tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert _updated(pages_site) == {expected}


def test_dates_without_source_date_epoch_are_the_newest_list_mtime(tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    seeds, config = copy_seeds(tmp_path)
    stamps = {}
    for n, path in enumerate(sorted(seeds.glob("*.txt"))):
        stamps[path] = 1_600_000_000 + 86_400 * n * 37
        os.utime(path, (stamps[path], stamps[path]))
    newest = datetime.fromtimestamp(max(stamps.values()), tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert build_into(tmp_path / "a", seeds=seeds, config=config) == 0
    assert _updated(tmp_path / "a") == {newest}


def test_bad_source_date_epoch_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    assert build_into(tmp_path / "out") == 2
    assert "SOURCE_DATE_EPOCH" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_build_is_deterministic(tmp_path, monkeypatch, pages_site):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert build_into(tmp_path / "again", "--base-url", BASE) == 0
    assert tree_bytes(tmp_path / "again") == tree_bytes(pages_site)


def test_zip_is_deterministic_and_holds_the_site(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert build_into(tmp_path / "one", "--zip", str(tmp_path / "a" / "reading-list.zip")) == 0
    assert build_into(tmp_path / "two", "--zip", str(tmp_path / "b" / "reading-list.zip")) == 0
    first, second = (tmp_path / "a" / "reading-list.zip").read_bytes(), (tmp_path / "b" / "reading-list.zip").read_bytes()
    assert first == second
    with zipfile.ZipFile(tmp_path / "a" / "reading-list.zip") as archive:
        infos = archive.infolist()
        names = [i.filename for i in infos]
        assert names == sorted(names) and names[0] == "reading-list/"
        assert {i.date_time for i in infos} == {datetime.fromtimestamp(int(EPOCH), tz=timezone.utc).timetuple()[:6]}
        files = {n[len("reading-list/"):]: archive.read(n) for n in names if not n.endswith("/")}
        assert all(n.startswith("reading-list/") for n in names)
    site = tree_bytes(tmp_path / "one")
    site.pop(".site-builder")
    assert files == site


# --- in Chromium -------------------------------------------------------------------------------

def test_offline_from_disk_makes_no_network_request(seed_site, seed_records, browser_context, page, tmp_path):
    """Every kind of page, with its style, scripts, math and search, from file:// with the network off
    (the shared Chromium context switched offline, as ``offline=True`` would start it)."""
    requests: list[str] = []
    failed: list[str] = []
    math_paper = next(r for r in seed_records if "$" in r["abstract"])
    track_page = next(p for p in html_pages(seed_site) if p.startswith("venues/") and not p.endswith("index.html"))
    page.on("request", lambda request: requests.append(request.url))
    page.on("requestfailed", lambda request: failed.append(request.url))
    browser_context.set_offline(True)
    try:
        for name in ("index.html", "venues/icml-2025/index.html", track_page, math_paper["url"], "404.html"):
            page.goto((seed_site / name).as_uri())
            page.wait_for_load_state("load")
            styled = "document.styleSheets.length > 0 && Array.from(document.styleSheets).every(s => s.ownerNode.sheet)"
            assert page.evaluate(styled), name
        page.goto((seed_site / math_paper["url"]).as_uri())
        assert page.locator(".abstract-body math").count() > 0
        page.goto((seed_site / "search.html").as_uri() + "?q=controllability")
        page.wait_for_selector("#search-results a")
        page.screenshot(path=str(tmp_path / "offline-search.png"))
        # The 404 page opened from disk points its links at the site folder.
        page.goto((seed_site / "404.html").as_uri())
        assert page.eval_on_selector(".site-title", "a => a.href") == (seed_site / "index.html").as_uri()
    finally:
        browser_context.set_offline(False)
    assert failed == []
    assert requests and all(url.startswith("file://") for url in requests), [u for u in requests if not u.startswith("file:")]


def test_404_page_works_at_any_depth_under_a_sub_path(seed_site, page, tmp_path):
    """As GitHub Pages serves /repo/404.html for any missing path: its links lead into /repo/."""
    with running(make_server(seed_site, "127.0.0.1", 0, "/repo/")) as port:
        origin = f"http://127.0.0.1:{port}"
        for missing in ("/repo/nothing-here", "/repo/papers/no-such-paper.html", "/repo/a/b/c/d/e.html",
                        "/repo/venues/icml-2025/missing/deeper/"):
            response = page.goto(origin + missing)
            assert response.status == 404
            page.wait_for_function(f"document.querySelector('.site-title').href === '{origin}/repo/index.html'")
            assert page.evaluate("Array.from(document.styleSheets).some(s => s.cssRules.length > 0)")
            assert page.eval_on_selector(".search-form", "f => f.action") == f"{origin}/repo/search.html"
        page.screenshot(path=str(tmp_path / "404.png"))
        page.click(".site-title")
        page.wait_for_load_state()
        assert page.url == f"{origin}/repo/index.html" and page.locator("h1").count() == 1


def test_workflow_builds_with_the_readme_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"```sh\n(bash scripts/venv\.sh && npm ci && \.venv/bin/python build\.py)\n```", readme).group(1)
    workflow = (ROOT / ".github/workflows/pages.yml").read_text(encoding="utf-8")
    assert command + " --base-url" in workflow
    for action in ("actions/configure-pages@", "actions/upload-pages-artifact@", "actions/deploy-pages@"):
        assert action in workflow
    assert "include-hidden-files: true" in workflow and "SOURCE_DATE_EPOCH" in workflow


def test_feeds_hold_the_newest_papers_latest_year_first_then_list_order():
    """On 400 real papers (of the sample): each feed has at most FEED_LIMIT entries, the newest ones (latest year
    first, then the site's display order); every venue feed holds its venue's first papers in display order."""
    from site_builder.corpus import corpus_site, read_corpus
    from site_builder.output.feeds import entry_id, feed_files

    site = corpus_site(read_corpus(SAMPLE, sample=400, seed=3))
    papers = list(site.papers)
    assert len({p.venue.year for p in papers}) > 1 and len(papers) > FEED_LIMIT
    files = feed_files(site, datetime(2026, 1, 1, tzinfo=timezone.utc))

    def entry_ids(text: str) -> list[str]:
        root = ElementTree.fromstring(text)
        return [e.find(f"{ATOM}id").text for e in root.findall(f"{ATOM}entry")]

    whole = entry_ids(files["feed.xml"])
    by_id = {entry_id(p): p for p in papers}
    years = [by_id[i].venue.year for i in whole]
    assert len(whole) == FEED_LIMIT and years == sorted(years, reverse=True)
    assert years[0] == max(p.venue.year for p in papers)
    # No paper left out is newer than the oldest one kept; within a year the display order holds, without gaps.
    position = {entry_id(p): n for n, p in enumerate(papers)}
    left_out = [p for p in papers if entry_id(p) not in set(whole)]
    assert all(p.venue.year <= years[-1] for p in left_out)
    last = max(position[i] for i in whole if by_id[i].venue.year == years[-1])
    assert all(position[entry_id(p)] > last for p in left_out if p.venue.year == years[-1])
    for year in set(years):
        kept = [position[i] for i in whole if by_id[i].venue.year == year]
        assert kept == sorted(kept)
    for venue in site.venues:
        ids = entry_ids(files[urls.venue_feed_path(venue.slug)])
        assert ids == [entry_id(p) for p in site.papers_of(venue)][:FEED_LIMIT]


def test_feed_escaping_is_the_standard_librarys_on_every_text_of_the_corpus():
    """feeds.escape/quoteattr stand in for xml.sax.saxutils' (not imported: its module costs every build's
    start ~10 ms): the same strings for every text field of the sample of real papers and quoting corner cases."""
    from xml.sax import saxutils

    from site_builder.output import feeds

    samples = ['a"b', "a'b", "a'\"b", "x\n\r\t<&>y", "", "'", '"', "&amp;", "]]>"]
    for record in sample_records():
        samples += [value for value in record.values() if isinstance(value, str)]
        samples += [name for name in record["authors"]]
    assert len(samples) > 4_000
    assert [feeds.escape(s) for s in samples] == [saxutils.escape(s) for s in samples]
    assert [feeds.quoteattr(s) for s in samples] == [saxutils.quoteattr(s) for s in samples]
