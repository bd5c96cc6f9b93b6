"""The search index built with the tokenized papers kept between builds (site_builder/search/state.py, kept by
the build cache's Store) is exactly the index built from scratch, cold and after every kind of edit, and a bad
state file changes nothing but a warning."""

from __future__ import annotations

import dataclasses
import json
import random
from functools import lru_cache

import numpy as np
import pytest

from search_helpers import seed_model
from site_builder.model import urls
from site_builder.diagnostics import Diagnostics
from site_builder.incremental import store as store_module
from site_builder.incremental.digest import code_version
from site_builder.incremental.store import Store
from site_builder.search import state as index_state
from papers_sample import SAMPLE
from site_builder.corpus import corpus_site, read_corpus
from site_builder.search.indexer import IndexTables, index_tables
from site_builder.search.documents import FIELDS, paper_terms, result_facet
from site_builder.search.index import index_files, search_record, search_tables
from site_builder.search.shards import shard_files


@lru_cache(maxsize=1)
def sample_site():
    """The seed papers followed by 300 real papers of the sample (the other 50 feed 'paper added')."""
    seeds = seed_model()
    corpus = corpus_site(read_corpus(SAMPLE, sample=350, seed=3))
    return dataclasses.replace(seeds, papers=tuple(seeds.papers) + tuple(corpus.papers[:300])), corpus.papers[300:]


def fresh_tables(papers) -> IndexTables:
    refs = [urls.search_ref(i) for i in range(len(papers))]
    return index_tables(((r, paper_terms(p)) for r, p in zip(refs, papers)), FIELDS)


def stateful(papers, store) -> IndexTables:
    return index_state.stateful_tables(papers, [urls.search_ref(i) for i in range(len(papers))], store)


def store_in(folder, code: str | None = None) -> Store:
    """The build cache's store of ``folder`` (this code version, or ``code``), with diagnostics of its own."""
    return Store(folder, code or code_version(), Diagnostics())


def warnings_of(store: Store) -> list[str]:
    """The store's warnings so far, as printed; forgets them."""
    found = [str(d) for d in store.diagnostics.items]
    store.diagnostics.items.clear()
    return found


def assert_same(got: IndexTables, want: IndexTables, context: str = "") -> None:
    for field in dataclasses.fields(IndexTables):
        a, b = getattr(got, field.name), getattr(want, field.name)
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, (context, field.name)
            assert np.array_equal(a, b), (context, field.name)
        else:
            assert type(a) is type(b) and a == b, (context, field.name)


def with_abstract(paper, abstract):
    return dataclasses.replace(paper, abstract=abstract,
                               rendered=dataclasses.replace(paper.rendered, text=abstract))


