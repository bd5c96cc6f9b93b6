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


def test_copies_beyond_the_corpus_are_distinct_papers_that_the_reader_keeps(tmp_path: Path):
    """``bench/lists.py N`` above the corpus's size: the copies are read as papers of their own (no duplicate
    merged, every paper id distinct), in venue-years of their own, with derived titles that repeat no more than
    the sample's own do but for one in ten, and renamed authors."""
    from lists import distinct_copies

    from site_builder.model.site import build_site
    from site_builder.pipeline import load_overrides

    records = load_corpus(SAMPLE, 600)
    n = 2 * len(records) + 100  # two whole copies and part of a third
    papers = distinct_copies(records, n)
    assert len(papers) == n and papers[:len(records)] == records
    written = write_lists(papers, tmp_path / "seeds", tmp_path / "site.toml")
    assert len(written) > len({(r["venue"], r["year"]) for r in records})  # the copies' venue-years are lists of their own

    config = load_config(tmp_path / "site.toml")
    diagnostics = Diagnostics()
    entries = read_lists(list_files(tmp_path / "seeds"), config, diagnostics)
    site = build_site(entries, load_overrides(tmp_path / "seeds", diagnostics), config, diagnostics)
    assert diagnostics.errors == [] and not [w for w in diagnostics.warnings if "duplicate" in w.message]
    assert len(entries) == len(site.papers) == n
    assert len({p.id for p in site.papers}) == n
    sample_site = build_site(read_lists(list_files(_sample_lists(records, tmp_path)), load_config(tmp_path / "s.toml"),
                                        Diagnostics()), {}, config, Diagnostics())
    originals = [p.title_text for p in sample_site.papers]
    repeats_in_sample = len(originals) - len(set(originals))
    titles = [p.title_text for p in site.papers]
    # a copy's title is made of its abstract's words: a varied word in it gives a title of its own (unvaried,
    # every copy would repeat its original's title); a title of words none of which vary repeats (~5 % of them)
    assert len(titles) - len(set(titles)) <= 3 * repeats_in_sample + n // 10
    first = records[0]
    copy = papers[len(records)]
    assert copy["year"] < min(r["year"] for r in records) and copy["abstract"] != one_line(first["abstract"])
    assert [a.split()[0] for a in copy["authors"]] == [a.split()[0] for a in first["authors"]]
    assert copy["authors"] != first["authors"]


def _sample_lists(records: list[dict], tmp_path: Path) -> Path:
    write_lists(records, tmp_path / "sample", tmp_path / "s.toml")
    return tmp_path / "sample"
