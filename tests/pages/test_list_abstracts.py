"""Abstracts in place on list pages (issue 22): every item of a venue, track, author, tag or keyword page has an
"Abstract" disclosure; its abstract comes from one abstracts file per group of a venue's papers, the same HTML
as on the paper's page; "Show all abstracts" opens every item and is remembered; without JavaScript the
disclosure leads to the paper's abstract. Checked on the seed site, from file:// and under /repo/ over HTTP."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from features_support import elements
from serving import running
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


def test_every_list_item_names_the_file_holding_its_abstract(seed_site, seed_records):
    files = _abstract_files(seed_site)
    checked, seen = 0, set()
    for page in _list_pages(seed_site):
        paper_id = None
        for tag, attrs, _ in elements(page):
            if tag == "li" and "paper-item" in attrs.get("class", ""):
                paper_id = attrs["data-paper-id"]
            elif tag == "details" and "abstract-toggle" in attrs.get("class", ""):
                assert paper_id in files[urls.abstracts_path(attrs["data-abstracts"])], (page, paper_id)
                checked, seen = checked + 1, seen | {paper_id}
    assert seen == {r["id"] for r in seed_records} and checked > 3 * len(seed_records)


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


def test_without_javascript_the_disclosure_leads_to_the_abstract(seed_site, browser_context):
    tab = browser_context.new_page()
    browser_context.new_cdp_session(tab).send("Emulation.setScriptExecutionDisabled", {"value": True})
    tab.goto((seed_site / _venue_page(seed_site)).as_uri())
    assert tab.locator("button.show-abstracts").count() == 0
    tab.locator(".abstract-toggle summary").nth(0).click()
    link = tab.locator(".abstract-toggle").nth(0).locator("a")
    assert link.is_visible() and link.get_attribute("href").endswith(".html#abstract")
    tab.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_no_violation_with_abstracts_open(seed_site, page, theme):
    page.emulate_media(color_scheme=theme)
    page.goto((seed_site / _venue_page(seed_site)).as_uri())
    page.locator("button.show-abstracts").click()
    page.wait_for_function("document.querySelectorAll('.abstract-toggle:not([data-filled])').length === 0")
    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()
