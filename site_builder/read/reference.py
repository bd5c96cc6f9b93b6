"""Reference metadata for pasted lists: a list's papers take title, authors, links and keywords from reference files.

A list may name reference files in ``site.toml`` (``[lists."iclr.txt"] reference = ["refs/iclr2025.json"]``),
files of the same papers in any list format (:mod:`site_builder.read.formats`) that are not lists of the site.
:func:`fill` matches each entry of the list to a reference entry by its abstract:

1. exactly: the same text after normalising Unicode (NFKC), case, white space, punctuation and TeX markup
   (:func:`~site_builder.read.duplicates.identity_key`, the key that makes two list entries the same paper);
2. else nearly: the reference entries sharing at least one word 5-gram with the abstract (an inverted index of
   the 5-grams, a 5-gram shared by more than :data:`MAX_POSTING` references is skipped, so no abstract is
   compared with every reference: never a quadratic scan) are scored, most shared 5-grams first, at most
   :data:`CANDIDATES` of them, by rapidfuzz's ``token_set_ratio`` (https://rapidfuzz.github.io/RapidFuzz/);
   the best at or above :data:`THRESHOLD` matches (the threshold measured by ``scripts/reference_threshold.py`` on
   copy-paste damage and hard negatives, BENCHMARKS.md).

A matched entry takes the reference's title, authors (and "et al."), keywords, DOI, landing page and code links
where the list gives none; what the list gives wins, and a title or author list that disagrees with the
reference's (after normalising) is a warning naming both. An unmatched entry stays as it was (its title is
derived from the abstract).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from ..diagnostics import Diagnostic
from .duplicates import identity_key
from .entries import Entry
from .text import excerpt

#: The least rapidfuzz ``token_set_ratio`` (0–100) of two abstracts taken as the same paper's: the best F1 (and
#: F0.5) on ``scripts/reference_threshold.py``'s labelled set, precision 99.78 %, recall 99.78 % (BENCHMARKS.md).
THRESHOLD = 85.0
#: Word n-gram length of the candidate index, and the most references a gram may point to.
GRAM = 5
MAX_POSTING = 8
#: The most candidates scored per abstract.
CANDIDATES = 5


@dataclass
class Matched:
    """What :func:`fill` did: ``exact`` and ``near`` matches, ``unmatched`` entries, by count."""

    exact: int = 0
    near: int = 0
    unmatched: int = 0

    @property
    def matched(self) -> int:
        """Entries matched either way."""
        return self.exact + self.near


def _grams(key: str) -> list[str]:
    """The word :data:`GRAM`-grams of a normalised key, each once, in order (order fixes the ties: deterministic)."""
    words = key.split()
    return list(dict.fromkeys(" ".join(words[i:i + GRAM]) for i in range(max(1, len(words) - GRAM + 1))))


class ReferenceIndex:
    """The entries of reference files, found by abstract (see the module doc). ``entries``: in file order;
    entries with no abstract are kept out (nothing to match them by)."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = [e for e in entries if e.abstract.strip()]
        self.keys = [identity_key(e.abstract, None) for e in self.entries]
        self.exact: dict[str, int] = {}
        for n, key in enumerate(self.keys):
            self.exact.setdefault(key, n)
        postings: dict[str, list[int]] = {}
        for n, key in enumerate(self.keys):
            for gram in _grams(key):
                postings.setdefault(gram, []).append(n)  # each gram once per key: a reference once per posting
        self.postings = {gram: refs for gram, refs in postings.items() if len(refs) <= MAX_POSTING}

    def best(self, abstract: str) -> tuple[int, float, bool] | None:
        """``(n, score, exact)``: the reference entry (``entries[n]``) whose abstract is most like ``abstract``, its
        rapidfuzz ``token_set_ratio`` (0–100; 100 for an exact match) and whether it matched exactly; None when no
        reference shares a word 5-gram with it. No threshold applied (:meth:`find` applies it)."""
        key = identity_key(abstract, None)
        n = self.exact.get(key)
        if n is not None:
            return n, 100.0, True
        votes = Counter(ref for gram in _grams(key) for ref in self.postings.get(gram, ()))
        if not votes:
            return None
        from rapidfuzz import fuzz

        scored = [(fuzz.token_set_ratio(key, self.keys[ref]), -ref) for ref, _ in votes.most_common(CANDIDATES)]
        score, ref = max(scored)
        return -ref, score, False

    def find(self, abstract: str, threshold: float | None = None) -> tuple[Entry, bool] | None:
        """``(reference entry, exact)`` whose abstract matches ``abstract`` (:meth:`best`, exactly or at a score of at
        least ``threshold``, default :data:`THRESHOLD`), or None."""
        found = self.best(abstract)
        if found is None or not found[2] and found[1] < (THRESHOLD if threshold is None else threshold):
            return None
        return self.entries[found[0]], found[2]


def _same(a: str, b: str) -> bool:
    return identity_key(a, None) == identity_key(b, None)


def _merged(entry: Entry, ref: Entry, diagnostics: list[Diagnostic]) -> Entry:
    """``entry`` with the fields it lacks taken from ``ref``; a disagreeing title or author list is a warning."""
    name = f"{ref.path}:{ref.line}"
    if entry.title and ref.title and not _same(entry.title, ref.title):
        diagnostics.append(Diagnostic(entry.path, entry.line, "warning",
                                      f"the list's title {excerpt(entry.title, 60)!r} differs from the reference's "
                                      f"{excerpt(ref.title, 60)!r} ({name}); keeping the list's"))
    if entry.authors and ref.authors and not _same(" ".join(entry.authors), " ".join(ref.authors)):
        diagnostics.append(Diagnostic(entry.path, entry.line, "warning",
                                      f"the list's authors ({excerpt(', '.join(entry.authors), 60)}) differ from the "
                                      f"reference's ({excerpt(', '.join(ref.authors), 60)}, {name}); keeping the list's"))
    authors = entry.authors or ref.authors
    return replace(entry, title=entry.title or ref.title, authors=authors,
                   et_al=entry.et_al if entry.authors else ref.et_al, keywords=entry.keywords or ref.keywords,
                   doi=entry.doi or ref.doi, url=entry.url or ref.url, code_urls=entry.code_urls or ref.code_urls)


def fill(entries: list[Entry], index: ReferenceIndex, diagnostics: list[Diagnostic],
         counts: Matched | None = None) -> list[Entry]:
    """``entries`` (of lists that name ``index``'s files) with what their reference entries give (see the
    module doc), in order; warnings go to ``diagnostics``, the numbers matched to ``counts``."""
    counts = counts if counts is not None else Matched()
    out = []
    for entry in entries:
        found = index.find(entry.abstract) if entry.abstract.strip() else None
        if found is None:
            counts.unmatched += 1
            out.append(entry)
            continue
        ref, exact = found
        if exact:
            counts.exact += 1
        else:
            counts.near += 1
        out.append(_merged(entry, ref, diagnostics))
    return out
