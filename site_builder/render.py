"""Render abstracts: Markdown and TeX source → safe HTML with MathML, and plain text.

PLACEHOLDER: minimal renderer; to be replaced by the full renderer of issue 4
with the same public interface.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from latex2mathml.converter import convert as tex_to_mathml
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

CODE_HOSTS = re.compile(r"https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co)/[^\s)\]>]+")


@dataclass(frozen=True)
class RenderedAbstract:
    """An abstract rendered: ``html`` (safe, MathML for math), ``text`` (plain,
    for the index and meta description), ``code_urls`` (links to code hosts),
    ``warnings`` (messages for formulas that failed to convert)."""

    html: str
    text: str
    code_urls: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


def _math(content: str, display: bool) -> str:
    try:
        return tex_to_mathml(content, display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - latex2mathml raises many kinds
        from html import escape
        return f"<code>{escape(content)}</code>"


_md = MarkdownIt("commonmark", {"html": False, "linkify": False}).use(dollarmath_plugin)
_md.add_render_rule("math_inline", lambda self, tokens, idx, options, env: _math(tokens[idx].content, False))
_md.add_render_rule("math_block", lambda self, tokens, idx, options, env: _math(tokens[idx].content, True))


def render_abstract(source: str) -> RenderedAbstract:
    """Render abstract ``source`` (Markdown with inline TeX) to HTML and plain text."""
    html = _md.render(source)
    text = re.sub(r"\s+", " ", re.sub(r"[$*_\\{}]", "", source)).strip()
    urls = tuple(dict.fromkeys(CODE_HOSTS.findall(source)))
    return RenderedAbstract(html, text, urls)


def render_inline(source: str) -> tuple[str, str]:
    """Render a one-line field (a title) to ``(html, text)``; no block elements."""
    r = render_abstract(source)
    html = r.html.strip()
    if html.startswith("<p>") and html.endswith("</p>"):
        html = html[3:-4]
    return html, r.text
