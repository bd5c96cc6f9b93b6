"""The A–Z author index for names in Chinese characters: grouped and sorted by their pinyin (pypinyin), beside
the same family name written in Latin letters, and never merged with a Latin spelling the lists do not write."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_into
from features_support import elements
from site_builder.model import urls
from site_builder.model.authors import display_facts, han_reading

LIST = """ICML 2024 Papers

Sparse Graph Learning from Few Samples
张三, Ana Perez
We propose a method for learning sparse graphs from few samples and prove that it is consistent.

Ranking from Noisy Pairwise Feedback
San Zhang, Wei Zhang
We study ranking from noisy pairwise feedback and give an algorithm with optimal sample complexity.

Calibrated Uncertainty for Regression
曾小明, 欧阳修
We calibrate the predictive uncertainty of regression models with a conformal procedure and prove coverage.

Private Federated Averaging at Scale
Xiaoming Zeng, 单田芳, 𠮷田太郎
We analyse differentially private federated averaging and show that clipping per client keeps the accuracy.
"""


@pytest.mark.parametrize("name, letter, family", [
    ("张三", "Z", "zhang"), ("曾小明", "Z", "zeng"), ("单田芳", "S", "shan"), ("欧阳修", "O", "ou yang"),
    ("San Zhang", "Z", "zhang"), ("José García", "G", "garcia")])
def test_a_name_in_chinese_characters_is_indexed_by_its_pinyin(name, letter, family):
    assert display_facts(name)[0] == family and display_facts(name)[2] == letter


def test_only_names_in_chinese_characters_alone_are_read_as_pinyin():
    assert han_reading("张三") == ("zhang", "san zhang")
    for name in ("Zhang San", "山﨑 太郎", "さとう はなこ", "김 민준", "张三 (MIT)"):
        assert han_reading(name) is None, name


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    lists = tmp_path_factory.mktemp("lists")
    (lists / "icml.txt").write_text(LIST, encoding="utf-8")
    # every author a page, as the count of pages below checks that no two people are merged
    (lists / "site.toml").write_text('title = "Names"\nauthor_page_papers = 1\n', encoding="utf-8")
    out = tmp_path_factory.mktemp("site") / "_site"
    assert build_into(out, "--no-cache", seeds=lists, config=lists / "site.toml") == 0
    return out


def groups(site: Path) -> dict[str, list[str]]:
    """The authors index page: letter → author names in their order."""
    found: dict[str, list[str]] = {}
    letter = None
    for tag, attrs, text in elements(site / urls.AUTHORS):
        if tag == "h2":
            letter = text
        elif tag == "a" and "author-link" in attrs.get("class", ""):
            found.setdefault(letter, []).append(text)
    return found


def test_chinese_names_sit_beside_their_family_name_in_latin_letters(site):
    by_letter = groups(site)
    # family name, then the whole name given name first ("xiao ming zeng" < "xiaoming zeng"), then the key
    assert by_letter["Z"] == ["曾小明", "Xiaoming Zeng", "San Zhang", "张三", "Wei Zhang"]
    assert by_letter["O"] == ["欧阳修"] and by_letter["S"] == ["单田芳"] and by_letter["#"] == ["𠮷田太郎"]
    pages = {p.name for p in (site / "authors").glob("*.html")} - {"index.html"}
    assert len(pages) == 9  # 张三 and San Zhang stay two people: the lists never write them alike


TWO_PAPERS = """ICML 2024 Papers

Sparse Graph Learning from Few Samples
Ana Perez, Wei Zhang
We propose a method for learning sparse graphs from few samples and prove that it is consistent.

Ranking from Noisy Pairwise Feedback
Wei Zhang
We study ranking from noisy pairwise feedback and give an algorithm with optimal sample complexity.
"""


def _build(tmp_path: Path, config: str) -> Path:
    (tmp_path / "lists").mkdir()
    (tmp_path / "lists" / "icml.txt").write_text(TWO_PAPERS, encoding="utf-8")
    (tmp_path / "lists" / "site.toml").write_text(config, encoding="utf-8")
    assert build_into(tmp_path / "_site", "--no-cache", seeds=tmp_path / "lists",
                      config=tmp_path / "lists" / "site.toml") == 0
    return tmp_path / "_site"


def _links(page: Path) -> dict[str, str]:
    """Link text → href of the page's links."""
    return {text: attrs["href"] for tag, attrs, text in elements(page) if tag == "a" and "href" in attrs}


def test_an_author_of_one_paper_is_named_on_it_and_indexed_with_a_link_to_it(tmp_path):
    site = _build(tmp_path, 'title = "Two papers"\n')
    assert sorted(p.name for p in (site / "authors").glob("*.html")) == ["index.html", "wei-zhang.html"]
    graphs = next(site.glob("papers/sparse-graph-learning*.html"))
    links = _links(graphs)
    assert links["Wei Zhang"] == "../authors/wei-zhang.html" and "Ana Perez" not in links
    assert "Ana Perez" in graphs.read_text(encoding="utf-8")  # named, as text
    index = _links(site / urls.AUTHORS)
    # the search for the name (a link to the paper would change with its abstract, and the index page with it)
    assert index["Ana Perez"] == "../search.html?q=author%3A%22Ana%20Perez%22" and index["Wei Zhang"] == "wei-zhang.html"
    assert "Sparse Graph Learning" in (site / "authors" / "wei-zhang.html").read_text(encoding="utf-8")


def test_author_page_papers_1_gives_every_author_a_page(tmp_path):
    site = _build(tmp_path, 'title = "Two papers"\nauthor_page_papers = 1\n')
    assert sorted(p.name for p in (site / "authors").glob("*.html")) == ["ana-perez.html", "index.html",
                                                                          "wei-zhang.html"]
    assert _links(next(site.glob("papers/sparse-graph-learning*.html")))["Ana Perez"] == "../authors/ana-perez.html"


@pytest.mark.parametrize("value", ["0", '"2"', "1.5", "true"])
def test_author_page_papers_must_be_a_whole_number_of_at_least_one(tmp_path, capsys, value):
    (tmp_path / "lists").mkdir()
    (tmp_path / "lists" / "icml.txt").write_text(TWO_PAPERS, encoding="utf-8")
    config = tmp_path / "lists" / "site.toml"
    config.write_text(f'title = "Two papers"\nauthor_page_papers = {value}\n', encoding="utf-8")
    assert build_into(tmp_path / "_site", "--no-cache", seeds=tmp_path / "lists", config=config) == 2
    assert f"{config}:2: error: author_page_papers must be a whole number of at least 1" in capsys.readouterr().err
    assert not (tmp_path / "_site").exists()
