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

import hashlib
from collections import Counter
from dataclasses import dataclass, fields, replace

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


def gram_hash(gram: str) -> int:
    """A gram's 64-bit BLAKE2b digest as an unsigned integer: the same in every process (unlike ``hash``), so an
    index can be kept between builds; two grams sharing one (about 1 in 10^13 for a 10,000-paper reference) only
    add a candidate, which rapidfuzz then scores."""
    return int.from_bytes(hashlib.blake2b(gram.encode("utf-8"), digest_size=8).digest(), "little")


#: Fields of an :class:`Entry` an index keeps (:meth:`ReferenceIndex.state`): all of them (strings, numbers, tuples).
_KEPT = tuple(f.name for f in fields(Entry))


class ReferenceIndex:
    """The entries of reference files, found by abstract (see the module doc). ``entries``: in file order;
    entries with no abstract are kept out (nothing to match them by). The 5-gram postings are two numpy arrays:
    ``hashes`` (:func:`gram_hash` of each gram, sorted) and ``owners`` (the entry of each, ascending within a
    gram), grams of more than :data:`MAX_POSTING` entries left out; a lookup is a binary search
    (``numpy.searchsorted``). :meth:`state` and :meth:`from_state` keep an index between builds."""

    def __init__(self, entries: list[Entry]) -> None:
        import numpy as np

        self.entries = [e for e in entries if e.abstract.strip()]
        self.keys = [identity_key(e.abstract, None) for e in self.entries]
        grams = [[gram_hash(g) for g in _grams(key)] for key in self.keys]  # each gram once per key
        hashes = np.fromiter((h for row in grams for h in row), dtype=np.uint64, count=sum(map(len, grams)))
        owners = np.repeat(np.arange(len(grams), dtype=np.int64), [len(row) for row in grams])
        order = np.argsort(hashes, kind="stable")  # stable: a gram's owners stay ascending
        hashes, owners = hashes[order], owners[order]
        counts = np.unique(hashes, return_counts=True)[1]
        keep = np.repeat(counts <= MAX_POSTING, counts)
        self._set(hashes[keep], owners[keep])

    def _set(self, hashes, owners) -> None:
        self.hashes, self.owners = hashes, owners
        self.exact: dict[str, int] = {}
        for n, key in enumerate(self.keys):
            self.exact.setdefault(key, n)

    def state(self) -> dict:
        """The index as a marshal-ready dict (entries as tuples of :data:`_KEPT`, keys, the arrays' bytes)."""
        return {"entries": [tuple(getattr(e, f) for f in _KEPT) for e in self.entries], "keys": self.keys,
                "hashes": self.hashes.astype("<u8").tobytes(), "owners": self.owners.astype("<i8").tobytes()}

    @classmethod
    def from_state(cls, state: dict) -> "ReferenceIndex | None":
        """The index :meth:`state` gave, or None when ``state`` is not one (a malformed cache file)."""
        import numpy as np

        try:
            entries = [Entry(**dict(zip(_KEPT, values))) for values in state["entries"]]
            keys, hashes = state["keys"], np.frombuffer(state["hashes"], dtype="<u8")
            owners = np.frombuffer(state["owners"], dtype="<i8")
        except (KeyError, TypeError, ValueError):
            return None
        if not (isinstance(keys, list) and len(keys) == len(entries) and len(hashes) == len(owners)
                and all(type(k) is str for k in keys)):
            return None
        if len(owners) and not 0 <= owners.min() <= owners.max() < len(entries):
            return None
        index = cls.__new__(cls)
        index.entries, index.keys = entries, keys
        index._set(hashes.astype(np.uint64), owners.astype(np.int64))
        return index

    def _candidates(self, key: str) -> Counter:
        """Votes for each reference entry: how many of ``key``'s grams it shares (in the grams' order)."""
        import numpy as np

        query = np.array([gram_hash(g) for g in _grams(key)], dtype=np.uint64)
        left, right = np.searchsorted(self.hashes, query, "left"), np.searchsorted(self.hashes, query, "right")
        return Counter(int(ref) for a, b in zip(left.tolist(), right.tolist()) for ref in self.owners[a:b].tolist())

    def best(self, abstract: str) -> tuple[int, float, bool] | None:
        """``(n, score, exact)``: the reference entry (``entries[n]``) whose abstract is most like ``abstract``, its
        rapidfuzz ``token_set_ratio`` (0–100; 100 for an exact match) and whether it matched exactly; None when no
        reference shares a word 5-gram with it. No threshold applied (:meth:`find` applies it)."""
        key = identity_key(abstract, None)
        n = self.exact.get(key)
        if n is not None:
            return n, 100.0, True
        votes = self._candidates(key)
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
