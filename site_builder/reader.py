"""Read plain-text paper lists into entries and diagnostics.

PLACEHOLDER: minimal reader for the three seed layouts; to be replaced by the
full reader of issue 3 with the same public interface.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostic

TRACK_SEPARATORS = re.compile(r"\s+(?:·|›|->|>)\s+")
HEADING = re.compile(r"^(?P<venue>[A-Za-z][A-Za-z0-9&\-]*)\s+(?P<year>(?:19|20)\d\d)\b")


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
    config.
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


@dataclass
class ListResult:
    """What reading one list file gives: its heading, entries and diagnostics."""

    path: str
    heading: Heading | None
    entries: list[Entry] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def parse_heading(text: str, line: int = 1) -> Heading:
    """Return the venue and year named by a heading line such as ``ICLR 2025 Papers``."""
    m = HEADING.match(text.strip())
    if not m:
        return Heading(text.strip(), None, None, line)
    return Heading(text.strip(), m["venue"], int(m["year"]), line)


def read_list(path: Path, venue: str | None = None, year: int | None = None) -> ListResult:
    """Read the list file at ``path``; ``venue``/``year`` apply when the heading names none.

    Raises nothing for bad content: problems become error diagnostics.
    """
    data = Path(path).read_bytes()
    return read_text(data.decode("utf-8-sig"), str(path), venue, year)


def read_text(text: str, path: str, venue: str | None = None, year: int | None = None) -> ListResult:
    """Read list ``text`` (already decoded) whose diagnostics will name ``path``."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[tuple[int, str]] = []
    for number, raw in enumerate(lines, 1):
        if raw.strip():
            blocks.append((number, raw.strip()))
    result = ListResult(path, None)
    if not blocks:
        result.diagnostics.append(Diagnostic(path, 0, "error", "the list is empty"))
        return result
    first_line, first = blocks.pop(0)
    heading = parse_heading(first, first_line)
    result.heading = heading
    v, y = heading.venue or venue, heading.year or year
    if v is None or y is None:
        result.diagnostics.append(Diagnostic(path, first_line, "error",
                                             f"heading {first!r} names no venue and year, and the config gives none for this list"))
    track: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    et_al = False
    start = None
    for number, line in blocks:
        if TRACK_SEPARATORS.search(line) and len(line) < 120:
            track = tuple(p.strip() for p in TRACK_SEPARATORS.split(line))
            start = start or number
        elif len(line) < 400 and "," in line and not line.endswith("."):
            names = [n.strip() for n in line.split(",")]
            if names[-1].endswith("等"):
                names[-1] = names[-1][:-1].strip()
                et_al = True
            authors = tuple(n for n in names if n)
            start = start or number
        else:
            result.entries.append(Entry(path, start or number, line, None, authors, et_al, track, v, y))
            track, authors, et_al, start = (), (), False, None
    return result
