"""Search tokens: the one tokenizer and normaliser shared by the index (Python) and the query (JS).

``assets/search-core.js`` implements exactly the same rules for the browser;
``tests/search/test_search_tokenize.py`` checks that the two agree (through Node) on
the seeds, the corpus vocabulary and every Unicode code point class.

Rules, in order (``text`` is any string; no step ever raises):

1. Normalise (:func:`normalise`): NFKC (full-width forms, ligatures, math
   letters → plain), lower case (full mapping), NFD, drop combining marks
   (Unicode category M*, so ``Schölkopf`` = ``scholkopf``), NFC, and the Latin
   letters that have no mark to drop folded (:data:`FOLDED`: ``Łukasz`` = ``lukasz``). A text with German
   umlauts is indexed a second time transliterated (:func:`transliterated`: ``Müller`` also as ``mueller``).
2. CJK runs (Han, kana, Hangul, Bopomofo; :data:`CJK_RANGES`) become
   overlapping bigrams (``大语言模型`` → 大语 语言 言模 模型), a lone CJK
   character stays one token; the runs are then replaced by a space.
3. The rest is cut into *compounds*: runs of letters/digits (Unicode L*/N*)
   joined by single connector characters (hyphens and dashes, ``_ . / ' ’ +``),
   e.g. ``gpt-4o``, ``llama-2-7b``, ``e.g``. A compound yields its parts
   (each run, further cut before a digit that follows a non-digit:
   ``resnet50`` → ``resnet``, ``50``), each run that was so cut, and the
   joined form (``gpt4o``) when it has several runs.
4. Stop words (lunr.js 2.3.9's list, :data:`STOP_WORDS`) are dropped.
5. Plural stemming (Harman's "S" stemmer, only on ASCII letter tokens longer
   than 3): ``-ies`` → ``-y`` (not ``-eies``/``-aies``), ``-es`` → ``-e`` (not
   ``-aes``/``-ees``/``-oes``), ``-s`` → ``""`` (not ``-us``/``-ss``).

So a word copied from a paper gives, on the query side, only tokens that the
index holds for that paper, and the spelling variants ``GPT-4o``, ``gpt4o``,
``gpt 4o`` meet (the query side, :func:`query_alternatives`, accepts either
the joined form or all the parts of a compound).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from itertools import chain

#: Code point ranges (inclusive) of the scripts indexed as bigrams.
CJK_RANGES = (
    (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3031, 0x3035),
    (0x3038, 0x303C), (0x3040, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F),
    (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFF66, 0xFFDC), (0x16FE0, 0x16FFF), (0x1B000, 0x1B2FF),
    (0x20000, 0x2FA1F), (0x30000, 0x323AF),
)
#: Characters that join the runs of a compound (``gpt-4o``, ``e.g``, ``a/b``, ``don't``).
CONNECTORS = "-_./'+\u2010\u2011\u2012\u2013\u2014\u2015\u2019\u2212"
#: lunr.js 2.3.9's stop word list (lunr.stopWordFilter).
STOP_WORDS = frozenset("""
a able about across after all almost also am among an and any are as at be because been but by can cannot
could dear did do does either else ever every for from get got had has have he her hers him his how however
i if in into is it its just least let like likely may me might most must my neither no nor not of off often
on only or other our own rather said say says she should since so some than that the their them then there
these they this tis to too twas us wants was we were what when where which while who whom why will with
would yet you your
""".split())
#: A query token at least this long (in code points) also matches longer terms it starts.
PREFIX_MIN = 3

_CJK_CLASS = "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in CJK_RANGES)
CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
_CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
_CONN = re.escape(CONNECTORS)
COMPOUND = re.compile(rf"[^\W_]+(?:[{_CONN}][^\W_]+)*")
_CONNECTOR = re.compile(f"[{_CONN}]")
_DIGIT_CUT = re.compile(r"(?<=\D)(?=\d)")
_ASCII_WORD = re.compile(r"[a-z]+")


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
#: Latin letters that are not a base letter with a mark (NFD leaves them whole) → the letters a reader types for
#: them (``Łukasz`` = ``lukasz``, ``Søren`` = ``soren``, ``Straße`` = ``strasse``); ``FOLDED`` in search-core.js.
FOLDED = {"ø": "o", "ł": "l", "đ": "d", "ħ": "h", "ı": "i", "ŧ": "t", "ß": "ss", "æ": "ae", "œ": "oe", "þ": "th",
          "ð": "d"}
_FOLD = str.maketrans(FOLDED)
#: German umlauts → their transliteration (DIN 5007-2; what a reader types without them: ``Müller`` = ``Mueller``),
#: indexed beside the folded form (:func:`transliterated`); ``TRANSLITERATED`` in search-core.js.
TRANSLITERATED = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}
_TRANSLITERATE = str.maketrans(TRANSLITERATED)
_UMLAUT = re.compile("[äöüÄÖÜ]")
#: Non-ASCII runs (of NFD text) → the run without its combining marks (category M*), :data:`FOLDED` letters folded.
_UNMARKED: dict[str, str] = {}


def _strip_marks(run: re.Match) -> str:
    text = run.group()
    out = _UNMARKED.get(text)
    if out is None:  # folding before NFC is the same as after: no mark is left to compose with
        out = "".join(c for c in text if not unicodedata.category(c).startswith("M")).translate(_FOLD)
        if len(_UNMARKED) < 100_000:
            _UNMARKED[text] = out
    return out


def normalise(text: str) -> str:
    """Step 1: NFKC, lower case, combining marks removed, NFC, :data:`FOLDED` letters folded. ASCII text is only
    lower-cased."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", text).lower()
    if text.isascii():
        return text
    # Marks are never ASCII: only the non-ASCII runs are read (each once).
    return unicodedata.normalize("NFC", _NON_ASCII.sub(_strip_marks, unicodedata.normalize("NFD", text)))


