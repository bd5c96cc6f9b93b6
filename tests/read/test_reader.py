"""Tests for site_builder.read.plaintext on the real seed lists, crafted layouts and the real corpus."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from papers_sample import SAMPLE
from site_builder.read.plaintext import ReadError, decode_bytes, merge_duplicates, page_words, parse_heading, parse_track, read_list, read_lists, read_text, split_authors, split_lines, strip_label, strip_number

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "seeds"
ICLR = SEEDS / "000_3c4c43013b737622.txt"
ICML24 = SEEDS / "002_5674a7518f4475d5.txt"
ICML25 = SEEDS / "003_7bfb54ea2f2037fe.txt"
CORPUS = SAMPLE  # the tests' sample of real papers (tests/fixtures/papers/), never the full corpus


def _roundtrip_module():
    spec = importlib.util.spec_from_file_location("roundtrip_corpus", ROOT / "scripts" / "roundtrip_corpus.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["roundtrip_corpus"] = module
    spec.loader.exec_module(module)
    return module


def accounted_lines(result) -> set[int]:
    """Lines that ended up in an entry, the heading or a diagnostic."""
    lines = {d.line for d in result.diagnostics}
    for d in result.diagnostics:  # a diagnostic naming a range of lines ("lines 9-11 have no abstract")
        m = re.match(r"lines (\d+)-(\d+) ", d.message)
        if m:
            lines.update(range(int(m[1]), int(m[2]) + 1))
    if result.heading:
        lines.add(result.heading.line)
    for e in result.entries:
        lines.update(range(e.line, e.end_line + 1))
    return lines


def assert_nothing_lost(result, text: str) -> None:
    nonblank = {n for n, line in enumerate(split_lines(text), 1) if line.strip()}
    missing = nonblank - accounted_lines(result)
    assert not missing, f"lines neither read nor reported: {sorted(missing)[:10]}"


# --------------------------------------------------------------------------- seeds


def test_seed_iclr_2025_abstract_only():
    result = read_list(ICLR)
    assert result.heading.text == "ICLR 2025 Papers"
    assert (result.heading.venue, result.heading.year) == ("ICLR", 2025)
    assert len(result.entries) == 19
    assert all(e.venue == "ICLR" and e.year == 2025 for e in result.entries)
    assert all(e.title is None and e.authors == () and e.track == () for e in result.entries)
    assert result.entries[0].line == 3
    assert result.entries[0].abstract.startswith("Solving high wavenumber Helmholtz equations")
    assert result.entries[-1].abstract.startswith("Measuring the similarity of different representations")
    assert not [d for d in result.diagnostics if d.level == "error"]
    assert_nothing_lost(result, ICLR.read_text(encoding="utf-8"))


def test_seed_icml_2024_chinese_heading():
    result = read_list(ICML24)
    assert (result.heading.venue, result.heading.year) == ("ICML", 2024)
    assert len(result.entries) == 19
    assert result.entries[10].abstract.startswith("We introduce SPARse fine-grained Contrastive alignment")
    assert not result.diagnostics


def test_seed_icml_2025_tracks_authors_with_config_venue():
    result = read_list(ICML25, venue="ICML", year=2025)
    entries = result.entries
    assert result.heading.text == "论文检索" and result.heading.venue is None
    assert not result.diagnostics
    assert len(entries) == 20
    assert all((e.venue, e.year) == ("ICML", 2025) for e in entries)
    assert len({e.track for e in entries}) == 14
    assert len({e.track[0] for e in entries}) == 6
    assert entries[0].track == ("Theory", "Learning Theory")
    assert entries[0].authors == ("Yi-Fan Zhang", "Xiao Zhang", "Min-Ling Zhang")
    assert entries[0].line == 3 and entries[0].end_line == 7
    assert entries[0].abstract.startswith("Controllability has become a critical issue")
    assert entries[7].track == ("Applications", "Chemistry, Physics, and Earth Sciences")
    et_al = [e for e in entries if e.et_al]
    assert len(et_al) == 1
    assert et_al[0].authors[-1] == "Zhi-Ming Ma" and len(et_al[0].authors) == 10
    assert all("等" not in a for e in entries for a in e.authors)
    assert entries[2].authors[-1] == "Bo An"
    assert_nothing_lost(result, ICML25.read_text(encoding="utf-8"))


def test_seed_without_venue_anywhere_is_an_error_naming_the_file():
    result = read_list(ICML25)
    errors = [d for d in result.diagnostics if d.level == "error"]
    assert len(errors) == 1
    assert str(ICML25) in errors[0].message and errors[0].line == 1
    assert str(errors[0]).startswith(f"{ICML25}:1: error: ")


# --------------------------------------------------------------------------- headings and lines


@pytest.mark.parametrize("text,venue,year", [
    ("ICLR 2025 Papers", "ICLR", 2025),
    ("ICML 2024 论文列表", "ICML", 2024),
    ("NeurIPS 2024 Accepted Papers", "NeurIPS", 2024),
    ("ACL 2022 Long Papers", "ACL", 2022),
    ("CoRL 2024", "CoRL", 2024),
    ("3DV 2025", "3DV", 2025),
    ("\u3000ICML\u00a02024 论文列表 ", "ICML", 2024),
    ("论文检索", None, None),
    ("2025年ICML论文", "ICML", 2025),  # the year first, then 年 ("year"); found by the second new-user pass
    ("2024年 NeurIPS 论文列表", "NeurIPS", 2024),
    ("2024 NeurIPS", "NeurIPS", 2024),
    ("2024年度报告", None, None),  # "2024 annual report": 年度 is no venue
])
def test_parse_heading(text, venue, year):
    heading = parse_heading(text, 4)
    assert (heading.venue, heading.year, heading.line) == (venue, year, 4)


@pytest.mark.parametrize("text,expected", [
    ("12. Title", (".", 12, "Title")),
    ("[12] Title", ("[]", 12, "Title")),
    ("(12) Title", ("()", 12, "Title")),
    ("- Title", ("bullet", None, "Title")),
    ("• Title", ("bullet", None, "Title")),
    ("2D shapes", (None, None, "2D shapes")),
    ("3.5 million images", (None, None, "3.5 million images")),
])
def test_strip_number(text, expected):
    assert strip_number(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("Title: Foo", ("title", "Foo")),
    ("Authors: A, B", ("authors", "A, B")),
    ("摘要：我们", ("abstract", "我们")),
    ("Abstract:", ("abstract", "")),
    ("Titles are hard", (None, "Titles are hard")),
])
def test_strip_label(text, expected):
    assert strip_label(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("Theory · Learning Theory", ("Theory", "Learning Theory")),
    ("Theory › Learning Theory", ("Theory", "Learning Theory")),
    ("Theory -> Learning Theory", ("Theory", "Learning Theory")),
    ("Theory > Learning Theory", ("Theory", "Learning Theory")),
    ("Applications · Chemistry, Physics, and Earth Sciences", ("Applications", "Chemistry, Physics, and Earth Sciences")),
    ("We show that $x > 0$ holds for all inputs.", None),
    ("Learning Theory", None),
])
def test_parse_track(text, expected):
    assert parse_track(text) == expected


@pytest.mark.parametrize("text,names,et_al", [
    ("A. Smith, B. Jones, C. Wu", ("A. Smith", "B. Jones", "C. Wu"), False),
    ("A. Smith; B. Jones; C. Wu", ("A. Smith", "B. Jones", "C. Wu"), False),
    ("A. Smith, B. Jones and C. Wu", ("A. Smith", "B. Jones", "C. Wu"), False),
    ("A. Smith and B. Jones", ("A. Smith", "B. Jones"), False),
    ("Peiyan Hu, Zhi-Ming Ma 等", ("Peiyan Hu", "Zhi-Ming Ma"), True),
    ("Peiyan Hu, Zhi-Ming Ma et al.", ("Peiyan Hu", "Zhi-Ming Ma"), True),
    ("Peiyan Hu, Zhi-Ming Ma …", ("Peiyan Hu", "Zhi-Ming Ma"), True),
    ("Peiyan Hu, Zhi-Ming Ma, …", ("Peiyan Hu", "Zhi-Ming Ma"), True),
    # found by the third new-user pass: family names first, affiliation marks, commas inside an affiliation
    ("Smith, John; Doe, Jane; Roe, Richard", ("John Smith", "Jane Doe", "Richard Roe"), False),
    ("Ziwei Liu1,2, Hao Zhang2, Wei Chen1", ("Ziwei Liu", "Hao Zhang", "Wei Chen"), False),
    ("Wei Chen*, Ann Lee† and Bo Wu‡", ("Wei Chen", "Ann Lee", "Bo Wu"), False),
    ("Yang Liu (MIT, CSAIL), Jia Deng (Princeton University)", ("Yang Liu", "Jia Deng"), False),
    ("David Kim (MIT); Eve Müller (ETH Zürich)", ("David Kim", "Eve Müller"), False),
])
def test_split_authors(text, names, et_al):
    assert split_authors(text) == (names, et_al)


def test_page_words():
    assert page_words("PDF · Bibtex") == ("PDF", "Bibtex")
    assert page_words("Code") == ("Code",)
    assert page_words("Code is available online") is None


# --------------------------------------------------------------------------- decoding


def _seed_text() -> str:
    return ICML25.read_text(encoding="utf-8")


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "gb18030"])
def test_decode_encodings(encoding):
    text = _seed_text()
    assert decode_bytes(text.encode(encoding)) == text


@pytest.mark.parametrize("data,message", [
    (b"", "empty"),
    (b" \r\n\t\n", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "binary"),
    (bytes(range(1, 32)) * 20, "binary"),
    (b"ICLR 2025\n\n\xff\xfe\xfd\xff abstract", "neither UTF-8"),
    # a PDF saved as .txt (its bytes pass for GB18030 text; found by the third new-user pass)
    (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n", "is a PDF document, not a text list"),
    (b"PK\x03\x04\x14\x00\x06\x00\x08\x00word/document.xml", "is a zip archive"),
])
def test_decode_rejects(data, message):
    with pytest.raises(ReadError, match=message):
        decode_bytes(data)


@pytest.mark.parametrize("data", [b"\x00\x01\x02\x03binary\x00\xff\xfe\xfd" * 10])
def test_unreadable_file_is_an_error_diagnostic(tmp_path, data):  # (an empty file: test_reader_newuser.py)
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    result = read_list(path, "ICML", 2025)
    assert result.entries == []
    assert [d.level for d in result.diagnostics] == ["error"]
    assert str(result.diagnostics[0]).startswith(f"{path}: error: ")


def test_list_without_paper_is_an_error():
    result = read_text("ICLR 2025 Papers\n\nPDF\n", "x.txt")
    assert [d.level for d in result.diagnostics] == ["warning", "error"]
    assert "no paper" in result.diagnostics[-1].message


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_line_ends_do_not_matter(newline):
    text = _seed_text()
    plain = read_text(text, "x", "ICML", 2025)
    other = read_text(text.replace("\n", newline), "x", "ICML", 2025)
    assert other.entries == plain.entries


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "gb18030"]),
    pads=st.lists(st.sampled_from(["", " ", "\t", "\u00a0", "\u3000", "  "]), min_size=2, max_size=2),
    extra_blank=st.integers(min_value=0, max_value=3),
)
def test_noise_does_not_change_the_seed_reading(newline, encoding, pads, extra_blank):
    """Edge spaces on structure lines, blank-line runs, line ends and encodings leave every field unchanged."""
    text = _seed_text()
    plain = read_text(text, "x", "ICML", 2025).entries
    lines = text.split("\n")
    noisy = []
    for line in lines:
        is_structure = line and len(line) < 200
        noisy.append(pads[0] + line + pads[1] if is_structure else line)
        if not line:
            noisy += [""] * extra_blank
    data = newline.join(noisy).encode(encoding)
    got = read_text(decode_bytes(data), "x", "ICML", 2025).entries
    strip = [(e.title, e.authors, e.et_al, e.track, e.abstract) for e in plain]
    assert [(e.title, e.authors, e.et_al, e.track, e.abstract) for e in got] == strip


# --------------------------------------------------------------------------- layouts


CRAFTED = """NeurIPS 2024 Accepted Papers

