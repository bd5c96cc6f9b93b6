"""The build cache and the parallel writer never change the output: cold, warm and parallel builds agree byte for byte,
but for the one exemption of the paper map, whose rebuild places changed papers in the kept map
(``site_builder/model/layout.py``, "Reuse"; ``conftest.assert_same_site`` with ``placed_map``)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from conftest import CONFIG, SEEDS, assert_same_site, build_into, files_of
from features_support import NOTES
from site_builder import progress as progress_module
from site_builder import parallel
from site_builder.output import rendering, workers
from site_builder.incremental.memo import MEMO_NAME
from site_builder.config import load_config
from site_builder.pipeline import build
from site_builder.progress import Progress




def run(seeds: Path, out: Path, cache: Path | None):
    return build(seeds, out, load_config(CONFIG), cache=cache)


@pytest.fixture
def seeds_copy(tmp_path) -> Path:
    folder = tmp_path / "seeds"
    shutil.copytree(SEEDS, folder)
    return folder


def change_one_abstract(seeds: Path) -> str:
    """Append a sentence to the first abstract of the ICML 2025 list; returns the new sentence."""
    path = next(seeds.glob("003_*.txt"))
    text = path.read_text(encoding="utf-8")
    old = "Controllability has become a critical issue in trustworthy machine learning"
    assert old in text
    sentence = "We also release a benchmark suite"
    path.write_text(text.replace(old, f"{sentence}. {old}", 1), encoding="utf-8")
    return sentence


def inode(path: Path) -> int:
    return path.stat().st_ino


#: Builds to compare: plain, with the curator's notes, for hosting (base URL and a fixed build date).
SCENARIOS = {
    "plain": ([], {}),
    "notes": (["--notes", str(NOTES)], {}),
    "hosting": (["--base-url", "https://example.org/repo/"], {"SOURCE_DATE_EPOCH": "1717243200"}),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_no_cache_cold_and_warm_builds_agree_byte_for_byte(tmp_path, seeds_copy, monkeypatch, scenario):
    extra, env = SCENARIOS[scenario]
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    cache, site = tmp_path / "cache", tmp_path / "site"

    def check(label: str, placed_map: bool = False) -> None:
        plain = tmp_path / f"plain-{label}"
        assert build_into(plain, "--no-cache", *extra, seeds=seeds_copy) == 0
        assert_same_site(plain, site, placed_map)
        assert len(files_of(site)) > 100

    assert build_into(site, "--cache", str(cache), *extra, seeds=seeds_copy) == 0  # cold
    check("cold")
    assert (cache / MEMO_NAME).is_file()
    index = inode(site / "search" / "manifest.js")
    assert build_into(site, "--cache", str(cache), *extra, seeds=seeds_copy) == 0  # warm
    check("warm")
    assert inode(site / "search" / "manifest.js") == index  # reused: kept from the previous output

    sentence = change_one_abstract(seeds_copy)
    assert build_into(site, "--cache", str(cache), *extra, seeds=seeds_copy) == 0  # warm, one abstract changed
    check("changed", placed_map=True)  # the changed paper placed in the previous map (model/layout.py, "Reuse")
    assert inode(site / "search" / "manifest.js") != index
    assert [f.name for f in (site / "search" / "records").iterdir() if sentence in f.read_text(encoding="utf-8")]
    assert any(sentence in p.read_text(encoding="utf-8") for p in (site / "papers").glob("*.html"))


def test_a_changed_note_shows_with_a_warm_cache(tmp_path, seeds_copy):
    notes, cache, site = tmp_path / "notes", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(NOTES, notes)
    assert build_into(site, "--cache", str(cache), "--notes", str(notes), seeds=seeds_copy) == 0
    note = notes / "controllability.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nA sentence added to the note.\n", encoding="utf-8")
    assert build_into(site, "--cache", str(cache), "--notes", str(notes), seeds=seeds_copy) == 0
    assert build_into(tmp_path / "plain", "--no-cache", "--notes", str(notes), seeds=seeds_copy) == 0
    assert_same_site(tmp_path / "plain", site)
    assert any("A sentence added to the note." in p.read_text(encoding="utf-8")
               for p in (site / "papers").glob("*.html"))


def test_corrupt_cache_files_are_ignored_with_a_warning(tmp_path, seeds_copy):
    cache = tmp_path / "cache"
    run(seeds_copy, tmp_path / "site", cache)
    manifests = list((cache / "outputs").glob("*.marshal"))
    assert len(manifests) == 1
    (cache / MEMO_NAME).write_bytes(b"\x00not json")
    manifests[0].write_text('{"format": 1, "code": ', encoding="utf-8")
    report = run(seeds_copy, tmp_path / "site", cache)
    messages = [str(d) for d in report.diagnostics.warnings]
    assert any(m.startswith(f"{cache / MEMO_NAME}: warning: cache file corrupt") for m in messages)
    assert any(m.startswith(f"{manifests[0]}: warning: cache file corrupt") for m in messages)
    assert report.reused == 0
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", tmp_path / "site")
    # rewritten: the next build is quiet and reuses again
    again = run(seeds_copy, tmp_path / "site", cache)
    assert again.diagnostics.warnings == [] and again.reused > 0


def test_a_hand_edited_output_file_is_rendered_again(tmp_path, seeds_copy):
    cache = tmp_path / "cache"
    run(seeds_copy, tmp_path / "site", cache)
    reusable = run(seeds_copy, tmp_path / "site", cache).reused
    assert reusable > 100  # pages, papers.json, the index
    for name in ("search/manifest.js", "search/records/0.js", "papers.json", "index.html", "venues/iclr-2025/index.html"):
        file = tmp_path / "site" / name
        original = file.read_bytes()
        file.write_bytes(b"edited by hand")
        report = run(seeds_copy, tmp_path / "site", cache)
        assert file.read_bytes() == original
        assert report.reused == reusable - 1  # every other file still reused


def test_strict_build_is_not_failed_by_a_corrupt_cache(tmp_path, seeds_copy):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / MEMO_NAME).write_text("[1, 2", encoding="utf-8")
    assert build_into(tmp_path / "site", "--strict", "--cache", str(cache), seeds=seeds_copy) == 0


def test_parallel_writer_gives_the_same_bytes(tmp_path, seeds_copy, monkeypatch):
    run(seeds_copy, tmp_path / "serial", None)
    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    monkeypatch.setattr(parallel, "MIN_PARALLEL_WORK", 0)
    monkeypatch.setattr(parallel, "MIN_MAP_ITEMS", 0)
    monkeypatch.setattr(workers, "CHUNK", 7)
    used = []
    real_pool = parallel.multiprocessing.get_context("fork").Pool

    class CountingContext:
        def Pool(self, n, **options):  # noqa: N802 - the multiprocessing name
            used.append(n)
            return real_pool(n, **options)

    monkeypatch.setattr(parallel.multiprocessing, "get_context", lambda method: CountingContext())
    report = run(seeds_copy, tmp_path / "parallel", tmp_path / "cache")
    assert used == [2, 2] and report.reused == 0  # abstracts, then pages (the index runs in a process of its own)
    assert_same_site(tmp_path / "serial", tmp_path / "parallel")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_only(monkeypatch):
    monkeypatch.setattr(progress_module, "DELAY", 0.0)
    monkeypatch.setattr(progress_module, "INTERVAL", 0.0)
    terminal, pipe = Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        p = Progress(stream)
        p.stage("pages", 3, "pages")
        p.advance()
        p.advance(2)
        p.close()
    assert "pages 1/3 pages" in terminal.getvalue() and "pages 3/3 pages" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r")
    assert pipe.getvalue() == ""
    quiet = Terminal()
    p = Progress(quiet, enabled=False)
    p.stage("pages", 3)
    p.advance()
    assert quiet.getvalue() == ""


def test_summary_line_and_quiet(tmp_path, seeds_copy, capsys):
    assert build_into(tmp_path / "a", "--no-cache", seeds=seeds_copy) == 0
    err = capsys.readouterr().err.strip().splitlines()
    pages = len(list((tmp_path / "a").rglob("*.html"))) - 1  # all but 404.html
    papers = len(list((tmp_path / "a" / "papers").glob("*.html")))
    assert len(err) == 1 and err[0].startswith(f"built {papers} papers, {pages} pages, ")
    assert "index " in err[0] and err[0].endswith("0 warning(s)")
    assert build_into(tmp_path / "b", "--no-cache", "--quiet", seeds=seeds_copy) == 0
    assert capsys.readouterr().err == ""


def test_a_deleted_index_script_is_written_again(tmp_path, seeds_copy):
    cache = tmp_path / "cache"
    run(seeds_copy, tmp_path / "site", cache)
    reusable = run(seeds_copy, tmp_path / "site", cache).reused
    script = tmp_path / "site" / "search" / "terms" / "0.js"
    original = script.read_bytes()
    script.unlink()
    report = run(seeds_copy, tmp_path / "site", cache)
    assert script.read_bytes() == original
    assert report.reused == reusable - 1  # all but the script (the index's other files kept: their text is the same)


def fail_paper_writes_in_workers(monkeypatch):
    """Make pages render in two forked workers, where writing any paper page fails with ENOSPC;
    returns the real write function (to undo it)."""
    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    monkeypatch.setattr(parallel, "MIN_PARALLEL_WORK", 0)
    monkeypatch.setattr(workers, "CHUNK", 7)
    real = workers._write

    def failing(staging, path, text, key):
        if path.startswith("papers/"):
            raise OSError(28, "No space left on device")
        return real(staging, path, text, key)

    monkeypatch.setattr(workers, "_write", failing)
    return real


def test_a_failed_write_in_a_worker_keeps_the_previous_site(tmp_path, seeds_copy, monkeypatch):
    site = tmp_path / "site"
    assert build_into(site, "--no-cache", seeds=seeds_copy) == 0
    before = files_of(site)
    fail_paper_writes_in_workers(monkeypatch)
    change_one_abstract(seeds_copy)
    assert build_into(site, "--no-cache", seeds=seeds_copy) == 2
    assert files_of(site) == before
    assert not list(tmp_path.glob(".site.building-*"))


# -- page-level reuse: every kind of edit, rebuilt with the cache, gives the bytes of a build without it ----------

CONTROLLABILITY = "Controllability has become a critical issue in trustworthy machine learning"
AUTHORS_LINE = "Yi-Fan Zhang, Xiao Zhang, Min-Ling Zhang"


def _list_003(seeds: Path) -> Path:
    return next(seeds.glob("003_*.txt"))


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def edit_title(seeds: Path, notes: Path, templates: Path) -> str:
    (seeds / "overrides.toml").write_text('[papers.2bb1acffdb]\ntitle = "Controllable Learners Generalise"\n',
                                         encoding="utf-8")
    return "Controllable Learners Generalise"


def edit_author(seeds: Path, notes: Path, templates: Path) -> str:
    _replace(_list_003(seeds), AUTHORS_LINE, AUTHORS_LINE + ", Ada Lovelace")
    return "Ada Lovelace"


def edit_note(seeds: Path, notes: Path, templates: Path) -> str:
    (notes / "added.md").write_text("---\npaper: a6a374ae39\nstatus: reading\ntags: [freshly added tag]\n---\n"
                                    "Read it twice.\n", encoding="utf-8")
    return "freshly added tag"


def edit_template(seeds: Path, notes: Path, templates: Path) -> str:
    _replace(templates / "_chrome.html", "{{ _(\"All venues\") }}</a>", "All the venues</a>")  # base.html's footer
    return "All the venues"


def add_paper(seeds: Path, notes: Path, templates: Path) -> str:
    path = _list_003(seeds)
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n\nTheory · Learning Theory\n\n"
                    "Ada Lovelace, Charles Babbage\n\nWe show that an analytical engine of finite memory can "
                    "compute every Bernoulli number, and bound the number of cards it needs.\n", encoding="utf-8")
    return "analytical engine of finite memory"


def second_paper(seeds: Path, notes: Path, templates: Path) -> str:
    """A paper by an author of one paper so far: the author's page comes, and their first paper's page links it."""
    assert not (seeds.parent / "site" / "authors" / "xiao-zhang.html").exists()
    path = _list_003(seeds)
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n\nTheory · Learning Theory\n\n"
                    "Xiao Zhang, Ada Lovelace\n\nWe show that a learner told which of its errors are costly "
                    "can be steered with a number of queries logarithmic in the number of hypotheses.\n",
                    encoding="utf-8")
    return "authors/xiao-zhang.html"


def remove_paper(seeds: Path, notes: Path, templates: Path) -> str:
    path = _list_003(seeds)
    text = path.read_text(encoding="utf-8")
    start = text.index("Theory · Learning Theory\n\n" + AUTHORS_LINE)
    end = text.index("\n\n", text.index(CONTROLLABILITY)) + 2
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    return ""


EDITS = {"abstract": lambda seeds, notes, templates: change_one_abstract(seeds), "title": edit_title,
         "author": edit_author, "note": edit_note, "template": edit_template, "add paper": add_paper,
         "second paper of an author": second_paper, "remove paper": remove_paper}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edit_rebuilt_with_reused_pages_gives_the_bytes_of_a_build_without_cache(tmp_path, seeds_copy, monkeypatch,
                                                                                   edit):
    from site_builder import pipeline

    from site_builder.pages import replan

    notes, templates, cache, site = tmp_path / "notes", tmp_path / "templates", tmp_path / "cache", tmp_path / "site"
    shutil.copytree(NOTES, notes)
    shutil.copytree(pipeline.TEMPLATES, templates)
    monkeypatch.setattr(pipeline, "TEMPLATES", templates)
    # Every page replan keeps unplanned is also keyed the full way: a different key fails the build.
    monkeypatch.setenv("SITE_BUILDER_CHECK_REPLAN", "1")
    splits = []
    real_split = replan.split_outline
    monkeypatch.setattr(replan, "split_outline", lambda *a: splits.append(real_split(*a)) or splits[-1])
    # Every list page keeps its items' HTML for the next build (PageReuse.take_items); count those taken.
    from site_builder.output import writer

    monkeypatch.setattr(rendering, "ITEMS_KEPT", 1)
    taken = []
    real_known = writer.PageFolder._known
    monkeypatch.setattr(writer.PageFolder, "_known", lambda *a: taken.append(real_known(*a)) or taken[-1])
    config = load_config(CONFIG)
    first = build(seeds_copy, site, config, notes=notes, cache=cache)
    pages = first.pages
    before = files_of(site)
    marker = EDITS[edit](seeds_copy, notes, templates)
    report = build(seeds_copy, site, config, notes=notes, cache=cache)
    assert report.files > 100
    build(seeds_copy, tmp_path / "plain", config, notes=notes, cache=None)
    assert_same_site(tmp_path / "plain", site, placed_map=True)
    after = files_of(site)
    changed = [p for p in after if p.endswith(".html") and before.get(p) != after[p]]
    assert changed  # the edit shows somewhere
    if marker:
        assert any(marker.encode() in after[p] for p in changed)
    if edit == "template":
        # Every page rendered again (only papers.json, the site's .bib file, the index's files, the venues' .bib
        # files, the abstracts files and the feeds, which no template makes, can be reused).
        assert report.reused <= 2 + len(list((site / "search").rglob("*.js"))) + len(list(site.glob("venues/*/papers.bib"))) \
            + len(list(site.rglob("feed.xml"))) + len(list(site.glob("venues/*/abstracts/*.js")))
        assert not any(taken)  # nor any item taken from the previous build (other templates)
    elif edit == "abstract":
        assert len([html for html in taken if html is not None]) > 10  # the venue page's other items
    else:
        assert report.reused > pages // 2  # most pages hard-linked from the previous output
        assert (site / "search.html").stat().st_nlink == 1  # search.html gets the whole library: always rendered


def test_cached_paper_items_give_the_bytes_of_the_macro_rendered_each_time(tmp_path, seeds_copy, monkeypatch):
    from site_builder.output import writer

    assert build_into(tmp_path / "cached", "--no-cache", "--notes", str(NOTES), seeds=seeds_copy) == 0
    real = writer.PageFolder.paper_item
    calls = []

    def uncached(self, item, show_track=True):
        calls.append(item)
        self._items.clear()
        return real(self, item, show_track)

    monkeypatch.setattr(writer.PageFolder, "paper_item", uncached)
    assert build_into(tmp_path / "fresh", "--no-cache", "--notes", str(NOTES), seeds=seeds_copy) == 0
    assert calls
    assert_same_site(tmp_path / "fresh", tmp_path / "cached")


def test_cached_page_chrome_gives_the_bytes_of_the_chrome_rendered_each_time(tmp_path, seeds_copy, monkeypatch):
    from site_builder.output import writer

    assert build_into(tmp_path / "cached", "--no-cache", "--notes", str(NOTES), seeds=seeds_copy) == 0
    real = writer.Chrome.__call__
    parts = []

    def uncached(self, ctx, part):
        self.html.clear()
        return real(self, ctx, part)

    def fresh_part(self, part):  # each page's chrome rendered again (no part kept)
        parts.append(part)
        self.clear()
        return dict.__getitem__(self, part)

    monkeypatch.setattr(writer.Chrome, "__call__", uncached)
    monkeypatch.setattr(writer._ChromeParts, "__getitem__", fresh_part)
    assert build_into(tmp_path / "fresh", "--no-cache", "--notes", str(NOTES), seeds=seeds_copy) == 0
    assert len(parts) > 4 * 60  # the chrome of every page (some 80 pages, four parts each)
    assert_same_site(tmp_path / "fresh", tmp_path / "cached")
    footer = '<footer class="site-footer"><nav aria-label="Site"><a href="{}index.html">All venues</a>'
    assert footer.format("") in (tmp_path / "cached" / "index.html").read_text(encoding="utf-8")
    paper = next((tmp_path / "cached" / "papers").glob("*.html"))
    assert footer.format("../") in paper.read_text(encoding="utf-8")
    assert footer.format("/") in (tmp_path / "cached" / "404.html").read_text(encoding="utf-8")  # its own links


def test_page_citation_views_equal_the_library(seeds_copy):
    from site_builder.diagnostics import Diagnostics
    from site_builder.model.library import build_library
    from site_builder.model.site import build_site
    from site_builder.pipeline import list_files, load_overrides, read_lists
    from site_builder.pages.views import Citation

    for base_url in ("", "https://example.org/repo/"):
        config = load_config(CONFIG).with_base_url(base_url)
        diagnostics = Diagnostics()
        site = build_site(read_lists(list_files(seeds_copy), config, diagnostics),
                          load_overrides(seeds_copy, diagnostics), config, diagnostics)
        library = build_library(site, NOTES, diagnostics)
        assert len(site.papers) > 20
        for paper in site.papers:
            cite = Citation(paper, library.bib_key(paper), base_url)
            assert cite.bibtex() == library.bibtex(paper)
            assert cite.highwire() == library.highwire(paper)
            assert cite.json_ld() == library.json_ld(paper)


def test_links_computed_on_strings_equal_relpath(seed_site):
    from site_builder.model import urls

    paths = sorted(p.relative_to(seed_site).as_posix() for p in seed_site.rglob("*") if p.is_file())
    folders = sorted({p.rpartition("/")[0] for p in paths})
    assert len(folders) > 5 and len(paths) > 100
    for folder in folders:
        for target in paths:
            assert urls.relative_url_from(folder, target) == urls.relative_url(f"{folder}/x" if folder else "x", target)


def test_a_failing_index_process_fails_the_build_and_keeps_the_previous_site(tmp_path, seeds_copy, monkeypatch,
                                                                          capsys):
    """The search index runs in a forked process of its own (parallel.start_background); its failure is the
    build's: exit status 2 with the reason, the previous output untouched, no staging folder left."""
    import os

    site, cache = tmp_path / "site", tmp_path / "cache"
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 0
    before = files_of(site)
    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    parent = os.getpid()

    def failing(site_model, state=None, models=None):
        raise OSError(28, f"No space left on device (in process {'parent' if os.getpid() == parent else 'child'})")

    monkeypatch.setattr(workers, "index_items", failing)
    change_one_abstract(seeds_copy)
    capsys.readouterr()
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 2
    assert "No space left on device (in process child)" in capsys.readouterr().err
    assert files_of(site) == before
    assert not list(tmp_path.glob(".site.building-*"))


