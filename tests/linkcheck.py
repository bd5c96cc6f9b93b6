"""A link checker over a built site: every internal href/src must name an existing file."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append(value)


def all_links(page: Path) -> list[str]:
    """Every href/src attribute value of ``page``, in document order."""
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.links


def internal_links(page: Path) -> list[str]:
    """Every href/src of ``page`` that is not an absolute URL, mailto: or a pure fragment."""
    return [u for u in all_links(page) if not urlsplit(u).scheme and not u.startswith(("#", "//"))]


def broken_links(site: Path) -> list[str]:
    """``page: link`` for every internal link that is broken or ends in ``/``."""
    problems = []
    for page in sorted(site.rglob("*.html")):
        for link in internal_links(page):
            target_path = unquote(urlsplit(link).path)
            if target_path.startswith("/") and page.name == "404.html" and page.parent == site:
                # The 404 page is served at any depth, so its links are root-absolute (site_builder/output/hosting.py).
                target = (site / target_path.lstrip("/")).resolve()
            else:
                target = (page.parent / target_path).resolve()
            if link.split("?")[0].split("#")[0].endswith("/") or not target.is_file():
                problems.append(f"{page.relative_to(site)}: {link}")
    return problems
