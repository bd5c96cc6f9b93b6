"""Tell a further paragraph of an abstract from the next paper, in a list of abstracts alone.

In a list that gives abstracts alone (no titles, authors, numbers or labels),
every paragraph looks like a paper.  About 1% of real abstracts have two or
more paragraphs (86 of the 10,448 in the team's corpus, 119 paragraph
boundaries), and their later paragraphs must not become papers of their own.
Nothing in the layout tells them apart, so the evidence comes from the text:
features of the boundary between a paragraph (``before``) and the next one
(``after``), summed as log-odds by a logistic model:

* ``opener``: ``after`` opens with words that need a sentence before them
  (``Furthermore``, ``However``, ``Our``, ``These``, ``Here, we``, ``In
  contrast``, a lowercase letter, a bullet or item number, ``Code is available``);
* ``short_after`` / ``short_before``: a paragraph under 300 characters and
  under 0.3 times the list's median paragraph;
* ``no_contribution``: ``before`` states no contribution (no ``we``, ``our``,
  ``this paper``, ``propose``, ``present``, ``introduce``): background that
  the next paragraph answers; ``gap_end``: ``before`` ends on a gap
  (``However, …``, ``… remains a challenge``, ``… limited``);
* ``contribution_start``: the first sentence of ``after`` states one;
  ``anaphor``: it points back (``these``, ``such``, ``this framework``,
  ``the proposed``);
* ``similar`` / ``related`` / ``near``: TF-IDF cosine of the two over the
  list's paragraphs at least 0.15 / 0.10 / 0.06; ``own_words``: two or more
  words found in no other paragraph of the list; ``shared_name``: a name with
  inner capitals or digits (``SmolVLM``, ``COOL``) found in no other paragraph;
* ``open_end``: ``before`` ends with ``:``, ``,`` or ``;``.

One feature vetoes the rest: ``parallel``, the two are near-copies (word sequences at least
:data:`PARALLEL` alike by :class:`difflib.SequenceMatcher`'s ratio; checked only where ``similar``
holds): papers written from one template ("a dataset of cats …", "a dataset of dogs …") or the
same paper listed twice, never two paragraphs of one abstract (the most alike consecutive
paragraphs of the corpus's abstracts score 0.38).  Such a boundary always opens a paper (a true
duplicate is then merged by :func:`site_builder.read.duplicates.merge_duplicates`, with its warning).

The weights were fitted by logistic regression over the corpus written as
lists of 60 (``scripts/fit_continuation.py`` refits them and prints held-out
figures), except ``connective``: 21 continuations open with one and no
abstract of the 10,448 does, which the regression's L2 penalty shrinks to a
weight too small to merge on its own; it is set so that it does (log-odds
+2.3).  A feature that the list being read uses far more often than the
corpus does (more than 8 times its rate at new papers, smoothed) counts less,
so a list of one-line TL;DRs, where every paragraph is short, or a list in
another language, where none says "we", does not make every paragraph a
continuation.

:func:`continuation_scores` returns the log-odds of each boundary; the reader
merges from :data:`MERGE`, merges with a warning from :data:`MERGE_WARN`
and keeps the paragraphs apart with a warning from :data:`WARN`.
``scripts/roundtrip_corpus.py`` reports the papers caught and the warnings
on papers read correctly.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
from collections import Counter
from dataclasses import dataclass

__all__ = ["Boundary", "continuation_scores", "MERGE", "MERGE_WARN", "WARN", "CHAIN_PRIOR"]

MERGE = 2.5  # log-odds from which a paragraph is merged into the abstract above without a word (p > 0.92)
MERGE_WARN = 1.0  # merged, with a warning (p > 0.73)
WARN = -3.5  # kept as a paper, with a warning that it may continue the abstract above (p > 0.03)
# Added to the log-odds of a boundary whose next paper already has several paragraphs (merged): of the
# corpus's 86 abstracts of several paragraphs, 25 have three or more, so the paragraph opening such a
# chain is a middle paragraph about one time in five, not one in a hundred: log(0.22/0.78) - log(0.0115/0.9885).
CHAIN_PRIOR = 3.2
PARALLEL = 0.7  # word-sequence likeness from which two paragraphs are near-copies, never one abstract
PARALLEL_SCORE = -20.0  # the log-odds of a boundary between near-copies: a new paper, with no warning

# Openings that often follow a sentence ("opener"; those that need one, "connective", are in _wording).
_OPENERS = re.compile(r"^(?:our|in contrast|overall|extensive (?:experiments|evaluations?|results)|"
                      r"experiments (?:on|show|demonstrate)|experimental results)\b", re.I)
_LOWER = re.compile(r"^[a-z(\[]")
_FIRST_SENTENCE = re.compile(r"^.*?(?:[.!?](?=\s+[A-Z(\\$])|$)", re.S)
_CONTRIBUTION = re.compile(r"\b(?:we|our|us|this (?:paper|work|study|article|thesis|survey|note)|in this|"
                           r"propos(?:e|es|ed|ing)|present(?:s|ed)?|introduc(?:e|es|ed))\b", re.I)
_CONTRIBUTION_START = re.compile(r"^(?:we|in this (?:paper|work|study)|this (?:paper|work|study)|here,? we|"
                                 r"to (?:address|tackle|overcome|solve|bridge|mitigate))\b", re.I)
_LAST_SENTENCE = re.compile(r"(?:^|[.!?]\s+)([A-Z][^.!?]*[.!?]?)\s*$")
_WORD = re.compile(r"[^\W\d_][\w\-]*[^\W_]")
_WORD_ASCII = re.compile(r"[a-z][a-z0-9_\-]*[a-z0-9]")  # _WORD on lower-case ASCII text
_NAME = re.compile(r"\b[A-Za-z][\w\-]*\b")
_STOP = set("the and for with from are our this that these can which its their than such into over both also has "
            "have been not but more most while using use used based show shows propose proposed paper work new "
            "approach method methods results".split())

# Weights (log-odds) of each feature and the intercept, fitted by logistic regression over the corpus's
# 10,383 paragraph boundaries written as lists of 60 (``scripts/fit_continuation.py``, which also gives the
# held-out figures), and each feature's rate at the start of a new paper in the corpus.
_WEIGHTS = {"connective": 11.0, "opener": 4.1, "short_after": 5.0, "short_before": 2.6, "no_contribution": 4.8,
            "contribution_start": 1.9, "similar": 6.8, "related": 4.0, "shared_name": 2.2, "open_end": 1.1,
            "anaphor": 2.0, "near": 2.3, "gap_end": 1.5}
_INTERCEPT = -8.7
_AT_NEW = {"connective": 0.0002, "opener": 0.0014, "short_after": 0.0024, "short_before": 0.0024, "no_contribution": 0.0023,
           "contribution_start": 0.23, "similar": 0.0013, "related": 0.010, "shared_name": 0.0087,
           "open_end": 0.0001, "anaphor": 0.08, "near": 0.09, "gap_end": 0.025}
_SMOOTH = 100.0  # pseudo-count of the corpus rate in a list's own rate
_SLACK = math.log(8.0)  # a list may use a feature up to 8 times as often as the corpus before it counts less


@dataclass(frozen=True)
class Boundary:
    """The evidence at one paragraph boundary: posterior log-odds that ``after`` continues ``before``,
    and the names of the features that hold (for the diagnostic)."""

    score: float
    reasons: tuple[str, ...]


@functools.lru_cache(maxsize=65536)
def _tokens(text: str) -> list[str]:  # cached: callers must not change the list
    """The words of ``text`` (3 characters or more, lower case, not in :data:`_STOP`, a final *s* dropped)."""
    if text.isascii():
        # lower case first: on ASCII text ``lower`` maps letters to letters one for one, so the words found
        # are the same, each already lower case, and _WORD's classes are _WORD_ASCII's there
        # (tests/read/test_read_speedups.py checks it on the corpus)
        return [w.rstrip("s") for w in _WORD_ASCII.findall(text.lower()) if len(w) >= 3 and w not in _STOP]
    return [lw.rstrip("s") for w in _WORD.findall(text) if len(w) >= 3 for lw in (w.lower(),) if lw not in _STOP]


#: :data:`_NAME` without the words it finds that are one ASCII letter and lower-case ASCII letters after it
#: up to the word's end (``method``, ``The``): :func:`_names` drops those (``w[1:].islower()``), and no match
#: can start inside one (no hyphen, so no word boundary, within it); the rest are found as :data:`_NAME` finds them
#: (tests/read/test_read_speedups.py checks it on the corpus).
_NAME_CANDIDATE = re.compile(r"\b[A-Za-z](?![a-z]*(?:[^\w\-]|$))[\w\-]*\b")
_UPPER = re.compile(r"[A-Z]")
_DIGIT = re.compile(r"\d")
_TWO_LETTERS = re.compile(r"[A-Za-z]{2}")


@functools.lru_cache(maxsize=65536)
def _names(text: str) -> set[str]:  # cached: callers must not change the set
    """Names with a capital after the first letter or a digit (``SmolVLM``, ``COOL``, ``GPT-4o``)."""
    # w.isalpha() and w[1:].islower(): letters only (no digit) and none capital after the first, so
    # not a name; a cheap test that rejects most words before the regular expressions.
    return {w for w in _NAME_CANDIDATE.findall(text) if len(w) >= 2 and not (w.isalpha() and w[1:].islower())
            and (_UPPER.search(w, 1) or _DIGIT.search(w)) and _TWO_LETTERS.search(w)}


@functools.cache
def _wording() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """``(connectives, anaphors, gaps)``: the largest patterns of :func:`_unary` (openings that need a sentence
    before them, words that refer back, a ``before`` ending on a gap), compiled on first use, not at import
    (~5 ms of CPU that a build reading no list of abstracts alone, e.g. a rebuild from the list cache, saves)."""
    connectives = re.compile(
        r"^(?:furthermore|moreover|however|in addition,|additionally|finally|lastly|similarly|likewise|interestingly|"
        r"importantly|notably|in particular|specifically,|concretely|thus|hence|therefore|consequently|accordingly|"
        r"nevertheless|nonetheless|meanwhile|besides|in summary|to summarize|in conclusion|as a result|"
        r"as a side result|for example|for instance|these|those|such|then|also|secondly|thirdly|second,|third,|"
        r"first,|firstly|qualitatively|quantitatively|computationally|here,? we|to this end|to that end|to do so|"
        r"we (?:further|also|then|additionally|finally|next)|(?:building|based) on (?:these|this|our|such|the above)|"
        r"(?:the |our )?code (?:is|and|will|for|at)|(?:data|models?) and code|project (?:page|website)|"
        r"trigger warning|\(?[ivx]{1,4}\)|\(?\d{1,2}[.)]|[-*•·]\s)(?:\b|\s|$)", re.I)
    anaphors = re.compile(
        r"\b(?:these|those|such|aforementioned|the (?:above|introduced|proposed|resulting|latter|former)|"
        r"our (?:dataset|benchmark|method|model|approach|framework|algorithm|analysis|results?|system|"
        r"proposed|findings|experiments)|"
        r"this (?!paper|work|study|article|note|survey|thesis|research|talk|abstract|tutorial|position)"
        r"[a-z]+)\b", re.I)
    gaps = re.compile(
        r"^(?:however|yet|but|unfortunately|nevertheless|despite|although|while)\b|\b(?:remains? (?:an? )?"
        r"(?:challenge|challenging|open|unclear|unexplored|unknown|elusive|limited|difficult)|lack(?:s|ing)?\b|"
        r"limitations?|limited|limiting|struggle|fail(?:s|ed)? to|suffer|unsolved|open (?:problem|question)|"
        r"understudied|overlooked|insufficient|costly|expensive|restrictive|not (?:yet |well )?"
        r"(?:understood|known|addressed|explored|clear))", re.I)
    return connectives, anaphors, gaps


@functools.lru_cache(maxsize=65536)
def _unary(text: str, short: float) -> dict[str, bool]:
    first = _FIRST_SENTENCE.match(text).group(0)
    last = _LAST_SENTENCE.search(text[-600:])
    connectives, anaphors, gaps = _wording()
    return {"connective": bool(connectives.match(text)),
            "opener": bool(_OPENERS.match(text) or _LOWER.match(text)),
            "short": len(text) < short,
            "no_contribution": not _CONTRIBUTION.search(text),
            "contribution_start": bool(_CONTRIBUTION.search(first)),
            "anaphor": bool(anaphors.search(first)),
            "open_end": text.rstrip().endswith((",", ":", ";")),  # = re.search(r"[,:;]$", text.rstrip())
            "gap_end": bool(gaps.search(last.group(1))) if last else False}


def _parallel(before: str, after: str) -> bool:
    """True when two paragraphs are near-copies: their word sequences at least :data:`PARALLEL` alike."""
    a, b = before.split(), after.split()
    if min(len(a), len(b)) < PARALLEL * max(len(a), len(b)):
        return False  # the ratio is at most 2 * min / (len(a) + len(b)), below PARALLEL
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= PARALLEL


def _features(paragraphs: list[str]) -> tuple[list[dict[str, bool]], dict[str, float]]:
    """The features holding at each boundary, and the list's own rate of each (smoothed)."""
    n = len(paragraphs)
    lengths = sorted(len(p) for p in paragraphs)
    short = min(300.0, 0.3 * lengths[n // 2])
    unary = [_unary(p, short) for p in paragraphs]
    tokens = [Counter(_tokens(p)) for p in paragraphs]
    df = Counter(t for c in tokens for t in c)
    idf = {t: math.log((n + 1) / d) for t, d in df.items()}
    squared = {t: v ** 2 for t, v in idf.items()}
    norms = [math.sqrt(sum(map(squared.__getitem__, c))) or 1.0 for c in tokens]
    names = [_names(p) for p in paragraphs]
    name_df = Counter(w for s in names for w in s)
    holds = []
    for k in range(n - 1):
        shared = tokens[k].keys() & tokens[k + 1].keys()
        sim = sum(map(squared.__getitem__, shared)) / (norms[k] * norms[k + 1])
        before, after = unary[k], unary[k + 1]
        holds.append({"connective": after["connective"], "opener": after["opener"], "short_after": after["short"], "short_before": before["short"],
                      "no_contribution": before["no_contribution"], "open_end": before["open_end"],
                      "gap_end": before["gap_end"],
                      "contribution_start": after["contribution_start"], "anaphor": after["anaphor"],
                      "similar": sim >= 0.15, "related": 0.10 <= sim < 0.15, "near": 0.06 <= sim < 0.10,
                      "shared_name": any(name_df[w] == 2 for w in names[k] & names[k + 1]),
                      "parallel": sim >= 0.15 and _parallel(paragraphs[k], paragraphs[k + 1])})

    def rate(feature: str, count: int, total: int) -> float:
        return (count + _SMOOTH * _AT_NEW[feature]) / (total + _SMOOTH)

    per_paragraph = {"connective": "connective", "opener": "opener", "short_after": "short", "short_before": "short",
                     "no_contribution": "no_contribution", "contribution_start": "contribution_start",
                     "open_end": "open_end", "anaphor": "anaphor", "gap_end": "gap_end"}
    rates = {f: rate(f, sum(u[key] for u in unary), n) for f, key in per_paragraph.items()}
    for f in ("similar", "related", "near", "shared_name"):
        rates[f] = rate(f, sum(h[f] for h in holds if not h["parallel"]), n - 1)  # near-copies apart
    return holds, rates


def continuation_scores(paragraphs: list[str]) -> list[Boundary]:
    """Score every boundary of a list of abstracts alone.

    ``paragraphs`` are the list's paragraphs in order (each read as one paper
    so far).  Returns one :class:`Boundary` per pair of neighbours
    (``len(paragraphs) - 1``), whose ``score`` is the posterior log-odds that
    ``paragraphs[k + 1]`` continues ``paragraphs[k]`` (see the module
    docstring for the features and where their rates come from).
    """
    if len(paragraphs) < 2:
        return []
    holds, rates = _features(paragraphs)
    out = []
    for features in holds:
        if features.pop("parallel"):
            out.append(Boundary(PARALLEL_SCORE, ("parallel",)))
            continue
        score, reasons = _INTERCEPT, []
        for feature, on in features.items():
            if on:
                common = max(0.0, math.log(rates[feature] / _AT_NEW[feature]) - _SLACK)
                score += max(0.0, _WEIGHTS[feature] - common)
                reasons.append(feature)
        out.append(Boundary(score, tuple(reasons)))
    return out