def edits(papers, extra):
    """``(name, papers)`` in sequence, each an edit of the one before, as successive builds see them."""
    rng = random.Random(8)
    p = list(papers)
    i = rng.randrange(len(p))
    p[i] = with_abstract(p[i], p[i].abstract + " We also evaluate robustness under distribution shift.")
    yield "one abstract changed", list(p)
    j = rng.randrange(len(p))
    p[j] = dataclasses.replace(p[j], title="Sparse *Attention* Revisited")
    yield "a title changed", list(p)
    k = rng.randrange(len(p))
    p[k] = dataclasses.replace(p[k], authors=tuple(p[k].authors) + ("Zoë Ångström-Nakamura",))
    yield "an author added", list(p)
    p.insert(rng.randrange(len(p)), extra[0])
    yield "a paper added", list(p)
    del p[rng.randrange(len(p))]
    yield "a paper removed", list(p)
    m = rng.randrange(len(p))
    before = p[m]
    unique = "Qwxyzzorbitron 𝒬uasitron 𠮷野家 \ufa0e\ufa0f \U00010400deseret"
    p[m] = with_abstract(p[m], p[m].abstract + " " + unique)
    yield "new words only that paper has (astral and BMP CJK among them)", list(p)
    p[m] = before
    yield "the words only that paper had removed", list(p)
    p = [dataclasses.replace(q, title=q.title + " Again") for q in p]
    yield "every paper changed", list(p)
    rng.shuffle(p)
    yield "papers reordered", list(p)
    p = p[: len(p) // 2] + list(extra[1:])
    yield "half the papers removed, others added", list(p)
    yield "nothing changed", list(p)
    yield "no papers", []
    yield "papers again after none", list(papers)


def test_cold_state_equals_index_tables(tmp_path):
    site, _ = sample_site()
    store = store_in(tmp_path)
    assert_same(stateful(site.papers, store), fresh_tables(site.papers))
    assert store.path(index_state.STATE_NAME).is_file()
    assert index_state.load_state(store) is not None
    assert_same(stateful(site.papers, store), fresh_tables(site.papers))  # warm, nothing to tokenize


def test_state_after_edits_equals_index_tables(tmp_path):
    site, extra = sample_site()
    store = store_in(tmp_path)
    stateful(site.papers, store)
    terms = {}
    for name, papers in edits(site.papers, extra):
        want = fresh_tables(papers)
        terms[name] = set(want.terms)
        assert_same(stateful(papers, store), want, name)
        # The saved state holds exactly this build's papers and only terms they use.
        state = index_state.load_state(store)
        if papers:
            assert state is not None, name
            assert len(state.digests) == len(papers), name
            assert tuple(state.vocab) == want.terms, name
    # The edits are real: the word added only to one paper comes and goes.
    added, removed = "new words only that paper has (astral and BMP CJK among them)", "the words only that paper had removed"
    assert {"qwxyzzorbitron", "quasitron", "\U00020bb7野", "\ufa0e\ufa0f"} <= terms[added]
    assert not {"qwxyzzorbitron", "quasitron", "\U00020bb7野", "\ufa0e\ufa0f"} & terms[removed]
    assert terms["one abstract changed"] != terms["every paper changed"]


def test_only_changed_papers_are_tokenized(tmp_path, monkeypatch):
    site, _ = sample_site()
    store = store_in(tmp_path)
    stateful(site.papers, store)
    calls = []
    real = index_state.document_terms
    monkeypatch.setattr(index_state, "document_terms", lambda texts: calls.append(texts) or real(texts))
    papers = list(site.papers)
    papers[5] = with_abstract(papers[5], papers[5].abstract + " One more sentence.")
    assert_same(stateful(papers, store), fresh_tables(papers))
    assert len(calls) == 1 and calls[0]["abstract"][0].endswith("One more sentence.")


def reference_files(site) -> dict[str, str]:
    """The index's files as :func:`shard_files` writes them from the index built from scratch (no state)."""
    return shard_files(*search_tables(site))


def test_index_files_are_byte_identical(tmp_path):
    site, extra = sample_site()
    store = store_in(tmp_path)
    assert index_files(site, store) == reference_files(site) == index_files(site)
    changed = dataclasses.replace(site, papers=next(iter(edits(site.papers, extra)))[1])
    assert index_files(changed, store) == reference_files(changed)
    tables, docs = search_tables(changed, store)
    assert docs == search_tables(changed)[1]


def test_index_files_packed_and_scored_in_small_chunks_are_byte_identical(tmp_path, monkeypatch):
    """The entries scored (indexer.SCORE_CHUNK) and packed (shards.PACK_CHUNK: cut between terms, a term with
    more entries alone) a few at a time give the files of doing each at once, and the files come one at a
    time: the records made as they are written."""
    from site_builder.search import indexer, shards
    site, _ = sample_site()
    whole = reference_files(site)
    tables = search_tables(site)[0]
    monkeypatch.setattr(indexer, "SCORE_CHUNK", 5)
    monkeypatch.setattr(shards, "PACK_CHUNK", 7)
    ranges = list(shards.term_chunks(tables.term, 7))
    assert ranges[0][0] == 0 and ranges[-1][1] == len(tables.term) and len(ranges) > 1000
    assert all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:]))
    assert all(tables.term[b - 1] != tables.term[b] for _, b in ranges[:-1])  # cut between two terms
    assert any(b - a > 7 for a, b in ranges)  # a term of more entries than a chunk: a range alone
    assert all(b - a <= 7 or tables.term[a] == tables.term[b - 1] for a, b in ranges)
    made = []
    records = (made.append(p) or search_record(p) for p in site.papers)
    items = shards.shard_items(tables, [result_facet(p) for p in site.papers], records)
    first = [next(items) for _ in range(3)]
    assert not made  # the manifest and term shards come before any record is made
    assert dict(first + list(items)) == whole == index_files(site, store_in(tmp_path))
    assert len(made) == len(site.papers)


