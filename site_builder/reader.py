"""Read plain-text paper lists into entries and diagnostics.

A list is what people paste from conference sites and aggregators: an optional
heading line naming venue and year, then per paper an optional number or
bullet, title, track, author line, status or page words, and the abstract in
one or more paragraphs.  The reader recovers every paper, keeps every
non-blank line (in a field, the heading, or a diagnostic) and reports what it
could not place as ``path:line: warning|error: ...`` diagnostics.

How text is kept
----------------
* Line ends (LF, CRLF, CR) are not data: entries use ``\\n``.
* Structure lines (heading, number, label, title, track, authors, page words)
  are matched after turning tabs and Unicode spaces (NBSP, U+3000, ...) into
  plain spaces; a title or author name keeps its inner text, only its ends
  are stripped.
* The abstract is the source text exactly, from its first to its last
  non-blank character (after a number or label on its first line): line-wrap
  newlines, spaces at line ends and the blank lines between its paragraphs
  are kept as they are (a plain blank line gives ``\\n\\n``).  Only when
  other lines (page words) sit between two paragraphs are they joined with
  ``\\n\\n``.
* In a list of abstracts alone (no titles, authors, numbers or labels) each
  paragraph is one paper; a paragraph that looks like a continuation gets a
  warning.  Elsewhere a paragraph that is not a title, track, author or label
  line after an abstract continues that abstract.

How structure is recognised
---------------------------
The text is cut into lines, lines into blocks (runs of non-blank lines) and
blocks into items: numbers/bullets, labels (``Title:``, ``摘要：``), page words
(``PDF``, ``Bibtex``; status words ``Oral``/``Poster`` go to ``status``), track
lines with a separator, short header candidates and prose paragraphs.  Items
are grouped into entries (a header after an abstract, a number or a bullet
starts a new one).  The short candidates of an entry are given the roles
title, track, authors or abstract paragraph by scoring every order-respecting
assignment with local evidence (name-shaped tokens, function words, length,
punctuation, repetition of a track in the file) plus the file's own pattern:
a first pass learns which roles the list uses, a second pass prefers them.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable

from .continuation import CHAIN_PRIOR, MERGE, MERGE_WARN, WARN, continuation_scores
from .diagnostics import Diagnostic

__all__ = [
    "Heading", "Entry", "ListResult", "ReadError", "decode_bytes", "split_lines",
    "parse_heading", "strip_label", "strip_number", "page_words", "parse_track",
    "split_authors", "read_text", "read_list", "read_lists", "merge_duplicates",
]

# ----------------------------------------------------------------------------
# Data


@dataclass(frozen=True)
class Heading:
    """The first line of a list: its text and the venue and year it names (or None)."""

    text: str
    venue: str | None
    year: int | None
    line: int


@dataclass(frozen=True)
class Entry:
    """One paper as read from a list, before the site model.

    ``abstract`` is the source text (paragraphs joined by a blank line);
    ``track`` is the area path, e.g. ``("Theory", "Learning Theory")``, empty
    when the list gives none; ``et_al`` is True when the author line ended in
    ``等``, ``et al.`` or ``…``. ``venue``/``year`` come from the heading or the
    config.  ``number`` is the list number (``12.``, ``[12]``) when given;
    ``page_words`` keeps leftover page words (``PDF``, ``Code``) seen in the
    entry; ``end_line`` is the last line of the entry.
    """

    path: str
    line: int
    abstract: str
    title: str | None = None
    authors: tuple[str, ...] = ()
    et_al: bool = False
    track: tuple[str, ...] = ()
    venue: str | None = None
    year: int | None = None
    status: str | None = None
    keywords: tuple[str, ...] = ()
    number: int | None = None
    page_words: tuple[str, ...] = ()
    end_line: int = 0


@dataclass
class ListResult:
    """What reading one list file gives: its heading, entries and diagnostics."""

    path: str
    heading: Heading | None
    entries: list[Entry] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


class ReadError(ValueError):
    """A list file that cannot be read as text (empty, binary, undecodable)."""


# ----------------------------------------------------------------------------
# Bytes and lines

_SPACES = re.compile(r"[\t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_ZERO_WIDTH = re.compile(r"[\u200b\u200c\u200d\u2060\ufeff]")


def clean(text: str) -> str:
    """Return ``text`` with tabs and Unicode spaces as plain spaces, zero-width marks dropped, ends stripped."""
    return _SPACES.sub(" ", _ZERO_WIDTH.sub("", text)).strip()


def _utf16_by_nuls(data: bytes) -> str | None:
    """Return 'utf-16-le'/'utf-16-be' when NUL bytes sit in the odd/even places of ASCII-heavy UTF-16."""
    sample = data[:4096]
    if len(sample) < 2:
        return None
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    half = len(sample) // 2
    if odd >= 4 and odd > 0.05 * half and even * 4 < odd:
        return "utf-16-le"
    if even >= 4 and even > 0.05 * half and odd * 4 < even:
        return "utf-16-be"
    return None


def decode_bytes(data: bytes) -> str:
    """Decode a list file's bytes to text.

    Order: byte-order mark (UTF-8, UTF-16 LE/BE, UTF-32), UTF-16 by NUL
    pattern, UTF-8, GB18030.  Returns the text without the BOM.
    Raises :class:`ReadError` for an empty file, binary data (more than 1%
    NUL bytes or control characters) or bytes no encoding accepts. A stray
    control character stays in the text (see :func:`remove_controls`).
    """
    if not data.strip(b" \t\r\n\x00"):
        raise ReadError("the file is empty")
    boms = [(b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
            (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")]
    encoding = None
    for bom, name in boms:
        if data.startswith(bom):
            data, encoding = data[len(bom):], name
            break
    encoding = encoding or _utf16_by_nuls(data)
    if encoding is None and data.count(b"\x00") > max(2, len(data) // 100):
        raise ReadError("the file is binary (it holds NUL bytes), not a text list")
    text = None
    for name in [encoding] if encoding else ["utf-8", "gb18030"]:
        try:
            text = data.decode(name)
            break
        except UnicodeDecodeError:
            continue
    if text is None:
        raise ReadError(f"the file is neither UTF-8, UTF-16 nor GB18030 text ({encoding or 'undecodable bytes'})")
    controls = len(_CONTROLS.findall(text))
    if controls > max(2, len(text) // 100):
        raise ReadError("the file is binary (it holds control characters), not a text list")
    if not clean(text):
        raise ReadError("the file is empty")
    return text


def split_lines(text: str) -> list[str]:
    """Split ``text`` at LF, CRLF and CR line ends; a leading BOM is dropped.

    ``split_lines("a\\r\\nb\\rc") == ["a", "b", "c"]``.
    """
    return re.split(r"\r\n|\r|\n", text.removeprefix("\ufeff"))


# ----------------------------------------------------------------------------
# Heading

_PAGE_HEAD = (r"(?:accepted|papers?|list|lists|proceedings|main|conference|track|long|short|findings|oral|poster|"
              r"spotlight|workshop|reading|all|technical|of|the|論文|论文|列表|检索|檢索|收录|接收|录用|合集|汇总|清单|全部|"
              r"[-–—:：|·()（）])")
_VENUE = r"(?P<venue>[A-Za-z0-9][A-Za-z0-9&\-]*?[A-Za-z][A-Za-z0-9&]*|[A-Za-z])"
_LEAD = rf"^#*\s*(?P<lead>(?:{_PAGE_HEAD}\s*)*?)"
HEADING = re.compile(_LEAD + _VENUE + r"[\s\-']*(?P<year>(?:19|20)\d\d)(?![\d])(?P<rest>.*)$", re.I)
_HEADING_SHORT_YEAR = re.compile(_LEAD + _VENUE + r"(?:\s*[-'’]\s*|\s+[-'’])(?P<yy>\d\d)(?![\d])(?P<rest>.*)$", re.I)
_HEADING_YEAR_FIRST = re.compile(_LEAD + r"(?P<year>(?:19|20)\d\d)(?![\d])[\s\-]+" + _VENUE + r"(?![\w])(?P<rest>.*)$",
                                 re.I)
PAGE_HEADING = re.compile(rf"^#*\s*(?:{_PAGE_HEAD}\s*)+$", re.I)
_PAGE_WORD = re.compile(rf"^{_PAGE_HEAD}$", re.I)


def _match_heading(text: str) -> tuple[str, int, str] | None:
    """``(venue, year, rest)`` of a heading line, or None.

    Forms: ``ICLR 2025 Papers``, ``NeurIPS-2024``, ``Accepted Papers — ICML 2024`` (page words
    first), ``2024 NeurIPS`` (year first), ``AAAI-25 Technical Track`` and ``KDD '24`` (two-digit
    year after ``-`` or ``'``, read as 20YY).  ``Findings`` anywhere in the heading
    (``ACL 2024 Findings``, ``Findings of EMNLP 2023``) gives the venue ``ACL Findings``: the
    Findings are a venue of their own, apart from the main conference.
    """
    for pattern in (HEADING, _HEADING_SHORT_YEAR, _HEADING_YEAR_FIRST):
        m = pattern.match(text)
        if not m or len(m["rest"]) > 60 or _PAGE_WORD.match(m["venue"]):
            continue
        year = int(m["year"]) if "year" in m.groupdict() and m["year"] else 2000 + int(m["yy"])
        venue = m["venue"]
        if re.search(r"\bfindings\b", m["lead"] + " " + m["rest"], re.I) and not venue.lower().endswith("findings"):
            venue += " Findings"
        return venue, year, m["rest"]
    return None


def parse_heading(text: str, line: int = 1) -> Heading:
    """Return the venue and year named by a heading line such as ``ICLR 2025 Papers``.

    ``parse_heading("ICML 2024 论文列表") == Heading("ICML 2024 论文列表", "ICML", 2024, 1)``;
    a heading naming no venue (``论文检索``) gives venue and year None.  See :func:`_match_heading`
    for the forms read (``2024 NeurIPS``, ``KDD '24``, ``ACL 2024 Findings`` → venue ``ACL Findings``).
    """
    text = clean(text)
    m = _match_heading(text)
    if not m:
        return Heading(text, None, None, line)
    return Heading(text, m[0], m[1], line)


def is_heading_line(text: str) -> bool:
    """True when ``text`` reads as a list heading: venue and year, or only page words (``论文检索``)."""
    text = clean(text)
    if len(text) > 80:
        return False
    if _match_heading(text) and not re.search(r"[.!?。]$", text):
        return True
    return bool(PAGE_HEADING.match(text))


# ----------------------------------------------------------------------------
# Single-line recognisers

LABELS = {
    "title": "title", "paper title": "title", "paper": "title", "标题": "title", "题目": "title", "論文題目": "title",
    "authors": "authors", "author": "authors", "author(s)": "authors", "by": "authors", "作者": "authors",
    "abstract": "abstract", "summary": "abstract", "tl;dr": "abstract", "摘要": "abstract", "简介": "abstract",
    "track": "track", "area": "track", "primary area": "track", "subject area": "track", "session": "track",
    "topic": "track", "category": "track", "领域": "track", "方向": "track", "分类": "track", "主题": "track",
    "keywords": "keywords", "keyword": "keywords", "关键词": "keywords", "關鍵詞": "keywords",
    "status": "status", "decision": "status", "type": "status", "presentation": "status", "类型": "status",
}
_LABEL = re.compile(r"^(?:\*\*)?(?P<label>" + "|".join(sorted((re.escape(k) for k in LABELS), key=len, reverse=True))
                    + r")(?:\*\*)?\s*[:：](?:\*\*)?\s*", re.I)


def strip_label(text: str) -> tuple[str | None, str]:
    """Split a field label off ``text``: ``("title", "Foo")`` for ``Title: Foo``, ``(None, text)`` without one.

    Field names are ``title``, ``authors``, ``abstract``, ``track``, ``keywords``, ``status``.
    """
    m = _LABEL.match(text)
    if not m:
        return None, text
    return LABELS[m["label"].lower()], text[m.end():]


_NUMBER = re.compile(r"^(?:(?P<dot>\d{1,5})[.．、](?!\d)|\[(?P<br>\d{1,5})\]|\((?P<par>\d{1,5})\)|（(?P<fpar>\d{1,5})）"
                     r"|(?P<rpar>\d{1,5})\)|#(?P<hash>\d{1,5})|No\.\s*(?P<no>\d{1,5}))(?:\s+|$)")
_BULLET = re.compile(r"^(?:[-*•▪●◦‣·–—+]|\d{1,5}\s*[-–—])(?:\s+|$)")


def strip_number(text: str) -> tuple[str | None, int | None, str]:
    """Split a list number or bullet off ``text``.

    Returns ``(style, number, rest)``: ``("[]", 12, "Title")`` for ``[12] Title``,
    ``("bullet", None, "Title")`` for ``- Title``, ``(None, None, text)`` otherwise.
    Styles: ``"."``, ``"[]"``, ``"()"``, ``")"``, ``"#"``, ``"no"``, ``"bullet"``.
    """
    m = _NUMBER.match(text)
    if m:
        for style, name in ((".", "dot"), ("[]", "br"), ("()", "par"), ("()", "fpar"), (")", "rpar"),
                            ("#", "hash"), ("no", "no")):
            if m[name] is not None:
                return style, int(m[name]), text[m.end():]
    m = _BULLET.match(text)
    if m and not re.match(r"^[-–—]\d", text):
        return "bullet", None, text[m.end():]
    return None, None, text


PAGE_WORDS = {"pdf", "bibtex", "bib", "code", "poster", "oral", "spotlight", "highlight", "slides", "slide", "video",
              "videos", "paper", "openreview", "arxiv", "project", "page", "project page", "supplementary",
              "supplemental", "material", "website", "reviews", "review", "download", "cite", "citation", "github",
              "link", "links", "html", "doi", "abs", "talk", "demo", "dataset", "expand", "more", "show", "less",
              "details", "copy", "award", "best paper", "论文", "代码", "海报", "下载", "链接", "引用", "详情", "展开",
              "收起", "视频", "口头报告", "[pdf]", "[code]", "[bibtex]", "[slides]", "[video]"}
STATUS_WORDS = {"oral": "Oral", "poster": "Poster", "spotlight": "Spotlight", "highlight": "Highlight"}
_PAGE_SPLIT = re.compile(r"\s*(?:[|·•/,;]|\s)\s*")


def page_words(text: str) -> tuple[str, ...] | None:
    """Return the words of a line made only of page words (``PDF · Bibtex``), else None."""
    text = clean(text)
    if not text or len(text) > 60:
        return None
    if text.lower() in PAGE_WORDS:
        return (text,)
    words = [w for w in _PAGE_SPLIT.split(text) if w]
    if words and all(w.lower().strip("[]()") in PAGE_WORDS or w.lower() in PAGE_WORDS for w in words):
        # two-word page words like "Project Page" are fine word by word
        return tuple(words)
    return None


_TRACK_SEP = re.compile(r"\s*(?:·|›|»|→|->|=>|>)\s*")
_TRACK_SEP_SPACED = re.compile(r"\s+(?:·|›|»|→|->|=>|>)\s+|\s*[·›»→]\s*")


def parse_track(text: str) -> tuple[str, ...] | None:
    """Return the area path of a track line with a separator, e.g. ``("Theory", "Learning Theory")``.

    Separators: ``·``, ``›``, ``»``, ``→``, ``->``, ``=>``, ``>`` (the ASCII ones with spaces
    around them).  Returns None when ``text`` has none or does not look like a track.
    """
    text = clean(text)
    if len(text) > 160 or not _TRACK_SEP_SPACED.search(text) or re.search(r"[.!?。]$|https?://|\$", text):
        return None
    parts = tuple(p.strip() for p in _TRACK_SEP_SPACED.split(text))
    if len(parts) > 4 or any(not p or len(p) > 80 for p in parts):
        return None
    if any(len(p.split()) > 9 for p in parts):
        return None
    return parts


_ET_AL = re.compile(r"(?:\s*[,;，、]?\s*(?:等人?|et\s*al\.?|…|\.\.\.|and\s+others|等等)\s*)$", re.I)
_AUTHOR_SEP = re.compile(r"\s*(?:[;；，、]|,(?:\s*and\s+)?|\s+and\s+|\s+&\s+|\s+和\s+|\s+[·•]\s+)\s*")


def split_authors(text: str) -> tuple[tuple[str, ...], bool]:
    """Split an author line into names and whether it ends in ``等``/``et al.``/``…``.

    ``split_authors("A. Smith, B. Jones and C. Wu et al.") == (("A. Smith", "B. Jones", "C. Wu"), True)``.
    Separators: commas, semicolons, ``and``, ``&``, ``、``, a spaced ``·`` or ``•``; ``等`` is never an author.
    """
    text = text.strip()
    et_al = False
    m = _ET_AL.search(text)
    if m and m.start() > 0:
        text, et_al = text[:m.start()], True
    names = tuple(n.strip() for n in _AUTHOR_SEP.split(text) if n.strip())
    return names, et_al


# ----------------------------------------------------------------------------
# Evidence for title / authors / track / prose

FUNCTION_WORDS = {"of", "for", "with", "in", "on", "to", "the", "a", "an", "via", "from", "by", "is", "are", "as",
                  "at", "under", "without", "beyond", "through", "towards", "toward", "using", "into", "over",
                  "do", "does", "can", "not", "be", "we", "our", "how", "what", "when", "why", "which", "that",
                  "this", "its", "their", "versus", "vs", "vs.", "or", "all", "is", "than", "between", "across",
                  "within", "against", "made", "meets", "your", "you", "it", "more", "less", "only", "need",
                  "learning", "learn", "model", "models", "network", "networks", "neural", "data", "deep",
                  "language", "based", "efficient", "robust", "towards", "graph", "graphs", "large", "multi",
                  "optimization", "generative", "diffusion", "reinforcement", "transformer", "transformers",
                  "attention", "training", "inference", "estimation", "analysis", "approach", "framework",
                  "benchmark", "dataset", "method", "methods", "detection", "segmentation", "generation",
                  "representation", "representations", "image", "images", "video", "3d", "policy", "bandits",
                  "algorithm", "algorithms", "theory", "robot", "robots", "robotic", "vision", "visual", "text",
                  "knowledge", "reasoning", "agents", "agent", "bayesian", "causal", "adversarial", "fast",
                  "scalable", "online", "optimal", "sparse", "stochastic", "convex", "linear", "nonlinear",
                  "gradient", "kernel", "sampling", "planning", "control", "manipulation", "retrieval", "question",
                  "answering", "translation", "dialogue", "speech", "embedding", "embeddings", "prediction",
                  "classification", "regression", "clustering", "privacy", "private", "fairness", "federated",
                  "bounds", "complexity", "games", "game", "problem", "problems", "system", "systems", "tasks",
                  "task", "evaluation", "understanding", "improving", "towards", "rethinking", "revisiting",
                  "unsupervised", "supervised", "self-supervised", "contrastive", "zero-shot", "few-shot",
                  "llms", "llm", "semantic", "temporal", "spatial", "dynamic", "dynamics", "search", "matching",
                  "tracking", "pose", "scene", "object", "objects", "human", "humans", "multimodal", "cross"}
TITLE_WORDS = {
    "learning", "model", "models", "network", "networks", "neural", "data", "language", "languages", "optimization",
    "generative", "diffusion", "reinforcement", "transformer", "transformers", "attention", "training", "inference",
    "estimation", "analysis", "approach", "framework", "benchmark", "dataset", "datasets", "method", "methods",
    "detection", "segmentation", "generation", "representation", "representations", "image", "images", "video",
    "videos", "algorithm", "algorithms", "theory", "robot", "robots", "robotic", "robotics", "vision", "knowledge",
    "reasoning", "agent", "agents", "bayesian", "causal", "adversarial", "scalable", "stochastic", "gradient",
    "kernel", "sampling", "planning", "manipulation", "retrieval", "question", "answering", "translation",
    "dialogue", "speech", "embedding", "embeddings", "prediction", "classification", "regression", "clustering",
    "privacy", "fairness", "federated", "bounds", "complexity", "games", "problem", "problems", "system", "systems",
    "task", "tasks", "evaluation", "understanding", "satisfaction", "processing", "mining", "management",
    "application", "applications", "paradigms", "ethics", "philosophy", "multimodal", "computer", "machine",
    "intelligence", "artificial", "constraint", "constraints", "uncertainty", "economic", "economics", "natural",
    "humans", "recognition", "graphs", "supervised", "unsupervised", "semi-supervised", "self-supervised",
    "simulation", "interpretability", "explainability", "robustness", "efficient", "efficiency", "via", "using",
    "towards", "toward", "track", "tracks", "papers", "paper", "demo", "demonstrations", "survey", "domain",
    "domain(s)", "multiagent", "multi-agent", "scheduling", "routing", "heuristic", "search", "consortium",
}
_PARTICLES = {"de", "da", "del", "della", "der", "den", "van", "von", "di", "du", "la", "le", "dos", "das", "do",
              "al", "el", "bin", "ibn", "y", "zu", "ter", "ten", "e", "st.", "mc", "d'", "dela", "des", "af"}
_NAME_TOKEN = re.compile(r"^(?:[A-Z\u00C0-\u00DE\u0100-\u024F\u0391-\u03A9\u0410-\u042F][\w\u0300-\u036f'’.\-]*|"
                         r"[A-Z]\.(?:[A-Z]\.?)*|[\u3400-\u9fff\uac00-\ud7af\u3040-\u30ff]{1,6}|"
                         r"[A-Za-z][a-z]*[-'’][A-Z][\w'’\-]*|d[’'][A-Z]\w*|[A-Z]{2,4}|[a-z]{1,3}[A-Z][\w'’\-]+|"
                         r"\([A-Z][\w'’.\-]*\))$")
_SENTENCE_END = re.compile(r"[.!?。！？]['\"”’)]*$")


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"\s+", text) if t]


_INITIALS_COLON = re.compile(r"(?<![\w.])((?:[A-Z]\.)+[A-Z]):(?=\s)")


def _typo_initials(text: str) -> str:
    """``K.H: Tung`` as ``K.H. Tung``: a colon typed for the last dot of initials (seen in real author lists)."""
    return _INITIALS_COLON.sub(r"\1.", text)


def name_shape(name: str) -> float:
    """How much ``name`` looks like a person's name: 1.0 (capitalised tokens, initials,
    particles, CJK), 0.5 (all-lowercase tokens such as ``xiaofei wu`` or a user name), 0.0 (not a name).
    A colon typed for the last dot of initials (``Anthony K.H: Tung``) counts as the dot."""
    name = _typo_initials(name)
    tokens = _tokens(name)
    if not 1 <= len(tokens) <= 7 or len(name) > 60:
        return 0.0
    if any(t[0].islower() and t.strip(",.") in FUNCTION_WORDS and t not in _PARTICLES for t in tokens):
        return 0.0
    if any(part.lower() in TITLE_WORDS for t in tokens for part in [t, *t.split("-")]):
        return 0.0
    if re.search(r"[\d:?!$@/\[\]{}=+*<>|]", name) or re.search(r"\((?![A-Z][\w'’.\-]*\))", name):
        return 0.0
    caps = weak = 0
    for t in tokens:
        if _NAME_TOKEN.match(t):
            caps += 1
        elif t.lower() in _PARTICLES:
            continue
        elif re.fullmatch(r"[a-z\u00df-\u00ff][a-z\u00df-\u00ff\u0300-\u036f\-']{1,30}", t) and len(tokens) <= 4:
            weak += 1
        else:
            return 0.0
    if weak:
        return 0.5
    return 1.0 if caps >= 1 else 0.0


def name_shaped(name: str) -> bool:
    """True when ``name`` looks like a person's name: 1–7 capitalised tokens, initials or particles."""
    return name_shape(name) == 1.0