def test_a_failed_rebuild_that_keeps_pages_leaves_the_previous_site(tmp_path, seeds_copy, monkeypatch):
    site, cache = tmp_path / "site", tmp_path / "cache"
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 0
    before = files_of(site)
    real = fail_paper_writes_in_workers(monkeypatch)
    change_one_abstract(seeds_copy)
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 2
    assert files_of(site) == before
    assert not list(tmp_path.glob(".site.building-*"))
    monkeypatch.setattr(workers, "_write", real)
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 0  # and the next build still agrees
    assert build_into(tmp_path / "plain", "--no-cache", seeds=seeds_copy) == 0
    assert_same_site(tmp_path / "plain", site, placed_map=True)


def test_a_rebuild_writes_only_the_bib_file_of_the_edited_venue(tmp_path, seeds_copy):
    """Venue .bib files are keyed (bibfiles.py): after one abstract of ICML 2025 changes, the other venues'
    files are kept (same inode), that venue's and the site's are written again, and the bytes are a no-cache build's."""
    from papers_sample import SAMPLE
    from site_builder.corpus import corpus_site, read_corpus
    from site_builder.output.bibfiles import venue_groups

    site, cache = tmp_path / "site", tmp_path / "cache"
    run(seeds_copy, site, cache)
    bibs = sorted(site.glob("venues/*/papers.bib"))
    assert len(bibs) >= 3
    before = {p: inode(p) for p in [*bibs, site / "papers.bib"]}
    change_one_abstract(seeds_copy)
    run(seeds_copy, site, cache)
    rewritten = sorted(p.relative_to(site).as_posix() for p in before if inode(p) != before[p])
    assert rewritten == ["papers.bib", "venues/icml-2025/papers.bib"]
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", site, placed_map=True)
    # The model lists papers grouped by venue, in venue order (the venues' files and papers.json's parts are keyed so).
    corpus = corpus_site(read_corpus(SAMPLE, sample=300, seed=5))
    groups = venue_groups(corpus)
    assert groups is not None and [p for g in groups for p in g] == list(corpus.papers)
    assert [g[0].venue for g in groups] == list(corpus.venues)