def test_index_files_after_edits_are_byte_identical(tmp_path):
    """The index's files written from the kept tokens equal those written from scratch after every kind of
    edit, including edits only the result records show."""
    site, extra = sample_site()
    store = store_in(tmp_path)
    assert index_files(site, store) == reference_files(site)
    sequence = list(edits(site.papers, extra))
    p = list(sequence[0][1])
    p[7] = dataclasses.replace(p[7], et_al=not p[7].et_al)
    p[9] = dataclasses.replace(p[9], slug=p[9].slug + "-moved")
    sequence.insert(1, ("only what a result shows changed", p))
    for name, papers in sequence:
        edited = dataclasses.replace(site, papers=tuple(papers))
        assert index_files(edited, store) == reference_files(edited), name
        if papers:
            assert index_state.load_state(store) is not None, name


def test_model_digests_spare_hashing_unchanged_papers_and_change_no_byte(tmp_path, monkeypatch):
    """With the papers' model digests (Fingerprinter, as the index process has them), the state finds the
    papers it holds without hashing their texts: paper_digest runs only for papers whose model digest the
    previous build did not have; the index's files stay those written from scratch after every edit,
    also after edits the model digest sees but the index does not (a paper's line in its list)."""
    from site_builder.incremental.digest import Fingerprinter

    site, extra = sample_site()
    store = store_in(tmp_path)
    assert index_files(site, store, Fingerprinter().digests(site.papers)) == reference_files(site)
    assert index_state.load_state(store).models == Fingerprinter().digests(site.papers)
    calls = []
    real = index_state.paper_digest
    monkeypatch.setattr(index_state, "paper_digest", lambda paper: calls.append(paper) or real(paper))
    sequence = list(edits(site.papers, extra))
    p = list(sequence[0][1])
    p[3] = dataclasses.replace(p[3], line=p[3].line + 1)
    sequence.insert(1, ("a paper moved down its list (nothing the index shows changed)", p))
    previous = set(Fingerprinter().digests(site.papers))
    for name, papers in sequence:
        edited = dataclasses.replace(site, papers=tuple(papers))
        models = Fingerprinter().digests(papers)
        calls.clear()
        assert index_files(edited, store, models) == reference_files(edited), name
        assert len(calls) == sum(m not in previous for m in models), name
        if papers:
            assert index_state.load_state(store).models == models, name
        previous = set(models)
    assert len(sequence) > 10
    with pytest.raises(ValueError):
        index_files(site, store, Fingerprinter().digests(site.papers)[1:])


#: What a damaged state file gives on loading: the store's corrupt-file warning, its unreadable-file warning,
#: or nothing (another code version or store format, an inconsistent or malformed value: quietly ignored).
CORRUPT, UNREADABLE, QUIET = "cache file corrupt, ignored", "cache file unreadable, ignored", None
DAMAGES = {"garbage": CORRUPT, "truncated": CORRUPT, "empty": CORRUPT, "other code version": QUIET,
           "other store format": QUIET, "term numbers out of range": QUIET, "a malformed value": QUIET,
           "a directory": UNREADABLE}


