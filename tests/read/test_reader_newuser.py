"""Reader and config tests from a new user's hand-made lists of real corpus abstracts (issue 3):
unnumbered papers among numbered ones, explicit titles after an abstract, bare ``Abstract``
lines, ``TL;DR:`` lines, list markers in titles, affiliations in author lines, duplicate
papers with conflicting venues, cut-off UTF-16 files and typos in ``site.toml``; and from the
second pass: abstracts hard-wrapped under title and author lines, near-identical papers in a list
of abstracts alone, a stray line under a track line, and list files that hold no papers.

Every list is written from real corpus records; each test checks every paper's fields
and the diagnostics."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from site_builder.config import ConfigError, load_config
from site_builder.read.plaintext import read_list, read_lists, read_text
from test_reader import CORPUS, ICLR, ICML25, ROOT, assert_nothing_lost


def _corpus(n: int = 400) -> list[dict]:
    """The first ``n`` corpus records with a one-paragraph abstract, a title and 2+ authors."""
    out = []
    with open(CORPUS, encoding="utf-8") as handle:
        for line in handle:
            r = json.loads(line)
            if "\n" not in r["abstract"].strip() and r.get("title") and len(r.get("authors") or []) >= 2 \
                    and len(r["abstract"]) > 300:
                out.append(r)
            if len(out) >= n:
                break
    return out


RECORDS = _corpus()


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _assert_papers(result, records, titles=None):
    """Every paper in ``result`` has the record's title, authors and abstract, in order."""
    assert len(result.entries) == len(records), [e.title for e in result.entries]
    for k, (entry, record) in enumerate(zip(result.entries, records)):
        title = record["title"] if titles is None or titles[k] is True else titles[k]
        if title is None:
            assert entry.title is None, entry.title
        else:
            assert entry.title == record["title"], (k, entry.title)
        assert list(entry.authors) == list(record["authors"][:3]), (k, entry.authors)
        assert _flat(entry.abstract) == _flat(record["abstract"]), (k, entry.abstract[:80])


def _authors(r: dict) -> str:
    return ", ".join(r["authors"][:3])


# --------------------------------------------------------------------------- 1. papers never merged


def test_unnumbered_entries_before_numbered_ones_are_papers():
    """Five title/authors/abstract entries separated by blank lines, then numbered ones
    (``12.``…): each is its own paper, no "missing number" warning."""
    rs = RECORDS[:8]
    parts = ["Accepted Papers — ICML 2024", ""]
    for r in rs[:5]:
        parts += [r["title"], _authors(r), r["abstract"], ""]
    for n, r in enumerate(rs[5:], 12):
        parts += [f"{n}. {r['title']}", _authors(r), r["abstract"], ""]
    text = "\n".join(parts)
    result = read_text(text, "l.txt")
    _assert_papers(result, rs)
    assert [e.line for e in result.entries] == [3 + 4 * k for k in range(8)]
    assert all((e.venue, e.year) == ("ICML", 2024) for e in result.entries)
    assert result.diagnostics == []
    assert_nothing_lost(result, text)


def test_title_only_block_among_numbered_entries_is_a_paper():
    """An unnumbered title line directly above its abstract (no author line), between numbered papers."""
    a, b, c = RECORDS[10:13]
    text = (f"ICML 2024 Papers\n\n1. {a['title']}\n{_authors(a)}\n{a['abstract']}\n\n"
            f"{b['title']}\n{b['abstract']}\n\n2. {c['title']}\n{_authors(c)}\n{c['abstract']}\n")
    result = read_text(text, "l.txt")
    assert [e.title for e in result.entries] == [a["title"], b["title"], c["title"]]
    assert [list(e.authors) for e in result.entries] == [a["authors"][:3], [], c["authors"][:3]]
    assert [_flat(e.abstract) for e in result.entries] == [_flat(r["abstract"]) for r in (a, b, c)]
    assert result.diagnostics == []


def test_labelled_entry_after_a_numbered_one_is_a_paper():
    """``2) Title`` / ``A · B`` / abstract / ``PDF`` / blank / ``标题：…`` / ``作者：…`` / ``摘要：`` /
    blank / abstract: two papers, the second keeping its explicit title (not a derived one)."""
    a, b, c = RECORDS[20:23]
    text = (f"NeurIPS 2024 Accepted Papers (Main Track)\n\n"
            f"1) {c['title']}\nAuthors: {_authors(c)}\nAbstract:\n{c['abstract']}\n[PDF] [Code]\n\n"
            f"2) {a['title']}\n{' · '.join(a['authors'][:3])}\n{a['abstract']}\nPDF\n\n"
            f"标题：{b['title']}\n作者：{'、'.join(b['authors'][:3])}\n摘要：\n\n{b['abstract']}\n\nSpotlight\n")
    result = read_text(text, "l.txt")
    _assert_papers(result, [c, a, b])
    assert result.entries[2].status == "Spotlight"
    assert result.diagnostics == []
    assert_nothing_lost(result, text)