@functools.lru_cache(maxsize=65536)
def author_score(text: str) -> float:
    """Log-odds-like evidence that ``text`` is an author line (positive: authors)."""
    names, et_al = split_authors(text)
    if not names:
        return -9.0
    shapes = [name_shape(n) for n in names]
    text = _typo_initials(text)
    score = 4.0 if et_al else 0.0
    bad = shapes.count(0.0)
    score -= (6.0 if bad > 0.2 * len(names) else 2.0) * bad + 0.5 * shapes.count(0.5)
    if len(names) >= 2 and bad <= 0.2 * len(names):
        score += 3.0 + min(len(names), 6) * 0.3
    elif 0.0 not in shapes:
        score += 0.5
        if len(names) == 1 and shapes == [1.0] and 2 <= len(_tokens(names[0])) <= 4:
            score += 1.5  # one name such as "Ana Perez": an author line of one author
    if re.search(r"[:?!]|\d", text):
        score -= 3.0
    if _SENTENCE_END.search(text) and not re.search(r"(?:\b[A-Z]\.|et al\.)$", text):
        score -= 2.0
    return score


def capital_ratio(text: str) -> float | None:
    """Share of words of four or more letters that start with a capital (Title Case ≈ 1), None when too few."""
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", text) if len(w) >= 4]
    if len(words) < 3:
        return None
    return sum(w[0].isupper() for w in words) / len(words)


