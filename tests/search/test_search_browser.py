"""The search page in headless Chromium: from disk and served under /repo/, typed queries,
keyboard, filters, highlights, recall of every seed word, Unicode papers, query fuzz."""

from __future__ import annotations

import random
from pathlib import Path
from urllib.parse import quote

import pytest

from search_helpers import seed_model, settled, site_search_data
from site_builder.corpus import corpus_site
from site_builder.pipeline import write_site
from site_builder.read.plaintext import Entry
from site_builder.search.documents import recall_words
from site_builder.search.index import build_search_data
from serving import repo_server  # noqa: F401 (a fixture)
from site_builder.output.writer import Output

SHOTS = Path(__file__).resolve().parent / "screenshots"

VARIETY = [
    ("GPT-4o and LLaMA-2 as Judges", ["Ada Lovelace", "Zoë Ångström"], "Evaluation · Benchmarks",
     "We compare GPT-4o with LLaMA-2-7B and ResNet-50 features on $\\mathcal{O}(n^2)$ tasks."),
    ("大语言模型的推理能力研究", ["王小明", "李华"], "",
     "本文研究大语言模型在数学推理任务上的表现，并提出新的提示方法。"),
    ("Emoji 😀 and Ｆｕｌｌ－ｗｉｄｔｈ text", ["José Nuñez"], "",
     "Right-to-left עברית טקסט and العربية النص, combining Schölkopf, astral 𝒪(n²) 𠮷野家 🇫🇷 and 﨎 (sorts after 𠮷 in Python, before it in JS)."),
    ("<img src=x onerror=window.__xss=1> & <b>bold</b>", ["Eve <script>"], "",
     "A title that looks like HTML <script>window.__xss=2</script> must show as text."),
    ("Speculative decoding for LLaMA models", ["Ada Lovelace"], "Evaluation · Benchmarks",
     "Speculative decoding with a draft model; no GPT here, only llama as a word."),
]


def variety_site(out: Path) -> Path:
    """A small site of the hard cases above, written like a build does."""
    entries = [Entry(path="variety.txt", line=i + 1, abstract=abstract, title=title, authors=tuple(authors),
                     track=tuple(track.split(" · ")) if track else (), venue="TEST", year=2025)
               for i, (title, authors, track, abstract) in enumerate(VARIETY)]
    output = Output(out)
    write_site(corpus_site(entries), output)
    output.commit()
    return out


@pytest.fixture(scope="module")
def variety(tmp_path_factory) -> Path:
    return variety_site(tmp_path_factory.mktemp("variety") / "_site")




def result_hrefs(page) -> list[str]:
    links = page.locator("#search-results a.result-title")
    return [links.nth(i).get_attribute("href") for i in range(links.count())]


def search(page, query: str) -> list[str]:
    """Type ``query`` into the search page's box and press Enter; the result links' hrefs."""
    page.fill("#search-input", query)
    page.press("#search-input", "Enter")
    settled(page)
    page.wait_for_function("document.getElementById('search-status').textContent !== ''")
    return result_hrefs(page)


def record_with(records, text):
    return next(r for r in records if text in r["abstract"])


def test_from_disk_query_in_url_highlight_and_click_through(seed_site, seed_records, page):
    hass = record_with(seed_records, "HArmonized Speculative Sampling")
    # "harmonized": in HASS's published title alone ("speculative" is in two seed papers' published titles)
    page.goto((seed_site / "search.html").as_uri() + "?q=harmonized")
    page.wait_for_selector("#search-results li")
    assert page.input_value("#search-input") == "harmonized"
    hrefs = result_hrefs(page)
    assert hrefs[0] == hass["url"]
    first = page.locator("#search-results li").first
    assert first.locator("a.result-title mark").first.inner_text().lower() == "harmonized"
    assert "ICML" in first.locator(".venue").inner_text() or "ICLR" in first.locator(".venue").inner_text()
    assert page.locator("#search-status").inner_text().endswith(("result", "results"))
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "search-from-disk.png"), full_page=True)
    with page.expect_navigation():
        first.locator("a.result-title").click()
    assert page.url.endswith(quote(hass["url"]))
    assert page.locator("h1").inner_text().strip()