def test_title_label_after_abstract_opens_a_paper_in_an_english_labelled_list():
    a, b = RECORDS[30:32]
    text = (f"ICLR 2025 Papers\n\nAuthors: {_authors(a)}\nTitle: {a['title']}\nAbstract: {a['abstract']}\n\n"
            f"Title: {b['title']}\nAuthors: {_authors(b)}\nAbstract: {b['abstract']}\n")
    result = read_text(text, "l.txt")
    _assert_papers(result, [a, b])
    assert result.diagnostics == []


# --------------------------------------------------------------------------- 3. labels never glued


def test_bare_abstract_line_is_a_label_and_tldr_is_left_out_with_a_warning():
    a, b, c = RECORDS[40:43]
    text = (f"ICML 2024 Papers\n\n1. {a['title']}\n{_authors(a)}\nAbstract\n\n{a['abstract']}\n\n"
            f"2. {b['title']}\n{_authors(b)}\nKeywords: graph learning, robustness\nTL;DR: We do a thing.\n"
            f"Abstract: {b['abstract']}\n\n"
            f"3. {c['title']}\n{_authors(c)}\nABSTRACT\n{c['abstract']}\n")
    result = read_text(text, "l.txt")
    _assert_papers(result, [a, b, c])
    assert result.entries[1].keywords == ("graph learning", "robustness")
    assert [str(d) for d in result.diagnostics] == [
        "l.txt:12: warning: TL;DR line 'We do a thing.' left out: a paper has no TL;DR field, "
        "and it is not part of the abstract"]
    assert_nothing_lost(result, text)


# --------------------------------------------------------------------------- 4. markers


def test_list_markers_and_emphasis_are_not_part_of_titles():
    rs = RECORDS[50:55]
    marks = ["1) ", "• ", "* ", "#7 ", ""]
    parts = ["NeurIPS 2024 Accepted Papers", ""]
    for mark, r in zip(marks, rs):
        title = f"**{r['title']}**" if not mark else mark + r["title"]
        parts += [title, _authors(r), r["abstract"], "Poster", ""]
    text = "\n".join(parts)
    result = read_text(text, "l.txt")
    _assert_papers(result, rs)
    assert all(e.status == "Poster" for e in result.entries)
    assert result.diagnostics == []


@pytest.mark.parametrize("marks", [["- "] * 4, ["• "] * 4, ["* "] * 4, ["1. ", "5. ", "12. ", "13. "],
                                   ["[2] ", "[4] ", "[9] ", "[10] "]])
def test_bulleted_or_skipping_numbered_papers_without_blank_lines_are_never_merged(marks):
    """(found by a new-user pass: such a list gave one paper holding the others as its abstract, silently)"""
    rs = RECORDS[70:74]
    lines = ["ICML 2024 Papers", ""]
    for mark, r in zip(marks, rs):
        lines += [mark + r["title"], _authors(r), r["abstract"]]
    result = read_text("\n".join(lines) + "\n", "l.txt")
    _assert_papers(result, rs)


@pytest.mark.parametrize("mark, inner", [("• ", ["• We propose a new sampler.", "• We show it is fast."]),
                                         ("- ", ["- We propose X.", "- We show Y."]),
                                         ("1. ", ["1. We propose X.", "2. We show Y."])])
def test_an_abstract_s_own_bullets_or_numbers_stay_in_it(mark, inner):
    """(found by the second new-user pass: such lines became papers of their own, or the next paper's track)"""
    a, b, c = RECORDS[80:83]
    marks = [mark, mark, mark] if mark != "1. " else ["1. ", "2. ", "3. "]
    text = "ICML 2024 Papers\n\n" + "\n".join(
        [marks[0] + a["title"], _authors(a), a["abstract"] + " Our contributions:", *inner,
         marks[1] + b["title"], _authors(b), b["abstract"], marks[2] + c["title"], _authors(c), c["abstract"]]) + "\n"
    result = read_text(text, "l.txt")
    assert [e.title for e in result.entries] == [a["title"], b["title"], c["title"]]
    assert result.entries[0].abstract.endswith("Our contributions:\n" + "\n".join(inner))
    assert [e.track for e in result.entries] == [(), (), ()] or all(not e.track for e in result.entries)
    assert result.diagnostics == []


# --------------------------------------------------------------------------- 9. affiliations


def test_trailing_affiliations_are_not_part_of_author_names():
    a, b = RECORDS[60:62]
    text = (f"ICML 2024 Papers\n\n{a['title']}\n"
            + ", ".join(f"{n} ({u})" for n, u in zip(a["authors"][:3], ["MIT", "CMU", "Tsinghua University"]))
            + f"\n{a['abstract']}\n\n{b['title']}\n"
            + "; ".join(f"{n}（清华大学）" for n in b["authors"][:3]) + f"\n{b['abstract']}\n")
    result = read_text(text, "l.txt")
    _assert_papers(result, [a, b])
    assert result.diagnostics == []


# --------------------------------------------------------------------------- 7. duplicates