def title_score(text: str) -> float:
    """Log-odds-like evidence that ``text`` is a paper title (positive: title)."""
    tokens = _tokens(text)
    score = 1.0
    ratio = capital_ratio(text)
    if ratio is not None:
        score += 2.0 if ratio >= 0.6 else -2.0 if ratio < 0.3 else 0.0
    if any(t.lower().strip(",.:;?!()") in FUNCTION_WORDS for t in tokens):
        score += 2.0
    if re.search(r"[:?]", text):
        score += 1.5
    if _SENTENCE_END.search(text) and not text.endswith("?"):
        score -= 4.0  # titles rarely end in a full stop; one-sentence paragraphs do
    if len(text) > 220:
        score -= 4.0
    if len(tokens) <= 1:
        score -= 1.0
    names, et_al = split_authors(text)
    if et_al:
        score -= 5.0
    if len(names) == 1 and 2 <= len(tokens) <= 4 and name_shaped(text):
        score -= 1.5  # a person's name, not a title
    if len(names) >= 3 and all(name_shaped(n) for n in names):
        score -= 3.0
    return score


def track_score(text: str, repeats: int) -> float:
    """Evidence that a single-area line (no separator) is a track; ``repeats`` is how often it recurs in the file."""
    score = 3.0 if repeats >= 2 else -1.5
    if len(text) > 80:
        score -= 5.0
    if _SENTENCE_END.search(text) or re.search(r"[:?]", text):
        score -= 3.0
    if split_authors(text)[1]:
        score -= 5.0
    return score