def transliterated(text: str) -> str | None:
    """``text`` (NFC) with its German umlauts transliterated (:data:`TRANSLITERATED`, ``Müller`` → ``Mueller``), or
    None when it holds none. Its terms are indexed beside ``text``'s (``search/documents.py``), so ``mueller`` and
    ``muller`` both find Müller, while the query is searched as typed (``queue`` stays ``queue``)."""
    if text.isascii():
        return None
    text = unicodedata.normalize("NFC", text)
    return text.translate(_TRANSLITERATE) if _UMLAUT.search(text) else None


def stem(token: str) -> str:
    """Step 5: Harman's S stemmer on ASCII letter tokens longer than 3; others unchanged."""
    if token[-1:] != "s" or len(token) <= 3 or not _ASCII_WORD.fullmatch(token):  # every rule ends in "s"
        return token
    if token.endswith("ies") and not token.endswith(("eies", "aies")):
        return token[:-3] + "y"
    if token.endswith("es") and not token.endswith(("aes", "ees", "oes")):
        return token[:-1]
    if token.endswith("s") and not token.endswith(("us", "ss")):
        return token[:-1]
    return token


def term(token: str) -> str | None:
    """A raw token as an index term: None for a stop word, else stemmed."""
    return None if token in STOP_WORDS else stem(token)


def cjk_grams(run: str) -> list[str]:
    """Overlapping bigrams of a CJK run (the run itself when it is one character)."""
    return [run] if len(run) < 2 else [run[i:i + 2] for i in range(len(run) - 1)]


def compound_parts(compound: str) -> tuple[list[str], list[str]]:
    """``(runs, parts)`` of a compound: its connector-separated runs and those cut before digits."""
    runs = _CONNECTOR.split(compound)
    parts = [p for r in runs for p in _DIGIT_CUT.split(r)]
    return runs, parts


def _cjk_apart(text: str, pattern: re.Pattern) -> tuple[list[str], list[str]]:
    """``(cjk_runs, matches of pattern)`` in ``text`` once normalised, the CJK runs taken out first."""
    norm = normalise(text)
    runs = CJK_RUN.findall(norm)
    if runs:
        norm = CJK_RUN.sub(" ", norm)
    return runs, pattern.findall(norm)