1. Deep Sets for Everyone: A Study
Alice Smith, Bob Jones et al.
Abstract: We study sets. Our method works well on many benchmarks, and we explain why in detail here.
PDF · Bibtex

2. Graph Learning via Random Walks
Carol White; Dan Brown
We revisit graph learning. The new model is simple.

Second paragraph of the second abstract, which continues it.
Oral

3. Yet Another Title
Eve Black and Frank Green
Abstract:
Third abstract text, long enough to be a sentence. It has two sentences in total.
"""


def test_crafted_numbered_compact_list():
    result = read_text(CRAFTED, "c.txt")
    e = result.entries
    assert [x.number for x in e] == [1, 2, 3]
    assert e[0].title == "Deep Sets for Everyone: A Study"
    assert e[0].authors == ("Alice Smith", "Bob Jones") and e[0].et_al
    assert e[0].abstract.startswith("We study sets.")
    assert e[0].page_words == ("PDF", "Bibtex")
    assert e[1].authors == ("Carol White", "Dan Brown")
    assert e[1].abstract.endswith("\n\nSecond paragraph of the second abstract, which continues it.")
    assert e[1].status == "Oral"
    assert e[2].authors == ("Eve Black", "Frank Green")
    assert e[2].abstract.startswith("Third abstract text")
    assert all((x.venue, x.year) == ("NeurIPS", 2024) for x in e)
    assert_nothing_lost(result, CRAFTED)


def test_labels_in_chinese():
    text = ("ICML 2024 论文列表\n\n标题：A Title About Graphs\n作者：张三、李四 等\n摘要：This is the abstract. It has "
            "two sentences.\n\n标题：Another Title for Sets\n作者：王五\n摘要：Second abstract here. Also two "
            "sentences.\n")
    e = read_text(text, "z.txt").entries
    assert [x.title for x in e] == ["A Title About Graphs", "Another Title for Sets"]
    assert e[0].authors == ("张三", "李四") and e[0].et_al
    assert e[1].authors == ("王五",)
    assert e[1].abstract == "Second abstract here. Also two sentences."


# --------------------------------------------------------------------------- duplicates


def test_duplicate_in_one_list_is_one_paper_with_a_warning():
    text = _seed_text()
    lines = text.split("\n")
    doubled = "\n".join(lines + [""] + lines[2:7])  # the first paper again at the end
    result = read_text(doubled, "d.txt", "ICML", 2025)
    assert len(result.entries) == 20
    dup = [d for d in result.diagnostics if "same paper" in d.message]
    assert len(dup) == 1 and dup[0].level == "warning"
    assert dup[0].line == len(lines) + 2 and "d.txt:3" in dup[0].message


def test_duplicate_across_lists(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(ICLR.read_bytes())
    text = ICLR.read_text(encoding="utf-8").split("\n")
    b.write_text("\n".join(["ICLR 2025 Papers", "", text[4]]), encoding="utf-16")
    first, second = read_lists([a, b])
    assert len(first.entries) == 19 and second.entries == []
    (dup,) = second.diagnostics
    assert (dup.path, dup.line, dup.level) == (str(b), 3, "warning")
    assert "same paper" in dup.message and f"{a}:5" in dup.message


def test_merge_duplicates_fills_missing_fields():
    r1 = read_text("ICLR 2025\n\nSome abstract text that is long enough. Truly.\n", "a")
    r2 = read_text("ICLR 2025\n\nA Good Title Here\n\nAnn Lee, Bo Wu\n\nSome abstract text that is long enough. "
                   "Truly.\n", "b")
    merge_duplicates([r1, r2])
    assert r2.entries == []
    assert r1.entries[0].title == "A Good Title Here" and r1.entries[0].authors == ("Ann Lee", "Bo Wu")


# --------------------------------------------------------------------------- corpus round trip


def venue_year_lists(records: list[dict], size: int) -> list[list[dict]]:
    """``records`` grouped by venue-year, each group cut into lists of at most ``size`` of near-equal length (a
    group of 42 gives two lists of 21, not 40 and 2: lists of a few papers are no list a page shows)."""
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        groups.setdefault((r["venue"], r["year"]), []).append(r)
    lists = []
    for key in sorted(groups, key=str):
        group = groups[key]
        count = -(-len(group) // size)
        lists += [group[len(group) * k // count:len(group) * (k + 1) // count] for k in range(count)]
    return lists


@pytest.mark.parametrize("layout_name", [l.name for l in _roundtrip_module().LAYOUTS])
def test_corpus_roundtrip_sample(layout_name):
    """Real records (the sample's 565, in lists of 10 to 40 papers of one venue-year) written in every layout come
    back field for field (or are explained by a diagnostic). The share read exactly is of the abstracts of one
    paragraph: the sample holds abstracts of several paragraphs 8 times as often as the corpus (36 of 565, the
    corpus 86 of 10,448), and in lists of abstracts alone about half of those carry a diagnostic instead."""
    rc = _roundtrip_module()
    layout = next(l for l in rc.LAYOUTS if l.name == layout_name)
    records = rc.load(CORPUS)
    total = single = exact = unexplained = 0
    for i, chunk in enumerate(venue_year_lists(records, 40)):
        for record, entry, diffs, _, explained, _ in rc.roundtrip(chunk, layout, seed=i):
            total += 1
            one_paragraph = len(re.split(r"\n[ \t]*\n", record["abstract"].replace("\r\n", "\n").strip())) == 1
            single += one_paragraph
            exact += one_paragraph and not diffs
            if diffs and not explained:
                # With abstracts alone, a further paragraph is told from the next paper by statistical
                # evidence (site_builder/read/continuation.py), fitted on lists of 60, not these lists of 40.
                paragraphs = re.split(r"\n[ \t]*\n", record["abstract"].replace("\r\n", "\n").strip())
                assert layout.title is False and layout.authors is False and len(paragraphs) > 1, \
                    (record["title"], diffs)
                unexplained += 1
    assert total >= 500
    assert exact / single >= (0.97 if not (layout.title or layout.authors) else 0.99), (exact, single)
    assert unexplained <= total * 0.02, unexplained


# --------------------------------------------------------------------------- more layouts and configs


def test_read_lists_takes_a_config_per_file(tmp_path):
    a = tmp_path / "a.txt"
    a.write_bytes(ICML25.read_bytes())
    (result,) = read_lists([(a, "ICML", 2025)])
    assert len(result.entries) == 20 and not result.diagnostics
    (bare,) = read_lists([a])
    assert [d.level for d in bare.diagnostics] == ["error"]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_mostly_chinese(encoding):
    text = "ICML 2024 论文列表\n\n我们提出一种新的方法。实验表明它有效，并且在多个基准上优于现有方法。\n"
    assert decode_bytes(text.encode(encoding)) == text


def test_short_paragraph_after_abstract_in_numbered_list_continues_it():
    text = ("CoRL 2024\n\n1. A Title for Robots\nAnn Lee, Bo Wu\nWe study robots. They move in the world and we "
            "learn policies for them here.\n\nProject website: https://example.org/robots\n\n2. Second Title Here\n"
            "Cy Do\nAnother abstract. It has two sentences, both long enough to be prose.\n")
    result = read_text(text, "n.txt")
    first, second = result.entries
    assert first.abstract.endswith("for them here.\n\nProject website: https://example.org/robots")
    assert second.title == "Second Title Here" and second.authors == ("Cy Do",)
    assert not result.diagnostics
    assert_nothing_lost(result, text)


def test_entry_without_abstract_is_reported_not_dropped():
    text = ("ICLR 2025 Papers\n\nA Title About Learning\n\nAnn Lee, Bo Wu\n\nThe abstract text here. It has two "
            "sentences for sure.\n\nA Lonely Title With No Abstract\n\nCy Do, Di Ma\n")
    result = read_text(text, "l.txt")
    assert len(result.entries) == 1
    (warning,) = result.diagnostics
    assert warning.line == 9 and "no abstract" in warning.message and "Lonely Title" in warning.message
    assert_nothing_lost(result, text)


def test_labels_with_the_value_on_the_next_line():
    text = ("ACL 2022 Long Papers\n\nTitle:\nA Title About Parsing\nAuthors:\nAnn Lee; Bo Wu\nAbstract:\nWe parse "
            "sentences. It works well and fast on many languages.\n\nTitle:\nSecond Title on Parsing\nAuthors:\n"
            "Cy Do\nAbstract:\nAnother abstract here. It has two sentences.\n")
    result = read_text(text, "t.txt")
    assert [(e.title, e.authors) for e in result.entries] == [
        ("A Title About Parsing", ("Ann Lee", "Bo Wu")), ("Second Title on Parsing", ("Cy Do",))]
    assert result.entries[1].abstract == "Another abstract here. It has two sentences."
    assert not result.diagnostics


MESSY = """# CoRL 2024 Papers\t

[1]  Learning to Walk Fast
\u00a0Ann Lee, Bo Wu, Cy Do …
Oral
We learn to walk. It is fast and robust across terrains, as experiments show in detail.
PDF | Code | Bibtex

[2] Grasping Anything
Di Ma and Ed Yu
Robotics › Manipulation
Grasping is hard. We propose a method that grasps anything in clutter.


[3]
Eve Su
Abstract: Third paper abstract. Two sentences here for prose.
Spotlight
"""


def test_messy_list_any_field_order_and_lone_label():
    result = read_text(MESSY, "m.txt")
    first, second, third = result.entries
    assert (first.title, first.authors, first.et_al, first.status) == (
        "Learning to Walk Fast", ("Ann Lee", "Bo Wu", "Cy Do"), True, "Oral")
    assert first.page_words == ("PDF", "Code", "Bibtex")
    assert (second.title, second.authors, second.track) == (
        "Grasping Anything", ("Di Ma", "Ed Yu"), ("Robotics", "Manipulation"))
    assert second.abstract == "Grasping is hard. We propose a method that grasps anything in clutter."
    assert third.abstract == "Third paper abstract. Two sentences here for prose." and third.status == "Spotlight"
    assert [d.line for d in result.diagnostics] == [17]
    assert_nothing_lost(result, MESSY)


def test_numbered_papers_without_blank_lines_between_them(tmp_path):
    text = ("NeurIPS 2024 Accepted Papers\n"
            "1. Paper One: Graphs at Scale\nAna Perez, Jian Li\n"
            "We scale graph transformers to billions of edges with a sparse attention scheme and show strong "
            "results on five benchmarks.\n"
            "2. Paper Two: Attention Everywhere\nBo Li, Chen Wang\n"
            "We revisit attention for tabular data and find that simple changes give large gains on twenty "
            "datasets of varied sizes.\n")
    result = read_text(text, "n.txt")
    assert [(e.number, e.title, e.authors) for e in result.entries] == [
        (1, "Paper One: Graphs at Scale", ("Ana Perez", "Jian Li")),
        (2, "Paper Two: Attention Everywhere", ("Bo Li", "Chen Wang")),
    ]
    assert result.entries[1].abstract.startswith("We revisit attention")


def test_bytes_that_are_not_utf8_are_an_error_at_their_line_and_column(tmp_path):
    """A seed list with two stray bytes pasted into line 7 (neither UTF-8 nor GB18030 then): the error
    names that line, the byte and its column, so the curator can find it in a 25 kB file."""
    lines = _seed_text().encode("utf-8").split(b"\n")
    lines[6] = lines[6][:5] + b"\xff\xfe" + lines[6][5:]
    path = tmp_path / "bad.txt"
    path.write_bytes(b"\n".join(lines))
    result = read_list(path, "ICML", 2025)
    assert result.entries == [] and [d.level for d in result.diagnostics] == ["error"]
    assert str(result.diagnostics[0]).startswith(f"{path}:7: error: the file is neither UTF-8, UTF-16 nor GB18030")
    assert "byte 0xFF at column 6 is not UTF-8" in result.diagnostics[0].message