def test_keyboard_slash_arrows_enter_and_url_state(seed_site, seed_records, page):
    page.goto((seed_site / "search.html").as_uri())
    page.locator("h1").click()
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.keyboard.type("model")
    page.wait_for_selector("#search-results li")
    page.wait_for_function("location.search.indexOf('q=model') >= 0")
    hrefs = result_hrefs(page)
    assert len(hrefs) > 3
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.getAttribute('href')") == hrefs[1]
    assert page.locator("#search-results li.is-selected").count() == 1
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(quote(hrefs[1]))
    page.go_back()
    page.wait_for_selector("#search-results li")
    assert page.input_value("#search-input") == "model"


def test_math_in_a_snippet_reads_as_plain_text(variety, page):
    page.goto((variety / "search.html").as_uri() + "?q=tasks")
    page.wait_for_selector("#search-results li")
    text = page.locator("#search-results .snippet").first.inner_text()
    assert "O(n^2) tasks" in text and "$" not in text and "\\mathcal" not in text


def test_an_author_without_a_page_is_found_from_the_author_index(variety, page):
    """The A–Z index links an author of one paper to the search for their name: each finds their paper."""
    index = (variety / "authors" / "index.html").as_uri()
    page.goto(index)
    links = page.locator("a.author-link")
    names = [links.nth(i).inner_text() for i in range(links.count())]
    assert {"José Nuñez", "王小明", "Zoë Ångström", "Eve <script>"} <= set(names) and "Ada Lovelace" in names
    for title, authors, _, _ in VARIETY:
        for name in authors:
            page.goto(index)
            with page.expect_navigation():
                page.get_by_role("link", name=name, exact=True).click()
            if name == "Ada Lovelace":  # two papers: her page
                assert page.url.endswith("/authors/ada-lovelace.html")
                continue
            settled(page)
            assert page.input_value("#search-input") == f'author:"{name}"'
            titles = page.locator("#search-results a.result-title")
            assert [titles.nth(i).inner_text() for i in range(titles.count())] == [title], name


def test_served_under_repo_subpath(repo_server, seed_records, page):
    record = record_with(seed_records, "Controllability has become")
    page.goto(repo_server + "index.html")
    page.fill("#site-search", "Min-Ling Zhang controllability")
    page.press("#site-search", "Enter")
    page.wait_for_selector("#search-results li")
    assert page.url.startswith(repo_server + "search.html?q=")
    assert result_hrefs(page)[0] == record["url"]
    with page.expect_navigation():
        page.locator("#search-results a.result-title").first.click()
    assert page.url == repo_server + quote(record["url"])
    assert page.locator("h1").inner_text().strip()


def test_typed_words_find_their_paper(seed_site, seed_records, page, seed_words):
    """A sample of (word, paper) pairs typed into the box; the full check is test_every_seed_word…"""
    rng = random.Random(7)
    pairs = rng.sample(sorted(seed_words), 25)
    page.goto((seed_site / "search.html").as_uri())
    misses = [(word, url) for word, url in pairs if url not in search(page, word) and
              url not in page.evaluate("q => SiteSearch.run(q).then(SiteSearch.records).then(rs => rs.map(r => r.url))",
                                         word)]
    assert misses == []


def test_every_seed_word_finds_its_paper(seed_site, page, seed_words):
    page.goto((seed_site / "search.html").as_uri())
    by_word: dict[str, list[str]] = {}
    for word, url in seed_words:
        by_word.setdefault(word, []).append(url)
    misses = page.evaluate("""async byWord => {
        const misses = [];
        for (const [word, urls] of Object.entries(byWord)) {
            const records = await SiteSearch.run(word).then(SiteSearch.records);
            const found = new Set(records.map(r => r.url));
            urls.forEach(u => { if (!found.has(u)) misses.push([word, u]); });
        }
        return misses;
    }""", by_word)
    assert len(seed_words) > 6000
    assert misses == []


