"""BibTeX lists (``*.bib``): one paper per entry, read with bibtexparser 2 and decoded from TeX with pylatexenc.

bibtexparser (https://bibtexparser.readthedocs.io, v2) splits the file into entries, resolves ``@string``
macros (``booktitle = icml``) and drops the enclosing braces or quotes; its name middlewares split ``author``
on `` and `` into names in order and write each as "First Last" (``Müller, Jörg`` → ``Jörg Müller``;
``others`` is "et al."). Every value is then decoded from TeX by pylatexenc's ``LatexNodes2Text``
(``{\\"u}`` → ``ü``, ``{BERT}`` → ``BERT``, ``--`` → ``–``, ``\\%`` → ``%``) with math kept verbatim
(``$\\mathcal{O}(n)$`` stays for the renderer, as abstracts are written), and white space collapsed except in the
abstract, whose paragraphs (blank lines) stay (:func:`tex_spacing`).

Fields: ``title``, ``author``, ``abstract``, ``booktitle``/``journal``/``series`` (the venue, by
:func:`~site_builder.read.records.venue_name`), ``year`` (or ``date``), ``keywords`` (comma or semicolon
separated), ``doi``, ``howpublished`` and ``url`` (the landing page is the first link that is not to a code host, which is a
code link; our ``papers.bib`` writes the landing page in ``howpublished``), ``code``/``github`` (code links, whatever their host), ``track``/``eventtitle``
(a track), ``status`` (how the venue presents the paper, as our ``.bib`` files write it). Four fields of our own, written by our ``papers.bib`` (:func:`site_builder.model.bibtex.entry`), make it
read back as it was written: ``title-derived = {true}`` (the title was derived from the abstract: it is derived
again, as ``title_derived`` in JSON Lines), ``abstract-spacing = {verbatim}`` (the abstract's white space is
kept exactly as the value holds it, runs of spaces and single line breaks too), ``landing-page = {none}``
(the ``url`` is the paper's page on our site, not a landing page), ``title-source`` (the title as written, when it
holds TeX text markup, read instead of ``title``); a code link in braces is read whole. A malformed entry is a warning
naming its line and key, and the other entries are read.
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from pathlib import Path

from ..diagnostics import Diagnostic
from .entries import ListResult, ReadError
from .records import (Record, bad_year, doi_field, failed, links_in, list_result, read_text, split_keywords, split_links,
                      venue_name, year_in)



@lru_cache(maxsize=1)
def _decoder():
    """pylatexenc's LaTeX → text converter: math verbatim, ``\\textasciicircum`` as ``^`` (its default is a
    modifier letter), spaces as LaTeX would keep them."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()  # a new database on each call: adding to it changes no other
    context.add_context_category("site-builder", macros=[MacroTextSpec("textasciicircum", "^")], prepend=True)
    return LatexNodes2Text(latex_context=context, math_mode="verbatim", strict_latex_spaces=True)


def decode(value: str, paragraphs: bool = False, verbatim: bool = False) -> str:
    """The text a reader expects of a BibTeX value (see the module doc); white space collapsed (within each
    paragraph, with ``paragraphs``: :func:`tex_spacing`), or kept as written with ``verbatim``. A value pylatexenc
    cannot parse is kept as written."""
    try:
        text = _decoder().latex_to_text(value) if ("\\" in value or "{" in value or "~" in value
                                                    or "-" in value or "`" in value or "'" in value) else value
    except Exception:  # pylatexenc raises its own parse errors on unbalanced input; keep the value as written
        text = value
    if verbatim:
        return text
    return tex_spacing(text) if paragraphs else _collapse(text)


def tex_spacing(text: str) -> str:
    """``text`` with white space as TeX reads it: a blank line (white space holding two line ends) separates
    paragraphs, written ``\\n\\n``; within a paragraph each run of ASCII white space is one space, none at its
    ends (a no-break space stays). How an abstract reads back from BibTeX without ``abstract-spacing = {verbatim}``."""
    return "\n\n".join(_collapse(p) for p in re.split(r"\n[ \t\r]*\n", text) if p.strip())


def _collapse(text: str) -> str:
    """Runs of ASCII white space as one space, none at the ends (TeX's reading; a tie ``~``, U+00A0, stays)."""
    return re.sub(r"[ \t\r\n]+", " ", text).strip(" ")


def _name_decoding():
    """A bibtexparser middleware decoding the ``author`` field from TeX before its names are split (its name
    splitter drops an accent on a capital: ``\\'Alvarez`` → ``Alvarez``); built on first use."""
    from bibtexparser.middlewares import BlockMiddleware

    class NameDecoding(BlockMiddleware):
        def transform_entry(self, entry, *args):
            field = entry.fields_dict.get("author")
            if field is not None and isinstance(field.value, str):
                field.value = decode(field.value)
            return entry

    return NameDecoding()


