"""Planning again only the pages a rebuild can have changed (site_builder/pages/replan.py): the structure is
what the index pages receive, a page is kept when neither its sources nor their papers changed."""

from __future__ import annotations

import copy
import dataclasses
import random

from conftest import CONFIG, SEEDS
from site_builder.config import load_config
from site_builder.diagnostics import Diagnostics
from site_builder.incremental.digest import Fingerprinter
from site_builder.model.library import Library
from site_builder.model.site import build_site
from site_builder.pages import replan
from site_builder.pages.plan import Planned, outline_pages, paper_identity
from site_builder.pipeline import list_files, load_overrides, read_lists

SHARED = ("code", "templates", "config")


def _seed_model():
    diagnostics = Diagnostics()
    config = load_config(CONFIG)
    entries = read_lists(list_files(SEEDS), config, diagnostics)
    return build_site(entries, load_overrides(SEEDS, diagnostics), config, diagnostics)


def _index_keys(site, library=None) -> list:
    """The keys of the index pages of ``site`` (the outline's pages without sources), as the build computes them."""
    outline = outline_pages(site, library or Library(site))
    fingerprints = Fingerprinter()
    return [fingerprints.of((SHARED, planned.make())) for planned in outline if planned.sources == ()]


def test_the_structure_is_the_digest_of_what_the_index_pages_receive():
    site = _seed_model()
    assert any(p.track is None for p in site.papers) and any(p.track is not None for p in site.papers)
    keys = _index_keys(site)
    assert len(keys) >= 4 and None not in keys  # home, authors, "My list", tags, keywords
    digest = replan.structure_digest(keys)
    assert digest == replan.structure_digest(_index_keys(site))
    assert replan.structure_digest(keys[:-1] + [None]) is None
    # An edited abstract or title changes a paper's data, not the structure.
    edited = list(site.papers)
    edited[3] = dataclasses.replace(edited[3], abstract=edited[3].abstract + " We also release our code.")
    assert replan.structure_digest(_index_keys(dataclasses.replace(site, papers=tuple(edited)))) == digest
    # A paper moved to another track changes the counts the home page shows.
    tracked = [i for i, p in enumerate(site.papers) if p.track is not None]
    other = next(p.track for p in site.papers if p.track is not None and p.track != site.papers[tracked[0]].track)
    moved = list(site.papers)
    moved[tracked[0]] = dataclasses.replace(moved[tracked[0]], track=other)
    assert replan.structure_digest(_index_keys(dataclasses.replace(site, papers=tuple(moved)))) != digest
    # Another author on a paper is another author on the authors' index.
    authored = list(site.papers)
    authored[0] = dataclasses.replace(authored[0], authors=(*authored[0].authors, "Ada Newcomer"))
    assert replan.structure_digest(_index_keys(dataclasses.replace(site, papers=tuple(authored)))) != digest


def _seed_plan():
    """The seed lists' model, library, outline and plan record (no cache, no previous record)."""
    site = _seed_model()
    library = Library(site)
    outline = outline_pages(site, library)
    record = replan.plan_record(site, library, outline, Fingerprinter(), _index_keys(site, library))
    assert record.structure is not None and len(record.papers[0]) == len(site.papers)
    return site, library, outline, record


def test_paper_identities_made_by_maps_are_paper_identity():
    site = _seed_model()
    assert replan.identities_of(site.papers) == [paper_identity(p) for p in site.papers]
    assert len(set(replan.identities_of(site.papers))) == len(site.papers)