def damage_state(store: Store, damage: str, monkeypatch) -> None:
    """Damage the state file ``store`` keeps (see :data:`DAMAGES`)."""
    path = store.path(index_state.STATE_NAME)
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(5000)))
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "other code version":  # the same value, kept by another version of the code
        store_in(store.folder, "0" * 64).keep(index_state.STATE_NAME, store.kept(index_state.STATE_NAME))
    elif damage == "other store format":
        value = store.kept(index_state.STATE_NAME)
        with monkeypatch.context() as patch:
            patch.setattr(store_module, "FORMAT", store_module.FORMAT + 1)
            store.keep(index_state.STATE_NAME, value)
    elif damage == "term numbers out of range":
        state = index_state.load_state(store)
        state.term = state.term.copy()  # (a loaded state's arrays are read-only views of the file's bytes)
        state.term[0] = len(state.vocab) + 5
        assert index_state.save_state(store, state) is None
    elif damage == "a malformed value":  # a well-formed file, a field of another type
        value = store.kept(index_state.STATE_NAME)
        value["vocab_size"] = str(value["vocab_size"])
        store.keep(index_state.STATE_NAME, value)
    elif damage == "a directory":
        path.unlink()
        path.mkdir()


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_bad_state_file_gives_the_same_output(tmp_path, monkeypatch, damage):
    """A damaged state is not used (a corrupt or unreadable file with the store's warning, naming it; another
    code version or an inconsistent value quietly) and is rewritten; the index is the one made from scratch."""
    site, _ = sample_site()
    store = store_in(tmp_path)
    path = store.path(index_state.STATE_NAME)
    stateful(site.papers, store)
    assert warnings_of(store) == []
    damage_state(store, damage, monkeypatch)
    assert index_state.load_state(store) is None
    found = warnings_of(store)
    if DAMAGES[damage] is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].startswith(f"{path}: warning: {DAMAGES[damage]}: "), found
    papers = list(site.papers)
    papers[3] = with_abstract(papers[3], papers[3].abstract + " Changed.")
    assert_same(stateful(papers, store), fresh_tables(papers))
    assert index_files(site, store) == index_files(site)
    if damage != "a directory":
        assert index_state.load_state(store) is not None  # rewritten
        assert warnings_of(store) == found  # (once more: read again by the build that rewrote it)
    else:  # cannot be rewritten: the store's one write warning
        assert any(f"{path}: warning: {store_module.WRITE_WARNING}" in m for m in warnings_of(store))
        assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind


@pytest.mark.parametrize("where", ["middle", "vocabulary"])
def test_a_damaged_byte_in_the_kept_value_is_found_and_warned(tmp_path, where):
    """A byte changed inside the kept state, even where marshal still reads it (a letter of a term of the
    vocabulary), fails the store's checksum: the state is not used, with the store's corrupt-file warning,
    and rewritten."""
    site, _ = sample_site()
    store = store_in(tmp_path)
    path = store.path(index_state.STATE_NAME)
    stateful(site.papers, store)
    term = next(t for t in index_state.load_state(store).vocab if t.isascii() and t.isalpha() and len(t) > 6)
    data = bytearray(path.read_bytes())
    at = len(data) // 2 if where == "middle" else data.find(f"\0{term}\0".encode("ascii")) + 1
    assert at > 0
    data[at] = ord("q") if data[at] != ord("q") else ord("z")
    path.write_bytes(bytes(data))
    assert index_state.load_state(store) is None
    found = warnings_of(store)
    assert len(found) == 1 and found[0].startswith(f"{path}: warning: cache file corrupt, ignored"), found
    if where == "vocabulary":
        assert found[0].endswith("checksum mismatch")
    assert_same(stateful(site.papers, store), fresh_tables(site.papers))
    assert index_state.load_state(store) is not None


