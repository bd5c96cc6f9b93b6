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

import hashlib
import marshal
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, chain
from typing import Iterable, Sequence

from ..config import SiteConfig
from ..incremental import strmemo
from . import urls

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
    def path(self) -> str | None:
        """Site-root relative path of the author page, or None for an author without a page of their own
        (:class:`AuthorIndex` sets it: fewer papers than its ``page_papers``); computed on first use for an
        author made outside an index (a page: after the slug is given)."""
        return urls.author_path(self.slug)

    @property
    def sort_key(self) -> tuple[str, str, str]:
        """Order of the A–Z index: family name, whole name (both folded, pinyin for a name in Chinese
        characters: :func:`display_facts`), then the key."""
        return (*display_facts(self.name)[:2], self.key)

    @cached_property
    def letter(self) -> str:
        """The A–Z index letter: first letter of the transliterated family name, ``#`` when none
        (filled in by :class:`AuthorIndex`)."""
        return display_facts(self.name)[2]

    @property
    def venues(self) -> list:
        """The venues of the author's papers, in site order without repeats."""
        return list(dict.fromkeys(p.venue for p in self.papers))


#: Per-process table: an author name as written → :func:`name_facts` (pure; cleared when it holds
#: :data:`FACTS_LIMIT` names, so a long-running preview server does not grow without bound).
_FACTS: dict[str, tuple[str, str]] = {}
FACTS_LIMIT = 1 << 18


def name_facts(name: str) -> tuple[str, str]:
    """``(key, spelling)`` of ``name`` as written, computed once per process: ``key`` is
    :func:`author_key` (``""``: names nobody), ``spelling`` the name as displayed
    (:func:`clean_name`, whitespace normalised)."""
    facts = _FACTS.get(name)
    if facts is None:
        if len(_FACTS) >= FACTS_LIMIT:
            _FACTS.clear()
        facts = _FACTS[name] = (author_key(name), " ".join(clean_name(name).split()))
    return facts


#: A name written in Chinese characters alone (CJK Unified Ideographs, their extensions and compatibility
#: forms, with an optional middle dot between parts), family name first: ``张三``, ``欧阳修``.
HAN_NAME = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+"
                      r"(?:[·・][\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+)*")
#: Two-character family names (the compound surnames of the Hundred Family Surnames, 百家姓, still in use).
COMPOUND_SURNAMES = frozenset("""欧阳 司马 上官 诸葛 东方 皇甫 尉迟 公孙 慕容 令狐 长孙 宇文 司徒 夏侯 轩辕 端木 独孤
南宫 西门 百里 呼延 澹台 公冶 太史 申屠 闻人 万俟 钟离 宗政 濮阳 淳于 单于 赫连 东郭 仲孙 鲜于 闾丘 亓官""".split())
#: Family names read otherwise than the character's commonest reading (as the 百家姓 reads them):
#: pypinyin gives 曾 "ceng", the name is "Zeng".
SURNAME_READINGS = {"曾": "zeng", "单": "shan", "解": "xie", "仇": "qiu", "朴": "piao", "查": "zha", "区": "ou",
                    "盖": "ge", "乐": "yue", "缪": "miao", "覃": "qin", "翟": "zhai", "秘": "bi", "种": "chong",
                    "重": "chong", "员": "yun", "尉迟": "yu chi", "万俟": "mo qi", "单于": "chan yu", "长孙": "zhang sun",
                    "薄": "bo", "燕": "yan", "召": "shao", "折": "she", "隗": "wei", "繁": "po", "宓": "fu", "过": "guo"}


def han_reading(name: str) -> tuple[str, str] | None:
    """``(family, whole)`` pinyin of a name written in Chinese characters, family name first, without tones
    and in lower case, the whole name given name first as the lists write names in Latin letters (``"张三"`` →
    ``("zhang", "san zhang")``, ``"曾小明"`` → ``("zeng", "xiao ming zeng")``, ``"欧阳修"`` →
    ``("ou yang", "xiu ou yang")``), or None for any other name (Latin letters, kana, hangul,
    a space inside). Readings by pypinyin (``lazy_pinyin``, ``Style.NORMAL``), the family name's from
    :data:`SURNAME_READINGS` where it is read otherwise; a compound surname (:data:`COMPOUND_SURNAMES`) is the
    family name when the name has a given name after it."""
    if not HAN_NAME.fullmatch(name):
        return None
    from pypinyin import lazy_pinyin  # here: its dictionaries take ~0.14 s to load, and most sites never need them

    cut = 2 if name[:2] in COMPOUND_SURNAMES and len(name) > 2 else 1
    family = SURNAME_READINGS.get(name[:cut]) or " ".join(lazy_pinyin(name[:cut]))
    given = " ".join(lazy_pinyin(name[cut:].replace("·", " ").replace("・", " ")))
    return family, f"{given} {family}".strip()


