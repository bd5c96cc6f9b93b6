"""The paper map page in headless Chromium from file://: drawn on a canvas, words highlight papers, the legend
hides venues, the keyboard and the pointer show and open papers."""

from __future__ import annotations

import json
import re

import pytest

from site_builder.model import urls

#: Count of canvas pixels that differ from the top-left (background) pixel.
PAINTED = """() => {
  const c = document.getElementById('map-canvas'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) n++;
  return n;
}"""


@pytest.fixture
def map_page(page, seed_site):
    page.set_viewport_size({"width": 1000, "height": 900})
    page.goto((seed_site / urls.MAP).as_uri())
    page.wait_for_function("window.paperMap !== undefined")
    return page


def test_the_map_draws_every_paper_on_a_canvas(map_page, seed_records):
    assert map_page.locator("#map-tool").is_visible()
    assert map_page.evaluate("document.querySelectorAll('main canvas').length") == 1
    assert map_page.evaluate(PAINTED) > 20 * len(seed_records)  # points and topic labels
    assert map_page.locator("#map-legend input[type=checkbox]").count() == len({(r["venue"], r["year"])
                                                                                 for r in seed_records})


def test_words_highlight_the_papers_that_hold_them_all(map_page, seed_records):
    words = "learn for"
    expected = sum(all(w in f"{r['title']} {', '.join(r['authors'])}".lower() for w in words.split())
                   for r in seed_records)
    assert expected > 1
    map_page.fill("#map-search", words)
    assert map_page.locator("#map-found").inner_text() == f"{expected} papers match"
    assert map_page.evaluate("Array.from(window.paperMap.matches()).filter(Boolean).length") == expected
    map_page.fill("#map-search", "")
    assert map_page.locator("#map-found").inner_text() == ""


def test_the_legend_hides_and_shows_a_venue(map_page):
    everything = map_page.evaluate(PAINTED)
    map_page.click("#map-none")
    hidden = map_page.evaluate(PAINTED)
    assert hidden < everything / 2  # the topic labels stay
    first = map_page.locator("#map-legend input").first
    first.check()
    assert hidden < map_page.evaluate(PAINTED) < everything
    map_page.check("input[name=map-colour][value=track]")
    assert map_page.locator("#map-legend li").first.inner_text() != ""


def test_the_keyboard_moves_between_papers_and_opens_one(map_page, seed_records):
    map_page.focus("#map-canvas")
    first = map_page.locator("#map-focus").inner_text()
    titles = {r["title"] for r in seed_records}
    assert first.split(" — ")[0] in titles
    seen = {first}
    for key in ("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"):
        map_page.keyboard.press(key)
        seen.add(map_page.locator("#map-focus").inner_text())
    assert len(seen) >= 3
    shown = map_page.locator("#map-focus").inner_text().split(" — ")[0]
    map_page.keyboard.press("Enter")
    map_page.wait_for_url(re.compile(r"/papers/"))
    assert map_page.locator("h1").inner_text().strip() == shown


def test_pointing_shows_a_title_and_a_click_opens_the_paper(map_page, seed_site):
    data = json.loads((seed_site / urls.MAP_DATA_JS).read_text(encoding="utf-8")[len("window.PAPER_MAP = "):-2])
    x, y = map_page.evaluate("window.paperMap.position(0)")
    box = map_page.locator("#map-canvas").bounding_box()
    map_page.mouse.move(box["x"] + x, box["y"] + y)
    assert map_page.locator("#map-tip").is_visible()
    assert map_page.locator("#map-tip").inner_text().startswith(data["title"][0])
    map_page.mouse.click(box["x"] + x, box["y"] + y)
    map_page.wait_for_url(re.compile(re.escape(data["path"][0]) + "$"))


def test_a_topic_link_from_a_venue_page_opens_that_topic(page, seed_site):
    venue = next((seed_site / "venues").glob("*/index.html"))
    page.goto(venue.as_uri())
    link = page.locator(".topic-list a").first
    anchor = link.get_attribute("href").split("#")[1]
    label = link.inner_text()
    link.click()
    page.wait_for_url(re.compile(rf"map\.html#{anchor}$"))
    topic = page.locator(f"#{anchor} details")
    assert topic.get_attribute("open") is not None
    assert topic.locator("summary .topic-label").inner_text() == label
    assert topic.locator(".map-papers a").first.is_visible()
