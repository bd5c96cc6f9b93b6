"""The sharded index (search/) is the Python-built lunr index, exactly: what the page reads back from all its
shards (assets/search-transport.js, in Node) equals, deep and exact, the serialised index of
site_builder/search/indexer.py, and queries, each loading only its shards, give the same results, scores
and order as lunr.Index.load of the serialised index."""

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
from site_builder.model import urls
from site_builder.search import transport
from papers_sample import SAMPLE
from site_builder.corpus import corpus_site, read_corpus
from site_builder.search.indexer import index_tables, lunr_json
from site_builder.search.documents import FIELDS, paper_terms, result_record
from site_builder.search.index import search_tables
from site_builder.search.shards import SHARD_CHARS, shard_files
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


def node_check(tmp_path, tables, docs, queries, target: int = 400) -> dict:
    """Write the sharded index of ``tables``/``docs`` (shards of about ``target`` characters: many, so that
    prefixes cross shards) and the whole index it stands for; read every shard back as the page does
    (``scripts/search_index_json.js``) and run each query on both (``tests/js/shards_check.js``).
    The report of shards_check.js, with ``"read"``: the index and records read back from the shards."""
    node = shutil.which("node")
    assert node, "node is required"
    site = tmp_path / "site"
    for path, text in shard_files(tables, docs, target).items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(text, encoding="utf-8")
    (tmp_path / "reference.json").write_text(json.dumps({"index": lunr_json(tables), "docs": docs}, ensure_ascii=False),
                                             encoding="utf-8")
    payload = {"site": str(site), "reference": str(tmp_path / "reference.json"), "queries": queries}
    out = subprocess.run([node, str(ROOT / "tests/js/shards_check.js")], input=json.dumps(payload),
                         capture_output=True, text=True, encoding="utf-8", check=True).stdout
    read = subprocess.run([node, str(ROOT / "scripts/search_index_json.js"), str(site)],
                          capture_output=True, text=True, encoding="utf-8", check=True).stdout
    return {**json.loads(out), "read": json.loads(read)}


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
                '"neural network"', "graph OR tree", "learning -title:graph", "title:graph -abstract:tree", "-graph",
                "model model models", "lea -learn", "con",
                "模型", "语言模", "テキスト", "텍스트", "gpt4o", "ＧＰＴ－４ｏ", "scholkopf", "עברית", "العربية", "𠮷野",
                "𠮷𠮸", "𠮷", "it's", "</script>", "\u2028", "a", "ab", "*", ":", ""]
    return queries


def check(report: dict, tables, docs, queries: list[str]) -> None:
    assert report["read"]["index"] == lunr_json(tables)  # deep and exact: every term, posting, vector, score
    assert report["read"]["docs"] == docs
    assert report["queries"] == len(queries) and report["mismatches"] == []


def test_seed_index_unpacks_to_the_python_index(tmp_path):
    site = seed_model()
    tables, docs = search_tables(site)
    queries = queries_of(site.papers, random.Random(8))
    report = node_check(tmp_path, tables, docs, queries)
    check(report, tables, docs, queries)
    assert report["results"] > 1000


@pytest.fixture(scope="module")
def hostile_sample():
    """The sample's 565 real papers plus the hostile texts as extra documents (title, abstract and a record each)."""
    site = corpus_site(read_corpus(SAMPLE))
    documents = [(urls.search_ref(i), paper_terms(p)) for i, p in enumerate(site.papers)]
    docs = {ref: {**result_record(p), "id": p.id} for (ref, _), p in zip(documents, site.papers)}
    for j, text in enumerate(HOSTILE_TEXTS):
        ref = urls.search_ref(len(site.papers) + j)
        documents.append((ref, {"title": index_tokens(text[:30]), "authors": index_tokens("Zoë O'Brien, 王小明"),
                                "abstract": index_tokens(text)}))
        docs[ref] = {"id": f"hostile{j}", "title": text[:40], "url": f"papers/h{j}.html", "authors": [text[-12:]],
                     "venue": "Venue 'X' \\ </script>", "year": 2020 + j % 3,
                     "track": None if j % 2 else text[5:15], "snippet": text}
    return site, index_tables(documents, FIELDS), docs


def test_corpus_sample_with_hostile_unicode_unpacks_to_the_python_index(tmp_path, hostile_sample):
    site, tables, docs = hostile_sample
    assert len(tables.refs) > 500 and any(ord(c) > 0xFFFF for t in tables.terms for c in t)
    queries = queries_of(site.papers, random.Random(5))
    report = node_check(tmp_path, tables, docs, queries)
    check(report, tables, docs, queries)
    assert report["results"] > 10000


def test_shard_files_are_safe_and_compact(hostile_sample):
    _, tables, docs = hostile_sample
    files = shard_files(tables, docs)
    assert files[urls.SEARCH_MANIFEST_JS].startswith("window.SEARCH_SHARDS = {")
    for path, text in files.items():
        assert text.endswith(");\n") or text.endswith("};\n"), path
        assert "<" not in text and "\u2028" not in text and "\u2029" not in text and "\r" not in text, path
    shards = [text for path, text in files.items() if path.startswith("search/terms/")]
    assert all(text.count("\n") == 1 for text in shards)  # no line break inside the strings
    assert max(map(len, shards)) < 3 * SHARD_CHARS  # a shard is small (a term alone may exceed the target)
    # the term shards are far smaller than the serialised index they stand for
    serialised = json.dumps(lunr_json(tables), ensure_ascii=False, separators=(",", ":"))
    assert sum(len(t.encode()) for t in shards) < 0.4 * len(serialised.encode())


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
        shard_files(tables, {"__proto__": {"venue": "V", "year": 2024, "track": None}})


def test_empty_index_packs_and_unpacks(tmp_path):
    tables = index_tables([], FIELDS)
    report = node_check(tmp_path, tables, {}, ["x"])
    check(report, tables, {}, ["x"])
