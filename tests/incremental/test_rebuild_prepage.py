"""The stages before the pages, on a rebuild: the list cache and the related-papers update give
exactly what a build without them gives (entries, diagnostics, related lists, output bytes)."""

from __future__ import annotations

import json
import random
import shutil
import sys
from collections import Counter
from dataclasses import astuple
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, SEEDS, build_into
from site_builder.incremental import lists as listcache
from site_builder.read import plaintext as reader
from site_builder.model import related
from site_builder.model.library import RELATED_STATE, load_related, save_related
from site_builder.incremental.store import Store
from site_builder.incremental.cache import BuildCache
from site_builder.config import load_config
from site_builder.diagnostics import Diagnostics
from site_builder.pipeline import fill_from_references, list_files, read_lists

sys.path.insert(0, str(ROOT / "bench"))
from lists import load_corpus, write_lists  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from conftest import assert_same_site  # noqa: E402
from papers_sample import SAMPLE, sample_texts  # noqa: E402

HOSTILE = ROOT / "tests" / "fixtures" / "hostile"


def corpus_texts(n: int | None = None, seed: int = 7) -> list[str]:
    """``n`` real papers (title and abstract; all of them by default) drawn from the sample of real papers, in a
    fixed order."""
    texts = sample_texts()
    return random.Random(seed).sample(texts, len(texts) if n is None else n)


# --- reading lists through the cache ---------------------------------------------------------------

def reader_results(seeds: Path, config_path: Path) -> tuple[list, list[str]]:
    """Entries and diagnostic lines as :func:`reader.read_lists` gives them (no cache), filled from the reference
    files the config names as a build fills them (:func:`pipeline.fill_from_references`)."""
    config = load_config(config_path)
    configured = [(p, *astuple(config.list_defaults(p.name))) for p in list_files(seeds)]
    results = reader.read_lists(configured)
    diagnostics = Diagnostics()
    diagnostics.extend([d for r in results for d in r.diagnostics])
    entries = fill_from_references([e for r in results for e in r.entries], config, diagnostics)
    return entries, [str(d) for d in diagnostics]


def cached_results(seeds: Path, config_path: Path, cache: Path) -> tuple[list, list[str], BuildCache]:
    diagnostics = Diagnostics()
    build_cache = BuildCache(cache)
    entries = read_lists(list_files(seeds), load_config(config_path), diagnostics, build_cache)
    return entries, [str(d) for d in diagnostics], build_cache


def lists_with_duplicates(folder: Path) -> Path:
    """Corpus lists plus the seeds, with papers repeated within and across lists, and a short abstract with a title."""
    seeds = folder / "seeds"
    write_lists(load_corpus(SAMPLE, 300), seeds, folder / "site.toml")
    for path in SEEDS.glob("*.txt"):
        shutil.copy(path, seeds / f"zz_{path.name}")
    files = sorted(seeds.glob("*.txt"))
    first = files[0].read_text(encoding="utf-8").split("\n\n")
    # the second paper of the first list again at the end of the last list, and twice in another
    files[-1].write_text(files[-1].read_text(encoding="utf-8").rstrip("\n") + "\n\n" + first[1] + "\n",
                         encoding="utf-8")
    files[2].write_text(files[2].read_text(encoding="utf-8").rstrip("\n") + "\n\n" + first[2] + "\n\n"
                        + first[2].upper() + "\n", encoding="utf-8")
    return seeds


@pytest.mark.parametrize("layout", ["seeds", "hostile", "duplicates"])
def test_cached_reading_gives_the_readers_entries_and_diagnostics(tmp_path, layout):
    if layout == "seeds":
        seeds, config = tmp_path / "seeds", ROOT / "site.toml"
        shutil.copytree(SEEDS, seeds)
    elif layout == "hostile":
        seeds, config = tmp_path / "seeds", HOSTILE / "site.toml"
        shutil.copytree(HOSTILE, seeds)
    else:
        seeds, config = lists_with_duplicates(tmp_path), tmp_path / "site.toml"
    cache = tmp_path / "cache"
    expected = reader_results(seeds, config)
    if layout == "duplicates":
        assert any("the same paper as" in d for d in expected[1])  # the merge is exercised
    cold_entries, cold_messages, _ = cached_results(seeds, config, cache)
    assert (cold_entries, cold_messages) == expected
    assert list((cache / listcache.FOLDER).glob("*.marshal"))
    warm_entries, warm_messages, warm_cache = cached_results(seeds, config, cache)
    assert (warm_entries, warm_messages) == expected
    assert warm_cache.memo.known_items()  # the per-paper work came from the list cache
    # one list edited: read again, the others from the cache
    target = sorted(seeds.glob("*.txt"))[-1]
    target.write_text(target.read_text(encoding="utf-8") + "\n\nA new paper appended to this list, with an abstract "
                      "long enough to be read as one.\n", encoding="utf-8")
    assert cached_results(seeds, config, cache)[:2] == reader_results(seeds, config)


