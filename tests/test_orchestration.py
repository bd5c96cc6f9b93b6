"""The build's orchestration: garbage collection off in the build's own process (on again in its
workers and after the build), and what the search index process decides."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from conftest import CONFIG, SEEDS
from site_builder import pipeline
from site_builder import parallel
from site_builder.config import load_config


def _collecting(_item) -> bool:
    """Whether the process running this (a forked worker of :func:`parallel.parallel_map`) collects garbage."""
    return gc.isenabled()


def test_the_build_runs_without_the_collector_and_restores_it(tmp_path, monkeypatch):
    seen = []
    build_site = pipeline.build_site

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return build_site(*args, **kwargs)

    monkeypatch.setattr(pipeline, "build_site", spy)
    assert gc.isenabled()
    report = pipeline.build(SEEDS, tmp_path / "site", load_config(CONFIG), cache=tmp_path / "cache")
    assert report.files > 100
    assert seen == [False]
    assert gc.isenabled()


def test_the_build_leaves_a_disabled_collector_disabled(tmp_path):
    gc.disable()
    try:
        pipeline.build(SEEDS, tmp_path / "site", load_config(CONFIG), cache=None)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.forks
def test_forked_workers_collect_garbage_when_the_parent_does_not():
    if parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")
    gc.disable()
    try:
        results = parallel.parallel_map(_collecting, list(range(parallel.MIN_MAP_ITEMS)))
        job = parallel.start_background(lambda: [gc.isenabled()])
        assert job is not None
        background = job.result()
    finally:
        gc.enable()
    assert results == [True] * parallel.MIN_MAP_ITEMS
    assert background == [True]


def _seed_model():
    """The seed lists' site model (no cache)."""
    from site_builder.diagnostics import Diagnostics
    from site_builder.model.site import build_site

    config = load_config(CONFIG)
    diagnostics = Diagnostics()
    entries = pipeline.read_lists(pipeline.list_files(SEEDS), config, diagnostics)
    return build_site(entries, {}, config, diagnostics)


@pytest.mark.forks
def test_paper_digests_handed_over_by_a_forked_process_are_the_ones_computed_here():
    from site_builder.incremental.digest import Fingerprinter
    from site_builder.output.search_index import SharedDigests

    if parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")
    site = _seed_model()
    papers = list(site.papers)
    assert len(papers) > 20
    share = SharedDigests(len(papers))
    child = parallel.start_background(lambda: share.publish(Fingerprinter().digests(papers)) or [])
    share.forked()
    received = share.receive()
    child.result()
    share.close()
    here = Fingerprinter().digests(papers)
    assert received == here
    assert len(set(here)) == len(papers)
    # Adopted digests give the same digests of structures holding the papers as computing them here.
    adopted = Fingerprinter()
    adopted.adopt(papers, received)
    for paper in papers[:50]:
        assert adopted.of((paper, 1, "x")) == Fingerprinter().of((paper, 1, "x"))
    assert adopted.of(site) == Fingerprinter().of(site)


@pytest.mark.forks
def test_a_process_that_ends_without_publishing_hands_over_nothing():
    from site_builder.output.search_index import SharedDigests

    if parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")
    share = SharedDigests(3)
    child = parallel.start_background(lambda: [])
    share.forked()
    assert share.receive() is None
    child.result()
    share.close()


def test_a_kept_search_index_is_still_a_top_level_name_of_the_404_page(tmp_path):
    """A rebuild whose model is unchanged keeps search-index.js (decided in the index process); the 404
    page's script still lists it among the site's top-level names, and the site is a no-cache build's."""
    import json
    import re

    from site_builder.model.urls import SEARCH_INDEX_JS

    from conftest import assert_same_site

    site, cache = tmp_path / "site", tmp_path / "cache"
    config = load_config(CONFIG)
    pipeline.build(SEEDS, site, config, cache=cache)
    index_inode = (site / SEARCH_INDEX_JS).stat().st_ino
    page = next((site / "papers").glob("*.html"))
    page.unlink()  # the output changed, the inputs did not: a full build, with the same model
    report = pipeline.build(SEEDS, site, config, cache=cache)
    assert report.reused > 100
    assert (site / SEARCH_INDEX_JS).stat().st_ino == index_inode  # kept, not written again
    assert page.is_file()
    names = json.loads(re.search(r"var TOP = (\[[^\]]*\]);", (site / "404.html").read_text(encoding="utf-8")).group(1))
    assert SEARCH_INDEX_JS in names and "papers" in names
    pipeline.build(SEEDS, tmp_path / "plain", config, cache=None)
    assert_same_site(tmp_path / "plain", site)


