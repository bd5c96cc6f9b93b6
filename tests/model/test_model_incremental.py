"""The model's faster and cached computations equal their plain definitions, on real papers and after edits.

- :class:`~site_builder.model.authors.AuthorIndex` (one lean pass) equals the index defined plainly below, and the
  index kept in the build cache (``authors.marshal``, :func:`~site_builder.model.authors.cached_index`) equals a fresh
  one after every kind of edit (same authors, a respelled or added author, a paper removed, added or moved).
- BibTeX keys (:func:`~site_builder.model.bibtex.assign_keys`) equal the plain definition, also when an edit makes
  two papers' keys collide and then uncollide, and so do those of :func:`~site_builder.model.bibtex.cached_keys`, whose
  base keys are kept in the build cache (``bibkeys.marshal``), after every kind of edit.
- ``papers.json`` items (:func:`~site_builder.output.papersjson.item_json`) are ``json.dumps`` of the records, a line each.
- Builds with the cache after moving a paper between venues, or making BibTeX keys collide, give the bytes of
  a build without the cache.
"""

from __future__ import annotations

import json
import marshal
import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from slugify import slugify

from conftest import CONFIG, SEEDS
from site_builder.model import authors as authors_module
from site_builder.model import bibtex, urls
from site_builder.output import papersjson
from site_builder.incremental import store as store_module
from site_builder.model.authors import AuthorIndex, author_key, cached_index, clean_name, display_facts, family_name
from site_builder.incremental.cache import BuildCache
from site_builder.incremental.texts import StoredAbstract
from site_builder.text.render import RenderedAbstract
from site_builder.config import load_config
from site_builder.pipeline import build
from conftest import assert_same_site
from papers_sample import sample_records


@dataclass(frozen=True, eq=False)
class Year:
    year: int


@dataclass(frozen=True, eq=False)
class P:
    """What the author index and the BibTeX keys read of a paper (compared by identity, as papers are)."""

    id: str
    authors: tuple[str, ...]
    title_text: str
    venue: Year


@pytest.fixture(scope="module")
def corpus_papers() -> list[P]:
    """The papers of the sample of real papers (tests/fixtures/papers/)."""
    return [P(f"{n:010x}", tuple(r.get("authors") or ()), r.get("title") or "", Year(int(r["year"])))
            for n, r in enumerate(sample_records())]


# --- the plain definitions ------------------------------------------------------------------------------

def plain_author_index(papers) -> list[tuple]:
    """The author index as defined (README, authors.py): one author per key, display name the most frequent
    spelling (ties: the first sorted), slugs in key order with -2, -3 … for taken ones, sorted by
    (family key, whole key of the display name, key)."""
    by_key: dict[str, dict] = {}
    for paper in papers:
        seen = set()
        for name in paper.authors:
            key = author_key(name)
            if not key or key in seen:
                continue
            seen.add(key)
            author = by_key.setdefault(key, {"spellings": Counter(), "papers": []})
            author["spellings"][" ".join(clean_name(name).split())] += 1
            author["papers"].append(paper)
    taken = set()
    for key in sorted(by_key):
        base = urls.make_slug(key, "author")
        slug, n = base, 1
        while slug in taken or slug == "index":
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug)
        by_key[key]["slug"] = slug
    rows = []
    for key, a in by_key.items():
        name = min(a["spellings"].items(), key=lambda kv: (-kv[1], kv[0]))[0]
        family, whole, letter = display_facts(name)  # the order and letter of a name: tests/model/test_authors.py
        rows.append(((family, whole, key), key, a["slug"], name, letter,
                     sorted(a["spellings"].items()), [id(p) for p in a["papers"]]))
    return [row[1:] for row in sorted(rows, key=lambda row: row[0])]


def index_rows(index: AuthorIndex) -> list[tuple]:
    return [(a.key, a.slug, a.name, a.letter, sorted(a.spellings.items()), [id(p) for p in a.papers])
            for a in index.authors]


