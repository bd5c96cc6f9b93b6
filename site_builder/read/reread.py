"""Read an edited list again from the kept state of its previous read, re-doing only what the edit touched.

A list read by :func:`reader.read_text` goes through two stages (see :class:`reader.ListReader`):
the *structure* stage (heading, blocks, items, drafts and the roles of their header lines, giving
each entry's fields, its abstract as pieces of source lines, and the diagnostics about them) and
the *assembly* stage (paragraphs of a list of abstracts alone joined, the entries made, the
cut-off check, duplicates within the list merged). The structure stage is most of the work, and
an edit of an abstract changes nothing it decides: :func:`capture` keeps what it found
(:class:`State`, plain data, so the list cache can pickle it), and :func:`reread` reads the edited
text from it. The result is exactly :func:`reader.read_text`'s, entries and diagnostics with their
lines, or None when the edit may change the structure (the caller then reads the list in full).

When the edit is one :func:`reread` takes
-----------------------------------------
The old and new texts have the same number of lines (but for blank lines after the last non-blank
one, which nothing reads: an edit of the last abstract often adds or drops a trailing blank line), the
same heading line and config defaults, and every line that differs lies in a block (a run of non-blank
lines) where

* it is blank in both texts or in neither (so the blocks are the same);
* the block cuts into the same parts (``items.split_run``), and every part
  gives the same :func:`items.block_facts`: all that the file-wide choices (numbering style,
  labels, compact layout) read from it;
* the block's items (``items.blocks_to_items`` with the file's choices) are the same in all that
  the later structure steps read: kind, lines, block, number, label, page words, track, note, and
  the text and lines of every item but a prose paragraph; of a prose paragraph only whether its
  first line reads as an author line (``_unmarked_entry`` asks);
* no structure diagnostic quotes the changed line (:attr:`reader.ListReader.quoted`).

Then every field of every entry and every structure diagnostic is the same as before, except the
source lines inside the abstract pieces that cover a changed line: each such piece line was
either the source line itself or the line as its item holds it (a number or label cut off), and is
replaced by the new one of the same kind (when the old line could be either and the new ones
differ, :func:`reread` gives up). The assembly stage then runs as in a full read, on the kept
fields. ``tests/read/test_reader_reread.py`` compares :func:`reread` with a full read after many kinds of
edit (abstract, heading, track, author and number lines, papers added and removed, continuations).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..diagnostics import Diagnostic
from .items import blocks_to_items, split_run, block_facts
from .lines import author_score
from .text import clean, split_lines
from .entries import Heading, ListResult

__all__ = ["State", "capture", "reread", "read_text", "read_list", "STATE_FORMAT"]

#: Bumped whenever the shape of :class:`State` or what it means changes.
STATE_FORMAT = 2


@dataclass
class State:
    """What the structure stage of one read found, as plain data (lists, tuples, dicts, strings, numbers).

    ``lines``: the text read, cut into lines; ``config``: ``[venue, year, explicit]`` as given to the
    reader; ``flags``: the file-wide choices (``start`` index of the first line after the heading,
    ``numbered`` lines as a sorted list, ``labelled``, ``compact``, ``abstract_only``, ``venue``,
    ``year``); ``heading``: the :class:`Heading` fields or None; ``pending``: each entry's fields
    (``pieces`` as ``[first line, [lines]]``); ``diagnostics``: the structure stage's, as
    ``[path, line, level, message]``; ``quoted``: lines whose item text a diagnostic quotes.
    """

    lines: list
    config: list
    flags: dict
    heading: list | None
    pending: list
    diagnostics: list
    quoted: list

    def to_plain(self) -> dict:
        """The state as a dict of plain data (lists, tuples, dicts, strings, numbers, None: for the list cache)."""
        return {"layout": STATE_FORMAT, "lines": self.lines, "config": self.config, "flags": self.flags,
                "heading": self.heading, "pending": self.pending, "diagnostics": self.diagnostics,
                "quoted": self.quoted}

    @classmethod
    def from_plain(cls, data: dict) -> "State | None":
        """The state of :meth:`to_plain`'s dict; None when it is of another format or malformed."""
        try:
            if data.get("layout") != STATE_FORMAT:
                return None
            state = cls(data["lines"], data["config"], data["flags"], data["heading"], data["pending"],
                        data["diagnostics"], data["quoted"])
        except (KeyError, TypeError, AttributeError):
            return None
        if not (isinstance(state.lines, list) and isinstance(state.pending, list) and isinstance(state.flags, dict)):
            return None
        return state


def capture(reading, config: tuple) -> State | None:
    """The :class:`State` of a :class:`reader.ListReader` right after its structure stage
    (:meth:`reader.ListReader.structure` returned True), before :meth:`~reader.ListReader.assemble`;
    ``config`` is ``(venue, year, explicit)`` as given to it. None when there is nothing to keep."""
    if not reading.flags:
        return None
    flags = dict(reading.flags)
    flags["numbered"] = sorted(flags["numbered"])
    heading = reading.result.heading
    pending = [{**f, "authors": tuple(f["authors"]), "track": tuple(f["track"]), "pages": list(f["pages"]),
                "pieces": [(first, list(lines)) for first, lines in f["pieces"]]} for f in reading.pending]
    return State(list(reading.lines), list(config), flags,
                 [heading.text, heading.venue, heading.year, heading.line] if heading else None, pending,
                 [[d.path, d.line, d.level, d.message] for d in reading.result.diagnostics],
                 sorted(reading.quoted))