def test_nothing_changed_returns_the_last_report_and_anything_changed_builds(tmp_path, seeds_copy, monkeypatch):
    """unchanged.py: same inputs, untouched output and cache: the last build's report, no list read, same bytes.
    An extra output file, a touched cache file, another base URL or notes folder: a full build again."""
    from site_builder import pipeline

    notes = tmp_path / "notes"
    shutil.copytree(NOTES, notes)
    site, cache = tmp_path / "site", tmp_path / "cache"
    config = load_config(CONFIG)
    reads = []
    real_read = pipeline.read_lists
    monkeypatch.setattr(pipeline, "read_lists", lambda *a, **k: reads.append(1) or real_read(*a, **k))

    def again(cfg=config, notes_folder=notes):
        reads.clear()
        report = build(seeds_copy, site, cfg, notes=notes_folder, cache=cache)
        return report, bool(reads)

    first = build(seeds_copy, site, config, notes=notes, cache=cache)
    assert first.diagnostics.warnings  # the seeds give warnings: they must be reported again
    second, read = again()
    assert not read and second.site is None
    assert [str(d) for d in second.diagnostics] == [str(d) for d in first.diagnostics]
    assert (second.files, second.pages, second.paper_count, second.updated, second.index_bytes) == \
        (first.files, first.pages, len(first.site.papers), first.updated, first.index_bytes)
    build(seeds_copy, tmp_path / "plain", config, notes=notes, cache=None)
    assert_same_site(tmp_path / "plain", site)

    (site / "stray.html").write_text("not ours", encoding="utf-8")
    assert again()[1] and not (site / "stray.html").exists()
    assert not again()[1]
    related_state = cache / "related.marshal"
    related_state.write_bytes(related_state.read_bytes())  # same bytes, touched: the cache is not as left
    assert again()[1]
    assert again(config.with_base_url("https://example.org/x/"))[1]
    assert again()[1]  # back to the first config: built again, the output had the other base URL
    (notes / "added.md").write_text("---\npaper: a6a374ae39\nstatus: read\n---\nDone.\n", encoding="utf-8")
    assert again()[1]
    assert not again()[1]
    build(seeds_copy, tmp_path / "plain2", config, notes=notes, cache=None)
    assert_same_site(tmp_path / "plain2", site)