def full_state(index: AuthorIndex, papers) -> tuple:
    """Everything an index shows, in its own order (spellings in insertion order, the A-Z groups, lookups)."""
    names = sorted({n for p in papers for n in p.authors} | {"et al.", "Nobody At All"})
    return ([(a.key, a.slug, a.name, a.letter, a.path, a.sort_key, list(a.spellings.items()),
              [id(p) for p in a.papers]) for a in index.authors],
            [(letter, [a.key for a in group]) for letter, group in index.by_letter()],
            [(n, index.get(n).key if index.get(n) else None) for n in names], len(index))


def plain_base_key(paper) -> str:
    authors = [clean_name(a) for a in paper.authors if clean_name(a)]
    family = re.sub(r"[^a-z]", "", slugify(family_name(authors[0]), separator="").lower()) if authors else ""
    words = (re.sub(r"[^a-z]", "", slugify(w, separator="").lower()) for w in re.split(r"[\s\-:/]+", paper.title_text))
    word = next((w for w in words if w and w not in bibtex.TITLE_STOPWORDS), "")
    return f"{family or 'anonymous'}{paper.venue.year}{word}"


def plain_assign_keys(papers) -> dict[str, str]:
    groups: dict[str, list] = {}
    for paper in papers:
        groups.setdefault(plain_base_key(paper), []).append(paper)
    keys, taken = {}, set(groups)
    for key, group in sorted(groups.items()):
        for n, paper in enumerate(sorted(group, key=lambda p: p.id)):
            candidate = key
            while n and candidate in taken:
                candidate, n = key + bibtex._letters(n), n + 1
            taken.add(candidate)
            keys[paper.id] = candidate
    return keys


# --- the author index -----------------------------------------------------------------------------------

def with_respelled_authors(papers: list[P]) -> list[P]:
    """``papers`` and papers by their authors' names spelled otherwise: the first author of every tenth paper
    in capitals (the same person: a second spelling), and names with an initial ("Jacob D. Abernethy")
    without its dot (another person of the same slug: "jacob-d-abernethy-2"). The full corpus has both
    (102 people with several spellings, 41 slugs taken twice); a sample of a few hundred papers has neither."""
    extra = [P(f"a{n:09x}", (p.authors[0].upper(),) + p.authors[1:], p.title_text, p.venue)
             for n, p in enumerate(papers[::10]) if p.authors]
    initials = sorted({a for p in papers for a in p.authors if re.search(r"\b[A-Z]\. ", a)})[:20]
    extra += [P(f"b{n:09x}", (re.sub(r"\b([A-Z])\. ", r"\1 ", name, count=1),), "Undotted", Year(2024))
              for n, name in enumerate(initials)]
    return papers + extra


def test_author_index_is_the_plain_definition_on_real_papers(corpus_papers):
    papers = with_respelled_authors(corpus_papers)
    index = AuthorIndex(papers)
    assert index_rows(index) == plain_author_index(papers)
    assert len(index) > 2_000
    assert any(len(a.spellings) > 1 for a in index.authors)  # spellings merged: the display-name rule is exercised
    assert any(re.search(r"-\d$", a.slug) for a in index.authors)  # and the slug de-duplication


def _edits(papers: list[P]):
    """(label, papers) after each edit, starting from ``papers``."""
    yield "unchanged (an abstract edited)", list(papers)
    respelled = list(papers)
    n = next(i for i, p in enumerate(papers) if len(p.authors) >= 2)
    first = respelled[n].authors[0]
    respelled[n] = P(papers[n].id, (first.upper(),) + papers[n].authors[1:], papers[n].title_text, papers[n].venue)
    yield "one author respelled (same person)", respelled
    renamed = list(respelled)
    renamed[n] = P(papers[n].id, ("Ada Lovelace",) + papers[n].authors[1:], papers[n].title_text, papers[n].venue)
    yield "one author renamed", renamed
    moved = renamed[:n] + renamed[n + 1:] + [renamed[n]]
    yield "a paper moved (another venue: another place in the site order, the same authors)", moved
    yield "a paper removed", renamed[:n] + renamed[n + 1:]
    yield "a paper added", renamed + [P("ffffffffff", ("Charles Babbage", "Ada Lovelace"), "Engines", Year(1843))]
    yield "back as first built", list(papers)