def test_a_paper_whose_bibtex_key_alone_changed_is_planned_again_with_every_page_that_shows_it():
    site, library, outline, record = _seed_plan()
    unchanged, stale = replan.split_outline(outline, replan.PlanRecord.from_json(record.to_json()), record)
    assert [p.path for p in stale] == [p.path for p in outline if p.sources is None]  # nothing changed
    paper = site.papers[len(site.papers) // 2]
    identity = paper_identity(paper)
    previous = copy.deepcopy(record.to_json())
    previous["own"][len(site.papers) // 2] += "x"  # the previous build gave this paper another key (a suffix shifted)
    unchanged, stale = replan.split_outline(outline, replan.PlanRecord.from_json(previous), record)
    showing = {p.path for p in outline if p.sources is not None and identity in p.sources}
    assert paper.path in showing and {p.path for p in stale} == showing | {p.path for p in outline if p.sources is None}


def test_page_digests_tell_apart_every_change_of_sources():
    variants = [(), ("",), ("", ""), ("a:1",), ("a:1", ""), ("", "a:1"), ("a:1", "b:2"), ("b:2", "a:1")]
    outline = [Planned(f"p{n}.html", sources, None) for n, sources in enumerate(variants)]
    paths, digests, lengths = replan.page_digests(outline)
    assert paths == [p.path for p in outline]
    slots = {(digests[32 * n:32 * n + 32], lengths[4 * n:4 * n + 4]) for n in range(len(paths))}
    assert len(slots) == len(variants)
    # Each page whose sources differ from the previous build's is moved, whatever the order of the pages.
    for other in variants:
        for n in range(len(variants)):
            changed = list(outline)
            changed[n] = Planned(outline[n].path, other, None)
            expected = {outline[n].path} if other != variants[n] else set()
            record = replan.page_digests(changed)
            assert replan._moved(replan.page_digests(outline), record) == expected
            reordered = replan.page_digests(changed[::-1] + [Planned("search.html", None, None),
                                                             Planned("new.html", ("a:1",), None)])
            assert replan._moved(replan.page_digests(outline), reordered) == expected | {"new.html"}
            # (with as many pages as before, pages at another place count as moved: a safe excess)
            assert len(outline) % 2 == 0  # reversed: no page at its place
            assert replan._moved(replan.page_digests(outline), replan.page_digests(changed[::-1])) == {
                p.path for p in outline}
            renamed = changed[:2] + [Planned("renamed.html", changed[2].sources, None)] + changed[3:]
            assert replan._moved(replan.page_digests(outline), replan.page_digests(renamed)) == (
                {"renamed.html"} | expected) - {"p2.html"}
    assert replan._moved(replan.page_digests(outline), replan.page_digests(outline[1:])) == set()
    assert replan._moved(replan.page_digests(outline[1:]), replan.page_digests(outline)) == {"p0.html"}


def test_many_pages_moved_are_found_by_the_block_comparison():
    outline = [Planned(f"p{n}.html", (f"a:{n}", f"b:{n % 7}"), None) for n in range(2000)]
    for moved in ([], [0], [255, 256, 257], [1999], list(range(0, 2000, 97)), list(range(600, 900))):
        changed = [Planned(p.path, p.sources + ("c:1",), None) if n in moved else p for n, p in enumerate(outline)]
        assert replan._moved(replan.page_digests(outline), replan.page_digests(changed)) == {f"p{n}.html" for n in moved}


def test_split_outline_gives_the_pages_one_test_per_page_gives(monkeypatch):
    site, library, outline, record = _seed_plan()

    def reference(previous):  # the test of each page, written out
        old_pages = dict(zip(previous["pages"][0], zip(replan._slots(previous["pages"][1], 32),
                                                       replan._slots(previous["pages"][2], 4))))
        new_pages = dict(zip(record.pages[0], zip(replan._slots(record.pages[1], 32), replan._slots(record.pages[2], 4))))
        def papers(rec):
            return dict(zip(rec["papers"][0], zip(replan._slots(rec["papers"][1], 32), rec["own"])))

        old_papers, new_papers = papers(previous), papers(record.to_json())
        changed = {i for i in new_papers if old_papers.get(i) != new_papers[i]}
        stale = [p for p in outline if p.sources is None or old_pages.get(p.path) != new_pages[p.path]
                 or any(i in changed for i in p.sources)]
        return [p for p in outline if p not in stale], stale

    rng = random.Random(5)
    for trial in range(12):
        previous = copy.deepcopy(record.to_json())
        for n in rng.sample(range(len(site.papers)), trial % 4):
            digests = previous["papers"][1]
            previous["papers"][1] = digests[:32 * n] + bytes(32) + digests[32 * n + 32:]
        if trial % 4 == 1:
            previous["own"][rng.randrange(len(site.papers))] += "x"
        if trial % 6 == 5:  # the papers in another order
            ids, digests = previous["papers"]
            order = list(range(len(ids)))
            rng.shuffle(order)
            previous["papers"] = [[ids[n] for n in order], b"".join(digests[32 * n:32 * n + 32] for n in order)]
            previous["own"] = [previous["own"][n] for n in order]
            got = replan.split_outline(outline, replan.PlanRecord.from_json(previous), record)
            expected = reference(previous)
            assert set(got[1]) >= set(expected[1])  # papers at other places count as changed: a safe excess
            monkeypatch.setattr(replan, "MAX_SHIFTED", 0)  # looked up one by one: exactly the reference
            assert replan.split_outline(outline, replan.PlanRecord.from_json(previous), record) == expected
            monkeypatch.undo()
            continue
        if trial % 3:
            paths, digests, lengths = previous["pages"]
            for n in rng.sample(range(len(paths)), trial):
                digests = digests[:32 * n] + bytes(32) + digests[32 * n + 32:]
            previous["pages"] = [paths, digests, lengths]
        if trial % 5 == 4:  # another order of pages
            paths, digests, lengths = previous["pages"]
            order = list(range(len(paths)))[::-1]
            previous["pages"] = [[paths[n] for n in order], b"".join(digests[32 * n:32 * n + 32] for n in order),
                                 b"".join(lengths[4 * n:4 * n + 4] for n in order)]
        got = replan.split_outline(outline, replan.PlanRecord.from_json(previous), record)
        if trial % 5 == 3:  # a few pages renamed at their places: planned again (their sources are new)
            paths = previous["pages"][0]
            for n in rng.sample(range(len(paths)), 3):
                paths[n] = "renamed/" + paths[n]
            renamed = {p.path for p in outline if "renamed/" + p.path in paths}
            got = replan.split_outline(outline, replan.PlanRecord.from_json(previous), record)
            expected = reference(previous)
            assert got[1] == [p for p in outline if p in expected[1] or p.path in renamed]
            continue
        if trial % 5 == 4 and len(outline) <= replan.MAX_SHIFTED:  # reversed, every page shifted: a safe excess
            assert set(got[1]) >= set(reference(previous)[1])
            monkeypatch.setattr(replan, "MAX_SHIFTED", 0)  # looked up one by one: exactly the reference
            got = replan.split_outline(outline, replan.PlanRecord.from_json(previous), record)
            monkeypatch.undo()
        assert got == reference(previous)
    assert replan.split_outline(outline, replan.PlanRecord.from_json(record.to_json()), record)[1] == \
        [p for p in outline if p.sources is None]
    broken = copy.deepcopy(record.to_json())
    broken["pages"][1] = broken["pages"][1][:-1]
    assert replan.split_outline(outline, replan.PlanRecord.from_json(broken), record) == ([], outline)


def test_split_outline_keeps_exactly_the_pages_neither_moved_nor_showing_a_changed_paper():
    """Few and many stale pages (both ways of :func:`replan._without`), against the pages counted by hand."""
    rng = random.Random(7)
    ids = [f"s:{n}" for n in range(300)]

    def record(outline, digests):
        return replan.PlanRecord("structure", [list(ids), b"".join(digests)], replan.page_digests(outline),
                                 ["key"] * len(ids))

    outline = [Planned(f"p{n}.html", tuple(rng.sample(ids, rng.randint(0, 4))), None) for n in range(2000)]
    outline[5] = Planned("search.html", None, None)
    digests = [bytes([n % 256]) * 32 for n in range(len(ids))]
    previous = record(outline, digests)
    for changed_count, moved_count in ((0, 0), (1, 0), (0, 3), (2, 5), (40, 0), (0, 300)):
        changed = set(rng.sample(range(len(ids)), changed_count))
        moved = set(rng.sample(range(len(outline)), moved_count)) - {5}
        now = [Planned(p.path, (*p.sources, "s:0") if n in moved else p.sources, None)
               for n, p in enumerate(outline)]
        current = record(now, [b"changed".ljust(32, b"-") if n in changed else d for n, d in enumerate(digests)])
        unchanged, stale = replan.split_outline(now, previous, current)
        changed_ids = {ids[n] for n in changed}
        expected = [p for n, p in enumerate(now)
                    if p.sources is None or n in moved or not changed_ids.isdisjoint(p.sources)]
        assert stale == expected
        assert unchanged == [p for p in now if p not in expected]
        assert len(unchanged) + len(stale) == len(now)
