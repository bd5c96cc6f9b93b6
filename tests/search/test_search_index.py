"""The directly written index: what lunr.js's own Builder writes, loadable whatever the Unicode,
ranked as documented, and queried without exceptions (through Node and lunr.js 2.3.9)."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess

from conftest import ROOT, build_into
from papers_sample import SAMPLE
from search_helpers import seed_model, site_search_data
from site_builder.corpus import corpus_site, read_corpus
from site_builder.search.indexer import build_index, js_sort_key
from site_builder.search.documents import ABSTRACT_CHARS, FIELDS, document_terms, search_texts
from site_builder.search.tokenize import index_tokens

NODE = shutil.which("node")

UNICODE_TEXTS = [
    "Emoji 😀🔥👩‍🔬 and flags 🇫🇷🇯🇵 in a paper about 🤖 robots",
    "大语言模型的推理能力 with 中文 and 日本語のテキスト and 한국어 텍스트",
    "Full-width ＧＰＴ－４ｏ and ｈａｌｆ ﾃﾞｰﾀ and ligatures ﬁne ﬂow",
    "Combining marks: Schölkopf, naïve, x\u0308\u0308, a\u0301\u0327 e\u20dd",
    "Right-to-left: עברית טקסט and العربية النص with \u200f marks \u202e",
    "Astral: 𝒪(n²) 𝐀𝐁𝐂 𠮷野家 \U0002070e \U0001d7d8 and private \ue000 \U000f0000",
    "Mixed ￿ BOM\ufeff ZWJ\u200d NBSP\u00a0 ⁂ ℃ № ™ Ⅻ ½ ǅ İ ß ΐ",
    "Sort order: \ufa0e and \ufa0f vs \U00020bb7 \U0002a6b2 and \U00010400 (astral terms sort before U+E000…U+FFFF in JS, after in Python)",
]


def node_json(script: str, payload: object) -> object:
    assert NODE, "node is required"
    out = subprocess.run([NODE, str(ROOT / "tests/js" / script)], input=json.dumps(payload),
                         capture_output=True, text=True, encoding="utf-8", check=True).stdout
    return json.loads(out)


def vectors_by_term(index: dict) -> dict[str, dict[str, float]]:
    """``{fieldRef: {term: score}}`` of a serialised index (non-empty vectors)."""
    terms = {posting["_index"]: term for term, posting in index["invertedIndex"]}
    out = {}
    for key, elements in index["fieldVectors"]:
        if elements:
            out[key] = {terms[elements[i]]: elements[i + 1] for i in range(0, len(elements), 2)}
    return out


def postings(index: dict) -> dict[str, dict[str, list[str]]]:
    return {t: {f: sorted(refs) for f, refs in p.items() if f != "_index"} for t, p in index["invertedIndex"]}


def test_same_index_as_lunr_js_builder(seed_site):
    data = site_search_data(seed_site)
    # Rebuild the seeds' documents as term lists, plus the Unicode texts as extra documents.
    papers = seed_model().papers
    docs = []
    for i, paper in enumerate(papers):
        terms = {}
        for name, (counts, length) in document_terms(search_texts(paper)).items():
            terms[name] = [t for t, k in counts.items() for _ in range(k)]
            assert len(terms[name]) == length
        docs.append([f"p{i}", terms])
    for i, text in enumerate(UNICODE_TEXTS):
        docs.append([f"u{i}", {"title": index_tokens(text[:20]), "abstract": index_tokens(text)}])
    mine = build_index(docs, FIELDS)
    theirs = node_json("lunr_reference.js", {"fields": [list(f) for f in FIELDS], "docs": docs})
    assert mine["version"] == theirs["version"] == "2.3.9"
    assert mine["fields"] == theirs["fields"] and mine["pipeline"] == theirs["pipeline"] == []
    assert [t for t, _ in mine["invertedIndex"]] == [t for t, _ in theirs["invertedIndex"]]
    assert postings(mine) == postings(theirs)
    assert vectors_by_term(mine) == vectors_by_term(theirs)
    assert len(data["docs"]) == len(papers)


def test_rankings_agree_with_lunr_js_built_index(seed_site, seed_records):
    site = corpus_site(read_corpus(SAMPLE, sample=300, seed=11))
    docs = []
    for i, paper in enumerate(site.papers):
        docs.append([str(i), {n: [t for t, k in c.items() for _ in range(k)]
                              for n, (c, _) in document_terms(search_texts(paper)).items()}])
    mine = build_index(docs, FIELDS)
    theirs = node_json("lunr_reference.js", {"fields": [list(f) for f in FIELDS], "docs": docs})
    rng = random.Random(3)
    queries = [p.title_text for p in site.papers[:40]]
    queries += [" ".join(rng.sample(p.rendered.text.split(), 2)) for p in site.papers[40:120]]
    queries += ["learning", "graph neural network", "title:learning", "author:wang", "abstract:robust"]
    mine_out, theirs_out = node_json("search_queries.js", {"indexes": [mine, theirs], "queries": queries})
    assert all(r["ok"] for r in mine_out)

    def rounded(out):  # term numbering differs, so dot products add up in another order (last-bit noise)
        return [[(ref, round(score, 9), titles) for ref, score, titles in r["results"]] for r in out]

    assert rounded(mine_out) == rounded(theirs_out)
    assert sum(len(r["results"]) for r in mine_out) > 300


def test_index_terms_are_in_js_order_and_load_with_any_unicode(tmp_path):
    docs = [(f"u{i}", {"title": index_tokens(t[:30]), "abstract": index_tokens(t)}) for i, t in enumerate(UNICODE_TEXTS)]
    index = build_index(docs, FIELDS)
    terms = [t for t, _ in index["invertedIndex"]]
    assert terms == sorted(terms, key=js_sort_key)
    assert terms != sorted(terms), "the sample must hold terms whose Python and JS orders differ"
    python_order = dict(index, invertedIndex=sorted(index["invertedIndex"]))
    (refused,) = node_json("search_queries.js", {"indexes": [python_order], "queries": ["x"]})
    assert "Out of order" in refused["load_error"]
    queries = ["模型", "语言模", "テキスト", "텍스트", "gpt4o", "ＧＰＴ－４ｏ", "scholkopf", "Schölkopf", "עברית", "العربية",
               "𠮷野", "robots", "😀", "flow"]
    (result,) = node_json("search_queries.js", {"indexes": [index], "queries": queries})
    assert isinstance(result, list), result
    found = {q: [r[0] for r in res["results"]] for q, res in zip(queries, result)}
    expected = {"模型": "u1", "语言模": "u1", "テキスト": "u1", "텍스트": "u1", "gpt4o": "u2", "ＧＰＴ－４ｏ": "u2",
                "scholkopf": "u3", "Schölkopf": "u3", "עברית": "u4", "العربية": "u4", "𠮷野": "u5", "robots": "u0",
                "flow": "u2"}
    assert {q: found[q] for q in expected} == {q: [ref] for q, ref in expected.items()}
    assert found["😀"] == []


def test_title_match_ranks_above_abstract_only_match(seed_site):
    data = site_search_data(seed_site)
    docs = data["docs"]
    words = sorted({w for d in docs.values() for w in d["title"].split() if len(w) > 4})
    (result,) = node_json("search_queries.js", {"indexes": [data["index"]], "queries": words})
    checked = 0
    for word, res in zip(words, result):
        flags = [r[2] > 0 for r in res["results"]]
        assert flags == sorted(flags, reverse=True), word
        if True in flags and False in flags:
            checked += 1
    assert checked >= 20


def test_query_fuzz_never_throws(seed_site):
    """600 seeded random strings (query syntax: quotes, minus, OR; Unicode, long inputs) through the site's
    query code, with the records phrases are checked against."""
    data = site_search_data(seed_site)
    rng = random.Random(20261201)
    alphabet = list("abcdefghijklmnopqrstuvwxyz0123456789 :~^+-*\"'()[]{}\\/$.,;!?<>&|@#%=_`") + \
        ["ü", "ß", "大", "模型", "😀", "\u0301", "\u200d", "\ufeff", "\u202e", "ＧＰＴ", "title:", "author:", "*", "~2", "^10",
         " OR ", "OR", " -", "\"", "-\"", "title:\"", "model", " learning "]
    queries = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(590)]
    queries += ["*", "~", "^", ":", "+", "-", "title:", "author:", "a" * 500, "\ud7ff" * 3, '"', '""', '-"', "OR",
                "OR OR", "- -", '"a" OR', '-"the of"', 'title:"', '"model', "--model", "-title:", "model OR -learning"]
    # Real title words wrapped in lunr query syntax still find their paper; with a minus, they exclude it.
    words = sorted({w for d in data["docs"].values() for w in d["title"].split() if w.isalpha() and len(w) > 5})
    decorated = {f"{pre}{w}{post}": w for w in rng.sample(words, 60)
                 for pre, post in [rng.choice([("+", ""), ("-", ""), ("title:", ""), (":", ""), ("", "*"),
                                               ("", "~"), ("", "^"), ("", "~1"[:1]), ("*", ""), ('"', '"'),
                                               ('"', ""), ("OR ", ""), ("", " OR")])]}
    queries += list(decorated)
    (result,) = node_json("search_queries.js", {"indexes": [data["index"]], "queries": queries, "docs": [data["docs"]]})
    assert len(queries) >= 600
    assert [(q, r["error"]) for q, r in zip(queries, result) if not r["ok"]] == []
    by_query = dict(zip(queries, result))
    for query, word in decorated.items():
        titles = [data["docs"][ref]["title"] for ref, _, _ in by_query[query]["results"]]
        if query.startswith("-"):  # an exclusion alone finds nothing and says so
            assert titles == [] and by_query[query]["excludedOnly"], query
        else:
            assert any(word in t for t in titles), query


def test_site_data_has_the_documented_shape(seed_site, seed_records):
    data = site_search_data(seed_site)
    assert set(data) == {"index", "docs"}
    by_id = {r["id"]: r for r in seed_records}
    plain = {p.id: p.rendered.text for p in seed_model().papers}
    for ref, doc in data["docs"].items():
        record = by_id[doc["id"]]
        assert set(doc) == {"id", "title", "url", "authors", "venue", "year", "track", "abstract"}
        assert doc["url"] == record["url"] and doc["track"] == record["track"]
        assert doc["venue"] == f'{record["venue"]} {record["year"]}' and doc["year"] == record["year"]
        whole = " ".join(plain[doc["id"]].split())  # the abstract's plain text, kept whole up to ABSTRACT_CHARS
        assert doc["abstract"] == whole if len(whole) <= ABSTRACT_CHARS else \
            (len(doc["abstract"]) <= ABSTRACT_CHARS + 1 and whole.startswith(doc["abstract"].rstrip("…")))
    refs = {ref for _, p in data["index"]["invertedIndex"] for f, docs in p.items() if f != "_index" for ref in docs}
    assert refs == set(data["docs"])


def test_chinese_words_are_found_by_any_part_in_every_field(tmp_path):
    """A two- or three-character query that is part of a longer Chinese word finds its paper, whether the word
    is in the title, a track or an author's name (the small lists of tests/fixtures/lists)."""
    lists = ROOT / "tests" / "fixtures" / "lists"
    (tmp_path / "site.toml").write_text("", encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=lists, config=tmp_path / "site.toml") == 0
    data = site_search_data(tmp_path / "site")
    titles = {ref: doc["title"] for ref, doc in data["docs"].items()}
    queries = {"预演": "大预演模型", "演模": "大预演模型", "经网": "图神经网络的泛化", "网络的泛": "图神经网络的泛化",
               "图像": "Promptable Segmentation for Medical Images", "维重": "Fast Surface Reconstruction from Sparse Views",
               "小明": "Promptable Segmentation for Medical Images", "陈静": "Fast Surface Reconstruction from Sparse Views"}
    (found,) = node_json("search_queries.js", {"indexes": [data["index"]], "queries": list(queries)})
    for (query, title), answer in zip(queries.items(), found):
        assert answer["ok"], answer
        assert title in [titles[ref] for ref, _, _ in answer["results"]], query