def test_papers_json_parts_join_to_the_whole_and_a_rebuild_serialises_only_the_edited_venue(tmp_path, seeds_copy,
                                                                                             monkeypatch):
    """papersjson.py: the venues' parts joined are json.dumps of all records (300 real papers of the sample); after
    one abstract changes, a rebuild serialises that venue's part only, and the file is a no-cache build's."""
    from site_builder.output import papersjson
    from papers_sample import SAMPLE
    from site_builder.corpus import corpus_site, read_corpus
    from site_builder.output.bibfiles import venue_groups

    corpus = corpus_site(read_corpus(SAMPLE, sample=300, seed=2))
    groups = venue_groups(corpus)
    assert len(groups) > 3
    whole = b"".join(papersjson.whole_pieces(corpus.papers)).decode("utf-8")
    assert "[\n" + ",\n".join(papersjson.part(g) for g in groups) + "\n]\n" == whole

    site, cache = tmp_path / "site", tmp_path / "cache"
    run(seeds_copy, site, cache)
    serialised = tmp_path / "serialised"  # a file: a rebuild writes papers.json in a forked process
    real_part = papersjson.part

    def part(papers):
        with serialised.open("a", encoding="utf-8") as log:
            log.write(papers[0].venue.slug + "\n")
        return real_part(papers)

    monkeypatch.setattr(papersjson, "part", part)
    change_one_abstract(seeds_copy)
    run(seeds_copy, site, cache)
    assert serialised.read_text(encoding="utf-8").split() == ["icml-2025"]
    run(seeds_copy, tmp_path / "plain", None)
    assert (tmp_path / "plain" / "papers.json").read_bytes() == (site / "papers.json").read_bytes()


