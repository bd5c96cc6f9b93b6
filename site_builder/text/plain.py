"""Fast path of :mod:`site_builder.text.render` for plain text (no character any rule acts on).

Most abstracts (about 70 % of the corpus) and nearly all titles are plain
prose: no ``$``, backslash, brace, tilde, backtick, ``*``, ``_``, ``[``, ``<``,
``&``, no ``://``, ``www.``, ``--`` or ``''``, and no white space but spaces and
line ends. For such a text the configured markdown-it-py parser
(:func:`render.parser`: only the ``paragraph`` and ``math_block`` block rules
are on; see :func:`render.parser` for the inline rules) provably does only this:

- blocks: lines holding only spaces separate paragraphs; a paragraph is its
  lines joined by ``\\n``, stripped (markdown-it-py's ``paragraph`` rule);
- inline: the ``text`` rule takes every character except at ``\\n``, where the
  ``newline`` rule drops one trailing space before it (two or more would make
  a hard break: such texts are not plain here) and the spaces starting the next
  line, and emits a soft break (rendered ``\\n``); no other inline rule can
  match (each needs one of the characters or sequences excluded above; ``!``
  would start an image, which is disabled); the core rules ``www_links`` and
  ``tex_typography`` need ``www.``, ``--`` or ``''``;
- HTML: ``<p>…</p>\\n`` per paragraph, text through markdown-it-py's
  ``escapeHtml``; no links, so no code URLs; no math or TeX, so no warnings.

Bare URLs (``https://…``, ``http://``, ``ftp://``, as :func:`texhabits.bare_url` finds and
trims them; 12 % of the abstracts hold one) are cut out first, by the rule's own pattern and
functions, and put back as the links it makes (``<a href="…" rel="noopener">…</a>``); the rest of
the text must be plain.

The plain text is what :func:`render._plain` makes of those tokens. Both
functions return None when the text is not plain; the caller then runs
markdown-it-py. ``tests/text/test_render_plain.py`` checks the two paths agree on
every abstract and title of the corpus and on generated texts.
"""

from __future__ import annotations

import re

from urllib.parse import urlsplit

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # markdown-it is imported only when a text is not plain (see render.parser)
    from markdown_it import MarkdownIt

#: White space other than space and line end: ``str.isspace`` (which is also ``re``'s ``\\s``), as
#: ``tests/text/test_render_plain.py`` checks. markdown-it's blank lines and indents count spaces and tabs
#: only, while Python's ``str.strip`` takes every kind, so such texts are not plain here.
OTHER_SPACE = ("\t\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
               "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
#: A character some rule of the configured parser acts on (or markdown-it's normalisation: NUL, CR).
NOT_PLAIN_CHAR = re.compile("[$\\\\{}~`*_\\[\\]<>&\0" + OTHER_SPACE + "]")
#: Sequences a rule acts on: bare URLs, ``www.`` links, dashes and closing quotes; ``"  \n"`` would be a
#: hard break.
NOT_PLAIN_SEQUENCES = ("://", "www.", "--", "''", "  \n")
BLANK = re.compile(r"\n(?: *\n)+")
LINE_SPACES = re.compile(r" ?\n *")


def is_plain(source: str) -> bool:
    """Whether ``source`` holds no character or sequence the configured parser acts on (see above)."""
    return not NOT_PLAIN_CHAR.search(source) and not any(s in source for s in NOT_PLAIN_SEQUENCES)


#: A bare URL's characters after ``://`` (:func:`texhabits.bare_url`'s pattern; defined here so the plain
#: path imports neither markdown-it nor texhabits).
URL = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")


def escapeHtml(raw: str) -> str:  # noqa: N802 - the name of the markdown-it-py function it equals
    """``raw`` with ``&``, ``<``, ``>`` and ``"`` escaped (not ``'``): the same as markdown-it-py's
    ``markdown_it.common.utils.escapeHtml`` (its renderer's text escape; ``tests/text/test_render_plain.py``
    checks they agree), without importing markdown-it for plain texts."""
    return raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def trim_url(url: str) -> str:
    """Drop trailing punctuation and unbalanced closing brackets from a bare URL."""
    while url:
        last = url[-1]
        if last in ".,;:!?'\"*_":
            url = url[:-1]
        elif last == ")" and url.count(")") > url.count("("):
            url = url[:-1]
        elif last == "]" and url.count("]") > url.count("["):
            url = url[:-1]
        else:
            return url
    return url


CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "hf.co")
#: The scheme :func:`texhabits.bare_url` wants at the end of the text before ``://``.
SCHEME = re.compile(r"(?<![A-Za-z0-9])(?:https?|ftp)$", re.I)
#: Stands for a link in the text while its paragraphs and lines are laid out (never in a plain text).
LINK_MARK = "\ue000"


