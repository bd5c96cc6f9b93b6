"""The search features of issue 20 in headless Chromium, from disk and served under /repo/: the snippet is
the passage that matches, ``-word`` / ``"phrases"`` / ``OR`` on the page, facets with counts that combine,
sort by year, pages of 20, the URL as the whole state, the header's type-ahead list (nothing loaded until
it is used; keyboard only), and axe-core on the search page and on an open type-ahead list."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe

from search_helpers import seed_model, settled
from serving import repo_server  # noqa: F401 (a fixture)

SEARCH_FILES = ("manifest.js", "lunr.min.js", "search-core.js", "search-transport.js", "typeahead.css")




@pytest.fixture(params=["file", "http"])
def base(request, seed_site):
    """``url(path)``: the seed site's page ``path`` (query allowed) from disk or over HTTP under /repo/."""
    if request.param == "file":
        root = seed_site.as_uri() + "/"
    else:
        root = request.getfixturevalue("repo_server")
    return lambda path: root + path


@pytest.fixture(scope="module")
def axe() -> Axe:
    return Axe()


def open_search(page, url: str) -> None:
    page.goto(url)
    settled(page)
    page.wait_for_function("document.getElementById('search-status').textContent !== ''")


def hrefs(page) -> list[str]:
    return page.eval_on_selector_all("#search-results a.result-title", "as => as.map(a => a.getAttribute('href'))")


def page_run(page, query: str, choices: dict | None = None) -> list[dict]:
    """The records the page's own search gives for ``query`` (and facet ``choices``), in order."""
    return page.evaluate("([q, c]) => SiteSearch.run(q, c).then(SiteSearch.records)", [query, choices or {}])


def facet_counts(page, key: str) -> dict[str, int]:
    """``{value: count}`` the facet ``key`` shows."""
    out = {}
    for label in page.locator(f"#search-facets input[data-facet={key}]").all():
        text = page.locator(f"label[for='{label.get_attribute('id')}']").inner_text()
        out[label.get_attribute("value")] = int(re.search(r"\((\d+)\)\s*$", text).group(1))
    return out


def toggle(page, key: str, value: str) -> None:
    """Tick or untick a facet's box with the keyboard (focus, Space); the focus stays on it."""
    box = page.locator(f"#search-facets input[data-facet={key}][value='{value}']")
    box_id = box.get_attribute("id")
    box.focus()
    page.keyboard.press("Space")
    settled(page)
    page.wait_for_function("id => document.activeElement && document.activeElement.id === id", arg=box_id)