def test_the_state_is_kept_as_a_value_of_marshal_data_and_loads_equal(tmp_path):
    """The kept value holds only str, bytes, int and None (arrays as little-endian bytes, the vocabulary one
    NUL-joined str) under the store's header, and loads back to an equal state; keeping it removes the state
    file of an older version (``search-terms.npz``)."""
    site, _ = sample_site()
    store = store_in(tmp_path)
    index_files(site, store, None)
    state = index_state.load_state(store)
    value = store.kept(index_state.STATE_NAME)
    assert set(value) == {"digests", "models", "vocab", "vocab_size", "lengths", "starts", "term", "tf"}
    plain = (str, bytes, int, type(None))
    assert all(isinstance(v, plain) for v in value.values())
    assert value["vocab"] == "\0".join(state.vocab) and len(value["digests"]) == 16 * len(site.papers)
    assert value["term"] == state.term.astype("<i4").tobytes()
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "search-terms.npz").write_bytes(b"PK\x03\x04 the state as an older version kept it")
    assert index_state.save_state(store_in(tmp_path / "copy"), state) is None
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == [index_state.STATE_NAME]  # the old file removed
    again = index_state.load_state(store_in(tmp_path / "copy"))
    for field in dataclasses.fields(index_state.TermState):
        a, b = getattr(again, field.name), getattr(state, field.name)
        if isinstance(b, np.ndarray):
            assert np.array_equal(a, b) and a.dtype == b.dtype, field.name
        else:
            assert a == b, field.name
    assert index_state.load_state(None) is None and index_state.save_state(None, state) is None
    disabled = store_in(None)
    assert index_state.load_state(disabled) is None and index_state.save_state(disabled, state) is None


def test_paper_digest_tells_every_read_field_apart():
    """Every text the index or the result record reads changes the digest, also when texts move between fields."""
    site, _ = sample_site()
    paper = next(p for p in site.papers if p.track is not None and len(p.authors) >= 2)
    track = paper.track
    variants = [
        dataclasses.replace(paper, title=paper.title + " x"),
        dataclasses.replace(paper, authors=paper.authors[:1]),
        dataclasses.replace(paper, authors=(paper.authors[0] + paper.authors[1],) + paper.authors[2:]),
        dataclasses.replace(paper, et_al=not paper.et_al),
        dataclasses.replace(paper, track=None),
        dataclasses.replace(paper, track=dataclasses.replace(track, parts=track.parts + ("More",))),
        dataclasses.replace(paper, abstract=paper.abstract + " x"),
        dataclasses.replace(paper, rendered=dataclasses.replace(paper.rendered, text=paper.rendered.text + " x")),
        dataclasses.replace(paper, id=paper.id[::-1]),
        dataclasses.replace(paper, slug=paper.slug + "-2"),
        dataclasses.replace(paper, venue=dataclasses.replace(paper.venue, name=paper.venue.name + "X")),
    ]
    digests = {index_state.paper_digest(p) for p in [paper] + variants}
    assert len(digests) == 1 + len(variants)
    assert index_state.paper_digest(dataclasses.replace(paper)) == index_state.paper_digest(paper)
    assert index_state.paper_digest(dataclasses.replace(paper, source="elsewhere.txt", line=7)) == \
        index_state.paper_digest(paper)  # where it was read is not shown


def test_snippet_reads_only_the_start_yet_equals_the_whole_text_collapsed():
    """``snippet`` collapses only a prefix of long texts: the result is that of the whole text collapsed."""
    from site_builder.search.documents import snippet

    site, _ = sample_site()
    texts = [p.rendered.text for p in site.papers] + [p.abstract.replace(" ", "  \n\t ") for p in site.papers]
    texts += ["word " * 400, " " * 1000 + "a b", "x" * 1000, "a" + " " * 900 + "b" * 300]
    for text in texts:
        for limit in (200, 60, 12):
            collapsed = " ".join(text.split())
            assert snippet(text, limit) == snippet(collapsed, limit)
            assert " ".join(snippet(text, limit).rstrip("…").split()) == snippet(text, limit).rstrip("…")
            assert collapsed.startswith(snippet(text, limit).rstrip("…").rstrip(" ,;:"))


