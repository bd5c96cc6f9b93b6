"""List reader, stage 5: one paper listed twice, in one list or in two, is read once."""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import replace

from ..diagnostics import Diagnostic
from .entries import Entry, ListResult
from .text import excerpt

#: Hex digits of a paper id (:func:`paper_id`).
ID_LENGTH = 10


class _Separators(dict):
    """``str.translate`` table: every character that is not a letter or digit (``str.isalnum``:
    exactly what ``re``'s ``\\w`` matches, minus ``_``) maps to a space; filled as characters are met."""

    def __missing__(self, code: int) -> int | str:
        value = code if chr(code).isalnum() else " "
        self[code] = value
        return value


_SEPARATORS = _Separators()


def _key(text: str) -> str:
    """``text`` NFKC-normalised and case-folded, each run of non-alphanumerics (``[\\W_]+``) one
    space, no space at the ends. (The same as ``re.sub(r"[\\W_]+", " ", …).strip()``, at 40 % less
    CPU: no alphanumeric character is white space, so ``split`` cuts exactly at the runs.)"""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().translate(_SEPARATORS).split())


#: ``(abstract, title) → identity key`` of the entries of the last :func:`merge_duplicates` call:
#: the list cache and the model ask again for the keys of the entries just merged (one list's worth
#: of strings at most is kept alive; the function is pure, so a remembered key is never stale).
_RECENT: dict[tuple[str, str | None], str] = {}


def identity_key(abstract: str, title: str | None) -> str:
    """What makes two entries the same paper: the abstract with case, punctuation and white
    space ignored; for a short abstract (under 40 characters so normalised) with a title,
    the title instead. Shared by :func:`merge_duplicates` and the model's paper id."""
    key = _RECENT.get((abstract, title))
    if key is not None:
        return key
    key = _key(abstract)
    return "title:" + _key(title) if len(key) < 40 and title else key


def _venue(entry: Entry) -> str:
    return f"{entry.venue or '?'} {entry.year or '?'}"


def merge_duplicates(results: list[ListResult]) -> None:
    """Merge papers listed twice, in one list or across ``results`` (in place).

    Two entries are the same paper when their abstracts agree after case,
    punctuation and white space are ignored (or, with short abstracts, their
    titles do).  The first keeps its place and gains fields only the second
    has; the second is dropped with a warning naming both places (and, when their
    venue or year differ, both venues and the one kept: the first's).
    """
    global _RECENT
    seen: dict[str, tuple[ListResult, int]] = {}
    recent: dict[tuple[str, str | None], str] = {}
    for result in results:
        kept: list[Entry] = []
        for entry in result.entries:
            key = recent[entry.abstract, entry.title] = identity_key(entry.abstract, entry.title)
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
                status=first.status or entry.status, keywords=first.keywords or entry.keywords,
                doi=first.doi or entry.doi, url=first.url or entry.url, code_urls=first.code_urls or entry.code_urls)
            conflict = ""
            if (first.venue, first.year) != (entry.venue, entry.year):
                conflict = (f", but the lists disagree on its venue: {_venue(entry)} here, {_venue(first)} there; "
                            f"keeping {_venue(first)}")
            result.diagnostics.append(Diagnostic(
                entry.path, entry.line, "warning",
                f"the same paper as {first.path}:{first.line} ({excerpt(first.title or first.abstract, 40)}); "
                f"read once{conflict}"))
        result.entries = kept
    _RECENT = recent


def paper_id(entry: Entry) -> str:
    """Stable id of a paper: the first 10 hex digits of SHA-1 over its identity key.

    The key (:func:`identity_key`: the abstract NFKC-normalised,
    case-folded, letters and digits only; the title for a very short abstract)
    makes the id survive re-wrapping, spacing and quoting changes, and adding
    lists or papers never changes it.
    """
    norm = identity_key(entry.abstract, entry.title).replace(" ", "")
    return hashlib.sha1(norm.encode("utf-8")).hexdigest()[:ID_LENGTH]