def test_duplicate_with_another_venue_names_the_conflict(tmp_path):
    a, b = RECORDS[70:72]
    (tmp_path / "a.txt").write_text(f"ICML 2024 Papers\n\n{a['title']}\n{_authors(a)}\n{a['abstract']}\n\n"
                                    f"{b['title']}\n{_authors(b)}\n{b['abstract']}\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text(f"ICLR 2025 Papers\n\n{b['title']}\n{_authors(b)}\n{b['abstract']}\n",
                                    encoding="utf-8")
    first, second = read_lists([tmp_path / "a.txt", tmp_path / "b.txt"])
    _assert_papers(first, [a, b])
    assert second.entries == []
    assert [(e.venue, e.year) for e in first.entries] == [("ICML", 2024), ("ICML", 2024)]
    assert [d.message for d in second.diagnostics] == [
        f"the same paper as {tmp_path / 'a.txt'}:7 ('{b['title'][:39]}…'); read once, but the lists disagree on "
        f"its venue: ICLR 2025 here, ICML 2024 there; keeping ICML 2024"]


# --------------------------------------------------------------------------- 8. cut-off UTF-16


def test_cut_off_utf16_file_says_so(tmp_path):
    a = RECORDS[80]
    data = f"ICML 2024 Papers\n\n{a['title']}\n{a['abstract']}\n".encode("utf-16")
    path = tmp_path / "cut.txt"
    path.write_bytes(data[:-1])
    result = read_list(path)
    assert result.entries == []
    assert [str(d) for d in result.diagnostics] == [
        f"{path}: error: the file is UTF-16 text (UTF-16-LE) with an odd number of bytes (cut off?)"]


# --------------------------------------------------------------------------- 5, 6. config


@pytest.mark.parametrize("toml, line, message", [
    ('titel = "X"\n', 1, "unknown key 'titel' in the top level"),
    ('title = "X"\n[list."x.txt"]\nvenue = "ICML"\n', 2, "unknown table 'list' in the top level"),
    ('title = "X"\n[lists."x.txt"]\nvenu = "COLM"\nyear = 2025\n', 3, "unknown key 'venu' in [lists.x.txt]"),
    ('[default]\nvenue = "COLM"\nyaer = 2025\n', 3, "unknown key 'yaer' in [default]"),
    ('title = "X\n', "1:11", "not valid TOML: Illegal character"),
    ('title = "X"\n\n[default]\nvenue = "COLM"\nyear = "2025"\n', 5, "[default]: year must be an integer year"),
    ('[lists."a.txt"]\nyear = 2024\nvenue = ""\n', 3, "[lists.'a.txt']: venue must be a non-empty string"),
    ('[lists]\n"a.txt" = 5\n', 2, "[lists.'a.txt']: expected a table with venue and year"),
    ('description = "d"\ntitle = 3\n', 2, "title must be a string"),
])
def test_config_typos_are_errors_at_their_line(tmp_path, toml, line, message):
    path = tmp_path / "site.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}:{line}: error: {message}")


@pytest.mark.parametrize("data, where", [(b'title = "X"\nsubtitle = "\xff\xfe"\n', "2:13"),
                                         (b'\xef\xbb\xbftitle = "\xe9t\xe9"\n', "1:10")])
def test_a_config_that_is_not_utf8_is_an_error_at_its_line(tmp_path, data, where):
    """(found by the third new-user pass: the message named no line) the line and column of the first byte that is
    not UTF-8 (in bytes, after a byte-order mark, as an editor counts them)."""
    path = tmp_path / "site.toml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}:{where}: error: not UTF-8 text (byte 0x")


def _build(tmp_path, toml: str, lists: dict[str, str]) -> subprocess.CompletedProcess:
    seeds = tmp_path / "seeds"
    seeds.mkdir(exist_ok=True)
    for name, text in lists.items():
        (seeds / name).write_text(text, encoding="utf-8")
    (tmp_path / "site.toml").write_text(toml, encoding="utf-8")
    return subprocess.run([sys.executable, str(ROOT / "build.py"), "--seeds", str(seeds), "--config",
                           str(tmp_path / "site.toml"), "--out", str(tmp_path / "out"), "--no-cache", "-q"],
                          cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin"})


def test_config_typo_exits_2_with_one_diagnostic(tmp_path):
    a = RECORDS[90]
    run = _build(tmp_path, 'title = "Mine"\n[lists."a.txt"]\nvenu = "COLM"\n',
                 {"a.txt": f"论文检索\n\n{a['title']}\n{a['abstract']}\n"})
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        f"{tmp_path / 'site.toml'}:3: error: unknown key 'venu' in [lists.a.txt] (known: venue, year, reference); "
        f"did you mean 'venue'?"]
    assert not (tmp_path / "out").exists()


