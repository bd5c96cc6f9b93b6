"""The related-papers computation (:mod:`site_builder.model.related`) against its slow formulation: the
exact integer score matrix of all pairs, computed whole, and each row's best by the total order
(score descending, position ascending). Every candidate, score and bound must be equal."""

from __future__ import annotations

import numpy as np
import pytest

from papers_sample import sample_records, sample_texts
from site_builder.model import related
from site_builder.model.library import load_related, save_related
from site_builder.incremental.store import Store
from site_builder.diagnostics import Diagnostics


def reference(texts: list[str], take: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cols, scores, bound)`` as :class:`related.State` holds them, from the whole score matrix."""
    counts = [related.terms(t) for t in texts]
    vocabulary = {t: i for i, t in enumerate(sorted({t for c in counts for t in c}))}
    matrix = related.quantized(related.weights(*related.count_matrix(counts, vocabulary), len(vocabulary)))
    scores = (matrix @ matrix.T).toarray().astype(np.int64)
    n = len(texts)
    np.fill_diagonal(scores, -1)
    cols = np.full((n, take), n, dtype=np.int64)
    values = np.full((n, take), -np.inf)
    for r in range(n):
        order = np.lexsort((np.arange(n), -scores[r]))[:take]
        order = order[scores[r, order] > 0]
        cols[r, :len(order)], values[r, :len(order)] = order, scores[r, order]
    bound = np.where(np.isfinite(values[:, -1]), values[:, -1], 0.0)
    return cols, values, bound


def assert_state_is(state: related.State, texts: list[str]) -> None:
    cols, values, bound = reference(texts, state.best_cols.shape[1])
    assert np.array_equal(state.best_cols, cols)
    assert np.array_equal(state.best_scores, values)
    assert np.array_equal(state.bound, bound)


@pytest.mark.parametrize("dense_terms, block, parallel", [(300, 250, False), (40, 97, True), (0, 256, False),
                                                           (100_000, 333, False), (300, 5000, False)])
def test_all_pairs_equal_the_whole_score_matrix(monkeypatch, dense_terms, block, parallel):
    texts = sample_texts()  # 565 real papers (635 texts): blocks of 97 to 333 cut them, one of 5000 takes them whole
    texts += texts[:40]  # exact duplicates: ties at every score, broken by position
    texts += [texts[5]] * 30  # more copies than a row keeps: ties at a row's cut, the earliest copies win
    monkeypatch.setattr(related, "DENSE_TERMS", dense_terms)
    monkeypatch.setattr(related, "MIN_PARALLEL_TEXTS", 2 if parallel else 10 ** 9)
    _, state = related.incremental_related(texts, None, block=block)
    assert_state_is(state, texts)


def test_all_pairs_with_few_shared_terms_and_tiny_blocks():
    texts = ["alpha beta", "alpha beta", "gamma", "delta epsilon", "alpha", "zeta eta theta", "beta gamma",
             "nothing shared here", "", "alpha beta"]
    _, state = related.incremental_related(texts, None, k=3, block=3)
    assert_state_is(state, texts)


@pytest.mark.parametrize("cells", [1, 5000, 1 << 20])
def test_pair_scores_equal_the_whole_score_matrix(monkeypatch, cells):
    """The update's exact pair scores (:meth:`related._Rows.pair_scores`), with tables of one row, a few rows
    and all rows at a time, against the score matrix; pairs in any order, repeated, both ways round."""
    texts = sample_texts()[100:500]
    counts = [related.terms(t) for t in texts]
    vocabulary = {t: i for i, t in enumerate(sorted({t for c in counts for t in c}))}
    matrix = related.quantized(related.weights(*related.count_matrix(counts, vocabulary), len(vocabulary)))
    scores = (matrix @ matrix.T).toarray().astype(np.int64)
    monkeypatch.setattr(related._Rows, "TABLE_CELLS", cells)
    rows = related._Rows(matrix.indptr.astype(np.int64), matrix.indices, matrix.data, matrix.shape[1])
    rng = np.random.default_rng(7)
    a, b = rng.integers(0, len(texts), 3000), rng.integers(0, len(texts), 3000)
    a[:50], b[:50] = b[50:100], a[50:100]
    assert np.array_equal(rows.pair_scores(a, b), scores[a, b])
    assert np.array_equal(rows.pair_scores(a[:0], b[:0]), np.zeros(0, np.int64))


def test_related_papers_are_those_of_the_papers_texts_fresh_and_updated():
    """related_papers keys and compares each paper by paper_text without keeping the texts: the same lists and
    state as incremental_related over the texts themselves, computed whole and updated after an edit."""
    from types import SimpleNamespace

    records = sample_records()[:400]

    def paper(n: int, r: dict, extra: str = ""):
        return SimpleNamespace(id=f"{n:010x}", title_text=r["title"], rendered=SimpleNamespace(text=r["abstract"] + extra))

    papers = [paper(n, r) for n, r in enumerate(records)]
    texts = [related.paper_text(p) for p in papers]
    keys = [related.text_key(p.id, t) for p, t in zip(papers, texts)]
    assert related.paper_keys(papers) == keys
    lists, state = related.related_papers(papers)
    rows, reference_state = related.incremental_related(texts, keys)
    assert lists == {p.id: [papers[j] for j in row] for p, row in zip(papers, rows)}
    assert np.array_equal(state.best_cols, reference_state.best_cols) and state.keys == reference_state.keys
    edited = list(papers)
    edited[123] = paper(999_999, records[123], " We also release our code and data.")
    related.LAST_UPDATE.clear()
    lists, updated = related.related_papers(edited, previous=state)
    assert related.LAST_UPDATE["added"] == 1  # updated, not recomputed
    edited_texts = [related.paper_text(p) for p in edited]
    rows = related.related_indices(edited_texts)
    assert lists == {p.id: [edited[j] for j in row] for p, row in zip(edited, rows)}
    assert updated.keys == [related.text_key(p.id, t) for p, t in zip(edited, edited_texts)]


def test_the_vocabulary_of_an_update_equals_sorting_every_term_again():
    """:func:`related._new_vocabulary` (old columns moved by the terms dropped and inserted before them) against
    the plain definition (every term with a positive df, sorted), on random vocabularies and changes."""
    import random
    from collections import Counter
    rng = random.Random(1)
    for _ in range(2000):
        words = sorted({"".join(rng.choice("abcde") for _ in range(rng.randint(1, 4))) for _ in range(40)})
        old_vocab = sorted(rng.sample(words, rng.randint(1, len(words))))
        old_df = np.array([rng.randint(1, 4) for _ in old_vocab], dtype=np.int64)
        delta = Counter()
        for t in rng.sample(words, rng.randint(0, len(words))):
            d = rng.randint(-int(old_df[old_vocab.index(t)]), 3) if t in old_vocab else rng.randint(1, 3)
            if d:
                delta[t] = d
        touched = set(delta) | set(rng.sample(old_vocab, rng.randint(0, len(old_vocab))))
        columns = {t: old_vocab.index(t) if t in old_vocab else None for t in touched}
        new_df = dict(zip(old_vocab, old_df.tolist()))
        for t, d in delta.items():
            new_df[t] = new_df.get(t, 0) + d
        vocabulary = sorted(t for t, d in new_df.items() if d > 0)
        index = {t: i for i, t in enumerate(vocabulary)}
        got, remap, df, got_index = related._new_vocabulary(old_vocab, old_df, columns, delta)
        assert got == vocabulary
        assert remap.tolist() == [index.get(t, -1) for t in old_vocab]
        assert df.dtype == np.int64 and df.tolist() == [new_df[t] for t in vocabulary]
        assert got_index == {t: index[t] for t in touched if t in index}


def test_the_positions_of_kept_texts_equal_a_lookup_of_every_old_key():
    """:func:`related._mapping` looks up only the keys at positions that differ; the same as a table of all."""
    import random
    rng = random.Random(2)
    for _ in range(3000):
        n = rng.randint(1, 12)
        old = [str(x) for x in rng.sample(range(100), n)]
        new = list(old)
        for _ in range(rng.randint(0, 3)):
            if rng.random() < 0.5:
                new[rng.randrange(n)] = str(rng.randrange(150))
            else:
                i, j = rng.randrange(n), rng.randrange(n)
                new[i], new[j] = new[j], new[i]
        if len(set(new)) == n:
            position = {key: i for i, key in enumerate(old)}
            assert related._mapping(new, old).tolist() == [position.get(key, -1) for key in new]


@pytest.mark.parametrize("count", [1, 2])
def test_the_state_of_a_site_of_few_papers_is_saved_and_loaded(tmp_path, count):
    """A site of one paper has no related papers: its state (best_cols of shape (1, 0)) is saved and loaded
    back as it was (saving it crashed every cached build of a one-paper list, found by the new-user pass)."""
    from types import SimpleNamespace

    records = sample_records()[:count]
    papers = [SimpleNamespace(id=f"{n:010x}", title_text=r["title"], rendered=SimpleNamespace(text=r["abstract"]))
              for n, r in enumerate(records)]
    lists, state = related.related_papers(papers)
    store = Store(tmp_path, "code", Diagnostics())
    save_related(store, state)
    loaded = load_related(store)
    assert loaded is not None and loaded.keys == state.keys and not store.diagnostics.items
    assert loaded.best_cols.shape == state.best_cols.shape == (count, count - 1)
    assert np.array_equal(loaded.best_cols, state.best_cols)
    assert related.related_papers(papers, previous=loaded)[0] == lists


def test_counted_texts_are_the_count_matrix_of_each_texts_terms():
    texts = [*sample_texts(), "", "the and of", "Ünïcode wörds ÜNÏCODE"]
    vocabulary, *arrays = related.counted_texts(texts, chunk=100)
    counts = [related.terms(t) for t in texts]
    assert vocabulary == sorted({t for c in counts for t in c})
    expected = related.count_matrix(counts, {t: i for i, t in enumerate(vocabulary)})
    for got, want in zip(arrays, expected):
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_chinese_papers_sharing_words_are_related():
    """Runs of CJK characters count as character bigrams: two Chinese abstracts about graph neural networks for
    molecular property prediction share terms (found by a new-user pass: as one token a sentence, they had no
    related papers); English tokens stay scikit-learn's, and an update tokenizes added texts the same way."""
    texts = ["本文提出一种图神经网络方法，用于分子性质预测。", "我们研究图神经网络在分子性质预测中的可解释性。",
             "本文研究大语言模型的数学推理能力。", "We study attention heads in transformers."]
    assert related.related_indices(texts, k=1) == [[1], [0], [0], []]
    assert related.tokens("GPT-4o 基于BERT的模型") == ["gpt", "4o", "基于", "bert", "的模", "模型"]
    assert related.tokens("We study GNNs.") == ["we", "study", "gnns"]
    previous = related.incremental_related(texts[:3] + ["Attention heads in transformers."], None)[1]
    updated = related.incremental_related(texts, None, previous=previous)
    assert [list(row) for row in updated[0]] == [list(row) for row in related.incremental_related(texts, None)[0]]
