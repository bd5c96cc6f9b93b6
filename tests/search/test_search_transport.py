"""The packed index (search-index.js) is the Python-built lunr index, exactly: what the page unpacks
(assets/search-transport.js, in Node) equals, deep and exact, the serialised index of
site_builder/search/indexer.py, its token set has the same nodes and edges as lunr's own, and queries give
the same results, scores and order as lunr.Index.load of the serialised index."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import ROOT
from search_helpers import seed_model
from site_builder.search import transport
from papers_sample import SAMPLE
from site_builder.corpus import corpus_site, read_corpus
from site_builder.search.indexer import index_tables, lunr_json
from site_builder.search.documents import FIELDS, paper_terms, result_record, short_ref
from site_builder.search.index import search_tables
from site_builder.search.tokenize import index_tokens

#: Texts that stress Unicode handling: emoji, CJK (with astral ideographs that share a high surrogate),
#: full-width, combining marks, right-to-left, private use, and characters that end strings or scripts.
HOSTILE_TEXTS = [
    "Emoji 😀🔥👩‍🔬 and flags 🇫🇷🇯🇵 in a paper about 🤖 robots",
    "大语言模型的推理能力 with 中文 and 日本語のテキスト and 한국어 텍스트",
    "Full-width ＧＰＴ－４ｏ and ｈａｌｆ ﾃﾞｰﾀ and ligatures ﬁne ﬂow",
    "Combining marks: Schölkopf, naïve, x\u0308\u0308, a\u0301\u0327 e\u20dd",
    "Right-to-left: עברית טקסט and العربية النص with \u200f marks \u202e",
    "Astral: 𝒪(n²) 𝐀𝐁𝐂 𠮷野家 𠮷𠮸 𠮷𠮹𠮺 \U0002070e \U0001d7d8 and private \ue000 \U000f0000",
    "Ends: it's a \"quote\" \\ backslash </script><script>alert(1)</script> \u2028 \u2029 line\nbreak\r tab\t",
    "Sort order: \ufa0e and \ufa0f vs \U00020bb7 \U0002a6b2 and \U00010400 \uffef",
]


def node_check(tmp_path, tables, docs, queries) -> dict:
    """Write the packed script and the reference files of ``tables``/``docs``, run tests/js/transport_check.js."""
    node = shutil.which("node")
    assert node, "node is required"
    site = tmp_path / "site"
    site.mkdir()
    (site / "search-index.js").write_text(transport.index_script(tables, docs), encoding="utf-8")
    (tmp_path / "reference.json").write_text(json.dumps(lunr_json(tables), ensure_ascii=False), encoding="utf-8")
    (tmp_path / "docs.json").write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    payload = {"script": str(site / "search-index.js"), "reference": str(tmp_path / "reference.json"),
               "docs": str(tmp_path / "docs.json"), "queries": queries}
    out = subprocess.run([node, str(ROOT / "tests/js/transport_check.js")], input=json.dumps(payload),
                         capture_output=True, text=True, encoding="utf-8", check=True).stdout
    return json.loads(out)


def queries_of(papers, rng: random.Random) -> list[str]:
    """Queries as readers type them: titles, word pairs, prefixes, field searches, Unicode and syntax."""
    queries = [p.title_text for p in papers[:60]]
    for p in papers[60:260]:
        words = p.rendered.text.split()
        if len(words) >= 2:
            queries.append(" ".join(rng.sample(words, 2)))
    vocabulary = sorted({w.lower() for p in papers[:300] for w in re.findall(r"[A-Za-z]{5,}", p.title_text)})
    queries += [w[:3] for w in rng.sample(vocabulary, 40)] + [w[:5] + "*" for w in rng.sample(vocabulary, 20)]
    queries += [f"title:{w}" for w in rng.sample(vocabulary, 15)] + [f"author:{p.authors[0].split()[-1]}"
                                                                      for p in papers[:15] if p.authors]
    queries += ["learning", "graph neural network", "abstract:robust", "track:vision", "model~1", "+data -graph",
                "模型", "语言模", "テキスト", "텍스트", "gpt4o", "ＧＰＴ－４ｏ", "scholkopf", "עברית", "العربية", "𠮷野",
                "𠮷𠮸", "𠮷", "it's", "</script>", "\u2028", "a", "ab", "*", ":", ""]
    return queries


def check(report: dict, queries: list[str]) -> None:
    assert report["serialised"] == "equal"
    assert report["index"] == "equal"
    assert report["tokenSet"] == "equal"
    assert report["docs"] == "equal"
    assert report["queries"] == len(queries) and report["mismatches"] == []


def test_seed_index_unpacks_to_the_python_index(tmp_path):
    site = seed_model()
    tables, docs = search_tables(site)
    queries = queries_of(site.papers, random.Random(8))
    report = node_check(tmp_path, tables, docs, queries)
    check(report, queries)
    assert report["results"] > 1000


@pytest.fixture(scope="module")
def hostile_sample():
    """The sample's 565 real papers plus the hostile texts as extra documents (title, abstract and a record each)."""
    site = corpus_site(read_corpus(SAMPLE))
    documents = [(short_ref(i), paper_terms(p)) for i, p in enumerate(site.papers)]
    docs = {ref: {**result_record(p), "id": p.id} for (ref, _), p in zip(documents, site.papers)}
    for j, text in enumerate(HOSTILE_TEXTS):
        ref = short_ref(len(site.papers) + j)
        documents.append((ref, {"title": index_tokens(text[:30]), "authors": index_tokens("Zoë O'Brien, 王小明"),
                                "abstract": index_tokens(text)}))
        docs[ref] = {"id": f"hostile{j}", "title": text[:40], "url": f"papers/h{j}.html", "authors": [text[-12:]],
                     "venue": "Venue 'X' \\ </script>", "track": None if j % 2 else text[5:15], "snippet": text}
    return site, index_tables(documents, FIELDS), docs