@pytest.mark.parametrize("bad", [["/index.html"], ["a/../b.html"], ["./a.html"], ["a/./b.html"], ["a//b.html"],
                                 ["a/"], [""], [".."], ["papers/x.html\n/etc/passwd"],
                                 ["papers/dup.html", "papers/dup.html"], ["index.html"]])
def test_keeping_many_files_refuses_what_keeping_them_one_by_one_refuses(tmp_path, bad):
    from site_builder.output.writer import Output, OutputError

    site = tmp_path / "site"
    pipeline.build(SEEDS, site, load_config(CONFIG), cache=None)
    good = ["index.html", "papers/a.html", "venues/x/index.html", "a..b/c.d..html"]
    many, one = Output(site), Output(site)
    try:
        many.keep_all(good)
        assert set(good) <= many.kept and set(good) <= many.written
        for path in good:
            one.keep(path)

        def refused(keep) -> bool:
            try:
                keep()
            except OutputError:
                return True
            return False

        paths = ["papers/new.html", *bad]
        assert refused(lambda: many.keep_all(paths)) == refused(lambda: [one.keep(path) for path in paths])
        assert refused(lambda: many.keep_all(paths)) or "\n" in bad[0]  # (keep takes a name with a newline)
        assert many.written == one.written
    finally:
        many.discard()
        one.discard()


def test_the_quick_unsafe_path_check_agrees_with_the_regex():
    # Output.keep_all looks for a few substrings before running the regex over every path: both must agree
    # on every list of paths made of the characters that matter (all lists up to 5 characters long, split
    # into paths in every way, and random longer ones).
    import itertools
    import random

    from site_builder.output.writer import _UNSAFE_LINE, _unsafe_lines

    def agree(paths):
        assert _unsafe_lines(paths) == (_UNSAFE_LINE.search("\n".join(paths)) is not None), paths

    alphabet = "a./\n"
    for n in range(6):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            agree([text])
            agree(text.split("\n"))
            agree(["papers/x.html", text, "index.html"])
    rng = random.Random(8)
    for _ in range(3000):
        agree(["".join(rng.choice(alphabet + "bc") for _ in range(rng.randint(0, 12)))
               for _ in range(rng.randint(1, 4))])
    assert not _unsafe_lines(["index.html", "papers/a.html", "a..b/c.d..html", "v/.a"])
    assert _unsafe_lines(["index.html", "papers/./a.html"]) and _unsafe_lines(["a", ""])


def test_keeping_many_files_in_a_folder_this_tool_did_not_build_is_refused(tmp_path):
    from site_builder.output.writer import Output, OutputError

    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "index.html").write_text("not ours", encoding="utf-8")
    output = Output(tmp_path / "mine")
    with pytest.raises(OutputError, match="not built by this tool"):
        output.keep_all(["index.html"])
    output.discard()


def test_the_index_files_named_for_the_build_are_the_ones_the_index_writes():
    from site_builder.output import search_index as index_run
    from site_builder.search import index as search

    assert index_run.INDEX_FILES == search.INDEX_FILES == pipeline.INDEX_FILES


def test_the_build_itself_does_not_import_the_search_modules(tmp_path):
    """A rebuild's own process never needs the search modules (the index process imports them)."""
    import subprocess
    import sys

    script = ("import sys; from site_builder import cli; assert "
              f"cli.main(['--seeds', {str(SEEDS)!r}, '--config', {str(CONFIG)!r}, '--out', {str(tmp_path / 'site')!r},"
              f" '--cache', {str(tmp_path / 'cache')!r}, '--quiet']) == 0; "
              "print(sorted(m for m in sys.modules if m.startswith('site_builder.search') or "
              "m in ('site_builder.search.indexer', 'site_builder.search.tokenize', 'site_builder.search.state')))")
    import os

    env = {**os.environ, "PYTHONPATH": str(Path(pipeline.__file__).resolve().parent.parent)}
    for _ in range(2):  # a cold build, then one with the cache
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
        assert result.stdout.strip() == "[]"
    assert (tmp_path / "site" / "search-index.js").stat().st_size > 1000


