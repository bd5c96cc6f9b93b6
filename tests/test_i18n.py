"""Page words in the site's language (issue 22): every message of the templates, the code and the browser
scripts (found as ``pybabel extract`` finds them, with ``babel.cfg``) has a translation in every catalog, with
the same placeholders; a site built with ``language = "zh-CN"`` says ``<html lang="zh-CN">`` and shows none
of the English page words; an unknown language is a located config error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg

from conftest import ROOT, SEEDS, build_into
from site_builder import i18n
from site_builder.output.writer import count_noun

PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def extracted() -> dict[str, tuple]:
    """Every message of the project: msgid (the singular for a plural) → the message as extracted."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found = {}
    for _, _, message, _, _ in extract_from_dir(str(ROOT), method_map, options_map):
        found[message[0] if isinstance(message, tuple) else message] = message if isinstance(message, tuple) else (message,)
    return found


MESSAGES = extracted()
CATALOGS = [language for language in i18n.languages() if language != i18n.DEFAULT_LANGUAGE]


def test_the_project_has_page_words_and_a_chinese_catalog():
    assert len(MESSAGES) > 80 and "Skip to content" in MESSAGES and "Show all abstracts" in MESSAGES
    assert "zh-CN" in CATALOGS


@pytest.mark.parametrize("language", CATALOGS)
def test_every_page_word_is_translated_in_every_catalog(language):
    catalog = i18n.catalog(language)
    for msgid, forms in MESSAGES.items():
        message = catalog.get(forms if len(forms) > 1 else msgid)
        assert message is not None, f"{language}: {msgid!r} is missing from {i18n.catalog_path(language)}"
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings) and not message.fuzzy, f"{language}: {msgid!r} has no translation"
        for string in strings:
            assert set(PLACEHOLDER.findall(string)) == set(PLACEHOLDER.findall(msgid)), (language, msgid, string)


def test_numbers_and_counts_follow_the_language():
    assert count_noun(12345, "paper") == "12,345 papers" and count_noun(1, "venue") == "1 venue"
    assert count_noun(12345, "paper", i18n.translations("zh-CN"), "zh-CN") == "12,345 篇论文"


@pytest.fixture(scope="module")
def chinese_site(tmp_path_factory) -> Path:
    config = tmp_path_factory.mktemp("config") / "site.toml"
    config.write_text('title = "论文阅读列表"\nlanguage = "zh-CN"\n[lists."003_7bfb54ea2f2037fe.txt"]\n'
                      'venue = "ICML"\nyear = 2025\n', encoding="utf-8")
    out = tmp_path_factory.mktemp("zh") / "_site"
    assert build_into(out, "--no-cache", config=config) == 0
    return out


def visible_text(page: Path) -> str:
    html = page.read_text(encoding="utf-8")
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    attributes = " ".join(re.findall(r'(?:aria-label|placeholder|title|alt)="([^"]*)"', html))
    return re.sub(r"<[^>]+>", " ", html) + " " + attributes


def test_a_chinese_site_shows_no_english_page_words(chinese_site):
    pages = [chinese_site / name for name in ("index.html", "search.html", "stars.html", "404.html")]
    pages += [next(chinese_site.glob(pattern)) for pattern in ("venues/*/index.html", "papers/*.html", "authors/*.html")]
    pages += [chinese_site / "authors" / "index.html", chinese_site / "map.html"]
    phrases = [m for m in MESSAGES if len(re.sub(PLACEHOLDER, "", m).split()) >= 2]  # single words may be paper text
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert '<html lang="zh-CN">' in html, page
        text = visible_text(page)
        left = [p for p in phrases if re.sub(PLACEHOLDER, "", p).strip() in text]
        assert not left, (page.name, left)
    assert "window.SITE_STRINGS" in (chinese_site / "assets" / "strings.js").read_text(encoding="utf-8")


def _code(script: str) -> str:
    """``script`` without its block comments (which may quote _("…") as an example)."""
    return re.sub(r"/\*.*?\*/", "", script, flags=re.S)