def display_facts(name: str) -> tuple[str, str, str]:
    """``(family key, whole key, letter)`` of an author whose display name is ``name``: the A–Z index orders
    authors by family key, then whole key, then :func:`author_key`, and groups them by letter
    (:attr:`Author.letter`). For a name in Latin (or other) letters, the family key is the
    :func:`author_key` of :func:`family_name`, the whole key its :func:`author_key`, the letter the first of
    the transliterated family name (``#`` when none). For a name in Chinese characters, the keys are its
    pinyin (:func:`han_reading`): ``张三`` is under Z, beside ``San Zhang`` (still another author unless the
    lists write them alike)."""
    if reading := han_reading(name):
        family, whole = reading
    else:
        family, whole = author_key(family_name(name)), author_key(name)
    first = family[:1].upper() if reading else urls.make_slug(family_name(name), "")[:1].upper()
    return family, whole, first if first.isascii() and first.isalpha() else "#"


#: The papers an author needs for a page of their own (``author_page_papers`` in ``site.toml``): an author of
#: one paper is named on it, and the A–Z index links the name to the search for it (issue 25: such pages were
#: 3.4 kB a paper of the site, and three in four authors write one paper of a list).
PAGE_PAPERS = SiteConfig.author_page_papers


def page_path(slug: str, papers: int, page_papers: int) -> str | None:
    """The page of an author with ``slug`` and ``papers`` papers: ``authors/<slug>.html``, or None when
    ``papers < page_papers`` (no page of their own)."""
    return urls.author_path(slug) if papers >= page_papers else None


