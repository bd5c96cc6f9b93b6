"""BibTeX entries for papers: stable, site-unique keys and escaped field values.

Format: BibTeX as read by bibtex and biber (Patashnik, "BibTeXing", 1988): one
``@inproceedings{key, field = {value}, …}`` per paper; ``author`` joins names
with `` and `` (``and others`` for "et al."). Field values are escaped for the
specials ``\\ { } $ & % # _ ~ ^`` so a title can never unbalance braces or
start TeX math; words with inner capitals (``HASS``, ``GPT-4``) are braced so
styles keep their case. Keys follow Google Scholar's ``zhang2025controllability``
(family name of the first author, year, first content word of the title, ASCII
lower case); papers sharing a key get ``b``, ``c``, … in order of their id.
"""

from __future__ import annotations

import hashlib
import marshal
import re
from typing import Iterable, Sequence

from ..incremental import strmemo
from ..read.bibtex import tex_spacing
from ..read.records import links_in
from .authors import clean_name, family_name
from .urls import slugifier

#: Title words skipped when picking the key's word (as Google Scholar does).
TITLE_STOPWORDS = frozenset(
    "a an the on of in for to and or with from by at as is are via towards toward when what how why do does "
    "can beyond into under over this that these we our".split())
SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "%": r"\%", "#": r"\#",
            "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_SPECIAL = re.compile(r"[\\{}$&%#_~^]")
_SPACE = re.compile(r"\s")
_INNER_CAPITAL = re.compile(r"(?<![\\\w{])([^\s{}\\]*[A-Za-z0-9][^\s{}\\]*[A-Z][^\s{}\\]*)")


def _special(match: re.Match) -> str:
    return SPECIALS[match.group()]


#: TeX ligatures of ASCII characters (``--`` an en dash, ``\'\'`` a closing quote, ``!` `` ``¡``): broken by an empty
#: group so a reader decoding TeX (pylatexenc, biber) gives back the characters written.
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=')(?=')|(?<=`)(?=`)|(?<=[!?])(?=`)")


def escape(text: str) -> str:
    """``text`` with every BibTeX/TeX special character escaped and TeX's ASCII ligatures broken
    (``--`` → ``-{}-``), so that TeX decoding gives back ``text``; each run of whitespace (newlines too)
    becomes one space, none at either end (``str.split`` and the pattern ``\\s`` know the same
    whitespace characters)."""
    escaped = _SPECIAL.sub(_special, " ".join(text.split()))
    return _LIGATURE.sub("{}", escaped) if ("-" in escaped or "'" in escaped or "`" in escaped) else escaped


def abstract_value(abstract: str) -> str:
    """The BibTeX ``abstract`` value of an abstract's source, with its white space as written: every character
    :func:`escape`\\ d but white space (its TeX math too, as text: a reader decoding the value gets the source back),
    a no-break space (U+00A0) as TeX's tie ``~``, each line end (CRLF, CR) as the file's ``\\n``. TeX (and a
    reader of BibTeX) folds runs of white space and reads a blank line as a paragraph break, so the text it reads is
    :func:`site_builder.read.bibtex.tex_spacing` of the abstract; an entry whose abstract that changes carries
    :data:`VERBATIM_FIELD` (see :func:`entry`), and our reader then keeps its white space exactly."""
    text = re.sub(r"\r\n?", "\n", abstract)
    escaped = _SPECIAL.sub(_special, text)
    escaped = _LIGATURE.sub("{}", escaped) if ("-" in escaped or "'" in escaped or "`" in escaped) else escaped
    return escaped.replace("\xa0", "~")


#: Fields of our own in the ``.bib`` files (BibTeX styles ignore fields they do not know), read back by
#: :mod:`site_builder.read.bibtex`: ``title-derived = {true}`` on a paper whose title is derived from its abstract
#: (``title_derived`` in ``papers.json``: the reader derives it again), ``abstract-spacing = {verbatim}`` on an
#: abstract whose white space TeX would fold (runs of spaces, single line breaks, tabs, spaces at a line's ends),
#: ``landing-page = {none}`` on a paper without a landing page (its ``url`` is its page on the site),
#: ``title-source`` (the title as written, escaped) on a title whose source holds TeX text markup (:data:`_TEX_TEXT`:
#: ``Schr\\"odinger``, ``--``, ``''``; the ``title`` field holds the characters they stand for, for styles).
DERIVED_FIELD, VERBATIM_FIELD, NO_LANDING_FIELD, SOURCE_FIELD = ("title-derived", "abstract-spacing", "landing-page",
                                                                 "title-source")
_TEX_TEXT = re.compile(r"\\|--|''|``")


def _braced(match: re.Match) -> str:
    return "{" + match.group(1) + "}"


def protect_case(escaped: str) -> str:
    """Brace words of an escaped title that have a capital after their first letter (``{HASS}``)."""
    return _INNER_CAPITAL.sub(_braced, escaped)


@strmemo.memoized("ascii_word")  # kept across builds (see strmemo)
def _ascii_word(text: str) -> str:
    return re.sub(r"[^a-z]", "", slugifier()(text, separator="").lower())


_TITLE_SPLIT = re.compile(r"[\s\-:/]+")


def title_word(title: str) -> str:
    """The key's word of a title (plain text): its first word that is not in :data:`TITLE_STOPWORDS`,
    as ASCII lower-case letters; ``""`` when there is none."""
    pieces = _TITLE_SPLIT.split(title, 4)  # the word is almost always among the first few
    for piece in pieces[:4]:
        word = _ascii_word(piece)
        if word and word not in TITLE_STOPWORDS:
            return word
    if len(pieces) < 5:
        return ""
    for piece in _TITLE_SPLIT.split(pieces[4]):
        word = _ascii_word(piece)
        if word and word not in TITLE_STOPWORDS:
            return word
    return ""


def base_key(paper) -> str:
    """The key of ``paper`` before de-duplication: ``<family><year><word>``, e.g. ``zhang2025controllability``.

    ``<family>`` is the family name of the first author (:func:`~site_builder.model.authors.clean_name`
    not empty), ``anonymous`` when the paper lists no author; ``<word>`` is :func:`title_word` of
    the plain-text title.
    """
    family = ""
    for name in paper.authors:
        name = clean_name(name)
        if name:
            family = _ascii_word(family_name(name))
            break
    return f"{family or 'anonymous'}{paper.venue.year}{title_word(paper.title_text)}"


def assign_keys(papers: Iterable, bases: Iterable[str] | None = None) -> dict[str, str]:
    """``{paper.id: key}``, unique over ``papers``: the first paper (by id) of a base key keeps it,
    the others get ``b``, ``c``, … ``z``, ``ba``, … appended (base keys taken in sorted order, so a
    suffixed key never equals a base key or a suffixed key given before it). ``bases``: the papers'
    :func:`base_key`, one per paper in order, when known (default: computed)."""
    keys: dict[str, str] = {}
    shared: dict[str, list] = {}  # base keys of more than one paper → their papers
    first: dict[str, object] = {}
    papers = list(papers)
    for paper, key in zip(papers, bases if bases is not None else map(base_key, papers)):
        other = first.get(key)
        if other is None:
            first[key] = paper
            keys[paper.id] = key
        elif key in shared:
            shared[key].append(paper)
        else:
            shared[key] = [other, paper]
    taken = set(first)  # no suffixed key may equal another paper's base key
    for key, group in sorted(shared.items()):
        for n, paper in enumerate(sorted(group, key=lambda p: p.id)):
            candidate = key
            while n and candidate in taken:
                candidate, n = key + _letters(n), n + 1
            taken.add(candidate)
            keys[paper.id] = candidate
    return keys


#: The papers' base keys of the last build in the cache (a marshal file, see
#: :class:`~site_builder.incremental.store.Store`), with the digest of what they were made of.
BASE_KEYS_STATE = "bibkeys.marshal"


def base_keys_digest(papers: Sequence, authors_digest: str) -> str:
    """Hex SHA-256 of everything :func:`base_key` reads of ``papers`` in order: ``authors_digest`` (the
    :func:`~site_builder.model.authors.input_digest` of the same papers: their authors as written) and each
    paper's plain-text title and year, serialised by :mod:`marshal` version 2 (unambiguous, the bytes
    depend on the values alone; see :func:`~site_builder.model.authors.input_digest`). Not the paper ids (which
    change with the abstract): the keys' de-duplication by id is done again on every build."""
    data = [authors_digest, [p.title_text for p in papers], [p.venue.year for p in papers]]
    return hashlib.sha256(marshal.dumps(data, 2)).hexdigest()


def cached_keys(papers: Sequence, cache, authors_digest: str | None) -> dict[str, str]:
    """:func:`assign_keys` of ``papers``, with their base keys taken from ``<cache>/bibkeys.marshal`` when
    that holds those of papers with the same authors, titles and years in the same order
    (:func:`base_keys_digest`; ``authors_digest``: the papers' :func:`~site_builder.model.authors.input_digest`)
    for this code version, else computed and saved there. ``cache``: a :class:`~site_builder.incremental.cache.BuildCache`
    (None, disabled, or no ``authors_digest``: computed). The keys are the same either way
    (``tests/model/test_model_incremental.py``); a malformed file is a cache warning and is rewritten."""
    if cache is None or not cache.enabled or not isinstance(authors_digest, str):
        return assign_keys(papers)
    bases = cache.store.cached(BASE_KEYS_STATE, base_keys_digest(papers, authors_digest),
                               lambda: list(map(base_key, papers)), lambda bases: {"bases": bases},
                               lambda saved: _saved_bases(saved, len(papers)), "the papers' base keys")
    return assign_keys(papers, bases)


def _saved_bases(saved: dict, count: int) -> list[str] | None:
    """The base keys in ``saved`` (a ``bibkeys.marshal`` value) when they are ``count`` strings, else None."""
    bases = saved.get("bases")
    if type(bases) is list and len(bases) == count and set(map(type, bases)) <= {str}:
        return bases
    return None


def _letters(n: int) -> str:
    """1 → ``b``, 2 → ``c``, …, 25 → ``z``, 26 → ``ba`` (base 26 over a–z)."""
    out = ""
    while True:
        out = "abcdefghijklmnopqrstuvwxyz"[n % 26] + out
        n //= 26
        if not n:
            return out


#: Inline TeX math in a title's source: ``$…$`` (no ``$`` inside, not an escaped ``\$``).
_TITLE_MATH = re.compile(r"(?<!\\)\$([^$\n]+?)(?<!\\)\$")


def _balanced(tex: str) -> bool:
    depth = 0
    for i, char in enumerate(tex):
        if char in "{}" and (i == 0 or tex[i - 1] != "\\"):
            depth += 1 if char == "{" else -1
            if depth < 0:
                return False
    return depth == 0


def title_value(source: str, text: str) -> str:
    """The BibTeX ``title`` value of a title written as ``source`` (Markdown with inline TeX) whose plain
    text is ``text``: the escaped, case-protected text; but a title with inline math keeps each formula as
    written (``$\\sqrt{n}$``, which BibTeX passes to TeX as math), its other parts as their plain text, when
    every ``$…$`` is math as the page reads it (:func:`render.is_math`: ``$10 and $`` is money), its braces
    balance and it holds none of ``% # &`` (else the whole title as plain text)."""
    pieces = _TITLE_MATH.split(source) if "$" in source else [source]
    formulas = pieces[1::2]
    if not formulas:
        return protect_case(escape(text))
    from ..text.render import is_math, render_inline

    after = [piece[:1] for piece in pieces[2::2]]
    if not all(is_math(f, a) and _balanced(f) and not re.search(r"[%#&]", f) for f, a in zip(formulas, after)):
        return protect_case(escape(text))

    out = []
    for n, piece in enumerate(pieces):
        if n % 2:
            out.append(f"${piece.strip()}$")
            continue
        plain = protect_case(escape(render_inline(piece)[1])) if piece.strip() else ""
        out.append((" " if piece[:1].isspace() else "") + plain + (" " if piece[-1:].isspace() else ""))
    return " ".join("".join(out).split())


def entry(paper, key: str, url: str = "", full: bool = False) -> str:
    """The BibTeX entry of ``paper`` under ``key`` (ends with a newline); ``url`` is added when given. With
    ``full`` (the ``.bib`` files) also its ``code`` links, ``track`` (``Area · Subarea``) and ``status`` (fields styles
    ignore) and its
    ``abstract`` (:func:`abstract_value`; Zotero's exports carry it too), and our own fields (:data:`DERIVED_FIELD`,
    :data:`VERBATIM_FIELD`, :data:`NO_LANDING_FIELD`, :data:`SOURCE_FIELD`) where needed, so the files read back as lists (:mod:`site_builder.read.bibtex`) give
    the same papers with the same fields."""
    authors = [escape(name) for name in map(clean_name, paper.authors) if name]
    if paper.et_al:
        authors.append("others")
    fields = [("title", title_value(paper.title, paper.title_text))]
    if full and _TEX_TEXT.search(paper.title):  # TeX text markup the title's plain text reads as its characters
        fields.append((SOURCE_FIELD, escape(paper.title)))
    if authors:
        fields.append(("author", " and ".join(authors)))
    fields += [("booktitle", escape(paper.venue.label)), ("year", str(paper.venue.year))]
    if getattr(paper, "keywords", ()):
        fields.append(("keywords", escape(keywords_value(paper.keywords))))
    if getattr(paper, "doi", ""):
        fields.append(("doi", escape(paper.doi)))
    if getattr(paper, "landing_url", ""):
        fields.append(("howpublished", escape(paper.landing_url)))
    if full and paper.code_urls:
        fields.append(("code", " ".join(map(_code_link, paper.code_urls))))
    if full and paper.track is not None:
        fields.append(("track", escape(paper.track.label)))
    if full and getattr(paper, "status", ""):
        fields.append(("status", escape(paper.status)))
    if full and paper.abstract:
        fields.append(("abstract", abstract_value(paper.abstract)))
        if tex_spacing(paper.abstract) != re.sub(r"\r\n?", "\n", paper.abstract):
            fields.append((VERBATIM_FIELD, "verbatim"))
    if full and paper.title_derived:
        fields.append((DERIVED_FIELD, "true"))
    if url:
        fields.append(("url", _SPACE.sub("%20", url).replace("{", "%7B").replace("}", "%7D")))
        if full and not getattr(paper, "landing_url", ""):
            fields.append((NO_LANDING_FIELD, "none"))  # the url is our page, not the paper's landing page
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@inproceedings{{{key},\n{body}\n}}\n"


def keywords_value(keywords: Sequence[str]) -> str:
    """The ``keywords`` value (before :func:`escape`): joined by ``", "``, or by ``"; "`` when a keyword holds a
    comma (one keyword then ends with ``;``), as :func:`site_builder.read.records.split_keywords` splits them."""
    if not any("," in k for k in keywords):
        return ", ".join(keywords)
    return "; ".join(keywords) + (";" if len(keywords) == 1 else "")


def _code_link(url: str) -> str:
    """A code link in the ``code`` field (links separated by spaces): braces percent-encoded, and in braces, so
    it reads back whole, a link the reader would not find as one (:func:`site_builder.read.records.links_in`:
    one holding white space, or without ``https://`` and code host, as lists give them)."""
    link = url.replace("{", "%7B").replace("}", "%7D")
    return link if links_in(link) == [link] else "{" + link + "}"


def bib_file(entries: Iterable[str]) -> str:
    """A ``.bib`` file of ``entries`` separated by blank lines."""
    return "\n".join(entries)
