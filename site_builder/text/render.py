"""Render abstracts: Markdown and TeX source → safe HTML with MathML, and plain text.

One cached markdown-it-py parser (CommonMark, raw HTML off) with dollar math from
mdit-py-plugins and the TeX-habit rules of :mod:`site_builder.text.texhabits`.
Block constructs that misfire on publishers' plain text are disabled: indented
code, fences, headings (ATX and setext), lists, block quotes, thematic breaks,
link reference definitions; images too (no remote loads). Paragraphs, inline
Markdown (emphasis, code spans, links, autolinks, escapes, entities) and
``$$…$$`` blocks remain.

Math is converted at build time by latex2mathml (``convert_to_element``) and
serialised here, escaping text and keeping only presentational attributes.
The plain text is derived from the same token stream the HTML comes from, so
it equals the HTML's visible text (MathML: the text of its token elements) up
to white space, except that math-alphabet letters read plainly (𝒪 → O) and what
MathML draws is spelled out (:data:`LAYOUT_TEXT`: √n, (a + b)/2, e^x).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from html import escape, unescape
from typing import TYPE_CHECKING

from .plain import CODE_HOSTS, code_urls, plain_abstract, plain_inline  # noqa: F401 (CODE_HOSTS: re-exported)

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# markdown-it-py, its plugins, latex2mathml and texhabits (~50 ms to import) are imported on first use
# (parser(), render_math()): a rebuild whose changed abstracts are plain prose never needs them.

SAFE_SCHEME = re.compile(r"^\s*(?:(?:https?|ftp|mailto):|[^:/?#]*(?:[/?#]|$))", re.I)
MATH_ATTRS = {"display", "mathvariant", "stretchy", "fence", "form", "separator", "lspace", "rspace",
              "width", "height", "depth", "columnalign", "accent", "accentunder", "movablelimits",
              "linethickness", "largeop", "symmetric", "minsize", "maxsize", "displaystyle",
              "scriptlevel", "rowspacing", "columnspacing", "columnlines", "rowlines", "frame",
              "notation", "mathsize", "mathcolor", "xmlns"}
MATH_TAG = re.compile(r"(?:math|m[a-z]+|none|semantics|annotation)\Z")
TOKEN_TAGS = {"mi", "mn", "mo", "mtext", "ms"}
SPACED_MO = set("=<>≈∈∉≤≥≠∼≃≅≡→←↔⇒⇐⇔↦⊂⊆⊃⊇∝≪≫≍≲≳⩽⩾×±∓·∘⋅∪∩∧∨+−∣:") | {"\u2061"}
# Common paper macros latex2mathml does not know.
MACROS = {"eps": r"\epsilon", "R": r"\mathbb{R}", "E": r"\mathbb{E}", "N": r"\mathbb{N}",
          "Z": r"\mathbb{Z}", "Q": r"\mathbb{Q}", "C": r"\mathbb{C}", "poly": r"\mathrm{poly}",
          "polylog": r"\mathrm{polylog}", "Otilde": r"\tilde{O}", "otilde": r"\tilde{O}",
          "Tilde": r"\tilde", "wt": r"\widetilde", "wh": r"\widehat", "nicefrac": r"\frac",
          "OPT": r"\mathrm{OPT}", "argmin": r"\operatorname{argmin}", "argmax": r"\operatorname{argmax}",
          "cal": r"\mathcal", "Pr": r"\operatorname{Pr}", "arg": r"\operatorname{arg}",
          "allowbreak": "", "epilon": r"\epsilon", "Rd": r"\mathbb{R}^d", "textemdash": r"\text{—}",
          **{f"c{c}": rf"\mathcal{{{c}}}" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}}
MACRO_RE = re.compile(r"\\(" + "|".join(sorted(MACROS, key=len, reverse=True)) + r")(?![A-Za-z])")
MATH_TOKENS = ("math_inline", "math_inline_double", "math_block", "math_block_label")


@dataclass(frozen=True)
class RenderedAbstract:
    """An abstract rendered: ``html`` (safe, MathML for math), ``text`` (plain,
    for the index and meta description: the visible text of ``html`` on one line),
    ``code_urls`` (links to GitHub, GitLab, Bitbucket, Hugging Face, in order),
    ``warnings`` (formulas shown as TeX because they failed to convert; unknown
    TeX commands shown by name)."""

    html: str
    text: str
    code_urls: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Formula:
    """One converted formula: its HTML, its visible text and any warnings."""

    html: str
    text: str
    warnings: tuple[str, ...] = ()


def _plain_letters(text: str) -> str:
    """Math-alphabet letters (𝒪, ℝ, 𝐱) as their plain letters."""
    return "".join(unicodedata.normalize("NFKC", c) if "\U0001d400" <= c <= "\U0001d7ff"
                   or c in "ℂℍℕℙℚℝℤℬℰℱℋℐℒℳℛℭℌℑℜℨℯℊℴ" else c for c in text)


def _serialise(el: Element, out: list[str], text: list[str], unknown: list[str]) -> None:
    """Write MathML element ``el`` to ``out`` (escaped, safe attributes) and its visible text to ``text``."""
    if not MATH_TAG.match(el.tag):
        raise ValueError(f"unexpected element <{el.tag}> in MathML")
    attrs = "".join(f' {k}="{escape(v)}"' for k, v in el.attrib.items() if k in MATH_ATTRS)
    content = unescape(el.text or "")
    if el.tag in TOKEN_TAGS and content[:1] == "\\" and content in _symbols():  # \big\langle → "\langle"
        content = chr(int(_symbols()[content], 16))
    elif el.tag in TOKEN_TAGS and re.fullmatch(r"\\[^A-Za-z]", content):
        content = content[1:]
    elif el.tag in TOKEN_TAGS and re.fullmatch(r"\\[A-Za-z]+", content):
        unknown.append(content)
        content = content[1:]
        attrs += ' mathvariant="normal"' if "mathvariant" not in el.attrib and len(content) > 1 else ""
    out.append(f"<{el.tag}{attrs}>{escape(content, quote=False)}")
    if el.tag in TOKEN_TAGS:
        shown = content.replace("\u2061", " ").replace("\u2062", "").replace("\u2063", "")
        spaced = el.tag == "mo" and (content in SPACED_MO or len(content) > 1)
        if text and el.tag in ("mi", "mn") and text[-1][-1:].isalpha() and len(text[-1]) > 1:
            shown = " " + shown
        text.append(f" {shown} " if spaced else shown)
    elif el.tag == "mspace":
        text.append(" ")
    if el.tag in LAYOUT_TEXT:  # drawn, not written: the plain text spells the layout out (√n, a/b, e^x)
        parts = []
        for child in el:
            part: list[str] = []
            _serialise(child, out, part, unknown)
            parts.append("".join(part).strip())
        text.append(LAYOUT_TEXT[el.tag](parts))
    else:
        for child in el:
            _serialise(child, out, text, unknown)
    out.append(f"</{el.tag}>")


def _grouped(text: str) -> str:
    """``text`` as one operand in plain text: as it is when a word or number (or one character), else in
    parentheses (``a + b`` → ``(a + b)``)."""
    text = re.sub(r"^([−+±]) ", r"\1", text)  # a sign, not a binary operator: −n, not − n
    return text if len(text) <= 1 or text.isalnum() or (text[:1] + text[-1:] == "()") else f"({text})"


#: The plain text of the MathML layouts whose meaning is drawn rather than written (a root's sign, a fraction's
#: bar, a raised exponent), from their children's texts: without them √n read "n", a/b "ab" and e^x "ex" in
#: titles, search results and snippets (found by a new-user pass). Others (subscripts, over/under) concatenate.
LAYOUT_TEXT = {
    "msqrt": lambda parts: "√" + _grouped("".join(parts)),
    "mroot": lambda parts: ({"3": "∛", "4": "∜"}.get(parts[1]) or (parts[1] + "√") if len(parts) > 1 else "√")
    + _grouped(parts[0] if parts else ""),
    "mfrac": lambda parts: "/".join(_grouped(part) for part in parts),
    "msup": lambda parts: "".join(parts) if not parts or not parts[0] else  # a mark alone: x$^1$ reads x1
    parts[0] + "".join("^" + _grouped(part) for part in parts[1:]),
    "msubsup": lambda parts: "".join(parts[:2]) + "".join("^" + _grouped(part) for part in parts[2:]),
}


@lru_cache(maxsize=1)
def _symbols() -> dict[str, str]:
    """latex2mathml's ``SYMBOLS`` (TeX command → hex code point), imported on first use."""
    from latex2mathml.symbols_parser import SYMBOLS
    return SYMBOLS