def test_the_cached_author_index_equals_a_fresh_one_after_each_edit(tmp_path, corpus_papers, monkeypatch):
    papers = corpus_papers
    cache = BuildCache(tmp_path / "cache")
    loads = []
    real = AuthorIndex.from_saved.__func__
    monkeypatch.setattr(AuthorIndex, "from_saved",
                        classmethod(lambda cls, p, saved, *rest: loads.append(1) or real(cls, p, saved, *rest)))
    assert full_state(cached_index(papers, cache), papers) == full_state(AuthorIndex(papers), papers)
    assert not loads and (tmp_path / "cache" / authors_module.AUTHORS_STATE).is_file()
    for label, edited in _edits(papers):
        fresh = full_state(AuthorIndex(edited), edited)
        for again in (False, True):  # the edit, then the same papers once more
            before = len(loads)
            got = cached_index(edited, BuildCache(tmp_path / "cache"))
            assert full_state(got, edited) == fresh, label
            assert index_rows(got) == plain_author_index(edited), label
            # taken from the cache exactly when the authors (as written, in order) are the last build's
            assert (len(loads) > before) == (again or label.startswith("unchanged")), label


def test_a_corrupt_author_index_file_is_ignored_with_a_warning(tmp_path, corpus_papers):
    papers = corpus_papers[:300]
    cached_index(papers, BuildCache(tmp_path / "cache"))
    path = tmp_path / "cache" / authors_module.AUTHORS_STATE
    data = store_module.decode(path.read_bytes())
    data["papers"][3] = "not positions"
    path.write_bytes(store_module.encode(data))
    cache = BuildCache(tmp_path / "cache")
    assert full_state(cached_index(papers, cache), papers) == full_state(AuthorIndex(papers), papers)
    assert any(authors_module.AUTHORS_STATE in str(d) and "corrupt" in str(d) for d in cache.diagnostics.warnings)
    path.write_text("{not json", encoding="utf-8")
    cache = BuildCache(tmp_path / "cache")
    assert full_state(cached_index(papers, cache), papers) == full_state(AuthorIndex(papers), papers)
    assert cache.diagnostics.warnings


# --- BibTeX keys ----------------------------------------------------------------------------------------

def with_follow_ups(papers: list[P]) -> list[P]:
    """``papers`` and a follow-up of every fifth one (same authors and year, the title with a subtitle added: the
    same base key), and two more of every fiftieth: keys that collide, as 100+ do in the full corpus and only
    one in the sample of a few hundred papers."""
    extra = [P(f"c{n:09x}", p.authors, f"{p.title_text}: Revisited", p.venue) for n, p in enumerate(papers[::5])]
    extra += [P(f"d{n:09x}", p.authors, f"{p.title_text} {k}", p.venue)
              for n, p in enumerate(papers[::50]) for k in ("II", "III")]
    return papers + extra


def test_bibtex_keys_are_the_plain_definition_on_real_papers(corpus_papers):
    papers = with_follow_ups(corpus_papers)
    keys = bibtex.assign_keys(papers)
    assert keys == plain_assign_keys(papers)
    assert sum(1 for p in papers if keys[p.id] != bibtex.base_key(p)) > 100  # suffixes exercised
    titles = [p.title_text for p in corpus_papers] + ["On the of a an in to by at as Deep Nets",
                                                      "a an the of in for to and or with from by", "", "::--//"]
    for title in titles:
        assert bibtex.title_word(title) == plain_base_key(P("", (), title, Year(1)))[1 + len("anonymous"):], title


