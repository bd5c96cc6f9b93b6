"""markdown-it-py rules for TeX habits in pasted abstracts, and bare URLs.

Inline rules see the source before Markdown's own rules, so nothing here ever
applies inside code spans or math. ``texhabits_plugin(md)`` installs:

- ``tex_command``: ``\\emph{x}``/``\\textit``/``\\textbf``/``\\texttt``/``\\url``/
  ``\\href``/accents/``\\(…\\)``… → tokens (em, strong, code_inline, link, math);
  a TeX symbol outside math (``\\epsilon``) becomes math; an unknown command
  (a paper's own macro) shows its name and adds a warning to ``env["warnings"]``.
- ``tex_group``: ``{\\em x}``, ``{\\bf x}``, ``{\\tt x}`` groups.
- ``tex_quote``: ````x''`` → “x”, ```x'`` → ‘x’ (before code spans).
- ``tex_tilde``: ``Fig.~3`` → no-break space.
- ``literal_star``: the ``*`` of ``O^*(n)`` written without ``$`` is not emphasis.
- ``bare_url``: ``https://…`` in text → a link (trailing ``.``, ``,``, unbalanced ``)`` left out);
  core ``www_links`` does the same for ``www.…`` addresses.
- core ``tex_typography``: ``---`` → —, ``--`` → –, ``''`` → ” in text tokens.
"""

from __future__ import annotations

import re
import unicodedata

from latex2mathml import commands as _l2m_commands
from latex2mathml.symbols_parser import SYMBOLS
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from .plain import URL, trim_url  # noqa: F401 (defined there so the plain path needs no markdown-it)

NBSP = "\u00a0"
WRAP = {"emph": "em", "textit": "em", "textsl": "em", "em": "em", "it": "em", "sl": "em", "itshape": "em",
        "textbf": "strong", "bf": "strong", "bfseries": "strong", "underline": "u",
        "textsubscript": "sub", "textsuperscript": "sup", "tt": "code", "texttt": "code"}
PLAIN = {"text", "textrm", "textsf", "textsc", "textnormal", "textup", "textmd", "mbox", "hbox",
         "rm", "sf", "sc", "uppercase", "footnotesize", "small", "large"}
SECOND = {"textcolor", "hyperlink", "colorbox", "href"}  # two arguments; the second is shown
WORDS = {"ie": "i.e.", "eg": "e.g.", "etal": "et al.", "etc": "etc.", "vs": "vs.", "wrt": "w.r.t.",
         "LaTeX": "LaTeX", "TeX": "TeX", "ldots": "…", "dots": "…", "textemdash": "—",
         "textendash": "–", "S": "§", "textasciitilde": "~", "item": "• ", "ss": "ß", "o": "ø",
         "O": "Ø", "ae": "æ", "AE": "Æ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı",
         "oe": "œ", "OE": "Œ", "copyright": "©", "dag": "†", "texttrademark": "™",
         "textregistered": "®", "textbar": "|", "quad": " ", "qquad": " ", "noindent": "",
         "centering": "", "newline": " ", "par": " ", "maketitle": "", "textbullet": "•"}
CITE = {"cite", "citep", "citet", "citealp", "citeauthor", "ref", "eqref", "autoref", "cref", "Cref"}
DROP_GROUP = {"begin", "end", "label", "vspace", "hspace", "romannumeral"}
SPACES = {",": "\u2009", ";": " ", ":": " ", " ": " ", "!": "", "@": "", "/": "", "\\": " "}
ACCENTS = {"'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303", "=": "\u0304",
           ".": "\u0307", "c": "\u0327", "v": "\u030c", "H": "\u030b", "u": "\u0306", "k": "\u0328",
           "r": "\u030a"}
MATH_NAMES = {s[1:] for s in SYMBOLS if s.startswith("\\")} | {
    v[1:] for v in vars(_l2m_commands).values() if isinstance(v, str) and re.fullmatch(r"\\[A-Za-z]+", v)}
NAME = re.compile(r"\\([A-Za-z]+)\s*")
GROUP_DECL = re.compile(r"\{\\(em|it|sl|itshape|bf|bfseries|tt|rm|sf|sc)(?![A-Za-z])\s*")


def warn(state: StateInline | StateCore, message: str) -> None:
    """Append ``message`` to ``env["warnings"]`` (created when missing)."""
    state.env.setdefault("warnings", []).append(message)


