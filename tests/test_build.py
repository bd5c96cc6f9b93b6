"""End-to-end build of the real seeds: pages, papers.json, links, index, exit codes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import ROOT, SEEDS, build_into
from linkcheck import broken_links
from search_helpers import site_search_data


def test_page_set(seed_site: Path, seed_records):
    papers = sorted(p.name for p in (seed_site / "papers").glob("*.html"))
    assert len(papers) == 58
    assert sorted(r["url"] for r in seed_records) == sorted(f"papers/{n}" for n in papers)
    venue_pages = sorted(p.parent.name for p in (seed_site / "venues").glob("*/index.html"))
    assert venue_pages == ["iclr-2025", "icml-2024", "icml-2025"]
    track_pages = [p for p in (seed_site / "venues").glob("*/*.html") if p.name != "index.html"]
    assert len(track_pages) == 14
    assert (seed_site / "index.html").is_file() and (seed_site / "search.html").is_file()


def test_papers_json_fields(seed_records):
    assert len(seed_records) == 58
    counts = Counter((r["venue"], r["year"]) for r in seed_records)
    assert counts == {("ICLR", 2025): 19, ("ICML", 2024): 19, ("ICML", 2025): 20}
    icml25 = [r for r in seed_records if r["year"] == 2025 and r["venue"] == "ICML"]
    tracks = {r["track"] for r in icml25}
    assert len(tracks) == 14 and None not in tracks
    assert len({t.split(" · ")[0] for t in tracks}) == 6
    assert all(r["authors"] for r in icml25)
    assert all(r["track"] is None for r in seed_records if r not in icml25)
    assert len({r["id"] for r in seed_records}) == 58 and len({r["slug"] for r in seed_records}) == 58
    keys = {"id", "slug", "title", "title_derived", "authors", "venue", "year", "track", "abstract", "code_urls", "url",
            "doi", "landing_url", "status"}
    assert all(keys <= set(r) for r in seed_records)


def test_the_seeds_show_their_published_titles_authors_and_landing_pages(seed_records):
    """site.toml names seeds/refs/published.csl.json as the seed lists' reference file: every seed paper takes the
    published title, the authors the ICLR 2025 and ICML 2024 lists lack, and its landing page."""
    published = {" ".join(item["abstract"].split()): item
                 for item in json.loads((SEEDS / "refs" / "published.csl.json").read_text(encoding="utf-8"))}
    assert len(published) == 58
    for record in seed_records:
        item = published[" ".join(record["abstract"].split())]
        assert record["title"] == item["title"] and not record["title_derived"]
        assert record["landing_url"] == item["URL"]
        assert record["authors"]
        if "author" in item:  # the two lists without authors take the reference's, in order
            assert record["authors"] == [f"{a['given']} {a['family']}" for a in item["author"]]
        for url in re.findall(r"https://\S+", item.get("note", "")):
            assert url in record["code_urls"]


def test_without_their_reference_the_seeds_titles_are_derived(tmp_path):
    """The derived-title path, for every list that names no reference: the seeds with a config giving only the
    third list's venue."""
    config = tmp_path / "site.toml"
    config.write_text('[lists."003_7bfb54ea2f2037fe.txt"]\nvenue = "ICML"\nyear = 2025\n', encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", config=config) == 0
    records = json.loads((tmp_path / "site" / "papers.json").read_text(encoding="utf-8"))
    assert len(records) == 58 and all(r["title"] and r["title_derived"] for r in records)
    assert all(r["landing_url"] is None and r["doi"] is None for r in records)
    icml25 = [r for r in records if r["year"] == 2025 and r["venue"] == "ICML"]
    assert all(r["track"] is None and r["authors"] == [] for r in records if r not in icml25)
    html = (tmp_path / "site" / records[0]["url"]).read_text(encoding="utf-8")
    assert "derived title" in html


def test_authors_from_the_list(seed_records):
    first = next(r for r in seed_records if r["abstract"].startswith("Controllability has become"))
    assert first["authors"] == ["Yi-Fan Zhang", "Xiao Zhang", "Min-Ling Zhang"]
    assert first["track"] == "Theory · Learning Theory"


def test_abstract_is_source_text(seed_records):
    source = "\n".join(p.read_text(encoding="utf-8") for p in SEEDS.glob("*.txt"))
    assert all(r["abstract"] in source for r in seed_records)


def test_no_broken_or_folder_links(seed_site: Path):
    assert broken_links(seed_site) == []


def test_paper_page_shows_fields(seed_site: Path, seed_records):
    record = next(r for r in seed_records if r["track"])
    html = (seed_site / record["url"]).read_text(encoding="utf-8")
    assert "derived title" not in html and record["landing_url"] and f'href="{record["landing_url"]}"' in html
    assert record["authors"][0] in html
    assert "ICML 2025" in html and "../venues/icml-2025/index.html" in html
    assert record["track"] in html


def test_math_is_mathml_not_dollars(seed_site: Path, seed_records):
    record = next(r for r in seed_records if r"$\mathcal{O}(k)$" in r["abstract"])
    html = (seed_site / record["url"]).read_text(encoding="utf-8")
    assert "<math" in html and r"$\mathcal" not in html


def test_search_index_shape(seed_site: Path, seed_records):
    data = site_search_data(seed_site)
    assert data["index"]["version"] == "2.3.9"
    assert {r["id"]: r["url"] for r in seed_records} == {d["id"]: d["url"] for d in data["docs"].values()}
    assert all(d["title"].strip() for d in data["docs"].values())
    manifest = (seed_site / "search" / "manifest.js").read_text(encoding="utf-8")
    assert manifest.startswith("window.SEARCH_SHARDS = ") and "</script" not in manifest
    records = sorted((seed_site / "search" / "records").iterdir())
    assert len(records) == len(seed_records)
    assert all(f.read_text(encoding="utf-8").startswith("searchRecord(") for f in records)
    assert (seed_site / "assets" / "lunr.min.js").read_bytes() == (ROOT / "node_modules/lunr/lunr.min.js").read_bytes()


def test_each_title_is_its_own_top_hit_in_lunr_js(seed_site: Path):
    node = shutil.which("node")
    assert node, "node is required"
    out = subprocess.run([node, str(ROOT / "tests/js/title_top_hits.js"), str(seed_site)],
                         check=True, capture_output=True, text=True).stdout
    results = json.loads(out)
    assert len(results) == 58
    assert [r for r in results if r["top"] != r["ref"]] == []


def test_search_box_on_every_page(seed_site: Path):
    for page in seed_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert 'type="search" name="q"' in html, page


def test_bad_list_keeps_existing_site(tmp_path: Path, seed_site: Path):
    out = tmp_path / "site"
    shutil.copytree(seed_site, out)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.txt").write_bytes(b"")
    assert build_into(out, seeds=seeds) != 0
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_refuses_to_replace_a_foreign_folder(tmp_path: Path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert build_into(out) == 2
    assert (out / "notes.txt").read_text() == "keep me"


def test_missing_venue_is_an_error_naming_the_file(tmp_path: Path, capsys):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    shutil.copy(SEEDS / "003_7bfb54ea2f2037fe.txt", seeds)
    config = tmp_path / "site.toml"
    config.write_text('title = "T"\n')
    assert build_into(tmp_path / "out", seeds=seeds, config=config) == 1
    assert "003_7bfb54ea2f2037fe.txt:1: error:" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("url", ["user.github.io/repo", "not a url", "ftp://example.org/x/", "https:///repo/",
                                 "https://example.org/repo/?x=1"])
def test_a_base_url_that_is_not_an_absolute_http_url_is_refused(tmp_path: Path, seed_site: Path, capsys, url: str):
    """A relative or malformed --base-url (or site.toml base_url) made every canonical link, the sitemap, the feeds
    and the 404 page broken relative paths, silently (found by the new-user pass): now exit 2, the site kept."""
    out = tmp_path / "site"
    shutil.copytree(seed_site, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert build_into(out, "--base-url", url) == 2
    assert f"error: --base-url {url!r}: " in capsys.readouterr().err
    config = tmp_path / "site.toml"
    config.write_text(f'title = "T"\n\nbase_url = "{url}"\n', encoding="utf-8")
    assert build_into(out, config=config) == 2
    assert f"{config}:3: error: base_url {url!r}: " in capsys.readouterr().err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_zip_inside_the_output_folder_is_refused(tmp_path: Path, seed_site: Path, capsys):
    """``--zip _site/site.zip`` was written into the output folder, and the next build deleted it (found by the
    new-user pass): refused like the other folders inside the output (exit 2), the site kept."""
    out = tmp_path / "site"
    shutil.copytree(seed_site, out)
    assert build_into(out, "--zip", str(out / "site.zip")) == 2
    assert "is inside the output folder" in capsys.readouterr().err
    assert not (out / "site.zip").exists()
    assert build_into(out, "--zip", str(tmp_path / "site.zip")) == 0
    assert (tmp_path / "site.zip").stat().st_size > 0
    assert f"files into {tmp_path / 'site.zip'}" in capsys.readouterr().err
    assert build_into(out, "--quiet", "--zip", str(tmp_path / "quiet.zip")) == 0  # diagnostics only (new-user pass)
    assert (tmp_path / "quiet.zip").stat().st_size > 0 and capsys.readouterr().err == ""


def test_the_same_title_and_first_author_with_another_abstract_are_two_papers_with_a_warning(tmp_path: Path, capsys):
    """Found by the new-user passes: a paper in two lists with the same title and first author but another abstract
    (and here one co-author fewer) became two papers without a word; never merged on a guess, now named."""
    seeds, config = tmp_path / "seeds", tmp_path / "site.toml"
    seeds.mkdir()
    config.write_text('title = "T"\n[default]\nvenue = "NeurIPS"\nyear = 2024\n', encoding="utf-8")
    (seeds / "a.jsonl").write_text(json.dumps({"title": "Sparse Attention at Scale", "authors": ["Ann Lee", "Bo Chen"],
                                               "abstract": "We scale sparse attention to long inputs."}) + "\n",
                                   encoding="utf-8")
    (seeds / "b.csv").write_text("title,authors,abstract\nSparse  attention at scale,ann lee,"
                                 "A second version of the abstract: sparse attention scales.\n", encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=config) == 0
    err = capsys.readouterr().err
    assert (f"{seeds / 'b.csv'}:2: warning: the same title and first author as the paper at {seeds / 'a.jsonl'}:1, "
            "with another abstract; kept as two papers (if they are one, list it once)") in err
    assert len(json.loads((tmp_path / "site" / "papers.json").read_text(encoding="utf-8"))) == 2
    assert "matched a reference" not in err  # no list names a reference ("0 of 0" was printed; new-user pass)