def test_bibtex_keys_collide_and_uncollide_as_defined(corpus_papers):
    papers = list(corpus_papers)
    a, b = papers[10], papers[20]
    assert bibtex.base_key(a) != bibtex.base_key(b)
    # b's first author and title now give a's base key: the later id gets "b"; undone: both plain again
    papers[20] = P(b.id, (a.authors[0] + "  ",) + b.authors[1:], a.title_text.upper(), a.venue)
    collided = bibtex.assign_keys(papers)
    assert collided == plain_assign_keys(papers)
    assert collided[b.id] == bibtex.base_key(a) + "b" and collided[a.id] == bibtex.base_key(a)
    papers[20] = b
    assert bibtex.assign_keys(papers) == plain_assign_keys(papers)
    assert bibtex.assign_keys(papers)[b.id] == bibtex.base_key(b)


def _key_edits(papers: list[P]):
    """(label, papers, whether the base keys can be taken from the cache) after each edit, from ``papers``."""
    yield "an abstract edited (every id changed, keys collide anew)", [
        P(f"{int(p.id, 16) ^ 0x5a5a5a:010x}", p.authors, p.title_text, p.venue) for p in papers], True
    for label, edited in _edits(papers):
        yield label, edited, label.startswith("unchanged")
    retitled = list(papers)
    retitled[7] = P(papers[7].id, papers[7].authors, "Zebras " + papers[7].title_text, papers[7].venue)
    yield "a title edited", retitled, False
    redated = list(papers)
    redated[9] = P(papers[9].id, papers[9].authors, papers[9].title_text, Year(papers[9].venue.year + 1))
    yield "a year edited", redated, False


def test_cached_bibtex_keys_equal_fresh_ones_after_each_edit(tmp_path, corpus_papers, monkeypatch):
    """:func:`bibtex.cached_keys` gives :func:`bibtex.assign_keys`, taking the base keys from the cache exactly
    when the papers' authors, titles and years are the last build's (an abstract edit changes ids only)."""
    papers = corpus_papers
    computed = []
    real = bibtex.base_key
    monkeypatch.setattr(bibtex, "base_key", lambda paper: computed.append(1) or real(paper))

    def keys_of(edited):
        cache = BuildCache(tmp_path / "cache")
        return bibtex.cached_keys(edited, cache, authors_module.input_digest(edited)), cache

    first, cache = keys_of(papers)
    assert first == plain_assign_keys(papers) and (tmp_path / "cache" / bibtex.BASE_KEYS_STATE).is_file()
    for label, edited, from_cache in _key_edits(papers):
        before = len(computed)
        got, cache = keys_of(edited)
        assert got == plain_assign_keys(edited), label
        assert (len(computed) == before) == from_cache, label
        assert not cache.diagnostics.warnings, label
    assert bibtex.cached_keys(papers, None, None) == plain_assign_keys(papers)


def test_a_corrupt_bibtex_keys_file_is_ignored_with_a_warning(tmp_path, corpus_papers):
    papers = corpus_papers[:300]
    digest = authors_module.input_digest(papers)
    bibtex.cached_keys(papers, BuildCache(tmp_path / "cache"), digest)
    path = tmp_path / "cache" / bibtex.BASE_KEYS_STATE
    data = store_module.decode(path.read_bytes())
    for junk in (data["bases"][:-1], data["bases"][:-1] + [3], "not keys"):
        path.write_bytes(store_module.encode({**data, "bases": junk}))
        cache = BuildCache(tmp_path / "cache")
        assert bibtex.cached_keys(papers, cache, digest) == plain_assign_keys(papers)
        assert [str(d) for d in cache.diagnostics.warnings] == [
            f"{path}: warning: cache file corrupt, ignored: not the papers' base keys"]
    cache = BuildCache(tmp_path / "cache")  # rewritten: taken without a warning
    assert bibtex.cached_keys(papers, cache, digest) == plain_assign_keys(papers) and not cache.diagnostics.warnings


# --- papers.json ----------------------------------------------------------------------------------------

