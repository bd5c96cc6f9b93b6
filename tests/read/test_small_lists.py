"""The regression lists of ``tests/fixtures/lists/``: every paper comes back whole, nothing merged, swapped or lost."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, build_into
from site_builder.read.plaintext import read_list

LISTS = ROOT / "tests" / "fixtures" / "lists"
EXPECTED = json.loads((LISTS / "expected" / "papers.json").read_text(encoding="utf-8"))
#: The warnings a list gives (``line: warning: …``, without the path; ``{path}`` where a warning names the list),
#: where it gives any.
WARNINGS = json.loads((LISTS / "expected" / "warnings.json").read_text(encoding="utf-8"))


def test_every_list_has_its_expected_papers_and_back():
    assert sorted(EXPECTED) == sorted(p.name for p in LISTS.glob("*.txt"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_small_list_reads_as_written(name):
    result = read_list(LISTS / name)
    got = [{"title": e.title, "authors": list(e.authors), "track": " · ".join(e.track) or None,
            "abstract": e.abstract[:len(want["abstract"])]} for e, want in zip(result.entries, EXPECTED[name])]
    assert got == EXPECTED[name]
    assert len(result.entries) == len(EXPECTED[name])
    path = LISTS / name
    assert [str(d) for d in result.diagnostics] == [f"{path}:{w.format(path=path)}" for w in WARNINGS.get(name, [])]


def test_the_small_lists_build_with_every_paper(tmp_path):
    (tmp_path / "site.toml").write_text("", encoding="utf-8")  # the lists' headings name their venues
    assert build_into(tmp_path / "site", "--no-cache", seeds=LISTS, config=tmp_path / "site.toml") == 0
    records = json.loads((tmp_path / "site" / "papers.json").read_text(encoding="utf-8"))
    wanted = [p for papers in EXPECTED.values() for p in papers]
    assert len(records) == len(wanted)  # none merged, none lost
    for want in wanted:
        (record,) = [r for r in records if r["abstract"].startswith(want["abstract"]) and r["authors"] == want["authors"]]
        assert record["title"] == want["title"] or (want["title"] is None and record["title_derived"])