def _extent(lines: list[str], index: int, start: int) -> tuple[int, int]:
    """The block (run of non-blank lines at or after index ``start``) holding the non-blank line at
    ``index``, as ``[low, high)`` indexes."""
    low = index
    while low - 1 >= start and clean(lines[low - 1]):
        low -= 1
    high = index + 1
    while high < len(lines) and clean(lines[high]):
        high += 1
    return low, high


def _signature(item) -> tuple:
    """What the structure steps after ``blocks_to_items`` read from an item (see the module docstring)."""
    common = (item.kind, item.line, item.end, item.block, item.field_name, item.number, item.mark, item.words,
              item.track, item.note, len(item.raw))
    if item.kind == "prose":
        return common + (author_score(item.text) >= 2.5,)
    return common + (item.text, tuple(item.raw))


def _item_lines(items) -> dict[int, str]:
    """Line number → the line as its item holds it (its raw line, or its text when it keeps none)."""
    out: dict[int, str] = {}
    for item in items:
        if item.raw:
            for k, raw in enumerate(item.raw):
                out.setdefault(item.line + k, raw)
        elif item.kind != "number":
            out.setdefault(item.line, item.text)
    return out


def reread(state: State, text: str, path: str, venue: str | None, year: int | None, explicit: bool = True,
           merge: Callable[[ListResult], None] | None = None) -> tuple[ListResult, State] | None:
    """Read list ``text`` (decoded, controls removed, as :func:`reader.read_text` takes it) from the
    ``state`` of a previous read of the same ``path`` (see the module docstring).

    Returns the :class:`ListResult` :func:`reader.read_text` would give (before the diagnostics of
    removed control characters, which :func:`reader.read_list` puts first) and the state of this
    read (for the next edit), or None when the edit is not one this function takes (nothing is
    changed then). ``merge``, when given, replaces the merge of duplicates within the list (it must
    do what :func:`reader.merge_duplicates` does on ``[result]``).
    """
    from .plaintext import ListReader  # the reader imports nothing from here; late import keeps it so

    if list(state.config) != [venue, year, explicit]:
        return None
    old, new = state.lines, split_lines(text)
    if not _same_lines_read(old, new):
        return None
    replaced = _replaced_lines(state, old, new)
    if replaced is None:
        return None
    pending = _pending_with(state.pending, replaced)
    if pending is None:
        return None
    reading = ListReader("", path, venue, year, explicit)
    reading.lines = new
    reading.merge = merge
    reading.flags = dict(state.flags, numbered=set(state.flags["numbered"]))
    heading = state.heading
    reading.result.heading = Heading(*heading) if heading is not None else None
    reading.result.diagnostics = [Diagnostic(*row) for row in state.diagnostics]
    reading.pending = pending
    kept = State(new, state.config, state.flags, state.heading, list(pending), state.diagnostics, state.quoted)
    return reading.assemble(), kept


def _same_lines_read(old: list[str], new: list[str]) -> bool:
    """True when the texts of lines ``old`` and ``new`` have the same number of lines but for blank lines
    after the last non-blank one: lines there are read by nothing (blocks are runs of non-blank lines, the
    cut-off check looks for the last non-blank line), and an edit may add or remove them."""
    if len(old) == len(new):
        return True
    shorter = min(len(old), len(new))
    return not (any(clean(line) for line in old[shorter:]) or any(clean(line) for line in new[shorter:]))


def _replaced_lines(state: State, old: list[str], new: list[str]) -> dict[int, tuple] | None:
    """The lines that differ between ``old`` and ``new`` (the lines of the text ``state`` kept and of the
    edited one), as ``{line number: (old source, new source, old item line, new item line)}`` (an item line
    None when no item holds that line; see :func:`_item_lines`); None when an edit may change the
    structure (see the module docstring). Blank lines that stay blank are left out."""
    flags = state.flags
    start = flags["start"]
    quoted = set(state.quoted)
    numbered = set(flags["numbered"])
    changed = [i for i, (a, b) in enumerate(zip(old, new)) if a is not b and a != b]
    replaced: dict[int, tuple[str, str, str | None, str | None]] = {}
    done: set[int] = set()
    for index in changed:
        if index in done:
            continue
        if index < start or (index + 1) in quoted or bool(clean(old[index])) != bool(clean(new[index])):
            return None
        if not clean(old[index]):
            done.add(index)
            continue  # blank in both: between blocks, only its blankness is read
        low, high = _extent(old, index, start)
        if _extent(new, index, start) != (low, high):
            return None
        block = _block_change(old, new, low, high, numbered, flags, quoted)
        if block is None:
            return None
        replaced.update(block)
        done.update(range(low, high))
    return replaced


