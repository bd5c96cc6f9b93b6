"""Author identity: one person is one page, whatever the spelling in different lists.

Two spellings are the same author when their :func:`author_key` is equal: the
name NFKD-folded with accents (combining marks) removed, case-folded (Unicode
full case folding, so ``ß`` = ``ss``), and whitespace normalised, including the
spacing around hyphens (``Yi - Fan`` = ``Yi-Fan``) and after periods
(``J.Smith`` = ``J. Smith``). The display name is the most frequent spelling
(ties: the first in sorted order); the slug comes from the key; ``Paper.authors``
stay as written. "et al." and its variants are never an author.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

from . import strmemo, urls

#: Author-line words that stand for "and others", never for a person (compared on the key).
NOT_AUTHORS = frozenset({"et al", "et al.", "et. al.", "et.al.", "et. al", "etal", "等", "等人", "…", "...",
                         "and others", "others", "etc", "etc."})


ET_AL_SUFFIX = re.compile(r"\s*(?:\bet\.?\s*al\.?|等人?|…|\.\.\.)\s*$", re.I)


@strmemo.memoized("clean_name")
def clean_name(name: str) -> str:
    """``name`` without surrounding space and without a trailing "et al." / ``等`` glued to it."""
    return ET_AL_SUFFIX.sub("", name.strip()).strip()


@strmemo.memoized("author_key")  # kept across builds (see strmemo)
def author_key(name: str) -> str:
    """The identity key of author ``name``; ``""`` for a name that names nobody.

    >>> author_key("  José  GARCÍA-López ") == author_key("Jose Garcia - Lopez")
    True
    """
    text = unicodedata.normalize("NFKD", clean_name(name))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s*([-‐‑–])\s*", "-", text)  # hyphens (and dashes used as hyphens) bind tightly
    text = re.sub(r"\.\s*(?=\S)", ". ", text)  # one space after each inner period
    text = text.strip(" ,;")
    return "" if text in NOT_AUTHORS else text


def family_name(name: str) -> str:
    """The sorting name of ``name``: its last word (``"Yi-Fan Zhang"`` → ``"Zhang"``), or the whole name."""
    words = name.split()
    return words[-1] if words else name


@dataclass
class Author:
    """One person: ``key`` (identity), ``slug`` (page), ``name`` (display), ``spellings`` (with counts)
    and ``papers`` (the papers listing them, in site display order)."""

    key: str
    slug: str = ""
    spellings: Counter = field(default_factory=Counter)
    papers: list = field(default_factory=list)

    @cached_property
    def name(self) -> str:
        """The most frequent spelling; ties broken by sorted order (computed once, on first use: after
        :class:`AuthorIndex` has counted every spelling)."""
        return min(self.spellings.items(), key=lambda kv: (-kv[1], kv[0]))[0]

    @cached_property
    def path(self) -> str:
        """Site-root relative path of the author page (computed once, on first use: after
        :class:`AuthorIndex` has given the slug)."""
        return urls.author_path(self.slug)

    @property
    def sort_key(self) -> tuple[str, str]:
        """Order of the A–Z index: family name, then the whole name, both folded."""
        return (author_key(family_name(self.name)), self.key)

    @property
    def letter(self) -> str:
        """The A–Z index letter: first letter of the transliterated family name, ``#`` when none."""
        first = urls.make_slug(family_name(self.name), "")[:1].upper()
        return first if first.isalpha() else "#"

    @property
    def venues(self) -> list:
        """The venues of the author's papers, in site order without repeats."""
        return list(dict.fromkeys(p.venue for p in self.papers))


class AuthorIndex:
    """Every author of a site and the lookup from a name as written to its :class:`Author`.

    Slugs are unique: authors are given slugs in order of their key, and a slug
    already taken (two keys that transliterate alike) gets ``-2``, ``-3``, …
    """

    def __init__(self, papers: Iterable) -> None:
        by_key: dict[str, Author] = {}
        for paper in papers:
            seen: set[str] = set()
            for name in paper.authors:
                key = author_key(name)
                if not key or key in seen:
                    continue
                seen.add(key)
                author = by_key.get(key) or by_key.setdefault(key, Author(key))
                author.spellings[" ".join(clean_name(name).split())] += 1
                author.papers.append(paper)
        taken: set[str] = set()
        for key in sorted(by_key):
            base = urls.make_slug(key, "author")
            slug, n = base, 1
            while slug in taken or slug == "index":
                n += 1
                slug = f"{base}-{n}"
            taken.add(slug)
            by_key[key].slug = slug
        self._by_key = by_key
        self.authors: list[Author] = sorted(by_key.values(), key=lambda a: a.sort_key)

    def get(self, name: str) -> Author | None:
        """The author that ``name`` (as written on a paper) names, or None (e.g. for "et al.")."""
        return self._by_key.get(author_key(name))

    def by_letter(self) -> list[tuple[str, list[Author]]]:
        """The A–Z index: ``[(letter, authors sorted by family name)]``, letters in order, ``#`` last."""
        groups: dict[str, list[Author]] = {}
        for author in self.authors:
            groups.setdefault(author.letter, []).append(author)
        return sorted(groups.items(), key=lambda kv: (kv[0] == "#", kv[0]))

    def __len__(self) -> int:
        return len(self.authors)