_CONNECTIVES = re.compile(r"^(?:furthermore|moreover|in particular|additionally|in addition|finally|"
                          r"specifically|to this end|to address|to tackle|to overcome|to do so|to that end|"
                          r"our (?:first|second|third|main|key|results|code|experiments|contributions?|findings)|"
                          r"project (?:page|website)|code|the code|we (?:further|also|then|evaluate|validate|conduct|"
                          r"complement|empirically|release)|trigger warning|extensive|experiments?|experimental|"
                          r"empirically|based on|building on|then|thus|hence|therefore|consequently|these|such|"
                          r"second|third|lastly|overall|concretely|notably|importantly|further|"
                          r"\(\d|\(?[ivx]+\)|\d+[.)]|[-*•])(?:\b|\s|$)", re.I)


def prose_score(text: str) -> float:
    """Evidence that a short line is an abstract paragraph rather than a header (positive: prose)."""
    score = -2.0
    ratio = capital_ratio(text)
    if ratio is not None:
        score += -2.0 if ratio >= 0.6 else 1.5 if ratio < 0.3 else 0.0
    if _SENTENCE_END.search(text) or text.endswith(":"):
        score += 2.5
    if re.match(r"^[a-z(\[]", text):
        score += 2.0
    if re.search(r"https?://|www\.", text):
        score += 3.0
    if _CONNECTIVES.match(text):
        score += 2.0
    if len(text) < 40:
        score -= 1.5
    if _SENTENCE_BREAK.search(text):
        score += 2.0
    return score


_SENTENCE_BREAK = re.compile(r"(?:[^\W\d_]{2,}|[\d)\]$%])(?<!\bvs)(?<!\bal)(?<!\betc)(?<!\bcf)(?<!\bFig)(?<!\bEq)"
                             r"(?<!\bSec)(?<!\bNo)(?<!\bSt)(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bJr)[.!?]['\"”’)]*\s+[(\[A-Z\d]|[。！？]\s*\S")


@functools.lru_cache(maxsize=65536)
def is_prose(text: str) -> bool:
    """True when a line is clearly abstract text: long, or several sentences, or a URL sentence.

    A line shaped like an author list (two or more name-shaped pieces) is never prose.
    """
    text = clean(text)
    if author_score(text) >= 2.5:
        return False
    if len(text) > 200:
        return True
    if re.search(r"https?://|www\.", text) and len(text) > 60 and " " in text:
        return True
    sentences = len(_SENTENCE_BREAK.findall(text))
    return (sentences >= 2 and len(text) > 120) or (sentences >= 1 and _SENTENCE_END.search(text) is not None and len(text) > 150)


# ----------------------------------------------------------------------------
# Items


@dataclass
class _Item:
    """One structural unit of a list: kind, first line, text or raw lines."""

    kind: str  # number | label | page | track | short | prose
    line: int
    text: str = ""
    raw: list[str] = field(default_factory=list)  # prose: the paragraph's lines
    field_name: str | None = None  # label: title/authors/abstract/track/keywords/status
    number: int | None = None
    mark: bool = False  # the item opens with a number or bullet
    words: tuple[str, ...] = ()
    track: tuple[str, ...] = ()
    block: int = 0
    end: int = 0
    note: str = ""  # "lone abstract label": an "Abstract:" label in a list without other labels


def _blocks(lines: list[str], start: int) -> list[list[tuple[int, str]]]:
    """Group non-blank lines (from index ``start``) into runs separated by blank lines; a run
    holding several numbered papers with no blank line between them is split (:func:`_split_numbered`)."""
    blocks: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for index in range(start, len(lines)):
        raw = lines[index]
        if clean(raw):
            current.append((index + 1, raw))
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return [part for block in blocks for part in _split_numbered(block)]


