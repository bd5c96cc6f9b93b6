"""The curator's notes: one Markdown file per paper, with a small front matter block.

Format (``notes/*.md``, UTF-8)::

    ---
    paper: 3a1b2c3d4e            # the paper's id, or its slug
    status: reading              # to-read | reading | read
    tags: [theory, bounds]       # or `tags: theory, bounds`, or a `- item` list below `tags:`
    rating: 4                    # optional, 1–5
    ---
    Markdown body, rendered like an abstract (no raw HTML).

The front matter is parsed here rather than with PyYAML/python-frontmatter:
only four flat keys are needed, YAML's implicit typing would silently turn
values such as ``no`` or ``2024-01-01`` into other types, and a parser of
our own reports every problem as ``path:line: warning: …`` at the exact line
(unknown key, bad status or rating, unknown paper, missing ``---``). A note with
problems is skipped or partly used, never a crash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..i18n import N_
from ..diagnostics import Diagnostics
from ..text.render import render_abstract

STATUSES = (N_("to-read"), N_("reading"), N_("read"))  # page words too: the templates translate them
KEYS = ("paper", "status", "tags", "rating")
_STATUS_ALIASES = {"toread": "to-read", "to read": "to-read", "to_read": "to-read", "unread": "to-read"}


@dataclass(frozen=True)
class Note:
    """A note on one paper: where it was read, the paper's id, status, tags, rating and rendered body."""

    path: str
    line: int
    paper_id: str
    status: str | None
    tags: tuple[str, ...]
    rating: int | None
    body: str
    html: str


@dataclass(frozen=True)
class FrontMatter:
    """The parsed block: ``{key: (value, line)}`` (value a str or a list of str) and the body's first line."""

    fields: dict
    body: str
    body_line: int


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _strip_comment(value: str) -> str:
    return re.sub(r"\s+#.*$", "", value) if not value.lstrip().startswith(("'", '"')) else value


def split_list(value: str) -> list[str]:
    """Items of ``a, b`` or ``[a, "b"]`` (empty items dropped)."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return [_unquote(v) for v in value.split(",") if _unquote(v)]


def parse_front_matter(text: str, path: str, diagnostics: Diagnostics) -> FrontMatter | None:
    """Parse the ``---`` block at the start of ``text``; None (with a warning) when there is none or it never ends."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        diagnostics.warning(path, 1, "note has no front matter: the first line must be `---`")
        return None
    fields: dict[str, tuple] = {}
    current_list: str | None = None
    outer, diagnostics = diagnostics, Diagnostics()  # line warnings count only once the block is closed
    for number, raw in enumerate(lines[1:], 2):
        line = raw.rstrip()
        if line.strip() == "---":
            outer.extend(diagnostics)
            return FrontMatter(fields, "\n".join(lines[number:]), number + 1)
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = re.match(r"^\s+-\s*(.*)$", line) or re.match(r"^-\s+(.*)$", line)
        if item and current_list:
            value, first = fields[current_list]
            fields[current_list] = ((value if isinstance(value, list) else []) + [_unquote(_strip_comment(item[1]))], first)
            continue
        m = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if not m:
            diagnostics.warning(path, number, f"cannot read front matter line {line.strip()!r} (expected `key: value`)")
            current_list = None
            continue
        key, value = m[1].lower(), _strip_comment(m[2]).strip()
        if key not in KEYS:
            diagnostics.warning(path, number, f"unknown front matter key {key!r} (known: {', '.join(KEYS)})")
            current_list = None
            continue
        if key in fields:
            diagnostics.warning(path, number, f"front matter key {key!r} given twice; the first is used")
            current_list = None
            continue
        fields[key] = (value, number)
        current_list = key if key == "tags" and not value else None
    outer.warning(path, 1, "front matter starts with `---` but never ends with a `---` line; note skipped")
    return None


def _status(value: str, path: str, line: int, diagnostics: Diagnostics) -> str | None:
    norm = _unquote(value).strip().lower()
    norm = _STATUS_ALIASES.get(norm, norm)
    if norm in STATUSES:
        return norm
    diagnostics.warning(path, line, f"unknown status {value!r} (expected one of: {', '.join(STATUSES)}); ignored")
    return None


def _rating(value: str, path: str, line: int, diagnostics: Diagnostics) -> int | None:
    text = _unquote(value).strip()
    if re.fullmatch(r"[1-5]", text):
        return int(text)
    diagnostics.warning(path, line, f"rating {value!r} is not a whole number from 1 to 5; ignored")
    return None


def parse_note(text: str, path: str, resolve, diagnostics: Diagnostics) -> Note | None:
    """Parse note ``text`` read from ``path``; ``resolve(ref)`` maps an id or slug to a paper id (or None).

    Returns None, with a ``path:line: warning``, when the note names no paper or an unknown one.
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    front = parse_front_matter(text, path, diagnostics)
    if front is None:
        return None
    if "paper" not in front.fields:
        diagnostics.warning(path, 1, "note names no paper (front matter needs `paper: <id or slug>`); skipped")
        return None
    ref, ref_line = front.fields["paper"]
    ref = _unquote(ref if isinstance(ref, str) else "")
    paper_id = resolve(ref)
    if paper_id is None:
        diagnostics.warning(path, ref_line, f"note names unknown paper {ref!r} (give a paper id or slug from papers.json); skipped")
        return None
    status = rating = None
    if "status" in front.fields:
        value, line = front.fields["status"]
        status = _status(value if isinstance(value, str) else ", ".join(value), path, line, diagnostics)
    if "rating" in front.fields:
        value, line = front.fields["rating"]
        rating = _rating(value if isinstance(value, str) else ", ".join(value), path, line, diagnostics)
    tags: list[str] = []
    if "tags" in front.fields:
        value = front.fields["tags"][0]
        tags = value if isinstance(value, list) else split_list(value)
    tags = list(dict.fromkeys(t.strip() for t in tags if t.strip()))
    body = front.body.strip("\n")
    html = render_abstract(body).html if body.strip() else ""
    return Note(path, 1, paper_id, status, tuple(tags), rating, body, html)


def note_files(folder: Path) -> list[Path]:
    """The note files of ``folder``: ``*.md`` at any depth, sorted by path."""
    return sorted(p for p in Path(folder).rglob("*.md") if p.is_file())


def load_notes(folder: Path | None, papers: Iterable, diagnostics: Diagnostics) -> dict[str, Note]:
    """``{paper id: Note}`` for the notes in ``folder`` (None or missing: no notes).

    A paper is named by its id or slug. A second note on the same paper is a
    warning and is skipped; unreadable files are warnings too.
    """
    if folder is None or not Path(folder).is_dir():
        return {}
    by_ref: dict[str, str] = {}
    for paper in papers:
        by_ref[paper.id] = paper.id
        by_ref[paper.slug] = paper.id
    notes: dict[str, Note] = {}
    for file in note_files(folder):
        path = str(file)
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            diagnostics.warning(path, 0, f"cannot read note: {exc}")
            continue
        note = parse_note(text, path, lambda ref: by_ref.get(ref.strip()), diagnostics)
        if note is None:
            continue
        if note.paper_id in notes:
            first = notes[note.paper_id]
            diagnostics.warning(path, 1, f"second note on paper {note.paper_id} (first: {first.path}); skipped")
            continue
        notes[note.paper_id] = note
    return notes