def test_default_venue_is_silent_for_headings_naming_theirs_and_unused_lists_entry_warns(tmp_path):
    a, b, c = RECORDS[91:94]
    toml = 'title = "Mine"\n[default]\nvenue = "COLM"\nyear = 2025\n[lists."gone.txt"]\nvenue = "ICML"\nyear = 2024\n' \
           '[lists."c.txt"]\nvenue = "ICLR"\nyear = 2025\n'
    run = _build(tmp_path, toml, {
        "a.txt": f"NeurIPS 2024 Accepted Papers\n\n{a['title']}\n{_authors(a)}\n{a['abstract']}\n",
        "b.txt": f"论文检索\n\n{b['title']}\n{_authors(b)}\n{b['abstract']}\n",
        "c.txt": f"NeurIPS 2024 Accepted Papers\n\n{c['title']}\n{_authors(c)}\n{c['abstract']}\n"})
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [
        f"{tmp_path / 'site.toml'}:5: warning: [lists.\"gone.txt\"] names no list file in the lists folder; "
        f"it is not used",
        f"{tmp_path / 'seeds' / 'c.txt'}:1: warning: the heading names NeurIPS but the config gives ICLR; using NeurIPS",
        f"{tmp_path / 'seeds' / 'c.txt'}:1: warning: the heading names the year 2024 but the config gives 2025; "
        f"using 2024"]
    papers = {p["title"]: p for p in json.loads((tmp_path / "out" / "papers.json").read_text(encoding="utf-8"))}
    assert [(papers[r["title"]]["venue"], papers[r["title"]]["year"]) for r in (a, b, c)] == [
        ("NeurIPS", 2024), ("COLM", 2025), ("NeurIPS", 2024)]


def test_sentence_opening_a_paragraph_in_a_compact_numbered_list_is_not_an_unnumbered_paper():
    """In a compact ``(n)`` list, the corpus abstract of INPC has a paragraph opening with a short
    sentence line ("Our method achieves … benchmarks.") above a longer one: it stays in the abstract,
    and the ``Oral`` after it stays the paper's status (the round-trip list holding it, read whole: the
    sample's 3DV 2025 papers)."""
    from test_reader import _roundtrip_module
    rc = _roundtrip_module()
    layout = next(l for l in rc.LAYOUTS if l.name == "numbered-paren-compact")
    (chunk,) = [c for c in rc.chunks(rc.load(CORPUS), 60)
                if any(r["title"].startswith("INPC: Implicit Neural Point Clouds") for r in c)]
    rows = list(rc.roundtrip(chunk, layout, seed=1))
    assert len(rows) == len(chunk)
    assert [(record["title"], diffs) for record, _, diffs, *_ in rows if diffs] == []
    assert all(entry is not None for _, entry, *_ in rows)


# --------------------------------------------------------------------------- second new-user pass

ICLR_TEXT = ICLR.read_text(encoding="utf-8")  # abstracts alone
ICML25_TEXT = ICML25.read_text(encoding="utf-8")  # track / authors / abstract, each a block


def _records_titled(*titles: str) -> list[dict]:
    """The corpus records with these titles, in this order."""
    wanted = {t: None for t in titles}
    with open(CORPUS, encoding="utf-8") as handle:
        for line in handle:
            r = json.loads(line)
            if r.get("title") in wanted and wanted[r["title"]] is None:
                wanted[r["title"]] = r
    assert all(wanted.values()), [t for t, r in wanted.items() if r is None]
    return [wanted[t] for t in titles]


def _wrapped_list(records: list[dict], width: int = 80) -> tuple[str, list[str]]:
    """Title, all authors and the abstract hard-wrapped at ``width`` columns in one block per paper
    (papers separated by a blank line); returns the text and each paper's abstract as written."""
    import textwrap
    parts, abstracts = ["ICLR 2025 Papers", ""], []
    for r in records:
        wrapped = textwrap.wrap(r["abstract"], width)
        abstracts.append("\n".join(wrapped))
        parts += [r["title"], ", ".join(r["authors"]), *wrapped, ""]
    return "\n".join(parts), abstracts


WRAPPED_SIX = ("A Targeted Accuracy Diagnostic for Variational Approximations",
               "A Tighter Problem-Dependent Regret Bound for Risk-Sensitive Reinforcement Learning",
               "A Unified Perspective on Regularization and Perturbation in Differentiable Subset Selection",
               "A Variance-Reduced and Stabilized Proximal Stochastic Gradient Method with Support Identification "
               "Guarantees for Structured Optimization",
               "A principled framework for the design and analysis of token algorithms",
               "A stopping criterion for Bayesian optimization by the gap of expected minimum simple regrets")


@pytest.mark.parametrize("width", [80, 72])
def test_hard_wrapped_abstracts_under_title_and_authors_are_every_paper(width):
    """Six papers, each a title line, an author line and an abstract hard-wrapped at ~80 columns in one
    block: six papers with their fields, the abstract as written (line breaks kept), and no warning. The
    fifth has one author under a title in sentence case; it was read into the fourth's abstract
    (and before the fix each wrapped line was a title/author candidate, so 6 papers read as 5)."""
    records = _records_titled(*WRAPPED_SIX)
    text, abstracts = _wrapped_list(records, width)
    result = read_text(text, "wrapped.txt")
    assert [e.title for e in result.entries] == [r["title"] for r in records]
    assert [list(e.authors) for e in result.entries] == [r["authors"] for r in records]
    assert [e.abstract for e in result.entries] == abstracts
    assert result.diagnostics == []
    assert_nothing_lost(result, text)