class AuthorIndex:
    """Every author of a site and the lookup from a name as written to its :class:`Author`.

    Slugs are unique: authors are given slugs in order of their key, and a slug
    already taken (two keys that transliterate alike) gets ``-2``, ``-3``, …; every author has a slug,
    and those with at least ``page_papers`` papers a page (:attr:`Author.path`, None for the others), so an
    author keeps the slug when a page comes. Each author's display name and letter are filled in here
    (:func:`display_facts`).
    """

    def __init__(self, papers: Iterable, page_papers: int = PAGE_PAPERS) -> None:
        by_key: dict[str, Author] = {}
        numbers: dict[str, list[int]] = {}  # each author's papers as positions in papers (for saved)
        get, facts_of, new, counter = by_key.get, _FACTS.get, Author.__new__, Counter.__new__
        for number, paper in enumerate(papers):
            for name in paper.authors:
                key, spelling = facts_of(name) or name_facts(name)
                author = get(key)
                if author is None:
                    if not key:  # names nobody ("et al.")
                        continue
                    author = by_key[key] = new(Author)  # fields set directly: no dataclass __init__ per author
                    spellings = counter(Counter)
                    spellings[spelling] = 1
                    fields = author.__dict__
                    fields["key"], fields["spellings"], fields["papers"] = key, spellings, [paper]
                    numbers[key] = [number]
                    continue
                papers_of = author.papers
                if papers_of[-1] is not paper:  # the same person twice on one paper is counted once
                    papers_of.append(paper)
                    numbers[key].append(number)
                    spellings = author.spellings
                    spellings[spelling] = spellings.get(spelling, 0) + 1
        taken: set[str] = set()
        make_slug = urls.make_slug
        for key in sorted(by_key):
            base = make_slug(key, "author")
            slug, n = base, 1
            while slug in taken or slug == "index":
                n += 1
                slug = f"{base}-{n}"
            taken.add(slug)
            author = by_key[key]
            author.slug = slug
            # the cached property, set at once (no lock per use)
            author.__dict__["path"] = page_path(slug, len(author.papers), page_papers)
        order = []
        for author in by_key.values():
            spellings = author.spellings
            if len(spellings) == 1:
                name = next(iter(spellings))
            else:
                name = min(spellings.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            family, whole, letter = display_facts(name)
            fields = author.__dict__
            fields["name"] = name
            fields["letter"] = letter
            order.append(((family, whole, author.key), author))
        order.sort(key=lambda pair: pair[0])
        self._by_key = by_key
        self._numbers: dict[str, list[int]] | None = numbers
        self.authors: list[Author] = [author for _, author in order]

    @classmethod
    def from_saved(cls, papers: Sequence, saved: object, page_papers: int = PAGE_PAPERS) -> AuthorIndex | None:
        """The index :meth:`saved` gave for ``papers`` (the same sequence: :func:`input_digest` equal), or
        None when ``saved`` is not such a record (any malformed part). The same authors, fields and order
        as ``AuthorIndex(papers, page_papers)``, without computing one name again."""
        try:
            columns = [saved[name] for name in ("keys", "slugs", "names", "letters", "spellings", "papers")]  # type: ignore[index]
            if len({len(column) for column in columns}) != 1 or not all(type(c) is list for c in columns):
                return None
            keys, slugs, names, letters = columns[:4]
            # every key, slug, name and letter a str, no key twice (checked for all at once: C loops)
            if not set(map(type, chain(keys, slugs, names, letters))) <= {str} or len(set(keys)) != len(keys):
                return None
            # every author's papers looked up at once (in C), each author's list a slice of them
            lengths = list(map(len, columns[5]))
            numbers = list(chain.from_iterable(columns[5]))
            if (lengths and min(lengths) == 0) or (numbers and min(numbers) < 0):
                return None
            found = list(map(papers.__getitem__, numbers))
            ends = list(accumulate(lengths))
            index = cls.__new__(cls)
            authors: list[Author] = []
            new, counter, text = Author.__new__, Counter.__new__, str
            for key, slug, name, letter, spellings_of, count_of, end in zip(
                    keys, slugs, names, letters, columns[4], lengths, ends):
                spellings = counter(Counter)
                if spellings_of:
                    for spelling, count in spellings_of:
                        spellings[text(spelling)] = int(count)
                    if name not in spellings:
                        return None
                else:  # one spelling, the name: on each of the author's papers
                    spellings[name] = count_of
                author = new(Author)  # fields set directly: no dataclass __init__ per author
                author.__dict__ = {"key": key, "slug": slug, "spellings": spellings, "name": name, "letter": letter,
                                   "papers": found[end - count_of:end],
                                   "path": page_path(slug, count_of, page_papers)}
                authors.append(author)
            by_key = dict(zip(keys, authors))
        except (TypeError, ValueError, KeyError, IndexError):
            return None
        index._by_key, index.authors, index._numbers = by_key, authors, None
        return index

    def saved(self, papers: Sequence) -> dict:
        """This index of ``papers`` as JSON-ready data for :meth:`from_saved`: one list per field, each with
        one item per author (in index order): ``keys``, ``slugs``, ``names``, ``letters``, ``spellings``
        (``[[spelling, count], …]``, or 0 for an author whose only spelling is the name) and ``papers``
        (positions in ``papers``)."""
        authors = self.authors
        numbers = self._numbers
        if numbers is None or len(numbers) != len(authors):
            position = {id(paper): n for n, paper in enumerate(papers)}
            numbers = {a.key: [position[id(p)] for p in a.papers] for a in authors}
        return {"keys": [a.key for a in authors], "slugs": [a.slug for a in authors],
                "names": [a.name for a in authors], "letters": [a.letter for a in authors],
                "spellings": [list(a.spellings.items()) if len(a.spellings) > 1 else 0 for a in authors],
                "papers": [numbers[a.key] for a in authors]}

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


def input_digest(papers: Iterable) -> str:
    """Hex SHA-256 of everything :class:`AuthorIndex` reads of ``papers``: each paper's authors as
    written, in order, serialised by :mod:`marshal` version 2 (unambiguous: it loads back to the same
    values; version 2 writes every string in full, so the bytes depend on the values alone, not on which
    strings are shared objects, as versions 3 and later would; six times faster than JSON)."""
    return hashlib.sha256(marshal.dumps([paper.authors for paper in papers], 2)).hexdigest()


#: The author index file in the cache (a marshal file, see :class:`~site_builder.incremental.store.Store`:
#: loads in half the time of the same data as JSON).
AUTHORS_STATE = "authors.marshal"


def cached_index(papers: Sequence, cache, page_papers: int = PAGE_PAPERS) -> AuthorIndex:
    """``AuthorIndex(papers, page_papers)``, taken from ``<cache>/authors.marshal`` when that holds the index of papers
    with the same authors in the same order (:func:`input_digest`) for this code version, else computed
    and saved there (:meth:`Store.cached <site_builder.incremental.store.Store.cached>`). ``cache``: a
    :class:`~site_builder.incremental.cache.BuildCache` (None or disabled: computed). A corrupt file is a cache
    warning and is rewritten; the index is the same either way (``tests/model/test_model_incremental.py``).
    The index keeps that digest as ``input_digest`` (for :func:`~site_builder.model.bibtex.cached_keys`)."""
    if cache is None or not cache.enabled:
        return AuthorIndex(papers, page_papers)
    digest = input_digest(papers)
    index = cache.store.cached(AUTHORS_STATE, digest, lambda: AuthorIndex(papers, page_papers),
                               lambda i: i.saved(papers),
                               lambda saved: AuthorIndex.from_saved(papers, saved, page_papers), "an author index")
    index.input_digest = digest
    return index
