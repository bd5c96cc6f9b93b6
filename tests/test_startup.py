"""The fixed costs of a build's own process: what a one-abstract rebuild does not import or compile."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import CONFIG, SEEDS, assert_same_files
from site_builder.read import continuation, plaintext as reader, heading as reader_heading, lines as reader_lines
from site_builder.model import urls

ROOT = Path(urls.__file__).resolve().parents[2]

#: Run in a fresh process: a build with the cache, then what it imported and compiled (the deferred patterns
#: and python-slugify are loaded on first use only).
_BUILD = """
import sys
from site_builder import cli
from site_builder.read import continuation, heading as reader_heading, lines as reader_lines
assert cli.main(['--seeds', {seeds!r}, '--config', {config!r}, '--out', {out!r}, '--cache', {cache!r}, '--quiet']) == 0
print('slugify' in sys.modules, reader_heading._heading_forms.cache_info().currsize,
      reader_lines._name_token.cache_info().currsize, reader_lines._connectives.cache_info().currsize,
      reader_lines._sentence_break.cache_info().currsize, continuation._wording.cache_info().currsize)
"""


def _build(seeds: Path, tmp_path: Path) -> list[str]:
    script = _BUILD.format(seeds=str(seeds), config=str(CONFIG), out=str(tmp_path / "site"),
                           cache=str(tmp_path / "cache"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.split()


def test_a_one_abstract_rebuild_compiles_no_reading_pattern_and_imports_no_slugify(tmp_path):
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    cold = _build(seeds, tmp_path)
    assert cold == ["True", "1", "1", "1", "1", "1"]  # a cold build reads every list: all of them in use
    lists = sorted(seeds.glob("*.txt"), key=lambda p: p.stat().st_size)
    text = lists[-1].read_text(encoding="utf-8").rstrip("\n")
    lists[-1].write_text(text + " We also release our code.\n", encoding="utf-8")
    assert _build(seeds, tmp_path) == ["False", "0", "0", "0", "0", "0"]


def test_the_deferred_patterns_are_the_module_attributes_they_were():
    assert reader.HEADING is reader_heading.HEADING is reader_heading._heading_forms()[0]
    assert reader.PAGE_HEADING is reader_heading.PAGE_HEADING is reader_heading._heading_forms()[3]
    assert reader.HEADING.match("ICLR 2025 Papers")["venue"] == "ICLR"
    assert reader_heading.parse_heading("KDD '24").year == 2024
    assert reader_heading.is_heading_line("论文检索")
    assert reader_lines.name_shape("Anthony K.H: Tung") == 1.0
    assert continuation._wording()[0].match("Furthermore, we")
    assert urls.make_slug.__wrapped__("Ünïcode Title", "x") == "unicode-title"


def _files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (links not followed) by relative path, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def test_a_cached_rebuild_removes_every_file_and_folder_it_did_not_write_and_follows_no_link(tmp_path):
    """The in-place commit of a rebuild (kept pages) leaves exactly the build's files: a user's files at the top,
    in the site's folders and in folders of their own (removed with them) go; a link to a folder outside the
    output is neither followed nor removed (as the bottom-up os.walk it replaces did)."""
    from conftest import build_into

    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    out, cache = tmp_path / "site", tmp_path / "cache"
    assert build_into(out, "--cache", str(cache), "--quiet", seeds=seeds) == 0
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "keep.txt").write_text("not the site's")
    (out / "mine.txt").write_text("a user's file")
    (out / "papers" / "extra.html").write_text("stale page")
    (out / "own" / "nested" / "more").mkdir(parents=True)
    (out / "own" / "nested" / "more" / "a.txt").write_text("a")
    (out / "own" / "b.txt").write_text("b")
    (out / "papers" / "link").symlink_to(outside, target_is_directory=True)
    lists = sorted(seeds.glob("*.txt"), key=lambda p: p.stat().st_size)
    text = lists[-1].read_text(encoding="utf-8").rstrip("\n")
    lists[-1].write_text(text + " We also release our code.\n", encoding="utf-8")
    assert build_into(out, "--cache", str(cache), "--quiet", seeds=seeds) == 0
    assert build_into(tmp_path / "fresh", "--no-cache", "--quiet", seeds=seeds) == 0
    assert_same_files(_files(tmp_path / "fresh"), _files(out), placed_map=True)
    assert not (out / "own").exists()
    assert (out / "papers" / "link").is_symlink() and (outside / "deep" / "keep.txt").read_text() == "not the site's"


def test_a_rebuild_commits_on_the_listing_made_meanwhile_and_lists_again_the_folders_changed_since(
        tmp_path, monkeypatch):
    """The output folder is listed by the process that checks the previous build's files, while the build runs;
    at commit, a folder still as listed (inode, mtime) is taken from that listing, any other is listed again: a
    user's files added before the build and one added just before the commit are all removed."""
    import time

    from conftest import build_into
    from site_builder.output import writer

    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    out, cache = tmp_path / "site", tmp_path / "cache"
    assert build_into(out, "--cache", str(cache), "--quiet", seeds=seeds) == 0
    (out / "mine.txt").write_text("a user's file")
    (out / "papers" / "extra.html").write_text("stale page")
    (out / "own" / "deep").mkdir(parents=True)
    (out / "own" / "deep" / "a.txt").write_text("a")
    an_hour_ago = time.time() - 3600
    for folder in [out, *[p for p in out.rglob("*") if p.is_dir()]]:
        os.utime(folder, (an_hour_ago, an_hour_ago))  # older than writer._RACY_NS: listings of them are taken
    seen = {}
    still_listed, commit = writer._still_listed, writer.Output.commit

    def spy_still_listed(target, listing):
        seen["taken"] = still_listed(target, listing)
        return seen["taken"]

    def late_file_then_commit(self, *args):
        seen["listing"] = args[0] if args else None
        (out / "venues" / "late.html").write_text("added while the build ran")
        return commit(self, *args)

    monkeypatch.setattr(writer, "_still_listed", spy_still_listed)
    monkeypatch.setattr(writer.Output, "commit", late_file_then_commit)
    lists = sorted(seeds.glob("*.txt"), key=lambda p: p.stat().st_size)
    text = lists[-1].read_text(encoding="utf-8").rstrip("\n")
    lists[-1].write_text(text + " We also release our code.\n", encoding="utf-8")
    assert build_into(out, "--cache", str(cache), "--quiet", seeds=seeds) == 0
    monkeypatch.undo()
    from site_builder import parallel

    assert (seen["listing"] is not None) == (parallel.worker_count() >= 2)  # (no fork: every folder listed at commit)
    if seen["listing"] is not None:
        assert {"", "papers/", "own/", "own/deep/"} <= set(seen["listing"])
        assert "papers/" in seen["taken"] and "venues/" not in seen["taken"]  # venues/ changed after its listing
    assert build_into(tmp_path / "fresh", "--no-cache", "--quiet", seeds=seeds) == 0
    assert_same_files(_files(tmp_path / "fresh"), _files(out), placed_map=True)