def test_hard_wrapped_abstracts_of_a_larger_list_are_every_paper():
    """60 corpus papers (the corpus order, whatever their title case or number of authors) written so:
    every paper is read with its fields (before the fix, papers went into the abstract above or were cut
    mid-abstract, several without a warning)."""
    with open(CORPUS, encoding="utf-8") as handle:
        records = [r for r in map(json.loads, handle) if r.get("title") and r.get("authors")
                   and "\n" not in r["abstract"].strip()][:60]
    text, abstracts = _wrapped_list(records)
    result = read_text(text, "wrapped.txt")
    assert [(e.title, list(e.authors), e.abstract) for e in result.entries] == \
        [(r["title"], r["authors"], a) for r, a in zip(records, abstracts)]
    assert result.diagnostics == []


ANIMALS = ("cats", "dogs", "horses", "sheep", "goats", "rabbits", "ferrets")
TEMPLATE = ("We present a large-scale dataset of {} videos recorded in natural environments, annotated with behaviour "
            "labels. We train a transformer model on it and show that it recognises the behaviour of {} more "
            "accurately than previous methods.")


def test_near_identical_papers_appended_to_a_list_of_abstracts_are_papers():
    """Seven papers written from one template (only the animal differs) appended to the ICLR list of
    abstracts alone: seven papers (they were read as one abstract of seven paragraphs), no warning
    between them; the same paragraph listed twice is still one paper, with the duplicate warning."""
    base = ICLR_TEXT.rstrip("\n")
    before = read_text(base, "l.txt")
    added = [TEMPLATE.format(a, a) for a in ANIMALS]
    text = base + "\n\n" + "\n\n".join(added) + "\n"
    result = read_text(text, "l.txt")
    assert len(result.entries) == len(before.entries) + 7
    assert [e.abstract for e in result.entries[-7:]] == added
    first = result.entries[-7].line
    assert [d for d in result.diagnostics if d.line > first] == []
    assert_nothing_lost(result, text)

    twice = base + "\n\n" + added[0] + "\n\n" + added[0] + "\n"
    result = read_text(twice, "l.txt")
    assert len(result.entries) == len(before.entries) + 1 and result.entries[-1].abstract == added[0]
    line = len(base.split("\n")) + 4
    assert [str(d) for d in result.diagnostics if d.line == line] == [
        f"l.txt:{line}: warning: the same paper as l.txt:{line - 2} ('We present a large-scale dataset of cat…'); "
        f"read once"]


@pytest.mark.parametrize("junk", ["xyz", "Page 3", "12"])
def test_stray_line_after_a_track_line_keeps_the_track_and_is_named(junk):
    """In the track / authors / abstract layout of seeds/003, a stray line right under a track line: the
    paper keeps its track and authors, no paper is added or lost, and a warning names the stray line
    (it was silently read as a further paragraph of the abstract above, or as a paper of its own)."""
    lines = ICML25_TEXT.split("\n")
    assert lines[8] == "Deep Learning · Foundation Models"
    before = read_text(ICML25_TEXT, "003.txt", "ICML", 2025)
    text = "\n".join(lines[:9] + [junk] + lines[9:])
    result = read_text(text, "003.txt", "ICML", 2025)
    assert len(result.entries) == len(before.entries)
    entry = result.entries[1]
    assert (entry.track, entry.authors, entry.abstract) == (before.entries[1].track, before.entries[1].authors,
                                                            before.entries[1].abstract)
    assert result.entries[0].abstract == before.entries[0].abstract
    assert any(d.line == 10 and repr(junk) in d.message and d.level == "warning" for d in result.diagnostics), \
        result.diagnostics
    assert_nothing_lost(result, text)


@pytest.mark.parametrize("data,line,why", [
    (b"", 0, "it is empty or white space only"),
    (b" \r\n\t\n\n", 0, "it is empty or white space only"),
    ("\ufeff\u3000\n".encode("utf-16"), 0, "it is empty or white space only"),
    (b"ICLR 2025 Papers\n\n", 1, "only its heading 'ICLR 2025 Papers'"),
])
def test_list_without_papers_is_a_warning_and_the_others_are_read(tmp_path, data, line, why):
    """An empty, white-space-only or heading-only list file: one warning naming the file ("holds no
    papers"), no error, and the other lists read as without it (it was an error at line 0, which
    stopped the build)."""
    a = RECORDS[95]
    (tmp_path / "a.txt").write_text(f"ICLR 2025 Papers\n\n{a['title']}\n{_authors(a)}\n{a['abstract']}\n",
                                    encoding="utf-8")
    (tmp_path / "b.txt").write_bytes(data)
    results = read_lists([tmp_path / "a.txt", tmp_path / "b.txt"], "ICML", 2025)
    assert [len(r.entries) for r in results] == [1, 0]
    assert results[0].diagnostics == []
    assert [str(d) for d in results[1].diagnostics] == [
        f"{tmp_path / 'b.txt'}{f':{line}' if line else ''}: warning: the file holds no papers ({why}); the other "
        "lists are built without it"]