def test_every_word_of_the_browser_scripts_reaches_a_chinese_site(chinese_site):
    """strings.js holds the catalog's messages found in assets/ (i18n.script_strings, by the catalog's
    locations): a word a script uses, e.g. abstracts.js's link when an abstracts file does not load, is there."""
    text = (chinese_site / "assets" / "strings.js").read_text(encoding="utf-8")
    table = json.loads(text.removeprefix("window.SITE_STRINGS = ").removesuffix(";\n"))
    used = {json.loads(f'"{m}"') for script in (ROOT / "assets").glob("*.js")
            for m in re.findall(r'\b_\("((?:[^"\\]|\\.)*)"', _code(script.read_text(encoding="utf-8")))}
    assert "Read the abstract" in used and len(used) > 20
    assert sorted(used - set(table)) == []


def test_an_english_site_loads_no_strings(seed_site):
    assert not (seed_site / "assets" / "strings.js").exists()
    assert '<html lang="en">' in (seed_site / "index.html").read_text(encoding="utf-8")


def test_an_unknown_language_is_a_located_config_error(tmp_path, capsys):
    config = tmp_path / "site.toml"
    config.write_text('title = "x"\nlanguage = "fr"\n', encoding="utf-8")
    assert build_into(tmp_path / "out", config=config, seeds=SEEDS) == 2
    err = capsys.readouterr().err
    assert f"{config}:2: error: language 'fr' has no catalog locale/fr/LC_MESSAGES/messages.po" in err


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_no_violation_in_chinese(chinese_site, page, theme):
    from axe_playwright_python.sync_playwright import Axe

    page.emulate_media(color_scheme=theme)
    for name in ("index.html", "venues/icml-2024/index.html"):
        page.goto((chinese_site / name).as_uri())
        if name != "index.html":
            page.evaluate("localStorage.clear()")
            page.reload()
            page.locator("button.show-abstracts").click()
            assert page.locator("button.show-abstracts").inner_text() == "收起全部摘要"
            page.wait_for_function("document.querySelectorAll('.abstract-toggle:not([data-filled])').length === 0")
        results = Axe().run(page)
        assert results.violations_count == 0, results.generate_report()


def test_the_scripts_speak_the_language_of_the_site(chinese_site, page):
    page.goto((chinese_site / "search.html").as_uri() + "?q=learning")
    page.wait_for_selector("#search-results li")
    assert re.fullmatch(r"\d+ 个结果(，显示第 .*)?", page.locator("#search-status").inner_text())
    assert "会议" in page.locator("#search-facets legend").all_inner_texts()
    authors = page.locator("#search-results .authors").all_inner_texts()
    assert any("、" in line for line in authors) and not any(", " in line for line in authors)
    page.goto((chinese_site / "index.html").as_uri())
    page.locator("#site-search").fill("learning")
    page.wait_for_selector("#site-search-list .ta-all")  # the results, after "正在加载搜索……" (loading)
    assert page.locator("#site-search-list [role=option]").last.inner_text().startswith("“learning”的全部")


def test_a_chinese_venue_page_names_its_papers_without_a_track_in_chinese(tmp_path):
    """The track chart's bar of the papers of no track (found by a new-user pass: "Other papers" on a zh-CN site)."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    rows = [{"title": f"Paper {n}", "authors": ["Ann Lee"], "venue": "ICML", "year": 2024, "abstract": "We study it.",
             **({"track": "Theory"} if n else {})} for n in range(3)]
    (seeds / "papers.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    config = tmp_path / "site.toml"
    config.write_text('language = "zh-CN"\n', encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=config) == 0
    text = visible_text(tmp_path / "site" / "venues" / "icml-2024" / "index.html")
    assert "其他论文" in text and "Other papers" not in text and "chart-tracks" in (
        tmp_path / "site" / "venues" / "icml-2024" / "index.html").read_text(encoding="utf-8")
