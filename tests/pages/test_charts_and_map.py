"""The charts drawn at build time and the paper map's page and data (issue 21), on the built seed site."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import SEEDS, build_into
from site_builder.model import urls
from site_builder.pages.views import Bar, BarChart, bar_chart, year_chart


class _Tables(HTMLParser):
    """The rows of each chart table of a page (``[header cell, number]``), by the chart's title."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: dict[str, list[tuple[str, int]]] = {}
        self._title = self._cell = None
        self._row: list[str] = []
        self._in_caption = False

    def handle_starttag(self, tag, attrs):
        if tag == "figcaption":
            self._in_caption, self._title = True, ""
        elif tag in ("th", "td") and self._title is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self._in_caption = False
            self.charts[self._title] = []
        elif tag in ("th", "td") and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row:
            if self._row[1].isdigit():
                self.charts[self._title].append((self._row[0], int(self._row[1])))
            self._row = []

    def handle_data(self, data):
        if self._in_caption:
            self._title += data
        elif self._cell is not None:
            self._cell += data


def chart_tables(html: str) -> dict[str, list[tuple[str, int]]]:
    parser = _Tables()
    parser.feed(html)
    return parser.charts


def map_data(site: Path) -> dict:
    text = (site / urls.MAP_DATA_JS).read_text(encoding="utf-8")
    prefix = "window.PAPER_MAP = "
    assert text.startswith(prefix) and text.endswith(";\n")
    return json.loads(text[len(prefix):-2])


def test_the_home_page_charts_papers_per_venue_and_year(seed_site, seed_records):
    html = (seed_site / urls.HOME).read_text(encoding="utf-8")
    counts = Counter(f"{r['venue']} {r['year']}" for r in seed_records)
    assert dict(chart_tables(html)["Papers per venue and year"]) == counts
    svg = re.search(r"<svg class=\"chart-svg\"[^>]*>.*?</svg>", html, re.S).group(0)
    assert 'role="img"' in svg and "<title" in svg
    assert svg.count('class="chart-bar"') == len(counts)
    assert f'href="{urls.MAP}"' in html  # the map is linked from the home page


def test_a_venue_page_charts_its_tracks_and_lists_its_topics(seed_site, seed_records):
    by_venue = Counter((r["venue"], r["year"]) for r in seed_records if r["track"])
    venue, year = by_venue.most_common(1)[0][0]
    records = [r for r in seed_records if (r["venue"], r["year"]) == (venue, year)]
    page = next(p for p in (seed_site / "venues").glob("*/index.html")
                if f"<h1>{venue} {year}</h1>" in p.read_text(encoding="utf-8"))
    html = page.read_text(encoding="utf-8")
    tracks = Counter(" · ".join(r["track"]) if isinstance(r["track"], list) else r["track"] for r in records)
    shown = dict(chart_tables(html)["Papers per track"])
    assert sorted(shown.values()) == sorted(tracks.values()) and sum(shown.values()) == len(records)
    topics = re.findall(r'<a href="\.\./\.\./map\.html#(topic-\d+)">([^<]+)</a> <span class="count">(\d+) paper',
                        html)
    assert topics and sum(int(n) for _, _, n in topics) <= len(records)
    counts = [int(n) for _, _, n in topics]
    assert counts == sorted(counts, reverse=True)
    map_html = (seed_site / urls.MAP).read_text(encoding="utf-8")
    for anchor, label, _ in topics:  # each topic is a group of the map page, under the same name
        assert re.search(rf'<li id="{anchor}">\s*<details>\s*<summary><span class="topic-label">{re.escape(label)}<',
                         map_html)


def test_the_map_data_holds_every_paper_in_site_order(seed_site, seed_records):
    data = map_data(seed_site)
    n = len(seed_records)
    assert data["path"] == [r["url"] for r in seed_records]
    assert data["title"] == [r["title"] for r in seed_records]
    for field in ("x", "y", "venue", "track", "cluster", "authors"):
        assert len(data[field]) == n, field
    assert all(0 <= v <= data["grid"] for v in data["x"] + data["y"])
    assert [data["venues"][v] for v in data["venue"]] == [f"{r['venue']} {r['year']}" for r in seed_records]
    assert sum(c["size"] for c in data["clusters"]) == n
    assert Counter(data["cluster"]) == {i: c["size"] for i, c in enumerate(data["clusters"])}


