"""Issue 9: hostile text in every field is shown as text everywhere, never run."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT, build_into

FIXTURE = ROOT / "tests" / "fixtures" / "hostile"
OWN_SCRIPTS = {"application/ld+json"}
OWN_CSS = (ROOT / "assets" / "style.css").read_text(encoding="utf-8")


class _Audit(HTMLParser):
    """Collects what could run: script elements, event-handler attributes, javascript: URLs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.script_type: str | None = None
        self.inline: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=…>")
            if name in ("href", "src", "action") and value and value.strip().lower().startswith(("javascript:", "data:")):
                self.problems.append(f"<{tag} {name}={value!r}>")
        own_abstract = tag == "object" and re.fullmatch(r"(\.\./)*papers/[a-z0-9-]+\.html#abstract-only",
                                                        dict(attrs).get("data") or "")
        if tag in ("img", "iframe", "object", "embed") and not own_abstract:  # the list items' no-JS abstracts
            self.problems.append(f"<{tag}> element from data")
        if tag == "style":
            self.script_type = "text/css"
        if tag == "script":
            attributes = dict(attrs)
            src = attributes.get("src")
            if src is not None and not src.split("/")[-1] in {"lunr.min.js", "manifest.js", "map-data.js"} and "assets/" not in src:
                self.problems.append(f"script src={src!r}")
            self.script_type = attributes.get("type", "text/javascript")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.script_type = None

    def handle_data(self, data):
        if self.script_type is not None and data.strip():
            self.inline.append((self.script_type, data))


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "site"
    assert build_into(out, seeds=FIXTURE, config=FIXTURE / "site.toml") == 0
    return out


def test_every_page_holds_no_runnable_data(hostile_site):
    pages = sorted(hostile_site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        audit = _Audit()
        audit.feed(page.read_text(encoding="utf-8"))
        assert audit.problems == [], page
        for kind, text in audit.inline:
            if kind == "text/css":  # only the site's own stylesheet, inlined in 404.html
                assert text.strip() == OWN_CSS.strip(), page
                continue
            assert "alert" not in text or kind in OWN_SCRIPTS, (page, text[:200])
            if kind in OWN_SCRIPTS:
                json.loads(text)


def test_hostile_title_is_shown_as_text(hostile_site):
    records = json.loads((hostile_site / "papers.json").read_text(encoding="utf-8"))
    record = next(r for r in records if r["title"].startswith("Paper 0"))
    html = (hostile_site / record["url"]).read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "{{ 7*7 }}" in (hostile_site / next(r for r in records if r["title"].startswith("Paper 3"))["url"]).read_text()


def test_index_scripts_cannot_close_their_element(hostile_site):
    files = sorted((hostile_site / "search").rglob("*.js"))
    assert len(files) > 10  # the manifest, the term shards and a record per paper
    for file in files:
        text = file.read_text(encoding="utf-8")
        assert "<" not in text and "\u2028" not in text and "\u2029" not in text, file


def test_map_data_holds_the_hostile_titles_as_data(hostile_site):
    text = (hostile_site / "map-data.js").read_text(encoding="utf-8")
    assert "<" not in text and ">" not in text and "\u2028" not in text and "\u2029" not in text
    data = json.loads(text[len("window.PAPER_MAP = "):-2])
    records = json.loads((hostile_site / "papers.json").read_text(encoding="utf-8"))
    assert len(data["title"]) == len(records)
    assert any("<script>alert(1)</script>" in title for title in data["title"])


def test_xml_outputs_parse(hostile_site):
    import xml.etree.ElementTree as ET
    for path in list(hostile_site.rglob("*.xml")) + list(hostile_site.rglob("*.atom")):
        ET.parse(path)


def test_no_dialog_and_no_data_script_runs_in_chromium(hostile_site, page):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    for html in sorted(hostile_site.rglob("*.html"))[:40]:
        page.goto(html.as_uri())
    page.goto((hostile_site / "search.html").as_uri() + "?q=script")
    page.wait_for_selector("#search-results li", timeout=10_000)
    page.goto((hostile_site / "search.html").as_uri() + "?q=" + "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    page.wait_for_timeout(200)
    assert dialogs == []