def test_a_rebuild_plans_only_the_pages_that_show_a_changed_paper(tmp_path, seeds_copy, monkeypatch):
    """replan.py on the seeds (no notes): after one abstract changes, the structure is the same and only the
    pages showing the edited paper or a paper whose related list changed are planned; every page whose bytes
    changed is one of them; kept pages pass the check mode; the bytes are a no-cache build's."""
    from site_builder.pages import replan

    monkeypatch.setenv("SITE_BUILDER_CHECK_REPLAN", "1")
    splits = []
    real_split = replan.split_outline
    monkeypatch.setattr(replan, "split_outline", lambda *a: splits.append(real_split(*a)) or splits[-1])
    site, cache = tmp_path / "site", tmp_path / "cache"
    run(seeds_copy, site, cache)
    before = files_of(site)
    sentence = change_one_abstract(seeds_copy)
    run(seeds_copy, site, cache)
    unchanged, stale = splits[-1]
    assert unchanged and 0 < len(stale) < len(unchanged)
    after = files_of(site)
    changed = {p for p in after if p.endswith(".html") and before.get(p) != after[p]}
    assert any(sentence.encode() in after[p] for p in changed)
    assert changed <= {planned.path for planned in stale}
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", site, placed_map=True)


def test_page_keys_computed_in_the_workers_of_a_first_build_are_the_parents(tmp_path, seeds_copy, monkeypatch):
    """A first build into an output renders with deferred keys (rendering.DEFERRED_KEY), computed in the forked
    workers; a rebuild in replan's check mode keys every kept page again in the parent, and fails on any
    difference. The pages are then kept (not rendered again) and the bytes are a no-cache build's."""

    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    monkeypatch.setattr(parallel, "MIN_PARALLEL_WORK", 0)
    monkeypatch.setattr(workers, "CHUNK", 7)
    deferred = []
    real_job = workers.page_job
    monkeypatch.setattr(workers, "page_job", lambda env, chunk, *a: deferred.extend(
        key for _, key in chunk if key == rendering.DEFERRED_KEY) or real_job(env, chunk, *a))
    monkeypatch.setattr(rendering, "ITEMS_KEPT", 1)  # every list page keeps its items' HTML, saved by the workers
    site, cache = tmp_path / "site", tmp_path / "cache"
    pages = run(seeds_copy, site, cache).pages
    assert len(deferred) > pages // 2
    assert len(list((cache / "items").iterdir())) >= 2
    monkeypatch.setenv("SITE_BUILDER_CHECK_REPLAN", "1")
    change_one_abstract(seeds_copy)
    report = run(seeds_copy, site, cache)
    assert report.reused > pages // 2
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", site, placed_map=True)