def _word_starts(text: str, prefix: str) -> bool:
    """Does ``text`` hold a word starting with ``prefix`` (case and plural *s* aside)?"""
    return re.search(rf"(?<![^\W_]){re.escape(prefix)}", text, re.IGNORECASE) is not None


def test_exclusions_phrases_and_or_select_what_they_say(seed_site):
    """``-word`` drops exactly the papers the word matches; ``"a b"`` keeps exactly the papers of ``a b``
    whose record holds the words next to each other; ``a OR b`` is the union of ``a`` and ``b``."""
    data = site_search_data(seed_site)
    docs = data["docs"]
    queries = ["model", "diffusion", "-diffusion model", "model -diffusion", "language model", '"language model"',
               "model language", '"model language"', "diffusion OR transformer", "transformer", "-model",
               "\u201clanguage model\u201d", "\u201elanguage model\u201c", "\u00ablanguage model\u00bb", "\u300clanguage model\u300d"]
    found = dict(zip(queries, node_json("search_queries.js", {"indexes": [data["index"]], "queries": queries,
                                                              "docs": [docs]})[0]))
    refs = {q: [r[0] for r in found[q]["results"]] for q in queries}
    text = {ref: " ".join([d["title"], ", ".join(d["authors"]), d["track"] or "", d["abstract"]]) for ref, d in docs.items()}
    kept = [r for r in refs["model"] if r not in set(refs["diffusion"])]
    assert 0 < len(kept) < len(refs["model"])
    assert refs["-diffusion model"] == kept and refs["model -diffusion"] == kept
    assert not any(_word_starts(text[r], "diffusion") for r in kept)
    next_to = [r for r in refs["language model"] if re.search(r"(?<![^\W_])language\W+model", text[r], re.I)]
    assert 0 < len(next_to) < len(refs["language model"])  # the seeds hold both kinds of paper
    assert refs['"language model"'] == next_to
    # the quotation marks of smart punctuation and other keyboards quote too (found by the new-user pass)
    assert all(refs[q] == next_to for q in ["\u201clanguage model\u201d", "\u201elanguage model\u201c",
                                            "\u00ablanguage model\u00bb", "\u300clanguage model\u300d"])
    assert refs['"model language"'] == [r for r in refs["model language"]
                                        if re.search(r"(?<![^\W_])models?\W+language", text[r], re.I)]
    assert set(refs["diffusion OR transformer"]) == set(refs["diffusion"]) | set(refs["transformer"])
    assert len(refs["diffusion OR transformer"]) > max(len(refs["diffusion"]), len(refs["transformer"]))
    assert refs["-model"] == [] and found["-model"]["excludedOnly"]


