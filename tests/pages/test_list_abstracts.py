"""Abstracts in place on list pages (issue 22): every item of a venue, track, author, tag or keyword page has an
"Abstract" disclosure; its abstract comes from one abstracts file per group of a venue's papers, the same HTML
as on the paper's page; "Show all abstracts" opens every item and is remembered; without JavaScript the
disclosure shows the paper's page at #abstract-only (its abstract alone), fetched only when opened. Checked on the seed site, from file:// and under /repo/ over HTTP."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from features_support import elements
from serving import repo_server, running  # noqa: F401 (repo_server: a fixture)
from site_builder.model import urls
from site_builder.serve import make_server

ABSTRACT_BODY = re.compile(r'<div class="abstract-body">(.*?)</div>\s*</section>', re.S)  # the paper page's
FILE_DATA = re.compile(r"^siteAbstracts\((.*)\);\n\Z", re.S)


def _abstract_files(site: Path) -> dict[str, dict[str, str]]:
    """Every abstracts file of the site: its path (relative to the site) → {paper id: abstract HTML}."""
    return {p.relative_to(site).as_posix(): json.loads(FILE_DATA.match(p.read_text(encoding="utf-8")).group(1))
            for p in site.glob("venues/*/abstracts/*.js")}


def _list_pages(site: Path) -> list[Path]:
    pages = [p for p in site.glob("venues/*/*.html")]
    return pages + [p for folder in ("authors", "tags", "keywords") for p in (site / folder).glob("*.html")
                    if p.name != "index.html"]


def test_each_paper_has_its_abstract_once_as_on_its_page(seed_site, seed_records):
    files = _abstract_files(seed_site)
    held = [pid for data in files.values() for pid in data]
    assert sorted(held) == sorted(r["id"] for r in seed_records), "every paper, once"
    html_of = {pid: html for data in files.values() for pid, html in data.items()}
    for record in seed_records:
        page = (seed_site / record["url"]).read_text(encoding="utf-8")
        assert ABSTRACT_BODY.search(page).group(1) == html_of[record["id"]], record["url"]


def test_a_paper_without_an_abstract_has_no_disclosure_on_list_pages(tmp_path):
    """(found by a new-user pass: its "Abstract" opened to nothing) the paper page says the list gives none."""
    from conftest import build_into

    seeds = tmp_path / "seeds"
    seeds.mkdir()
    rows = [{"title": "With an Abstract", "authors": ["Ann Lee"], "venue": "ICLR", "year": 2025,
             "abstract": "We study attention."},
            {"title": "Without One", "authors": ["Ann Lee"], "venue": "ICLR", "year": 2025}]
    (seeds / "papers.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    (tmp_path / "site.toml").write_text("", encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=tmp_path / "site.toml") == 0
    for page in (tmp_path / "site" / "venues" / "iclr-2025" / "index.html", tmp_path / "site" / "authors" / "ann-lee.html"):
        toggles, title = {}, None
        for tag, attrs, text in elements(page):
            if tag == "a" and "paper-link" in attrs.get("class", ""):
                title = text
            elif tag == "details" and "abstract-toggle" in attrs.get("class", ""):
                toggles[title] = attrs["data-abstracts"]
        assert list(toggles) == ["With an Abstract"], page


def test_every_list_item_names_the_file_holding_its_abstract(seed_site, seed_records):
    files = _abstract_files(seed_site)
    checked, seen, on_author_pages = 0, set(), 0
    for page in _list_pages(seed_site):
        paper_id = None
        for tag, attrs, _ in elements(page):
            if tag == "li" and "paper-item" in attrs.get("class", ""):
                paper_id = attrs["data-paper-id"]
            elif tag == "details" and "abstract-toggle" in attrs.get("class", ""):
                assert paper_id in files[urls.abstracts_path(attrs["data-abstracts"])], (page, paper_id)
                checked, seen = checked + 1, seen | {paper_id}
                on_author_pages += page.parent.name == "authors"
    # a paper is listed on its venue's page, its track's and its authors' (those with a page)
    assert seen == {r["id"] for r in seed_records} and checked > len(seed_records) and on_author_pages > 10


def _venue_page(seed_site: Path) -> str:
    return sorted(p for p in seed_site.glob("venues/*/index.html"))[0].relative_to(seed_site).as_posix()


def _check_disclosures(page, url: str, seed_site: Path) -> None:
    page.goto(url)
    page.evaluate("localStorage.clear()")
    page.reload()
    items = page.locator(".paper-item")
    first = items.nth(0)
    first.locator("summary").focus()
    page.keyboard.press("Enter")  # keyboard only
    page.wait_for_selector(".paper-item >> nth=0 >> .abstract-toggle[data-filled]")
    paper_url = first.locator(".paper-link").get_attribute("href")
    shown = first.locator(".abstract-body").inner_text()
    page.goto(url.rsplit("/", 1)[0] + "/" + paper_url)
    assert page.locator("section.abstract .abstract-body").inner_text() == shown
    page.goto(url)
    button = page.locator("button.show-abstracts")
    assert button.get_attribute("aria-pressed") == "false"
    button.click()
    page.wait_for_function("document.querySelectorAll('.abstract-toggle:not([data-filled])').length === 0")
    count = items.count()
    page.reload()  # remembered for the site
    page.wait_for_function(f"document.querySelectorAll('.abstract-toggle[data-filled][open]').length === {count}")
    assert page.locator("button.show-abstracts").get_attribute("aria-pressed") == "true"
    page.locator("button.show-abstracts").click()
    assert page.locator(".abstract-toggle[open]").count() == 0


def test_abstracts_open_in_place_from_disk(seed_site, page):
    _check_disclosures(page, (seed_site / _venue_page(seed_site)).as_uri(), seed_site)


def test_abstracts_open_in_place_under_a_sub_path(seed_site, page):
    with running(make_server(seed_site, "127.0.0.1", 0, "/repo/")) as port:
        _check_disclosures(page, f"http://127.0.0.1:{port}/repo/{_venue_page(seed_site)}", seed_site)


@pytest.fixture
def nojs_tab(browser_context):
    """A page of the shared context with JavaScript off (as tests/pages/test_accessibility.py's nojs_page:
    Playwright's java_script_enabled=False is this DevTools command; a second Playwright cannot start)."""
    tab = browser_context.new_page()
    session = browser_context.new_cdp_session(tab)
    session.send("Emulation.setScriptExecutionDisabled", {"value": True})
    _SESSIONS[tab] = session
    yield tab
    _SESSIONS.pop(tab, None)
    tab.close()


#: The DevTools session that turned each nojs_tab's JavaScript off.
_SESSIONS: dict = {}


def _frame_of(embed):
    """The document an <object> shows (found by its address: Playwright's content_frame() is for iframes),
    once it has one: it is made on a task after the object is rendered."""
    address = embed.get_attribute("data").rsplit("/", 1)[1]
    for _ in range(100):
        found = [f for f in embed.page.frames if f.url.endswith("/" + address)]
        if found:
            found[0].locator("section.abstract").wait_for()
            return found[0]
        embed.page.wait_for_timeout(100)
    raise AssertionError(f"the <object> shows no document for {address}")


def _open_without_javascript(tab, url: str):
    """Open ``url`` in ``tab`` (JavaScript off); return its requests of paper pages after load, after opening
    the first two disclosures, their papers' links and the texts they show (their frames' visible text)."""
    requests: list[str] = []
    tab.on("request", lambda r: requests.append(r.url))
    tab.goto(url)
    tab.mouse.wheel(0, 20000)  # scrolled through: nothing lazy either
    tab.wait_for_timeout(500)
    before = [u for u in requests if "/papers/" in u]
    assert tab.locator("button.show-abstracts").count() == 0
    assert tab.locator(".abstract-toggle object").count() == tab.locator(".paper-item").count()
    items = tab.locator(".paper-item")
    for i in range(2):
        items.nth(i).locator("summary").click()
        assert not items.nth(i).locator(".abstract-toggle > a").is_visible()  # the JS path's link
    frames = [_frame_of(items.nth(i).locator("object")) for i in range(2)]
    hrefs = [items.nth(i).locator(".paper-link").get_attribute("href") for i in range(2)]
    shown = [frame.locator("body").inner_text().strip() for frame in frames]
    return before, [u for u in requests if "/papers/" in u], hrefs, shown


def _check_without_javascript(tab, url: str, seed_site: Path) -> None:
    before, after, hrefs, shown = _open_without_javascript(tab, url)
    assert before == [], "a closed disclosure loads nothing"
    assert [u.rsplit("/", 1)[1] for u in after] == [h.rsplit("/", 1)[1] for h in hrefs]
    folder = seed_site / url.split("/repo/")[-1] if "/repo/" in url else Path(url[len("file://"):])
    for href, text in zip(hrefs, shown):
        page = (folder.parent / href).resolve().read_text(encoding="utf-8")
        words = re.sub(r"<[^>]+>", " ", ABSTRACT_BODY.search(page).group(1)).split()
        assert text.split()[:8] == words[:8] and len(text) > 200, href  # the abstract, and nothing before it


def test_without_javascript_the_disclosure_shows_the_abstract_from_disk(seed_site, nojs_tab):
    _check_without_javascript(nojs_tab, (seed_site / _venue_page(seed_site)).as_uri(), seed_site)


def test_without_javascript_the_disclosure_shows_the_abstract_under_a_sub_path(seed_site, repo_server, nojs_tab):
    _check_without_javascript(nojs_tab, repo_server + _venue_page(seed_site), seed_site)


def test_a_paper_page_at_abstract_only_shows_its_abstract_alone(seed_site, seed_records, nojs_tab):
    url = (seed_site / seed_records[0]["url"]).as_uri()
    for fragment, alone in (("#abstract", False), ("#abstract-only", True)):
        nojs_tab.goto("about:blank")
        nojs_tab.goto(url + fragment)
        assert nojs_tab.locator("section.abstract .abstract-body").is_visible()
        for other in (".site-header", "h1.paper-title", ".paper-meta", "section.cite", ".site-footer",
                      "#abstract-heading"):
            assert nojs_tab.locator(other).is_visible() != alone, (fragment, other)


#: The darkest pixel (luminance 0–255) of each row of a PNG, read in a canvas of a page with JavaScript.
_DARKEST_ROWS = """async (url) => {
  const img = new Image(); img.src = url; await img.decode();
  const c = document.createElement("canvas"); c.width = img.width; c.height = img.height;
  const g = c.getContext("2d"); g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data, rows = [];
  for (let y = 0; y < c.height; y++) {
    let least = 255;
    for (let x = 0; x < c.width; x++) {
      const i = (y * c.width + x) * 4;
      least = Math.min(least, 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2]);
    }
    rows.push(least);
  }
  return rows;
}"""


def test_without_javascript_a_long_abstract_shows_it_scrolls(seed_site, nojs_tab, page):
    """The disclosure's box (the paper's page at #abstract-only) fades its last lines out while text lies below
    them, so a reader sees there is more to scroll (found by the new-user pass: the box gave no hint)."""
    import base64

    nojs_tab.emulate_media(color_scheme="light")
    nojs_tab.goto((seed_site / _venue_page(seed_site)).as_uri())
    item = nojs_tab.locator(".paper-item").first
    item.locator("summary").click()
    frame = _frame_of(item.locator("object"))
    height, shown = frame.evaluate("() => [document.scrollingElement.scrollHeight, document.scrollingElement.clientHeight]")
    assert height > shown + 100, "the seed's first abstract overflows the box"
    png = item.locator("object").screenshot()
    rows = page.evaluate(_DARKEST_ROWS, "data:image/png;base64," + base64.b64encode(png).decode("ascii"))
    middle, bottom = min(rows[len(rows) // 3: 2 * len(rows) // 3]), min(rows[-24:])
    assert middle < 80 and bottom > middle + 60, (middle, bottom)  # text in the middle, faded at the bottom


def test_with_javascript_no_disclosure_loads_a_paper_page(seed_site, browser_context):
    tab = browser_context.new_page()
    requests: list[str] = []
    tab.on("request", lambda r: requests.append(r.url))
    tab.goto((seed_site / _venue_page(seed_site)).as_uri())
    tab.locator("button.show-abstracts").click()
    tab.wait_for_function("document.querySelectorAll('.abstract-toggle:not([data-filled])').length === 0")
    assert tab.locator(".abstract-toggle object").count() == 0 and len(tab.frames) == 1
    assert [u for u in requests if "/papers/" in u] == []
    tab.evaluate("localStorage.clear()")
    tab.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_no_violation_with_abstracts_open(seed_site, page, theme):
    page.emulate_media(color_scheme=theme)
    page.goto((seed_site / _venue_page(seed_site)).as_uri())
    page.locator("button.show-abstracts").click()
    page.wait_for_function("document.querySelectorAll('.abstract-toggle:not([data-filled])').length === 0")
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_no_violation_without_javascript(seed_site, nojs_tab, theme):
    nojs_tab.emulate_media(color_scheme=theme)
    nojs_tab.goto((seed_site / _venue_page(seed_site)).as_uri())
    for i in range(2):
        nojs_tab.locator(".abstract-toggle summary").nth(i).click()
    _frame_of(nojs_tab.locator(".abstract-toggle object").nth(1))
    # axe is a script: it runs once the page, laid out without JavaScript (the <noscript> objects are elements),
    # lets scripts run again; its frames are paper pages, checked on their own (tests/pages/test_accessibility.py).
    _SESSIONS[nojs_tab].send("Emulation.setScriptExecutionDisabled", {"value": False})
    assert nojs_tab.locator(".abstract-toggle object").count() > 2
    results = Axe().run(nojs_tab, options={"iframes": False})
    assert results.violations_count == 0, results.generate_report()


def test_an_abstracts_file_that_does_not_load_gives_a_link_to_the_paper_page(seed_site, browser_context):
    """The items carry no link of their own to the paper's abstract (issue 25, the site's size): when the
    abstracts file fails to load, abstracts.js puts one in the disclosure; a later opening tries the file again."""
    tab = browser_context.new_page()
    tab.route("**/abstracts/*.js", lambda route: route.abort())
    tab.goto((seed_site / _venue_page(seed_site)).as_uri())
    first = tab.locator(".paper-item").nth(0)
    first.locator("summary").click()
    link = first.locator(".abstract-toggle a.abstract-link")
    link.wait_for()
    assert link.get_attribute("href") == first.locator(".paper-link").get_attribute("href") + "#abstract"
    assert first.locator(".abstract-body").count() == 0
    tab.unroute("**/abstracts/*.js")
    first.locator("summary").click()  # closed
    first.locator("summary").click()  # opened again: the file loads now
    tab.wait_for_selector(".paper-item >> nth=0 >> .abstract-toggle[data-filled]")
    assert link.count() == 0 and first.locator(".abstract-body").inner_text().strip()
    tab.evaluate("localStorage.clear()")
    tab.close()
