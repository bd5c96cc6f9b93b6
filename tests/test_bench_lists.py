"""The benchmark's list writer: corpus papers written in the seed layouts read back as the same papers."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from lists import load_corpus, one_line, write_lists  # noqa: E402
from papers_sample import SAMPLE  # noqa: E402

from site_builder.config import load_config  # noqa: E402
from site_builder.diagnostics import Diagnostics  # noqa: E402
from site_builder.pipeline import list_files, read_lists  # noqa: E402
from site_builder.read.lines import strip_label  # noqa: E402


def test_corpus_papers_round_trip_through_the_reader(tmp_path: Path):
    records = load_corpus(SAMPLE, 600)
    assert len(records) > 500  # the whole sample of real papers: every venue-year, a list each
    written = write_lists(records, tmp_path / "seeds", tmp_path / "site.toml")
    venues = {(r["venue"], r["year"]) for r in records}
    assert len(written) == len(venues) >= 2
    headings = [p.read_text(encoding="utf-8").splitlines()[0] for p in written]
    assert any(h.endswith(" Papers") for h in headings) and "论文检索" in headings

    config = load_config(tmp_path / "site.toml")
    diagnostics = Diagnostics()
    entries = read_lists(list_files(tmp_path / "seeds"), config, diagnostics)
    assert diagnostics.errors == []
    # a record's abstract may open with the label "Abstract:" (8 of the corpus's), which the reader leaves out
    by_abstract = {one_line(strip_label(r["abstract"])[1]): r for r in records}
    assert len(entries) == len(records)
    for entry in entries:
        record = by_abstract[entry.abstract]
        assert (entry.venue, entry.year) == (record["venue"], record["year"])
        if entry.authors:  # the track/author layout, for papers with two or more authors
            assert list(entry.authors) == [one_line(a) for a in record["authors"]]  # "Vinod  K. Kurmi": one space
    assert sum(1 for e in entries if e.authors) > 100