def test_papers_json_items_are_json_dumps_of_the_records(monkeypatch):
    records = sample_records()
    shaped = [{"id": f"{n:010x}", "slug": "s", "title": r.get("title") or "", "title_derived": n % 2 == 0,
               "authors": list(r.get("authors") or []), "et_al": n % 3 == 0, "venue": r["venue"], "year": r["year"],
               "track": None if n % 5 else "Theory · Learning", "abstract": r.get("abstract") or "",
               "code_urls": [], "url": f"papers/{n}.html", "keywords": ["a \"b\"", "c\\d"] if n % 7 == 0 else []}
              for n, r in enumerate(records)]
    hostile = [{"a": "x\u2028\"\\\n\t\x00<>&é😀\ud800", "b": [], "c": ["q", ""], "d": None, "e": True, "f": False,
                "g": -12}, {}, {"x": 1.5}, {"y": {"z": [1]}}, {1: "a"}, {"l": [1, "a"]}, {"s": type("S", (str,), {})("v")}]
    for record in shaped + hostile:
        item = papersjson.item_json(record)
        assert "\n" not in item and item == json.dumps(record, **papersjson.OPTIONS)  # a record a line
        assert json.loads(item) == json.loads(json.dumps(record))  # the record (JSON's keys are strings)
    papers = [type("P", (), {"record": lambda self, r=r: r})() for r in shaped]
    text = "[\n" + papersjson.part(papers) + "\n]\n"
    assert json.loads(text) == shaped and text.count("\n") == len(shaped) + 2
    for chunk in (1, 7, len(papers), len(papers) + 1):  # the file written a few papers at a time: the same bytes
        monkeypatch.setattr(papersjson, "CHUNK", chunk)
        pieces = list(papersjson.whole_pieces(papers))
        assert b"".join(pieces).decode("utf-8") == text and len(pieces) == 2 + -(-len(papers) // chunk)
    assert b"".join(papersjson.whole_pieces([])) == b"[]\n"


# --- whole builds ---------------------------------------------------------------------------------------

def _paragraphs(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").rstrip("\n").split("\n\n")


def test_rebuilds_after_moving_a_paper_and_colliding_keys_give_the_bytes_of_a_build_without_cache(tmp_path):
    seeds, cache, site = tmp_path / "seeds", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(SEEDS, seeds)
    config = load_config(CONFIG)
    first = build(seeds, site, config, cache=cache)
    assert not first.diagnostics.errors
    records = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    icml25 = [r for r in records if r["venue"] == "ICML" and r["year"] == 2025 and len(r["authors"]) >= 2]
    a, b = icml25[0], icml25[1]

    def rebuild_and_compare(label: str) -> dict:
        report = build(seeds, site, config, cache=cache)
        plain = tmp_path / f"plain-{label}"
        build(seeds, plain, config, cache=None)
        assert_same_site(plain, site, placed_map=True)
        assert report.reused > 0, label  # a rebuild that kept files, not a cold one
        return json.loads((site / "papers.json").read_text(encoding="utf-8"))

    # b gets a's first author (respelled) and a's title: their BibTeX keys collide ...
    (seeds / "overrides.toml").write_text(
        f'[papers.{b["id"]}]\ntitle = {json.dumps(a["title"].upper())}\n'
        f'authors = {json.dumps([a["authors"][0].upper()] + b["authors"][1:], ensure_ascii=False)}\n',
        encoding="utf-8")
    rebuild_and_compare("collide")
    bib = "".join(p.read_text(encoding="utf-8") for p in sorted(site.glob("venues/*/papers.bib")))
    keys = re.findall(r"@inproceedings\{(\w+),\n  title = \{[^\n]*\n  author = \{" + re.escape(a["authors"][0]), bib,
                      re.IGNORECASE)  # a's entry and b's (its first author respelled in capitals)
    base = min(keys, key=len)
    assert len(keys) == 2 and sorted(keys) == [base, base + "b"]
    # ... and uncollide
    (seeds / "overrides.toml").unlink()
    rebuild_and_compare("uncollide")
    assert f"@inproceedings{{{base}b," not in "".join(p.read_text(encoding="utf-8") for p in site.glob("venues/*/papers.bib"))
    # the last paper of ICLR 2025 moves to the ICML 2024 list
    iclr, icml24 = next(seeds.glob("000_*.txt")), next(seeds.glob("002_*.txt"))
    moved = _paragraphs(iclr)[-1]
    iclr.write_text("\n\n".join(_paragraphs(iclr)[:-1]) + "\n", encoding="utf-8")
    icml24.write_text("\n\n".join(_paragraphs(icml24) + [moved]) + "\n", encoding="utf-8")
    after = rebuild_and_compare("moved")
    assert any(r["abstract"] == moved.strip() and r["venue"] == "ICML" and r["year"] == 2024 for r in after)


def test_suffixed_bibtex_keys_of_two_base_keys_never_meet():
    # "smith2023abcb" is a base key and the "b" suffix of "smith2023abc"; with 28 papers "smith2023abc"
    # reaches the suffix "bb", which is also the first suffix of "smith2023abcb": base keys go in sorted order.
    papers = [P(f"{n:010x}", ("Ann Smith",), "Abcb study", Year(2023)) for n in range(2)]
    papers += [P(f"{n + 100:010x}", ("Ann Smith",), "Abc study", Year(2023)) for n in range(28)]
    keys = bibtex.assign_keys(papers)
    assert keys == plain_assign_keys(papers)
    assert len(set(keys.values())) == len(papers) and "smith2023abcbb" in keys.values()


def test_papers_built_with_the_memo_equal_papers_built_plainly(tmp_path):
    """model.make_paper sets a Paper's fields directly when it has the memo: the same papers as Paper(...)."""
    from dataclasses import fields

    from site_builder import pipeline
    from site_builder.incremental.memo import paper_work
    from site_builder.diagnostics import Diagnostics
    from site_builder.model.site import Paper, build_site

    config = load_config(CONFIG)
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    first_list = sorted(seeds.glob("*.txt"))[0]  # a paper whose rendering warns (kept in the list cache too)
    first_list.write_text(first_list.read_text(encoding="utf-8").rstrip("\n") + "\n\nWe study \\foobar{x} in"
                          " $\\foobar{y}$ for graph neural networks and report results on benchmarks.\n",
                          encoding="utf-8")
    cache = BuildCache(tmp_path / "cache")
    entries = pipeline.read_lists(pipeline.list_files(seeds), config, Diagnostics(), cache)
    cache.memo.store_work([paper_work(item) for item in cache.memo.missing_work(entries)])
    first = build_site(entries, {}, config, Diagnostics())
    overrides = {first.papers[0].id: {"title": "An $x^2$ Title", "authors": ["Ada Lovelace"], "track": ["A", "B"]}}
    plain = build_site(entries, overrides, config, Diagnostics())
    memo = build_site(entries, overrides, config, Diagnostics(), memo=cache.memo)
    # a rebuild: the rendered abstracts and titles handed over by the list cache (BuildCache._known)
    cache.save()
    rebuild_cache = BuildCache(tmp_path / "cache")
    rebuild_entries = pipeline.read_lists(pipeline.list_files(seeds), config, Diagnostics(), rebuild_cache)
    assert rebuild_cache.memo.known_items() and not rebuild_cache.memo.missing_work(rebuild_entries)
    plain_diagnostics, rebuild_diagnostics = Diagnostics(), Diagnostics()
    plain = build_site(entries, overrides, config, plain_diagnostics)
    rebuilt = build_site(rebuild_entries, overrides, config, rebuild_diagnostics, memo=rebuild_cache.memo)
    assert len(plain.papers) > 30 and any(p.title == "An $x^2$ Title" for p in memo.papers)
    assert plain == memo == rebuilt
    assert plain_diagnostics.items == rebuild_diagnostics.items
    assert any("foobar" in d.message for d in plain_diagnostics.items)
    names = [f.name for f in fields(Paper)]
    for a, b, c in zip(plain.papers, memo.papers, rebuilt.papers):
        for other in (b, c):
            assert type(other) is Paper and hash(a) == hash(other)
            assert [getattr(a, n) for n in names] == [getattr(other, n) for n in names]
            assert (a.title_html, a.title_text) == (other.title_html, other.title_text)
            assert sorted(vars(other)) == sorted(names + ["title_html", "title_text"])
            # the memo's rendered abstracts are kept in its text store, read back as they were made
            assert type(other.rendered) is StoredAbstract and other.rendered == a.rendered
            assert vars(other.rendered.plain()) == vars(a.rendered) and type(a.rendered) is RenderedAbstract


def test_the_memo_model_reports_warnings_and_keeps_venues_as_the_plain_model():
    """With the memo, model._make_papers orders papers by groups and reports rendering warnings after its loop,
    and model._venues takes the venues from the Venue objects made for the drafts: the diagnostics (in the
    order of the papers' ids), the papers in order, and the venue kept for two names of one slug are those
    of the plain model."""
    from site_builder.diagnostics import Diagnostics
    from site_builder.model.site import build_site
    from site_builder.read.plaintext import Entry

    config = load_config(CONFIG)
    words = ["graph", "neural", "kernel", "bandit", "policy", "sparse", "causal", "robust", "spectral", "convex"]
    entries = []
    for n in range(12):
        abstract = (f"We study the {words[n % 10]} {words[(3 * n) % 10]} problem number {n} and show results "
                    "on several benchmarks with a new method.")
        if n % 3 == 0:
            abstract += f" The bound $\\foobar{{{n}}}$ holds."  # an unknown TeX command: a rendering warning
        venue = ("ICLR", "Iclr", "NeurIPS")[n % 3]  # ICLR and Iclr: one slug, iclr-2025
        track = (("Theory",), ("Theory", "Bandits"), ())[n % 3]
        entries.append(Entry(f"lists/{n % 2}.txt", 100 - n, abstract, title=None if n % 4 else f"Title {12 - n}",
                             authors=("Ada Lovelace",), track=track, venue=venue, year=2025))
    entries.append(Entry("lists/0.txt", 200, entries[3].abstract, venue="NeurIPS", year=2025))  # a duplicate
    plain_diagnostics, memo_diagnostics = Diagnostics(), Diagnostics()
    plain = build_site(entries, {}, config, plain_diagnostics)
    memo = build_site(list(reversed(entries)), {}, config, memo_diagnostics, memo=BuildCache(None).memo)
    assert [d.message for d in plain_diagnostics.items if "foobar" in d.message]  # warnings were reported
    assert plain_diagnostics.items == memo_diagnostics.items
    assert plain.papers == memo.papers and [p.id for p in plain.papers] == [p.id for p in memo.papers]
    assert [(v.name, v.slug) for v in plain.venues] == [(v.name, v.slug) for v in memo.venues]
    assert [v.slug for v in memo.venues] == ["iclr-2025", "neurips-2025"]
    assert [p.venue.name for p in plain.papers] == [p.venue.name for p in memo.papers]
    assert plain.tracks == memo.tracks


def test_the_author_input_digest_depends_on_the_authors_alone(corpus_papers):
    """input_digest: equal for the same authors (whether or not the name strings are shared objects, as papers
    read from the list cache and papers parsed again differ), different when one name or the order changes."""
    papers = corpus_papers
    copies = [P(p.id, tuple("".join(list(name)) for name in p.authors), p.title_text, p.venue) for p in papers]
    one_object: dict[str, str] = {}  # each name one str object, shared by all its papers
    shared = [P(p.id, tuple(one_object.setdefault(name, name) for name in p.authors), p.title_text, p.venue)
              for p in papers]
    assert len(one_object) < sum(len(p.authors) for p in papers)  # some names shared
    assert authors_module.input_digest(copies) == authors_module.input_digest(shared) == \
        authors_module.input_digest(papers)
    n = next(i for i, p in enumerate(papers) if len(p.authors) >= 2)
    renamed = list(papers)
    renamed[n] = P(papers[n].id, (papers[n].authors[0] + "x",) + papers[n].authors[1:], papers[n].title_text,
                   papers[n].venue)
    swapped = list(papers)
    swapped[n] = P(papers[n].id, papers[n].authors[::-1], papers[n].title_text, papers[n].venue)
    digests = {authors_module.input_digest(x) for x in (papers, renamed, swapped, papers[:-1])}
    assert len(digests) == 4
