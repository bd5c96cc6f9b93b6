"""Accessibility and look of the built seed site in headless Chromium (from file://).

axe-core (shipped inside axe-playwright-python) on every page type in light and dark theme;
keyboard use (skip link, focus ring, tab order); the site without JavaScript; the theme
toggle; reflow at 360 px; the print style.

To test a new page type, add one entry to ``PAGE_TYPES``: a name and a function from the
built site folder and its ``papers.json`` records to one page's site-relative URL.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect


def _html(site: Path, record: dict) -> str:
    return (site / record["url"]).read_text(encoding="utf-8")


def _paper_with_math(site: Path, records: list[dict]) -> dict:
    """The paper whose page holds the most MathML formulas (among those with a track and authors)."""
    return max((r for r in records if r["track"] and r["authors"]), key=lambda r: _html(site, r).count("<math"))


def _venue_of(site: Path, record: dict) -> str:
    """URL of the venue page linked from ``record``'s page."""
    return re.search(r'href="\.\./(venues/[^"/]+/index\.html)"', _html(site, record)).group(1)


def _track_of(site: Path, record: dict) -> str:
    """URL of the track page linked from ``record``'s page."""
    return re.search(r'href="\.\./(venues/[^"/]+/(?!index\.)[^"/]+\.html)"', _html(site, record)).group(1)


#: Page type → URL (relative to the site root, query allowed) of one page of that type.
PAGE_TYPES = {
    "home": lambda site, records: "index.html",
    "venue": lambda site, records: _venue_of(site, _paper_with_math(site, records)),
    "track": lambda site, records: _track_of(site, _paper_with_math(site, records)),
    "paper": lambda site, records: _paper_with_math(site, records)["url"],
    "paper-long-authors": lambda site, records: max(records, key=lambda r: len(r["authors"]))["url"],
    "search": lambda site, records: "search.html?q=language+model",
    "map": lambda site, records: "map.html",
}
#: Page types that need JavaScript (search runs in the browser).
NEEDS_JS = {"search"}
#: Page types checked by axe (the long-author paper is only a layout case).
AXE_TYPES = [k for k in PAGE_TYPES if k != "paper-long-authors"]


def _open(page, site: Path, url: str) -> None:
    path, _, query = url.partition("?")
    page.goto((site / path).as_uri() + (f"?{query}" if query else ""))
    if path == "search.html":
        page.wait_for_selector("#search-results li")


