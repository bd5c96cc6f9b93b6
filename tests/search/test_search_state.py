"""The search index built with the tokenized papers kept between builds (site_builder/search/state.py)
is exactly the index built from scratch, cold and after every kind of edit, and a bad state file
changes nothing."""

from __future__ import annotations

import dataclasses
import json
import random
from functools import lru_cache

import numpy as np
import pytest

from search_helpers import seed_model
from site_builder.search import state as index_state
from papers_sample import SAMPLE
from site_builder.corpus import corpus_site, read_corpus
from site_builder.search.indexer import IndexTables, index_tables
from site_builder.search.documents import FIELDS, paper_terms, short_ref
from site_builder.search.index import index_files, search_tables
from site_builder.search.transport import index_script
from site_builder.model.urls import SEARCH_INDEX_JS


@lru_cache(maxsize=1)
def sample_site():
    """The seed papers followed by 300 real papers of the sample (the other 50 feed 'paper added')."""
    seeds = seed_model()
    corpus = corpus_site(read_corpus(SAMPLE, sample=350, seed=3))
    return dataclasses.replace(seeds, papers=tuple(seeds.papers) + tuple(corpus.papers[:300])), corpus.papers[300:]


def fresh_tables(papers) -> IndexTables:
    refs = [short_ref(i) for i in range(len(papers))]
    return index_tables(((r, paper_terms(p)) for r, p in zip(refs, papers)), FIELDS)


def stateful(papers, path) -> IndexTables:
    return index_state.stateful_tables(papers, [short_ref(i) for i in range(len(papers))], path)


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
    path = tmp_path / index_state.STATE_NAME
    assert_same(stateful(site.papers, path), fresh_tables(site.papers))
    assert path.is_file()
    assert index_state.load_state(path) is not None
    assert_same(stateful(site.papers, path), fresh_tables(site.papers))  # warm, nothing to tokenize


def test_state_after_edits_equals_index_tables(tmp_path):
    site, extra = sample_site()
    path = tmp_path / index_state.STATE_NAME
    stateful(site.papers, path)
    terms = {}
    for name, papers in edits(site.papers, extra):
        want = fresh_tables(papers)
        terms[name] = set(want.terms)
        assert_same(stateful(papers, path), want, name)
        # The saved state holds exactly this build's papers and only terms they use.
        state = index_state.load_state(path)
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
    path = tmp_path / index_state.STATE_NAME
    stateful(site.papers, path)
    calls = []
    real = index_state.document_terms
    monkeypatch.setattr(index_state, "document_terms", lambda texts: calls.append(texts) or real(texts))
    papers = list(site.papers)
    papers[5] = with_abstract(papers[5], papers[5].abstract + " One more sentence.")
    assert_same(stateful(papers, path), fresh_tables(papers))
    assert len(calls) == 1 and calls[0]["abstract"][0].endswith("One more sentence.")


def reference_files(site) -> dict[str, str]:
    """search-index.js as transport.index_script writes it from the index built from scratch (no state)."""
    return {SEARCH_INDEX_JS: index_script(*search_tables(site))}


def test_search_index_js_is_byte_identical(tmp_path):
    site, extra = sample_site()
    path = tmp_path / index_state.STATE_NAME
    assert index_files(site, path) == reference_files(site) == index_files(site)
    changed = dataclasses.replace(site, papers=next(iter(edits(site.papers, extra)))[1])
    assert index_files(changed, path) == reference_files(changed)
    tables, docs = search_tables(changed, path)
    assert docs == search_tables(changed)[1]


def test_search_index_js_after_edits_is_byte_identical(tmp_path):
    """search-index.js written from the kept tokens and packed pieces (postings, records, term list) equals
    the one written from scratch after every kind of edit, including edits only the result records show."""
    site, extra = sample_site()
    path = tmp_path / index_state.STATE_NAME
    assert index_files(site, path) == reference_files(site)
    sequence = list(edits(site.papers, extra))
    p = list(sequence[0][1])
    p[7] = dataclasses.replace(p[7], et_al=not p[7].et_al)
    p[9] = dataclasses.replace(p[9], slug=p[9].slug + "-moved")
    sequence.insert(1, ("only what a result shows changed", p))
    for name, papers in sequence:
        edited = dataclasses.replace(site, papers=tuple(papers))
        assert index_files(edited, path) == reference_files(edited), name
        state = index_state.load_state(path)
        if papers:
            assert state is not None and state.packed is not None, name