def test_build_with_an_empty_list_builds_the_others(tmp_path):
    a = RECORDS[96]
    run = _build(tmp_path, 'title = "Mine"\n', {
        "a.txt": f"ICLR 2025 Papers\n\n{a['title']}\n{_authors(a)}\n{a['abstract']}\n", "b.txt": "\n  \n"})
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines() == [
        f"{tmp_path / 'seeds' / 'b.txt'}: warning: the file holds no papers (it is empty or white space only); "
        f"the other lists are built without it"]
    papers = json.loads((tmp_path / "out" / "papers.json").read_text(encoding="utf-8"))
    assert [p["title"] for p in papers] == [a["title"]]


def test_build_whose_lists_hold_no_paper_is_an_error_and_keeps_the_site(tmp_path):
    """Every list empty (e.g. the only list emptied by mistake): an error, exit 1, and the site built before kept
    as it was, not replaced by a site of no papers."""
    a = RECORDS[96]
    first = _build(tmp_path, 'title = "Mine"\n', {"a.txt": f"ICLR 2025 Papers\n\n{a['title']}\n{_authors(a)}\n"
                                                           f"{a['abstract']}\n"})
    assert first.returncode == 0, first.stderr
    before = (tmp_path / "out" / "papers.json").read_bytes()
    run = _build(tmp_path, 'title = "Mine"\n', {"a.txt": "ICLR 2025 Papers\n\n"})
    assert run.returncode == 1
    assert f"{tmp_path / 'seeds'}: error: no list holds a paper" in run.stderr
    assert (tmp_path / "out" / "papers.json").read_bytes() == before


@pytest.mark.parametrize("talk", [("Keynote: The Future of Learning Machines", "Yann Example"),
                                  ("Invited Talk: Robots in the Wild", "Maria Rossi, Kenji Sato")])
def test_title_and_author_block_without_abstract_is_left_out_and_the_next_paper_kept(talk):
    """Title / authors / abstract papers with a talk's title and speaker block (no abstract) between two of
    them: the talk is reported and left out, and the paper below it keeps its own title, authors and abstract
    (it was read as the talk's abstract, its title as a track and its authors as abstract text)."""
    papers = RECORDS[:4]
    blocks = [f"{r['title']}\n{', '.join(r['authors'])}\n{r['abstract'].strip()}" for r in papers]
    blocks.insert(2, "\n".join(talk))
    text = "ICML 2025 Papers\n\n" + "\n\n".join(blocks) + "\n"
    result = read_text(text, "l.txt")
    assert [(e.title, list(e.authors), e.abstract) for e in result.entries] == \
        [(r["title"], r["authors"], r["abstract"].strip()) for r in papers]
    talk_line = text.split("\n").index(talk[0]) + 1
    assert [str(d) for d in result.diagnostics] == [
        f"l.txt:{talk_line}: warning: lines {talk_line}-{talk_line + 1} have no abstract, so they are not read as a "
        f"paper: '{talk[0]}'; '{talk[1]}'"]
    assert_nothing_lost(result, text)


@pytest.mark.parametrize("authors", [2, 1])
def test_a_paper_with_another_bullet_in_a_run_of_bulleted_papers_is_its_own_paper(authors):
    """``•`` papers (bullet, title / authors / abstract, no blank lines) with one ``-`` paper among them: four
    papers with their own fields (the ``-`` paper was read into the abstract above it, silently), with a
    several-name author line and with one author above the abstract; an abstract's own ``- We show X.`` bullet
    stays in it."""
    papers = RECORDS[4:8]
    names = [r["authors"][:authors] for r in papers]
    lines = ["NeurIPS 2023 Papers"]
    for k, (r, who) in enumerate(zip(papers, names)):
        lines += [("- " if k == 2 else "• ") + r["title"], ", ".join(who), r["abstract"].strip()]
    lines.insert(4, "- We show that the bound is tight.")
    text = "\n".join(lines) + "\n"
    result = read_text(text, "l.txt")
    abstracts = [r["abstract"].strip() for r in papers]
    abstracts[0] += "\n- We show that the bound is tight."
    assert [(e.title, list(e.authors), e.abstract) for e in result.entries] == \
        [(r["title"], who, a) for r, who, a in zip(papers, names, abstracts)]
    assert_nothing_lost(result, text)