def _block_change(old: list[str], new: list[str], low: int, high: int, numbered: set[int], flags: dict,
                  quoted: set[int]) -> dict[int, tuple] | None:
    """The changed lines (as :func:`_replaced_lines` gives them) of the block at indexes ``[low, high)``,
    the same in ``old`` and ``new``; None when the edit may change what the structure stage reads from
    the block: its numbered parts, their :func:`block_facts`, its items' :func:`_signature`, or a line a
    diagnostic quotes (``quoted``)."""
    blocks = [split_run([(n + 1, lines[n]) for n in range(low, high)]) for lines in (old, new)]
    if [[n for n, _ in p] for p in blocks[0]] != [[n for n, _ in p] for p in blocks[1]]:
        return None
    if [block_facts(p) for p in blocks[0]] != [block_facts(p) for p in blocks[1]]:
        return None
    items = [blocks_to_items(parts, numbered, flags["labelled"], flags["compact"], flags["titled"]) for parts in blocks]
    if list(map(_signature, items[0])) != list(map(_signature, items[1])):
        return None
    held = [_item_lines(i) for i in items]
    replaced = {}
    for n in range(low, high):
        if old[n] != new[n]:
            if (n + 1) in quoted:
                return None
            replaced[n + 1] = (old[n], new[n], held[0].get(n + 1), held[1].get(n + 1))
    return replaced


def _pending_with(pending: list[dict], replaced: dict[int, tuple]) -> list[dict] | None:
    """The kept entries' fields (``pending``, as :class:`State` holds them) with the ``replaced`` lines (as
    :func:`_replaced_lines` gives them) put into the abstract pieces that cover them; None when a piece line
    could be either the old source line or the old item line and the new ones differ.

    The assembly stage never changes the structure stage's fields (joining paragraphs makes new dicts and
    lists, :meth:`~site_builder.read.plaintext.ListReader._join_continuations`): this read and the kept
    state share them, but the changed ones."""
    out = []
    for f in pending:
        pieces = f["pieces"]
        if replaced and any(first + len(lines) > n >= first for first, lines in pieces for n in replaced):
            pieces = [_replace_lines(first, lines, replaced) for first, lines in pieces]
            if any(p is None for p in pieces):
                return None
            f = {**f, "pieces": pieces}
        out.append(f)
    return out


def read_text(text: str, path: str, venue: str | None = None, year: int | None = None, explicit: bool = True,
              merge: Callable[[ListResult], None] | None = None) -> tuple[ListResult, State | None]:
    """:func:`reader.read_text` of ``text``, and the :class:`State` to read an edit of it again
    (None when the text has nothing to keep: no line but blank ones). ``merge`` as in :func:`reread`."""
    from .plaintext import ListReader

    reading = ListReader(text, path, venue, year, explicit)
    reading.merge = merge
    if not reading.structure():
        return reading.result, None
    state = capture(reading, (venue, year, explicit))
    return reading.assemble(), state


def read_list(path: str, venue: str | None = None, year: int | None = None, explicit: bool = True,
              state: State | None = None, merge: Callable[[ListResult], None] | None = None, full: bool = True
              ) -> tuple[ListResult, State | None, bool] | None:
    """:func:`reader.read_list` of the file at ``path``, and the :class:`State` of this read; with the
    ``state`` of a previous read of the same path, read from it (:func:`reread`) when the edit allows.
    Returns ``(result, state, reread)``, ``reread`` True when the state was used; without ``full``, None
    instead of a full read of the text (when the edit is not one :func:`reread` takes). Raises nothing for
    bad content (as :func:`reader.read_list`)."""
    from .plaintext import ReadError, read_error
    from .text import decode_list

    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return ListResult(name, None, [], [Diagnostic(name, 0, "error", f"cannot read the file: {exc.strerror or exc}")]
                          ), None, False
    try:
        text, removed = decode_list(data, name)
    except ReadError as exc:
        return ListResult(name, None, [], [read_error(name, exc)]), None, False
    again = reread(state, text, name, venue, year, explicit, merge) if state is not None else None
    if again is None and not full:
        return None
    if again is not None:
        result, kept = again
    else:
        result, kept = read_text(text, name, venue, year, explicit, merge)
    result.diagnostics[:0] = removed
    return result, kept, again is not None


def _replace_lines(first: int, lines: list, replaced: dict) -> tuple | None:
    """Piece ``(first, lines)`` with its changed lines replaced (see :func:`reread`); None when ambiguous."""
    out = list(lines)
    for k, value in enumerate(lines):
        change = replaced.get(first + k)
        if change is None:
            continue
        old_source, new_source, old_held, new_held = change
        choices = set()
        if value == old_source:
            choices.add(new_source)
        if old_held is not None and value == old_held:
            choices.add(new_held)
        if len(choices) != 1:
            return None
        out[k] = choices.pop()
    return (first, out)