def test_the_map_page_lists_every_paper_under_its_topic(seed_site, seed_records):
    html = (seed_site / urls.MAP).read_text(encoding="utf-8")
    data = map_data(seed_site)
    groups = re.findall(r'<li id="(topic-\d+)">(.*?)</details>', html, re.S)
    assert [anchor for anchor, _ in groups] == [c["anchor"] for c in data["clusters"]]
    for number, (_, body) in enumerate(groups):
        links = re.findall(r'<a href="([^"]+)">', body)
        assert links == [p for p, c in zip(data["path"], data["cluster"]) if c == number]
    assert f'<script src="{urls.MAP_DATA_JS}"></script>' in html  # a classic script: works from file://
    assert "fetch(" not in (seed_site / urls.MAP_JS).read_text(encoding="utf-8")


def test_an_author_of_several_years_gets_a_chart_of_papers_per_year(tmp_path, seed_records):
    """A list of 2022 with a paper by an author of the seeds: that author's page charts 2022 to the last year,
    the years between with no paper at 0; an author of one year has no chart."""
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    author = next(r["authors"][0] for r in seed_records if r["authors"])
    (seeds / "900_extra.txt").write_text(
        "Extra 2022 Papers\n\nA Study of Graph Neural Networks for Extra Tests\n" f"{author}\n"
        "We study graph neural networks on extra test graphs. We show that they generalise under mild conditions. "
        "Experiments on ten benchmarks confirm the analysis.\n", encoding="utf-8")
    site = tmp_path / "site"
    assert build_into(site, "--no-cache", seeds=seeds) == 0
    years = Counter(r["year"] for r in seed_records if author in r["authors"])
    years[2022] += 1
    pages = [p for p in (site / "authors").glob("*.html") if f"<h1>{author}</h1>" in p.read_text(encoding="utf-8")]
    assert len(pages) == 1
    shown = dict(chart_tables(pages[0].read_text(encoding="utf-8"))["Papers per year"])
    assert shown == {str(y): years.get(y, 0) for y in range(2022, max(years) + 1)}
    single = next(name for r in seed_records for name in r["authors"] if name != author
                  and len({s["year"] for s in seed_records if name in s["authors"]}) == 1)
    page = next(p for p in (site / "authors").glob("*.html") if f"<h1>{single}</h1>" in p.read_text(encoding="utf-8"))
    assert "chart-svg" not in page.read_text(encoding="utf-8")


def test_bars_are_in_proportion_and_long_labels_are_cut():
    chart = BarChart("k", "Title", "Thing", (Bar("a" * 50, 10), Bar("b", 5), Bar("c", 0), Bar("d", 1)))
    rows = chart.rows()
    lengths = [length for _, _, length in rows]
    assert lengths[0] == max(lengths) and lengths[0] + chart.label_width() + 48 == chart.WIDTH
    assert lengths[1] == pytest.approx(lengths[0] / 2, abs=1) and lengths[2] == 0 and lengths[3] >= 1
    assert [y for _, y, _ in rows] == [chart.TOP + i * chart.ROW for i in range(4)]
    assert chart.shown(rows[0][0]).endswith("…") and len(chart.shown(rows[0][0])) == chart.LABEL_CHARS
    assert chart.height() == 2 * chart.TOP + 4 * chart.ROW
    assert bar_chart("k", "T", "H", [Bar("only", 3)]) is None  # one bar: nothing to compare


def test_the_seed_build_gives_the_same_map_and_charts_twice(tmp_path, seed_site):
    again = tmp_path / "again"
    assert build_into(again, "--no-cache") == 0
    for name in (urls.MAP_DATA_JS, urls.MAP, urls.HOME):
        assert (again / name).read_bytes() == (seed_site / name).read_bytes(), name


def test_year_chart_needs_two_years():
    class Item:  # the fields year_chart reads
        def __init__(self, year):
            self.venue = type("V", (), {"year": year})()

    assert year_chart([Item(2024), Item(2024)]) is None
    chart = year_chart([Item(2021), Item(2024), Item(2024)])
    assert [(b.label, b.value) for b in chart.bars] == [("2021", 1), ("2022", 0), ("2023", 0), ("2024", 2)]