def test_a_corrupt_list_cache_file_is_ignored_with_a_warning(tmp_path):
    seeds, cache = tmp_path / "seeds", tmp_path / "cache"
    shutil.copytree(SEEDS, seeds)
    expected = reader_results(seeds, ROOT / "site.toml")
    cached_results(seeds, ROOT / "site.toml", cache)
    broken = sorted((cache / listcache.FOLDER).glob("*.marshal"))[0]
    broken.write_bytes(broken.read_bytes()[:100])
    entries, messages, build_cache = cached_results(seeds, ROOT / "site.toml", cache)
    assert (entries, messages) == expected
    assert [str(d).split(": warning: ")[1][:18] for d in build_cache.diagnostics] == ["cache file corrupt"]


# --- related papers --------------------------------------------------------------------------------

def test_fast_token_pattern_finds_the_tokens_of_scikit_learns_pattern():
    texts = corpus_texts() + ["a b_c _x x_ é1 ½ab 3 ab\u0301c x\u200by ≥≤ 漢字 かな", "__ _a a_ 1_2"]
    assert len(texts) > 500
    for text in texts:
        lowered = text.lower()
        assert related.TOKEN_RUNS.findall(lowered) == related.TOKEN.findall(lowered)
    stop = related.stop_words()
    assert all(related.terms(t) == Counter(w for w in related.TOKEN.findall(t.lower()) if w not in stop)
               for t in texts[:2000])


def test_weights_agree_with_scikit_learn():
    from sklearn.feature_extraction.text import TfidfVectorizer
    texts = corpus_texts(400) + ["", "a the of"]  # two texts without any term
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, dtype=np.float32)
    expected = vectorizer.fit_transform(texts).tocsr()
    expected.sort_indices()
    got = related.tfidf_matrix(texts)
    assert sorted(related.terms(" ".join(texts))) == list(vectorizer.get_feature_names_out())
    assert np.array_equal(got.indptr, expected.indptr) and np.array_equal(got.indices, expected.indices)
    assert np.allclose(got.data, expected.data, rtol=2e-6, atol=1e-7)


def edits(texts: list[str]) -> dict[str, tuple[list[str], list[str]]]:
    """Edited copies of ``texts`` (and their keys): name → (texts, keys). A key is ``text_key(id, text)``."""
    keys = [related.text_key(str(i), t) for i, t in enumerate(texts)]
    out: dict[str, tuple[list[str], list[str]]] = {}

    def edit(name: str, index: int, text: str) -> None:
        new_texts, new_keys = list(texts), list(keys)
        new_texts[index], new_keys[index] = text, related.text_key(f"edited-{index}", text)
        out[name] = (new_texts, new_keys)

    edit("append a common sentence", 11, texts[11] + " We also release our code.")
    edit("append a rare sentence", 12, texts[12] + " Zyzzogeton quokkas flummox.")
    edit("change a word", 13, texts[13].replace(" the ", " a ", 1).replace(" model", " network", 1))
    title, _, abstract = texts[14].partition(". ")
    edit("change the title", 14, f"Another title for this paper. {abstract}")
    edit("drop every rare word", 15, " ".join(w for w in texts[15].split() if sum(w in t for t in texts[:50]) > 3))
    edit("replace by another paper", 16, corpus_texts(1, seed=99)[0])
    edit("replace by a copy of another", 17, texts[18])
    two_texts, two_keys = list(texts), list(keys)
    for i in (20, 30):
        two_texts[i] += " In addition, we study robustness to distribution shift."
        two_keys[i] = related.text_key(f"twice-{i}", two_texts[i])
    out["two papers changed"] = (two_texts, two_keys)
    new_text = texts[40] + " We also release our code."
    out["one paper out, another in elsewhere"] = (texts[:25] + texts[26:] + [new_text],  # kept texts shift by one
                                                  keys[:25] + keys[26:] + [related.text_key("elsewhere", new_text)])
    out["nothing changed"] = (list(texts), list(keys))
    out["add a paper"] = (texts + ["A new paper on graph neural networks for molecules."],
                          keys + [related.text_key("new", "A new paper on graph neural networks for molecules.")])
    out["remove a paper"] = (texts[:5] + texts[6:], keys[:5] + keys[6:])
    out["move a paper"] = (texts[1:3] + texts[:1] + texts[3:], keys[1:3] + keys[:1] + keys[3:])
    return out