@lru_cache(maxsize=8192)
def render_math(tex: str, display: bool = False) -> Formula:
    """Convert TeX ``tex`` (without delimiters) to MathML.

    Returns a :class:`Formula`; never raises. A formula latex2mathml cannot convert
    comes back as ``<code>`` holding its TeX source, with a warning; unknown
    commands (a paper's own macros) are shown by name, with a warning.
    """
    source = MACRO_RE.sub(lambda m: MACROS[m.group(1)], tex.strip())
    source = re.sub(r"(?<!\\)%", r"\\%", source) if source != "~" else r"\sim"
    out: list[str] = []
    text: list[str] = []
    unknown: list[str] = []
    try:
        from latex2mathml.converter import convert_to_element
        _serialise(convert_to_element(source, display="block" if display else "inline"), out, text, unknown)
    except Exception as exc:  # noqa: BLE001 - latex2mathml raises many kinds
        return Formula(f'<code class="tex">{escape(tex)}</code>', tex,
                       (f"formula not converted, shown as TeX: {tex!r} ({type(exc).__name__}: {exc})",))
    warnings = tuple(f"unknown TeX command {u} in formula {tex!r}, shown as {u[1:]!r}" for u in unknown)
    return Formula("".join(out), _plain_letters("".join(text)), warnings)


