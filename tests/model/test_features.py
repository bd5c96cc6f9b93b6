"""Reading-list features on the real seeds (issue 7): authors, related papers, BibTeX and citation
data, the curator's notes and tags, keywords, previous/next within a track."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from collections import defaultdict
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from sklearn.metrics.pairwise import cosine_similarity

from conftest import SEEDS, build_into
from features_support import NOTES, build_notes_site, elements, section
from linkcheck import broken_links
from site_builder import pipeline
from site_builder.model import urls
from site_builder.model.authors import author_key
from site_builder.model.bibtex import assign_keys, entry, escape
from site_builder.model.citation import script_json
from site_builder.model.related import related_indices, tfidf_matrix, top_k_similar
from papers_sample import sample_records, sample_texts


@pytest.fixture(scope="module")
def records(notes_site) -> list[dict]:
    return json.loads((notes_site / "papers.json").read_text(encoding="utf-8"))


def page_of(site: Path, record: dict) -> str:
    return (site / record["url"]).read_text(encoding="utf-8")


# --- author identity ----------------------------------------------------------------------

@pytest.mark.parametrize("a, b", [
    ("José García-López", "JOSE  GARCIA - LOPEZ"), ("J.Smith", "j. smith"), ("Ａｎｎａ Ｌｉ", "Anna Li"),
    ("Yi-Fan Zhang", "yi‐fan zhang"), ("Müller", "MUELLER".replace("UE", "U")), ("Straße", "STRASSE"),
])
def test_author_key_merges_spellings(a, b):
    assert author_key(a) == author_key(b) != ""


@pytest.mark.parametrize("name", ["et al.", "et al", "Et Al.", "et. al.", "等", "…", "..."])
def test_et_al_is_never_an_author(name):
    assert author_key(name) == ""


def _papers_by_author(records) -> dict[str, set[str]]:
    """Author key → the paths of their papers."""
    by_key = defaultdict(set)
    for r in records:
        for n in r["authors"]:
            by_key[author_key(n)].add(r["url"])
    return by_key


def test_a_page_per_seed_author_of_two_papers_and_every_author_in_the_index(notes_site, records):
    by_key = _papers_by_author(records)
    several = {k for k, v in by_key.items() if len(v) > 1}
    assert 5 < len(several) < len(by_key)
    pages = sorted((notes_site / "authors").glob("*.html"))
    assert len(pages) == len(several) + 1 and (notes_site / urls.AUTHORS).is_file()
    index = elements(notes_site / urls.AUTHORS)
    linked = [(a["href"], x) for t, a, x in index if t == "a" and "author-link" in a.get("class", "")]
    assert {href for href, _ in linked if not href.startswith("../")} == {p.name for p in pages if p.name != "index.html"}
    assert len(linked) == len(by_key)  # every author once: the others linked to the search for their name
    assert [href for href, name in linked if href.startswith("../")] == [
        "../search.html?q=author%3A%22" + quote(name) + "%22" for href, name in linked if href.startswith("../")]
    letters = [x for t, a, x in index if t == "h2"]
    assert letters == sorted(letters) and all(len(x) == 1 for x in letters)


def test_author_page_lists_all_their_papers(notes_site, records):
    by_key = defaultdict(set)
    for r in records:
        for n in r["authors"]:
            by_key[author_key(n)].add(r["url"])
    shared = [k for k, v in by_key.items() if len(v) > 1]
    assert shared, "the seeds have authors with more than one paper"
    for key in shared:
        page = notes_site / urls.author_path(urls.make_slug(key, "author"))
        listed = {"papers/" + Path(a["href"]).name for t, a, _ in elements(page) if "paper-link" in a.get("class", "")}
        assert listed == by_key[key], key


def test_every_author_name_with_a_page_links_to_it(notes_site, records):
    by_key = _papers_by_author(records)
    for r in records:
        if not r["authors"]:
            continue
        page = notes_site / r["url"]
        links = [(x, a["href"]) for t, a, x in elements(page)  # the authors' links: those to an author's page
                 if t == "a" and "/authors/" in a.get("href", "") and not a["href"].endswith("/index.html")]
        assert [x for x, _ in links] == [n for n in r["authors"] if len(by_key[author_key(n)]) > 1]
        for name, href in links:
            target = (page.parent / href).resolve()
            assert target.is_file() and name in target.read_text(encoding="utf-8")
        assert all(n in page.read_text(encoding="utf-8") for n in r["authors"])  # the others named as text


def test_respelled_names_share_one_page_and_stay_as_written(tmp_path, seed_records):
    by_author = defaultdict(list)
    for r in seed_records:
        for n in r["authors"]:
            by_author[n].append(r)
    name, papers = next((n, ps) for n, ps in sorted(by_author.items()) if len(ps) >= 2)
    first, second = papers[0], papers[1]
    variant = " ".join(name.upper().split()).replace(" ", "  ")
    accented = name.replace("e", "é", 1) if "e" in name else name + "\u0301"
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    rest = [n for n in second["authors"] if n != name]
    (seeds / "overrides.toml").write_text(
        f'[papers.{first["id"]}]\nauthors = {json.dumps([variant, *[n for n in first["authors"] if n != name]])}\n'
        f'[papers.{second["id"]}]\nauthors = {json.dumps([accented, *rest, "et al."])}\n', encoding="utf-8")
    out = tmp_path / "site"
    assert build_into(out, seeds=seeds) == 0
    records = {r["id"]: r for r in json.loads((out / "papers.json").read_text(encoding="utf-8"))}
    assert records[first["id"]]["authors"][0] == variant and records[second["id"]]["authors"][0] == accented
    slug = urls.make_slug(author_key(name), "author")
    page = out / urls.author_path(slug)
    listed = {Path(a["href"]).name for t, a, _ in elements(page) if "paper-link" in a.get("class", "")}
    assert {Path(first["url"]).name, Path(second["url"]).name} <= listed
    h1 = next(x for t, a, x in elements(page) if t == "h1")
    spellings = [" ".join(variant.split()), accented] + [name] * (len(papers) - 2)
    counts = {s: spellings.count(s) for s in spellings}
    assert h1 == min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    assert not any("et-al" in p.name for p in (out / "authors").glob("*.html"))
    html = (out / second["url"]).read_text(encoding="utf-8")
    assert f">{accented}</a>" in html and ">et al.</a>" not in html
    assert broken_links(out) == []


# --- related papers -----------------------------------------------------------------------

def brute_force_top_k(texts: list[str], k: int = 5) -> list[list[int]]:
    """Reference: the full dense cosine matrix, top-k by (score desc, index asc), positive only."""
    dense = cosine_similarity(tfidf_matrix(texts))
    np.fill_diagonal(dense, -1)
    return [[j for j in sorted(range(len(texts)), key=lambda j: (-row[j], j))[:k] if row[j] > 1e-9] for row in dense]


def test_related_on_pages_match_the_dense_reference(notes_site, records):
    report_texts = [f"{r['title_text']}. {r['text']}" for r in _page_texts(notes_site, records)]
    expected = brute_force_top_k(report_texts)
    for r, want in zip(records, expected):
        html = section(page_of(notes_site, r), "related")
        got = re.findall(r'<li><a href="([^"]+)"', html)
        assert [Path(h).name for h in got] == [Path(records[j]["url"]).name for j in want]
        assert 1 <= len(got) <= 5 and Path(r["url"]).name not in [Path(h).name for h in got]


def _page_texts(site: Path, records: list[dict]) -> list[dict]:
    """Title and abstract text of each paper as the build saw them (the model rebuilt from the seeds)."""
    from site_builder.config import load_config
    from site_builder.diagnostics import Diagnostics
    from site_builder.model.site import build_site
    config = load_config(SEEDS.parent / "site.toml")
    d = Diagnostics()
    site_model = build_site(pipeline.read_lists(pipeline.list_files(SEEDS), config, d), {}, config, d)
    by_id = {p.id: p for p in site_model.papers}
    return [{"title_text": by_id[r["id"]].title_text, "text": by_id[r["id"]].rendered.text} for r in records]


def test_related_blocks_equal_the_dense_reference_on_real_papers():
    texts = sample_texts()
    expected = brute_force_top_k(texts)
    assert related_indices(texts, block=97) == expected
    assert related_indices(texts, block=5000) == expected


def test_related_ties_are_deterministic():
    texts = ["alpha beta", "alpha beta", "alpha beta", "alpha beta", "gamma delta", "alpha beta gamma"]
    rows = top_k_similar(tfidf_matrix(texts), k=2, block=2)
    assert [j for j, _ in rows[0]] == [1, 2] and [j for j, _ in rows[3]] == [0, 1]
    assert related_indices(["only one"]) == [[]]


# --- BibTeX and citation data --------------------------------------------------------------

def braces_balanced(text: str) -> bool:
    depth = 0
    for m in re.finditer(r"\\.|[{}]", text):
        if m.group() in "{}":
            depth += 1 if m.group() == "{" else -1
            if depth < 0:
                return False
    return depth == 0


def test_escape_bibtex_specials():
    nasty = r"50% of {x}_i & #1 costs $5 ~ ^ \o/"
    out = escape(nasty)
    assert braces_balanced("{" + out + "}")
    assert not re.search(r"(?<!\\)[%&#$_]", out)
    assert "~" not in out and "^" not in out.replace(r"\textasciicircum{}", "")


def test_bib_files_and_keys(notes_site, records):
    # the site's papers.bib lists the venues' files (BibTeX comments, no entry: each entry is in the site once)
    index = (notes_site / urls.SITE_BIB).read_text(encoding="utf-8")
    listed = re.findall(r"^% (venues/[a-z0-9-]+/papers\.bib) \((\d+) papers\)$", index, re.M)
    assert "@" not in index and sorted(p for p, _ in listed) == sorted(
        p.relative_to(notes_site).as_posix() for p in notes_site.glob("venues/*/papers.bib"))
    assert [int(n) for _, n in listed] == [(notes_site / p).read_text("utf-8").count("@inproceedings{") for p, _ in listed]
    site_bib = "\n".join((notes_site / p).read_text(encoding="utf-8") for p, _ in listed)
    keys = re.findall(r"^@inproceedings\{([^,]+),$", site_bib, re.M)
    assert len(keys) == len(records) == len(set(keys))
    assert all(re.fullmatch(r"[a-z]+\d{4}[a-z]*", k) for k in keys)
    assert braces_balanced(site_bib)
    for venue in {(r["venue"], r["year"]) for r in records}:
        slug = urls.make_slug(f"{venue[0]} {venue[1]}", "venue")
        bib = (notes_site / urls.venue_bib_path(slug)).read_text(encoding="utf-8")
        n = sum(1 for r in records if (r["venue"], r["year"]) == venue)
        assert bib.count("@inproceedings{") == n and f"year = {{{venue[1]}}}" in bib
    controllability = next(r for r in records if r["abstract"].startswith("Controllability"))
    html = page_of(notes_site, controllability)
    key = re.search(r"@inproceedings\{([^,]+),", html).group(1)
    assert key.startswith("zhang2025") and key in keys
    assert "Yi-Fan Zhang and Xiao Zhang and Min-Ling Zhang" in html


def test_bib_keys_unique_and_independent_of_order(seed_records):
    Venue = dataclasses.make_dataclass("Venue", ["label", "year"])
    P = dataclasses.make_dataclass("P", ["id", "title", "title_text", "authors", "et_al", "venue", "keywords"])
    papers = [P(f"{i:010x}", "The Same Title words", "The Same Title words", ("Ann Lee",), False,
                Venue("ICML 2025", 2025), ())
              for i in range(30)]
    keys = assign_keys(papers)
    assert len(set(keys.values())) == 30 and keys[papers[0].id] == "lee2025same"
    assert assign_keys(list(reversed(papers))) == keys
    text = entry(P("x", "Deep {nets} for 100% of $x$", "Deep {nets} for 100% of x", ("Ann Lee",), True,
                   Venue("ICML 2025", 2025), ()), "k")
    assert braces_balanced(text) and "Ann Lee and others" in text


def test_citation_meta_and_json_ld(notes_site, records):
    for r in records:
        tags = elements(notes_site / r["url"])
        meta = [(a["name"], a["content"]) for t, a, _ in tags if t == "meta" and a.get("name", "").startswith("citation_")]
        assert [c for n, c in meta if n == "citation_author"] == r["authors"]
        assert ("citation_publication_date", str(r["year"])) in meta
        assert dict(meta)["citation_title"] and dict(meta)["citation_conference_title"] == f"{r['venue']} {r['year']}"
        html = page_of(notes_site, r)
        blob = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S).group(1)
        data = json.loads(blob)
        assert data["@type"] == "ScholarlyArticle" and [a["name"] for a in data["author"]] == r["authors"]
        assert data["datePublished"] == str(r["year"]) and data["identifier"] == r["id"]
        assert data["publication"] == {"@type": "PublicationEvent", "name": f"{r['venue']} {r['year']}"}
        assert "url" not in data  # no base URL configured: no absolute URLs


def test_json_ld_can_never_close_its_script():
    evil = "</script><script>alert(1)</script><!-- & \u2028\u2029 -->"
    text = script_json({"title": evil})
    assert not re.search("[<>&\u2028\u2029]", text)
    assert json.loads(text) == {"title": evil}


def test_hostile_title_stays_data(tmp_path, seed_records):
    record = seed_records[0]
    title = "</script><script>alert(1)</script> & {braces} 100%"
    seeds = tmp_path / "seeds"
    shutil.copytree(SEEDS, seeds)
    (seeds / "overrides.toml").write_text(f'[papers.{record["id"]}]\ntitle = {json.dumps(title)}\n', encoding="utf-8")
    out = tmp_path / "site"
    assert build_into(out, seeds=seeds) == 0
    html = next(p for p in (out / "papers").glob("*.html") if f'data-paper-id="{record["id"]}"' in p.read_text())
    text = html.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in text
    blob = re.search(r'<script type="application/ld\+json">(.*?)</script>', text, re.S).group(1)
    assert "alert(1)" in json.loads(blob)["headline"]
    bib = re.search(r"<pre class=\"bibtex\"[^>]*><code>(.*?)</code>", text, re.S).group(1)
    assert braces_balanced(bib.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


# --- notes, tags, status -------------------------------------------------------------------

def test_bad_notes_are_warnings_with_lines(tmp_path, capsys):
    assert build_notes_site(tmp_path / "site") == 0
    err = capsys.readouterr().err
    warnings = sorted(line.split(": warning: ")[0].replace(str(NOTES) + "/", "")
                      for line in err.splitlines() if ": warning: " in line and str(NOTES) in line)
    assert warnings == ["bad-front-matter.md:3", "bad-front-matter.md:4", "bad-front-matter.md:5",
                        "never-closed.md:1", "unknown-paper.md:3"]
    assert "'0000000000'" in err and "'done'" in err and "'colour'" in err
    assert build_notes_site(tmp_path / "strict", "--strict") == 1


def test_note_shows_on_its_paper_page(notes_site, records):
    record = next(r for r in records if r["id"] == "2bb1acffdb")
    note = section(page_of(notes_site, record), "note")
    assert "status-read" in note and 'aria-label="rated 5 of 5"' in note
    assert "<strong>tight</strong>" in note and "<math" in note
    assert "<script>" not in note and "&lt;script&gt;" in note
    assert 'href="../tags/theory.html"' in note and 'href="../tags/generalization-bounds.html"' in note


def test_tag_pages_list_the_tagged_papers(notes_site, records):
    by_id = {r["id"]: r for r in records}
    expected = {"theory": {"2bb1acffdb", "65d9a6db4e"}, "generalization-bounds": {"2bb1acffdb", "a6a374ae39"},
                "noisy-labels": {"65d9a6db4e"}, "pde": {"a6a374ae39"}, "speculative-decoding": {"9adb360e76"}}
    for slug, ids in expected.items():
        items = [a["data-paper-id"] for t, a, _ in elements(notes_site / urls.tag_path(slug)) if "data-paper-id" in a]
        assert sorted(items) == sorted(ids), slug
        assert all((notes_site / by_id[i]["url"]).is_file() for i in items)
    index = {Path(a["href"]).stem for t, a, _ in elements(notes_site / urls.TAGS) if "tag-link" in a.get("class", "")}
    assert index == set(expected)
    assert not (notes_site / "tags" / "index-tag.html").exists()


def test_status_and_tags_in_lists(notes_site, records):
    record = next(r for r in records if r["id"] == "2bb1acffdb")
    venue = notes_site / "venues" / "icml-2025" / "index.html"
    items = {a["data-paper-id"]: a for t, a, _ in elements(venue) if t == "li" and "data-paper-id" in a}
    assert items["2bb1acffdb"]["data-status"] == "read"
    assert items["65d9a6db4e"]["data-status"] == "reading"
    assert set(items["2bb1acffdb"]["data-tags"].split()) == {"theory", "generalization-bounds"}
    assert sum(1 for a in items.values() if a.get("data-status")) == 2
    slug_t = urls.make_slug(record["track"].replace(" · ", " "), "track")
    track = notes_site / urls.track_path("icml-2025", slug_t)
    items = {a["data-paper-id"]: a for t, a, _ in elements(track) if t == "li" and "data-paper-id" in a}
    assert items["2bb1acffdb"]["data-status"] == "read"
    links = [Path(a["href"]).name for t, a, _ in elements(track) if "tag-link" in a.get("class", "")]
    assert {"theory.html", "generalization-bounds.html"} <= set(links)


def test_note_naming_a_slug_and_default_notes_folder(tmp_path, seed_records):
    record = seed_records[5]
    root = tmp_path / "project"
    shutil.copytree(SEEDS, root / "seeds")
    (root / "notes").mkdir()
    (root / "notes" / "by-slug.md").write_text(
        f"---\npaper: {record['slug']}\nstatus: reading\ntags: [by slug]\n---\nSlug note body.\n", encoding="utf-8")
    out = tmp_path / "site"
    assert build_into(out, seeds=root / "seeds") == 0
    assert "Slug note body." in (out / record["url"]).read_text(encoding="utf-8")
    assert (out / urls.tag_path("by-slug")).is_file()


def test_missing_notes_folder_is_a_usage_error(tmp_path, capsys):
    assert build_into(tmp_path / "site", "--notes", str(tmp_path / "nope")) == 2
    assert "no such folder of notes" in capsys.readouterr().err


# --- keywords ---------------------------------------------------------------------------

def test_keyword_pages_from_entry_keywords(tmp_path, monkeypatch):
    given: dict[str, tuple[str, ...]] = {}
    real_read_lists = pipeline.read_lists

    def read_lists_with_keywords(files, config, diagnostics, cache=None, matched=None, progress=None):
        entries = real_read_lists(files, config, diagnostics, cache, matched, progress)
        out = []
        for i, e in enumerate(entries):
            keywords = (("Diffusion Models", "PDE") if "diffusion" in e.abstract.lower() else ()) + \
                       (("theory",) if e.track and e.track[0] == "Theory" else ())
            given[e.abstract] = keywords
            out.append(dataclasses.replace(e, keywords=keywords))
        return out

    monkeypatch.setattr(pipeline, "read_lists", read_lists_with_keywords)
    out = tmp_path / "site"
    assert build_into(out) == 0
    records = json.loads((out / "papers.json").read_text(encoding="utf-8"))
    for keyword in ("Diffusion Models", "PDE", "theory"):
        want = {r["id"] for r in records if keyword in given[r["abstract"]]}
        assert want, keyword
        page = out / urls.keyword_path(urls.make_slug(keyword, "keyword"))
        got = {a["data-paper-id"] for t, a, _ in elements(page) if t == "li" and "data-paper-id" in a}
        assert got == want, keyword
        assert all(r["keywords"] == list(given[r["abstract"]]) for r in records)
    one = next(r for r in records if r["keywords"])
    html = (out / one["url"]).read_text(encoding="utf-8")
    assert 'class="keyword-link"' in html and f'<meta name="citation_keywords" content="{one["keywords"][0]}">' in html
    assert broken_links(out) == []


# --- previous / next within a track ------------------------------------------------------

def test_previous_and_next_within_track(notes_site, records):
    by_track = defaultdict(list)
    for r in records:
        if r["track"]:
            by_track[(r["venue"], r["year"], r["track"])].append(r)
    checked = 0
    for (venue, year, track), members in by_track.items():
        slug_v = urls.make_slug(f"{venue} {year}", "venue")
        track_page = notes_site / urls.track_path(slug_v, urls.make_slug(track.replace(" · ", " "), "track"))
        order = [Path(a["href"]).name for t, a, _ in elements(track_page) if "paper-link" in a.get("class", "")]
        assert sorted(order) == sorted(Path(r["url"]).name for r in members)
        for i, name in enumerate(order):
            tags = elements(notes_site / "papers" / name)
            prev = [Path(a["href"]).name for t, a, _ in tags if "track-prev" in a.get("class", "")]
            nxt = [Path(a["href"]).name for t, a, _ in tags if "track-next" in a.get("class", "")]
            assert prev == order[i - 1:i] and nxt == order[i + 1:i + 2]
            checked += 1
    assert checked == sum(len(m) for m in by_track.values()) > 0


def test_feature_pages_have_no_broken_links(notes_site):
    assert broken_links(notes_site) == []
    for path in (urls.AUTHORS, urls.TAGS, urls.KEYWORDS, urls.STARS):
        assert (notes_site / path).is_file()


# --- the notes parser on its own -----------------------------------------------------------

def _parse(text: str):
    from site_builder.diagnostics import Diagnostics
    from site_builder.model.notes import parse_note
    d = Diagnostics()
    note = parse_note(text, "n.md", lambda ref: "abc" if ref in ("abc", "a-slug") else None, d)
    return note, [str(x) for x in d]


def test_note_front_matter_forms():
    note, warnings = _parse("\ufeff---\r\npaper: 'a-slug'\r\nstatus: To Read\r\ntags:\r\n  - \"x, y\"\r\n  - z\r\n"
                            "rating: 2\r\n---\r\nBody *text*.\r\n")
    assert warnings == [] and note.paper_id == "abc" and note.status == "to-read"
    assert note.tags == ("x, y", "z") and note.rating == 2 and "<em>text</em>" in note.html
    note, warnings = _parse("---\npaper: abc\ntags: [a, 'b', a]\nrating:\n---\n")
    assert note.tags == ("a", "b") and note.html == "" and warnings == ["n.md:4: warning: rating '' is not a whole number from 1 to 5; ignored"]
    assert _parse("no front matter\n") == (None, ["n.md:1: warning: note has no front matter: the first line must be `---`"])
    note, warnings = _parse("---\nstatus: read\n---\n")
    assert note is None and "names no paper" in warnings[0]


def test_unreadable_and_duplicate_notes(tmp_path, seed_records, capsys):
    notes = tmp_path / "notes"
    notes.mkdir()
    pid = seed_records[0]["id"]
    (notes / "a.md").write_text(f"---\npaper: {pid}\nstatus: read\n---\nFirst.\n", encoding="utf-8")
    (notes / "b.md").write_text(f"---\npaper: {pid}\nstatus: reading\n---\nSecond.\n", encoding="utf-8")
    (notes / "c.md").write_bytes(b"---\npaper: \xff\xfe\n---\n")
    out = tmp_path / "site"
    assert build_into(out, "--notes", str(notes)) == 0
    err = capsys.readouterr().err
    assert f"{notes / 'b.md'}:1: warning: second note on paper {pid}" in err
    assert f"{notes / 'c.md'}: warning: cannot read note" in err
    html = (out / seed_records[0]["url"]).read_text(encoding="utf-8")
    assert "First." in html and "Second." not in html


def test_large_author_index_splits_by_letter(tmp_path, monkeypatch, seed_records):
    from site_builder.pages import plan as pages
    monkeypatch.setattr(pages, "AUTHORS_PER_INDEX_PAGE", 10)
    out = tmp_path / "site"
    assert build_into(out) == 0
    index = out / urls.AUTHORS
    letter_pages = [(index.parent / a["href"]).resolve() for t, a, _ in elements(index)
                    if t == "a" and "/az/" in "authors/" + a["href"]]
    assert letter_pages and all(p.is_file() for p in letter_pages)
    listed = []
    for page in letter_pages:
        listed += [a["href"] for t, a, _ in elements(page) if "author-link" in a.get("class", "")]
    authors = sorted(p.resolve() for p in (out / "authors").glob("*.html") if p.name != "index.html")
    searched = [href for href in listed if href.startswith("../../search.html?q=author%3A")]
    assert sorted((letter_pages[0].parent / href).resolve() for href in listed if href not in searched) == authors
    by_key = _papers_by_author(seed_records)
    assert len(authors) == len([k for k, v in by_key.items() if len(v) > 1]) and len(listed) == len(by_key)
    assert broken_links(out) == []


# --- properties over arbitrary text ---------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_escape_and_script_json_hold_for_any_text(text):
    out = escape(text)
    assert braces_balanced("{" + out + "}")
    assert not re.search(r"(?<!\\)[%&#$_]", out)
    encoded = script_json({"t": text})
    assert not re.search("[<>&\u2028\u2029]", encoded) and json.loads(encoded) == {"t": text}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(categories=["L", "Zs", "Pd", "Po", "Mn"]), max_size=40))
def test_author_key_is_stable_under_case_and_spacing(name):
    key = author_key(name)
    if name.isascii():
        assert author_key(name.upper()) == author_key(name.lower()) == key
    assert author_key("  " + name.replace(" ", "   ") + " ") == key
    assert author_key(key) == key


def test_absolute_urls_only_with_a_base_url(tmp_path, seed_records):
    out = tmp_path / "site"
    assert build_into(out, "--base-url", "https://example.org/repo") == 0
    record = seed_records[0]
    html = (out / record["url"]).read_text(encoding="utf-8")
    absolute = f"https://example.org/repo/{record['url']}"
    assert f'<meta name="citation_abstract_html_url" content="{absolute}">' in html
    blob = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S).group(1)
    assert json.loads(blob)["url"] == absolute
    venue_bib = out / urls.venue_bib_path(urls.make_slug(f"{record['venue']} {record['year']}", "venue"))
    assert f"url = {{{absolute}}}" in venue_bib.read_text(encoding="utf-8")


def test_bibtex_titles_keep_their_math_as_tex():
    """The sample's titles with ``$…$`` (3; the full corpus has 47, all kept) and titles written like them: BibTeX
    keeps each formula as written (``$L_2$``, not ``L2``; found by the new-user pass: ``$\\sqrt{n}$`` became
    ``n``), the words around it as the page's plain text, braces balanced; money (``$10 and $20``) stays escaped."""
    from site_builder.model import bibtex
    from site_builder.text.render import render_inline

    titles = [r["title"] for r in sample_records() if "$" in r["title"]]
    assert len(titles) >= 3
    titles += [r"Regret of Order $\sqrt{n}$ for Linear Bandits", r"$k$-Means Clustering in $\mathbb{R}^d$",
               r"Learning $\varepsilon$-Nash Equilibria with $O(1/\epsilon^2)$ Samples"]
    kept = 0
    for title in titles:
        value = bibtex.title_value(title, render_inline(title)[1])
        assert braces_balanced("{" + value + "}")
        formulas = re.findall(r"(?<!\\)\$([^$]+)(?<!\\)\$", title)
        if all(f"${f.strip()}$" in value for f in formulas):
            kept += 1
    assert kept == len(titles)
    value = bibtex.title_value("Agnostic PAC Learning of $k$-juntas Using $L_2$-Polynomial Regression",
                               "Agnostic PAC Learning of k-juntas Using L2-Polynomial Regression")
    assert value == "Agnostic {PAC} Learning of $k$-juntas Using $L_2$-Polynomial Regression"
    money = "Costs $10 and $20 for GPT-4"
    assert bibtex.title_value(money, render_inline(money)[1]) == r"Costs \$10 and \$20 for {GPT-4}"