def _split_numbered(block: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Split a run that opens with a list number (``1.``, ``[1]``, ``(1)``) before each later line
    that carries the next number in the same style and is not prose (a title line), so
    ``1. A⏎authors⏎abstract⏎2. B⏎…`` with no blank lines gives one run per paper."""
    style, number, _ = strip_number(clean(block[0][1]))
    if style in (None, "bullet"):
        return [block]
    parts, cut = [], 0
    for k in range(1, len(block)):
        s, n, rest = strip_number(clean(block[k][1]))
        if s == style and n == number + 1 and rest.strip() and not is_prose(rest):
            parts.append(block[cut:k])
            cut, number = k, n
    return parts + [block[cut:]]


def _numbering(blocks: list[list[tuple[int, str]]]) -> tuple[str | None, set[int]]:
    """Find the file's numbering: its style and the lines whose number continues the sequence.

    A style counts only when its chain of consecutive numbers (n, n+1, ...) at
    block starts covers at least half of the blocks that start an entry-like run.
    """
    firsts = [(b[0][0], strip_number(clean(b[0][1]))) for b in blocks]
    styles = Counter(s for _, (s, _, _) in firsts if s)
    if not styles:
        return None, set()
    style, count = styles.most_common(1)[0]
    prose_blocks = sum(1 for b in blocks if any(is_prose(t) for _, t in b)) or 1
    if style == "bullet":
        marks = Counter(clean(b[0][1])[:1] for b in blocks if strip_number(clean(b[0][1]))[0] == "bullet")
        mark = marks.most_common(1)[0][0]
        count = marks[mark]
        lines = {b[0][0] for b in blocks if strip_number(clean(b[0][1]))[0] == "bullet" and clean(b[0][1])[:1] == mark}
        return ("bullet", lines) if count >= 0.6 * prose_blocks else (None, set())
    accepted: set[int] = set()
    last = None
    for ln, (s, n, _) in firsts:
        if s != style:
            continue
        if last is None or n == last + 1 or (n > last and n - last <= 3):
            accepted.add(ln)
            last = n
    if len(accepted) >= max(1, prose_blocks // 2) or len(accepted) >= 0.3 * len(blocks):
        return style, accepted
    return None, set()


def _line_item(number: int, raw: str, block: int, marked: bool, labelled: bool) -> _Item:
    """Classify one header-position line (number and bullet already removed when ``marked``)."""
    text = clean(raw)
    name, rest = strip_label(raw.lstrip())
    if name is not None:
        note = "" if labelled or name != "abstract" else "lone abstract label"
        return _Item("label", number, clean(rest), [rest], field_name=name, mark=marked, block=block, note=note)
    words = page_words(text)
    if words:
        return _Item("page", number, text, words=words, mark=marked, block=block)
    track = parse_track(text)
    if track and all(name_shape(part) == 1.0 and len(part.split()) >= 2 for part in track):
        track = None  # "Ana Perez · Jian Li": names, an author line
    if track and len(track) >= 2 and not is_prose(text):
        return _Item("track", number, text, track=track, mark=marked, block=block)
    if is_prose(text):
        return _Item("prose", number, text, [raw], mark=marked, block=block)
    return _Item("short", number, text, [raw], mark=marked, block=block)


def _sentence_like(text: str) -> bool:
    """True when a short line reads as a sentence, not a title or author line: six or more words
    ending in a full stop or exclamation mark, not in Title Case, not shaped like names."""
    ratio = capital_ratio(text)
    return bool(re.search(r"[.!。！]['\"”’)]*$", text)) and len(_tokens(text)) >= 6 and \
        (ratio is None or ratio < 0.6) and author_score(text) < 2.5


def _sentences_as_prose(items: list[_Item]) -> list[_Item]:
    """In a list whose short lines are mostly sentences (one-sentence abstracts, TL;DRs), read those
    lines as abstract paragraphs rather than as title, track or author candidates (when at least
    a quarter of the short lines are sentences: titles rarely end in a full stop)."""
    shorts = [i for i in items if i.kind == "short"]
    sentences = [i for i in shorts if _sentence_like(i.text)]
    if not sentences or len(sentences) < 0.25 * len(shorts):
        return items
    for item in sentences:
        item.kind = "prose"
    return items


def _is_compact(blocks: list[list[tuple[int, str]]]) -> bool:
    """True when header lines share blocks with the abstract: many blocks hold an author,
    track or label line above further lines, and few header lines stand alone as a block."""
    def stacked(block: list[tuple[int, str]]) -> bool:
        for _, raw in block[:-1][:4]:
            text = strip_number(clean(raw))[2]
            if author_score(text) >= 2.5 or (parse_track(text) or ()).__len__() >= 2 or \
                    strip_label(text)[0] in ("title", "authors", "track"):
                return True
        return False

    alone = sum(1 for b in blocks if len(b) == 1 and not is_prose(b[0][1]) and not page_words(b[0][1]))
    with_prose = sum(1 for b in blocks if len(b) > 1 or is_prose(b[0][1])) or 1
    count = sum(stacked(b) for b in blocks if len(b) > 1)
    return count >= max(1.0, 0.3 * with_prose) and alone <= count


def _title_line(text: str) -> bool:
    """True when a line reads as a title: two or more words in Title Case (or with a colon),
    no full stop at the end, not shaped like an author list."""
    ratio = capital_ratio(text)
    if _SENTENCE_END.search(text) and not text.endswith("?"):
        return False
    if len(_tokens(text)) < 2 or author_score(text) >= 2.5 or page_words(text):
        return False
    return ratio is not None and (ratio >= 0.6 or (":" in text and ratio >= 0.4))


def _header_prefix(block: list[tuple[int, str]]) -> int:
    """How many leading lines of a block of several lines are header lines (title, author,
    track or label lines) rather than the first lines of a paragraph wrapped over several lines.

    Header lines: an author line, a track line with a separator, a label; a title line
    first; a single name after a title.  They count when one of them is an author, name,
    track or label line, or when a title line is followed by a line opening a sentence
    (an uppercase letter), not by the lowercase rest of a wrapped sentence.  0 otherwise.
    """
    if len(block) < 2:
        return 0
    texts = [strip_number(clean(raw))[2] for _, raw in block]
    k, strong = 0, False
    for i, text in enumerate(texts[:4]):
        if not text or len(text) > 200 or is_prose(text):
            break
        if author_score(text) >= 2.5 or len(parse_track(text) or ()) >= 2 or \
                strip_label(text)[0] in ("title", "authors", "track"):
            strong = True
        elif i == 0 and (_title_line(text) or (not _SENTENCE_END.search(text) and len(texts) > 1 and (
                author_score(texts[1]) >= 2.5 or name_shape(texts[1]) == 1.0))):
            pass  # a title, or a line in sentence case right above an author line
        elif i > 0 and k == i and name_shape(text) == 1.0 and not _SENTENCE_END.search(text):
            strong = True  # a single author under a title
        else:
            break
        k = i + 1
    rest = texts[k:]
    if k == 0 or (rest and not re.match(r"^[\"'“‘(\[]?(?:[A-Z0-9$\\*]|[^\x00-\x7f])", rest[0])):
        return 0
    return k if strong or rest else 0


def _items(blocks: list[list[tuple[int, str]]], numbered: set[int], labelled: bool, compact: bool) -> list[_Item]:
    """Turn blocks into items: header lines one by one, then the rest of the block as one prose paragraph.

    Unless the list is ``compact``, a block of several lines is one paragraph
    (after its number, label or page words): line-wrapped abstracts stay whole.
    """
    items: list[_Item] = []
    for b, block in enumerate(blocks):
        prose: _Item | None = None
        heads = 0 if compact else _header_prefix(block)
        for index, (number, raw) in enumerate(block):
            text = clean(raw)
            marked = False
            if number in numbered:
                style, value, rest = strip_number(raw.lstrip())
                if style:
                    items.append(_Item("number", number, clean(raw)[:len(text) - len(clean(rest))].strip(),
                                       number=value, mark=True, block=b))
                    raw, text, marked = rest, clean(rest), True
                    if not text:
                        continue
            if prose is not None and not marked:
                name, _ = strip_label(text)
                if not (labelled and name in ("title", "authors", "track", "keywords", "status")) and not page_words(text):
                    prose.raw.append(raw)
                    prose.end = number
                    continue
            item = _line_item(number, raw, b, marked, labelled)
            if item.kind in ("short", "track") and not compact and index >= heads and \
                    (index + 1 < len(block) or heads > 0):
                item = _Item("prose", number, item.text, [raw], mark=marked, block=b)
            if item.kind == "label" and item.field_name == "abstract":
                item = _Item("prose", number, item.text, [item.raw[0]], field_name="abstract", mark=marked, block=b,
                             note=item.note)
            item.end = number
            items.append(item)
            prose = item if item.kind == "prose" else None
    return items


# ----------------------------------------------------------------------------
# Entries

@dataclass
class _Draft:
    """An entry under construction: its items before and after the abstract starts."""

    items: list[_Item] = field(default_factory=list)

    def has_abstract(self) -> bool:
        """True once a prose paragraph (an abstract, labelled or not) is in the draft."""
        return any(i.kind == "prose" for i in self.items)

    @property
    def line(self) -> int:
        """The draft's first line."""
        return self.items[0].line


def _segment(items: list[_Item], abstract_only: bool, marked_file: bool, pages_lead: bool) -> list[_Draft]:
    """Group items into entry drafts.

    A number or bullet always opens a draft; in a numbered or bulleted list
    nothing else does.  Otherwise a title/authors/track line after an
    abstract opens one (a labelled one only when its label is the one that
    opens entries in this file, e.g. ``Title:``, or appears twice: a
    ``Track:`` line after ``Abstract:`` belongs to the paper above), and so does a prose paragraph in a list
    of abstracts alone, or page words when the list puts them before a paper.
    """
    drafts: list[_Draft] = []
    cur: _Draft | None = None
    opener = next((i.field_name for i in items if i.kind == "label" and i.field_name in ("title", "authors", "track")),
                  None)
    for item in items:
        starts = False
        if cur is None:
            starts = True
        elif item.kind == "number":
            starts = True
        elif marked_file:
            starts = False
        elif item.kind == "label" and item.field_name in ("title", "authors", "track"):
            starts = (cur.has_abstract() and item.field_name == opener) or \
                any(i.kind == "label" and i.field_name == item.field_name for i in cur.items)
        elif item.kind in ("short", "track"):
            starts = cur.has_abstract()
        elif item.kind == "prose":
            starts = abstract_only and cur.has_abstract()
        elif item.kind == "page":
            starts = pages_lead and cur.has_abstract()
        if starts:
            cur = _Draft()
            drafts.append(cur)
        cur.items.append(item)
    return drafts


def _split_by_pattern(drafts: list[_Draft]) -> list[_Draft]:
    """Split drafts holding more blank-separated header lines than the list's usual entry.

    When most entries have ``k`` header lines and a draft has ``k + 2`` or more,
    each its own block, the last ``k`` open a new entry; the ones before stay
    with the first (a short abstract taken for a header).
    """
    counts = Counter(len(_headers(d)) for d in drafts)
    if not counts:
        return drafts
    k = counts.most_common(1)[0][0]
    out: list[_Draft] = []
    for draft in drafts:
        heads = _headers(draft)
        blocks = [h.block for h in heads]
        if k >= 1 and len(heads) >= k + 2 and len(set(blocks)) == len(blocks) and \
                all(h.kind == "short" for h in heads) and draft.items[:len(heads)] == heads:
            cut = len(heads) - k
            out += [_Draft(draft.items[:cut]), _Draft(draft.items[cut:])]
        else:
            out.append(draft)
    return out


def _abstract_only(items: list[_Item]) -> bool:
    """True when the list gives abstracts alone: header lines are rare next to prose paragraphs
    (a few short one-line paragraphs do not make a list of titles)."""
    headers = sum(1 for i in items if i.kind in ("short", "track") or
                  (i.kind == "label" and i.field_name in ("title", "authors", "track")))
    prose = sum(1 for i in items if i.kind == "prose")
    return headers <= 0.25 * prose


def _split_overfull(draft: _Draft) -> list[_Draft]:
    """Split a draft holding two papers whose first abstract was too short to be seen as prose.

    Evidence: a second strong author line among the header items.  The new
    entry starts as many items before it as the first author line has before it;
    the first part may hold no abstract at all (title and authors alone), which
    is then reported rather than read into the next paper.
    """
    heads = [k for k, item in enumerate(draft.items) if item.kind in ("short", "track", "label", "number")]
    strong = [k for k in heads if draft.items[k].kind == "short" and author_score(draft.items[k].text) >= 3.0]
    # two author-like lines in a row are one paper's title and authors ("A and B Recovery" / "C, D")
    strong = [k for n, k in enumerate(strong) if n == 0 or strong[n - 1] != k - 1]
    if len(strong) < 2 or any(i.kind == "prose" for i in draft.items[:strong[-1]]):
        return [draft]
    lead = strong[0]
    cuts = []
    for k in strong[1:]:
        cut = k - lead
        if cut > (cuts[-1] if cuts else strong[0]):
            cuts.append(cut)
    parts, start = [], 0
    for cut in cuts:
        parts.append(_Draft(draft.items[start:cut]))
        start = cut
    parts.append(_Draft(draft.items[start:]))
    return parts


@dataclass
class _Evidence:
    """What the whole file says: how often each short line recurs, and whether the first
    header line of entries recurs often (a track column, since titles are unique)."""

    repeats: Counter
    track_column: bool = False


def _file_evidence(drafts: list["_Draft"]) -> _Evidence:
    repeats = Counter(i.text for d in drafts for i in _headers(d) if i.kind == "short")
    firsts = [h[0].text for h in (_headers(d) for d in drafts) if h and h[0].kind == "short"]
    if len(firsts) < 4:
        return _Evidence(repeats)
    rate = sum(repeats[t] >= 2 for t in firsts) / len(firsts)
    median = sorted(len(t) for t in firsts)[len(firsts) // 2]
    colons = sum(":" in t for t in firsts) / len(firsts)
    return _Evidence(repeats, rate >= 0.3 or (median <= 45 and colons < 0.1))


def _role_scores(item: _Item, evidence: _Evidence) -> dict[str, float]:
    """Local evidence for each role a short line can take."""
    text = item.text
    prose = prose_score(text)
    track = track_score(text, evidence.repeats[text])
    title = title_score(text)
    if evidence.track_column and author_score(text) < 2.5:
        track, title = track + 3.0, title - 3.0
    return {
        "title": title,
        "track": track,
        "authors": author_score(text),
        "abs": prose,
        "cont": prose,
    }


def _assignments(n: int, fixed: list[str | None], allow_cont: bool) -> Iterable[tuple[str, ...]]:
    """Every order-respecting role tuple for ``n`` header items.

    The shape is ``cont* {title, track, authors} abs*``: leading items may
    continue the previous abstract, title/track/authors appear at most once
    each (in any order; :func:`_best_roles` prefers title, track, authors),
    trailing items open the abstract.  ``fixed`` pins the
    role of labelled or separator-track items.
    """
    subsets = [p for k in range(4) for s in itertools.combinations(("title", "track", "authors"), k)
               for p in itertools.permutations(s)]
    for conts in range(n + 1 if allow_cont else 1):
        for middle in subsets:
            if conts + len(middle) > n:
                continue
            combo = ("cont",) * conts + middle + ("abs",) * (n - conts - len(middle))
            if all(f is None or f == r for f, r in zip(fixed, combo)):
                yield combo


_CANONICAL = ["title", "track", "authors"]
AMBIGUOUS_MARGIN = 1.5  # below this score margin a role choice is reported as a warning


def _best_roles(headers: list[_Item], repeats: _Evidence, prior: Counter | None, allow_cont: bool
                ) -> tuple[tuple[str, ...], float]:
    """Choose roles for the header items of one entry; returns the roles and the margin over the runner-up."""
    fixed: list[str | None] = []
    for item in headers:
        if item.kind == "track":
            fixed.append("track")
        elif item.kind == "label":
            fixed.append({"title": "title", "authors": "authors", "track": "track"}.get(item.field_name or ""))
        else:
            fixed.append(None)
    local = [_role_scores(i, repeats) if f is None else None for i, f in zip(headers, fixed)]
    total = sum(prior.values()) if prior else 0
    scored = []
    for combo in _assignments(len(headers), fixed, allow_cont):
        score = sum(0.0 if loc is None else loc[r] for loc, r in zip(local, combo))
        middle = [r for r in combo if r in _CANONICAL]
        if middle != sorted(middle, key=_CANONICAL.index):
            score -= 1.5  # title, track, authors is the usual order
        if prior is not None and total and all(r == "cont" for r in combo):
            score += 2.5 * math.log(0.2)  # a draft read wholly as continuation makes no entry: a mild cost
        elif prior is not None and total:
            key = tuple(r for r in combo if r in ("title", "track", "authors"))
            score += 2.5 * math.log((prior[key] + 0.5) / (total + 1))
        scored.append((score, combo))
    if not scored:
        return tuple("abs" for _ in headers), 0.0
    scored.sort(key=lambda s: -s[0])
    margin = scored[0][0] - scored[1][0] if len(scored) > 1 else 99.0
    return scored[0][1], margin


def _headers(draft: _Draft) -> list[_Item]:
    """The header items of a draft: shorts, tracks and header labels before its first prose paragraph."""
    out = []
    for item in draft.items:
        if item.kind == "prose" or (item.kind == "label" and item.field_name == "abstract"):
            break
        if item.kind in ("short", "track") or (item.kind == "label" and item.field_name in ("title", "authors", "track")):
            out.append(item)
    return out


# ----------------------------------------------------------------------------
# Reading


def read_list(path: Path, venue: str | None = None, year: int | None = None) -> ListResult:
    """Read the list file at ``path``; ``venue``/``year`` apply when the heading names none.

    Returns a :class:`ListResult`.  Raises nothing for bad content: an
    unreadable file (missing, binary, empty, undecodable) becomes an error
    diagnostic at line 0 and a result without entries.
    """
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return ListResult(name, None, [], [Diagnostic(name, 0, "error", f"cannot read the file: {exc.strerror or exc}")])
    try:
        text = decode_bytes(data)
    except ReadError as exc:
        return ListResult(name, None, [], [Diagnostic(name, 0, "error", str(exc))])
    text, removed = remove_controls(text, name)
    result = read_text(text, name, venue, year)
    result.diagnostics[:0] = removed
    return result


_UNSAFE_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def remove_controls(text: str, path: str) -> tuple[str, list[Diagnostic]]:
    """Remove the control characters that no page, feed or XML file may hold (NUL, C0 but tab and
    line ends, DEL) from ``text``; returns the text and one warning per line that held any."""
    warnings = []
    for number, line in enumerate(split_lines(text), 1):
        found = _UNSAFE_CONTROLS.findall(line)
        if found:
            codes = ", ".join(sorted({f"U+{ord(c):04X}" for c in found}))
            warnings.append(Diagnostic(path, number, "warning", f"removed {len(found)} control character(s) ({codes})"))
    return (_UNSAFE_CONTROLS.sub("", text) if warnings else text), warnings


def _excerpt(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= width else text[: width - 1] + "…")


def _join_pieces(pieces: list[tuple[int, list[str]]], source: list[str]) -> str:
    """Join abstract pieces ``(first line number, lines)`` into the abstract text.

    Pieces that touch in the source (only blank lines between them) are joined
    with the source lines between them, so the abstract is exactly the source
    text from its first to its last non-blank character (line ends as ``\\n``);
    pieces with other lines between them (page words) are joined with a blank line.
    """
    out: list[str] = []
    end = None
    for first, lines in sorted(pieces, key=lambda p: p[0]):
        if end is not None:
            between = source[end:first - 1]
            if not between:
                out.append("\n")
            else:
                out.append("\n" + "\n".join(between) + "\n" if all(not clean(b) for b in between) else "\n\n")
        out.append("\n".join(lines))
        end = first + len(lines) - 1
    return "".join(out).strip()


def _field_text(item: _Item) -> str:
    """A title or author field: the source line with only its ends stripped (inner spaces kept)."""
    return _ZERO_WIDTH.sub("", item.raw[0]).strip() if item.raw else item.text


class _Reader:
    """State for reading one list text; see :func:`read_text`."""

    def __init__(self, text: str, path: str, venue: str | None, year: int | None):
        self.path = path
        self.lines = split_lines(text)
        self.config = (venue, year)
        self.result = ListResult(path, None)
        self._pending: list[dict] = []

    def warn(self, line: int, message: str, level: str = "warning") -> None:
        self.result.diagnostics.append(Diagnostic(self.path, line, level, message))  # type: ignore[arg-type]

    def run(self) -> ListResult:
        first = next((i for i, raw in enumerate(self.lines) if clean(raw)), None)
        if first is None:
            self.warn(0, "the file is empty", "error")
            return self.result
        start = first
        if is_heading_line(self.lines[first]):
            self.result.heading = parse_heading(self.lines[first], first + 1)
            start = first + 1
        venue, year = self._venue_year()
        blocks = _blocks(self.lines, start)
        style, numbered = _numbering(blocks)
        labelled = self._labelled(blocks)
        items = _sentences_as_prose(_items(blocks, numbered, labelled, _is_compact(blocks)))
        abstract_only = _abstract_only(items) and not numbered and not labelled
        first_prose = next((k for k, i in enumerate(items) if i.kind == "prose"), len(items))
        pages_lead = any(i.kind == "page" for i in items[:first_prose])
        drafts = [part for d in _segment(items, abstract_only, bool(numbered), pages_lead)
                  for part in _split_overfull(d)]
        self._build(drafts, venue, year, abstract_only)
        if not self.result.entries and not any(d.level == "error" for d in self.result.diagnostics):
            self.warn(0, "no paper found in the list (no abstract paragraph)", "error")
        self._check_cut_off()
        merge_duplicates([self.result])
        return self.result

    def _check_cut_off(self) -> None:
        """Warn when the file ends inside an abstract: its last line is the last paper's, and that
        abstract stops without a full stop, question or exclamation mark (or a URL); 85 of the
        corpus's 10,448 abstracts end so, so the warning is about 1% of the time a false one."""
        entries = self.result.entries
        last = max((n for n, raw in enumerate(self.lines, 1) if clean(raw)), default=0)
        if not entries or entries[-1].end_line != last or entries[-1].path != self.path:
            return
        text = entries[-1].abstract.rstrip()
        if not re.search(r"[.!?。！？…][\"'”’)\]*_}$]*$|https?://\S+$", text):
            self.warn(last, f"the list ends mid-sentence ({_excerpt(text[-40:], 40)}): the last abstract, at line "
                            f"{entries[-1].line}, may be cut off")

    def _venue_year(self) -> tuple[str | None, int | None]:
        heading = self.result.heading
        venue = heading.venue if heading and heading.venue else self.config[0]
        year = heading.year if heading and heading.year else self.config[1]
        if heading and heading.venue and self.config[0] and heading.venue.lower() != self.config[0].lower():
            self.warn(heading.line, f"the heading names {heading.venue} but the config gives {self.config[0]}; "
                                    f"using {heading.venue}")
        if venue is None or year is None:
            where = heading.line if heading else 1
            said = f"heading {heading.text!r}" if heading else "the list has no heading and"
            self.warn(where, f"{said} names no venue and year, and the config gives none for {self.path}", "error")
        return venue, year

    @staticmethod
    def _labelled(blocks: list[list[tuple[int, str]]]) -> bool:
        """True when the list uses field labels (two or more label lines)."""
        count = 0
        for block in blocks:
            for _, raw in block:
                name, _ = strip_label(strip_number(clean(raw))[2])
                if name is not None:
                    count += 1
        return count >= 2

    def _build(self, drafts: list[_Draft], venue, year, abstract_only: bool) -> None:
        drafts = _split_by_pattern(drafts)
        repeats = _file_evidence(drafts)
        # pass 1: roles from local evidence; pass 2: with the file's pattern as prior
        prior: Counter = Counter()
        for n, draft in enumerate(drafts):
            heads = _headers(draft)
            if heads:
                roles, margin = _best_roles(heads, repeats, None, False)
                prior[tuple(r for r in roles if r != "abs")] += 1
            else:
                prior[()] += 1
        previous: dict | None = None
        for n, draft in enumerate(drafts):
            heads = _headers(draft)
            allow_cont = previous is not None and bool(heads) and not heads[0].mark and heads[0].kind == "short" \
                and not any(i.kind == "number" for i in draft.items[:1])
            roles, margin = _best_roles(heads, repeats, prior, allow_cont) if heads else ((), 99.0)
            if allow_cont and any(r == "cont" and author_score(h.text) >= 2.5 for r, h in zip(roles, heads)):
                # an author line never continues the abstract above (title and authors with no abstract)
                roles, margin = _best_roles(heads, repeats, prior, False)
            if heads and previous is not None and all(r == "cont" for r in roles):
                self._continue(previous, draft, margin)
                continue
            if not heads and previous is not None and prior[()] < 0.1 * sum(prior.values()):
                self._continue(previous, draft, 0.0, "has no title, track or authors, unlike the other entries; "
                                                     "read as a further paragraph of the abstract above")
                continue
            fields = self._fields(draft, dict(zip(map(id, heads), roles)), previous, margin)
            if fields is not None:
                previous = fields
        if abstract_only:
            self._join_continuations()
        for fields in self._pending:
            self._emit(fields, venue, year)


    def _continue(self, previous: dict, draft: _Draft, margin: float, why: str = "") -> None:
        """Add a whole draft to the previous entry's abstract: its lines read as further paragraphs,
        taken from the source as they are (a bullet or number that opened them included)."""
        taken: set[int] = set()
        for item in draft.items:
            if item.kind == "page":
                self._page(previous, item)
            else:
                lines = range(item.line, max(item.end, item.line) + 1)
                fresh = [n for n in lines if n not in taken]
                if fresh:
                    previous["pieces"].append((fresh[0], [self.lines[n - 1] for n in fresh]))
                    taken.update(fresh)
            previous["end"] = max(previous["end"], item.end or item.line)
        if why:
            self.warn(draft.line, f"line {_excerpt(draft.items[0].text)} {why}")
        elif margin < AMBIGUOUS_MARGIN:
            self.warn(draft.line, f"line {_excerpt(draft.items[0].text)} read as a further paragraph of the "
                                  f"abstract above; the evidence is weak (margin {margin:.1f})")

    def _fields(self, draft: _Draft, roles: dict, previous: dict | None, margin: float) -> dict | None:
        """Fill one entry's fields from its draft and roles; None (with a warning) when it has no abstract."""
        f = {"line": draft.line, "end": max(i.end or i.line for i in draft.items), "title": None, "authors": (),
             "et_al": False, "track": (), "pieces": [], "status": None, "keywords": (), "number": None, "pages": []}
        pending: str | None = None
        for item in draft.items:
            pending = self._place(f, item, roles.get(id(item)), previous, pending)
        if margin < AMBIGUOUS_MARGIN and f["pieces"]:
            self._ambiguity(draft, roles, margin)
        if f["line"] is None:
            f["line"] = next((i.line for i in draft.items if roles.get(id(i)) != "cont"), draft.line)
        if not f["pieces"]:
            self._no_abstract(draft)
            return None
        self._pending.append(f)
        return f

    def _place(self, f: dict, item: _Item, role: str | None, previous: dict | None, pending: str | None
               ) -> str | None:
        """Put one item into the entry ``f`` (or the previous entry); returns a label still waiting for its value."""
        if item.kind == "label" and item.field_name in ("title", "authors", "track") and not item.text:
            return item.field_name  # "Title:" alone: the value is on the next line
        if pending and item.kind == "short":
            self._label_field(f, replace(item, kind="label", field_name=pending))
        elif item.kind == "number":
            f["number"] = item.number
        elif role == "cont" and previous is not None:
            previous["pieces"].append((item.line, item.raw or [item.text]))
            previous["end"] = max(previous["end"], item.end or item.line)
            if f["line"] == item.line:
                f["line"] = None
        elif role == "title":
            self._set(f, "title", _field_text(item), item)
        elif role == "track":
            self._set(f, "track", item.track or parse_track(item.text) or (item.text,), item)
        elif role == "authors":
            self._set_authors(f, item)
        elif role == "abs" or item.kind == "prose":
            f["pieces"].append((item.line, item.raw or [item.text]))
            if item.note:
                self.warn(item.line, "an abstract label in a list without other labels was read as a label, "
                                     "not as abstract text")
        elif item.kind == "label":
            self._label_field(f, item)
        elif item.kind == "page":
            self._page(f, item)
        elif item.kind == "track" and not f["track"]:
            f["track"] = item.track  # a track line after the abstract
        else:
            self._late_paragraph(f, item)
        return None

    def _set_authors(self, f: dict, item: _Item) -> None:
        names, et_al = split_authors(_field_text(item))
        if not f["authors"]:
            f["et_al"] = et_al
        self._set(f, "authors", names, item)

    def _late_paragraph(self, f: dict, item: _Item) -> None:
        """A header-like line after the abstract in a numbered or labelled list: a further paragraph,
        with a warning when it looks more like a title or an author line."""
        f["pieces"].append((item.line, item.raw or [item.text]))
        text = item.text
        if author_score(text) >= 2.5 or title_score(text) >= prose_score(text) + 1.0:
            self.warn(item.line, f"line {_excerpt(text)} after the abstract read as a further paragraph of it; "
                                 f"it looks like a title or author line (a missing number?)")

    def _set(self, f: dict, key: str, value, item: _Item) -> None:
        if f[key]:
            self.warn(item.line, f"second {key} line {_excerpt(item.text)} in one entry; keeping the first "
                                 f"({_excerpt(str(f[key]))})")
            return
        f[key] = value

    def _label_field(self, f: dict, item: _Item) -> None:
        name = item.field_name
        if name == "title":
            self._set(f, "title", _field_text(item), item)
        elif name == "authors":
            self._set_authors(f, item)
        elif name == "track":
            self._set(f, "track", parse_track(item.text) or ((item.text,) if item.text else ()), item)
        elif name == "keywords":
            f["keywords"] = tuple(k.strip() for k in re.split(r"[;；,，]", item.text) if k.strip())
        elif name == "status":
            f["status"] = item.text or None

    def _page(self, f: dict, item: _Item) -> None:
        for word in item.words:
            status = STATUS_WORDS.get(word.lower())
            if status and f["status"] is None:
                f["status"] = status
            else:
                f["pages"].append(word)

    def _ambiguity(self, draft: _Draft, roles: dict, margin: float) -> None:
        for item in draft.items:
            role = roles.get(id(item))
            if role and item.kind == "short":
                name = {"abs": "abstract paragraph", "cont": "continuation of the abstract above"}.get(role, role)
                self.warn(item.line, f"line {_excerpt(item.text)} read as {name}; the evidence is weak "
                                     f"(margin {margin:.1f})")

    def _no_abstract(self, draft: _Draft) -> None:
        texts = "; ".join(_excerpt(i.text) for i in draft.items if i.kind != "number" and i.text)
        if not texts:
            texts = "a number alone"
        end = max(i.end or i.line for i in draft.items)
        self.warn(draft.line, f"lines {draft.line}-{end} have no abstract, so they are not read as a paper: {texts}")

    def _emit(self, f: dict, venue, year) -> None:
        abstract = _join_pieces(f["pieces"], self.lines)
        if not abstract.strip():
            self.warn(f["line"], f"lines {f['line']}-{f['end']} have no abstract text, so they are not read as a paper")
            return
        self.result.entries.append(Entry(
            path=self.path, line=f["line"], abstract=abstract, title=f["title"], authors=tuple(f["authors"]),
            et_al=f["et_al"], track=tuple(f["track"]), venue=venue, year=year, status=f["status"],
            keywords=f["keywords"], number=f["number"], page_words=tuple(f["pages"]), end_line=f["end"]))

    def _join_continuations(self) -> None:
        """In a list of abstracts alone, decide at every paragraph boundary whether the paragraph
        continues the abstract above (see :mod:`site_builder.continuation`).

        Round one scores paragraph against paragraph and merges from :data:`MERGE_WARN`
        (silently from :data:`MERGE`).  Round two scores the merged abstracts against each
        other, so a paragraph chain such as "We focus on …" + "Furthermore, …" is weighed as a
        whole (with :data:`CHAIN_PRIOR` added when the paper below already has several
        paragraphs); it merges from :data:`MERGE_WARN` with a warning, and a boundary still below
        that but from :data:`WARN` (in either round) keeps the paper with a warning.  A
        paragraph under a title, track, author line or number always opens its paper.  Page
        and status words stay with the last paragraph before them."""
        units = [(f, k, piece) for f in self._pending
                 for k, piece in enumerate(sorted(f["pieces"], key=lambda p: p[0]))]
        if len(units) < 2:
            return
        texts = ["\n".join(piece[1]).strip() for _, _, piece in units]
        fixed = [k == 0 and bool(f["title"] or f["authors"] or f["track"] or f["number"] is not None)
                 for f, k, _ in units]
        groups: list[list[int]] = []  # unit indexes of each paper
        opening = []  # the round-one boundary that opened each group (None for the first)
        for u, bound in enumerate([None, *continuation_scores(texts)]):
            if groups and not fixed[u] and bound.score >= MERGE_WARN:
                groups[-1].append(u)
                if bound.score < MERGE:
                    self._merged_warning(units[u][2][0], texts[u], units[groups[-1][0]][2][0], bound)
            else:
                groups.append([u])
                opening.append(bound)
        merged_texts = ["\n\n".join(texts[u] for u in g) for g in groups]
        final: list[list[int]] = [groups[0]]
        for before, group, first, second in zip(groups, groups[1:], opening[1:], continuation_scores(merged_texts)):
            if len(group) > 1:  # the paper below already has several paragraphs: see CHAIN_PRIOR
                second = replace(second, score=second.score + CHAIN_PRIOR)
            # round two supersedes round one where a paper above has several paragraphs
            bound = second if len(before) > 1 else max(first, second, key=lambda b: b.score)
            line, above = units[group[0]][2][0], units[final[-1][0]][2][0]
            if not fixed[group[0]] and second.score >= MERGE_WARN:
                final[-1] += group
                self._merged_warning(line, texts[group[0]], above, second)
                continue
            if not fixed[group[0]] and bound.score >= WARN:
                why = ", ".join(_REASONS[r] for r in bound.reasons)
                self.warn(line, f"paragraph {_excerpt(texts[group[0]], 40)} read as a separate paper; it may "
                                f"continue the abstract at line {above} ({why})")
            final.append(group)
        out: list[dict] = []
        for group in final:
            f0, k0, _ = units[group[0]]
            head = dict(f0) if k0 == 0 else {"title": None, "authors": (), "et_al": False, "track": (),
                                             "keywords": (), "number": None}
            current = {**head, "line": f0["line"] if k0 == 0 else units[group[0]][2][0],
                       "pieces": [units[u][2] for u in group], "pages": [], "status": None}
            for u in group:
                f, k, piece = units[u]
                if k == len(f["pieces"]) - 1:  # the source entry's last paragraph: its trailing words
                    current["pages"] += f["pages"]
                    current["status"] = current["status"] or f["status"]
                    current["end"] = f["end"]
                else:
                    current["end"] = piece[0] + len(piece[1]) - 1
            out.append(current)
        self._pending = out

    def _merged_warning(self, line: int, text: str, above: int, bound) -> None:
        why = ", ".join(_REASONS[r] for r in bound.reasons)
        self.warn(line, f"paragraph {_excerpt(text, 40)} read as a further paragraph of the abstract at line "
                        f"{above}, not as a paper ({why})")


_REASONS = {"connective": "it opens with a connective", "opener": "it opens like a continuation", "short_after": "it is short",
            "short_before": "the paragraph above is short", "no_contribution": "the paragraph above states no "
            "contribution", "gap_end": "the paragraph above ends on an open problem",
            "contribution_start": "it states a contribution", "anaphor": "it refers back",
            "similar": "very similar wording", "related": "similar wording", "near": "some shared wording",
            "shared_name": "a name no other paragraph uses",
            "open_end": "the paragraph above ends mid-sentence"}


def read_text(text: str, path: str, venue: str | None = None, year: int | None = None) -> ListResult:
    """Read list ``text`` (already decoded) whose diagnostics will name ``path``.

    ``venue``/``year`` (from the config) apply when the heading names none; a
    list with neither gets an error diagnostic naming the file.  Returns a
    :class:`ListResult` whose entries are in list order, duplicates within the
    list merged (with a warning).  Raises nothing for bad content.
    """
    return _Reader(text, path, venue, year).run()


# ----------------------------------------------------------------------------
# Duplicates

def _key(text: str) -> str:
    return re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


def identity_key(abstract: str, title: str | None) -> str:
    """What makes two entries the same paper: the abstract with case, punctuation and white
    space ignored; for a short abstract (under 40 characters so normalised) with a title,
    the title instead. Shared by :func:`merge_duplicates` and the model's paper id."""
    key = _key(abstract)
    return "title:" + _key(title) if len(key) < 40 and title else key


def merge_duplicates(results: list[ListResult]) -> None:
    """Merge papers listed twice, in one list or across ``results`` (in place).

    Two entries are the same paper when their abstracts agree after case,
    punctuation and white space are ignored (or, with short abstracts, their
    titles do).  The first keeps its place and gains fields only the second
    has; the second is dropped with a warning naming both places.
    """
    seen: dict[str, tuple[ListResult, int]] = {}
    for result in results:
        kept: list[Entry] = []
        for entry in result.entries:
            key = identity_key(entry.abstract, entry.title)
            if key not in seen:
                seen[key] = (result, len(kept))
                kept.append(entry)
                continue
            owner, index = seen[key]
            target = kept if owner is result else owner.entries
            first = target[index]
            target[index] = replace(
                first, title=first.title or entry.title, authors=first.authors or entry.authors,
                et_al=first.et_al if first.authors else entry.et_al, track=first.track or entry.track,
                status=first.status or entry.status, keywords=first.keywords or entry.keywords)
            result.diagnostics.append(Diagnostic(
                entry.path, entry.line, "warning",
                f"the same paper as {first.path}:{first.line} ({_excerpt(first.title or first.abstract, 40)}); "
                f"read once"))
        result.entries = kept


def read_lists(paths: Iterable[Path | str | tuple], venue: str | None = None, year: int | None = None
               ) -> list[ListResult]:
    """Read several list files and merge papers listed in more than one (see :func:`merge_duplicates`).

    Each item of ``paths`` is a path, or ``(path, venue, year)`` to give that
    file its own config; ``venue``/``year`` apply to plain paths.  Returns one
    :class:`ListResult` per path, in order.  Raises nothing for bad content.
    """
    results = []
    for item in paths:
        path, v, y = item if isinstance(item, tuple) else (item, venue, year)
        results.append(read_list(Path(path), v, y))
    merge_duplicates(results)
    return results