def test_openreview_primary_area_under_the_abstract_is_the_track_of_the_paper_above():
    """OpenReview's layout (title, authors, ``Abstract:``, then ``Primary Area:`` under it): each paper keeps its
    own area as its track (the area went to the next paper and the last one's was reported as a paper without
    abstract); a list whose ``Track:`` lines open the papers, after a blank line, the first paper without one,
    still gives each track to the paper below it."""
    papers = RECORDS[8:11]
    areas = ["representation learning for computer vision", "reinforcement learning", "optimization"]
    blocks = [f"{r['title']}\n{', '.join(r['authors'])}\nAbstract: {r['abstract'].strip()}\nPrimary Area: {a}"
              for r, a in zip(papers, areas)]
    text = "ICLR 2025 Conference Submissions\n\n" + "\n\n".join(blocks) + "\n"
    result = read_text(text, "l.txt")
    assert [(e.title, list(e.authors), e.track, e.abstract) for e in result.entries] == \
        [(r["title"], r["authors"], (a,), r["abstract"].strip()) for r, a in zip(papers, areas)]
    assert result.diagnostics == []
    assert_nothing_lost(result, text)

    blocks = [f"{r['title']}\n{', '.join(r['authors'])}\n{r['abstract'].strip()}" for r in papers]
    text = "ICLR 2025 Papers\n\n" + blocks[0] + "".join(f"\n\nTrack: {a}\n{b}" for a, b in zip(areas[1:], blocks[1:]))
    result = read_text(text + "\n", "l.txt")
    assert [(e.title, e.track) for e in result.entries] == \
        [(papers[0]["title"], ())] + [(r["title"], (a,)) for r, a in zip(papers[1:], areas[1:])]
    assert_nothing_lost(result, text)


@pytest.mark.parametrize("first", ["Reading group list", "Papers we liked this term", "2025年ICML论文"])
def test_a_first_line_above_titled_papers_is_the_heading_not_the_first_papers_track(first):
    """A list opening with a line of its own that names no venue (or names one in a form the reader did not know,
    ``2025年ICML论文``) above title / authors / abstract papers: the line is the list's heading, and the first
    paper has no track (it took the line as its track); a list of one-line blocks above papers (tracks) is not
    read so."""
    papers = RECORDS[11:14]
    blocks = [f"{r['title']}\n{', '.join(r['authors'])}\n{r['abstract'].strip()}" for r in papers]
    text = first + "\n\n" + "\n\n".join(blocks) + "\n"
    result = read_text(text, "l.txt", venue="ICML", year=2025)
    assert result.heading is not None and (result.heading.text, result.heading.line) == (first, 1)
    assert [(e.title, list(e.authors), e.track, e.abstract, e.venue) for e in result.entries] == \
        [(r["title"], r["authors"], (), r["abstract"].strip(), "ICML") for r in papers]
    assert_nothing_lost(result, text)

    tracks = ["Reinforcement learning", "Optimization", "Optimization"]
    text = "\n\n".join(f"{t}\n\n{b}" for t, b in zip(tracks, blocks)) + "\n"
    result = read_text(text, "l.txt", venue="ICML", year=2025)
    assert result.heading is None
    assert [(e.title, e.track) for e in result.entries] == [(r["title"], (t,)) for r, t in zip(papers, tracks)]


@pytest.mark.parametrize("mark", ["{}. ", "- "])
def test_numbered_or_bulleted_abstracts_alone_without_blank_lines_are_one_paper_each(mark):
    """(found by the third new-user pass) ``1. We study…⏎2. We show…`` under a heading, no blank lines: a paper
    for each number or bullet (they were one paper, silently: every line reads as a sentence)."""
    abstracts = [" ".join(r["abstract"].split()) for r in RECORDS[14:18]]
    text = "ICML 2024 Papers\n" + "\n".join(mark.format(k + 1) + a for k, a in enumerate(abstracts)) + "\n"
    result = read_text(text, "l.txt")
    assert [e.abstract for e in result.entries] == abstracts
    assert_nothing_lost(result, text)


def test_a_numbered_title_ending_with_a_question_mark_opens_its_paper():
    """(found by the third new-user pass) ``2. Is Attention All You Need?`` above an author line, in a numbered
    list without blank lines: its own paper (it was read into the abstract above, silently)."""
    papers = RECORDS[18:21]
    titles = [papers[0]["title"], "Is Attention All You Need?", papers[2]["title"]]
    lines = ["ICML 2023 Papers"]
    for k, (r, title) in enumerate(zip(papers, titles)):
        lines += [f"{k + 1}. {title}", ", ".join(r["authors"]), " ".join(r["abstract"].split())]
    text = "\n".join(lines) + "\n"
    result = read_text(text, "l.txt")
    assert [(e.title, list(e.authors), e.abstract) for e in result.entries] == \
        [(t, r["authors"], " ".join(r["abstract"].split())) for r, t in zip(papers, titles)]
    assert_nothing_lost(result, text)