@pytest.mark.parametrize("where", ["output.search_index.IndexRun.__init__", "output.writer.Output.commit"])
def test_ctrl_c_before_or_while_committing_leaves_the_site_and_no_staging_folder(tmp_path, seeds_copy, monkeypatch,
                                                                                  where):
    """Ctrl-C as the index process starts, or as the staged files are committed, leaves the previous site as it
    was and no ``.<out>.building-*`` staging folder beside it."""
    import importlib

    site, cache = tmp_path / "site", tmp_path / "cache"
    run(seeds_copy, site, cache)
    before = files_of(site)
    change_one_abstract(seeds_copy)
    module, cls, method = where.rsplit(".", 2)
    owner = getattr(importlib.import_module(f"site_builder.{module}"), cls)

    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(owner, method, interrupt)
    with pytest.raises(KeyboardInterrupt):
        run(seeds_copy, site, cache)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "seeds", "site"]
    assert files_of(site) == before


@pytest.mark.parametrize("damage", ["junk", "inconsistent"])
def test_a_corrupt_related_papers_state_is_ignored_with_a_warning(tmp_path, seeds_copy, damage):
    """Junk in ``related.marshal``, or a value marshal reads but whose arrays do not fit together, gives one
    warning naming it; the related papers are recomputed and kept again; the site is a no-cache build's."""
    from site_builder.diagnostics import Diagnostics
    from site_builder.incremental.digest import code_version
    from site_builder.incremental.store import Store
    from site_builder.model import related
    from site_builder.model.library import RELATED_STATE, load_related

    site, cache = tmp_path / "site", tmp_path / "cache"
    run(seeds_copy, site, cache)
    path = cache / RELATED_STATE
    if damage == "junk":
        path.write_bytes(b"PK\x03\x04 not really a cache file")
        problem = "not a cache file"
    else:
        store = Store(cache, code_version(), Diagnostics())
        value = store.kept(RELATED_STATE)
        store.keep(RELATED_STATE, {**value, "bound": value["bound"][:-8]})  # one text's bound missing
        problem = "arrays of inconsistent shapes"
    change_one_abstract(seeds_copy)
    related.LAST_UPDATE.clear()
    report = run(seeds_copy, site, cache)
    assert [str(d) for d in report.diagnostics.warnings if RELATED_STATE in str(d)] == [
        f"{path}: warning: cache file corrupt, ignored: {problem}"]
    assert not related.LAST_UPDATE  # recomputed, not updated from the damaged state
    store = Store(cache, code_version(), Diagnostics())
    assert load_related(store) is not None and not store.diagnostics.items  # kept again
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", site, placed_map=True)


def test_other_files_written_in_a_background_process_are_recorded_as_in_one_process(tmp_path, seeds_copy,
                                                                                     monkeypatch):
    """On a rebuild the bib files, papers.json, assets and hosting files are written by a forked process
    (pipeline.other_files_job) while the pages are planned: the same bytes, files, reuse counts and
    cache records (the next rebuild keeps the same files) as when they are written in the build's process."""
    from site_builder import pipeline

    original = next(seeds_copy.glob("003_*.txt")).read_text(encoding="utf-8")
    applied = []
    apply = pipeline.apply_other_files

    def counting(delta, output, cache):
        applied.append(sorted(delta.written))
        return apply(delta, output, cache)

    def builds(site: Path, cache: Path) -> list:
        reports = [run(seeds_copy, site, cache)]
        change_one_abstract(seeds_copy)
        reports.append(run(seeds_copy, site, cache))
        bibs = {p: inode(p) for p in site.glob("**/*.bib")}
        next(seeds_copy.glob("003_*.txt")).write_text(original, encoding="utf-8")
        reports.append(run(seeds_copy, site, cache))
        rewritten = sorted(p.relative_to(site).as_posix() for p in bibs if inode(p) != bibs[p])
        return [(r.files, r.reused, r.pages, [str(d) for d in r.diagnostics.items]) for r in reports] + [rewritten]

    monkeypatch.setattr(parallel, "worker_count", lambda: 2)  # (a thread left by another test would make it 1)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1717243200")  # the feeds' date, else the lists' newest mtime
    monkeypatch.setattr(pipeline, "apply_other_files", counting)
    background = builds(tmp_path / "bg", tmp_path / "bg-cache")
    assert len(applied) == 2 and all("404.html" in written and "papers.bib" in written for written in applied)
    assert background[-1] == ["papers.bib", "venues/icml-2025/papers.bib"]  # the others were kept: recorded
    start = parallel.start_background  # the other files in the build's process (the index still beside it)
    monkeypatch.setattr(parallel, "start_background",
                        lambda job: None if "other_files_job" in job.__qualname__ else start(job))
    serial = builds(tmp_path / "serial", tmp_path / "serial-cache")
    assert background == serial
    assert_same_site(tmp_path / "bg", tmp_path / "serial")
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", tmp_path / "bg", placed_map=True)