def state(page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def test_snippet_is_the_passage_that_matches_with_marks(base, page):
    heat = next(p for p in seed_model().papers if "heat kernel" in " ".join(p.rendered.text.split()))
    plain = " ".join(heat.rendered.text.split())
    assert "heat kernel" in plain and "heat kernel" not in plain[:200]  # the case: not in the start
    open_search(page, base("search.html?q=heat+kernel"))
    snippet = page.locator("#search-results li").first.locator(".snippet")
    text = snippet.inner_text()
    assert [m.lower() for m in snippet.locator("mark").all_inner_texts()] == ["heat", "kernel"]
    assert text.startswith("… ") and text.strip("… ") in plain and len(text) <= 304
    # Nothing of the query in the abstract: the abstract's start, nothing marked there.
    other, name = next((p, a.split()[-1]) for p in seed_model().papers for a in p.authors
                       if len(a.split()[-1]) > 3 and a.split()[-1].isalpha()
                       and not re.search(rf"\b{a.split()[-1][:3]}", p.rendered.text, re.I))
    open_search(page, base(f"search.html?q=author%3A{name}"))
    snippet = page.locator(f"#search-results li:has(a[href='{other.path}'])").locator(".snippet")
    start = " ".join(other.rendered.text.split())
    assert start.startswith(snippet.inner_text().rstrip(" …")) and snippet.locator("mark").count() == 0


def test_exclusions_phrases_and_or_on_the_page(base, page):
    open_search(page, base("search.html?q=model"))
    everything = hrefs(page) + [r["url"] for r in page_run(page, "model")[20:]]
    diffusion = {r["url"] for r in page_run(page, "diffusion")}
    open_search(page, base("search.html?q=-diffusion+model"))
    kept = [r["url"] for r in page_run(page, "-diffusion model")]
    assert kept == [u for u in everything if u not in diffusion] and 0 < len(kept) < len(everything)
    marks = [m.lower() for m in page.locator("#search-results mark").all_inner_texts()]
    assert marks and not any(m.startswith("diffusion") for m in marks)
    assert page.locator("#search-status").inner_text().startswith(f"{len(kept)} results")
    open_search(page, base('search.html?q="heat kernel"'))
    assert len(hrefs(page)) == 1
    open_search(page, base('search.html?q="kernel heat"'))
    assert page.locator("#search-status").inner_text() == "No results"
    union = {r["url"] for r in page_run(page, "diffusion")} | {r["url"] for r in page_run(page, "transformer")}
    assert {r["url"] for r in page_run(page, "diffusion OR transformer")} == union
    open_search(page, base("search.html?q=-model"))
    assert page.locator("#search-status").inner_text().startswith("No results: add a word")


def test_facets_count_combine_and_live_in_the_url(base, page):
    open_search(page, base("search.html?q=learning"))
    found = page_run(page, "learning")
    venues = facet_counts(page, "venue")
    assert venues == {v: sum(r["venue"] == v for r in found) for v in {r["venue"] for r in found}}
    assert facet_counts(page, "year") == {str(y): sum(r["year"] == y for r in found) for y in {r["year"] for r in found}}
    assert len(venues) >= 2
    first = max(venues, key=lambda v: sum(r["venue"] == v and r["track"] is not None for r in found))  # one with tracks
    second = min(v for v in venues if v != first)
    toggle(page, "venue", first)
    shown = page_run(page, "learning", {"venue": first})
    assert hrefs(page) == [r["url"] for r in shown][:20] and all(r["venue"] == first for r in shown)
    assert facet_counts(page, "venue") == venues  # a facet counts with the other facets' choices
    assert facet_counts(page, "year") == {str(shown[0]["year"]): len(shown)}
    tracks = facet_counts(page, "track")
    assert tracks == {t: sum(r["track"] == t for r in shown) for t in {r["track"] for r in shown if r["track"]}}
    toggle(page, "venue", second)  # two values of one facet: either
    both = page_run(page, "learning", {"venue": [first, second]})
    assert len(both) == venues[first] + venues[second] and len(hrefs(page)) == min(20, len(both))
    track = max(facet_counts(page, "track").items(), key=lambda kv: kv[1])[0]
    toggle(page, "track", track)  # two facets: both
    in_track = [r["url"] for r in both if r["track"] == track]
    assert hrefs(page) == in_track
    assert state(page) == {"q": ["learning"], "venue": [first, second], "track": [track]}
    page.reload()
    page.wait_for_selector("#search-results li")
    assert hrefs(page) == in_track
    assert page.locator("#search-facets input:checked").count() == 3
    toggle(page, "track", track)
    assert "track" not in state(page) and len(hrefs(page)) == min(20, len(both))


def test_facets_without_a_query_list_their_papers_in_the_sites_order(base, page):
    """``search.html?venue=…`` (a facet link without words) lists the venue's papers, the facets counting them
    (found by the new-user pass: the page showed nothing)."""
    papers = [p for p in seed_model().papers if (p.venue.name, p.venue.year) == ("ICML", 2025)]
    open_search(page, base("search.html?venue=ICML+2025"))
    assert hrefs(page) == [p.path for p in papers][:20] and len(papers) > 1
    assert page.locator("#search-status").inner_text() == f"{len(papers)} results"
    tracks = {" · ".join(p.track.parts): sum(q.track == p.track for q in papers) for p in papers if p.track}
    shown = facet_counts(page, "track")  # the first 8 of a long facet
    assert shown == {t: tracks[t] for t in shown} and len(shown) == min(8, len(tracks))
    track = max(tracks, key=tracks.get)
    toggle(page, "track", track)
    assert hrefs(page) == [p.path for p in papers if p.track and " · ".join(p.track.parts) == track]
    assert state(page) == {"venue": ["ICML 2025"], "track": [track]}


def test_old_filter_links_still_work(base, page):
    """Links made before facets (``?q=…&venue=…&track=…``) show the same narrowed results."""
    open_search(page, base("search.html?q=learning"))
    record = next(r for r in page_run(page, "learning") if r["track"])
    open_search(page, base(f"search.html?q=learning&venue={record['venue']}&track={record['track']}"))
    assert record["url"] in hrefs(page)
    assert all(r["venue"] == record["venue"] and r["track"] == record["track"]
               for r in page_run(page, "learning", {"venue": record["venue"], "track": record["track"]}))


def test_sort_by_year_and_pages_of_twenty(base, page):
    open_search(page, base("search.html?q=model"))
    found = [r["url"] for r in page_run(page, "model")]
    assert len(found) > 40, "the seeds give three pages of 'model'"
    pages = [hrefs(page)]
    assert page.locator("#search-status").inner_text().startswith(f"{len(found)} results, showing 1–20")
    while page.locator("#search-pages a", has_text="Next").count():
        page.locator("#search-pages a", has_text="Next").focus()
        page.keyboard.press("Enter")
        page.wait_for_function("n => document.querySelector('#search-results').start === n", arg=20 * len(pages) + 1)
        assert page.evaluate("document.activeElement.className") == "result-title"
        pages.append(hrefs(page))
        assert state(page)["page"] == [str(len(pages))]
    assert [len(p) for p in pages] == [20, 20, len(found) - 40]
    assert sum(pages, []) == found
    page.reload()
    page.wait_for_selector("#search-results li")
    assert hrefs(page) == pages[-1]
    page.locator("#search-sort").focus()
    page.keyboard.press("ArrowDown")  # "year, newest first"
    page.wait_for_function("location.search.indexOf('sort=year') >= 0")
    assert "page" not in state(page)
    by_year = [r for r in page_run(page, "model")]
    years = {r["url"]: r["year"] for r in by_year}
    sorted_urls = sorted(found, key=lambda u: -years[u])  # stable: relevance within a year
    assert hrefs(page) == sorted_urls[:20]


def test_status_and_tag_facets_from_the_curators_notes(notes_site, page):
    notes = dict((n[0], n[1:]) for n in page_notes(page, notes_site))
    assert notes, "the notes site has notes"
    page.goto((notes_site / "search.html").as_uri() + "?q=learning")
    page.wait_for_selector("#search-results li")
    found = page_run(page, "learning")
    ids = page.evaluate("q => SiteSearch.run(q)", "learning")  # the notes name papers by their index ref
    statuses = [notes[i][0] for i in ids if i in notes and notes[i][0]]
    tags = [t for i in ids if i in notes for t in notes[i][1]]
    assert statuses and tags
    assert facet_counts(page, "status") == {s: statuses.count(s) for s in statuses}
    assert facet_counts(page, "tag") == {t: tags.count(t) for t in tags}
    tag = max(set(tags), key=tags.count)
    toggle(page, "tag", tag)
    assert hrefs(page) == [r["url"] for r, i in zip(found, ids) if i in notes and tag in notes[i][1]]
    assert state(page)["tag"] == [tag]


def page_notes(page, site) -> list:
    page.goto((site / "search.html").as_uri())
    return page.evaluate("JSON.parse(document.getElementById('search-notes').textContent)")


def test_no_status_or_tag_facet_without_notes(seed_site, page):
    open_search(page, (seed_site / "search.html").as_uri() + "?q=learning")
    assert page.locator("#search-facets input[data-facet=venue]").count() > 0
    assert page.locator("#search-facets input[data-facet=status], #search-facets input[data-facet=tag]").count() == 0


def loaded_search_files(page) -> list[str]:
    names = page.evaluate("""() => performance.getEntriesByType('resource').map(e => e.name)
        .concat(Array.from(document.querySelectorAll('script[src], link[href]'), e => e.src || e.href))""")
    return sorted({n.rsplit("/", 1)[-1] for n in names if n.rsplit("/", 1)[-1] in SEARCH_FILES})


def type_ahead_settled(page, query: str = "diffusion") -> None:
    """Wait until the header box's list shows the results of ``query`` and no search is pending."""
    page.wait_for_function("""q => { const all = document.querySelector('#site-search-list .ta-all');
        return all && all.textContent.indexOf(q) >= 0 && !document.getElementById('site-search-popup').hasAttribute('aria-busy')
            && !document.getElementById('site-search-popup').hidden; }""", arg=query)


def test_type_ahead_on_any_page_keyboard_only(base, seed_records, page):
    paper = next(r for r in seed_records if r["track"])
    page.goto(base(paper["url"]))  # a page in a sub-folder: the search files are found from the script's URL
    assert loaded_search_files(page) == [] and page.evaluate("typeof window.SEARCH_SHARDS") == "undefined"
    box = page.locator("#site-search")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "site-search"
    page.keyboard.type("diffusion")
    type_ahead_settled(page)
    assert loaded_search_files(page) == sorted(SEARCH_FILES)
    assert box.get_attribute("aria-expanded") == "true"
    options = page.locator("#site-search-list [role=option]")
    expected = [r["url"] for r in page.evaluate("""async q => {
        const root = document.querySelector("script[src$='assets/typeahead.js']").src.replace(/assets.typeahead.js$/, "");
        const engine = SearchTransport.shards(lunr, SEARCH_SHARDS, SearchTransport.scriptLoader(root));
        const refs = (await engine.search(SearchCore, q)).results.map(r => r.ref);
        await engine.records(refs);
        return refs.map(engine.record); }""", "diffusion")]
    n = options.count()
    assert n == min(8, len(expected)) + 1
    targets = [options.nth(i).get_attribute("data-href") for i in range(n)]
    assert [t[len(base("")):] for t in targets[:-1]] == expected[:8]
    assert options.nth(n - 1).inner_text() == f"All {len(expected)} results for “diffusion”"
    assert options.first.locator("mark").first.inner_text().lower() == "diffusion"
    page.keyboard.press("ArrowDown")
    assert box.get_attribute("aria-activedescendant") == options.nth(0).get_attribute("id")
    assert options.nth(0).get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowUp")  # wraps to the last option
    assert box.get_attribute("aria-activedescendant") == options.nth(n - 1).get_attribute("id")
    page.keyboard.press("Escape")
    assert box.get_attribute("aria-expanded") == "false" and page.locator("#site-search-popup").is_hidden()
    assert box.input_value() == "diffusion" and box.get_attribute("aria-activedescendant") is None
    page.keyboard.press("ArrowDown")  # opens the list again
    type_ahead_settled(page)
    page.keyboard.press("ArrowDown")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == base(expected[0])
    page.go_back()
    page.keyboard.press("/")
    page.keyboard.type("diffusion")
    type_ahead_settled(page)
    page.keyboard.press("ArrowUp")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == base("search.html?q=diffusion")
    page.wait_for_selector("#search-results li")
    assert hrefs(page)[:8] == expected[:8]


def test_type_ahead_enter_without_a_choice_searches_and_escape_clears(base, page):
    page.goto(base("index.html"))
    page.keyboard.press("/")
    page.keyboard.type("zzqxv")
    page.wait_for_selector("#site-search-list [role=option]")
    assert page.locator("#site-search-list [role=option]").all_inner_texts() == ["No papers found: search page for “zzqxv”"]
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    assert page.input_value("#site-search") == ""
    page.keyboard.type("speculative")
    page.wait_for_selector("#site-search-list [role=option]")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == base("search.html?q=speculative")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_on_search_with_facets_pages_and_on_an_open_type_ahead(seed_site, notes_site, page, axe, theme):
    page.emulate_media(color_scheme=theme)
    open_search(page, (notes_site / "search.html").as_uri() + "?q=learning")
    toggle(page, "year", "2025")
    assert page.locator("#search-pages a").count() > 0 or page.locator("#search-facets").is_visible()
    results = axe.run(page)
    assert results.violations_count == 0, results.generate_report()
    open_search(page, (seed_site / "search.html").as_uri() + "?q=model&page=2")
    results = axe.run(page)
    assert results.violations_count == 0, results.generate_report()
    page.goto((seed_site / "index.html").as_uri())
    page.keyboard.press("/")
    page.keyboard.type("learning")
    page.wait_for_selector("#site-search-list [role=option]")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert page.locator("#site-search-popup").is_visible()
    results = axe.run(page)
    assert results.violations_count == 0, results.generate_report()


def tab_to(page, selector: str, limit: int = 60) -> None:
    """Press Tab until the focused element matches ``selector`` (at most ``limit`` times)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_keyboard_only_from_the_box_to_a_facet_a_result_page_and_back(base, page):
    """Only keys: "/" to the box, Tab to a year's box and Space, Tab to "Next" and Enter, then Enter on a result."""
    open_search(page, base("search.html?q=model"))
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    tab_to(page, "#search-facets input[data-facet=year]")
    year = page.evaluate("document.activeElement.value")
    page.keyboard.press("Space")
    page.wait_for_function("y => location.search.indexOf('year=' + y) >= 0", arg=year)
    in_year = page_run(page, "model", {"year": year})
    assert all(r["year"] == int(year) for r in in_year)
    assert hrefs(page) == [r["url"] for r in in_year][:20]
    if len(in_year) > 20:
        tab_to(page, "#search-pages a[data-page='2']")
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#search-results').start === 21")
        assert hrefs(page) == [r["url"] for r in in_year][20:40]  # the focus is on the page's first result
    else:
        tab_to(page, "#search-results a.result-title")
    target = page.evaluate("document.activeElement.getAttribute('href')")
    assert target in [r["url"] for r in in_year]
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == base(target)


def test_back_returns_to_the_search_before(base, page):
    """A facet, the sort or a page is a step in the browser's history: Back shows the search before it (found
    by the new-user pass: Back left the search page)."""
    open_search(page, base("search.html?q=learning"))
    before = hrefs(page)
    page.locator("#search-facets input[type=checkbox]").first.check()
    page.wait_for_function("new URLSearchParams(location.search).toString().split('&').length > 1")
    settled(page)
    chosen, narrowed = page.url, hrefs(page)
    assert narrowed != before
    page.select_option("#search-sort", "year")
    assert "sort=year" in page.url
    page.go_back()
    page.wait_for_function("location.search.indexOf('sort=year') < 0")
    settled(page)
    assert page.url == chosen and page.locator("#search-sort").input_value() == "" and hrefs(page) == narrowed
    page.go_back()
    page.wait_for_function(f"location.href === {json.dumps(base('search.html?q=learning'))}")
    settled(page)
    assert hrefs(page) == before and page.locator("#search-facets input:checked").count() == 0
    assert page.locator("#search-input").input_value() == "learning"


def url_query(page) -> str | None:
    return page.evaluate("new URLSearchParams(location.search).get('q')")


def test_the_url_follows_typing_and_is_current_when_a_result_is_chosen_at_once(base, page):
    """While the reader types, the URL follows once typing pauses (assets/search.js, URL_PAUSE); a result
    chosen before that pause still leaves the typed query in the history entry Back returns to."""
    open_search(page, base("search.html?q=learning"))
    page.locator("#search-input").fill("")
    page.locator("#search-input").type("diffusion", delay=20)
    page.wait_for_function("new URLSearchParams(location.search).get('q') === 'diffusion'")
    first = hrefs(page)[0]
    page.locator("#search-input").fill("graph")
    page.wait_for_function("h => { const a = document.querySelector('#search-results a.result-title');"
                           " return a && a.getAttribute('href') !== h; }", arg=first)
    with page.expect_navigation():
        page.locator("#search-results a.result-title").first.click()
    page.go_back()
    page.wait_for_function("new URLSearchParams(location.search).get('q') === 'graph'")
    assert page.locator("#search-input").input_value() == "graph"


def test_typing_is_one_step_in_the_history(base, page):
    """A burst of typing is one history entry: Back returns to the search before it, the sort chosen before
    typing included (found by the new-user pass: typing replaced that entry, so Back skipped it)."""
    open_search(page, base("search.html?q=learning"))
    page.select_option("#search-sort", "year")
    page.wait_for_function("location.search.indexOf('sort=year') >= 0")
    settled(page)
    sorted_url, sorted_hrefs = page.url, hrefs(page)
    page.fill("#search-input", "")
    page.locator("#search-input").press_sequentially("diffusion model")
    page.wait_for_function("new URLSearchParams(location.search).get('q') === 'diffusion model'")
    settled(page)
    typed_url = page.url
    page.go_back()
    page.wait_for_function(f"location.href === {json.dumps(sorted_url)}")
    settled(page)
    assert page.locator("#search-input").input_value() == "learning" and hrefs(page) == sorted_hrefs
    assert page.locator("#search-sort").input_value() == "year"
    page.go_forward()
    page.wait_for_function(f"location.href === {json.dumps(typed_url)}")
    page.go_back()
    page.wait_for_function(f"location.href === {json.dumps(sorted_url)}")
    page.go_back()
    page.wait_for_function(f"location.href === {json.dumps(base('search.html?q=learning'))}")
    settled(page)
    assert page.locator("#search-sort").input_value() == ""


def test_without_javascript_the_search_page_says_where_to_find_papers(seed_site, browser_context):
    """Without JavaScript the header's form leads to a page that says the words are still in the address and
    links to the venues, the authors and the map's topics, pages that exist (found by the new-user pass: it
    said only that search needs JavaScript)."""
    tab = browser_context.new_page()
    browser_context.new_cdp_session(tab).send("Emulation.setScriptExecutionDisabled", {"value": True})
    tab.goto((seed_site / "index.html").as_uri())
    tab.fill("#site-search", "diffusion")
    with tab.expect_navigation():
        tab.keyboard.press("Enter")
    assert parse_qs(urlsplit(tab.url).query) == {"q": ["diffusion"]}
    note = tab.locator("main noscript p")
    assert note.is_visible() and "your words are still in the address bar" in note.inner_text()
    links = [Path(urlsplit(u).path) for u in note.locator("a").evaluate_all("as => as.map(a => a.href)")]
    assert links == [seed_site / "index.html", seed_site / "authors" / "index.html", seed_site / "map.html"]
    assert all(link.is_file() for link in links)
    tab.close()


@pytest.mark.parametrize("missing", ["terms", "records"])
def test_a_missing_index_file_says_search_could_not_be_loaded(seed_site, tmp_path, page, missing):
    """A site whose shards or records cannot be loaded (a half-uploaded site) says so instead of showing
    nothing or stale results; the page keeps working."""
    import shutil

    site = tmp_path / "site"
    shutil.copytree(seed_site, site)
    shutil.rmtree(site / "search" / missing)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_search(page, (site / "search.html").as_uri() + "?q=learning")
    assert page.locator("#search-status").inner_text() == "Search could not be loaded"
    assert page.locator("#search-results li").count() == 0 and errors == []