def code_urls(hrefs) -> tuple[str, ...]:
    """The ``hrefs`` on code hosts (GitHub, GitLab, Bitbucket, Hugging Face; not pages.github.com),
    in order, without repeats."""
    urls = []
    for href in hrefs:
        host = (urlsplit(str(href)).hostname or "") if href else ""
        if any(host == h or host.endswith("." + h) for h in CODE_HOSTS) and host != "pages.github.com":
            urls.append(str(href))
    return tuple(dict.fromkeys(urls))


def _cut_urls(source: str, md: MarkdownIt) -> tuple[str, list[tuple[str, str]]] | None:
    """``source`` with each bare URL replaced by :data:`LINK_MARK`, and the ``(href, shown text)`` of
    each, as :func:`texhabits.bare_url` and :func:`texhabits._link` make them; None when a ``://``
    is not such a URL. (The rule looks at the text since the last token: the line, or the previous
    URL; a URL holds no white space, so it never spans lines.)"""
    out, links, start = [], [], 0
    while (colon := source.find("://", start)) >= 0:
        line_start = source.rfind("\n", 0, colon) + 1
        scheme = SCHEME.search(source[max(start, line_start):colon])
        match = URL.match(source, colon)
        url = trim_url(scheme.group(0) + match.group(0)) if scheme and match else ""
        if len(url) <= len(scheme.group(0) if scheme else "") + 3:
            return None
        href = md.normalizeLink(url.strip())
        if not md.validateLink(href):
            return None
        out += [source[start:colon - len(scheme.group(0))], LINK_MARK]
        links.append((href, md.normalizeLinkText(url)))
        start = colon + len(url) - len(scheme.group(0))
    return "".join(out) + source[start:], links


def plain_abstract(source: str, md: MarkdownIt | None = None) -> tuple[str, str, tuple[str, ...]] | None:
    """``(html, text, code URLs)`` of :func:`render.render_abstract` for a plain ``source`` (see the
    module docstring), or None when ``source`` is not plain. ``md`` is :func:`render.parser` (needed
    for bare URLs: without it a text with ``://`` is not plain). Never raises."""
    links: list[tuple[str, str]] = []
    if "://" in source:
        cut = _cut_urls(source, md) if md is not None and LINK_MARK not in source else None
        if cut is None:
            return None
        source, links = cut
    if not is_plain(source):
        return None
    if "\n" not in source:
        html = f"<p>{escapeHtml(source.strip())}</p>\n" if source.strip() else ""
    else:
        html = "".join(f"<p>{escapeHtml(LINE_SPACES.sub(chr(10), content))}</p>\n"
                       for block in BLANK.split(f"\n{source}\n") if (content := block.strip()))
    if not links:
        return html, " ".join(source.split()), ()  # = re.sub(r"\s+", " ", source).strip()
    shown = iter(f'<a href="{escapeHtml(href)}" rel="noopener">{escapeHtml(text)}</a>' for href, text in links)
    html = re.sub(LINK_MARK, lambda _: next(shown), html)
    texts = iter(text for _, text in links)
    text = re.sub(LINK_MARK, lambda _: next(texts), source)
    return html, " ".join(text.split()), code_urls(href for href, _ in links)


def plain_inline(source: str) -> tuple[str, str] | None:
    """``(html, text)`` of :func:`render.render_inline` for a plain one-line ``source`` (no line
    end; see the module docstring), or None. Never raises."""
    if "\n" in source or not is_plain(source):
        return None
    return escapeHtml(source), " ".join(source.split())