UPDATED = {"append a common sentence", "append a rare sentence", "change a word", "change the title",
           "drop every rare word", "replace by another paper", "replace by a copy of another",
           "two papers changed", "one paper out, another in elsewhere"}


@pytest.mark.parametrize("slack", [related.SLACK, 1])
def test_related_update_equals_the_full_computation(monkeypatch, slack):
    monkeypatch.setattr(related, "SLACK", slack)  # 1: few spare candidates, so rows must be recomputed too
    texts = corpus_texts()
    keys = [related.text_key(str(i), t) for i, t in enumerate(texts)]
    _, state = related.incremental_related(texts, keys, block=128)
    recomputed = 0
    for name, (new_texts, new_keys) in edits(texts).items():
        related.LAST_UPDATE.clear()
        updated, new_state = related.incremental_related(new_texts, new_keys, block=128, previous=state)
        full, full_state = related.incremental_related(new_texts, new_keys, block=300)
        assert updated == full, name
        assert (related.LAST_UPDATE != {}) == (name in UPDATED), name
        assert (new_state is state) == (name == "nothing changed"), name
        recomputed += related.LAST_UPDATE.get("recomputed", 0)
        # the updated state serves the next update as well as a fresh one (a chain of edits)
        again_texts = list(new_texts)
        again_texts[40] += " Experiments on ImageNet confirm the analysis."
        again_keys = list(new_keys)
        again_keys[40] = related.text_key("again", again_texts[40])
        chained, _ = related.incremental_related(again_texts, again_keys, previous=new_state)
        assert chained == related.incremental_related(again_texts, again_keys)[0], name
    assert slack == related.SLACK or recomputed > 0  # with one spare candidate some rows were recomputed


