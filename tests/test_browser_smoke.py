"""The built seed site in headless Chromium, opened from disk."""

from __future__ import annotations

from urllib.parse import quote


def test_search_from_disk_finds_and_opens_a_paper(seed_site, seed_records, page):
    record = next(r for r in seed_records if "Controllability" in r["abstract"])
    page.goto((seed_site / "index.html").as_uri())
    page.fill("#site-search", "controllability")
    page.press("#site-search", "Enter")
    page.wait_for_selector("#search-results a")
    assert "search.html?q=controllability" in page.url
    links = page.locator("#search-results a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert record["url"] in hrefs
    page.locator(f'#search-results a[href="{record["url"]}"]').click()
    page.wait_for_load_state()
    assert page.url.endswith(quote(record["url"]))
    assert page.locator("h1").inner_text().strip() != ""