def group_end(src: str, start: int, limit: int) -> int | None:
    """Index just after the ``}`` closing the ``{`` at ``start``, or None."""
    if start >= limit or src[start] != "{":
        return None
    depth, i = 0, start
    while i < limit:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        depth += (c == "{") - (c == "}")
        if depth == 0:
            return i + 1
        i += 1
    return None


def _args(state: StateInline, start: int, count: int) -> list[tuple[int, int]] | None:
    """Spans (inside the braces) of ``count`` brace groups from ``start``."""
    spans, pos = [], start
    for _ in range(count):
        end = group_end(state.src, pos, state.posMax)
        if end is None:
            return None
        spans.append((pos + 1, end - 1))
        pos = end
    return spans


def _inline(state: StateInline, start: int, end: int) -> None:
    """Tokenize ``src[start:end]`` as nested inline Markdown."""
    old_max = state.posMax
    state.pos, state.posMax = start, end
    state.md.inline.tokenize(state)
    state.posMax = old_max


def _text(state: StateInline, content: str) -> None:
    state.push("text", "", 0).content = content


def _wrap(state: StateInline, tag: str, span: tuple[int, int], markup: str) -> None:
    """Emit ``span`` wrapped in ``tag`` (em/strong as Markdown tokens, code as a code span)."""
    if tag == "code":
        tok = state.push("code_inline", "code", 0)
        tok.content, tok.markup = re.sub(r"\\([_%&#${}])", r"\1", state.src[span[0]:span[1]]), markup
        return
    if tag in ("em", "strong"):
        state.push(f"{tag}_open", tag, 1).markup = markup
        _inline(state, *span)
        state.push(f"{tag}_close", tag, -1).markup = markup
        return
    state.push("html_inline", "", 0).content = f"<{tag}>"
    _inline(state, *span)
    state.push("html_inline", "", 0).content = f"</{tag}>"


def _link(state: StateInline, url: str, span: tuple[int, int] | None, markup: str) -> bool:
    """Emit a link to ``url`` showing ``span`` (or the URL); False when the URL is not allowed."""
    href = state.md.normalizeLink(url.strip())
    if not state.md.validateLink(href):
        return False
    tok = state.push("link_open", "a", 1)
    tok.attrs, tok.markup, tok.info = {"href": href}, markup, "" if span else "auto"
    if span:
        _inline(state, *span)
    else:
        _text(state, state.md.normalizeLinkText(url))
    state.push("link_close", "a", -1).markup = markup
    return True


def _math(state: StateInline, tex: str) -> None:
    tok = state.push("math_inline", "math", 0)
    tok.content, tok.markup = tex, "\\("


def _accent(state: StateInline, silent: bool) -> bool:
    """``\\'e``, ``\\"{o}``, ``\\c{c}`` → the accented letter."""
    src, pos = state.src, state.pos
    mark, rest = src[pos + 1:pos + 2], src[pos + 2:pos + 5]
    m = re.match(r"\{\\?([A-Za-z])\}" if mark.isalpha() else r"\{\\?([A-Za-z])\}|([A-Za-z])", rest)
    if mark not in ACCENTS or not m:
        return False
    if not silent:
        base = "ı" if m.group(0) == "{\\i}" else m.group(m.lastindex)
        _text(state, unicodedata.normalize("NFC", base + ACCENTS[mark]))
    state.pos = pos + 2 + m.end()
    return True


def tex_command(state: StateInline, silent: bool) -> bool:
    """Inline rule for a backslash command outside math (see the module docstring)."""
    src, pos = state.src, state.pos
    if src[pos] != "\\" or pos + 1 >= state.posMax:
        return False
    nxt = src[pos + 1]
    if nxt in "([":
        close = src.find("\\" + ")]"["([".index(nxt)], pos + 2, state.posMax)
        if close < 0:
            return False
        if not silent:
            _math(state, src[pos + 2:close])
            state.tokens[-1].type = "math_inline" if nxt == "(" else "math_inline_double"
        state.pos = close + 2
        return True
    if _accent(state, silent):
        return True
    if nxt in SPACES and not (nxt == "\\" and src[pos + 2:pos + 3] == "\n"):
        if not silent:
            _text(state, SPACES[nxt])
        state.pos = pos + 2
        return True
    m = NAME.match(src, pos, state.posMax)
    if not m:
        return False  # \% \$ \_ … : Markdown's escape rule
    return _named(state, silent, m.group(1), m.end(1), m.end())