def test_related_state_round_trips_and_rejects_other_code(tmp_path):
    texts = corpus_texts(120)
    _, state = related.incremental_related(texts, None)
    store = Store(tmp_path, "code-1", Diagnostics())
    save_related(store, state)
    path = tmp_path / RELATED_STATE
    assert path.name == "related.marshal" and path.is_file()
    loaded = load_related(store)
    assert loaded is not None and loaded.keys == state.keys and loaded.vocabulary == state.vocabulary
    fields = ("indptr", "indices", "counts", "weights", "best_cols", "best_scores", "bound")
    assert all(np.array_equal(getattr(loaded, f), getattr(state, f)) for f in fields)
    assert all(getattr(loaded, f).dtype == getattr(state, f).dtype for f in fields)
    assert loaded.weights.dtype == np.int64 and loaded.best_cols.dtype == np.int64 and loaded.k == state.k
    assert related.incremental_related(texts, None, previous=loaded)[1] is loaded  # the same texts: taken as is
    assert not store.diagnostics.items
    other = Store(tmp_path, "code-2", Diagnostics())
    assert load_related(other) is None and not other.diagnostics.items  # other code: silently recomputed
    missing = Store(tmp_path / "missing", "code-1", Diagnostics())
    assert load_related(missing) is None and not missing.diagnostics.items
    good = path.read_bytes()
    for junk in (b"not a cache file", good[:len(good) // 2], good[:100] + bytes(len(good) - 100)):
        path.write_bytes(junk)
        store = Store(tmp_path, "code-1", Diagnostics())
        assert load_related(store) is None
        assert [(d.path, d.message.split(":")[0]) for d in store.diagnostics.items] == [
            (str(path), "cache file corrupt, ignored")], junk[:20]


def test_a_related_state_value_that_does_not_hold_together_is_refused(tmp_path):
    """related.state_of refuses (ValueError, naming the problem) a value that marshal reads back but that is
    not a state: a field missing or of another type, array bytes cut, arrays of inconsistent shapes; kept in the
    cache, such a value is a warning naming the file and no state (it is then recomputed)."""
    texts = corpus_texts(60)
    _, state = related.incremental_related(texts, None)
    good = related.state_value(state)
    assert related.state_of(good).keys == state.keys
    n = len(state.keys)
    bad_values = {
        "field missing": {f: v for f, v in good.items() if f != "bound"},
        "keys not strings": {**good, "keys": [1] * n},
        "vocabulary not a list": {**good, "vocabulary": "\n".join(good["vocabulary"])},
        "k not an int": {**good, "k": 5.0},
        "unknown dtype": {**good, "dtypes": {**good["dtypes"], "weights": "O"}},
        "bytes cut": {**good, "counts": good["counts"][:-1]},
        "a text missing": {**good, "keys": good["keys"][:-1]},
        "bound short": {**good, "bound": good["bound"][:-8]},
        "entries short": {**good, "weights": good["weights"][:-4]},
        "take wrong": {**good, "take": good["take"] + 1},
        "column beyond the vocabulary": {**good, "vocabulary": good["vocabulary"][:-1]},
    }
    for name, value in bad_values.items():
        with pytest.raises(ValueError) as refused:
            related.state_of(value)
        store = Store(tmp_path, "code", Diagnostics())
        store.keep(RELATED_STATE, value)
        assert load_related(store) is None, name
        assert [str(d) for d in store.diagnostics.items] == [
            f"{tmp_path / RELATED_STATE}: warning: cache file corrupt, ignored: {refused.value}"], name
    with pytest.raises(ValueError, match="arrays of inconsistent shapes"):
        related.state_of(bad_values["bound short"])


def test_related_ties_and_texts_without_terms():
    texts = ["alpha beta", "alpha beta", "alpha beta", "gamma delta", "", "alpha beta gamma"]
    rows, state = related.incremental_related(texts, None, k=2)
    assert rows[0] == [1, 2] and rows[4] == [] and rows[3] == [5]
    edited = texts[:4] + ["gamma"] + texts[5:]
    keys = [related.text_key("", t) for t in edited]
    assert related.incremental_related(edited, keys, k=2, previous=state)[0] == related.related_indices(edited, k=2)


# --- the whole build -------------------------------------------------------------------------------

def test_rebuilds_after_edits_equal_builds_without_cache(tmp_path, monkeypatch):
    """Lists of real papers built with a cache, then edited (one abstract, then a paragraph appended to another list):
    every rebuild equals a build without the cache, byte for byte. The sample's lists hold 10 to 79 papers: pages
    listing 20 or more keep their items' HTML (ITEMS_KEPT, 200 in a build, as the corpus's 400 papers reached)."""
    from site_builder.output import rendering

    monkeypatch.setattr(rendering, "ITEMS_KEPT", 20)
    seeds = tmp_path / "seeds"
    write_lists(load_corpus(SAMPLE, 400), seeds, tmp_path / "site.toml")
    config, cache, site = tmp_path / "site.toml", tmp_path / "cache", tmp_path / "site"

    def check(label: str) -> None:
        assert build_into(site, "--cache", str(cache), "--quiet", seeds=seeds, config=config) == 0
        plain = tmp_path / f"plain-{label}"
        assert build_into(plain, "--no-cache", "--quiet", seeds=seeds, config=config) == 0
        assert_same_site(plain, site, placed_map=True)

    check("cold")
    assert (cache / RELATED_STATE).is_file() and list((cache / "items").iterdir())
    largest = max(sorted(seeds.glob("*.txt")), key=lambda p: p.stat().st_size)
    largest.write_text(largest.read_text(encoding="utf-8").rstrip("\n") + " We also release our code.\n",
                       encoding="utf-8")
    related.LAST_UPDATE.clear()
    check("one abstract")
    assert related.LAST_UPDATE  # the related papers were updated, not recomputed
    smallest = min(sorted(seeds.glob("*.txt")), key=lambda p: p.stat().st_size)
    smallest.write_text(smallest.read_text(encoding="utf-8").rstrip("\n") + "\n\nWe propose a new method for "
                        "learning sparse graphs from few samples, and prove it consistent.\n", encoding="utf-8")
    check("another list edited")


def test_a_list_cache_file_naming_a_class_runs_nothing(tmp_path):
    """A pickle naming a class, put where a list's cache file is, is ignored with a warning; nothing is run."""
    import pickle
    seeds, cache = tmp_path / "seeds", tmp_path / "cache"
    shutil.copytree(SEEDS, seeds)
    cached_results(seeds, ROOT / "site.toml", cache)
    target = sorted((cache / listcache.FOLDER).glob("*.marshal"))[0]
    marker = tmp_path / "ran"
    target.write_bytes(pickle.dumps({"format": 2, "x": _Touch(str(marker))}))
    entries, messages, build_cache = cached_results(seeds, ROOT / "site.toml", cache)
    assert (entries, messages) == reader_results(seeds, ROOT / "site.toml")
    assert not marker.exists()
    assert [str(d) for d in build_cache.diagnostics] == [f"{target}: warning: cache file corrupt, ignored: "
                                                         "not a cache file"]


class _Touch:
    """Unpickling this would create a file."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


@pytest.mark.parametrize("count", [0, 1, 2])
def test_related_of_tiny_sites(count):
    texts = ["graph neural networks", "neural networks for graphs"][:count]
    rows, state = related.incremental_related(texts, None)
    assert rows == ([[1], [0]] if count == 2 else [[]] * count)
    assert related.incremental_related(texts, None, previous=state)[0] == rows
    import marshal
    loaded = related.state_of(marshal.loads(marshal.dumps(related.state_value(state), 4)))  # as the cache keeps it
    assert loaded.keys == state.keys and loaded.best_cols.shape == state.best_cols.shape
    assert related.incremental_related(texts, None, previous=loaded)[0] == rows


def test_an_update_imports_neither_scipy_nor_scikit_learn(tmp_path):
    import subprocess
    texts = corpus_texts(300)
    keys = [related.text_key(str(i), t) for i, t in enumerate(texts)]
    Store(tmp_path, "code", Diagnostics()).keep("state.marshal",
                                                related.state_value(related.incremental_related(texts, keys)[1]))
    texts[7] += " We also release our code."
    keys[7] = related.text_key("edited", texts[7])
    (tmp_path / "texts.json").write_text(json.dumps([texts, keys]), encoding="utf-8")
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from site_builder.model import related\n"
        "from site_builder.incremental.store import Store\n"
        "from site_builder.diagnostics import Diagnostics\n"
        f"texts, keys = json.loads(Path({str(tmp_path / 'texts.json')!r}).read_text(encoding='utf-8'))\n"
        f"state = related.state_of(Store(Path({str(tmp_path)!r}), 'code', Diagnostics()).kept('state.marshal'))\n"
        "rows, _ = related.incremental_related(texts, keys, previous=state)\n"
        "print(json.dumps([bool(related.LAST_UPDATE), 'scipy' in sys.modules, 'sklearn' in sys.modules, rows]))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}).stdout
    updated, scipy_loaded, sklearn_loaded, rows = json.loads(out)
    assert updated and not scipy_loaded and not sklearn_loaded
    assert rows == related.related_indices(texts)


def test_string_memo_tables_round_trip_through_marshal():
    import marshal
    from site_builder.incremental import strmemo

    @strmemo.memoized("test-scaled")
    def scaled(text: str, scale: int) -> float:
        return len(text) / scale

    @strmemo.memoized("test-lower")
    def lower(text: str) -> str:
        return text.lower()

    assert scaled("abc", 7) == 3 / 7 and lower("ÀB") == "àb"
    saved = marshal.loads(marshal.dumps(strmemo.tables(), 4))
    assert not strmemo.changed()
    scaled.cache_clear()
    lower.cache_clear()
    assert strmemo.load_tables(saved)
    assert strmemo.TABLES["test-scaled"][("abc", 7)] == 3 / 7 and strmemo.TABLES["test-lower"]["ÀB"] == "àb"
    scaled.cache_clear()
    for bad in ({"test-lower": {"x": None}}, {"test-lower": {b"x": "x"}}, {"test-scaled": {("x", 1.5): 1.0}},
                {"test-scaled": {("x", 2): [1]}}, {"test-lower": ["x"]}, ["x"]):
        assert not strmemo.load_tables(bad), bad  # nothing loaded
        assert not strmemo.TABLES["test-scaled"]
    assert strmemo.load_tables({"test-unknown": {"x": "y"}, "test-scaled": {("x", 2): 9.0}})
    assert scaled("x", 2) == 9.0  # taken from the table, not computed


def test_the_related_state_is_saved_off_the_serial_path(tmp_path):
    """build_library leaves writing ``related.marshal`` to the cache's deferred jobs (run in the process that writes
    the other files); once they ran, the next build_library takes the state and writes nothing."""
    from site_builder.model.library import build_library
    from site_builder.model.site import build_site
    from site_builder.pipeline import load_overrides
    config, diagnostics = load_config(ROOT / "site.toml"), Diagnostics()
    site = build_site(read_lists(list_files(SEEDS), config, diagnostics), load_overrides(SEEDS, diagnostics),
                      config, diagnostics)
    cache = BuildCache(tmp_path / "cache")
    library = build_library(site, None, diagnostics, cache)
    path = tmp_path / "cache" / RELATED_STATE
    assert not path.exists()
    cache.run_deferred()
    loaded = load_related(cache.store)
    assert loaded is not None and loaded.keys == library.related_state.keys
    again = BuildCache(tmp_path / "cache")
    second = build_library(site, None, Diagnostics(), again)
    assert second.related_state.keys == loaded.keys and again._deferred == []
    assert {p: [q.id for q in second.related(p)] for p in site.papers} == \
        {p: [q.id for q in library.related(p)] for p in site.papers}
