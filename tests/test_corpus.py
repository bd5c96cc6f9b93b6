"""The full corpus of real papers (``../shared/corpus/papers.jsonl``, or ``$PAPERS_CORPUS``) is for the benchmarks
and the measuring scripts only: one that cannot find it exits with status 2 and one line naming where it looked
and ``PAPERS_CORPUS`` (:func:`site_builder.corpus.require_corpus`). The tests read the sample committed in
``tests/fixtures/papers/`` instead (``tests/papers_sample.py``)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from papers_sample import SAMPLE, sample_records
from site_builder import corpus

# Every script that reads the full corpus, with the arguments it needs besides.
SCRIPTS = {
    "bench/index_memory.py": ["10"], "bench/lists.py": ["10", "out"], "bench/map_quality.py": [],
    "bench/run.py": ["--no-browser"],
    "bench/search_bench.py": [], "scripts/bench_related.py": [],
    "scripts/check_render_corpus.py": [], "scripts/fit_continuation.py": [], "scripts/format_fidelity.py": [],
    "scripts/index_size.py": [], "scripts/reference_cost.py": [], "scripts/reference_threshold.py": [],
    "scripts/roundtrip_corpus.py": [], "scripts/sample_corpus.py": ["--out", "sample.jsonl"],
    "scripts/search_recall.py": [], "scripts/shard_equality.py": [], "scripts/title_metric.py": [],
    "scripts/title_speed.py": [],
}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_script_without_the_corpus_exits_2_with_one_line_naming_where_it_looked(tmp_path, script):
    missing = tmp_path / "nowhere" / "papers.jsonl"
    done = subprocess.run([sys.executable, str(ROOT / script), *SCRIPTS[script]], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), corpus.ENVIRONMENT: str(missing)})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [f"papers corpus not found: {missing} (set PAPERS_CORPUS=/path/to/papers.jsonl)"]
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_every_script_that_names_the_corpus_is_checked_above():
    """A script of bench/ or scripts/ that names the corpus (``CORPUS``, ``read_corpus``, ``require_corpus``) is in
    :data:`SCRIPTS`; the others use the tests' sample (``scripts/screenshots.py``) or no corpus at all."""
    naming = {p.relative_to(ROOT).as_posix() for folder in ("bench", "scripts") for p in (ROOT / folder).glob("*.py")
              if re.search(r"\bCORPUS\b|DEFAULT_CORPUS|read_corpus|require_corpus|load_corpus",
                           p.read_text(encoding="utf-8"))}
    assert naming == set(SCRIPTS)


def test_papers_corpus_set_is_the_only_place_looked_even_when_nothing_is_there(tmp_path):
    """``PAPERS_CORPUS`` naming a missing file is where the corpus is looked for: never ``../shared`` then."""
    missing = tmp_path / "papers.jsonl"
    assert corpus.find_corpus({"PAPERS_CORPUS": str(missing)}) == missing
    assert corpus.find_corpus({}).parts[-3:] == ("shared", "corpus", "papers.jsonl")
    assert corpus.find_corpus({"PAPERS_CORPUS": ""}) == corpus.find_corpus({})


def test_require_corpus_returns_a_file_that_is_there_and_exits_2_otherwise(tmp_path, capsys):
    assert corpus.require_corpus(SAMPLE) == SAMPLE
    with pytest.raises(SystemExit) as info:
        corpus.require_corpus(tmp_path)  # a folder is no corpus either
    assert info.value.code == 2
    assert capsys.readouterr().err == f"papers corpus not found: {tmp_path} (set PAPERS_CORPUS=/path/to/papers.jsonl)\n"


def test_the_sample_holds_every_venue_year_of_the_corpus_and_stays_small():
    """tests/fixtures/papers/README.md: a few hundred papers, under 1 MB, from all 19 venue-years."""
    records = sample_records()
    assert 300 <= len(records) <= 700 and SAMPLE.stat().st_size < 1_000_000
    assert len({(r["venue"], r["year"]) for r in records}) == 19
    assert len({json.dumps(r, sort_keys=True) for r in records}) == len(records)
    assert all(r["title"] and r["abstract"] and r["authors"] for r in records)


def test_the_sampler_draws_every_venue_year_its_share_the_paragraphs_and_the_pinned_titles_as_written(tmp_path):
    """scripts/sample_corpus.py on a made-up corpus: every venue-year at least ``--least``, the big one its share,
    ``--multi-paragraph`` more among the abstracts of several paragraphs, every pinned title; the lines as they
    were, in their order; the same bytes for the same seed."""
    spec = importlib.util.spec_from_file_location("sample_corpus", ROOT / "scripts" / "sample_corpus.py")
    sampler = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sampler)
    sizes = {("A", 2023): 400, ("B", 2024): 30, ("C", 2025): 5}
    lines = [json.dumps({"venue": v, "year": y, "title": f"{v} {y} paper {n}", "authors": ["Ann Lee"],
                         "abstract": "One.\n\nTwo." if n % 10 == 3 else f"Abstract {n} of  {v}."}) + "\n"
             for (v, y), count in sizes.items() for n in range(count)]
    source = tmp_path / "papers.jsonl"
    source.write_text("".join(lines), encoding="utf-8")
    (tmp_path / "pinned.txt").write_text("# a comment\nB 2024 paper 7\n", encoding="utf-8")

    def draw(seed: int, name: str) -> list[str]:
        assert sampler.main(["--corpus", str(source), "--papers", "87", "--least", "4", "--multi-paragraph", "3",
                             "--seed", str(seed), "--pinned", str(tmp_path / "pinned.txt"),
                             "--out", str(tmp_path / name)]) == 0
        return (tmp_path / name).read_text(encoding="utf-8").splitlines(keepends=True)

    drawn = draw(1, "a.jsonl")
    records = [json.loads(line) for line in drawn]
    count = {key: sum((r["venue"], r["year"]) == key for r in records) for key in sizes}
    assert count[("C", 2025)] == 4 and count[("B", 2024)] >= 6 and count[("A", 2023)] >= 80  # 87 * 30 / 435 = 6
    assert len(records) <= 80 + 6 + 4 + 3 + 1  # the shares, the paragraphs, the pinned paper
    assert sum("\n\n" in r["abstract"] for r in records) >= 3 and "B 2024 paper 7" in [r["title"] for r in records]
    assert drawn == sorted(drawn, key=lines.index)  # each line as written, in the corpus's order
    assert draw(1, "b.jsonl") == drawn and draw(2, "c.jsonl") != drawn
