"""Fit the weights of ``site_builder.read.continuation`` and print held-out figures.

Writes the corpus (``papers.jsonl``) as lists of abstracts alone, 60 records
a list grouped by venue-year (as ``scripts/roundtrip_corpus.py`` does), takes
every paragraph boundary (inside an abstract: a continuation; between two
records: a new paper), computes the module's features and fits a logistic
regression (scikit-learn, L2, ``C``).  Prints the weights and intercept to
copy into the module, then, for thresholds on the log-odds, how many
continuation boundaries and multi-paragraph records would be flagged and
how many new-paper boundaries would be warned, in-sample and in a two-fold
split by list (fit on the even lists, test on the odd, and the reverse).

Usage::

    PYTHONPATH=$PWD python scripts/fit_continuation.py [--corpus PATH] [--C 5]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from roundtrip_corpus import CORPUS, chunks, load  # noqa: E402

from site_builder.corpus import require_corpus  # noqa: E402
from site_builder.read import continuation  # noqa: E402

THRESHOLDS = (-4.0, -3.5, -3.0, -2.0, 0.0, 1.0, 2.0)


def paragraphs(abstract: str) -> list[str]:
    """An abstract's paragraphs (split at blank lines, line ends as ``\\n``)."""
    text = abstract.replace("\r\n", "\n").replace("\r", "\n").strip()
    return [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]


def boundaries(records: list[dict], per_list: int = 60):
    """Feature rows ``X``, labels ``y`` (True: continuation), and ``(list, record)`` of each boundary."""
    names = list(continuation._WEIGHTS)
    rows, labels, where = [], [], []
    for c, chunk in enumerate(chunks(records, per_list)):
        seq = [(i, p) for i, r in enumerate(chunk) for p in paragraphs(r["abstract"])]
        holds, _ = continuation._features([p for _, p in seq])
        for (i, _), (j, _), features in zip(seq, seq[1:], holds):
            rows.append([float(features[n]) for n in names])
            labels.append(i == j)
            where.append((c, i))
    return np.array(rows), np.array(labels), where, names


def report(scores, labels, where, title: str) -> None:
    """Print, per threshold, flagged continuations, records with one flagged and warned new papers."""
    records = {w for w, y in zip(where, labels) if y}
    print(title)
    for t in THRESHOLDS:
        hit = scores >= t
        caught = {w for w, y, h in zip(where, labels, hit) if y and h}
        print(f"  log-odds >= {t:5.1f}: continuations {int((hit & labels).sum()):4}/{int(labels.sum())}, "
              f"records {len(caught):3}/{len(records)}, new papers flagged {int((hit & ~labels).sum()):5}"
              f"/{int((~labels).sum())}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--C", type=float, default=5.0, help="inverse L2 strength of the regression")
    args = parser.parse_args(argv)
    X, y, where, names = boundaries(load(require_corpus(args.corpus)))
    from sklearn.linear_model import LogisticRegression  # after the corpus is found (it takes a second to load)

    model = LogisticRegression(C=args.C, max_iter=5000).fit(X, y)
    print("weights:", {n: round(float(w), 1) for n, w in zip(names, model.coef_[0])})
    print("intercept:", round(float(model.intercept_[0]), 2))
    report(model.decision_function(X), y, where, "in-sample (refitted weights)")
    folds = np.array([w[0] % 2 for w in where])
    for f in (0, 1):
        held = LogisticRegression(C=args.C, max_iter=5000).fit(X[folds != f], y[folds != f])
        mask = folds == f
        report(held.decision_function(X[mask]), y[mask], [w for w, m in zip(where, mask) if m],
               f"held out: lists with index % 2 == {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
