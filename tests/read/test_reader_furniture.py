"""Lines of web-page furniture pasted with a paper list (``Back to top``, ``Show all · Filter · Sort by``,
``收藏 | 分享 | 下载PDF``) are left out with a warning naming them: never a title, track, author line or
abstract text (a new user's reports: such a line became the next paper's title, pushing its real title
into the track, or was glued to the end of the abstracts above it, all without a warning).

The lists are the new user's, written from the real corpus records of their papers."""

from __future__ import annotations

import json
import re
import textwrap

import pytest

from site_builder.read.plaintext import read_text
from site_builder.read.lines import furniture
from test_reader import CORPUS, assert_nothing_lost

COLT = ["A Unified Characterization of Private Learnability via Graph Theory",
        "A faster and simpler algorithm for learning shallow networks"]
COLM = ["InstructAV: Instruction Fine-tuning Large Language Models for Authorship Verification",
        "ReAct Meets ActRe: Autonomous Annotation of Agent Trajectories for Contrastive Self-Training",
        "Effective Prompt Extraction from Language Models",
        "SPEER: Sentence-Level Planning of Long Clinical Summaries via Embedded Entity Retrieval",
        "See What LLMs Cannot Answer: A Self-Challenge Framework for Uncovering LLM Weaknesses",
        "From Strategic Narratives to Code-Like Cognitive Models: An LLM-Based Approach in A Sorting Task",
        "Agent-DocEdit: Language-Instructed LLM Agent for Content-Rich Document Editing",
        "Prompt Public Large Language Models to Synthesize Data for Private On-device Applications"]
FURNITURE = "page furniture (site navigation, action words or a count), not part of a paper"


def _records() -> dict[str, dict]:
    wanted = {("COLT", 2024, t) for t in COLT} | {("COLM", 2024, t) for t in COLM}
    out = {}
    with open(CORPUS, encoding="utf-8") as handle:
        for line in handle:
            r = json.loads(line)
            if (r.get("venue"), r.get("year"), r.get("title")) in wanted:
                out[r["title"]] = r
    assert len(out) == len(wanted)
    return out


RECORDS = _records()


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _warned(result) -> dict[int, str]:
    return {d.line: d.message for d in result.diagnostics if FURNITURE in d.message and d.level == "warning"}


def test_stray_lines_of_an_english_page_are_no_title_or_track():
    """The report's list: ``Show all · Filter · Sort by`` under the heading, ``Back to top`` as its own
    paragraph between two papers, a page number at the end. Both papers keep title, authors and abstract
    (``Back to top`` was the second paper's title and its title its track; ``Show all …`` the first
    paper's track), no track is made up, and each stray line gets a warning quoting it."""
    a, b = (RECORDS[t] for t in COLT)
    text = "\n".join(["COLT 2024 Papers", "Show all · Filter · Sort by", "", "Poster", "",
                      a["title"], ", ".join(a["authors"]), a["abstract"], "", "Back to top", "",
                      b["title"], ", ".join(b["authors"]), b["abstract"], "", "Page 1 of 12   Next »", ""])
    result = read_text(text, "s.txt")
    assert [(e.title, list(e.authors), e.track) for e in result.entries] == [
        (a["title"], a["authors"], ()), (b["title"], b["authors"], ())]
    assert [e.abstract for e in result.entries] == [a["abstract"], b["abstract"]]
    warned = _warned(result)
    assert sorted(warned) == [2, 10, 16]
    assert "'Show all · Filter · Sort by'" in warned[2] and "'Back to top'" in warned[10]
    assert "'Page 1 of 12 Next »'" in warned[16]
    assert_nothing_lost(result, text)


def test_chinese_action_line_after_an_abstract_is_not_abstract_text():
    """The report's Chinese-labelled list (``标题：``/``作者：``/``摘要：``, full-width commas, abstracts
    hard-wrapped at 60 columns) with ``收藏 | 分享 | 下载PDF`` right under four of the eight abstracts: every
    abstract is the paper's own (the line was glued to the end of four of them), with a warning per line;
    the count line under the heading is no track."""
    records = [RECORDS[t] for t in COLM]
    parts, chrome = ["COLM 2024 论文列表", "共 8 篇", ""], []
    for k, r in enumerate(records):
        parts += [f"标题：{r['title']}", "作者：" + "，".join(r["authors"]), "摘要：",
                  *textwrap.wrap(r["abstract"], 60, break_on_hyphens=False)]
        if k in (0, 2, 4, 6):
            parts.append("收藏 | 分享 | 下载PDF")
            chrome.append(len(parts))
        parts.append("")
    text = "\n".join(parts)
    result = read_text(text, "zh.txt")
    assert [e.title for e in result.entries] == COLM
    assert [list(e.authors) for e in result.entries] == [r["authors"] for r in records]
    assert all(e.track == () for e in result.entries)  # the count line 共 8 篇 was the first paper's track
    assert [_flat(e.abstract) for e in result.entries] == [_flat(r["abstract"]) for r in records]
    assert not any("收藏" in e.abstract or "下载" in e.abstract for e in result.entries)
    warned = _warned(result)
    assert sorted(warned) == [2, *chrome] and "'共 8 篇'" in warned[2]
    assert all("'收藏 | 分享 | 下载PDF'" in warned[line] for line in chrome)
    assert_nothing_lost(result, text)


