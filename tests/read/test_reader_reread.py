"""Reading an edited list again from the kept state of its previous read (``reader_reread``) gives
exactly what a full read gives: entries and diagnostics, with their lines, after every kind of edit."""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import pytest

from conftest import ROOT, assert_same_site
from site_builder.incremental import lists as listcache
from site_builder.read import plaintext as reader, reread as reader_reread
from site_builder.incremental import store
from site_builder.incremental.cache import BuildCache
from site_builder.read.text import clean

sys.path.insert(0, str(ROOT / "bench"))
from lists import load_corpus, write_lists  # noqa: E402
from papers_sample import SAMPLE  # noqa: E402

NUMBERED = """NeurIPS 2024 Papers

1. Sparse Graph Learning from Few Samples
Ana Perez, Jian Li, Wei Zhang
We propose a method for learning sparse graphs from few samples
and prove that it is consistent under mild conditions.

Furthermore, we show that the estimator is minimax optimal.

2. Robust Federated Averaging
Ben Okafor; Chen Wu
Federated learning suffers from heterogeneous clients. We introduce a robust
averaging rule and show it converges.
PDF Code

3. Diffusion Models for Tabular Data
Oral
We present a diffusion model for tabular data with mixed types. Experiments on twelve benchmarks show
gains over prior generators.
"""

LABELLED = """ICML 2024 Papers

Title: Learning to Rank with Pairwise Feedback
Authors: Ana Perez, Jian Li
Track: Theory · Learning Theory
Abstract: We study ranking from pairwise comparisons and give a near-optimal algorithm.
Keywords: ranking; bandits

Title: Scaling Laws for Retrieval
Authors: Wei Zhang
Track: Deep Learning · Retrieval
Abstract: We measure how retrieval quality scales with index size and model size, and fit a law.

Title: A Benchmark of Robot Grasps
Authors: Ben Okafor, Chen Wu
Abstract: We release a benchmark of ten thousand robot grasps with labels for success and failure.
"""

BULLETS = """Accepted Papers — CoRL 2024

• Learning Agile Locomotion on Rough Terrain
Ana Pérez, Ben Okafor
We train a quadruped controller in simulation and transfer it to rough terrain without fine-tuning.

• Grasping Transparent Objects
Chen Wu, Wei Zhang
We detect transparent objects from depth failures and grasp them with a learned policy; it works on glass.

• Tactile Servoing
Jian Li
Our tactile sensor gives contact geometry at 200 Hz, which we use to servo along edges of unknown objects.
"""

TRACKED = """论文检索

Papers · Poster

Ana Perez, Jian Li

We propose a method for learning sparse graphs from few samples and prove that it is consistent.

Papers · Oral

Ben Okafor, Chen Wu

Federated learning suffers from heterogeneous clients. We introduce a robust averaging rule.

Our experiments on six benchmarks show that the rule converges faster than the usual averaging.

Papers · Poster

Wei Zhang

We present a diffusion model for tabular data with mixed types and evaluate it on twelve benchmarks.

Papers · Poster

Jian Li, Wei Zhang

We release a benchmark of ten thousand robot grasps with labels for success and failure.
"""

# Wrapped abstracts, one label line: a second label line, even inside an abstract, makes the list labelled.
WRAPPED = """ICML 2024 Papers

Sparse Graph Learning from Few Samples

Ana Perez, Jian Li

We propose a method for learning sparse graphs from few samples
and prove that it is consistent under mild conditions.
Keywords: graphs

Robust Federated Averaging

Ben Okafor, Chen Wu

Federated learning suffers from heterogeneous clients. We introduce
a robust averaging rule and show that it converges on every benchmark
we tried, at the cost of one more round.

Diffusion Models for Tabular Data

Wei Zhang

We present a diffusion model for tabular data with mixed types.
Experiments on twelve benchmarks show gains over prior generators.
"""