def test_a_keywords_label_above_each_title_label_belongs_to_the_paper_below_it():
    """(found by the third new-user pass) ``Keywords:`` / ``Title:`` / ``Authors:`` / ``Abstract:`` papers: each
    paper keeps its own keywords (each went to the paper above, and the first paper's were lost, silently)."""
    papers = RECORDS[21:24]
    keywords = [["diffusion", "video"], ["reinforcement learning"], ["graphs"]]
    blocks = [f"Keywords: {', '.join(kw)}\nTitle: {r['title']}\nAuthors: {', '.join(r['authors'])}\n"
              f"Abstract: {' '.join(r['abstract'].split())}" for r, kw in zip(papers, keywords)]
    text = "ICLR 2024\n\n" + "\n\n".join(blocks) + "\n"
    result = read_text(text, "l.txt")
    assert [(e.title, list(e.authors), list(e.keywords), e.abstract) for e in result.entries] == \
        [(r["title"], r["authors"], kw, " ".join(r["abstract"].split())) for r, kw in zip(papers, keywords)]
    assert_nothing_lost(result, text)


@pytest.mark.parametrize("authors", [2, 1])
def test_title_authors_abstract_papers_without_blank_lines_are_a_paper_each(authors):
    """(found by the third new-user pass) Unnumbered title / authors / abstract papers with no blank line
    between them, under a heading: a paper each, with their own fields (they were one paper, silently); with
    several authors, and with one author above the abstract."""
    papers = RECORDS[24:28]
    lines = ["ICML 2024 Papers"]
    for r in papers:
        lines += [r["title"], ", ".join(r["authors"][:authors]), " ".join(r["abstract"].split())]
    text = "\n".join(lines) + "\n"
    result = read_text(text, "l.txt")
    assert [(e.title, list(e.authors), e.abstract) for e in result.entries] == \
        [(r["title"], r["authors"][:authors], " ".join(r["abstract"].split())) for r in papers]
    assert_nothing_lost(result, text)


@pytest.mark.parametrize("labelled", [False, True])
def test_author_lines_with_family_names_first_marks_or_affiliations_are_the_authors(labelled):
    """(found by the third new-user pass) ``Smith, John; Doe, Jane``, ``Ziwei Liu1,2, Hao Zhang2`` and
    ``Yang Liu (MIT, CSAIL), …`` under a title, labelled ``Authors:`` or not: the people (they were split at
    every comma, or, unlabelled, read into the abstract)."""
    papers = RECORDS[28:31]
    lines = ["Smith, John; Doe, Jane; Roe, Richard", "Ziwei Liu1,2, Hao Zhang2, Wei Chen1",
             "Yang Liu (MIT, CSAIL), Jia Deng (Princeton University)"]
    people = [["John Smith", "Jane Doe", "Richard Roe"], ["Ziwei Liu", "Hao Zhang", "Wei Chen"],
              ["Yang Liu", "Jia Deng"]]
    form = "Title: {}\nAuthors: {}\nAbstract: {}" if labelled else "{}\n{}\n{}"
    text = "ICML 2024 Papers\n\n" + "\n\n".join(form.format(r["title"], line, " ".join(r["abstract"].split()))
                                               for r, line in zip(papers, lines)) + "\n"
    result = read_text(text, "l.txt")
    assert [(e.title, list(e.authors), e.abstract) for e in result.entries] == \
        [(r["title"], names, " ".join(r["abstract"].split())) for r, names in zip(papers, people)]
    assert_nothing_lost(result, text)


def test_citation_counts_and_submission_numbers_are_page_lines_not_abstract_text():
    """(found by the third new-user pass) ``[PDF] [Code] Cited by 120`` (``[PDF] [代码] 引用次数: 120``) under an
    abstract, and OpenReview's ``Submission Number: 1234`` under ``Primary Area:``: left out of the abstract
    (they were its last line, the first with a warning that the abstract may be cut off) and out of the next
    paper."""
    papers = RECORDS[31:34]
    tails = ["[PDF] [Code] Cited by 120", "[PDF] [代码] 引用次数: 2,400", "Cited by 7"]
    text = "ICML 2024 Papers\n\n" + "\n\n".join(
        f"{r['title']}\n{', '.join(r['authors'])}\n{' '.join(r['abstract'].split())}\n{tail}"
        for r, tail in zip(papers, tails)) + "\n"
    result = read_text(text, "l.txt")
    assert [(e.title, e.abstract) for e in result.entries] == [(r["title"], " ".join(r["abstract"].split()))
                                                               for r in papers]
    assert result.diagnostics == []
    assert_nothing_lost(result, text)
    text = "ICLR 2025 Conference Submissions\n\n" + "\n\n".join(
        f"{r['title']}\n{', '.join(r['authors'])}\nAbstract: {' '.join(r['abstract'].split())}\n"
        f"Primary Area: optimization\nSubmission Number: {1234 + k}" for k, r in enumerate(papers)) + "\n"
    result = read_text(text, "l.txt")
    assert [(e.title, e.track, e.abstract) for e in result.entries] == \
        [(r["title"], ("optimization",), " ".join(r["abstract"].split())) for r in papers]
    assert result.diagnostics == []
    assert_nothing_lost(result, text)