def _named(state: StateInline, silent: bool, name: str, after: int, after_space: int) -> bool:
    """Handle ``\\name`` (``after``: index after the name; ``after_space``: after spaces)."""
    src = state.src
    takes_group = name in WRAP or name in PLAIN or name in CITE or name in DROP_GROUP or name == "footnote"
    if (takes_group or name in SECOND) and src.startswith("[", after) and (close := src.find("]", after, state.posMax)) > 0:
        after_space = close + 1  # an optional argument: \textcolor[rgb]{…}{…}
    if takes_group:
        spans = _args(state, after_space, 1)
        if spans is None:  # a declaration such as \em without a group: drop it
            state.pos = after_space
            return True
        (start, end), = spans
        if not silent:
            _one_arg(state, name, (start, end))
        state.pos = end + 1
        return True
    if name in SECOND or name == "url":
        spans = _args(state, after_space, 1 if name == "url" else 2)
        if spans is None and name == "url" and src.startswith("{", after_space):
            state.pos = after_space + 1  # \url{ never closed: the bare URL rule takes the rest
            return True
        if spans is None:
            return False
        if not silent:
            url_span, shown = spans[0], spans[-1]
            if name in ("url", "href"):
                if not _link(state, src[url_span[0]:url_span[1]], shown if name == "href" else None, "\\" + name):
                    _inline(state, *shown)
            else:
                _inline(state, *shown)
        state.pos = spans[-1][1] + 1
        return True
    if name in WORDS:
        if not silent:
            _text(state, WORDS[name])
        state.pos = after + 2 if src.startswith("{}", after) else after
        return True
    end = after
    while (g := group_end(src, end, state.posMax)) is not None:
        end = g
    if not silent:
        if name in MATH_NAMES:
            _math(state, src[state.pos:end])
        else:
            warn(state, f"unknown TeX command \\{name} outside math, shown as {name!r}")
            _text(state, name)
    state.pos = end if name in MATH_NAMES else after + 2 if src.startswith("{}", after) else after
    return True


def _one_arg(state: StateInline, name: str, span: tuple[int, int]) -> None:
    """Emit the one-argument command ``name`` applied to ``span``."""
    arg = state.src[span[0]:span[1]]
    if name in WRAP:
        _wrap(state, WRAP[name], span, "\\" + name)
    elif name in PLAIN:
        _inline(state, *span)
    elif name in CITE:
        _text(state, f"[{arg}]")
    elif name == "footnote":
        _text(state, " (")
        _inline(state, *span)
        _text(state, ")")


def tex_group(state: StateInline, silent: bool) -> bool:
    """Inline rule for ``{\\em text}``-style groups."""
    m = GROUP_DECL.match(state.src, state.pos, state.posMax)
    end = group_end(state.src, state.pos, state.posMax) if m else None
    if end is None:
        return False
    if not silent:
        _wrap(state, WRAP.get(m.group(1), "span"), (m.end(), end - 1), "{\\" + m.group(1))
    state.pos = end
    return True


def tex_quote(state: StateInline, silent: bool) -> bool:
    """Inline rule for TeX quotes: ````x''`` and ```x'``, never a code span's backticks."""
    src, pos = state.src, state.pos
    double = src.startswith("``", pos)
    if src[pos] != "`" or src.startswith("```", pos):
        return False
    pattern = r"``([^`]*?)(?:''|\"|’’|”)" if double else r"`([^`'\n]{1,80}(?:'[A-Za-z][^`'\n]*)*)'(?![A-Za-z0-9])"
    m = re.compile(pattern).match(src, pos, state.posMax)
    if not m:
        return False
    if not silent:
        _text(state, "“" if double else "‘")
        _inline(state, m.start(1), m.end(1))
        _text(state, "”" if double else "’")
    state.pos = m.end()
    return True


def tex_tilde(state: StateInline, silent: bool) -> bool:
    """Inline rule: ``~`` after a word or ``.``/``)`` and before a non-space
    (``Fig.~3``, ``i.i.d.~samples``) is a no-break space; ``(~2000``, ``~10`` stay."""
    src, pos = state.src, state.pos
    if src[pos] != "~" or pos == 0 or pos + 1 >= state.posMax or not re.match(r"[\w.,:;)\]}]\S", src[pos - 1] + src[pos + 1]):
        return False
    if not silent:
        state.append_pending(NBSP)
    state.pos = pos + 1
    return True