def warm_up() -> None:
    """Import what rendering any text needs (markdown-it-py, its plugins, latex2mathml, texhabits) and
    build the parser now, e.g. before forking workers that all render, rather than once in each."""
    parser()
    _symbols()
    import latex2mathml.converter  # noqa: F401


def _math_rule(self, tokens: list[Token], idx: int, options, env) -> str:
    tok = tokens[idx]
    formula = render_math(tok.content, tok.type != "math_inline")
    env.setdefault("warnings", []).extend(formula.warnings)
    return formula.html


def _link_open(self, tokens: list[Token], idx: int, options, env) -> str:
    tokens[idx].attrSet("rel", "noopener")
    return self.renderToken(tokens, idx, options, env)


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The configured, cached MarkdownIt instance (see the module docstring)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    from .texhabits import texhabits_plugin
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable(["code", "fence", "heading", "lheading", "list", "blockquote", "hr", "reference",
                "html_block", "html_inline", "image"])
    md.use(dollarmath_plugin, allow_labels=False)
    md.inline.ruler.at("math_inline", dollar_inline)
    texhabits_plugin(md)
    md.validateLink = lambda url: bool(SAFE_SCHEME.match(url))
    for name in MATH_TOKENS:
        md.add_render_rule(name, _math_rule)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("softbreak", lambda *a: "\n")
    return md


TEX_MARK = re.compile(r"[\\^_{}=<>]")
PROSE = re.compile(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}")


def is_math(content: str, next_char: str) -> bool:
    """Whether ``$content$`` (followed by ``next_char``) is math rather than money or prose."""
    if not content.strip():
        return False
    if TEX_MARK.search(content):
        return True
    if content.lstrip()[:1].isdigit():  # a price, unless tight and not followed by a digit: $2$
        return content == content.strip() and not next_char.isdigit()
    return not PROSE.search(content)


def _amount_before(src: str, pos: int) -> bool:
    """Whether the dollar at ``pos`` of ``src`` follows an amount as its currency sign: a digit just before,
    and white space, punctuation or the end just after (``35$ a month``, ``(35$)``)."""
    after = src[pos + 1:pos + 2]
    return pos > 0 and src[pos - 1].isdigit() and (not after or after.isspace() or after in ".,;:!?)]")


