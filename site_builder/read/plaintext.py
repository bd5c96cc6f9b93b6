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

Modules, one per stage (every public name stays importable from here):
``reader_types`` (the shapes), ``reader_text`` (bytes to lines),
``reader_heading`` (venue and year), ``reader_lines`` (what one line is),
``reader_items`` (blocks, items, entry drafts and their roles),
:mod:`site_builder.read.continuation` (paragraphs in lists of abstracts alone),
``reader_duplicates`` (one paper listed twice); this module assembles the
entries and holds the entry points :func:`read_list`, :func:`read_text`
and :func:`read_lists`. A read has two stages, structure (everything up to each
entry's fields) and assembly (continuations joined, entries made, duplicates merged);
``reader_reread`` keeps what the first found to read an edited list again.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Iterable

from . import heading as reader_heading
from .continuation import CHAIN_PRIOR, MERGE, MERGE_WARN, WARN, continuation_scores
from ..diagnostics import Diagnostic
from .duplicates import identity_key, merge_duplicates
from .heading import is_heading_line, parse_heading
from .items import (AMBIGUOUS_MARGIN, NAME_LINE, EntryDraft, Item, blocks_to_items, choose_roles, file_evidence, find_numbering,
                    layout_of, list_layouts, titles_first,
                    group_drafts, header_items, is_abstract_only, is_compact, sentences_as_prose,
                    split_blocks, split_by_header_pattern, split_overfull)
from .lines import FUNCTION_WORDS, LABELS, PAGE_WORDS, STATUS_WORDS, TITLE_WORDS, author_score, capital_ratio, is_prose, name_shape, name_shaped, page_words, parse_track, prose_score, split_authors, strip_label, strip_number, title_score, track_score
from .text import ZERO_WIDTH, clean, excerpt, decode_bytes, decode_list, remove_controls, split_lines
from .entries import Entry, Heading, ListResult, ReadError

__all__ = [
    "Heading", "Entry", "ListResult", "ReadError", "decode_bytes", "split_lines", "clean", "remove_controls",
    "parse_heading", "is_heading_line", "HEADING", "PAGE_HEADING", "strip_label", "strip_number", "page_words",
    "parse_track", "split_authors", "LABELS", "PAGE_WORDS", "STATUS_WORDS", "FUNCTION_WORDS", "TITLE_WORDS",
    "name_shape", "name_shaped", "author_score", "title_score", "track_score", "prose_score", "capital_ratio",
    "is_prose", "read_text", "read_list", "read_lists", "merge_duplicates", "identity_key", "read_error",
]


def __getattr__(name: str):
    """``HEADING`` and ``PAGE_HEADING``, compiled on first use (see :mod:`site_builder.read.heading`)."""
    if name in ("HEADING", "PAGE_HEADING"):
        return getattr(reader_heading, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ----------------------------------------------------------------------------
# Reading


def read_list(path: Path, venue: str | None = None, year: int | None = None, explicit: bool = True) -> ListResult:
    """Read the list file at ``path``; ``venue``/``year`` apply when the heading names none.
    ``explicit`` False: they come from the config's ``[default]``, so a heading naming its own
    venue is no conflict (no warning).

    Returns a :class:`ListResult`.  Raises nothing for bad content: an
    unreadable file (missing, binary, undecodable) becomes an error
    diagnostic (at line 0, or the line of the first undecodable byte) and a result without entries;
    a file that holds no paper (empty, white space only, or a heading alone) a warning
    (:data:`NO_PAPERS`) and a result without entries.
    """
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return ListResult(name, None, [], [Diagnostic(name, 0, "error", f"cannot read the file: {exc.strerror or exc}")])
    try:
        text, removed = decode_list(data, name)
    except ReadError as exc:
        return ListResult(name, None, [], [read_error(name, exc)])
    result = read_text(text, name, venue, year, explicit)
    result.diagnostics[:0] = removed
    return result


#: The warning about a list file that holds no paper: no text at all, or a heading alone (a list begun
#: and not filled yet). Nothing in it is lost, so it does not stop the build (``--strict`` does).
NO_PAPERS = "the file holds no papers ({}); the other lists are built without it"


def read_error(path: str, exc: ReadError) -> Diagnostic:
    """The diagnostic about list ``path`` that could not be read as text: an error at ``exc.line``, but
    a warning (:data:`NO_PAPERS`, at line 0: the whole file) when the file is empty or white space only."""
    if exc.empty:
        return Diagnostic(path, 0, "warning", NO_PAPERS.format("it is empty or white space only"))
    return Diagnostic(path, exc.line, "error", str(exc))


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


def _field_text(item: Item) -> str:
    """A title or author field: the source line with only its ends stripped (inner spaces kept)."""
    return ZERO_WIDTH.sub("", item.raw[0]).strip() if item.raw else item.text


def _title_text(item: Item) -> str:
    """A title field: :func:`_field_text` without a list marker the numbering did not take
    (``1)``, ``•``, ``*``, ``#7`` in a list that mixes them) and without ``**`` emphasis
    around the whole title."""
    text = _field_text(item)
    style, _, rest = strip_number(text)
    if style and rest.strip():
        text = rest.strip()
    bold = re.fullmatch(r"\*\*(.+?)\*\*", text) or re.fullmatch(r"__(.+?)__", text)
    if bold and "**" not in bold[1]:
        text = bold[1].strip()
    return text


def _layout_words(layout: tuple[str, ...]) -> str:
    """A layout in words: ``title, track, authors`` (``no title, track or authors`` when empty)."""
    return ", ".join(layout) if layout else "no title, track or authors"


def _one_name(text: str) -> bool:
    """True when ``text`` is one person's name and nothing else (``Hadrien Hendrikx``: 2-4 name-shaped
    tokens, no separator, no full stop): the author line of a paper of one author, whose
    :func:`author_score` is below the 2.5 of an author line of several."""
    names, et_al = split_authors(text)
    return len(names) == 1 and not et_al and 2 <= len(text.split()) <= 4 and name_shape(text) == 1.0 \
        and not text.rstrip().endswith(".")


def unnamed_heading(blocks: list[list[tuple[int, str]]]) -> bool:
    """True when the list's first line, a block of its own, is a heading that names no venue (``Reading group
    list``, a page's title) rather than the first paper's track: a short line that is neither prose nor a
    name, above a paper block opening with two header lines (its title and authors, or track and title), in
    a list where no other block is one short line (a list of one-line tracks or titles above their papers).
    ``blocks`` as :func:`split_blocks` gives them from the list's first line. Found by the second new-user
    pass (the heading was read as the first paper's track)."""
    if len(blocks) < 3 or len(blocks[0]) != 1 or len(blocks[1]) < 3:
        return False
    line = clean(blocks[0][0][1])
    if len(line) > 80 or is_prose(line) or author_score(line) >= NAME_LINE or strip_number(line)[0] or \
            strip_label(line)[0]:
        return False
    if any(is_prose(clean(raw)) for _, raw in blocks[1][:2]):
        return False
    return not any(len(b) == 1 and not is_prose(clean(b[0][1])) for b in blocks[1:])


class ListReader:
    """State for reading one list text; see :func:`read_text`.

    :meth:`run` reads it in full; :meth:`structure` then :meth:`assemble` are its two stages, and
    :mod:`site_builder.read.reread` keeps and restores what lies between them: :attr:`lines` (the text's
    lines), :attr:`flags` (the file-wide choices), :attr:`pending` (each entry's fields as a dict: ``line``,
    ``end``, ``title``, ``authors``, ``et_al``, ``track``, ``pieces`` (the abstract as ``(first line,
    [source lines])``), ``status``, ``keywords``, ``number``, ``pages``), :attr:`quoted` and
    :attr:`result` (its heading and the structure stage's diagnostics so far). :attr:`merge`, when set,
    replaces the merge of duplicates within the list."""

    def __init__(self, text: str, path: str, venue: str | None, year: int | None, explicit: bool = True):
        self.path = path
        self.explicit = explicit
        self.lines = split_lines(text)
        self.config = (venue, year)
        self.result = ListResult(path, None)
        self.pending: list[dict] = []  # each entry's fields (see above), filled by structure()
        self.flags: dict = {}  # what the structure stage found for the whole file (see structure())
        self.quoted: set[int] = set()  # lines of items whose text a structure diagnostic quotes
        self.merge = None  # assemble()'s merge of duplicates within the list (None: merge_duplicates)

    def warn(self, line: int, message: str, level: str = "warning") -> None:
        self.result.diagnostics.append(Diagnostic(self.path, line, level, message))  # type: ignore[arg-type]

    def run(self) -> ListResult:
        if self.structure():
            self.assemble()
        return self.result

    def structure(self) -> bool:
        """The structure stage: heading, blocks, items, drafts and their roles, into the entries' fields
        (:attr:`pending`, abstracts as pieces of source lines) and the diagnostics about them.
        False (with a warning) when the file holds no paper: no text, or a heading alone;
        :mod:`site_builder.read.reread` keeps what this stage found (:attr:`flags`, :attr:`quoted`)
        to read an edited list again."""
        first = next((i for i, raw in enumerate(self.lines) if clean(raw)), None)
        if first is None:
            self.warn(0, NO_PAPERS.format("it is empty or white space only"))
            return False
        start = first
        if is_heading_line(self.lines[first]):
            self.result.heading = parse_heading(self.lines[first], first + 1)
            start = first + 1
            if not any(clean(raw) for raw in self.lines[start:]):
                self.warn(first + 1, NO_PAPERS.format(f"only its heading {excerpt(self.lines[first].strip())}"))
                return False
        blocks = split_blocks(self.lines, start)
        if self.result.heading is None and unnamed_heading(blocks):
            self.result.heading = parse_heading(self.lines[first], first + 1)
            start, blocks = first + 1, blocks[1:]
        venue, year = self._venue_year()
        style, numbered = find_numbering(blocks)
        labelled = self._labelled(blocks)
        compact = is_compact(blocks)
        titled = titles_first(blocks) and not labelled
        items = sentences_as_prose(self._drop_furniture(blocks_to_items(blocks, numbered, labelled, compact, titled)))
        abstract_only = is_abstract_only(items) and not numbered and not labelled
        first_prose = next((k for k, i in enumerate(items) if i.kind == "prose"), len(items))
        pages_lead = any(i.kind == "page" for i in items[:first_prose])
        drafts = [part for d in group_drafts(items, abstract_only, bool(numbered), pages_lead)
                  for part in split_overfull(d)]
        self._build(drafts)
        self.flags = {"start": start, "numbered": numbered, "labelled": labelled, "compact": compact, "titled": titled,
                      "abstract_only": abstract_only, "venue": venue, "year": year}
        return True

    def assemble(self) -> ListResult:
        """The assembly stage, after :meth:`structure`: paragraphs of a list of abstracts alone joined
        (:mod:`site_builder.read.continuation`), the entries made from their fields and the source lines,
        the cut-off check and the duplicates within the list merged."""
        if self.flags["abstract_only"]:
            self._join_continuations()
        for fields in self.pending:
            self._emit(fields, self.flags["venue"], self.flags["year"])
        if not self.result.entries and not any(d.level == "error" for d in self.result.diagnostics):
            self.warn(0, "no paper found in the list (no abstract paragraph)", "error")
        self._check_cut_off()
        if self.merge is None:
            merge_duplicates([self.result])
        else:
            self.merge(self.result)
        return self.result

    def _check_cut_off(self) -> None:
        """Warn when the file ends inside an abstract: its last line is the last paper's, and that
        abstract stops without a full stop, question or exclamation mark (or a URL); 85 of the
        corpus's 10,448 abstracts end so, so the warning is about 1% of the time a false one."""
        entries = self.result.entries
        last = next((n for n in range(len(self.lines), 0, -1) if clean(self.lines[n - 1])), 0)  # last non-blank
        if not entries or entries[-1].end_line != last or entries[-1].path != self.path:
            return
        text = entries[-1].abstract.rstrip()
        if not re.search(r"[.!?。！？…][\"'”’)\]*_}$]*$|https?://\S+$", text):
            self.warn(last, f"the list ends mid-sentence ({excerpt(text[-40:], 40)}): the last abstract, at line "
                            f"{entries[-1].line}, may be cut off")

    def _venue_year(self) -> tuple[str | None, int | None]:
        heading = self.result.heading
        venue = heading.venue if heading and heading.venue else self.config[0]
        year = heading.year if heading and heading.year else self.config[1]
        if heading and heading.venue and self.config[0] and heading.venue.lower() != self.config[0].lower() \
                and self.explicit:
            self.warn(heading.line, f"the heading names {heading.venue} but the config gives {self.config[0]}; "
                                    f"using {heading.venue}")
        if heading and heading.year and self.config[1] and heading.year != self.config[1] and self.explicit:
            self.warn(heading.line, f"the heading names the year {heading.year} but the config gives "
                                    f"{self.config[1]}; using {heading.year}")
        if venue is None or year is None:
            where = heading.line if heading else 1
            said = f"heading {heading.text!r}" if heading else "the list has no heading and"
            self.warn(where, f"{said} names no venue and year, and the config gives none for {self.path}", "error")
        return venue, year

    def _drop_furniture(self, items: list[Item]) -> list[Item]:
        """``items`` without the lines of page furniture (:func:`~site_builder.read.lines.furniture`:
        ``Back to top``, ``收藏 | 分享 | 下载PDF``, ``共 8 篇``), each dropped with a warning that quotes it."""
        kept = []
        for item in items:
            if item.kind != "furniture":
                kept.append(item)
                continue
            self.quoted.add(item.line)
            what = "page furniture (site navigation, action words or a count)" if any(map(str.isalnum, item.text)) \
                else "symbols alone (a separator or a garbled line)"
            self.warn(item.line, f"line {excerpt(item.text)} left out: {what}, not part of a paper")
        return kept

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

    def _build(self, drafts: list[EntryDraft]) -> None:
        drafts = split_by_header_pattern(drafts)
        repeats = file_evidence(drafts)
        # pass 1: the list's layouts, from the evidence of all its entries; pass 2: each entry with them as prior
        layouts = list_layouts([header_items(draft) for draft in drafts], repeats)
        prior = layouts.counts
        titled = sum(count for key, count in prior.items() if "title" in key)  # entries with a title line
        previous: dict | None = None
        for n, draft in enumerate(drafts):
            heads = header_items(draft)
            allow_cont = previous is not None and bool(heads) and not draft.header_block and not heads[0].mark and heads[0].kind == "short" \
                and not any(i.kind == "number" for i in draft.items[:1])
            roles, margin = choose_roles(heads, repeats, prior, allow_cont) if heads else ((), 99.0)
            if allow_cont and any(r == "cont" and (author_score(h.text) >= 2.5 or _one_name(h.text))
                                  for r, h in zip(roles, heads)):
                # an author line (also of one author) never continues the abstract above (title and authors
                # with no abstract)
                roles, margin = choose_roles(heads, repeats, prior, False)
            if heads and previous is not None and all(r == "cont" for r in roles):
                self._continue(previous, draft, margin)
                continue
            if not heads and previous is not None and prior[()] < 0.1 * sum(prior.values()):
                self._continue(previous, draft, 0.0, "has no title, track or authors, unlike the other entries; "
                                                     "read as a further paragraph of the abstract above")
                continue
            self._off_layout(draft, heads, roles, margin, layouts)
            if "title" in roles and margin >= AMBIGUOUS_MARGIN and titled <= 0.1 * sum(prior.values()):
                line = heads[roles.index("title")]
                self.warn(line.line, f"line {excerpt(line.text)} read as a title, though the list's other papers "
                                     f"have none (a stray line?)")
            fields = self._fields(draft, dict(zip(map(id, heads), roles)), previous, margin)
            if fields is not None:
                previous = fields

    def _off_layout(self, draft: EntryDraft, heads: list[Item], roles: tuple, margin: float, layouts) -> None:
        """Warn when an entry is read in another layout than the list's other entries of its shape (three or
        more), naming its lines and both layouts (only when its own evidence is strong: a weak one has its own
        warning)."""
        shape = tuple(i.kind for i in heads)
        shared, own = layouts.shared.get(shape), layout_of(roles)
        if shared is None or own == shared or "cont" in roles or margin < AMBIGUOUS_MARGIN or layouts.sizes[shape] < 3:
            return
        end = max(i.end or i.line for i in draft.items)
        self.warn(draft.line, f"lines {draft.line}-{end} read as {_layout_words(own)}, unlike the list's other "
                              f"papers ({_layout_words(shared)}): the evidence of these lines is stronger")

    def _continue(self, previous: dict, draft: EntryDraft, margin: float, why: str = "") -> None:
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
        if why or margin < AMBIGUOUS_MARGIN:
            self.quoted.add(draft.items[0].line)
        if why:
            self.warn(draft.line, f"line {excerpt(draft.items[0].text)} {why}")
        elif margin < AMBIGUOUS_MARGIN:
            self.warn(draft.line, f"line {excerpt(draft.items[0].text)} read as a further paragraph of the "
                                  f"abstract above; the evidence is weak (margin {margin:.1f})")

    def _fields(self, draft: EntryDraft, roles: dict, previous: dict | None, margin: float) -> dict | None:
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
        self.pending.append(f)
        return f

    def _place(self, f: dict, item: Item, role: str | None, previous: dict | None, pending: str | None
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
            self._set(f, "title", _title_text(item), item)
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

    def _set_authors(self, f: dict, item: Item) -> None:
        names, et_al = split_authors(_field_text(item))
        if not f["authors"]:
            f["et_al"] = et_al
        self._set(f, "authors", names, item)

    def _late_paragraph(self, f: dict, item: Item) -> None:
        """A header-like line after the abstract in a numbered or labelled list: a further paragraph,
        with a warning when it looks more like a title or an author line."""
        f["pieces"].append((item.line, item.raw or [item.text]))
        text = item.text
        if author_score(text) >= 2.5 or title_score(text) >= prose_score(text) + 1.0:
            self.warn(item.line, f"line {excerpt(text)} after the abstract read as a further paragraph of it; "
                                 f"it looks like a title or author line (a missing number?)")

    def _set(self, f: dict, key: str, value, item: Item) -> None:
        if f[key]:
            self.warn(item.line, f"second {key} line {excerpt(item.text)} in one entry; keeping the first "
                                 f"({excerpt(str(f[key]))})")
            return
        f[key] = value

    def _label_field(self, f: dict, item: Item) -> None:
        name = item.field_name
        if name == "title":
            self._set(f, "title", _title_text(item), item)
        elif name == "authors":
            self._set_authors(f, item)
        elif name == "track":
            self._set(f, "track", parse_track(item.text) or ((item.text,) if item.text else ()), item)
        elif name == "keywords":
            f["keywords"] = tuple(k.strip() for k in re.split(r"[;；,，]", item.text) if k.strip())
        elif name == "status":
            f["status"] = item.text or None
        elif name == "tldr":
            self.warn(item.line, f"TL;DR line {excerpt(item.text)} left out: a paper has no TL;DR field, "
                                 f"and it is not part of the abstract")
        elif name == "submission":  # OpenReview's "Submission Number: 1234": a line of the page, not of the paper
            f["pages"].append(item.text)

    def _page(self, f: dict, item: Item) -> None:
        for word in item.words:
            status = STATUS_WORDS.get(word.lower())
            if status and f["status"] is None:
                f["status"] = status
            else:
                f["pages"].append(word)

    def _ambiguity(self, draft: EntryDraft, roles: dict, margin: float) -> None:
        for item in draft.items:
            role = roles.get(id(item))
            if role and item.kind == "short":
                name = {"abs": "abstract paragraph", "cont": "continuation of the abstract above"}.get(role, role)
                self.warn(item.line, f"line {excerpt(item.text)} read as {name}; the evidence is weak "
                                     f"(margin {margin:.1f})")

    def _no_abstract(self, draft: EntryDraft) -> None:
        texts = "; ".join(excerpt(i.text) for i in draft.items if i.kind != "number" and i.text)
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
        continues the abstract above (see :mod:`site_builder.read.continuation`).

        Round one scores paragraph against paragraph and merges from :data:`MERGE_WARN`
        (silently from :data:`MERGE`).  Round two scores the merged abstracts against each
        other, so a paragraph chain such as "We focus on …" + "Furthermore, …" is weighed as a
        whole (with :data:`CHAIN_PRIOR` added when the paper below already has several
        paragraphs); it merges from :data:`MERGE_WARN` with a warning, and a boundary still below
        that but from :data:`WARN` (in either round) keeps the paper with a warning.  A
        paragraph under a title, track, author line or number always opens its paper.  Page
        and status words stay with the last paragraph before them."""
        units = [(f, k, piece) for f in self.pending
                 for k, piece in enumerate(sorted(f["pieces"], key=lambda p: p[0]))]
        if len(units) < 2:
            return
        texts = ["\n".join(piece[1]).strip() for _, _, piece in units]
        fixed = [k == 0 and bool(f["title"] or f["authors"] or f["track"] or f["number"] is not None)
                 for f, k, _ in units]
        scores = continuation_scores(texts)
        groups, opening = self._join_paragraphs(units, texts, fixed, scores)
        final = self._join_abstracts(units, texts, fixed, groups, opening, scores)
        self.pending = [self._joined_fields(units, group) for group in final]

    def _join_paragraphs(self, units: list[tuple[dict, int, tuple]], texts: list[str], fixed: list[bool],
                         scores: list) -> tuple[list[list[int]], list]:
        """Round one of :meth:`_join_continuations`: a paragraph (``units[u]``: its entry's fields, the
        paragraph's index among that entry's pieces, the piece; ``texts[u]`` its text; ``fixed[u]`` True under
        a title, track, author line or number) joins the paper above when the boundary's score (``scores``,
        :func:`continuation_scores` of ``texts``) is at least :data:`MERGE_WARN`, with a warning below
        :data:`MERGE`. Returns the unit indexes of each paper and the boundary that opened each (None for
        the first)."""
        groups: list[list[int]] = []  # unit indexes of each paper
        opening = []  # the round-one boundary that opened each group (None for the first)
        for u, bound in enumerate([None, *scores]):
            if groups and not fixed[u] and bound.score >= MERGE_WARN:
                groups[-1].append(u)
                if bound.score < MERGE:
                    self._merged_warning(units[u][2][0], texts[u], units[groups[-1][0]][2][0], bound)
            else:
                groups.append([u])
                opening.append(bound)
        return groups, opening

    def _join_abstracts(self, units: list[tuple[dict, int, tuple]], texts: list[str], fixed: list[bool],
                        groups: list[list[int]], opening: list, scores: list) -> list[list[int]]:
        """Round two of :meth:`_join_continuations`: the papers of round one (``groups``, opened by the
        boundaries ``opening``) scored against each other as wholes (``scores`` of round one when nothing
        merged), joined from :data:`MERGE_WARN` with a warning, kept apart with a warning from :data:`WARN`.
        Returns the unit indexes of each paper."""
        merged_texts = ["\n\n".join(texts[u] for u in g) for g in groups]
        if merged_texts != texts:  # (nothing merged: the same paragraphs score the same)
            scores = continuation_scores(merged_texts)
        final: list[list[int]] = [groups[0]]
        for before, group, first, second in zip(groups, groups[1:], opening[1:], scores):
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
                self.warn(line, f"paragraph {excerpt(texts[group[0]], 40)} read as a separate paper; it may "
                                f"continue the abstract at line {above} ({why})")
            final.append(group)
        return final

    @staticmethod
    def _joined_fields(units: list[tuple[dict, int, tuple]], group: list[int]) -> dict:
        """The fields of the paper made of the paragraphs ``group`` (indexes into ``units``, as in
        :meth:`_join_paragraphs`): the header fields of its first paragraph's entry when that paragraph
        opened it, the page and status words and end line of each entry whose last paragraph it takes."""
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
        return current

    def _merged_warning(self, line: int, text: str, above: int, bound) -> None:
        why = ", ".join(_REASONS[r] for r in bound.reasons)
        self.warn(line, f"paragraph {excerpt(text, 40)} read as a further paragraph of the abstract at line "
                        f"{above}, not as a paper ({why})")


_REASONS = {"connective": "it opens with a connective", "opener": "it opens like a continuation", "short_after": "it is short",
            "short_before": "the paragraph above is short", "no_contribution": "the paragraph above states no "
            "contribution", "gap_end": "the paragraph above ends on an open problem",
            "contribution_start": "it states a contribution", "anaphor": "it refers back",
            "similar": "very similar wording", "related": "similar wording", "near": "some shared wording",
            "shared_name": "a name no other paragraph uses",
            "open_end": "the paragraph above ends mid-sentence", "parallel": "a near-copy of the paragraph above"}


def read_text(text: str, path: str, venue: str | None = None, year: int | None = None, explicit: bool = True
              ) -> ListResult:
    """Read list ``text`` (already decoded) whose diagnostics will name ``path``.

    ``venue``/``year`` (from the config) apply when the heading names none; a
    list with neither gets an error diagnostic naming the file.  Returns a
    :class:`ListResult` whose entries are in list order, duplicates within the
    list merged (with a warning).  Raises nothing for bad content.
    """
    return ListReader(text, path, venue, year, explicit).run()


def read_lists(paths: Iterable[Path | str | tuple], venue: str | None = None, year: int | None = None
               ) -> list[ListResult]:
    """Read several list files and merge papers listed in more than one (see :func:`merge_duplicates`).

    Each item of ``paths`` is a path, or ``(path, venue, year)`` to give that
    file its own config, or ``(path, venue, year, explicit)`` (``explicit`` False when they
    come from ``[default]``: see :func:`read_list`); ``venue``/``year`` apply to plain paths.  Returns one
    :class:`ListResult` per path, in order.  Raises nothing for bad content.
    """
    results = []
    for item in paths:
        path, v, y, *rest = item if isinstance(item, tuple) else (item, venue, year, False)
        results.append(read_list(Path(path), v, y, rest[0] if rest else True))
    merge_duplicates(results)
    return results