def literal_star(state: StateInline, silent: bool) -> bool:
    """Inline rule: ``*`` right after ``^`` (``O^*(n)`` in plain-text math) is literal."""
    pos = state.pos
    if state.src[pos] != "*" or pos == 0 or state.src[pos - 1] != "^":
        return False
    if not silent:
        state.append_pending("*")
    state.pos = pos + 1
    return True


def bare_url(state: StateInline, silent: bool) -> bool:
    """Inline rule: ``http(s)://…`` in running text becomes a link (at the ``:``)."""
    pos = state.pos
    if state.src[pos] != ":" or state.linkLevel > 0 or not state.src.startswith("//", pos + 1):
        return False
    scheme = re.search(r"(?<![A-Za-z0-9])(?:https?|ftp)$", state.pending, re.I)
    m = URL.match(state.src, pos, state.posMax) if scheme else None
    url = trim_url(scheme.group(0) + m.group(0)) if m else ""
    if len(url) <= len(scheme.group(0) if scheme else "") + 3:
        return False
    if not silent:
        state.pending = state.pending[: -len(scheme.group(0))]
        if not _link(state, url, None, "linkify"):
            state.pending += scheme.group(0)
            return False
    state.pos = pos + len(url) - len(scheme.group(0))
    return True


WWW = re.compile(r"(?<![\w.@/-])www\.[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:/[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*)?")


def _split_www(tok: Token, make) -> list[Token]:
    """``tok`` (a text token) split around ``www.…`` addresses made links by ``make``."""
    out, last = [], 0
    for m in WWW.finditer(tok.content):
        url = trim_url(m.group(0))
        out += [Token("text", "", 0, content=tok.content[last:m.start()])] + make(url)
        last = m.start() + len(url)
    return out + [Token("text", "", 0, content=tok.content[last:])] if out else [tok]


def www_links(state: StateCore) -> None:
    """Core rule: ``www.example.org/x`` in text becomes a link to ``https://www.example.org/x``."""
    def make(url: str) -> list[Token]:
        cls = Token
        return [cls("link_open", "a", 1, attrs={"href": "https://" + url}, markup="linkify", info="auto"),
                cls("text", "", 0, content=url), cls("link_close", "a", -1, markup="linkify", info="auto")]
    for block in state.tokens:
        if block.children and any("www." in t.content for t in block.children if t.type == "text"):
            in_link, children = False, []
            for tok in block.children:
                in_link = tok.type == "link_open" or (in_link and tok.type != "link_close")
                children += _split_www(tok, make) if tok.type == "text" and not in_link else [tok]
            block.children = children


def tex_typography(state: StateCore) -> None:
    """Core rule: dashes and closing quotes in text tokens (not in code, math or bare links)."""
    for block in state.tokens:
        in_auto = False
        for tok in block.children or ():
            if tok.type in ("link_open", "link_close"):
                in_auto = tok.type == "link_open" and tok.info == "auto"
            elif tok.type == "text" and not in_auto:
                tok.content = tok.content.replace("---", "—").replace("--", "–").replace("''", "”")


def text_rule(state: StateInline, silent: bool) -> bool:
    """markdown-it-py's ``text`` rule, but stopping at ``posMax``.

    markdown-it-py 4.3's rule searches for the next terminator past ``posMax``, which
    overruns a nested range (``\\emph{…}``, ````…''``) that does not end at a terminator.
    """
    m = state.md.inline.terminator_re.search(state.src, state.pos, state.posMax)
    end = m.start() if m else state.posMax
    if end == state.pos:
        return False
    if not silent:
        state.append_pending(state.src[state.pos:end])
    state.pos = end
    return True


def texhabits_plugin(md: MarkdownIt) -> None:
    """Install the rules above on ``md`` (math tokens come out as ``math_inline``)."""
    md.inline.ruler.at("text", text_rule)
    md.inline.ruler.before("escape", "tex_command", tex_command)
    md.inline.ruler.before("escape", "tex_group", tex_group)
    md.inline.ruler.before("backticks", "tex_quote", tex_quote)
    md.inline.ruler.before("escape", "tex_tilde", tex_tilde)
    md.inline.ruler.before("emphasis", "literal_star", literal_star)
    md.inline.ruler.before("newline", "bare_url", bare_url)
    md.core.ruler.after("text_join", "www_links", www_links)
    md.core.ruler.after("www_links", "tex_typography", tex_typography)
