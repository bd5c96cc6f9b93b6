"""The rendered abstracts kept in a file for the build (``incremental/texts.py``): every paper of the seeds reads
back as it was rendered, in this process and in a forked one, and a build's cache gets the plain values."""

from __future__ import annotations

import multiprocessing
import pickle

import pytest

from conftest import CONFIG, SEEDS
from site_builder import pipeline
from site_builder.config import load_config
from site_builder.diagnostics import Diagnostics
from site_builder.incremental.cache import BuildCache
from site_builder.incremental.memo import MEMO_NAME, paper_work
from site_builder.incremental import texts
from site_builder.incremental.texts import StoredAbstract, TextStore
from site_builder.model.site import build_site
from site_builder.text.render import RenderedAbstract, render_abstract


@pytest.fixture(scope="module")
def seed_entries():
    return pipeline.read_lists(pipeline.list_files(SEEDS), load_config(CONFIG), Diagnostics())


EDGE_CASES = [
    "Plain ASCII only.",
    "Curly quotes ’ and “words”, an em dash — and CJK 模型 and 𝒪(n log n) from the math alphabet.",
    "Math $\\frac{a}{b} \\le \\sqrt{x_i^2}$ and an emoji 🙂; a lone surrogate \ud800 kept as read.",
    "",
]


@pytest.mark.parametrize("flush", [texts.FLUSH_BYTES, 3000])
def test_every_seed_abstract_reads_back_as_rendered(seed_entries, monkeypatch, flush):
    """Read back from the file (written ``flush`` bytes at a time) or from the texts not written yet."""
    monkeypatch.setattr(texts, "FLUSH_BYTES", flush)
    store = TextStore()
    rendered_all = [render_abstract(text) for text in [e.abstract for e in seed_entries] + EDGE_CASES]
    pairs = [(rendered, store.keep(rendered)) for rendered in rendered_all]
    assert len(pairs) > 50
    for rendered, kept in pairs:
        assert type(kept) is StoredAbstract and "html" not in vars(kept) and "text" not in vars(kept)
        assert (kept.html, kept.text, kept.code_urls, kept.warnings) == (
            rendered.html, rendered.text, rendered.code_urls, rendered.warnings)
        assert kept == rendered and rendered == kept and hash(kept) == hash(rendered)
        back = pickle.loads(pickle.dumps(kept))
        assert type(back) is RenderedAbstract and vars(back) == vars(rendered)
        assert store.keep(kept) is kept  # kept once


def _in_child(store: TextStore, kept: StoredAbstract, rendered: RenderedAbstract, out) -> None:
    again = store.keep(rendered)
    out.send((kept.html, kept.text, type(again).__name__, again.html))


def test_a_forked_process_reads_the_file_and_keeps_its_own_texts_in_memory(monkeypatch):
    monkeypatch.setattr(texts, "FLUSH_BYTES", 1)  # each text written at once
    store = TextStore()
    first = render_abstract(EDGE_CASES[1])
    kept = store.keep(first)
    second = render_abstract(EDGE_CASES[2])
    receiver, sender = multiprocessing.get_context("fork").Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_in_child, args=(store, kept, second, sender))
    child.start()
    html, text, kind, again_html = receiver.recv()
    child.join()
    assert (html, text) == (first.html, first.text)
    assert kind == "RenderedAbstract" and again_html == second.html  # the child does not write the parent's file
    later = store.keep(second)  # the parent's next text goes where it would have: nothing was written over
    assert (kept.html, later.html, later.text) == (first.html, second.html, second.text)


def test_the_model_holds_stored_abstracts_and_the_memo_file_plain_values(tmp_path, seed_entries):
    config = load_config(CONFIG)
    cache = BuildCache(tmp_path / "cache")
    work = cache.memo.missing_work(seed_entries)
    cache.memo.store_work([paper_work(item) for item in work])
    site = build_site(seed_entries, {}, config, Diagnostics(), memo=cache.memo)
    plain = build_site(seed_entries, {}, config, Diagnostics())
    assert work and all(type(p.rendered) is StoredAbstract for p in site.papers)
    assert [p.rendered for p in site.papers] == [p.rendered for p in plain.papers]
    cache.save()
    entries = BuildCache(tmp_path / "cache").store.load(cache.store.path(MEMO_NAME))["entries"]
    saved = [value for value in entries.values() if isinstance(value, list) and len(value) == 4]
    assert len(saved) == len({p.abstract for p in plain.papers})
    assert sorted(v[0] for v in saved) == sorted({p.rendered.html for p in plain.papers})


def test_a_store_whose_file_cannot_be_made_keeps_the_texts_in_memory(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr("tempfile.TemporaryFile", refuse)
    monkeypatch.setattr(texts, "FLUSH_BYTES", 200)
    store = TextStore()
    rendered = [render_abstract(text) for text in EDGE_CASES * 3]
    kept = [store.keep(r) for r in rendered]
    assert type(kept[0]) is StoredAbstract  # held before the file was asked for
    assert all(k is r for k, r in zip(kept[1:], rendered[1:]))  # the build goes on, its texts in memory
    assert kept == rendered and (kept[0].html, kept[0].text) == (rendered[0].html, rendered[0].text)
