"""The shapes the list reader returns: :class:`Heading`, :class:`Entry`, :class:`ListResult`,
and :class:`ReadError`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic


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

    Structured formats (BibTeX, CSL-JSON, …) also give ``doi`` (bare, ``10.…``, or None), ``url`` (the paper's
    landing page, or None) and ``code_urls`` (code repositories the record names, in order); ``abstract`` is
    ``""`` for a record that gives none (the paper's id then comes from its title, see
    :func:`~site_builder.read.duplicates.identity_key`).
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
    doi: str | None = None
    url: str | None = None
    code_urls: tuple[str, ...] = ()


@dataclass
class ListResult:
    """What reading one list file gives: its heading, entries and diagnostics."""

    path: str
    heading: Heading | None
    entries: list[Entry] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


class ReadError(ValueError):
    """A list file that cannot be read as text (empty, binary, undecodable); ``line`` is the 1-based line
    the problem was found on, or 0 when it concerns the whole file; ``empty`` is True when the file holds
    no text at all (no bytes, or white space only), which the list readers report as a warning."""

    def __init__(self, message: str, line: int = 0, empty: bool = False) -> None:
        super().__init__(message)
        self.line = line
        self.empty = empty