def test_a_build_whose_index_process_cannot_be_forked_writes_the_index_itself(tmp_path, seeds_copy, monkeypatch):
    """index_run: when two workers are usable but no background process can be forked, the index (made
    with the papers' digests share) is built in the build's process, without the share: same bytes."""
    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    monkeypatch.setattr(parallel, "start_background", lambda job: None)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1717243200")
    run(seeds_copy, tmp_path / "site", tmp_path / "cache")
    change_one_abstract(seeds_copy)
    run(seeds_copy, tmp_path / "site", tmp_path / "cache")
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", tmp_path / "site", placed_map=True)


def test_compiled_templates_of_other_code_versions_are_removed(tmp_path, seeds_copy, monkeypatch):
    """The cache keeps one code version's compiled templates (they piled up, one set per version)."""
    from site_builder.incremental import cache as cache_module

    cache, site = tmp_path / "cache", tmp_path / "site"
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 0
    (first,) = (cache / "templates").iterdir()
    assert list(first.glob("*.cache")), "the templates were compiled into the version's folder"
    (cache / "templates" / "__jinja2_old.cache").write_bytes(b"stale")
    monkeypatch.setattr(cache_module, "code_version", lambda: "another version of the code, compiled otherwise")
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 0
    (second,) = (cache / "templates").iterdir()
    assert second.name != first.name and list(second.glob("*.cache"))


@pytest.mark.forks
@pytest.mark.parametrize("early", [True, False])
def test_pages_touched_since_the_last_build_are_rendered_again_whether_checked_early_or_when_kept(
        tmp_path, seeds_copy, monkeypatch, early):
    """The previous build's files are checked (size, mtime_ns, inode) in a forked process started before the
    lists are read (pipeline.start_file_check), or where they are kept when no process can be forked: either
    way a page whose file was touched, replaced or removed since is rendered again, every other one is kept,
    and the bytes are a no-cache build's."""
    import os

    from site_builder import pipeline

    checked = []  # the handles of the forked checks (their answers are taken where the pages are kept)
    real_start = pipeline.start_file_check
    monkeypatch.setattr(pipeline, "start_file_check", lambda *a: checked.append(real_start(*a)) or checked[-1])
    if not early:
        monkeypatch.setattr(parallel, "start_background", lambda job: None)
    elif parallel.worker_count() < 2:
        pytest.skip("needs two cores and fork")
    site, cache = tmp_path / "site", tmp_path / "cache"
    pages = run(seeds_copy, site, cache).pages
    expected = files_of(site)
    papers = sorted((site / "papers").glob("*.html"))
    touched, replaced, removed = papers[3], papers[5], papers[8]
    stat = touched.stat()
    os.utime(touched, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1000))  # same bytes, another mtime
    recorded = replaced.stat()
    copy = replaced.with_suffix(".tmp")
    copy.write_bytes(b"x" * recorded.st_size)
    os.utime(copy, ns=(recorded.st_atime_ns, recorded.st_mtime_ns))
    os.replace(copy, replaced)  # the same size and mtime, another inode
    assert (replaced.stat().st_size, replaced.stat().st_mtime_ns) == (recorded.st_size, recorded.st_mtime_ns)
    removed.unlink()
    left = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in site.rglob("*.html")
            if p.name not in ("search.html", "404.html")}  # (rendered on every build)
    run(seeds_copy, site, cache)
    assert [job is not None for job in checked] == [early]
    now = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in left}
    assert {p for p in left if now[p] != left[p]} == {touched, replaced}  # written again, the others kept
    assert removed.is_file() and len(left) == pages - 2
    assert files_of(site) == expected



