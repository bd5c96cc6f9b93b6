"""Fast path of :mod:`site_builder.render` for plain text (no character any rule acts on).

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

The plain text is what :func:`render._plain` makes of those tokens. Both
functions return None when the text is not plain; the caller then runs
markdown-it-py. ``tests/test_render_plain.py`` checks the two paths agree on
every abstract and title of the corpus and on generated texts.
"""

from __future__ import annotations

import re

from markdown_it.common.utils import escapeHtml

#: White space other than space and line end: ``str.isspace`` (which is also ``re``'s ``\\s``), as
#: ``tests/test_render_plain.py`` checks. markdown-it's blank lines and indents count spaces and tabs
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


def plain_abstract(source: str) -> tuple[str, str] | None:
    """``(html, text)`` of :func:`render.render_abstract` for a plain ``source`` (see the module
    docstring), or None when ``source`` is not plain. Never raises."""
    if not is_plain(source):
        return None
    text = " ".join(source.split())  # = re.sub(r"\s+", " ", source).strip()
    if "\n" not in source:
        return (f"<p>{escapeHtml(source.strip())}</p>\n" if text else ""), text
    html = []
    for block in BLANK.split(f"\n{source}\n"):
        content = block.strip()
        if content:
            html.append(f"<p>{escapeHtml(LINE_SPACES.sub(chr(10), content))}</p>\n")
    return "".join(html), text


def plain_inline(source: str) -> tuple[str, str] | None:
    """``(html, text)`` of :func:`render.render_inline` for a plain one-line ``source`` (no line
    end; see the module docstring), or None. Never raises."""
    if "\n" in source or not is_plain(source):
        return None
    return escapeHtml(source), " ".join(source.split())
