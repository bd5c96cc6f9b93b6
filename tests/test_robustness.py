"""Issue 9: safe and stable paths, failed builds that lose nothing, deterministic output."""

from __future__ import annotations

import filecmp
import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, SEEDS, assert_same_site, build_into
from site_builder import pipeline
from site_builder.read import plaintext as reader
from site_builder.model import urls
from site_builder.output import writer
from site_builder.model.site import unique_slugs


def tree_digest(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``root``, by relative path."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_slugs_are_always_safe(text):
    slug = urls.make_slug(text, "paper")
    assert slug and slug not in (".", "..")
    assert set(slug) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert slug not in urls.WINDOWS_RESERVED and slug not in urls.RESERVED


@pytest.mark.parametrize("name", ["CON", "nul", "Com1", "index", "search", "404"])
def test_reserved_names_are_avoided(name):
    assert urls.make_slug(name, "paper") == f"{name.lower()}-paper"


def test_titles_without_latin_letters_get_readable_stable_slugs():
    slug = urls.make_slug("图神经网络的泛化", "paper")
    assert slug == urls.make_slug("图神经网络的泛化", "paper")
    assert len(slug) > 5 and slug != "paper"


def test_slug_collisions_resolve_independently_of_order():
    wanted = {"b": "same", "a": "same", "c": "other"}
    first = unique_slugs(wanted)
    again = unique_slugs(dict(reversed(list(wanted.items()))))
    assert first == again
    assert first["c"] == "other" and first["a"] != first["b"] and first["a"].startswith("same-")


def test_same_input_gives_byte_identical_output(tmp_path, seed_site):
    build_into(tmp_path / "again")
    assert tree_digest(tmp_path / "again") == tree_digest(seed_site)


def test_files_in_another_order_give_identical_output(tmp_path, seed_site):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    names = sorted(p.name for p in SEEDS.glob("*.txt"))
    renamed = {}
    for new_prefix, name in zip("zyx", names):
        renamed[name] = f"{new_prefix}_{name}"
        shutil.copy2(SEEDS / name, seeds / renamed[name])
    shutil.copytree(SEEDS / "refs", seeds / "refs")  # the seeds' reference file, named in site.toml
    config = tmp_path / "site.toml"
    text = (ROOT / "site.toml").read_text(encoding="utf-8")
    for name in names:
        text = text.replace(name, renamed[name])
    config.write_text(text, encoding="utf-8")
    assert build_into(tmp_path / "out", seeds=seeds, config=config) == 0
    assert tree_digest(tmp_path / "out") == tree_digest(seed_site)


@pytest.fixture
def previous_site(tmp_path, seed_site) -> Path:
    out = tmp_path / "site"
    shutil.copytree(seed_site, out)
    return out


def _unchanged(out: Path, seed_site: Path) -> bool:
    return tree_digest(out) == tree_digest(seed_site) and not filecmp.dircmp(out, seed_site).diff_files


def test_template_error_keeps_previous_site(previous_site, seed_site, tmp_path, monkeypatch, capsys):
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", templates)
    (templates / "paper.html").write_text("{% extends 'base.html' %}{% block main %}{{ paper.nope() }}{% endblock %}")
    monkeypatch.setattr(pipeline, "TEMPLATES", templates)
    assert build_into(previous_site) == 2
    assert "paper.html" in capsys.readouterr().err
    assert _unchanged(previous_site, seed_site)
    assert not list(tmp_path.glob(".site.building-*"))


def _failing_write(monkeypatch, failure: BaseException, at: int = 20) -> None:
    """Make the ``at``-th file the build writes raise ``failure``."""
    real, calls = writer.Output.write_text, []

    def failing(self, path, text):
        calls.append(path)
        if len(calls) == at:
            raise failure
        real(self, path, text)

    monkeypatch.setattr(writer.Output, "write_text", failing)


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_failed_write_keeps_previous_site(previous_site, seed_site, tmp_path, monkeypatch, failure):
    _failing_write(monkeypatch, failure)
    assert build_into(previous_site) in (2, 130)
    assert _unchanged(previous_site, seed_site)
    assert not list(tmp_path.glob(".site.building-*"))


def test_an_interrupted_large_build_leaves_its_staging_folder_to_a_process_of_its_own(
        previous_site, seed_site, tmp_path, monkeypatch):
    """Ctrl-C in a build of at least ``DETACHED_DISCARD_PAPERS`` papers (here every build): status 130 at once, the
    previous site as it was, and the staging folder removed by the detached process soon after."""
    import time

    monkeypatch.setattr(pipeline, "DETACHED_DISCARD_PAPERS", 0)
    _failing_write(monkeypatch, KeyboardInterrupt())
    assert build_into(previous_site) == 130
    assert _unchanged(previous_site, seed_site)
    for _ in range(300):  # the detached process removes it (a Python start and a small folder)
        if not list(tmp_path.glob(".site.building-*")):
            break
        time.sleep(0.1)
    assert not list(tmp_path.glob(".site.building-*"))


LIST_TEXT = st.lists(
    st.one_of(
        st.text(max_size=80),
        st.sampled_from(["", "ICLR 2025 Papers", "论文检索", "Theory · Learning Theory", "A, B, C 等", "Title: X",
                         "Abstract:", "摘要：", "12.", "[3]", "PDF", "Oral", "\u3000", "\t", "Authors: Eve; Bob and Al"]),
    ),
    max_size=30,
).map("\n".join)


def _read_bytes(data: bytes):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "list.txt"
        path.write_bytes(data)
        return reader.read_list(path, "ICML", 2025)


@settings(max_examples=300, deadline=None)
@given(st.one_of(LIST_TEXT.map(lambda t: t.encode("utf-8")), st.binary(max_size=400),
                 LIST_TEXT.map(lambda t: t.encode("utf-16"))))
def test_reader_fuzz_never_crashes_and_always_answers(data):
    result = _read_bytes(data)
    assert result.entries or result.diagnostics
    for diagnostic in result.diagnostics:
        where = f"{result.path}:{diagnostic.line}" if diagnostic.line else result.path  # a whole file: the path alone
        assert str(diagnostic).startswith(f"{where}: {diagnostic.level}: ")
    for entry in result.entries:
        assert entry.abstract.strip()


def test_output_folder_is_readable_by_everyone(seed_site):
    """The staged folder is made with mkdtemp (0700); the build opens it up to the umask's default."""
    assert seed_site.stat().st_mode & 0o055 == 0o055
    assert (seed_site / "index.html").stat().st_mode & 0o044 == 0o044


def test_override_with_an_unknown_field_is_a_warning_at_its_line(tmp_path, seed_records, capsys):
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    pid = seed_records[0]["id"]
    (seeds / "overrides.toml").write_text(f'# fixes\n[papers.{pid}]\ntitel = "Typo"\ntitle = "Fixed"\n',
                                          encoding="utf-8")
    assert build_into(tmp_path / "out", seeds=seeds) == 0
    assert f"overrides.toml:2: warning: unknown field 'titel' for paper {pid}" in capsys.readouterr().err
    assert build_into(tmp_path / "strict", "--strict", seeds=seeds) == 1


def test_override_values_of_the_wrong_type_are_errors_or_read_as_a_user_would_mean(tmp_path, seed_records, capsys):
    """``authors = "Solo Author"`` became 11 one-letter authors (and author pages a.html, h.html, …), silently;
    found by the new-user pass. A string of authors is split as a list's author line, a string track is one
    track; a year that is not a number, or a list where a string belongs, is an error at the table's line; an
    override for an unknown id and a TOML syntax error name their lines (were line 0)."""
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    pid = seed_records[0]["id"]
    overrides = seeds / "overrides.toml"
    overrides.write_text(f'[papers.{pid}]\nauthors = "Solo Author and Ann Other"\ntrack = "Oral"\n\n'
                         f'[papers.0000000000]\ntitle = "Nobody"\n', encoding="utf-8")
    assert build_into(tmp_path / "out", seeds=seeds) == 0
    assert "overrides.toml:5: warning: override for unknown paper id '0000000000'" in capsys.readouterr().err
    paper = next(p for p in json.loads((tmp_path / "out" / "papers.json").read_text(encoding="utf-8"))
                 if p["title"] == seed_records[0]["title"])
    assert paper["authors"] == ["Solo Author", "Ann Other"] and paper["track"] == "Oral"
    assert not (tmp_path / "out" / "authors" / "s.html").exists()
    overrides.write_text(f'[papers.{pid}]\nyear = "2024"\ntitle = ["A", "B"]\n', encoding="utf-8")
    assert build_into(tmp_path / "out", seeds=seeds) == 1
    err = capsys.readouterr().err
    assert "overrides.toml:1: error: year must be a number, e.g. year = 2024 (got '2024')" in err
    assert "overrides.toml:1: error: title must be a string (got ['A', 'B'])" in err
    overrides.write_text(f'[papers.{pid}]\ntitle = "x"\ntitle = = 2\n', encoding="utf-8")
    assert build_into(tmp_path / "out", seeds=seeds) == 1
    assert "overrides.toml:3: error: not valid TOML" in capsys.readouterr().err


def _failing_replace(monkeypatch, failure, when):
    """Make ``os.replace`` as used by the writer raise ``failure`` on the first move ``when(src, dst)`` picks."""
    real = writer.os.replace
    state = {"failed": False}

    def replace(src, dst, *args, **kwargs):
        if not state["failed"] and when(str(src), str(dst)):
            state["failed"] = True
            raise failure
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(writer.os, "replace", replace)
    return state


@pytest.mark.parametrize("failure", [OSError(1, "Operation not permitted"), KeyboardInterrupt()])
def test_a_cached_rebuild_failing_while_moving_files_in_leaves_the_output_as_it_was(
        tmp_path, monkeypatch, failure):
    """The rebuild's in-place commit (kept pages) is undone when a move fails midway (found by the new-user
    pass: an immutable ``papers/`` folder left papers.json and the feeds new, the paper pages old)."""
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    out, cache = tmp_path / "site", tmp_path / "cache"
    assert build_into(out, "--cache", str(cache), seeds=seeds) == 0
    before = tree_digest(out)
    listing = sorted(seeds.glob("*.txt"))[0]
    text = listing.read_text(encoding="utf-8")
    last = text.rstrip("\n").rsplit("\n", 1)[1]
    listing.write_text(text.replace(last, last + " One sentence more."), encoding="utf-8")
    # Fails on the first staged page moved into papers/, after papers.json and the feeds have moved in.
    state = _failing_replace(monkeypatch, failure,
                             lambda src, dst: ".building-" in src and f"{out.name}/papers/" in dst)
    assert build_into(out, "--cache", str(cache), seeds=seeds) in (2, 130)
    assert state["failed"]
    assert tree_digest(out) == before
    assert not list(tmp_path.glob(".site.building-*")) and not list(tmp_path.glob(".site.old-*"))
    monkeypatch.undo()
    assert build_into(out, "--cache", str(cache), seeds=seeds) == 0
    assert build_into(tmp_path / "fresh", "--no-cache", seeds=seeds) == 0
    assert_same_site(tmp_path / "fresh", out, placed_map=True)


def test_a_failed_swap_of_a_whole_output_puts_the_previous_one_back(previous_site, seed_site, tmp_path, monkeypatch):
    state = _failing_replace(monkeypatch, OSError(1, "Operation not permitted"),
                             lambda src, dst: ".building-" in src and dst == str(previous_site.resolve()))
    assert build_into(previous_site, "--no-cache") == 2
    assert state["failed"]
    assert _unchanged(previous_site, seed_site)
    assert not list(tmp_path.glob(".site.building-*")) and not list(tmp_path.glob(".site.old-*"))


@pytest.mark.parametrize("inside", ["lists", "cache"])
def test_inputs_inside_the_output_folder_are_refused_and_kept(previous_site, seed_site, tmp_path, capsys, inside):
    """A copy of the lists (or the cache) kept inside a built site would be deleted by the next build."""
    seeds = previous_site / "myseeds"
    shutil.copytree(SEEDS, seeds)
    extra = ["--cache", str(previous_site / "cache")] if inside == "cache" else []
    assert build_into(previous_site, *extra, seeds=seeds if inside == "lists" else SEEDS) == 2
    assert "is inside the output folder" in capsys.readouterr().err
    assert tree_digest(seeds) == tree_digest(SEEDS)
    shutil.rmtree(seeds)
    assert _unchanged(previous_site, seed_site)


def test_warnings_are_printed_by_file_and_line(tmp_path, capsys):
    """Warnings found at different stages (reading, rendering TeX, overrides) come out sorted by file and
    line, as a reader goes through the lists, not in the order the stages found them."""
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    first = sorted(seeds.glob("*.txt"))[0]
    lines = first.read_text(encoding="utf-8").split("\n")
    abstracts = [i for i, line in enumerate(lines) if len(line) > 200]
    # a TeX warning (found when the abstract is rendered) early, a reading warning (found while reading) late
    lines[abstracts[0]] += r" We call it \ourmethod{} here."
    lines[abstracts[-1]] = lines[abstracts[-1]].replace(" ", " \x02", 1)
    first.write_text("\n".join(lines), encoding="utf-8")
    assert build_into(tmp_path / "out", seeds=seeds) == 0
    printed = [line for line in capsys.readouterr().err.splitlines() if ": warning: " in line]
    places = [(line.split(":")[0], int(line.split(":")[1])) for line in printed]
    assert (first.as_posix(), abstracts[0] + 1) in places and (first.as_posix(), abstracts[-1] + 1) in places
    assert places == sorted(places)


def test_ctrl_c_while_a_commit_cleans_up_says_the_new_site_is_in_place_and_the_next_build_removes_the_leftover(
        tmp_path, monkeypatch, capsys):
    """Found by the new-user pass: Ctrl-C while the files set aside were being removed said the old site was left
    as it was, though the new one was in place, and left a ``.site.old-*`` folder no later build removed."""
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    out, cache = tmp_path / "site", tmp_path / "cache"
    assert build_into(out, "--cache", str(cache), seeds=seeds) == 0
    listing = sorted(seeds.glob("*.txt"))[0]
    text = listing.read_text(encoding="utf-8")
    last = text.rstrip("\n").rsplit("\n", 1)[1]
    listing.write_text(text.replace(last, last + " One sentence more."), encoding="utf-8")
    real = writer.shutil.rmtree

    def interrupted(path, *args, **kwargs):
        if ".site.old-" in str(path):
            raise KeyboardInterrupt
        return real(path, *args, **kwargs)

    monkeypatch.setattr(writer.shutil, "rmtree", interrupted)
    capsys.readouterr()
    assert build_into(out, "--cache", str(cache), seeds=seeds) == 130
    assert f"interrupted as the build finished: {out} holds the new site" in capsys.readouterr().err
    monkeypatch.undo()
    assert build_into(tmp_path / "fresh", "--no-cache", seeds=seeds) == 0
    assert_same_site(tmp_path / "fresh", out, placed_map=True)
    (leftover,) = tmp_path.glob(".site.old-*")
    os.utime(leftover, (time.time() - 3600, time.time() - 3600))
    assert build_into(out, "--cache", str(cache), seeds=seeds) == 0
    assert not list(tmp_path.glob(".site.old-*"))