def test_a_rebuild_restamps_the_feeds_that_show_no_changed_paper(tmp_path, seeds_copy, monkeypatch):
    """Feeds are keyed by what they show but the build date (feeds.write_feeds): after one abstract changed
    and with a new build date, only the feeds that show that paper are written from the papers; the others
    are the previous files with the date replaced, and every byte is a no-cache build's. With the same date,
    an unchanged feed is kept as it is (same inode)."""
    from site_builder.output import feeds

    made = tmp_path / "made.txt"
    real = feeds.atom_feed

    def counted(site, feed_path, *rest):
        with open(made, "a", encoding="utf-8") as log:  # (also from the forked process of the other files)
            log.write(feed_path + "\n")
        return real(site, feed_path, *rest)

    monkeypatch.setattr(feeds, "atom_feed", counted)
    site, cache = tmp_path / "site", tmp_path / "cache"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1717243200")
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 0
    all_feeds = sorted(p.relative_to(site).as_posix() for p in site.rglob("feed.xml"))
    assert len(all_feeds) >= 4 and sorted(made.read_text().split()) == all_feeds
    before = {path: inode(site / path) for path in all_feeds}

    sentence = change_one_abstract(seeds_copy)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1717329600")
    made.write_text("")
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 0
    showing = sorted(path for path in all_feeds if sentence in (site / path).read_text(encoding="utf-8"))
    assert showing and len(showing) < len(all_feeds)
    assert sorted(made.read_text().split()) == showing
    assert build_into(tmp_path / "plain", "--no-cache", seeds=seeds_copy) == 0
    assert_same_site(tmp_path / "plain", site, placed_map=True)
    assert all("2024-06-02T12:00:00Z" in (site / path).read_text(encoding="utf-8") for path in all_feeds)

    # The same date again, another abstract of the same paper's list: the feeds that do not show it are kept.
    list_003 = _list_003(seeds_copy)
    _replace(list_003, sentence, sentence + " and its code")
    made.write_text("")
    before = {path: inode(site / path) for path in all_feeds}
    assert build_into(site, "--cache", str(cache), seeds=seeds_copy) == 0
    assert sorted(made.read_text().split()) == showing
    assert [path for path in all_feeds if inode(site / path) == before[path]] == [p for p in all_feeds if p not in showing]
    assert build_into(tmp_path / "plain2", "--no-cache", seeds=seeds_copy) == 0
    assert_same_site(tmp_path / "plain2", site, placed_map=True)


def test_a_rebuild_after_one_abstract_places_the_paper_in_the_kept_map_and_a_cold_build_lays_it_out_whole(
        tmp_path, seeds_copy, monkeypatch):
    """The paper map's reuse (model/layout.py, "Reuse"): no t-SNE after one abstract changed, the other papers where
    they were, the same bytes from the same input and cache; a cold build computes the whole layout again."""
    from conftest import map_data
    from site_builder.incremental.store import decode
    from site_builder.model import layout

    laid_out = []
    full = layout.compute_layout
    monkeypatch.setattr(layout, "compute_layout", lambda *a, **kw: laid_out.append(1) or full(*a, **kw))
    site, cache = tmp_path / "site", tmp_path / "cache"
    kept = lambda folder: decode((folder / layout.LAYOUT_STATE).read_bytes())  # noqa: E731
    run(seeds_copy, site, cache)
    assert len(laid_out) == 1 and kept(cache)["placed"] == 0
    before = map_data((site / "map-data.js").read_bytes())
    shutil.copytree(cache, tmp_path / "same-cache")
    change_one_abstract(seeds_copy)
    run(seeds_copy, site, cache)
    assert len(laid_out) == 1 and layout.LAST_LAYOUT == {"full": 0, "placed": 1, "kept": 0}
    assert kept(cache)["placed"] == 1
    after = map_data((site / "map-data.js").read_bytes())
    points = lambda data: dict(zip(data["path"], zip(data["x"], data["y"], data["cluster"])))  # noqa: E731
    old, new = points(before), points(after)
    assert len(new) == len(after["path"]) == len(before["path"])
    edited = [path for path in new if path not in old]
    assert len(edited) == 1 and all(new[path] == old[path] for path in new if path in old)
    assert [c["label"] for c in after["clusters"]] == [c["label"] for c in before["clusters"]]
    # the same input and the same cache: the same bytes
    run(seeds_copy, tmp_path / "again", tmp_path / "same-cache")
    assert_same_site(site, tmp_path / "again")
    assert len(laid_out) == 1 and layout.LAST_LAYOUT["placed"] == 1
    # a cold build: the whole layout again, a build without cache's bytes
    run(seeds_copy, tmp_path / "cold", tmp_path / "cold-cache")
    assert len(laid_out) == 2 and kept(tmp_path / "cold-cache")["placed"] == 0
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", tmp_path / "cold")
    assert map_data((tmp_path / "plain" / "map-data.js").read_bytes()) != after


@pytest.mark.parametrize("damage", ["junk", "malformed"])
def test_a_corrupt_paper_map_state_is_ignored_with_a_warning(tmp_path, seeds_copy, damage):
    """Junk in ``layout.marshal``, or a value that is not a map, gives one warning naming it; the map is laid out
    whole again (a build without cache's bytes) and kept again."""
    from site_builder.diagnostics import Diagnostics
    from site_builder.incremental.digest import code_version
    from site_builder.incremental.store import Store
    from site_builder.model import layout

    site, cache = tmp_path / "site", tmp_path / "cache"
    run(seeds_copy, site, cache)
    path = cache / layout.LAYOUT_STATE
    if damage == "junk":
        path.write_bytes(b"PK\x03\x04 not really a cache file")
        problem = "not a cache file"
    else:
        store = Store(cache, code_version(), Diagnostics())
        value = store.kept(layout.LAYOUT_STATE)
        store.keep(layout.LAYOUT_STATE, {**value, "cluster": value["cluster"][:-4]})  # one paper's cluster missing
        problem = "not a paper map"
    change_one_abstract(seeds_copy)
    report = run(seeds_copy, site, cache)
    assert [str(d) for d in report.diagnostics.warnings if layout.LAYOUT_STATE in str(d)] == [
        f"{path}: warning: cache file corrupt, ignored: {problem}"]
    assert layout.LAST_LAYOUT["full"] == 1
    store = Store(cache, code_version(), Diagnostics())
    assert layout.load_map_state(store) is not None and not store.diagnostics.items  # kept again
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", site)
