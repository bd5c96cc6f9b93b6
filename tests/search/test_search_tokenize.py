"""The tokenizer of the index (site_builder/search/tokenize.py) and of the query (assets/search-core.js) agree.

Both run over the seeds, the vocabulary of the sample of real papers, hand-picked hard Unicode and
seeded random strings; the JS side runs in Node (tests/js/core_tokens.js).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import unicodedata
from collections import Counter

from conftest import ROOT, SEEDS
from papers_sample import SAMPLE
from site_builder.corpus import read_corpus
from site_builder.search.tokenize import CJK_RANGES, CONNECTORS, PREFIX_MIN, STOP_WORDS, index_tokens, normalise, query_alternatives, term_counts, transliterated

NODE = shutil.which("node")
CORE = ROOT / "assets" / "search-core.js"

HARD = [
    "GPT-4o", "gpt4o", "gpt 4o", "LLaMA-2-7B", "ResNet-50", "ResNet50", "x86-64", "e.g.", "U.S.", "it's",
    "state-of-the-art", "Schölkopf", "Schölkopf", "naïve", "ΑΣΣΟΣ", "ὈΔΥΣΣΕΎΣ", "İstanbul", "STRASSE ß",
    "ﬁne-tuning", "ＧＰＴ－４ｏ", "Ⅻ ½ ²³", "𝒪(n²)", "𝐀𝐁𝐂", "大语言模型的推理", "日本語のテキスト", "한국어 텍스트",
    "ｶﾀｶﾅ", "模型-2", "GPT模型4o", "😀 emoji 👩‍🔬 test", "🇫🇷", "עברית טקסט", "العربية النص", "हिन्दी पाठ",
    "ไทย", "a\u0301\u0327b", "\u200bzero\u200dwidth\ufeff", "tab\tnew\nline", "$\\mathcal{O}(k)$",
    "\\alpha_{t}^{2}", "C++ C# F#", "--", "'", "title:foo", "a:b:c", "~^+-*", "\U0002070e\U00020731", "𠮷野家",
    "Ǆ ǅ ǆ", "ﬀ ﬃ", "℃ № ™", "\u0130\u0131", "ΐ", "\U0001d7d8\U0001d7d9", "٣٤٥ ۴۵", "१२३", "x\u0308\u0308y",
]


def random_strings(n: int, seed: int) -> list[str]:
    """Seeded random strings mixing ASCII, query syntax, punctuation and code points from all planes.

    Random code points are drawn among those this Python's Unicode version
    assigns: code points assigned later (Node's ICU is newer) are classed
    differently on the two sides, a known limit (see ``test_character_classes…``).
    """
    rng = random.Random(seed)
    pools = ["abcxyzGPT0123456789", " -_./'+:~^*\"()[]{}\\$", "éüßçñøΣσςİıǅ", "中文字词日本語ひらがなカタカナ한국어",
             "\u0301\u0308\u0327\u200d\ufe0f", "😀👩🔬🇫🇷", "ＡＢＣ１２３－", "עבריתالعربية"]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 12)):
            if rng.random() < 0.15:
                ch = "\ufffd"
                while ch == "\ufffd" or unicodedata.category(ch) in ("Cn", "Cs"):
                    ch = chr(rng.choice([rng.randint(0x20, 0x2FFF), rng.randint(0x3000, 0xD7FF),
                                         rng.randint(0xE000, 0xFFFD), rng.randint(0x10000, 0x10FFFF)]))
                parts.append(ch)
            else:
                parts.append(rng.choice(rng.choice(pools)))
        out.append("".join(parts))
    return out


def js_tokens(texts: list[str]) -> list[dict]:
    """``[{norm, tokens, query}]`` of ``texts`` from the JS side."""
    assert NODE, "node is required"
    out = subprocess.run([NODE, str(ROOT / "tests/js/core_tokens.js")], input=json.dumps(texts),
                         capture_output=True, text=True, encoding="utf-8", check=True).stdout
    return json.loads(out)


def assert_agree(texts: list[str]) -> None:
    assert [t for t in texts if Counter(index_tokens(t)) != term_counts(t)] == []  # the bulk counter
    js = js_tokens(texts)
    assert len(js) == len(texts)
    bad = [(t, j) for t, j in zip(texts, js)
           if (normalise(t), index_tokens(t), query_alternatives(t), transliterated(t))
           != (j["norm"], j["tokens"], j["query"], j["german"])]
    assert bad == [], bad[:5]


def test_constants_agree():
    out = subprocess.run([NODE, "-e", f"const c=require({json.dumps(str(CORE))});"
                          "console.log(JSON.stringify([c.CJK_RANGES,c.CONNECTORS,Object.keys(c.STOP_WORDS),c.PREFIX_MIN]))"],
                         capture_output=True, text=True, check=True).stdout
    ranges, connectors, stops, prefix = json.loads(out)
    assert [tuple(r) for r in ranges] == list(CJK_RANGES)
    assert connectors == CONNECTORS and set(stops) == STOP_WORDS and prefix == PREFIX_MIN


def test_examples():
    assert index_tokens("GPT-4o beats LLaMA-2") == ["gpt", "4o", "gpt4o", "beat", "llama", "2", "llama2"]
    assert query_alternatives("gpt4o") == [[["gpt4o"], ["gpt", "4o"]]]
    assert index_tokens("大语言模型") == ["大语", "语言", "言模", "模型"]
    assert normalise("ＧＰＴ－４ｏ Schölkopf") == "gpt-4o scholkopf"
    # letters with no mark to drop fold too (found by the new-user pass: "lukasz" did not find Łukasz)
    assert normalise("Łukasz Søren Straße Æsir Œuvre Þór Đorđe") == "lukasz soren strasse aesir oeuvre thor dorde"
    assert index_tokens("the of and") == [] and query_alternatives("~^+-*:") == []
    assert index_tokens("studies methods processes") == ["study", "method", "processe"]


def test_hard_unicode_and_random_strings_agree():
    assert_agree(HARD + random_strings(3000, seed=5) + ["a__b", "_x_", "a-_b", "a--b", "__init__", "x_1-2_y"])


def test_seed_texts_agree():
    texts = [p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt"))]
    lines = [line for t in texts for line in t.splitlines() if line.strip()]
    assert_agree(texts + lines)


def test_corpus_vocabulary_agrees():
    words: set[str] = set()
    sample = []
    for e in read_corpus(SAMPLE):
        for text in (e.title or "", " ".join(e.authors), e.abstract):
            words.update(text.split())
        if len(sample) < 300:
            sample.append(e.abstract)
    assert len(words) > 15_000
    # Every word with digits, punctuation or non-ASCII characters, and a seeded sample of the words of
    # plain ASCII letters (they all take the same path).
    plain = re.compile(r"[A-Za-z]+")
    rng = random.Random(1)
    other = sorted(w for w in words if not w.isascii())
    punct = sorted(w for w in words if w.isascii() and not plain.fullmatch(w))
    easy = rng.sample(sorted(w for w in words if plain.fullmatch(w)), 3000)
    assert len(other) > 150 and len(punct) > 5000
    assert_agree(other + punct + easy + sample)


def test_character_classes_agree_on_every_code_point():
    """Letters/digits and combining marks: the same on both sides for every code point that this
    Python's Unicode version assigns (newer code points may differ; Node's Unicode is newer)."""
    out = subprocess.run([NODE, str(ROOT / "tests/js/core_tokens.js"), "--classes"],
                         capture_output=True, text=True, check=True).stdout
    js = {kind: set(cps) for kind, cps in json.loads(out).items()}
    word = re.compile(r"[^\W_]")
    py: dict[str, set[int]] = {"word": set(), "mark": set()}
    for cp in range(0x110000):
        ch = chr(cp)
        cat = unicodedata.category(ch)
        if cat in ("Cn", "Cs"):
            js["word"].discard(cp)
            js["mark"].discard(cp)
            continue
        if word.match(ch):
            py["word"].add(cp)
        if cat.startswith("M"):
            py["mark"].add(cp)
    assert sorted(py["word"] ^ js["word"]) == []
    assert sorted(py["mark"] ^ js["mark"]) == []


def test_bulk_counter_equals_the_token_list_with_full_caches(monkeypatch):
    """With the caches full (nothing more kept), every blob and region is tokenized afresh: same counts."""
    from site_builder.search import tokenize

    texts = HARD + random_strings(500, seed=11) + ["model. (ours) 'quoted' c++ e.g. --a-- __x__ 2023 v2."]
    for cache in (tokenize._BLOB_TERMS, tokenize._REGION_TERMS, tokenize._COMPOUND_TERMS):
        cache.clear()
    monkeypatch.setattr(tokenize, "CACHE_LIMIT", 0)
    assert [t for t in texts if Counter(index_tokens(t)) != term_counts(t)] == []
    assert len(tokenize._BLOB_TERMS) == len(tokenize._REGION_TERMS) == 0
