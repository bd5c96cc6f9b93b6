"""The input formats of paper lists, found by the file name's suffix (as Pelican's readers are).

Each format is a module of this package that turns one file into a :class:`~site_builder.read.entries.ListResult`
(entries in file order, duplicates within the file merged, diagnostics naming the file and line) and raises
nothing for bad content. :data:`FORMATS` lists them; :func:`format_of` picks one for a path, :func:`read_list`
reads a file with it. A format may also read an edited file again from the kept state of its previous read
(:attr:`ListFormat.reread`, used by :mod:`site_builder.incremental.lists`); one without reads it in full.

To add a format: write its module here, add a :class:`ListFormat` to :data:`FORMATS`, and put its tests in
``tests/read/``. The build picks up its files in the lists folder by their suffix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import bibtex, plaintext, reread, structured
from .entries import ListResult
from ..diagnostics import Diagnostic

#: ``read(path, venue, year, explicit) -> ListResult``, as :func:`site_builder.read.plaintext.read_list`.
Reader = Callable[[Path, "str | None", "int | None", bool], ListResult]


@dataclass(frozen=True)
class ListFormat:
    """An input format: its ``name`` (for messages), the file name ``suffixes`` it reads (lower case, with
    the dot), its ``read`` function, and ``reread`` (:func:`site_builder.read.reread.read_list`'s signature:
    a read that keeps its state and can read an edit from it) or None."""

    name: str
    suffixes: tuple[str, ...]
    read: Reader
    reread: Callable | None = None


#: The formats, by preference when two could read a suffix (the first wins).
FORMATS: tuple[ListFormat, ...] = (
    ListFormat("plain-text list", (".txt",), plaintext.read_list, reread.read_list),
    ListFormat("BibTeX", (".bib",), bibtex.read_list),
    ListFormat("RIS", (".ris",), structured.read_ris),
    ListFormat("JSON (CSL-JSON, OpenReview notes, paperlists, papers.json)", (".json",), structured.read_json),
    ListFormat("JSON Lines", (".jsonl",), structured.read_jsonl),
    ListFormat("CSV", (".csv",), structured.read_csv),
)


def suffixes() -> tuple[str, ...]:
    """The file name suffixes of every format (lower case, with the dot), in :data:`FORMATS` order."""
    return tuple(suffix for fmt in FORMATS for suffix in fmt.suffixes)


def format_of(path: Path | str) -> ListFormat | None:
    """The format that reads the file at ``path``, by its suffix (case-insensitive); None when none does."""
    suffix = Path(path).suffix.lower()
    return next((fmt for fmt in FORMATS if suffix in fmt.suffixes), None)


def read_list(path: Path | str, venue: str | None = None, year: int | None = None, explicit: bool = True
              ) -> ListResult:
    """The :class:`ListResult` of the file at ``path`` read by its format (:func:`format_of`); ``venue``,
    ``year`` and ``explicit`` as for :func:`site_builder.read.plaintext.read_list`. A file no format reads
    gives an error diagnostic naming it and the suffixes known, and no entries. Raises nothing for bad content."""
    fmt = format_of(path)
    if fmt is None:
        message = f"no reader for files named *{Path(path).suffix}; lists are {', '.join(suffixes())} files"
        return ListResult(str(path), None, [], [Diagnostic(str(path), 0, "error", message)])
    return fmt.read(Path(path), venue, year, explicit)