def test_a_phrase_with_a_field_is_checked_in_that_field(seed_site):
    """``title:"a b"`` finds a title's two neighbouring words; ``abstract:"a b"`` only where the abstract has them."""
    data = site_search_data(seed_site)
    docs = data["docs"]

    def next_to(pair: str) -> str:
        return r"\W+".join(map(re.escape, pair.split()))

    candidates = [(r, m) for r, d in docs.items() for m in re.findall(r"[A-Za-z]{5,} [A-Za-z]{5,}", d["title"])]
    ref, pair = next((r, m) for r, m in candidates if not re.search(next_to(m), docs[r]["abstract"], re.I))
    queries = [f'title:"{pair}"', f'abstract:"{pair}"', f'"{pair}"']
    found = node_json("search_queries.js", {"indexes": [data["index"]], "queries": queries, "docs": [docs]})[0]
    title, abstract, anywhere = ([r[0] for r in f["results"]] for f in found)
    assert ref in title and ref in anywhere and ref not in abstract  # the pair is in its title, not its abstract
    assert set(title) == {r for r in anywhere if re.search(next_to(pair), docs[r]["title"], re.I)}
    assert set(abstract) == {r for r in anywhere if re.search(next_to(pair), docs[r]["abstract"], re.I)}
    assert set(title) | set(abstract) <= set(anywhere)