def dollar_inline(state, silent: bool) -> bool:
    """Inline ``$…$``/``$$…$$`` math that leaves money alone (``costs $10 and $20``).

    Content starting with a digit is math only when no white space is just inside the
    dollars and no digit follows (``$2$`` yes; ``$10 and $20``, ``$5-$10`` no). Other
    content is math when it looks like TeX or is not prose. ``\\$`` is a literal dollar, and so is a
    currency sign written after its amount (``35$``: a digit before the dollar, white space, punctuation or
    the end after it), which never opens a formula.
    """
    src, pos = state.src, state.pos
    if src[pos] != "$" or (pos and src[pos - 1] == "\\") or _amount_before(src, pos):
        return False
    width = 2 if src.startswith("$$", pos) else 1
    end = pos + width
    while (end := src.find("$" * width, end, state.posMax)) >= 0 and src[end - 1] == "\\":
        end += 1
    content = src[pos + width:end] if end >= 0 else ""
    if not is_math(content, src[end + width:end + width + 1]):
        return False
    if not silent:
        tok = state.push("math_inline_double" if width == 2 else "math_inline", "math", 0)
        tok.content, tok.markup = content, "$" * width
    state.pos = end + width
    return True


def _inline_text(children: list[Token]) -> list[str]:
    """Visible text of inline tokens, in order."""
    parts = []
    for tok in children:
        if tok.type in ("text", "code_inline"):
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif tok.type in MATH_TOKENS:
            parts.append(render_math(tok.content, tok.type != "math_inline").text)
    return parts


def _plain(tokens: list[Token]) -> str:
    """Plain text of a token stream: paragraphs joined by a space, white space collapsed."""
    parts = []
    for tok in tokens:
        if tok.type == "inline":
            parts.extend(_inline_text(tok.children or []))
        elif tok.type in MATH_TOKENS:
            parts.append(render_math(tok.content, True).text)
        parts.append(" " if tok.block else "")
    return " ".join("".join(parts).split())  # = re.sub(r"\s+", " ", …).strip(), at a third of the CPU


def _code_urls(tokens: list[Token]) -> tuple[str, ...]:
    """hrefs of links to code hosts, in order, without repeats (see :func:`plain.code_urls`)."""
    return code_urls(tok.attrGet("href") for block in tokens for tok in (block.children or ())
                     if tok.type == "link_open")


#: A line break right after a hyphen between two word characters, as a hard-wrapped abstract has it ("real-",
#: "time" on the next line): joined without the space a line break shows as, the hyphen kept ("real-time"; a
#: word hyphenated only to wrap keeps its hyphen, which no rule can tell from a compound without a dictionary).
HYPHEN_BREAK = re.compile(r"(?<=\w)-[ \t]*\n[ \t]*(?=\w)")


def render_abstract(source: str) -> RenderedAbstract:
    """Render abstract ``source`` (Markdown with inline TeX) to HTML and plain text.

    ``source`` is one abstract as read from a list or the corpus (paragraphs separated
    by blank lines). Returns :class:`RenderedAbstract` with ``html`` (``<p>`` blocks,
    MathML, links with ``rel="noopener"``), ``text`` (the visible text on one line),
    ``code_urls`` and ``warnings`` (formulas shown as TeX, unknown TeX commands).
    Never raises for any string. Plain prose takes :func:`plain.plain_abstract`'s
    fast path (same result, see there). A line broken after a hyphen is joined there (:data:`HYPHEN_BREAK`).
    """
    if "-\n" in source:
        source = HYPHEN_BREAK.sub("-", source)
    # plain_abstract needs the parser only for a text with a bare URL ("://"); else it is not built
    plain = plain_abstract(source, parser() if "://" in source else None)
    if plain is not None:
        return RenderedAbstract(*plain)
    md, env = parser(), {}
    tokens = md.parse(source, env)
    html = md.renderer.render(tokens, md.options, env)
    return RenderedAbstract(html, _plain(tokens), _code_urls(tokens), tuple(dict.fromkeys(env.get("warnings", []))))


def render_inline(source: str) -> tuple[str, str]:
    """Render a one-line field (a title) to ``(html, text)``: no block wrapper.

    Same inline rules as :func:`render_abstract` (math, emphasis, TeX habits);
    block syntax is not parsed at all. Warnings are dropped. Never raises. Plain prose takes
    :func:`plain.plain_inline`'s fast path (same result).
    """
    plain = plain_inline(source)
    if plain is not None:
        return plain
    md, env = parser(), {}
    tokens = md.parseInline(source, env)
    html = md.renderer.render(tokens, md.options, env)
    return html, _plain(tokens)