def _reference_structure_digest(site, library, fingerprints, shared):
    """replan.structure_digest as it was written first (one place() per paper), for the equivalence test."""
    from collections import Counter

    from site_builder.pages import replan
    from site_builder.pages.plan import AUTHORS_PER_INDEX_PAGE

    places = {}

    def place(obj):
        digest = places.get(id(obj))
        if digest is None:
            digest = places[id(obj)] = fingerprints.of(obj)
        return digest

    counts = Counter((place(p.venue), place(p.track) if p.track is not None else "") for p in site.papers)
    venues = tuple([(place(v), tuple([place(t) for t in site.tracks_of(v)])) for v in site.venues])
    tracks = tuple([place(t) for t in site.tracks])
    authors = tuple([(a.key, a.slug, tuple(sorted(a.spellings.items())), len(a.papers))
                     for a in library.authors.authors])
    terms = tuple([(t.kind, t.slug, t.label, t.path, len(t.papers)) for t in (*library.tags, *library.keywords)])
    notes = (bool(library.notes), library.status_counts() if library.notes else None)
    parts = (shared, len(site.papers), tuple(sorted(counts.items())), venues, tracks, replan._sha(authors), terms,
             notes, AUTHORS_PER_INDEX_PAGE)
    return None if None in shared or None in places.values() else replan._sha(parts)


def test_the_structure_digest_counts_papers_per_venue_and_track_as_one_place_per_paper_did():
    import dataclasses

    from site_builder.pages import replan
    from site_builder.incremental.digest import Fingerprinter
    from site_builder.model.library import Library

    site = _seed_model()
    assert any(p.track is None for p in site.papers) and any(p.track is not None for p in site.papers)
    library = Library(site)
    shared = ("code", "templates", "config")
    digest = replan.structure_digest(site, library, Fingerprinter(), shared)
    assert digest == _reference_structure_digest(site, library, Fingerprinter(), shared)
    # Equal venues and tracks held by distinct objects count together, as their digests do.
    copies = [dataclasses.replace(p, venue=dataclasses.replace(p.venue)) if i % 2 else p
              for i, p in enumerate(site.papers)]
    copied = dataclasses.replace(site, papers=type(site.papers)(copies))
    assert replan.structure_digest(copied, library, Fingerprinter(), shared) == digest
    # A paper moved to another track changes it.
    tracked = [i for i, p in enumerate(site.papers) if p.track is not None]
    other = next(p.track for p in site.papers if p.track is not None and p.track != site.papers[tracked[0]].track)
    moved = list(site.papers)
    moved[tracked[0]] = dataclasses.replace(moved[tracked[0]], track=other)
    changed = dataclasses.replace(site, papers=type(site.papers)(moved))
    assert replan.structure_digest(changed, library, Fingerprinter(), shared) != digest
    assert (replan.structure_digest(changed, library, Fingerprinter(), shared)
            == _reference_structure_digest(changed, library, Fingerprinter(), shared))


def _seed_plan():
    """The seed lists' model, library, outline and plan record (no cache, no previous record)."""
    from site_builder.pages import replan
    from site_builder.incremental.digest import Fingerprinter
    from site_builder.model.library import Library
    from site_builder.pages.plan import outline_pages

    site = _seed_model()
    library = Library(site)
    outline = outline_pages(site, library)
    record = replan.plan_record(site, library, outline, Fingerprinter(), ("code", "templates", "config"))
    assert record.structure is not None and len(record.papers[0]) == len(site.papers)
    return site, library, outline, record


def test_paper_identities_made_by_maps_are_paper_identity():
    from site_builder.pages import replan
    from site_builder.pages.plan import paper_identity

    site = _seed_model()
    assert replan.identities_of(site.papers) == [paper_identity(p) for p in site.papers]
    assert len(set(replan.identities_of(site.papers))) == len(site.papers)


def test_a_paper_whose_bibtex_key_alone_changed_is_planned_again_with_every_page_that_shows_it():
    import copy

    from site_builder.pages import replan
    from site_builder.pages.plan import paper_identity

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