def test_model_digests_spare_hashing_unchanged_papers_and_change_no_byte(tmp_path, monkeypatch):
    """With the papers' model digests (Fingerprinter, as the index process has them), the state finds the
    papers it holds without hashing their texts: paper_digest runs only for papers whose model digest the
    previous build did not have; search-index.js stays the one written from scratch after every edit,
    also after edits the model digest sees but the index does not (a paper's line in its list)."""
    from site_builder.incremental.digest import Fingerprinter

    site, extra = sample_site()
    path = tmp_path / index_state.STATE_NAME
    assert index_files(site, path, Fingerprinter().digests(site.papers)) == reference_files(site)
    assert index_state.load_state(path).models == Fingerprinter().digests(site.papers)
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
        assert index_files(edited, path, models) == reference_files(edited), name
        assert len(calls) == sum(m not in previous for m in models), name
        if papers:
            assert index_state.load_state(path).models == models, name
        previous = set(models)
    assert len(sequence) > 10
    with pytest.raises(ValueError):
        index_files(site, path, Fingerprinter().digests(site.papers)[1:])


def test_one_edited_abstract_packs_only_its_terms_postings(tmp_path, monkeypatch):
    """After one abstract changed, only the postings of that paper's terms and the field vectors whose
    scores changed are packed again; the rest come from the state, and the script is still the one
    written from scratch."""
    from site_builder.search import pack as index_pack

    site, _ = sample_site()
    path = tmp_path / index_state.STATE_NAME
    index_files(site, path)
    packed, rows = [], []
    real = index_pack.posting_parts
    monkeypatch.setattr(index_pack, "posting_parts", lambda term, *rest: packed.append(len(set(term.tolist()))) or real(term, *rest))
    real_vectors = index_pack.vector_parts
    monkeypatch.setattr(index_pack, "vector_parts",
                        lambda term, row, *rest: rows.append(set((row // len(FIELDS)).tolist())) or real_vectors(term, row, *rest))
    numbers = []
    real_pack = index_pack.pack_numbers
    monkeypatch.setattr(index_pack, "pack_numbers", lambda values: numbers.append(len(values)) or real_pack(values))
    papers = list(site.papers)
    before = paper_terms(papers[5])
    papers[5] = with_abstract(papers[5], papers[5].abstract + " Quokkaformers generalise.")
    edited = dataclasses.replace(site, papers=tuple(papers))
    assert index_files(edited, path) == reference_files(edited)
    terms = paper_terms(papers[5])
    # Only the terms the paper gained or lost in a field: their (field, paper) pairs changed.
    changed = set().union(*(set(terms[name][0]) ^ set(before[name][0]) for name in terms))
    assert "quokkaformer" in changed and 1 <= len(changed) <= 3
    assert packed == [len(changed)]
    # New terms move the term numbers after them: the other papers' vectors are still kept from the
    # state, with only the numbers that changed (a gap spanning a new term, a row's first term number,
    # a changed score) packed anew; the edited paper's vectors are packed whole.
    assert rows == [{5}]
    entries = sum(len(counts) for p in papers for counts, _ in paper_terms(p).values())
    assert 10 < numbers[0] < 2 * entries // 5
    numbers.clear()
    monkeypatch.setattr(index_pack, "pack_numbers", real_pack)
    # The same words in another order: no score changes, only the edited paper's vectors are packed.
    rows.clear()
    packed.clear()
    papers[6] = with_abstract(papers[6], " ".join(reversed(papers[6].abstract.split())))
    edited = dataclasses.replace(site, papers=tuple(papers))
    assert index_files(edited, path) == reference_files(edited)
    assert rows == [{6}]
    assert packed == [0]  # the same terms in the same fields: every posting copied
    # One word swapped for another the index holds (same token count): the term numbers and average
    # lengths stay; only vectors holding either word can change (their df did).
    rows.clear()
    numbers = []
    real_pack = index_pack.pack_numbers
    monkeypatch.setattr(index_pack, "pack_numbers", lambda values: numbers.append(len(values)) or real_pack(values))
    old_word = next(w for w in papers[6].abstract.split() if w.isalpha() and w.islower() and len(w) >= 6
                    and f" {w} " in papers[6].abstract)
    new_word = "graph"
    assert new_word not in papers[6].abstract.lower() and any(new_word in p.abstract for p in papers)
    papers[6] = with_abstract(papers[6], papers[6].abstract.replace(f" {old_word} ", f" {new_word} ", 1))
    edited = dataclasses.replace(site, papers=tuple(papers))
    assert index_files(edited, path) == reference_files(edited)
    holding = {i for i, p in enumerate(papers)
               if any(w in counts for counts, _ in paper_terms(p).values() for w in (old_word, new_word))}
    # The edited paper's vectors are packed whole; in the others holding either word only the scores
    # that changed are packed (the first numbers packed), spliced into the vectors kept from the state.
    assert rows == [{6}] and len(holding) > 10
    entries = sum(len(counts) for i in holding - {6} for counts, _ in paper_terms(papers[i]).values())
    assert 10 < numbers[0] < entries // 5


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "other code version", "other format",
                                    "term numbers out of range", "a directory"])
def test_bad_state_file_gives_the_same_output(tmp_path, monkeypatch, damage):
    site, _ = sample_site()
    path = tmp_path / index_state.STATE_NAME
    stateful(site.papers, path)
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(5000)))
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "other code version":
        monkeypatch.setattr(index_state, "_code", lambda: "0" * 64)
    elif damage == "other format":
        monkeypatch.setattr(index_state, "FORMAT", index_state.FORMAT + 1)
    elif damage == "term numbers out of range":
        state = index_state.load_state(path)
        state.term[0] = len(state.vocab) + 5
        index_state.save_state(path, state)
    elif damage == "a directory":
        path.unlink()
        path.mkdir()
    assert index_state.load_state(path) is None
    papers = list(site.papers)
    papers[3] = with_abstract(papers[3], papers[3].abstract + " Changed.")
    assert_same(stateful(papers, path), fresh_tables(papers))
    assert index_files(site, path) == index_files(site)
    if damage != "a directory":
        assert index_state.load_state(path) is not None  # rewritten


