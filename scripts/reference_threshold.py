"""The near-match threshold of reference metadata (``site_builder.read.reference.THRESHOLD``), measured.

A labelled set is built from the corpus (``../shared/corpus/papers.jsonl`` or ``$PAPERS_CORPUS``; ``--corpus``):

- the **reference** is the corpus minus a held-out set (below), indexed by :class:`ReferenceIndex` as the build
  indexes a reference file;
- **positives**: ``--positives`` reference papers, each pasted once in every kind of copy-paste damage of
  :data:`DAMAGES` (line breaks as a PDF viewer copies them; words hyphenated across those breaks with ``fi``/``fl``
  ligatures; inline math dropped; the text truncated to 70 % or 40 %; one sentence replaced by another paper's;
  TeX and white space written differently (``--``, ````quotes''``, ``\\emph{}``, doubled spaces, no-break spaces); and
  all of hyphenation, dropped math and truncation to 70 % at once). Right: the paper's own reference entry;
- **hard negatives**, pasted papers whose entry is *not* in the reference, while papers like them are: each held-out
  paper pasted clean and hyphenated. The held-out set is ``--negatives`` papers drawn at random (same venues and
  topics as the reference: the corpus is 36 venue-years) and, for the most similar pairs of distinct corpus papers
  (TF-IDF cosine of their abstracts, scikit-learn; near-duplicate versions, a paper and its extended abstract,
  sequels of one group), one paper of each pair, the other staying in the reference; and for each pair a sequel that
  opens with its predecessor's first two sentences (the held-out abstract with its first two sentences replaced
  by those of its pair, ``shares an opening``). Right: no match.

Every query goes through :meth:`ReferenceIndex.best` (the exact normalised match, else the best of the candidates
sharing a word 5-gram, scored by rapidfuzz's ``token_set_ratio``), once; then for each threshold: a positive is a
true positive when its own entry is matched, a false positive when another is, a false negative when none is; a
negative is a false positive when anything is matched. Precision = TP / (TP + FP), recall = TP / positives.

Usage::

    PYTHONPATH=$PWD python scripts/reference_threshold.py [--corpus PATH] [--positives 1500] [--negatives 1500]
        [--pairs 600] [--thresholds 50,60,...] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import textwrap
from collections import Counter, defaultdict
from pathlib import Path

from site_builder.corpus import require_corpus
from site_builder.read import reference
from site_builder.read.entries import Entry

_MATH = re.compile(r"\$[^$]+\$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _lines(text: str, rng: random.Random) -> str:
    """Hard line breaks every 60–90 columns, as a PDF viewer copies a column of text."""
    return "\n".join(textwrap.wrap(text, rng.randint(60, 90)))


def _hyphenated(text: str, rng: random.Random) -> str:
    """Line breaks, a long word at the end of a line broken with ``-`` across the break; ``fi``/``fl`` as the
    ligatures a PDF gives (``ﬁ``, ``ﬂ``)."""
    out = []
    for line in textwrap.wrap(text, rng.randint(60, 90)):
        words = line.split(" ")
        last = words[-1]
        if len(last) > 7 and last.isalpha() and rng.random() < 0.6:
            cut = rng.randint(3, len(last) - 3)
            words[-1] = last[:cut] + "-\n" + last[cut:]
            out.append(" ".join(words))
        else:
            out.append(line + "\n")
    text = "".join(out).rstrip("\n")
    return text.replace("fi", "\ufb01").replace("fl", "\ufb02")


def _no_math(text: str, rng: random.Random) -> str:
    """Inline ``$…$`` dropped (a copy from a rendered page loses it), else a parenthesis or number dropped."""
    if _MATH.search(text):
        return re.sub(r"\s+", " ", _MATH.sub("", text))
    return re.sub(r"\s*\([^)]*\)|\b\d+(\.\d+)?%?", "", text, count=3)


def _truncated(fraction: float):
    def damage(text: str, rng: random.Random) -> str:
        """The first ``fraction`` of the text, cut at a word, with an ellipsis (a listing's teaser)."""
        cut = text.rfind(" ", 0, int(len(text) * fraction))
        return text[:cut if cut > 0 else len(text)] + " …"
    damage.__doc__ = f"the first {int(fraction * 100)} %"
    return damage


def _tex(text: str, rng: random.Random) -> str:
    """TeX and white space written differently: dashes, quotes, an emphasis macro, doubled and no-break spaces."""
    text = text.replace(" - ", " -- ").replace("\u2013", "--").replace("\u201c", "``").replace("\u201d", "''")
    words = text.split(" ")
    if words:
        i = rng.randrange(len(words))
        words[i] = "\\emph{" + words[i] + "}"
    return "  ".join(words).replace(". ", ".\u00a0", 2)


def _combined(text: str, rng: random.Random) -> str:
    """Hyphenation, dropped math and truncation to 70 % at once."""
    return _hyphenated(_truncated(0.7)(_no_math(text, rng), rng), rng)


DAMAGES = {
    "line breaks": _lines, "hyphenation": _hyphenated, "math dropped": _no_math, "truncated 70%": _truncated(0.7),
    "truncated 40%": _truncated(0.4), "sentence changed": None, "TeX/white space": _tex, "all at once": _combined,
}


def _changed_sentence(text: str, other: str, rng: random.Random) -> str:
    """One sentence of ``text`` replaced by a sentence of another paper's abstract ``other``."""
    mine, theirs = _SENTENCE.split(text), _SENTENCE.split(other)
    mine[rng.randrange(len(mine))] = rng.choice(theirs)
    return " ".join(mine)


def tfidf(abstracts: list[str]):
    """The TF-IDF rows of ``abstracts`` (English stop words, sublinear tf, words in two abstracts at least;
    scikit-learn), L2-normalised: a product of two rows is their cosine."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(abstracts)


def nearest(matrix, rows: list[int], columns: list[int]) -> tuple[list[int], list[float]]:
    """For each of ``rows`` the one of ``columns`` (not itself) most similar to it and their cosine, in chunks."""
    import numpy as np

    best, cosine = [], []
    right = matrix[columns].T
    position = {c: i for i, c in enumerate(columns)}
    for start in range(0, len(rows), 1000):
        chunk = rows[start:start + 1000]
        block = (matrix[chunk] @ right).toarray()
        for i, row in enumerate(chunk):
            if row in position:
                block[i, position[row]] = -1
        best += [columns[j] for j in block.argmax(axis=1)]
        cosine += np.asarray(block.max(axis=1)).tolist()
    return best, cosine


def labelled_set(records: list[dict], positives: int, negatives: int, pairs: int, seed: int):
    """``(reference entries, queries)``: each query ``(kind, pasted abstract, index of its own entry in the
    reference or None)``; see the module doc."""
    rng = random.Random(seed)
    abstracts = [r["abstract"] for r in records]
    matrix = tfidf(abstracts)
    everyone = list(range(len(records)))
    best, cosine = nearest(matrix, everyone, everyone)
    held: set[int] = set(rng.sample(everyone, negatives))
    paired: dict[int, int] = {}  # held-out paper → its most similar paper, kept in the reference
    for n in sorted(everyone, key=lambda n: -cosine[n]):
        if len(paired) >= pairs:
            break
        if n not in held and best[n] not in held and best[n] not in paired and abstracts[n] != abstracts[best[n]]:
            held.add(n)
            paired[n] = best[n]
    kept = [n for n in range(len(records)) if n not in held]
    where = {n: i for i, n in enumerate(kept)}
    refs = [Entry(path="reference", line=i + 1, abstract=abstracts[n], title=records[n]["title"])
            for i, n in enumerate(kept)]
    queries = []
    for n in rng.sample(kept, positives):
        for kind, damage in DAMAGES.items():
            text = _changed_sentence(abstracts[n], abstracts[rng.choice(kept)], rng) if damage is None else \
                damage(abstracts[n], rng)
            queries.append((kind, text, where[n]))
    for n in sorted(held):
        kind = "negative, similar pair" if n in paired else "negative, random"
        queries.append((kind, abstracts[n], None))
        queries.append((kind + ", hyphenated", _hyphenated(abstracts[n], rng), None))
        if n in paired:  # a sequel opening with its predecessor's first two sentences
            theirs, mine = _SENTENCE.split(abstracts[paired[n]]), _SENTENCE.split(abstracts[n])
            queries.append(("negative, shares an opening", " ".join(theirs[:2] + mine[2:]), None))
    low = min((cosine[n] for n in paired), default=0)
    print(f"similar pairs: {len(paired)}, TF-IDF cosine {low:.2f} to {max(cosine):.2f}; same venue: "
          f"{sum(records[n]['venue'] == records[m]['venue'] for n, m in paired.items())}")
    return refs, queries


def scores(refs: list[Entry], queries) -> list[tuple[str, int | None, int | None, float, bool]]:
    """``(kind, own entry, best entry or None, score, exact)`` of each query (:meth:`ReferenceIndex.best`)."""
    index = reference.ReferenceIndex(refs)
    out = []
    for kind, text, own in queries:
        found = index.best(text)
        out.append((kind, own, *(found if found else (None, 0.0, False))))
    return out


def table(results, thresholds: list[float]) -> list[dict]:
    """Per threshold: TP, FP (of positives: another paper; of negatives), FN, precision, recall, and per kind
    the share matched right (positives) or matched at all (negatives)."""
    rows = []
    for t in thresholds:
        c, kinds = Counter(), defaultdict(Counter)
        for kind, own, got, score, exact in results:
            hit = got is not None and (exact or score >= t)
            outcome = ("tp" if hit and got == own else "fp wrong" if hit else "fn") if own is not None else \
                ("fp negative" if hit else "tn")
            c[outcome] += 1
            kinds[kind][outcome] += 1
        fp = c["fp wrong"] + c["fp negative"]
        rows.append({"threshold": t, **c, "precision": c["tp"] / max(1, c["tp"] + fp),
                     "recall": c["tp"] / max(1, c["tp"] + c["fp wrong"] + c["fn"]), "kinds": kinds})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--positives", type=int, default=1500)
    parser.add_argument("--negatives", type=int, default=1500)
    parser.add_argument("--pairs", type=int, default=600)
    parser.add_argument("--thresholds", default="30,40,50,60,70,75,80,85,88,90,92,95,98,100")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with open(require_corpus(args.corpus), encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    refs, queries = labelled_set(records, args.positives, args.negatives, args.pairs, args.seed)
    results = scores(refs, queries)
    kinds = list(dict.fromkeys(q[0] for q in queries))
    counts = Counter(q[0] for q in queries)
    print(f"reference: {len(refs)} papers; queries: " + ", ".join(f"{k} {counts[k]}" for k in kinds))
    print(f"exact matches (threshold-free): {sum(r[4] for r in results)}; no candidate: "
          f"{sum(r[2] is None for r in results)}")
    print("threshold | precision | recall | TP | FP (other paper) | FP (negative) | FN | " + " | ".join(kinds))
    for row in table(results, [float(t) for t in args.thresholds.split(",")]):
        per = [100 * (row["kinds"][k]["tp"] if not k.startswith("negative") else row["kinds"][k]["fp negative"])
               / counts[k] for k in kinds]
        print(f"{row['threshold']:g} | {100 * row['precision']:.2f} | {100 * row['recall']:.2f} | {row.get('tp', 0)} | "
              f"{row.get('fp wrong', 0)} | {row.get('fp negative', 0)} | {row.get('fn', 0)} | " + " | ".join(f"{p:.1f}" for p in per))
    return 0


if __name__ == "__main__":
    sys.exit(main())