def _rgb(css_colour: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", css_colour)[:3])


def _background(page) -> tuple[int, ...]:
    return _rgb(page.evaluate("getComputedStyle(document.body).backgroundColor"))


def _is_dark(rgb: tuple[int, ...]) -> bool:
    return sum(rgb) / 3 < 80


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


@pytest.fixture
def nojs_page(browser_context):
    """A page of the shared context with JavaScript off.

    Playwright's ``java_script_enabled=False`` is the DevTools command
    ``Emulation.setScriptExecutionDisabled``; it is sent here per page because a second
    Playwright (for a second context) cannot start beside the session's one.
    """
    tab = browser_context.new_page()
    browser_context.new_cdp_session(tab).send("Emulation.setScriptExecutionDisabled", {"value": True})
    yield tab
    tab.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("kind", AXE_TYPES)
def test_axe_finds_no_violation(seed_site, seed_records, page, axe, kind, theme):
    page.emulate_media(color_scheme=theme)
    _open(page, seed_site, PAGE_TYPES[kind](seed_site, seed_records))
    assert _is_dark(_background(page)) == (theme == "dark")
    results = axe.run(page)
    assert results.violations_count == 0, results.generate_report()


def test_axe_checks_colour_contrast(seed_site, page, axe):
    """The axe runs above really measure contrast: a pale grey paragraph is flagged."""
    page.goto((seed_site / "index.html").as_uri())
    page.evaluate("document.querySelector('main p').style.color = '#b0b0b0'")
    assert "color-contrast" in [v["id"] for v in axe.run(page).response["violations"]]


def test_skip_link_is_first_and_moves_focus_to_main(seed_site, seed_records, page):
    _open(page, seed_site, PAGE_TYPES["paper"](seed_site, seed_records))
    page.keyboard.press("Tab")
    focused = page.evaluate("[document.activeElement.className, document.activeElement.getAttribute('href')]")
    assert focused == ["skip-link", "#main"]
    box = page.locator(".skip-link").bounding_box()
    assert box["y"] >= 0 and box["height"] > 10, "the focused skip link is on screen"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('main') !== null"), "the next Tab stays in main"


@pytest.mark.parametrize("width", [390, 1280])
def test_tab_order_follows_the_page_and_shows_a_focus_ring(seed_site, seed_records, page, width):
    """Tab visits every control in document order and in reading order on screen (left to right,
    top to bottom: each stop starts right of the previous one's end or on a line below it)."""
    page.set_viewport_size({"width": width, "height": 800})
    _open(page, seed_site, PAGE_TYPES["paper"](seed_site, seed_records))
    count = page.evaluate("document.querySelectorAll('a[href], input, button:not([hidden])').length")
    stops = []
    for _ in range(count):
        page.keyboard.press("Tab")
        stops.append(page.evaluate("""() => {
            const el = document.activeElement, style = getComputedStyle(el), rects = el.getClientRects();
            const first = rects[0], last = rects[rects.length - 1];
            window.__stops = (window.__stops || []).concat([el]);
            return {tag: el.tagName, text: (el.textContent || el.id).trim().slice(0, 30),
                    outline: style.outlineStyle, width: parseFloat(style.outlineWidth),
                    first: {top: first.top + scrollY, left: first.left},
                    last: {top: last.top + scrollY, bottom: last.bottom + scrollY, right: last.right}};
        }"""))
    in_order = page.evaluate("""() => window.__stops.every((el, i, all) =>
        i === 0 || Boolean(all[i - 1].compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING))""")
    assert in_order, "Tab visits the controls in document order"
    assert {"A", "INPUT", "BUTTON"} <= {s["tag"] for s in stops}, "links, the search box and buttons are reachable"
    assert all(s["outline"] != "none" and s["width"] >= 2 for s in stops), stops
    for a, b in zip(stops[1:], stops[2:]):  # from the site title on (the skip link floats over the page)
        below = b["first"]["top"] >= a["last"]["bottom"] - 4
        right = abs(b["first"]["top"] - a["last"]["top"]) < 8 and b["first"]["left"] >= a["last"]["right"] - 4
        assert below or right, f"{b['text']!r} comes after {a['text']!r} on screen"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_site_works_without_javascript(seed_site, seed_records, nojs_page, theme):
    urls = {k: f(seed_site, seed_records) for k, f in PAGE_TYPES.items() if k not in NEEDS_JS}
    tab = nojs_page
    tab.emulate_media(color_scheme=theme)
    for kind, url in urls.items():
        _open(tab, seed_site, url)
        assert tab.locator("h1").inner_text().strip(), kind
        assert tab.locator("footer nav a").count() >= 2, kind
        assert tab.locator(".site-header a.site-title").is_visible(), kind
        assert not tab.locator("#theme-toggle").is_visible(), "theme.js did not run: the toggle stays hidden"
        assert _is_dark(_background(tab)) == (theme == "dark"), f"{kind}: the system theme applies"
    record = next(r for r in seed_records if r["url"] == urls["paper"])
    _open(tab, seed_site, record["url"])
    assert record["abstract"].split()[0] in tab.locator(".abstract-body").inner_text()
    _open(tab, seed_site, urls["venue"])
    tab.locator(f'a[href="../../{record["url"]}"]').click()
    assert tab.url.endswith(record["url"]), "links navigate without JavaScript"


def test_theme_toggle_is_remembered(seed_site, seed_records, page):
    page.emulate_media(color_scheme="light")
    try:
        _open(page, seed_site, "index.html")
        toggle = page.locator("#theme-toggle")
        assert toggle.is_visible() and toggle.get_attribute("aria-pressed") == "false"
        assert not _is_dark(_background(page))
        toggle.click()
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert toggle.get_attribute("aria-pressed") == "true"
        assert page.evaluate("localStorage.getItem('theme')") == "dark"
        assert _is_dark(_background(page))
        _open(page, seed_site, PAGE_TYPES["paper"](seed_site, seed_records))
        assert _is_dark(_background(page)), "the choice carries to the next page"
        assert page.locator("#theme-toggle").get_attribute("aria-pressed") == "true"
        page.locator("#theme-toggle").click()
        assert not _is_dark(_background(page))
        assert page.evaluate("localStorage.getItem('theme')") is None, "back to following the system"
    finally:
        page.evaluate("localStorage.removeItem('theme')")  # the context is shared with other tests


def test_dark_system_setting_shows_the_toggle_pressed(seed_site, page):
    page.emulate_media(color_scheme="dark")
    _open(page, seed_site, "index.html")
    assert page.locator("#theme-toggle").get_attribute("aria-pressed") == "true"
    page.emulate_media(color_scheme="light")
    # the media query's change event comes asynchronously: expect() waits for it (up to 5 s)
    expect(page.locator("#theme-toggle")).to_have_attribute("aria-pressed", "false")


def test_theme_script_runs_before_first_paint(seed_site, page):
    """A classic script in <head>, before the stylesheet and without async/defer: no flash."""
    _open(page, seed_site, "index.html")
    head = page.evaluate("""() => [...document.head.children].map(el =>
        [el.tagName, el.getAttribute('src') || el.getAttribute('href') || '',
         el.hasAttribute('async') || el.hasAttribute('defer') || el.type === 'module'])""")
    scripts = [i for i, (tag, src, _) in enumerate(head) if tag == "SCRIPT" and src.endswith("theme.js")]
    styles = [i for i, (tag, src, _) in enumerate(head) if tag == "LINK" and src.endswith("style.css")]
    assert scripts and styles and scripts[0] < styles[0]
    assert head[scripts[0]][2] is False


@pytest.mark.parametrize("kind", list(PAGE_TYPES))
def test_no_horizontal_scroll_at_360px(seed_site, seed_records, page, kind):
    page.set_viewport_size({"width": 360, "height": 740})
    _open(page, seed_site, PAGE_TYPES[kind](seed_site, seed_records))
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_print_style_of_a_paper_page(seed_site, seed_records, page):
    page.emulate_media(media="print", color_scheme="dark")
    _open(page, seed_site, PAGE_TYPES["paper"](seed_site, seed_records))
    for selector in (".site-header", ".site-footer", ".pager", ".breadcrumbs"):
        assert page.locator(selector).count() >= 1, selector
        assert not any(element.is_visible() for element in page.locator(selector).all()), selector
    assert page.locator(".abstract-body").is_visible()
    assert not _is_dark(_background(page)), "printed light even when the screen is dark"
    assert _is_dark(_rgb(page.evaluate("getComputedStyle(document.querySelector('.abstract-body')).color")))


def test_abstract_lines_hold_about_70_characters(seed_site, seed_records, page):
    """On a wide screen, the abstract's full lines hold 60–80 characters (median)."""
    page.set_viewport_size({"width": 1280, "height": 800})
    _open(page, seed_site, PAGE_TYPES["paper"](seed_site, seed_records))
    lengths = page.evaluate("""() => {
        const body = document.querySelector('.abstract-body'), range = document.createRange(), lines = new Map();
        const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
        for (let node; (node = walker.nextNode());) {
            if (node.parentElement.closest('math')) continue;
            for (let i = 0; i < node.length; i++) {
                range.setStart(node, i); range.setEnd(node, i + 1);
                const rect = range.getBoundingClientRect();
                if (rect.height) { const line = Math.round(rect.bottom / 8); lines.set(line, (lines.get(line) || 0) + 1); }
            }
        }
        return [...lines.values()];
    }""")
    full = sorted(lengths)[len(lengths) // 4:]  # drop the short last lines of paragraphs
    assert len(full) >= 5
    assert 60 <= full[len(full) // 2] <= 80, sorted(lengths)


def test_screen_reader_names_of_pager_and_counts(seed_site, seed_records, page):
    _open(page, seed_site, PAGE_TYPES["paper"](seed_site, seed_records))
    for pager in page.locator(".pager").all():
        snapshot = pager.aria_snapshot()
        assert "←" not in snapshot and "→" not in snapshot, snapshot
        for link in pager.locator("a").all():
            assert re.search(r"(Previous|Next):", link.aria_snapshot()), link.aria_snapshot()
    _open(page, seed_site, "index.html")
    assert re.search(r"\d+ papers", page.locator(".track-list").first.aria_snapshot())


@pytest.fixture(scope="module")
def stress_site(tmp_path_factory) -> Path:
    """The seeds plus the screenshot script's stress list (real papers of the sample: the longest
    author list, CJK author names) built into a temporary folder."""
    import shutil
    import sys

    from conftest import CONFIG, SEEDS, build_into

    sys.path.insert(0, str(SEEDS.parent / "scripts"))
    import screenshots

    seeds = tmp_path_factory.mktemp("stress") / "seeds"
    shutil.copytree(SEEDS, seeds)
    text = screenshots.stress_list()
    (seeds / "zz_stress.txt").write_text(text, encoding="utf-8")
    out = seeds.parent / "_site"
    assert build_into(out, seeds=seeds, config=CONFIG) == 0
    return out


def test_screenshot_page_types_exist_and_cjk_uses_a_cjk_font(stress_site, page):
    import screenshots

    types = screenshots.page_types(stress_site)
    assert {"home", "venue", "track", "paper", "paper-math", "paper-long-authors", "paper-cjk", "search"} <= set(types)
    for url in types.values():
        assert (stress_site / url.partition("?")[0]).is_file(), url
    page.set_viewport_size({"width": 360, "height": 740})
    for kind in ("paper-cjk", "paper-long-authors"):
        _open(page, stress_site, types[kind])
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, kind
    _open(page, stress_site, types["paper-cjk"])
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "dd.authors"})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    assert any("CJK" in f["familyName"] for f in fonts), f"{fonts} (apt-get install fonts-noto-cjk)"