def test_the_authors_digest_is_taken_from_the_previous_record_only_for_the_same_authors_as_written():
    from site_builder.pages import replan
    from site_builder.model.authors import input_digest

    site, library, outline, record = _seed_plan()
    computed, none = replan.authors_digest(library, None)
    assert none is None  # an index made without the cache has no input digest: nothing to record
    assert computed == replan._sha(tuple((a.key, a.slug, tuple(sorted(a.spellings.items())), len(a.papers))
                                         for a in library.authors.authors))
    library.authors.input_digest = input_digest(site.papers)
    digest, kept = replan.authors_digest(library, record)
    assert (digest, kept) == (computed, [library.authors.input_digest, computed])
    record.authors = [library.authors.input_digest, "recorded"]
    assert replan.authors_digest(library, record) == ("recorded", record.authors)
    record.authors = ["another input", "recorded"]
    assert replan.authors_digest(library, record) == (computed, [library.authors.input_digest, computed])
    assert replan.structure_digest(site, library, _fingerprinter(), ("c", "t", "f"), computed) == \
        replan.structure_digest(site, library, _fingerprinter(), ("c", "t", "f"))


def test_page_digests_tell_apart_every_change_of_sources():
    from site_builder.pages import replan
    from site_builder.pages.plan import Planned

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
    from site_builder.pages import replan
    from site_builder.pages.plan import Planned

    outline = [Planned(f"p{n}.html", (f"a:{n}", f"b:{n % 7}"), None) for n in range(2000)]
    for moved in ([], [0], [255, 256, 257], [1999], list(range(0, 2000, 97)), list(range(600, 900))):
        changed = [Planned(p.path, p.sources + ("c:1",), None) if n in moved else p for n, p in enumerate(outline)]
        assert replan._moved(replan.page_digests(outline), replan.page_digests(changed)) == {f"p{n}.html" for n in moved}


def test_split_outline_gives_the_pages_one_test_per_page_gives(monkeypatch):
    import copy
    import random

    from site_builder.pages import replan
    from site_builder.pages.plan import Planned

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
        assert got == reference(previous)
    assert replan.split_outline(outline, replan.PlanRecord.from_json(record.to_json()), record)[1] == \
        [p for p in outline if p.sources is None]
    broken = copy.deepcopy(record.to_json())
    broken["pages"][1] = broken["pages"][1][:-1]
    assert replan.split_outline(outline, replan.PlanRecord.from_json(broken), record) == ([], outline)


def _fingerprinter():
    from site_builder.incremental.digest import Fingerprinter

    return Fingerprinter()


def _run_python(script: str, *args: str, cwd: Path | None = None, **env: str):
    import os
    import subprocess
    import sys

    environ = {**os.environ, "PYTHONPATH": str(Path(pipeline.__file__).resolve().parent.parent), **env}
    environ.pop("PYTHONUNBUFFERED", None)  # (set on some machines) output to a pipe is then block-buffered
    return subprocess.run([sys.executable, *(["-c", script] if script else []), *args], capture_output=True,
                          text=True, env=environ, cwd=cwd)


def test_exit_now_runs_the_exit_functions_flushes_and_exits_with_the_status():
    script = ("import atexit, sys; from site_builder.cli import exit_now; "
              "atexit.register(lambda: print('exit function ran')); "
              "sys.stdout.write('buffered '); sys.stderr.write('on stderr'); exit_now(3)")
    result = _run_python(script)
    assert result.returncode == 3
    assert result.stdout == "buffered exit function ran\n"  # a pipe: block-buffered until exit_now flushes it
    assert result.stderr == "on stderr"


