"""Reading-list features in headless Chromium, from file:// and through the preview server under /repo/:
star and read marks, "My list" with BibTeX and Markdown downloads, the BibTeX copy button."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from site_builder.model import urls
from site_builder.serve import make_server


@pytest.fixture(scope="module")
def served(notes_site):
    """The built site served under /repo/ on a free port; yields its base URL."""
    server = make_server(notes_site, "127.0.0.1", 0, "/repo/")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/repo/"
    server.shutdown()
    server.server_close()


@pytest.fixture(params=["file", "served"])
def base(request, notes_site) -> str:
    """The site's root URL, from disk or from the preview server."""
    if request.param == "file":
        return notes_site.as_uri() + "/"
    return request.getfixturevalue("served")


@pytest.fixture(scope="module")
def records(notes_site) -> list[dict]:
    return json.loads((notes_site / "papers.json").read_text(encoding="utf-8"))


def fresh(page, url: str) -> None:
    """Open ``url`` with this site's localStorage emptied."""
    page.goto(url)
    page.evaluate("window.localStorage.clear()")
    page.reload()


def test_star_read_and_my_list_exports(page, base, records, notes_site):
    first = next(r for r in records if r["authors"])
    second = next(r for r in records if r["venue"] != first["venue"])  # every seed paper has authors (reference)
    fresh(page, base + first["url"])
    star, read = page.locator(".star-button"), page.locator(".read-button")
    assert star.is_visible() and star.get_attribute("aria-pressed") == "false"
    star.click()
    read.click()
    page.reload()
    assert page.locator(".star-button").get_attribute("aria-pressed") == "true"
    assert page.locator(".read-button").get_attribute("aria-pressed") == "true"
    first_bib = page.locator("pre.bibtex").inner_text()
    page.goto(base + second["url"])
    assert page.locator(".star-button").get_attribute("aria-pressed") == "false"
    page.locator(".star-button").click()
    second_bib = page.locator("pre.bibtex").inner_text()

    page.click(f'a[href$="{urls.STARS}"] >> nth=0')
    page.wait_for_selector("#my-list-items li")
    items = page.locator("#my-list-items li")
    assert items.count() == 2
    assert page.locator("#my-list-status").inner_text() == "Starred papers: 2"
    hrefs = [items.nth(i).locator("a").get_attribute("href") for i in range(2)]
    assert hrefs == [first["url"], second["url"]]
    # title and venue, taken from the paper page's citation_* tags when starred
    assert [items.nth(i).locator("a").inner_text() for i in range(2)] == [first["title"], second["title"]]
    assert items.nth(0).locator(".meta").inner_text().endswith(f'{first["venue"]} {first["year"]}')
    assert items.nth(0).locator(".status-read").count() == 1 and items.nth(1).locator(".status-read").count() == 0

    with page.expect_download() as info:
        page.click("#export-bibtex")
    bib = Path(info.value.path()).read_text(encoding="utf-8")
    assert info.value.suggested_filename == "my-list.bib"
    assert bib.strip() == (first_bib.strip() + "\n\n" + second_bib.strip())
    with page.expect_download() as info:
        page.click("#export-markdown")
    md = Path(info.value.path()).read_text(encoding="utf-8")
    assert info.value.suggested_filename == "my-list.md"
    links = re.findall(r"^- \[([ x])\] \[.+\]\(([^)]+)\)", md, re.M)
    assert [(mark, urlsplit(u).path) for mark, u in links] == [("x", first["url"]), (" ", second["url"])]
    assert all((notes_site / unquote(u)).is_file() for _, u in links)
    assert ", ".join(first["authors"]) in md

    items.nth(1).locator(".unstar-button").click()
    assert page.locator("#my-list-items li").count() == 1
    page.locator("#my-list-items a").click()
    page.wait_for_load_state()
    assert page.url.endswith(first["url"]) and page.locator(".star-button").get_attribute("aria-pressed") == "true"


def test_copy_bibtex(page, base, records, browser_context):
    record = records[0]
    if base.startswith("http"):
        browser_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base.split("/repo/")[0])
    fresh(page, base + record["url"])
    button = page.locator(".copy-button")
    assert button.is_visible()
    button.click()
    page.wait_for_function("document.querySelector('.copy-status').textContent !== ''")
    assert page.locator(".copy-status").inner_text() == "Copied."
    if base.startswith("http"):
        assert page.evaluate("navigator.clipboard.readText()") == page.locator("pre.bibtex").inner_text()


def test_empty_list(page, base):
    fresh(page, base + urls.STARS)
    assert page.locator("#my-list-status").inner_text().startswith("No starred papers")
    assert page.locator("#export-bibtex").is_disabled()


def test_status_and_tag_filter_on_a_venue_page(page, base, records):
    fresh(page, base + "venues/icml-2025/index.html")
    visible = lambda: sorted(page.eval_on_selector_all(  # noqa: E731
        ".paper-item", "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.paperId)"))
    everything = visible()
    assert len(everything) == sum(1 for r in records if (r["venue"], r["year"]) == ("ICML", 2025))
    page.select_option("form[data-list-filter] select[name=status]", "read")
    assert visible() == ["2bb1acffdb"]
    page.select_option("form[data-list-filter] select[name=status]", "")
    page.select_option("form[data-list-filter] select[name=tag]", "theory")
    assert visible() == sorted(["2bb1acffdb", "65d9a6db4e"])
    assert page.locator(".filter-count").inner_text() == f"Papers shown: 2 of {len(everything)}"
    page.select_option("form[data-list-filter] select[name=status]", "to-read")
    assert visible() == []
    page.select_option("form[data-list-filter] select[name=tag]", "")
    page.select_option("form[data-list-filter] select[name=status]", "")
    assert visible() == everything


def test_feature_pages_pass_axe(page, notes_site, records):
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    record = next(r for r in records if r["id"] == "2bb1acffdb")
    author = next(p for p in sorted((notes_site / "authors").glob("*.html")) if p.name != "index.html")
    fresh(page, (notes_site / record["url"]).as_uri())
    page.click(".star-button")
    for path in (record["url"], urls.AUTHORS, f"authors/{author.name}", urls.TAGS, urls.tag_path("theory"),
                 urls.STARS, "venues/icml-2025/index.html"):
        page.goto((notes_site / path).as_uri())
        violations = axe.run(page).response["violations"]
        assert [(v["id"], len(v["nodes"])) for v in violations] == [], path