EXTRA_LINES = ["We also add one sentence at the end.", "Ana Perez, Jian Li, Wei Zhang", "Machine Learning · Theory",
               "A Simple Method for Sparse Graphs", "PDF", "Title: A Labelled Title", "Abstract:", "Oral",
               "Furthermore, we extend the method to directed graphs.", "however, it fails on small data",
               "12. Numbered Now", "TL;DR: a short summary.", "See https://example.org/code", "Back to top",
               "收藏 | 分享 | 下载PDF"]


def _edits(text: str, rng: random.Random, count: int) -> list[tuple[str, str]]:
    """``count`` edits of list ``text`` of many kinds: ``(kind, edited text)``."""
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if clean(line)]
    long = [i for i in filled if len(line := lines[i]) > 120] or filled
    out = []
    for _ in range(count):
        kind = rng.choice(["append", "append", "append", "replace", "connective", "lower", "blank", "unblank",
                           "remove", "add", "duplicate", "spaces", "truncate", "empty", "control", "heading",
                           "prepend"])
        new = list(lines)
        i = rng.choice(long if kind in ("append", "duplicate", "truncate", "connective") else filled)
        if kind == "append":
            new[i] += " " + rng.choice(EXTRA_LINES[:1] + ["And more.", "It works (see the code)"])
        elif kind == "replace":
            new[i] = rng.choice(EXTRA_LINES)
        elif kind == "prepend":
            new[i] = rng.choice(["1. ", "• ", "Abstract: ", "**", "Title: "]) + new[i]
        elif kind == "connective":
            new[i] = "Furthermore, " + new[i][:1].lower() + new[i][1:]
        elif kind == "lower":
            new[i] = new[i][:1].lower() + new[i][1:]
        elif kind == "blank":
            new.insert(i, "")
        elif kind == "unblank":
            blanks = [k for k, line in enumerate(lines) if not clean(line) and 0 < k < filled[-1]]  # not at the end
            if blanks:
                del new[rng.choice(blanks)]
        elif kind == "remove":
            del new[i]
        elif kind == "add":
            new[i:i] = ["", "We propose a new estimator of treatment effects and prove that it is unbiased.", ""]
        elif kind == "duplicate":
            new[i] = lines[rng.choice(long)]
        elif kind == "spaces":
            new[i] += rng.choice(["  ", "\t", "\u00a0"])
        elif kind == "truncate":
            new[i] = new[i][: len(new[i]) // 2]
        elif kind == "empty":
            new[i] = ""
        elif kind == "control":
            new[i] = new[i][:5] + "\x07" + new[i][5:]
        elif kind == "heading":  # another heading (the same one would be no edit)
            first = filled[0]
            new[first] = rng.choice([h for h in ("ICLR 2025 Papers", "论文检索", "Papers of the year")
                                     if h != new[first]])
        out.append((kind, "\n".join(new)))
    return out


def _state_after(path: Path, venue, year, explicit) -> reader_reread.State | None:
    """The state of a full read of ``path``, after a round trip through the codec of the list cache."""
    result, state, used = reader_reread.read_list(str(path), venue, year, explicit)
    assert not used
    assert result == reader.read_list(path, venue, year, explicit)
    if state is None:
        return None
    data = store.decode(store.encode({"format": 0, **state.to_plain()}))
    return reader_reread.State.from_plain(data)


def _check(path: Path, old: str, new: str, venue, year, explicit=True) -> bool:
    """Read ``old`` in full, then ``new`` from its state: the same as a full read of ``new``; then back to
    ``old`` from the state of that read. Returns whether the state was used for ``new``."""
    path.write_text(old, encoding="utf-8")
    state = _state_after(path, venue, year, explicit)
    path.write_text(new, encoding="utf-8")
    expected = reader.read_list(path, venue, year, explicit)
    got, kept, used = reader_reread.read_list(str(path), venue, year, explicit, state)
    assert got.entries == expected.entries
    assert got.diagnostics == expected.diagnostics
    assert got == expected
    path.write_text(old, encoding="utf-8")
    back, _, _ = reader_reread.read_list(str(path), venue, year, explicit, kept)
    assert back == reader.read_list(path, venue, year, explicit)
    return used


@pytest.fixture(scope="module")
def bench_lists(tmp_path_factory) -> list[tuple[Path, str | None, int | None]]:
    """Lists of real papers in the benchmark's layouts (abstracts alone; track, authors, abstract),
    with their config defaults, and the seed and fixture lists, and lists in other layouts."""
    import tomllib

    folder = tmp_path_factory.mktemp("reread")
    records = load_corpus(SAMPLE, 700)
    written = write_lists(records, folder / "seeds", folder / "site.toml")
    lists = tomllib.loads((folder / "site.toml").read_text(encoding="utf-8")).get("lists", {})
    out = [(p, lists.get(p.name, {}).get("venue"), lists.get(p.name, {}).get("year")) for p in written]
    config = tomllib.loads((ROOT / "site.toml").read_text(encoding="utf-8")).get("lists", {})
    for p in sorted((ROOT / "seeds").glob("*.txt")):
        out.append((p, config.get(p.name, {}).get("venue"), config.get(p.name, {}).get("year")))
    out += [(ROOT / "tests/fixtures/hostile/hostile.txt", None, None),
            (ROOT / "tests/fixtures/keywords/corl.txt", None, None)]
    for name, text in (("numbered.txt", NUMBERED), ("labelled.txt", LABELLED), ("bullets.txt", BULLETS)):
        (folder / name).write_text(text, encoding="utf-8")
        out.append((folder / name, None, None))
    return out


def test_every_kind_of_edit_reads_as_a_full_read(bench_lists, tmp_path):
    rng = random.Random(8)
    used = {}
    for source, venue, year in bench_lists:
        old = source.read_text(encoding="utf-8")
        target = tmp_path / source.name  # the same name: diagnostics name the path read
        for kind, new in _edits(old, rng, 30 if len(old) < 20_000 else 14):
            if _check(target, old, new, venue, year):
                used[kind] = used.get(kind, 0) + 1
    # the state is really used for the edits it can take (else this test would compare full reads only)
    assert used.get("append", 0) >= 15 and used.get("truncate", 0) >= 5 and used.get("control", 0) >= 5
    assert used.get("duplicate", 0) >= 1 and used.get("spaces", 0) >= 1
    assert not {"blank", "unblank", "remove", "add", "heading"} & set(used)  # line counts or heading changed


def test_every_line_of_small_lists_replaced_by_every_kind_of_line(tmp_path):
    """Small lists of every layout (numbered with wrapped abstracts, labelled, bulleted, track and author
    lines with a paragraph quoted by a warning): every line replaced by every kind of line, or extended."""
    used = 0
    titles = ["Sparse Graph Learning", "Robust Federated Averaging", "Diffusion Models for Tables", "Learning to Rank",
              "Tactile Servoing Along Edges", "Grasping Transparent Objects", "Agile Locomotion on Terrain",
              "Causal Discovery at Scale", "Private Linear Regression", "Fast Optimal Transport", "Graph Neural Operators",
              "Sparse Attention Kernels"]
    names = ["Ana Perez, Jian Li", "Ben Okafor; Chen Wu", "Wei Zhang", "Jian Li, Wei Zhang"]
    parts = ["ICML 2024 Papers", ""]
    for k, title in enumerate(titles):  # paper 7 has no title or authors: read as a paragraph of paper 6
        parts += [f"{k + 1}. We further show that the bound is tight on every graph family we tried.", ""] if k == 6 \
            else [f"{k + 1}. {title}", names[k % 4], f"We study {title.lower()} and propose a simple, fast method.", ""]
    many = "\n".join(parts)
    assert "has no title, track or authors" in str(reader.read_text(many, "x").diagnostics)
    for name, text, venue, year in (("numbered.txt", NUMBERED, None, None), ("labelled.txt", LABELLED, None, None),
                                    ("bullets.txt", BULLETS, None, None), ("tracked.txt", TRACKED, "ICML", 2024),
                                    ("many.txt", many, None, None), ("wrapped.txt", WRAPPED, None, None),
                                    # one label line: a second one, even inside an abstract, makes the list labelled
                                    ("keywords.txt", NUMBERED.replace("Wei Zhang\n", "Wei Zhang\nKeywords: graphs\n"),
                                     None, None)):
        lines = text.split("\n")
        for i, line in enumerate(lines):
            for extra in EXTRA_LINES + [line + " And more.", line + "  "]:
                new = "\n".join(lines[:i] + [extra] + lines[i + 1:])
                used += _check(tmp_path / name, text, new, venue, year)
    assert used >= 40


def test_abstract_edits_anywhere_in_the_benchmark_layouts(bench_lists, tmp_path):
    """Every abstract line of two real lists (abstracts alone; track, authors, abstract), edited in turn."""
    for source, venue, year in bench_lists[:2]:
        old = source.read_text(encoding="utf-8")
        lines = old.split("\n")
        target = tmp_path / source.name
        long = [i for i, line in enumerate(lines) if len(line) > 200][:60]
        for i in long:
            new = lines[:i] + [lines[i] + " We add a sentence."] + lines[i + 1:]
            assert _check(target, old, "\n".join(new), venue, year)


def test_an_edit_that_changes_a_continuation_decision(tmp_path):
    """In a list of abstracts alone, an edited paragraph opening with a connective joins the abstract above."""
    records = load_corpus(SAMPLE, 120)
    paragraphs = [" ".join(r["abstract"].split()) for r in records if r.get("abstract")][:80]
    old = "ICLR 2025 Papers\n\n" + "\n\n".join(paragraphs) + "\n"
    new = old.replace(paragraphs[40], "Furthermore, " + paragraphs[40][:1].lower() + paragraphs[40][1:])
    target = tmp_path / "list.txt"
    target.write_text(old, encoding="utf-8")
    assert len(reader.read_list(target).entries) == 80
    target.write_text(new, encoding="utf-8")
    after = reader.read_list(target)
    assert len(after.entries) == 79  # joined the abstract above (silently or with a warning: the evidence decides)
    assert after.entries[39].abstract == paragraphs[39] + "\n\n" + "Furthermore, " + paragraphs[40][:1].lower() \
        + paragraphs[40][1:]
    assert _check(target, old, new, None, None)


def test_edits_of_a_compact_list_of_hard_wrapped_abstracts(tmp_path):
    """Title, authors and an abstract hard-wrapped at 80 columns in one block per paper (the wrapped lines
    are one paragraph, reader_items._paragraph_lines): every kind of edit reads as a full read."""
    import json
    import textwrap

    with open(SAMPLE, encoding="utf-8") as handle:
        records = [r for r in map(json.loads, handle) if r.get("title") and r.get("authors")
                   and "\n" not in r["abstract"].strip()][:40]
    parts = ["ICLR 2025 Papers", ""]
    for r in records:
        parts += [r["title"], ", ".join(r["authors"]), *textwrap.wrap(r["abstract"], 80), ""]
    text = "\n".join(parts)
    rng = random.Random(3)
    used = sum(_check(tmp_path / "wrapped.txt", text, new, None, None) for _, new in _edits(text, rng, 80))
    assert used >= 10  # the abstract edits are read from the state


def test_a_state_of_other_config_or_format_is_not_used(tmp_path):
    target = tmp_path / "labelled.txt"
    target.write_text(LABELLED, encoding="utf-8")
    state = _state_after(target, None, None, True)
    edited = LABELLED.replace("fit a law.", "fit a law. And more.")
    target.write_text(edited, encoding="utf-8")
    assert reader_reread.read_list(str(target), None, None, True, state)[2]
    assert not reader_reread.read_list(str(target), "ICML", 2024, True, state)[2]
    assert reader_reread.State.from_plain({**state.to_plain(), "layout": -1}) is None
    assert reader_reread.State.from_plain({"layout": reader_reread.STATE_FORMAT}) is None


def test_the_list_cache_rereads_an_edited_list_with_the_same_result(tmp_path, monkeypatch):
    """Through the list cache (states kept in the cache folder, ids and merge from the cache)."""
    folder = tmp_path / "b"
    written = write_lists(load_corpus(SAMPLE, 400), folder / "seeds", folder / "site.toml")
    cache = tmp_path / "cache"
    configured = [(p, None, None) if p.read_text(encoding="utf-8").startswith(("AISTATS", "ICLR")) else
                  (p, "AISTATS", 2024) for p in written]
    calls = []
    real = reader_reread.reread
    monkeypatch.setattr(reader_reread, "reread", lambda *a, **k: calls.append(r := real(*a, **k)) or r)
    listcache.read_lists(configured, BuildCache(cache))
    assert list((cache / listcache.FOLDER / listcache.STATES).glob("*.marshal"))
    target = written[0]
    text = target.read_text(encoding="utf-8")
    lines = text.split("\n")
    i = max(range(len(lines)), key=lambda k: len(lines[k]))
    for copy in (lines[i] + " We add a sentence.", lines[i + 2] if len(lines[i + 2]) > 200 else lines[i]):
        target.write_text("\n".join(lines[:i] + [copy] + lines[i + 1:]), encoding="utf-8")
        got = listcache.read_lists(configured, BuildCache(cache))
        assert got == reader.read_lists(configured)
    assert calls and all(c is not None for c in calls)


def test_edits_that_add_or_drop_blank_lines_at_the_end(bench_lists, tmp_path):
    """The benchmark's edit (a sentence appended to the last abstract, the text's trailing blank lines cut to
    one line end) and edits of the blank lines after the last non-blank one are read from the state; a line
    with text added at the end, or a blank line added or removed before the last text, is not."""
    ended = reread = 0
    for source, venue, year in bench_lists:
        old = source.read_text(encoding="utf-8")
        target = tmp_path / source.name
        body = old.rstrip("\n")
        ended += old.endswith("\n\n")
        generated = source.parent.name == "seeds" and source.parent != ROOT / "seeds"  # the benchmark's layouts
        for new in (body + " We also release our code.\n", body + "\n\n\n", body, body + "\n \n\t\n",
                    old + "\n\n", body + " We also release our code."):
            used = _check(target, old, new, venue, year)  # the same result as a full read, state used or not
            assert used or not generated, (source.name, new[-40:])
            reread += used
        for new in (body + "\n\nWe propose a new estimator and prove that it is unbiased.\n",
                    body + "\nAnd more.\n"):
            assert not _check(target, old, new, venue, year)
        lines = body.split("\n")
        last_blank = max(i for i, line in enumerate(lines) if not clean(line))
        assert not _check(target, old, "\n".join(lines[:last_blank] + lines[last_blank + 1:]) + "\n\n", venue, year)
    assert ended >= 2  # the benchmark's lists end in a blank line: their edit drops it
    assert reread >= 6 * 4, reread


def test_the_list_cache_takes_the_digests_the_build_already_made(tmp_path):
    """:func:`unchanged.inputs_digest` hands each list's SHA-256 to the list cache: a list whose digest
    matches its cache file is not read again, and one whose digest does not (the list changed) is."""
    import hashlib
    from dataclasses import astuple

    from site_builder.incremental import unchanged
    from site_builder.config import load_config

    folder = tmp_path / "b"
    written = write_lists(load_corpus(SAMPLE, 300), folder / "seeds", folder / "site.toml")
    config = load_config(folder / "site.toml")
    cache = tmp_path / "cache"
    configured = [(p, *astuple(config.list_defaults(p.name))) for p in written]
    expected = reader.read_lists(configured)
    assert listcache.read_lists(configured, BuildCache(cache)) == expected
    digests: dict = {}
    unchanged.inputs_digest("code", written, folder / "seeds/overrides.toml", config, False, None, [], [], "now",
                            digests)
    assert digests == {str(p): hashlib.sha256(p.read_bytes()).digest() for p in written}
    reads = []
    real = Path.read_bytes
    try:
        Path.read_bytes = lambda self: reads.append(self) or real(self)
        assert listcache.read_lists(configured, BuildCache(cache), digests) == expected
        assert not [p for p in reads if p.suffix == ".txt"]  # no list read again
        # a digest that is not the list's: that list is read again (in full, as its state is of other bytes)
        reads.clear()
        stale = {**digests, str(written[0]): hashlib.sha256(b"other bytes").digest()}
        assert listcache.read_lists(configured, BuildCache(cache), stale) == expected
        assert [p for p in reads if p.suffix == ".txt"] and all(str(p) == str(written[0])
                                                               for p in reads if p.suffix == ".txt")
    finally:
        Path.read_bytes = real


def test_an_edited_lists_cache_files_written_later_are_those_written_at_once(tmp_path):
    """``defer_writes``: the edited list's cache file and state are written by ``run_deferred``, not while
    reading; what they hold is what an immediate write holds, and the next read takes the list from them."""
    folder = tmp_path / "b"
    written = write_lists(load_corpus(SAMPLE, 300), folder / "seeds", folder / "site.toml")
    configured = [(p, "AISTATS", 2024) for p in written]
    now, later = tmp_path / "now", tmp_path / "later"
    for cache in (now, later):
        listcache.read_lists(configured, BuildCache(cache))
    target = written[0]
    target.write_text(target.read_text(encoding="utf-8").rstrip("\n") + " We also release our code.\n",
                      encoding="utf-8")
    expected = reader.read_lists(configured)
    before = {p: p.read_bytes() for p in sorted(later.rglob("*.marshal"))}
    assert listcache.read_lists(configured, BuildCache(now)) == expected
    deferred = BuildCache(later)
    assert listcache.read_lists(configured, deferred, defer_writes=True) == expected
    assert {p: p.read_bytes() for p in sorted(later.rglob("*.marshal"))} == before  # nothing written yet
    deferred.run_deferred()
    changed = [p for p in sorted(later.rglob("*.marshal")) if p.read_bytes() != before[p]]
    assert len(changed) == 2  # the list's cache file and its state
    for p in changed:
        same = now / p.relative_to(later)
        assert store.decode(p.read_bytes()) == store.decode(same.read_bytes())
    reads = []
    real = listcache.read_one
    try:
        listcache.read_one = lambda item: reads.append(item) or real(item)
        assert listcache.read_lists(configured, BuildCache(later)) == expected
    finally:
        listcache.read_one = real
    assert not reads  # every list from its cache file
    deferred.run_deferred()  # once only: nothing left
    assert [p for p in sorted(later.rglob("*.marshal")) if p.read_bytes() != before[p]] == changed


def test_a_build_hands_the_list_cache_its_digests_and_writes_an_edited_list_beside_the_pages(tmp_path, monkeypatch):
    """Through :func:`pipeline.build`: the list cache gets the lists' digests from the inputs' digest and
    defers the edited list's writes; they are written by the end of the build (the next build reads
    nothing), and the site is the one a build without the cache makes."""
    import hashlib
    from dataclasses import astuple

    from site_builder import pipeline
    from site_builder.config import load_config

    folder = tmp_path / "b"
    written = write_lists(load_corpus(SAMPLE, 300), folder / "seeds", folder / "site.toml")
    config = load_config(folder / "site.toml")
    cache = tmp_path / "cache"
    seen = []
    real = listcache.read_lists
    monkeypatch.setattr(listcache, "read_lists", lambda configured, c=None, *a, **k: seen.append(
        (dict(c.file_digests), c.defer_writes)) or real(configured, c, *a, **k))
    assert not pipeline.build(folder / "seeds", tmp_path / "site", config, cache=cache).diagnostics.errors
    assert seen[-1] == ({str(p): hashlib.sha256(p.read_bytes()).digest() for p in written}, True)
    target = written[0]
    target.write_text(target.read_text(encoding="utf-8").rstrip("\n") + " We also release our code.\n",
                      encoding="utf-8")
    pipeline.build(folder / "seeds", tmp_path / "site", config, cache=cache)
    reads = []
    real_one = listcache.read_one
    with monkeypatch.context() as patch:  # undone before the build below, whose forked workers take read_one
        patch.setattr(listcache, "read_one", lambda item: reads.append(item) or real_one(item))
        assert listcache.read_lists([(p, *astuple(config.list_defaults(p.name))) for p in written],
                                    BuildCache(cache)) == reader.read_lists(
            [(p, *astuple(config.list_defaults(p.name))) for p in written])
    assert not reads  # the edited list's cache file was written by the build
    pipeline.build(folder / "seeds", tmp_path / "fresh", config)
    assert_same_site(tmp_path / "fresh", tmp_path / "site", placed_map=True)


def test_lists_read_from_their_state_are_read_before_workers_fork(tmp_path, monkeypatch):
    """With workers available and lists enough to fork them: the edited lists that their kept state can
    read are read in this process first (no pool for them), the others in the pool; the same results."""
    from site_builder import parallel

    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    folder = tmp_path / "b"
    written = write_lists(load_corpus(SAMPLE, 1200), folder / "seeds", folder / "site.toml")
    configured = [(p, "AISTATS", 2024) for p in written]
    big = sorted(written, key=lambda p: -p.stat().st_size)[:4]
    assert sum(p.stat().st_size for p in big) >= listcache.MIN_PARALLEL_BYTES
    cache = tmp_path / "cache"
    listcache.read_lists(configured, BuildCache(cache))
    pools = []
    real_pool = parallel.fork_pool
    monkeypatch.setattr(parallel, "fork_pool", lambda n: pools.append(n) or real_pool(n))
    for p in big:  # edits the kept state takes
        p.write_text(p.read_text(encoding="utf-8").rstrip("\n") + " We also release our code.\n", encoding="utf-8")
    assert listcache.read_lists(configured, BuildCache(cache)) == reader.read_lists(configured)
    assert not pools
    for p in big[1:]:  # edits that need a full read (a paper added), and one the state takes
        p.write_text(p.read_text(encoding="utf-8") + "\nWe propose a new estimator and prove it unbiased.\n",
                     encoding="utf-8")
    big[0].write_text(big[0].read_text(encoding="utf-8").rstrip("\n") + " And more.\n", encoding="utf-8")
    assert listcache.read_lists(configured, BuildCache(cache)) == reader.read_lists(configured)
    assert pools == [2]


@pytest.mark.parametrize("before, after", [("Reading group list", "Papers we liked"),
                                           ("Reading group list", "Jane Doe"),
                                           ("Jane Doe", "Reading group list"), ("Maria Garcia", "Deep learning notes")])
def test_an_edit_of_a_first_line_that_may_be_a_heading_naming_no_venue(tmp_path, before, after):
    """A list's first line of its own, above title / authors / abstract papers, edited: read again as a full read
    reads it (the line is a heading naming no venue, or, a name, the first paper's authors)."""
    records = [r for r in load_corpus(SAMPLE, 40) if r.get("title") and len(r.get("authors") or ()) >= 2][:3]
    blocks = [f"{r['title']}\n{', '.join(r['authors'])}\n{' '.join(r['abstract'].split())}" for r in records]
    text = "\n\n".join(blocks) + "\n"
    _check(tmp_path / "l.txt", f"{before}\n\n{text}", f"{after}\n\n{text}", "ICML", 2024)