def test_corpus_sample_with_hostile_unicode_unpacks_to_the_python_index(tmp_path, hostile_sample):
    site, tables, docs = hostile_sample
    assert len(tables.refs) > 500 and any(ord(c) > 0xFFFF for t in tables.terms for c in t)
    queries = queries_of(site.papers, random.Random(5))
    report = node_check(tmp_path, tables, docs, queries)
    check(report, queries)
    assert report["results"] > 10000


def test_script_is_safe_and_compact(hostile_sample):
    _, tables, docs = hostile_sample
    script = transport.index_script(tables, docs)
    assert script.startswith("window.SEARCH_DATA = {") and script.endswith("};\n")
    assert "<" not in script and "\u2028" not in script and "\u2029" not in script and "\r" not in script
    assert script.count("\n") == 11  # one line per part (11 parts): no line break inside the strings
    # far smaller than the serialised index it stands for
    serialised = json.dumps(lunr_json(tables), ensure_ascii=False, separators=(",", ":"))
    assert len(script.encode()) < 0.6 * len(serialised.encode()) + len(json.dumps(docs, ensure_ascii=False).encode())


def test_numbers_round_trip():
    rng = np.random.default_rng(4)
    values = np.r_[0, 1, transport.FINAL - 1, transport.FINAL, transport.FINAL * transport.CONT,
                   2**40, rng.integers(0, 10 ** rng.integers(1, 12, 5000))]
    text = transport.pack_numbers(values)
    assert set(text) <= set(transport.DIGITS) and "'" not in text and "\\" not in text and "<" not in text
    assert transport.unpack_numbers(text) == values.tolist()
    assert len(transport.pack_numbers(np.arange(transport.FINAL))) == transport.FINAL  # one character each
    with pytest.raises(ValueError):
        transport.pack_numbers(np.array([3, -1]))


def test_front_coding_counts_utf16_units_and_never_splits_a_pair():
    terms = ("ab", "abc", "abd", "b", "𠮷", "𠮷𠮸", "𠮷𠮹", "𠮸", "\uffef")
    lengths, suffixes = transport.front_code(terms)
    numbers = transport.unpack_numbers(lengths)
    assert numbers[2 * 5: 2 * 7] == [2, 2, 2, 2]  # "𠮷𠮸" after "𠮷": 2 units shared, 2 new; same for "𠮷𠮹"
    assert suffixes == "ab" + "c" + "d" + "b" + "𠮷" + "𠮸" + "𠮹" + "𠮸" + "\uffef"


def test_front_coding_of_all_terms_at_once_equals_the_code_point_loop():
    """front_code works on UTF-16 units of all terms at once; it equals comparing code points term by term,
    on a real vocabulary and on random terms mixing ASCII, BMP and astral characters (shared prefixes
    ending inside a surrogate pair), sorted or not; and terms that are not UTF-16 raise as the loop does."""
    from site_builder.search.indexer import js_sort_key

    vocab = search_tables(seed_model())[0].terms
    assert len(vocab) > 1000
    assert transport.front_code(vocab) == transport._front_code_loop(vocab)
    rng = random.Random(5)
    alphabet = ["a", "b", "ab", "é", "\uffef", "\ud7ff", "\ue000", "𠮷", "𠮸", "\U0001F600", "z"]
    for _ in range(2000):
        terms = list({"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(0, 12))})
        terms.sort(key=js_sort_key) if rng.random() < 0.7 else rng.shuffle(terms)
        assert transport.front_code(tuple(terms)) == transport._front_code_loop(tuple(terms)), terms
    with pytest.raises(UnicodeEncodeError):
        transport.front_code(("a", "\ud800"))


def test_refs_that_could_name_object_properties_are_refused():
    tables = index_tables([("__proto__", {"title": ["x"]})], FIELDS)
    with pytest.raises(ValueError, match="refs must be"):
        transport.index_script(tables, {"__proto__": {}})


def test_empty_index_packs_and_unpacks(tmp_path):
    tables = index_tables([], FIELDS)
    report = node_check(tmp_path, tables, {}, ["x"])
    assert report["serialised"] == report["index"] == report["docs"] == "equal"
    assert report["mismatches"] == []
