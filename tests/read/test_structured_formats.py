"""The structured list formats (BibTeX, RIS, CSL-JSON, CSV, JSON Lines, paperlists, OpenReview notes), their
fidelity on the sample of real papers, the round trip of our own output, and reference metadata for pasted lists."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SEEDS, assert_same_site, build_into
from papers_sample import sample_records
from site_builder.config import load_config
from site_builder.read import formats, reference
from site_builder.read.entries import Entry
from site_builder.read.records import venue_name

def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


fidelity_script = _script("format_fidelity")
roundtrip_script = _script("roundtrip_corpus")

BIB = r"""@string{icml = "Proceedings of the 41st International Conference on Machine Learning"}

@inproceedings{mueller2024bert,
  title = {{BERT} Meets M{\"u}ller: {$\mathcal{O}(n)$} Attention -- Revisited},
  author = {M{\"u}ller, J{\"o}rg and \'Alvarez, Mauricio A. and others},
  booktitle = icml,
  year = 2024, month = jul,
  keywords = {attention; transformers},
  doi = {https://doi.org/10.5555/12345},
  url = {https://proceedings.mlr.press/v235/mueller24a.html},
  code = {https://github.com/example/bert-mueller},
  abstract = {We show that attention costs $\mathcal{O}(n)$ and 50\% less, at \$5 per run.

A second paragraph.},
}

@article{broken,
  title = {Unclosed braces
@misc{titleonly, title = {A Paper Without an Abstract}, journal = {ICLR 2025}, year = 2025}
"""


def test_bibtex_decodes_tex_macros_names_and_keeps_math(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(BIB, encoding="utf-8")
    result = formats.read_list(path)
    first, second = result.entries
    assert first.title == "BERT Meets Müller: $\\mathcal{O}(n)$ Attention – Revisited"
    assert first.authors == ("Jörg Müller", "Mauricio A. Álvarez") and first.et_al
    assert (first.venue, first.year) == ("ICML", 2024)
    assert first.abstract == "We show that attention costs $\\mathcal{O}(n)$ and 50% less, at $5 per run.\n\nA second paragraph."
    assert first.keywords == ("attention", "transformers") and first.doi == "10.5555/12345"
    assert first.url == "https://proceedings.mlr.press/v235/mueller24a.html"
    assert first.code_urls == ("https://github.com/example/bert-mueller",)
    assert (second.title, second.abstract, second.venue, second.year) == ("A Paper Without an Abstract", "", "ICLR", 2025)
    assert [str(d) for d in result.diagnostics] == [
        f"{path}:17: warning: malformed BibTeX entry broken: Unexpected block start: `@misc`. "
        "Was still looking for field-value closing `}`; left out"]


def test_ris_authors_family_first_read_as_bibtex_reads_them(tmp_path):
    """RIS writes ``Family, Given`` (``Family, Given, Suffix``): one person, whichever format lists them (found by the
    new-user pass: ``Müller, Jörg`` in RIS and ``M{\\"u}ller, J{\\"o}rg`` in BibTeX were two author pages)."""
    path = tmp_path / "refs.ris"
    path.write_text("TY  - CONF\nTI  - Attention Revisited\nAU  - Müller, Jörg\nAU  - King, Martin Luther, Jr.\n"
                    "AU  - Andrew Ng\nAU  - John Smith, Jr.\nAU  - 李, 四\nAU  - 山田, 太郎\nAB  - We revisit attention.\n"
                    "T2  - ICML 2024\nPY  - 2024\nER  - \n", encoding="utf-8")
    (paper,) = formats.read_list(path).entries
    assert paper.authors == ("Jörg Müller", "Martin Luther King Jr.", "Andrew Ng", "John Smith, Jr.", "李四", "山田太郎")
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    assert formats.read_list(bib).entries[0].authors[0] == paper.authors[0]


def test_our_papers_json_renamed_jsonl_is_read_whole_with_a_warning(tmp_path, seed_site):
    """(found by a new-user pass: 22 of its 23 lines were "not JSON" and one paper was read, exit 0)"""
    source = (seed_site / "papers.json").read_text(encoding="utf-8")
    path = tmp_path / "papers.jsonl"
    path.write_text(source, encoding="utf-8")
    result = formats.read_list(path)
    assert [e.abstract for e in result.entries] == [r["abstract"] for r in json.loads(source)]
    assert [(d.line, d.level, d.message) for d in result.diagnostics] == [
        (1, "warning", "a JSON array, not JSON Lines (an object a line); read as JSON")]


def test_an_ris_n2_abstract_and_csl_name_particles_are_read(tmp_path):
    """(found by a new-user pass) Scopus writes the abstract as ``N2``; CSL-JSON keeps "van der" as a particle."""
    path = tmp_path / "scopus.ris"
    path.write_text("TY  - JOUR\nT1  - Sparse Kernels\nA1  - Lee, Ann\nJF  - JMLR\nY1  - 2023\n"
                    "N2  - We learn sparse kernels.\nER  - \n", encoding="utf-8")
    (paper,) = formats.read_list(path).entries
    assert paper.abstract == "We learn sparse kernels." and paper.title == "Sparse Kernels"
    path = tmp_path / "items.json"
    path.write_text(json.dumps([{"type": "paper-conference", "title": "Particles", "container-title": "ICML 2024",
                                 "issued": {"date-parts": [[2024]]}, "abstract": "We study particles.",
                                 "author": [{"given": "Ann", "family": "Lee", "non-dropping-particle": "van der"},
                                            {"given": "Jean", "dropping-particle": "de", "family": "La Fontaine"},
                                            {"family": "Plato"}, {"given": "Martin", "family": "King", "suffix": "Jr."}]}]),
                    encoding="utf-8")
    (paper,) = formats.read_list(path).entries
    assert paper.authors == ("Ann van der Lee", "Jean de La Fontaine", "Plato", "Martin King Jr.")


def test_a_csv_cell_with_a_doubled_quote_and_a_line_break_reads_as_written(tmp_path):
    """RFC 4180: ``""`` in a quoted cell is one quote, whatever the other rows hold (found by the new-user pass:
    Python's csv.Sniffer judged this file's quoting wrong and the title got a stray quote)."""
    path = tmp_path / "papers.csv"
    path.write_text('title,authors,venue,year,abstract,keywords\n"Comma, Quote "" Paper",Jörg Müller; Anne Smith,ICLR,'
                    '2025,"An abstract, with commas\nand a newline.",kw1; kw2\nNo abstract CSV,Someone,ICLR,2025,,\n',
                    encoding="utf-8")
    first, second = formats.read_list(path).entries
    assert first.title == 'Comma, Quote " Paper' and first.authors == ("Jörg Müller", "Anne Smith")
    assert first.abstract == "An abstract, with commas\nand a newline." and second.title == "No abstract CSV"


def test_a_csv_row_with_more_cells_than_columns_keeps_its_text_and_names_its_line(tmp_path):
    """A comma inside an unquoted abstract or title splits it into cells (found by the new-user pass: the row
    became a paper of its first cells, the rest of the abstract lost). The cells are joined again where the row's
    year still reads as a year; a row no joining fits is left out, each with a warning naming file and line."""
    path = tmp_path / "papers.csv"
    path.write_text("title,authors,venue,year,abstract\n"
                    "Plain Paper,Ann Lee,ICLR,2025,We study graphs, trees, and forests.\n"
                    "Graphs, Trees and Forests,Bo Chen; Ann Lee,ICLR,2024,An abstract without commas.\n"
                    "Both, Split,Cy Wu,ICLR,2023,First part, second part.\n"
                    "Shifted,Ann Lee,ICLR,not a year,x,y\n", encoding="utf-8")
    result = formats.read_list(path)
    assert [(e.title, e.authors, e.year, e.abstract) for e in result.entries] == [
        ("Plain Paper", ("Ann Lee",), 2025, "We study graphs, trees, and forests."),
        ("Graphs, Trees and Forests", ("Bo Chen", "Ann Lee"), 2024, "An abstract without commas."),
        ("Both, Split", ("Cy Wu",), 2023, "First part, second part.")]
    messages = [str(d) for d in result.diagnostics]
    assert [m.split(": ")[0] for m in messages] == [f"{path}:{n}" for n in (2, 3, 4, 5)]
    assert "abstract (3 cells)" in messages[0] and "title (2 cells)" in messages[1]
    assert "abstract (2 cells), title (2 cells)" in messages[2] and "row left out" in messages[3]
    assert all("quote" in m for m in messages)


def test_a_year_that_is_not_a_year_is_a_warning_naming_it(tmp_path):
    """A row whose year cell is not a year takes the config's year with a warning naming the cell's text (found by
    the new-user pass: it was taken silently, or, without a config's year, the error named no year)."""
    path = tmp_path / "papers.csv"
    path.write_text("title,venue,year,abstract\nBad Year,ICLR,twenty,Some abstract text for the bad year row.\n"
                    "Good Year,ICLR,2024,Another abstract text.\n", encoding="utf-8")
    result = formats.read_list(path, "ICLR", 2025, explicit=False)  # the config's [default]: no contradiction
    assert [(e.title, e.year) for e in result.entries] == [("Bad Year", 2025), ("Good Year", 2024)]
    assert [str(d) for d in result.diagnostics] == [
        f"{path}:2: warning: entry at line 2: year 'twenty' is not a year; the list's heading or the config gives it, "
        "if either does"]


def test_fields_of_the_wrong_kind_and_a_doi_that_is_not_one_are_warnings_naming_them(tmp_path):
    """Found by the new-user pass: a JSON Lines title given as a list, authors as an object and a DOI field with
    no DOI were taken silently (the title read as Python's repr of the list, the DOI dropped)."""
    path = tmp_path / "papers.jsonl"
    rows = [{"title": ["Graph", "Networks"], "authors": {"name": "Ann Lee"}, "abstract": "An abstract.",
             "venue": "ICLR", "year": 2024, "doi": "see the paper"},
            {"title": "Fine", "authors": ["Bo Chen", 7], "abstract": "Another.", "venue": "ICLR", "year": 2024,
             "doi": "https://doi.org/10.5555/1"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = formats.read_list(path)
    first, second = result.entries
    assert (first.title, first.authors, first.doi) == ("Graph Networks", ('{"name": "Ann Lee"}',), None)
    assert (second.authors, second.doi) == (("Bo Chen", "7"), "10.5555/1")
    assert [str(d) for d in result.diagnostics] == [
        f"{path}:1: warning: entry at line 1: title is a list, not text; read as 'Graph Networks'",
        f"{path}:1: warning: entry at line 1: authors is not text or a list of texts; read as ['{{\"name\": \"Ann Lee\"}}']",
        f"{path}:1: warning: entry at line 1: doi 'see the paper' is not a DOI (10.…); left out",
        f"{path}:2: warning: entry at line 2: authors is not text or a list of texts; read as ['Bo Chen', '7']"]
    ris = tmp_path / "refs.ris"
    ris.write_text("TY  - CONF\nTI  - A Paper\nAB  - Text.\nT2  - ICML 2024\nDO  - none given\nER  - \n",
                   encoding="utf-8")
    assert [d.message for d in formats.read_list(ris).diagnostics] == [
        "entry at line 1: doi 'none given' is not a DOI (10.…); left out"]


def test_a_year_or_authors_of_the_wrong_kind_in_bibtex_jsonl_and_csl_are_warnings(tmp_path):
    """Found by the second new-user pass: BibTeX's ``year = {twenty}``, a JSON Lines year ``[2025]`` or ``2024.7``,
    a CSL-JSON ``author`` given as text and an ``issued`` with no year were read without a word."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@inproceedings{k, title = {T}, abstract = {An abstract.}, booktitle = {ICLR}, year = {twenty}}\n",
                   encoding="utf-8")
    assert [d.message for d in formats.read_list(bib, "ICLR", 2025).diagnostics] == [
        "entry k: year 'twenty' is not a year; the list's heading or the config gives it, if either does"]
    jsonl = tmp_path / "papers.jsonl"
    jsonl.write_text('{"title": "A", "abstract": "An abstract.", "venue": "ICLR", "year": [2025]}\n'
                     '{"title": "B", "abstract": "Another.", "venue": "ICLR", "year": 2024.7}\n', encoding="utf-8")
    result = formats.read_list(jsonl)
    assert [e.year for e in result.entries] == [2025, 2024]
    assert [d.message for d in result.diagnostics] == ["entry at line 1: year [2025] is a list, not a year; read as 2025",
                                                       "entry at line 2: year 2024.7 is float, not a year; read as 2024"]
    csl = tmp_path / "refs.json"
    csl.write_text(json.dumps([{"type": "paper-conference", "title": "C", "author": "Ann Lee and Bo Chen",
                                "container-title": "ICML", "issued": "sometime", "abstract": "Text."},
                               {"type": "paper-conference", "title": ["D"], "author": [{"family": "Wu", "given": "Di"}],
                                "container-title": ["ICML"], "issued": {"raw": "2024-05"}, "abstract": "Text."},
                               {"type": "paper-conference", "title": ["BERT", "for Müller"], "container-title": "ICML",
                                "author": [{"literal": "Jörg Müller"}], "issued": {"date-parts": [[2024]]},
                                "abstract": "More text."}]),
                   encoding="utf-8")
    result = formats.read_list(csl, "ICML", 2023, explicit=False)  # the config's [default]: no contradiction
    assert [(e.title, e.authors, e.year, e.venue) for e in result.entries] == [
        ("C", ("Ann Lee", "Bo Chen"), 2023, "ICML"), ("D", ("Di Wu",), 2024, "ICML"),
        ("BERT for Müller", ("Jörg Müller",), 2024, "ICML")]  # Crossref's one-item lists read as their item
    assert [d.message for d in result.diagnostics] == [
        "entry at line 1: author is text, not a list of names; read as ['Ann Lee', 'Bo Chen']",
        'entry at line 1: issued "sometime" gives no year (CSL-JSON: {"date-parts": [[2024]]}); the container title, the '
        "heading or the config gives it, if any does",
        "entry at line 1: title is a list, not text; read as 'BERT for Müller'"]


@pytest.mark.parametrize("missing, text", [("year", '{"title": "T", "abstract": "A.", "venue": "ICLR"}'),
                                           ("venue", '{"title": "T", "abstract": "A.", "year": 2024}'),
                                           ("venue and year", '{"title": "T", "abstract": "A."}')])
def test_a_paper_without_a_venue_or_a_year_is_an_error_naming_what_is_missing(tmp_path, capsys, missing, text):
    seeds, config = tmp_path / "seeds", tmp_path / "site.toml"
    seeds.mkdir()
    (seeds / "list.jsonl").write_text(text + "\n", encoding="utf-8")
    config.write_text('title = "T"\n', encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=config) != 0
    assert f"list.jsonl:1: error: paper has no {missing} (the list names none, the config gives none)" in \
        capsys.readouterr().err


@pytest.mark.parametrize("suffix, text, message", [
    (".bib", "ICLR 2025 Papers\n\nAn abstract pasted in the wrong file.\n", "not a BibTeX file"),
    (".json", '{"papers": 3}', "not a paper list: JSON of no known shape"),
    (".json", "ICLR 2025\n", "not JSON"),
    (".ris", "title,abstract\nx,y\n", "not an RIS file"),
    (".csv", "name,colour\nx,y\n", "not a CSV paper list"),
    (".jsonl", "ICLR 2025\nsome text\n", "not a JSON Lines paper list"),
])
def test_a_file_that_is_not_the_format_its_suffix_says_is_an_error_naming_it(tmp_path, suffix, text, message):
    path = tmp_path / f"list{suffix}"
    path.write_text(text, encoding="utf-8")
    result = formats.read_list(path)
    assert result.entries == [] and [d.level for d in result.diagnostics] == ["error"]
    assert str(result.diagnostics[0]).startswith(f"{path}:") and message in result.diagnostics[0].message


def test_a_bad_line_or_record_is_a_warning_and_the_others_are_read(tmp_path):
    records = sample_records()[:3]
    lines = [json.dumps(r) for r in records]
    path = tmp_path / "list.jsonl"
    path.write_text("\n".join([lines[0], "{not json", lines[1], "[1, 2]", lines[2]]) + "\n", encoding="utf-8")
    result = formats.read_list(path)
    assert [e.title for e in result.entries] == [r["title"] for r in records]
    assert [(d.line, d.level) for d in result.diagnostics] == [(2, "warning"), (4, "warning")]
    empty = tmp_path / "empty.bib"
    empty.write_text("@misc{nothing, note = {no title, no abstract}}\n", encoding="utf-8")
    assert "entry nothing gives neither a title nor an abstract" in str(formats.read_list(empty).diagnostics[0])


def test_json_is_told_apart_by_its_content(tmp_path):
    records = sample_records()[:4]
    for name, write in [("CSL-JSON", fidelity_script.write_csl), ("paperlists JSON", fidelity_script.write_paperlists),
                        ("OpenReview notes", fidelity_script.write_openreview)]:
        path = tmp_path / f"{name.replace(' ', '_')}.json"
        path.write_text(write(records), encoding="utf-8")
        entries = formats.read_list(path).entries
        assert [(e.title, e.authors, e.abstract) for e in entries] == [
            (r["title"], tuple(r["authors"]), r["abstract"].strip()) for r in records], name
        if name != "OpenReview notes":  # written indented: each record on the line where it begins
            assert all(e.line > 1 for e in entries) and len({e.line for e in entries}) == 4


def test_every_format_gives_back_the_sample_papers_field_exact(tmp_path):
    """scripts/format_fidelity.py on the tests' sample of 565 real papers: at least 99.5 % per format."""
    for name, (exact, total, diffs, _) in fidelity_script.fidelity(sample_records(), tmp_path).items():
        assert total == 565 and exact >= 0.995 * total, (name, diffs)


@pytest.mark.parametrize("container, venue", [
    ("Proceedings of the 41st International Conference on Machine Learning", "ICML"),
    ("ICLR 2025", "ICLR"), ("Advances in Neural Information Processing Systems 36", "NeurIPS"),
    ("Proceedings of The 26th International Conference on Artificial Intelligence and Statistics", "AISTATS"),
    ("Findings of the Association for Computational Linguistics: NAACL 2024", "NAACL"),
    ("My Workshop 2024", "My Workshop"),
])
def test_container_titles_map_to_the_venues_short_name(container, venue):
    assert venue_name(container) == venue


def _seed_site_copy(tmp_path: Path) -> tuple[Path, Path]:
    """The seeds and their config copied into ``tmp_path`` (the reference file too)."""
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    config = tmp_path / "site.toml"
    shutil.copy(ROOT / "site.toml", config)
    return seeds, config


def test_our_papers_json_as_json_lines_and_our_papers_bib_give_back_the_same_papers(tmp_path, seed_site):
    original = {r["id"]: r for r in json.loads((seed_site / "papers.json").read_text(encoding="utf-8"))}
    jsonl, bib = tmp_path / "jsonl", tmp_path / "bib"
    jsonl.mkdir()
    bib.mkdir()
    (jsonl / "papers.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in original.values()),
                                        encoding="utf-8")
    for venue_bib in seed_site.glob("venues/*/papers.bib"):  # every entry (the site's papers.bib lists these files)
        shutil.copy(venue_bib, bib / f"{venue_bib.parent.name}.bib")
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    for folder in (jsonl, bib):
        assert build_into(tmp_path / f"{folder.name}-site", "--no-cache", seeds=folder, config=empty) == 0
        again = {r["id"]: r for r in json.loads((tmp_path / f"{folder.name}-site" / "papers.json").read_text("utf-8"))}
        assert again.keys() == original.keys()
        for pid, record in original.items():
            assert again[pid] == record | {"url": again[pid]["url"]}, folder.name
    # the seeds' titles are published ones here (their reference file); derived titles: the test below


def test_our_own_output_of_the_seeds_and_the_sample_reads_back_field_by_field(tmp_path):
    """scripts/roundtrip_corpus.py --own-output on real input: the seed lists without their reference file (most
    titles derived), the small hand-written lists of tests/fixtures (Chinese titles, names and tracks, Japanese
    names, hostile markup) and the tests' sample of 565 real papers as JSON Lines (every fourth
    with ``title_derived``); every papers.json field of every paper comes back from papers.jsonl and papers.bib."""
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(json.dumps(r | ({"title_derived": True} if n % 4 == 3 else {}), ensure_ascii=False)
                              + "\n" for n, r in enumerate(sample_records())), encoding="utf-8")
    lists = [*sorted(SEEDS.glob("*.txt")), *sorted((ROOT / "tests" / "fixtures" / "lists").glob("*.txt")),
             ROOT / "tests" / "fixtures" / "hostile" / "hostile.txt"]  # + Chinese, Japanese; markup and TeX specials
    site = roundtrip_script.site_of([*lists, sample], load_config(ROOT / "site.toml"))
    papers = site.papers
    # the awkward cases are there: derived titles, CJK text, math, runs of white space and line breaks inside
    # abstracts, CR line ends, keywords with commas, code links, landing pages, DOIs, several tracks
    assert sum(p.title_derived for p in papers) > 150 and sum(not p.title_derived for p in papers) > 400
    assert any(re.search(r"[\u4e00-\u9fff]", p.track.label if p.track else "") for p in papers)
    assert any(re.search(r"[\u4e00-\u9fff]", " ".join(p.authors)) for p in papers)
    assert any(re.search(r"[\u4e00-\u9fff]", p.title) for p in papers)
    assert sum("$" in p.abstract for p in papers) > 20 and any("  " in p.abstract for p in papers)
    assert any(re.search(r"[^\n]\n[^\n]", p.abstract) for p in papers) and any("\r" in p.abstract for p in papers)
    assert any(any("," in k for k in p.keywords) for p in papers) and sum(bool(p.code_urls) for p in papers) > 50
    assert sum(bool(p.landing_url) for p in papers) > 300 and any(p.et_al for p in papers)
    results = roundtrip_script.own_roundtrip(site, tmp_path / "own", show=5)
    for name, result in results.items():
        assert result["papers"] == len(papers) and result["extra"] == 0, name
        assert result["exact"] == len(papers), (name, result["fields"], result["shown"])
    # strictly equal too but for what roundtrip_corpus.normalised says (line ends in papers.bib, folded titles)
    for name, result in results.items():
        records = [p.record() for p in papers]
        assert result["strict"] == sum(roundtrip_script.normalised(r, name.endswith(".bib")) == r for r in records)
        assert result["strict"] >= len(papers) - (30 if name.endswith(".bib") else 2)


def test_a_paper_without_an_abstract_is_a_paper_with_an_id_from_its_title(tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "refs.bib").write_text(BIB, encoding="utf-8")
    empty = tmp_path / "site.toml"
    empty.write_text("", encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=empty) == 0
    records = json.loads((tmp_path / "site" / "papers.json").read_text(encoding="utf-8"))
    bare = next(r for r in records if r["abstract"] == "")
    assert bare["title"] == "A Paper Without an Abstract" and not bare["title_derived"]
    page = (tmp_path / "site" / bare["url"]).read_text(encoding="utf-8")
    assert "The list gives no abstract for this paper." in page
    bert = next(r for r in records if r["abstract"])
    assert bert["doi"] == "10.5555/12345" and 'href="https://doi.org/10.5555/12345"' in \
        (tmp_path / "site" / bert["url"]).read_text(encoding="utf-8")
    # the id is the title's: the same entry with another venue is the same paper
    (seeds / "again.csv").write_text("title,venue,year\nA paper without an abstract,ICLR,2025\n", encoding="utf-8")
    from io import StringIO
    import contextlib
    err = StringIO()
    with contextlib.redirect_stderr(err):
        assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=empty) == 0
    assert f"{seeds / 'again.csv'}:2: warning: duplicate of the paper at" in err.getvalue() or \
        "the same paper as" in err.getvalue()


# --- reference metadata -------------------------------------------------------------------------

def _entry(abstract: str, **fields) -> Entry:
    return Entry(path="list.txt", line=fields.pop("line", 1), abstract=abstract, **fields)


def test_a_pasted_paper_takes_what_it_lacks_from_its_reference_and_keeps_what_it_gives():
    records = sample_records()[:40]
    refs = [Entry(path="ref.json", line=n, abstract=r["abstract"], title=r["title"], authors=tuple(r["authors"]),
                  url=r.get("site"), keywords=("k",)) for n, r in enumerate(records)]
    index = reference.ReferenceIndex(refs)
    words = records[1]["abstract"].split()
    pasted = [_entry(records[0]["abstract"].upper().replace(" ", "  ")),  # exact after normalising
              _entry(" ".join(words[:5] + words[6:]) + " Code is online.", line=2),  # nearly: a word gone, one more
              _entry(records[2]["abstract"], title="Our Own Title", authors=("Somebody Else",), line=3),
              _entry("An abstract that no reference file holds, about something else entirely, at length.", line=4)]
    diagnostics, counts = [], reference.Matched()
    filled = reference.fill(pasted, index, diagnostics, counts)
    assert [e.title for e in filled] == [records[0]["title"], records[1]["title"], "Our Own Title", None]
    assert filled[0].authors == tuple(records[0]["authors"]) and filled[0].url == records[0].get("site")
    assert filled[2].authors == ("Somebody Else",) and filled[2].keywords == ("k",)
    assert (counts.exact, counts.near, counts.unmatched) == (2, 1, 1)
    assert [(d.line, d.level) for d in diagnostics] == [(3, "warning"), (3, "warning")]
    assert "differs from the reference's" in diagnostics[0].message
    assert "differ from the reference's" in diagnostics[1].message


def test_a_kept_reference_index_finds_what_the_index_it_was_made_from_finds():
    """ReferenceIndex.state / from_state (the build cache's form, through marshal as the Store keeps it): the same
    candidates, scores and entries for the sample's abstracts, exact, damaged and of papers not in the index."""
    import marshal

    records = sample_records()
    index = reference.ReferenceIndex([Entry(path="ref.json", line=n, abstract=r["abstract"], title=r["title"],
                                            authors=tuple(r["authors"])) for n, r in enumerate(records[:400])])
    kept = reference.ReferenceIndex.from_state(marshal.loads(marshal.dumps(index.state())))
    assert kept.entries == index.entries and kept.keys == index.keys
    queries = [r["abstract"] for r in records[:400:7]] + [r["abstract"] for r in records[400:]]
    queries += [" ".join(r["abstract"].split()[3:-3]).replace("the", "a") for r in records[:400:5]]
    found = [index.best(q) for q in queries]
    assert found == [kept.best(q) for q in queries]
    assert sum(f is not None and not f[2] and f[1] >= reference.THRESHOLD for f in found) >= 60  # near matches too
    assert reference.ReferenceIndex.from_state({"entries": [], "keys": ["x"], "hashes": b"", "owners": b""}) is None


def test_a_warm_build_takes_the_reference_index_from_the_cache_and_gives_the_same_site(tmp_path, monkeypatch):
    from site_builder import pipeline

    seeds, config = _seed_site_copy(tmp_path)
    cache = tmp_path / "cache"
    read = []
    monkeypatch.setattr(pipeline.formats, "read_list", lambda path, *a, _read=formats.read_list: (
        read.append(Path(path).name), _read(path, *a))[1])
    assert build_into(tmp_path / "site", "--cache", str(cache), seeds=seeds, config=config) == 0
    assert read == ["published.csl.json"] and list(cache.rglob("reference-*.marshal"))
    listed = next(seeds.glob("000_*.txt"))
    listed.write_text(listed.read_text(encoding="utf-8") + "\nOne more paper, pasted last, about nothing the "
                      "reference holds, long enough to be an abstract of its own.\n", encoding="utf-8")
    read.clear()
    assert build_into(tmp_path / "site", "--cache", str(cache), seeds=seeds, config=config) == 0
    assert read == []  # the build was not skipped (a list changed), and the index came from the cache
    assert build_into(tmp_path / "fresh", "--no-cache", seeds=seeds, config=config) == 0
    assert read == ["published.csl.json"]
    assert_same_site(tmp_path / "fresh", tmp_path / "site", placed_map=True)  # the new paper placed in the kept map


def test_a_reference_file_fills_the_build_and_its_change_rebuilds_as_without_cache(tmp_path):
    seeds, config = _seed_site_copy(tmp_path)
    cache = tmp_path / "cache"
    assert build_into(tmp_path / "site", "--cache", str(cache), seeds=seeds, config=config) == 0
    ref = seeds / "refs" / "published.csl.json"
    items = json.loads(ref.read_text(encoding="utf-8"))
    items[0]["title"] = "A Title Changed in the Reference"
    ref.write_text(json.dumps(items, ensure_ascii=False, indent=1), encoding="utf-8")
    assert build_into(tmp_path / "site", "--cache", str(cache), seeds=seeds, config=config) == 0
    assert build_into(tmp_path / "fresh", "--no-cache", seeds=seeds, config=config) == 0
    assert_same_site(tmp_path / "site", tmp_path / "fresh", placed_map=True)
    titles = [r["title"] for r in json.loads((tmp_path / "site" / "papers.json").read_text(encoding="utf-8"))]
    assert "A Title Changed in the Reference" in titles


def test_the_summary_says_how_many_pasted_papers_matched(tmp_path, capsys):
    seeds, config = _seed_site_copy(tmp_path)
    ref = seeds / "refs" / "published.csl.json"
    items = json.loads(ref.read_text(encoding="utf-8"))
    ref.write_text(json.dumps(items[:50], ensure_ascii=False), encoding="utf-8")  # 8 papers lack a reference
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=config) == 0
    assert "; 50 of 58 papers matched a reference (0 nearly);" in capsys.readouterr().err
    records = json.loads((tmp_path / "site" / "papers.json").read_text(encoding="utf-8"))
    assert sum(r["title_derived"] for r in records) == 8


def test_a_missing_reference_file_is_an_error_naming_it(tmp_path, capsys):
    seeds, config = _seed_site_copy(tmp_path)
    (seeds / "refs" / "published.csl.json").unlink()
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=config) == 1
    assert f"{tmp_path / 'seeds' / 'refs' / 'published.csl.json'}: error: cannot read the file" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["3", "[1, 2]", '[""]'])
def test_a_reference_that_is_not_a_path_is_a_located_config_error(tmp_path, capsys, value):
    seeds, config = _seed_site_copy(tmp_path)
    config.write_text(f'[lists."000_3c4c43013b737622.txt"]\nreference = {value}\n', encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=config) == 2
    assert capsys.readouterr().err.startswith(f"{config}:2: error: [lists.'000_3c4c43013b737622.txt']: reference must be")


@pytest.mark.parametrize("last", ["et al.", "et al", "Others", "等", "…"])
def test_an_author_list_ending_in_et_al_gives_the_paper_et_al_not_an_author(tmp_path, last):
    """(found by the second new-user pass) A JSON-lines or CSV paper whose authors end with ``"et al."``: the
    authors before it, and the paper's ``et_al`` (shown as "et al." after them), not an author named "et al."."""
    path = tmp_path / "papers.jsonl"
    path.write_text(json.dumps({"title": "Sparse Kernels", "authors": ["Ann Lee", "Bo Chen", last],
                                "abstract": "We learn sparse kernels.", "venue": "ICML", "year": 2024}) + "\n",
                    encoding="utf-8")
    (paper,) = formats.read_list(path).entries
    assert (paper.authors, paper.et_al) == (("Ann Lee", "Bo Chen"), True)
    path = tmp_path / "papers.csv"
    path.write_text(f"title,authors,abstract,venue,year\nSparse Kernels,\"Ann Lee; Bo Chen; {last}\","
                    "We learn sparse kernels.,ICML,2024\n", encoding="utf-8")
    (paper,) = formats.read_list(path).entries
    assert (paper.authors, paper.et_al) == (("Ann Lee", "Bo Chen"), True)


def test_an_openreview_note_submitted_to_a_venue_says_so_in_its_status(tmp_path):
    """(found by the second new-user pass) OpenReview calls a paper under review, or not accepted, "Submitted to
    ICLR 2025": it is read with the venue ICLR 2025 and the status ``Submitted`` (it was shown as any ICLR 2025
    paper); an accepted one keeps the status after the year."""
    notes = [{"id": f"n{k}", "forum": f"n{k}", "content": {"title": {"value": f"Paper {k}"},
                                                            "authors": {"value": ["Ann Lee"]},
                                                            "abstract": {"value": "We learn sparse kernels."},
                                                            "venue": {"value": venue}}}
             for k, venue in enumerate(["Submitted to ICLR 2025", "ICLR 2025 Poster"])]
    path = tmp_path / "notes.json"
    path.write_text(json.dumps({"notes": notes}), encoding="utf-8")
    assert [(e.venue, e.year, e.status) for e in formats.read_list(path).entries] == \
        [("ICLR", 2025, "Submitted"), ("ICLR", 2025, "Poster")]


def test_a_papers_status_is_shown_after_its_venue_and_kept_in_papers_json(tmp_path):
    """How the venue presents a paper, as the list says (OpenReview's ``ICLR 2025 Poster`` and ``Submitted to
    ICLR 2025``, a plain list's ``Oral`` line): after the venue on the paper's page, ``status`` in ``papers.json``,
    and read back from it; a paper whose list says nothing has none (it was read and then dropped)."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    records = sample_records()[:4]
    notes = [{"id": f"n{k}", "forum": f"n{k}", "content": {
        "title": {"value": r["title"]}, "authors": {"value": r["authors"]}, "abstract": {"value": r["abstract"]},
        "venue": {"value": venue}}} for k, (r, venue) in enumerate(zip(records, ["ICLR 2025 Poster",
                                                                                 "Submitted to ICLR 2025"]))]
    (seeds / "notes.json").write_text(json.dumps({"notes": notes}), encoding="utf-8")
    (seeds / "list.txt").write_text(f"ICML 2024 Papers\n\n{records[2]['title']}\nOral\n{records[2]['abstract']}\n\n"
                                    f"{records[3]['title']}\n{records[3]['abstract']}\n", encoding="utf-8")
    empty = tmp_path / "site.toml"
    empty.write_text("", encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=empty) == 0
    exported = json.loads((tmp_path / "site" / "papers.json").read_text(encoding="utf-8"))
    status = {p["title"]: p["status"] for p in exported}
    assert status == {records[0]["title"]: "Poster", records[1]["title"]: "Submitted", records[2]["title"]: "Oral",
                      records[3]["title"]: None}
    for p in exported:
        page = (tmp_path / "site" / p["url"]).read_text(encoding="utf-8")
        shown = re.search(r'<dt>Venue</dt><dd><a [^>]*>([^<]*)</a>(?: · <span class="paper-status">([^<]*)</span>)?',
                          page)
        assert shown and (shown.group(1), shown.group(2)) == (f"{p['venue']} {p['year']}", p["status"])
    path = tmp_path / "back.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in exported) + "\n", encoding="utf-8")
    assert {e.title: e.status for e in formats.read_list(path).entries} == status


def test_a_lists_entry_contradicted_by_a_files_own_venues_is_one_warning(tmp_path):
    """(found by the third new-user pass) ``[lists."t.csv"]`` naming NeurIPS 2020 for a CSV whose rows name ICML
    2024: one warning at the first such row, each paper keeping its own venue and year; the config's ``[default]``
    (for lists naming none) is no contradiction."""
    path = tmp_path / "t.csv"
    path.write_text("title,authors,abstract,venue,year\nSparse Kernels,Ann Lee,We learn sparse kernels.,ICML,2024\n"
                    "Dense Kernels,Bo Chen,We learn dense kernels.,,\n", encoding="utf-8")
    result = formats.read_list(path, "NeurIPS", 2020, explicit=True)
    assert [(e.venue, e.year) for e in result.entries] == [("ICML", 2024), ("NeurIPS", 2020)]
    assert [str(d) for d in result.diagnostics] == [
        f"{path}:2: warning: the config gives this list NeurIPS 2020, but 1 of its papers name their own venue or "
        "year (ICML 2024 here); each keeps its own"]
    assert formats.read_list(path, "NeurIPS", 2020, explicit=False).diagnostics == []