def test_snippet_shows_the_sentences_that_match(seed_site):
    """``SearchCore.snippet`` on the seeds' records: the passage is a part of the abstract of at most 300
    characters, holds a query word whenever the abstract does, and is the abstract's start when nothing matches."""
    data = site_search_data(seed_site)
    heat = next(d for d in data["docs"].values() if "heat kernel" in " ".join(d["abstract"].split()))
    cases = [(heat["abstract"], "heat kernel"), (heat["abstract"], "zzzqx")]
    cases += [(d["abstract"], q) for d in list(data["docs"].values())[:20] for q in ("model", "learning data")]
    out = node_json("core_calls.js", [["snippet", text, query] for text, query in cases])
    start = heat["abstract"][:100]
    assert "heat kernel" in out[0].lower() and not out[0].startswith(start[:40])
    assert out[1].rstrip(" …").startswith(" ".join(heat["abstract"][:200].split()[:5]))
    for (text, query), passage in zip(cases, out):
        assert len(passage) <= 300 + 4
        assert passage.strip("… ") in text
        words = query.split()
        if any(_word_starts(text, w) for w in words):
            assert any(_word_starts(passage, w) for w in words), (query, passage)


def test_german_transliteration_finds_umlauts_and_leaves_other_words_alone(tmp_path):
    """``mueller`` finds Müller as ``muller`` and ``müller`` do, in words and phrases (found by the new-user pass:
    it found nothing); words with ``ue`` of their own (``queue``, ``blue``) match only what they did."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    rows = [{"title": "Schöne Attention für Graphen", "authors": ["Jörg Müller", "Ann Lee"], "venue": "ICLR",
             "year": 2025, "abstract": "We study attention over graphs with Müller's method."},
            {"title": "Queue Models", "authors": ["Hans Mueller"], "venue": "ICLR", "year": 2025,
             "abstract": "A queue of jobs under blue skies, served by Mueller's rule."},
            {"title": "Blurred Queues", "authors": ["Bo Chen"], "venue": "ICLR", "year": 2025,
             "abstract": "Blurry images of queues and quays."}]
    (seeds / "papers.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                                        encoding="utf-8")
    (tmp_path / "site.toml").write_text("", encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=tmp_path / "site.toml") == 0
    data = site_search_data(tmp_path / "site")
    title = {ref: doc["title"] for ref, doc in data["docs"].items()}
    queries = {"mueller": {rows[0]["title"], rows[1]["title"]}, "muller": {rows[0]["title"]},
               "müller": {rows[0]["title"]}, "joerg": {rows[0]["title"]}, "schoene": {rows[0]["title"]},
               "fuer": {rows[0]["title"]}, '"jörg mueller"': {rows[0]["title"]}, '"joerg mueller"': {rows[0]["title"]},
               'author:"joerg müller"': {rows[0]["title"]}, "queue": {rows[1]["title"], rows[2]["title"]},
               "blue": {rows[1]["title"]}, "quee": set()}
    (found,) = node_json("search_queries.js", {"indexes": [data["index"]], "queries": list(queries),
                                                "docs": [data["docs"]]})
    assert {q: {title[ref] for ref, _, _ in answer["results"]} for q, answer in zip(queries, found)} == queries


def test_a_phrase_in_the_authors_stays_within_one_name(tmp_path):
    """``author:"Lin Wei"`` finds Lin Wei's paper, not one by "Mei Lin, Wei Chen" (found by the new-user pass: the
    A–Z index links an author of one paper to that search, and it showed someone else's paper too)."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    rows = [{"title": "Sparse Attention", "authors": ["Mei Lin", "Wei Chen"], "venue": "ICLR", "year": 2025,
             "abstract": "We prune attention heads."},
            {"title": "Dense Retrieval", "authors": ["Lin Wei", "Omar Haddad"], "venue": "ICLR", "year": 2025,
             "abstract": "We retrieve passages with dense vectors."}]
    (seeds / "papers.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    (tmp_path / "site.toml").write_text("", encoding="utf-8")
    assert build_into(tmp_path / "site", "--no-cache", seeds=seeds, config=tmp_path / "site.toml") == 0
    data = site_search_data(tmp_path / "site")
    title = {ref: doc["title"] for ref, doc in data["docs"].items()}
    queries = {'author:"Lin Wei"': {"Dense Retrieval"}, '"lin wei"': {"Dense Retrieval"},
               'author:"Wei Chen"': {"Sparse Attention"}, 'author:"Mei Lin"': {"Sparse Attention"},
               'author:"Wei Omar"': set(), "author:lin": {"Sparse Attention",
                                                                                            "Dense Retrieval"}}
    (found,) = node_json("search_queries.js", {"indexes": [data["index"]], "queries": list(queries),
                                                "docs": [data["docs"]]})
    assert {q: {title[ref] for ref, _, _ in answer["results"]} for q, answer in zip(queries, found)} == queries