def _split(text: str) -> tuple[list[str], list[str]]:
    """Steps 1–3 apart: ``(cjk_runs, compounds)`` of ``text``."""
    return _cjk_apart(text, COMPOUND)


_COMPOUND_TERMS: dict[str, tuple[str, ...]] = {}


def compound_terms(compound: str) -> tuple[str, ...]:
    """Index terms of one compound (step 3–5), cached: parts, cut runs, joined form."""
    cached = _COMPOUND_TERMS.get(compound)
    if cached is not None:
        return cached
    if compound.isalpha():  # one run of letters (connectors and digits are not letters): the word itself
        t = term(compound)
        result = (t,) if t else ()
        if len(_COMPOUND_TERMS) < CACHE_LIMIT:
            _COMPOUND_TERMS[compound] = result
        return result
    runs, parts = compound_parts(compound)
    if len(runs) == 1 and len(parts) == 1:
        raw = [compound]
    else:
        raw = []
        for r in runs:
            cut = _DIGIT_CUT.split(r)
            raw.extend(cut)
            if len(cut) > 1:
                raw.append(r)
        if len(runs) > 1:
            raw.append("".join(runs))
    result = tuple(t for t in map(term, raw) if t)
    if len(_COMPOUND_TERMS) < CACHE_LIMIT:
        _COMPOUND_TERMS[compound] = result
    return result


def index_tokens(text: str) -> list[str]:
    """Every index term of ``text`` in order (CJK bigrams first), repeats kept (they are the term frequencies).

    >>> index_tokens("GPT-4o beats LLaMA-2 on the tests")
    ['gpt', '4o', 'gpt4o', 'beat', 'llama', '2', 'llama2', 'test']
    """
    cjk, compounds = _split(text)
    out: list[str] = []
    for run in cjk:
        out.extend(t for t in map(term, cjk_grams(run)) if t)
    cache = _COMPOUND_TERMS
    for compound in compounds:
        terms = cache.get(compound)
        out.extend(terms if terms is not None else compound_terms(compound))
    return out


#: Maximal stretches of word characters (``\w``, i.e. letters, digits and ``_``) joined by single
#: connectors: each holds whole compounds only, and is quicker to find than the compounds.
_REGION = re.compile(rf"\w+(?:[{_CONN}]\w+)*")
#: The most distinct blobs, regions and compounds each cache keeps.
CACHE_LIMIT = 1_000_000


class _Terms(dict):
    """A cache of terms: a missing key is computed by ``compute`` and kept (up to :data:`CACHE_LIMIT` keys),
    so ``map(cache.__getitem__, keys)`` tokenizes each distinct key once, all in C but for the misses."""

    def __init__(self, compute) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, key):
        value = self.compute(key)
        if len(self) < CACHE_LIMIT:
            self[key] = value
        return value


def _region_terms(region: str) -> tuple[str, ...]:
    """The terms of one region (see :data:`_REGION`), in order."""
    return tuple(chain.from_iterable(map(compound_terms, COMPOUND.findall(region))))


_REGION_TERMS: dict[str, tuple[str, ...]] = _Terms(_region_terms)


def _regions(text: str) -> tuple[list[str], list[str]]:
    """``(cjk_runs, regions)`` of ``text`` (see :data:`_REGION`)."""
    return _cjk_apart(text, _REGION)


#: ``bytes.translate`` table of lower-case ASCII text: word characters (``\\w``) and connectors kept, other bytes
#: made spaces; the words it splits into (*blobs*) hold whole regions (:data:`_REGION`) only.
_BLOB_TABLE = bytes(c if chr(c).isalnum() or chr(c) in CONNECTORS else 32 for c in range(128)) + bytes([32] * 128)
#: The ASCII connectors: a compound neither starts nor ends with one, so a blob's terms are those of the
#: blob stripped of them at both ends (``model.`` → ``model``, ``'ours'`` → ``ours``).
_ASCII_CONNECTORS = "".join(c for c in CONNECTORS if c.isascii()).encode("ascii")


