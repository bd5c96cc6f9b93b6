"""Helpers for the reading-list feature tests: the seeds built with the notes of ``tests/notes``."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from conftest import ROOT, build_into

NOTES = ROOT / "tests" / "notes"


def build_notes_site(out: Path, *extra: str) -> int:
    """Build the seeds with ``tests/notes`` into ``out``; returns the exit status."""
    return build_into(out, "--notes", str(NOTES), *extra)


class Elements(HTMLParser):
    """Every start tag of a page as ``(tag, attrs dict, text until the matching end)`` (text for a/li/span/meta)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[list] = []
        self.open: list[list] = []

    def handle_starttag(self, tag, attrs):
        item = [tag, dict(attrs), ""]
        self.found.append(item)
        if tag not in ("meta", "link", "input", "br", "img"):
            self.open.append(item)

    def handle_endtag(self, tag):
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                break

    def handle_data(self, data):
        for item in self.open:
            item[2] += data


def elements(path: Path) -> list[tuple[str, dict, str]]:
    """Parsed start tags of the page at ``path`` (see :class:`Elements`)."""
    parser = Elements()
    parser.feed(path.read_text(encoding="utf-8"))
    return [(t, a, re.sub(r"\s+", " ", x).strip()) for t, a, x in parser.found]


def section(html: str, cls: str) -> str:
    """The HTML of the first ``<section class="cls"…>…</section>`` of ``html`` (sections are not nested)."""
    m = re.search(rf'<section class="{cls}"[^>]*>(.*?)</section>', html, re.S)
    assert m, f"no section {cls!r}"
    return m.group(1)
