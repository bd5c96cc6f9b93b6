"""The build cache and the parallel writer never change the output: cold, warm and parallel builds agree byte for byte."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from conftest import CONFIG, SEEDS, build_into
from site_builder import progress as progress_module
from site_builder import workers
from site_builder.cache import MEMO_NAME
from site_builder.config import load_config
from site_builder.pipeline import build
from site_builder.progress import Progress


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path, with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_same_site(a: Path, b: Path) -> None:
    fa, fb = files_of(a), files_of(b)
    assert sorted(fa) == sorted(fb)
    different = [path for path in fa if fa[path] != fb[path]]
    assert different == []


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


def test_warm_cache_gives_the_same_bytes_and_reuses(tmp_path, seeds_copy):
    cache = tmp_path / "cache"
    cold = run(seeds_copy, tmp_path / "cached", cache)
    assert cold.reused == 0 and cold.files > 0
    plain = tmp_path / "plain"
    run(seeds_copy, plain, None)
    assert_same_site(plain, tmp_path / "cached")

    warm = run(seeds_copy, tmp_path / "cached", cache)
    assert warm.reused == cold.pages + 3  # every page, papers.json and the two index files
    assert_same_site(plain, tmp_path / "cached")

    sentence = change_one_abstract(seeds_copy)
    changed = run(seeds_copy, tmp_path / "cached", cache)
    run(seeds_copy, tmp_path / "plain2", None)
    assert_same_site(tmp_path / "plain2", tmp_path / "cached")
    # the paper, its neighbours, its venue and track pages, home, papers.json and the index change
    assert 0 < changed.pages - changed.reused + 3 < 12
    assert sentence in (tmp_path / "cached" / "search-index.json").read_text(encoding="utf-8")


def test_corrupt_cache_files_are_ignored_with_a_warning(tmp_path, seeds_copy):
    cache = tmp_path / "cache"
    run(seeds_copy, tmp_path / "site", cache)
    manifests = list((cache / "outputs").glob("*.json"))
    assert len(manifests) == 1
    (cache / MEMO_NAME).write_bytes(b"\x00not json")
    manifests[0].write_text('{"format": 1, "code": ', encoding="utf-8")
    report = run(seeds_copy, tmp_path / "site", cache)
    messages = [str(d) for d in report.diagnostics.warnings]
    assert any(m.startswith(f"{cache / MEMO_NAME}:0: warning: cache file corrupt") for m in messages)
    assert any(m.startswith(f"{manifests[0]}:0: warning: cache file corrupt") for m in messages)
    assert report.reused == 0
    run(seeds_copy, tmp_path / "plain", None)
    assert_same_site(tmp_path / "plain", tmp_path / "site")
    # rewritten: the next build is quiet and reuses again
    again = run(seeds_copy, tmp_path / "site", cache)
    assert again.diagnostics.warnings == [] and again.reused > 0


def test_a_hand_edited_output_file_is_rendered_again(tmp_path, seeds_copy):
    cache = tmp_path / "cache"
    run(seeds_copy, tmp_path / "site", cache)
    page = next((tmp_path / "site" / "papers").glob("*.html"))
    original = page.read_bytes()
    page.write_bytes(b"edited by hand")
    run(seeds_copy, tmp_path / "site", cache)
    assert page.read_bytes() == original


def test_strict_build_is_not_failed_by_a_corrupt_cache(tmp_path, seeds_copy):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / MEMO_NAME).write_text("[1, 2", encoding="utf-8")
    assert build_into(tmp_path / "site", "--strict", "--cache", str(cache), seeds=seeds_copy) == 0


def test_parallel_writer_gives_the_same_bytes(tmp_path, seeds_copy, monkeypatch):
    run(seeds_copy, tmp_path / "serial", None)
    monkeypatch.setattr(workers, "worker_count", lambda: 2)
    monkeypatch.setattr(workers, "MIN_PARALLEL_WORK", 0)
    monkeypatch.setattr(workers, "MIN_MAP_ITEMS", 0)
    monkeypatch.setattr(workers, "CHUNK", 7)
    used = []
    real_pool = workers.multiprocessing.get_context("fork").Pool

    class CountingContext:
        def Pool(self, n):  # noqa: N802 - the multiprocessing name
            used.append(n)
            return real_pool(n)

    monkeypatch.setattr(workers.multiprocessing, "get_context", lambda method: CountingContext())
    report = run(seeds_copy, tmp_path / "parallel", tmp_path / "cache")
    assert used == [2, 2] and report.reused == 0  # abstracts, then pages and index
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
    assert len(err) == 1 and err[0].startswith("built 58 papers, 77 pages, ")
    assert "index " in err[0] and err[0].endswith("0 warning(s)")
    assert build_into(tmp_path / "b", "--no-cache", "--quiet", seeds=seeds_copy) == 0
    assert capsys.readouterr().err == ""


def test_index_script_is_rewritten_when_only_the_json_can_be_reused(tmp_path, seeds_copy):
    cache = tmp_path / "cache"
    run(seeds_copy, tmp_path / "site", cache)
    script = tmp_path / "site" / "search-index.js"
    original = script.read_bytes()
    script.unlink()
    report = run(seeds_copy, tmp_path / "site", cache)
    assert script.read_bytes() == original
    assert report.reused == report.pages + 2  # every page, papers.json and search-index.json