def test_build_keeps_the_state_in_the_cache_folder_and_retokenizes_only_the_changed_paper(tmp_path, monkeypatch):
    """Through the command line: the cache folder gets the state; after one abstract changed in a list,
    the rebuild tokenizes that paper alone and writes the same index files as a build without cache."""
    import shutil

    from conftest import SEEDS, build_into

    seeds, cache, site = tmp_path / "seeds", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(SEEDS, seeds)
    assert build_into(site, "--cache", str(cache), seeds=seeds) == 0
    assert index_state.load_state(store_in(cache)) is not None
    path = next(seeds.glob("003_*.txt"))
    old = "Controllability has become a critical issue in trustworthy machine learning"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, f"Quokkaformers are new. {old}", 1), encoding="utf-8")
    # the index is built in a forked process (index_run.py): its calls are written to a file to be seen here
    log = tmp_path / "tokenized.jsonl"
    real = index_state.document_terms

    def logged(texts):
        with log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(texts["abstract"]) + "\n")
        return real(texts)

    monkeypatch.setattr(index_state, "document_terms", logged)
    assert build_into(site, "--cache", str(cache), seeds=seeds) == 0
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(calls) == 1 and "Quokkaformers are new." in calls[0][0]
    assert build_into(tmp_path / "plain", "--no-cache", seeds=seeds) == 0
    index = {f.relative_to(site): f.read_bytes() for f in sorted((site / "search").rglob("*.js"))}
    assert index == {f.relative_to(tmp_path / "plain"): f.read_bytes()
                     for f in sorted((tmp_path / "plain" / "search").rglob("*.js"))}
    assert any(b"Quokkaformers are new." in text for text in index.values())  # the result snippet


@pytest.mark.parametrize("damage", ["corrupt", "a directory"])
def test_the_index_process_hands_the_state_warnings_to_the_build(tmp_path, monkeypatch, damage):
    """The index is built in a forked process of its own: the store's warnings there (a corrupt state file; one
    that cannot be read or written) reach the build's report as in one process, the write warning once; the
    site is a no-cache build's, and a corrupt state is rewritten (the next build is quiet)."""
    import shutil

    from conftest import CONFIG, SEEDS, assert_same_site
    from site_builder import parallel
    from site_builder.config import load_config
    from site_builder.pipeline import build

    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    started = []
    real_start = parallel.start_background
    def start(job):
        started.append((job.__qualname__, real_start(job)))
        return started[-1][1]

    monkeypatch.setattr(parallel, "start_background", start)
    seeds, cache, site = tmp_path / "seeds", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(SEEDS, seeds)
    build(seeds, site, load_config(CONFIG), cache=cache)
    path = cache / index_state.STATE_NAME
    if damage == "corrupt":
        path.write_bytes(b"not a cache file")
    else:
        path.unlink()
        path.mkdir()
    listed = next(seeds.glob("003_*.txt"))
    old = "Controllability has become a critical issue in trustworthy machine learning"
    listed.write_text(listed.read_text(encoding="utf-8").replace(old, f"Quokkaformers are new. {old}", 1),
                      encoding="utf-8")
    started.clear()
    report = build(seeds, site, load_config(CONFIG), cache=cache)
    assert [worker is not None for name, worker in started if name.startswith("index_job.")] == [True]  # forked
    found = [str(d) for d in report.diagnostics.warnings]
    if damage == "corrupt":
        assert found == [f"{path}: warning: cache file corrupt, ignored: not a cache file"]
    else:
        assert found[0].startswith(f"{path}: warning: cache file unreadable, ignored: ")
        assert found[1:] == [f"{path}: warning: cannot write the build cache: Is a directory"]
    build(tmp_path / "seeds", tmp_path / "plain", load_config(CONFIG), cache=None)
    assert_same_site(tmp_path / "plain", site, placed_map=True)
    if damage == "corrupt":
        listed.write_text(listed.read_text(encoding="utf-8").replace("Quokkaformers are new. ", ""), encoding="utf-8")
        assert build(seeds, site, load_config(CONFIG), cache=cache).diagnostics.warnings == []


def test_papers_without_any_term_after_an_empty_site(tmp_path):
    """A state of no papers, then papers whose texts are all stop words, then real ones: still the reference."""
    site, _ = sample_site()
    p = site.papers[0]
    blank = dataclasses.replace(p, title="The of", authors=(), track=None, abstract="and the",
                                rendered=dataclasses.replace(p.rendered, text="and the"))
    store = store_in(tmp_path)
    for papers in [(), (blank,), (), (blank,), (blank, site.papers[1]), (site.papers[1], blank)]:
        edited = dataclasses.replace(site, papers=papers)
        assert index_files(edited, store) == reference_files(edited), len(papers)