def _blob_terms(blob: bytes) -> tuple[str, ...]:
    """The terms of one blob (see :data:`_BLOB_TABLE`), in order."""
    word = blob.strip(_ASCII_CONNECTORS)
    if word.isalpha():  # one ASCII word: one region, one compound, one run
        t = term(word.decode("ascii"))
        return (t,) if t else ()
    if word is not blob:
        cached = _BLOB_TERMS.get(word)
        if cached is not None:
            return cached
    return tuple(chain.from_iterable(map(_REGION_TERMS.__getitem__, _REGION.findall(word.decode("ascii")))))


_BLOB_TERMS: dict[bytes, tuple[str, ...]] = _Terms(_blob_terms)


_WORD_CHAR = re.compile(r"\w")
_ASCII_RUNS: dict[str, str] = {}


def _asciified(run: re.Match) -> str:
    """A non-ASCII run of normalised text with its connectors made ``-`` and its other non-word characters
    spaces (the runs and regions they separate or join are the same); word characters are kept."""
    text = run.group()
    out = _ASCII_RUNS.get(text)
    if out is None:
        out = "".join("-" if c in CONNECTORS else c if _WORD_CHAR.match(c) else " " for c in text)
        if len(_ASCII_RUNS) < CACHE_LIMIT:
            _ASCII_RUNS[text] = out
    return out


def term_counts(text: str) -> dict[str, int]:
    """``{term: frequency}`` of ``text``: the same multiset as :func:`index_tokens`, counted in bulk.

    ASCII text is cut into regions by ``bytes.translate`` and ``split`` (:data:`_BLOB_TABLE`); so is
    other text once normalised, its CJK runs taken out and its non-ASCII connectors and other non-word
    characters made ASCII (:func:`_asciified`), when that leaves it ASCII; the rest by the regular
    expression :data:`_REGION`. Each distinct blob or region is tokenized once.
    """
    if text.isascii():
        return Counter(chain.from_iterable(map(_BLOB_TERMS.__getitem__,
                                               text.lower().encode("ascii").translate(_BLOB_TABLE).split())))
    norm = normalise(text)
    cjk = CJK_RUN.findall(norm)
    if cjk:
        norm = CJK_RUN.sub(" ", norm)
    if not norm.isascii():
        norm = _NON_ASCII.sub(_asciified, norm)
    if norm.isascii():
        counts = Counter(chain.from_iterable(map(_BLOB_TERMS.__getitem__,
                                                 norm.encode("ascii").translate(_BLOB_TABLE).split())))
    else:
        counts = Counter(chain.from_iterable(map(_REGION_TERMS.__getitem__, _REGION.findall(norm))))
    for run in cjk:
        counts.update(t for t in map(term, cjk_grams(run)) if t)
    return counts


def query_alternatives(word: str) -> list[list[list[str]]]:
    """The requirements of one typed word (no whitespace inside), as the JS query side builds them.

    Returns a list of requirements; each is a list of alternatives, each a list
    of terms that must all match. ``GPT-4o`` → ``[[["gpt4o"], ["gpt", "4o"]]]``.
    Used by tests and the recall script to mirror ``SearchCore.parseWord``.
    """
    cjk, compounds = _split(word)
    reqs: list[list[list[str]]] = []
    for run in cjk:
        reqs.append([cjk_grams(run)])
    for compound in compounds:
        runs, parts = compound_parts(compound)
        alts = []
        if len(parts) > 1:
            joined = term("".join(parts))
            if joined:
                alts.append([joined])
        kept = [t for t in (term(p) for p in parts) if t]
        if kept:
            alts.append(kept)
        if alts:
            reqs.append(alts)
    return reqs


def is_prefix_token(token: str) -> bool:
    """Whether a query term also matches longer terms: ``PREFIX_MIN`` code points, or one CJK character."""
    return len(token) >= PREFIX_MIN or bool(len(token) == 1 and _CJK_CHAR.match(token))