def test_flipped_byte_in_saved_arrays_is_ignored(tmp_path):
    """A corrupted byte inside the stored arrays fails the zip CRC check: the state is not used."""
    site, _ = sample_site()
    path = tmp_path / index_state.STATE_NAME
    stateful(site.papers, path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x55
    path.write_bytes(bytes(data))
    assert index_state.load_state(path) is None
    assert_same(stateful(site.papers, path), fresh_tables(site.papers))


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
    the rebuild tokenizes that paper alone and writes the same search-index.js as a build without cache."""
    import shutil

    from conftest import SEEDS, build_into

    seeds, cache, site = tmp_path / "seeds", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(SEEDS, seeds)
    assert build_into(site, "--cache", str(cache), seeds=seeds) == 0
    assert index_state.load_state(cache / index_state.STATE_NAME) is not None
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
    index = (site / "search-index.js").read_bytes()
    assert index == (tmp_path / "plain" / "search-index.js").read_bytes()
    assert "Quokkaformers are new." in index.decode("utf-8")  # the result snippet


def test_packed_pieces_out_of_step_are_dropped_and_rewritten(tmp_path):
    """Packed pieces whose sizes do not add up are not used (the tokens still are); the output is unchanged."""
    site, _ = sample_site()
    path = tmp_path / index_state.STATE_NAME
    index_files(site, path)
    state = index_state.load_state(path)
    state.packed.posting_sizes[3] += 1
    state.packed.record_sizes[0] -= 1
    state.packed.vector_sizes[2] += 1
    index_state.save_state(path, state)
    loaded = index_state.load_state(path)
    assert loaded is not None and loaded.packed is None and loaded.vocab == state.vocab
    papers = list(site.papers)
    papers[3] = with_abstract(papers[3], papers[3].abstract + " Changed.")
    edited = dataclasses.replace(site, papers=tuple(papers))
    assert index_files(edited, path) == reference_files(edited)
    assert index_state.load_state(path).packed is not None


def test_papers_without_any_term_after_an_empty_site(tmp_path):
    """A state of no papers, then papers whose texts are all stop words, then real ones: still the reference."""
    site, _ = sample_site()
    p = site.papers[0]
    blank = dataclasses.replace(p, title="The of", authors=(), track=None, abstract="and the",
                                rendered=dataclasses.replace(p.rendered, text="and the"))
    path = tmp_path / index_state.STATE_NAME
    for papers in [(), (blank,), (), (blank,), (blank, site.papers[1]), (site.papers[1], blank)]:
        edited = dataclasses.replace(site, papers=papers)
        assert index_files(edited, path) == reference_files(edited), len(papers)