@pytest.mark.parametrize("junk,where", [
    ("Back to top", "before title"), ("返回顶部", "before title"), ("Share · Cite", "after abstract"),
    ("Share", "after title"), ("↑ Back to top", "own paragraph"), ("Show more | Bookmark", "own paragraph"),
    ("引用 / 收藏", "after abstract")])
def test_furniture_lines_anywhere_in_an_entry_are_left_out(junk, where):
    """A furniture line in the same block as a paper's lines (above its title, between title and
    authors, under its abstract) or as a paragraph of its own: every paper as without it, one warning."""
    a, b, c = (RECORDS[t] for t in COLM[:3])

    def entry(r: dict) -> list[str]:
        return [r["title"], ", ".join(r["authors"]), r["abstract"]]

    second = {"before title": [junk, *entry(b)], "after title": [b["title"], junk, *entry(b)[1:]],
              "after abstract": [*entry(b), junk], "own paragraph": [junk, "", *entry(b)]}[where]
    text = "\n".join(["COLM 2024 Papers", "", *entry(a), "", *second, "", *entry(c), ""])
    result = read_text(text, "l.txt")
    clean = read_text("\n".join(["COLM 2024 Papers", "", *entry(a), "", *entry(b), "", *entry(c), ""]), "l.txt")
    assert [(e.title, e.authors, e.track, e.abstract) for e in result.entries] == \
        [(e.title, e.authors, e.track, e.abstract) for e in clean.entries]
    assert [r["title"] for r in (a, b, c)] == [e.title for e in result.entries]
    line = text.split("\n").index(junk) + 1
    assert list(_warned(result)) == [line] and repr(junk) in _warned(result)[line]
    assert_nothing_lost(result, text)


@pytest.mark.parametrize("text", [
    "Back to top", "Show all · Filter · Sort by", "收藏 | 分享 | 下载PDF", "Share", "Download PDF | Share",
    "Bibtex / Cite / Favourite", "返回顶部", "收藏", "分享 · 引用", "  Show all  ", "[PDF][Code]", "共 8 篇",
    "Page 1 of 12   Next »", "Showing 1-50 of 1,645 papers", "第 1 页 / 共 12 页", "下一页",
    "首页 > 会议 > NeurIPS 2024", "Home › Conferences › ICML 2024"])  # breadcrumbs: third new-user pass
def test_furniture_lines(text):
    assert furniture(text)


@pytest.mark.parametrize("text", [
    "PDF · Bibtex", "Cite", "Download", "Page 3", "12 papers on graphs", "Show and Tell", "Filter-based Attention",
    "Sort", "Search", "Top", "Back to Basics: Revisiting Top-k", "showall", "Sharing is Caring",
    "Learning to Filter and Share", "Back to top " + "x" * 60, "Home Robotics > Manipulation", "Homework > Grading"])
def test_lines_that_are_no_furniture(text):
    """Page words alone stay page words (:func:`page_words`), and titles made of furniture words and others,
    or words glued together, are no furniture."""
    assert not furniture(text)


def test_no_title_author_track_or_abstract_line_of_the_corpus_is_furniture():
    """Conservative: no title, author, keyword line, abstract line or abstract sentence of the sample's real papers
    reads as furniture (nor of the full corpus's 10k: scripts/roundtrip_corpus.py writes them all)."""
    hits = []
    with open(CORPUS, encoding="utf-8") as handle:
        for r in map(json.loads, handle):
            lines = [r.get("title") or "", *(r.get("authors") or []), ", ".join(r.get("authors") or []),
                     r.get("keywords") or "", r.get("status") or "",
                     *r["abstract"].split("\n"), *re.split(r"(?<=[.!?])\s+", r["abstract"])]
            hits += [line for line in lines if line and furniture(line)]
    assert hits == []