def test_page_index_gives_what_lunr_load_of_the_python_index_gives(seed_site, page):
    """In Chromium: the page's sharded index (each query loading its shards) and lunr.Index.load of the
    index the Python indexer serialises give the same results, scores, order and matched terms."""
    reference = build_search_data(seed_model())["index"]
    rng = random.Random(12)
    words = sorted({w for p in seed_model().papers for w in p.rendered.text.split()})
    queries = rng.sample(words, 150) + [w[:3] for w in rng.sample(words, 50)] + \
        ["learning", "title:learning", "author:zhang", "model*", "graph neural network", "大语言", ":", ""]
    page.goto((seed_site / "search.html").as_uri())
    out = page.evaluate("""async ([serialised, queries]) => {
      const theirs = lunr.Index.load(serialised), engine = window.SiteSearch.engine;
      const key = (found) => JSON.stringify(found.results.map((r) => [r.ref, r.score, [...r.terms].sort()]));
      const differ = [];
      let results = 0;
      for (const q of queries) {
        const expected = SearchCore.search(lunr, theirs, q);
        results += expected.results.length;
        if (key(await engine.search(SearchCore, q)) !== key(expected)) differ.push(q);
      }
      return {results, differ};
    }""", [reference, queries])
    assert out["differ"] == [] and out["results"] > 500


def test_query_fuzz_in_the_page(seed_site, page):
    """500 seeded random strings shown by the real page: a result count or "No results", never an error."""
    rng = random.Random(500)
    alphabet = list("abcdefgxyz019 :~^+-*\"'()[]{}\\/$.,<>&") + ["ü", "大模型", "😀", "\u0301", "\u202e", "title:", "author:"]
    queries = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(500)]
    page.goto((seed_site / "search.html").as_uri())
    statuses = page.evaluate("""async qs => {
        const out = [];
        for (const q of qs) {
            await window.SiteSearch.show(q);
            out.push(document.getElementById('search-status').textContent);
        }
        return out;
    }""", queries)
    assert all(s == "" or s.startswith("No results") or " result" in s for s in statuses)
    for q in [":", "title:", "~^", "+-*"]:
        search(page, q)
        assert page.locator("#search-status").inner_text().startswith("No results")


def test_variants_cjk_unicode_and_text_only(variety, page):
    docs = site_search_data(variety)["docs"]
    url = {d["title"][:6]: d["url"] for d in docs.values()}
    page.goto((variety / "search.html").as_uri())
    gpt = url["GPT-4o"]
    for query in ["GPT-4o", "gpt4o", "gpt 4o", "ＧＰＴ－４ｏ", "LLaMA-2", "llama2", "llama-2-7b", "resnet50"]:
        assert search(page, query) == [gpt], query
    search(page, "llama2 features")
    marks = page.locator("#search-results .snippet mark").all_inner_texts()
    assert marks[:3] == ["LLaMA", "2", "features"] and "7B" not in marks  # the matching runs of "LLaMA-2-7B"
    for query in ["$\\mathcal{O}(n^2)$", "\\mathcal{O}", "mathcal", "O(n^2)"]:  # raw TeX as typed or copied
        assert gpt in search(page, query), query
    assert sorted(search(page, "𝒪(n²)")) == sorted([url["Emoji "], gpt])
    cjk = url["大语言模型的"]
    for query in ["语言", "模型的推", "推理能力", "数学推理", "提示方法"]:
        assert search(page, query) == [cjk], query
    assert page.locator("#search-results mark").first.inner_text() == "提示方法"
    emoji = url["Emoji "]
    for query in ["schölkopf", "Scholkopf", "עברית", "العربية", "𠮷野", "﨎", "full-width", "fullwidth", "nunez", "Ångström"]:
        hits = search(page, query)
        assert emoji in hits or url["GPT-4o"] in hits, query
    assert search(page, "title:speculative") == [url["Specul"]]
    assert sorted(search(page, "author:lovelace")) == sorted([gpt, url["Specul"]])
    assert search(page, "author:speculative") == []
    assert set(search(page, "llama")) == {gpt, url["Specul"]}
    # A title match ranks above an abstract-only match.
    assert search(page, "gpt") == [gpt, url["Specul"]]
    # Data is text: the HTML-looking title shows literally and runs nothing.
    hits = search(page, "onerror")
    assert len(hits) == 1
    assert page.locator("#search-results img, #search-results b, #search-results script").count() == 0
    assert "<img src=x" in page.locator("#search-results a.result-title").first.inner_text()
    assert page.evaluate("window.__xss") is None
    SHOTS.mkdir(exist_ok=True)
    search(page, "模型")
    page.screenshot(path=str(SHOTS / "search-cjk.png"), full_page=True)


@pytest.fixture(scope="module")
def seed_words(seed_site) -> list[tuple[str, str]]:
    """Every (word, paper url) pair of the seeds (see ``search.recall_words``)."""
    return sorted((w, p.path) for p in seed_model().papers for w in recall_words(p))