def _record(block) -> Record:
    """The :class:`Record` of one parsed bibtexparser entry (names already split and merged)."""
    raw = {f.key.lower(): f.value for f in block.fields}

    def text(*names: str) -> str:
        return next((decode(raw[n]) for n in names if isinstance(raw.get(n), str) and raw[n].strip()), "")

    authors = raw.get("author") or []
    names = [_collapse(a) for a in (authors if isinstance(authors, list) else [authors])]
    container = text("booktitle", "journal", "series", "howpublished")
    url = "" if _flag(raw, "landing-page", "none") else str(raw.get("url", ""))  # then the url is our page
    landing, code = split_links(links_in(" ".join((text("howpublished"), url, text("note")))))
    code = [*code_links(" ".join(str(raw.get(n, "")) for n in ("code", "github"))), *code]
    keywords = split_keywords(text("keywords", "keyword"))
    title = "" if _flag(raw, "title-derived", "true") else text("title-source", "title")  # derived again, as it was
    problems: list[str] = []
    record = Record(line=block.start_line + 1, key=block.key, title=title,
                    authors=[n for n in names if n.lower() != "others"],
                    abstract=decode(raw["abstract"], True, _flag(raw, "abstract-spacing", "verbatim"))
                    if isinstance(raw.get("abstract"), str) else "",
                    venue=venue_name(container), year=year_in(text("year", "date")) or year_in(container),
                    bad_year=bad_year(text("year", "date"), year_in(text("year", "date"))),
                    track=tuple(p.strip() for p in text("track").split("·")) if text("track") else (),
                    keywords=keywords, doi=doi_field(text("doi"), problems), url=landing, code_urls=code,
                    et_al=any(n.lower() == "others" for n in names), status=text("status"), problems=problems)
    return record


def code_links(value: str) -> list[str]:
    """The links of a ``code`` field's raw value, in order: each braced group whole (a link holding white space,
    as our writer braces it), in the rest each link :func:`~site_builder.read.records.links_in` finds."""
    links: list[str] = []
    for part in re.finditer(r"\{([^{}]*)\}|[^{}]+", value):
        links += [part.group(1).strip()] if part.group(1) is not None and part.group(1).strip() else \
            links_in(part.group())
    return links


def _flag(raw: dict, name: str, value: str) -> bool:
    """True when field ``name`` of an entry's fields ``raw`` is ``value`` (case and edge spaces aside)."""
    return isinstance(raw.get(name), str) and raw[name].strip().lower() == value


def read_list(path: Path, venue: str | None = None, year: int | None = None, explicit: bool = True) -> ListResult:
    """The papers of the BibTeX file at ``path`` (see the module doc); ``venue``/``year``: the config's, for an
    entry naming none (``explicit``: they are the list's own, from ``[lists]``, and entries naming others get a
    warning, :func:`records.list_result`). A file
    bibtexparser finds no entry in, while it holds text, is an error naming it; raises nothing for bad content."""
    import bibtexparser
    from bibtexparser import middlewares

    try:
        text = read_text(path)
    except ReadError as exc:
        return failed(path, exc)
    logger = logging.getLogger("bibtexparser")  # it logs each failed block; they are our diagnostics instead
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        library = bibtexparser.parse_string(text, append_middleware=[
            _name_decoding(), middlewares.SeparateCoAuthors(), middlewares.SplitNameParts(),
            middlewares.MergeNameParts("first")])
    finally:
        logger.setLevel(level)
    diagnostics = [Diagnostic(str(path), block.start_line + 1, "warning",
                              f"malformed BibTeX entry {_key_of(block.raw)}: {_first_line(block.error)}; left out")
                   for block in library.failed_blocks]
    if not library.entries and not library.failed_blocks:
        return failed(path, f"not a BibTeX file: no @entry found (the {Path(path).suffix} suffix says BibTeX)")
    return list_result(path, [_record(block) for block in library.entries], diagnostics, venue, year, explicit)


def _key_of(raw: str) -> str:
    found = re.match(r"\s*@\s*\w+\s*[{(]\s*([^,\s]*)", raw or "")
    return found.group(1) if found and found.group(1) else "(no key)"


def _first_line(error) -> str:
    reason = getattr(error, "abort_reason", None) or str(error or "")
    lines = [line.strip() for line in reason.splitlines() if line.strip()]
    return lines[-1] if lines else "cannot be parsed (unbalanced braces or quotes?)"
