"""The input formats by file name suffix (:mod:`site_builder.read.formats`) and how a build finds its lists."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import SEEDS, assert_same_site, build_into
from site_builder.pipeline import BuildError, list_files
from site_builder.read import formats, plaintext


def test_a_list_file_is_read_by_the_format_of_its_suffix_in_any_case(tmp_path):
    seed = sorted(SEEDS.glob("*.txt"))[0]
    for name in ("list.txt", "LIST.TXT", "List.Txt"):
        assert formats.format_of(tmp_path / name) is formats.FORMATS[0]
        shutil.copy(seed, tmp_path / name)
        result = formats.read_list(tmp_path / name)
        expected = plaintext.read_list(tmp_path / name)
        assert result == expected and len(result.entries) > 10
    assert formats.format_of("notes.md") is None and formats.format_of("README") is None
    assert ".txt" in formats.suffixes()


def test_a_file_no_format_reads_is_an_error_naming_it(tmp_path):
    path = tmp_path / "list.xyz"
    path.write_text("ICML 2024\n\nAn abstract that nobody will read here.\n", encoding="utf-8")
    result = formats.read_list(path)
    assert result.entries == []
    assert [str(d) for d in result.diagnostics] == [
        f"{path}: error: no reader for files named *.xyz; lists are {', '.join(formats.suffixes())} files"]


def test_the_build_takes_the_files_of_known_suffixes_only(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "b.TXT").write_text("x", encoding="utf-8")
    (seeds / "a.txt").write_text("x", encoding="utf-8")
    (seeds / "notes.md").write_text("x", encoding="utf-8")
    (seeds / "c.txt.bak").write_text("x", encoding="utf-8")
    assert [p.name for p in list_files(seeds)] == ["a.txt", "b.TXT"]
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.md").write_text("x", encoding="utf-8")
    with pytest.raises(BuildError, match=r"holds no paper list \(\*\.txt, \*\.bib, "):
        list_files(empty)


def _toy_format() -> formats.ListFormat:
    """A format that reads ``*.lst`` files as plain-text lists but keeps no state to read an edit from."""
    return formats.ListFormat("toy list", (".lst",), plaintext.read_list)


def _paper_ids(site: Path) -> set[str]:
    return {r["id"] for r in json.loads((site / "papers.json").read_text(encoding="utf-8"))}


def test_a_registered_format_is_built_with_and_without_the_cache(tmp_path, monkeypatch):
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    moved = sorted(seeds.glob("*.txt"))[0].rename(sorted(seeds.glob("*.txt"))[0].with_suffix(".lst"))
    assert moved.name not in [p.name for p in list_files(seeds)]  # not a list until its format is registered
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, _toy_format()))
    assert moved.name in [p.name for p in list_files(seeds)]
    assert build_into(tmp_path / "seed-site", "--no-cache") == 0
    assert build_into(tmp_path / "plain", "--no-cache", seeds=seeds) == 0
    assert _paper_ids(tmp_path / "plain") == _paper_ids(tmp_path / "seed-site")  # the moved list's papers too
    cache = tmp_path / "cache"
    assert build_into(tmp_path / "site", "--cache", str(cache), seeds=seeds) == 0
    moved.write_text(moved.read_text(encoding="utf-8").rstrip("\n") + " We release our code.\n", encoding="utf-8")
    assert build_into(tmp_path / "site", "--cache", str(cache), seeds=seeds) == 0
    assert build_into(tmp_path / "fresh", "--no-cache", seeds=seeds) == 0
    assert_same_site(tmp_path / "site", tmp_path / "fresh", placed_map=True)
    assert "We release our code." in (tmp_path / "site" / "papers.json").read_text(encoding="utf-8")