def test_a_build_by_build_py_ends_at_once_with_everything_written(tmp_path):
    """build.py ends without the interpreter's teardown (cli.run): its summary line, its files and its
    cache are all there, the site is byte for byte the one an in-process build writes, and the next
    build finds everything as the first left it."""
    import filecmp

    root = Path(pipeline.__file__).resolve().parent.parent
    args = [str(root / "build.py"), "--seeds", str(SEEDS), "--config", str(CONFIG), "--out", "site",
            "--cache", "cache"]
    first = _run_python("", *args, cwd=tmp_path, SITE_BUILDER_TIMINGS="1")
    assert first.returncode == 0, first.stderr
    assert "\nbuilt " in first.stderr and first.stderr.endswith("warning(s)\n")
    from conftest import build_into

    assert build_into(tmp_path / "in-process", "--no-cache", "--quiet") == 0

    def same(a: Path, b: Path) -> None:
        compared = filecmp.dircmp(a, b)
        assert not (compared.left_only or compared.right_only or compared.funny_files), (a, b)
        assert filecmp.cmpfiles(a, b, compared.common_files, shallow=False)[1:] == ([], [])
        for sub in compared.common_dirs:
            same(a / sub, b / sub)

    same(tmp_path / "site", tmp_path / "in-process")
    second = _run_python("", *args, cwd=tmp_path, SITE_BUILDER_TIMINGS="1")
    assert second.returncode == 0, second.stderr
    assert "stage nothing changed" in second.stderr  # the first build's cache and report were saved whole
    failed = _run_python("", *[a if a != str(SEEDS) else str(tmp_path / "none") for a in args], cwd=tmp_path)
    assert failed.returncode == 2 and "no such folder" in failed.stderr


def test_kept_objects_outlive_the_build_only_when_asked(tmp_path, monkeypatch):
    import weakref

    for keep in (False, True):
        monkeypatch.setattr(pipeline, "_KEPT", None)
        if keep:
            pipeline.keep_objects()
        report = pipeline.build(SEEDS, tmp_path / f"site-{keep}", load_config(CONFIG), cache=tmp_path / "cache")
        library, diagnostics = weakref.ref(report.library), weakref.ref(report.diagnostics)
        del report
        gc.collect()
        assert (library() is not None) == keep and (diagnostics() is not None) == keep


def test_write_spliced_joins_bytes_and_ranges_of_open_files_with_or_without_the_kernel_copy(tmp_path, monkeypatch):
    import errno
    import os

    from site_builder.output import writer

    source = tmp_path / "source"
    data = ("0123456789" * 1000 + "é ü").encode("utf-8")
    source.write_bytes(data)
    fd = os.open(source, os.O_RDONLY)
    try:
        pieces = [b"[", (fd, 5, 20), b",\n", (fd, 9000, len(data) - 9000), (fd, 0, 0), b"]"]
        expected = b"[" + data[5:25] + b",\n" + data[9000:] + b"]"
        stat = writer.write_spliced(str(tmp_path / "kernel"), pieces)
        assert (tmp_path / "kernel").read_bytes() == expected
        assert stat[0] == len(expected) and stat[2] == (tmp_path / "kernel").stat().st_ino

        def refused(*args):
            raise OSError(errno.EXDEV, "cross-device")

        monkeypatch.setattr(writer, "_copy_file_range", refused)
        writer.write_spliced(str(tmp_path / "here"), pieces)
        assert (tmp_path / "here").read_bytes() == expected
        assert writer._copy_file_range is None  # refused once: copied here from then on
        with pytest.raises(ValueError, match="ends before"):
            writer.write_spliced(str(tmp_path / "short"), [(fd, len(data) - 3, 10)])
    finally:
        os.close(fd)


def test_a_build_that_finds_nothing_changed_does_not_import_numpy(tmp_path):
    """pipeline imports site_builder.model.library (numpy with it) only for a build that makes a site; before
    the index process is forked, so that process does not import numpy again."""
    script = ("import sys; from site_builder import cli; assert "
              f"cli.main(['--seeds', {str(SEEDS)!r}, '--config', {str(CONFIG)!r}, '--out', {str(tmp_path / 'site')!r},"
              f" '--cache', {str(tmp_path / 'cache')!r}, '--quiet']) == 0; "
              "print('numpy' in sys.modules)")
    results = [_run_python(script, SITE_BUILDER_TIMINGS="1") for _ in range(2)]  # a cold build, then the same
    assert [r.stdout.strip() for r in results] == ["True", "False"], [r.stderr[-500:] for r in results]
    assert "stage nothing changed" in results[1].stderr
    assert pipeline.build_library.__module__ == "site_builder.model.library"


def test_split_outline_keeps_exactly_the_pages_neither_moved_nor_showing_a_changed_paper():
    """Few and many stale pages (both ways of :func:`replan._without`), against the pages counted by hand."""
    import random

    from site_builder.pages import replan
    from site_builder.pages.plan import Planned

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
