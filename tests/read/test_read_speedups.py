"""The speed-ups of the reading stage give exactly what the plain formulations give."""

from __future__ import annotations

import re
import shutil
import sys
import unicodedata
from dataclasses import astuple
from pathlib import Path

import pytest

from conftest import ROOT
from site_builder.incremental import lists as listcache
from site_builder.read import plaintext as reader, duplicates as reader_duplicates
from site_builder import parallel
from site_builder.output import workers
from site_builder.incremental.cache import BuildCache
from site_builder.config import load_config
from site_builder.diagnostics import Diagnostics
from site_builder.read.duplicates import paper_id
from site_builder.pipeline import list_files, read_lists
from site_builder.read.lines import _mostly_not_names, author_score, clean

sys.path.insert(0, str(ROOT / "bench"))
from lists import load_corpus, write_lists  # noqa: E402
from papers_sample import SAMPLE, sample_records  # noqa: E402


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    """The sample of real papers (tests/fixtures/papers/)."""
    return sample_records()


def _regex_key(text: str) -> str:
    return re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


def test_separator_table_is_the_regex_class_on_every_character():
    table = reader_duplicates._Separators()
    for code in range(0x110000):
        separator = re.fullmatch(r"[\W_]", chr(code)) is not None
        assert (table[code] == " ") == separator, hex(code)
        assert separator or not chr(code).isspace(), hex(code)  # split() cuts only at the separators


def test_identity_keys_of_the_corpus(corpus):
    reader_duplicates._RECENT = {}
    for paper in corpus:
        for abstract, title in ((paper["abstract"], paper["title"]), (paper["title"], paper["abstract"]),
                                (paper["title"][:20], paper["title"]), (paper["title"][:20], None)):
            key = _regex_key(abstract)
            expected = "title:" + _regex_key(title) if len(key) < 40 and title else key
            assert reader_duplicates.identity_key(abstract, title) == expected


def test_merge_remembers_the_keys_of_its_entries():
    result = reader.read_list(sorted((ROOT / "seeds").glob("*.txt"))[0])
    reader.merge_duplicates([result])
    remembered = dict(reader_duplicates._RECENT)
    assert set(remembered) == {(e.abstract, e.title) for e in result.entries}
    reader_duplicates._RECENT = {}
    assert remembered == {(e.abstract, e.title): reader.identity_key(e.abstract, e.title) for e in result.entries}


def test_mostly_not_names_implies_no_author_line(corpus):
    lines = [clean(p[field]) for p in corpus for field in ("abstract", "title")]
    lines += [", ".join(p["authors"]) for p in corpus if p.get("authors")]
    lines += [", ".join(p["authors"]) + ", and a sentence that is not a name at all" for p in corpus
              if p.get("authors")]
    taken = 0
    for text in lines:
        if _mostly_not_names(text):
            taken += 1
            assert author_score(text) < 2.5, text
    assert taken > len(corpus)  # it decides most abstracts


def test_workers_report_an_unwritable_list_cache_once(tmp_path, monkeypatch):
    """Lists read in forked workers (over MIN_PARALLEL_BYTES, here 50 kB: the sample's lists are small) whose cache
    files cannot be written: the entries are the reader's, and the build cache warns once."""
    monkeypatch.setattr(parallel, "worker_count", lambda: 2)  # as tests/test_cache.py: the pool path
    monkeypatch.setattr(listcache, "MIN_PARALLEL_BYTES", 50_000)
    seeds = tmp_path / "seeds"
    records = load_corpus(SAMPLE, 10**6)
    groups = sorted({(r["venue"], r["year"]) for r in records})[:3]
    write_lists([r for g in groups for r in [r for r in records if (r["venue"], r["year"]) == g][:150]], seeds,
                tmp_path / "site.toml")
    assert sum(p.stat().st_size for p in seeds.glob("*.txt")) >= listcache.MIN_PARALLEL_BYTES
    assert len(list_files(seeds)) >= 2
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / listcache.FOLDER).write_text("a file where the folder should be", encoding="utf-8")
    config = load_config(tmp_path / "site.toml")
    build_cache = BuildCache(cache)
    entries = read_lists(list_files(seeds), config, Diagnostics(), build_cache)
    expected = [e for r in reader.read_lists([(p, *astuple(config.list_defaults(p.name)))
                                              for p in list_files(seeds)]) for e in r.entries]
    assert entries == expected
    assert [build_cache.memo.paper_id(e) for e in entries] == [paper_id(e) for e in entries]
    messages = [d.message for d in build_cache.diagnostics]
    assert len([m for m in messages if m.startswith("cannot write the build cache")]) == 1, messages
    shutil.rmtree(seeds)


def test_continuation_words_and_names_are_the_plain_formulations_on_the_corpus(corpus):
    """:func:`continuation._tokens` (lower case first on ASCII text) and :func:`continuation._names` (words
    that cannot be names skipped by the pattern) give what the plain formulations give."""
    from site_builder.read import continuation as c

    def plain_tokens(text):
        return [lw.rstrip("s") for w in c._WORD.findall(text) if len(w) >= 3 for lw in (w.lower(),)
                if lw not in c._STOP]

    def plain_names(text):
        return {w for w in c._NAME.findall(text) if len(w) >= 2 and not (w.isalpha() and w[1:].islower())
                and (c._UPPER.search(w, 1) or c._DIGIT.search(w)) and c._TWO_LETTERS.search(w)}

    texts = [r["abstract"] for r in corpus if r.get("abstract")]
    texts += ["abc-DEF foo_Bar x1 İstanbul ÉTAT straße ﬁne KAIST-lab a- -b GPT-4o COOL a1b2 Ab- ab-cd- x\u0301Y",
              "A_b-C x-y z9 ABC-12 a-", "Zz", "", "Is it a GAN-based model? Yes: 3D-aware, the 2nd."]
    assert len(texts) > 500
    names = 0
    for text in texts:
        for variant in (text, text.upper(), text.swapcase()):
            assert c._tokens.__wrapped__(variant) == plain_tokens(variant)
            found = c._names.__wrapped__(variant)
            assert found == plain_names(variant)
            names += len(found)
    assert names > 10_000


def test_list_cache_work_compacts_and_expands_exactly(corpus):
    """:func:`listcache._compact` drops what :func:`listcache._expand` rebuilds (HTML that is the abstract in
    one paragraph, text that is the abstract, an inline title that is the title): the round trip gives every
    value back, for corpus abstracts with given and derived titles and for texts that need escaping or math;
    and :func:`listcache._remember` hands the cache the values of :func:`cache.paper_work` itself."""
    from site_builder.incremental.memo import paper_work

    texts = [r["abstract"] for r in corpus[:600] if r.get("abstract")]
    texts += ["A & B < C: we show $x^2$ grows.", "Plain text with *emphasis* and `code`.", "See https://x.org/a."]
    titles = [r.get("title") or None for r in corpus[:600]] + ["A <b> title", "$O(n)$ Sorting", "Plain"]
    items = [(t, None) for t in texts] + [(t, title) for t, title in zip(texts, titles) if title]
    compacted = dropped = 0
    cache = BuildCache(None)
    rows, ids, work = [], [], []
    for abstract, title in items:
        values = paper_work((abstract, title))
        short = listcache._compact(abstract, title, values)
        assert listcache._expand(abstract, title, short) == values
        compacted += short[0][0] is None
        dropped += short[-1] is None
        rows.append([None, None, abstract, title])
        ids.append(["id", "key"])
        work.append(short)
    assert compacted > len(items) // 2 and dropped > len(items) // 4  # the common cases are compacted
    assert listcache._remember(cache, {"result": {"entries": rows}, "ids": ids, "work": work})
    for abstract, title in items:
        for kind, source, value in paper_work((abstract, title)):
            assert cache.memo.known(kind, source) == value
    assert not listcache._remember(cache, {"result": {"entries": rows}, "ids": ids, "work": work[:-1]})


def test_decode_list_is_decode_bytes_then_remove_controls(corpus):
    """:func:`reader_text.decode_list` (control characters looked for in the UTF-8 bytes) gives what
    ``remove_controls(decode_bytes(data))`` gives, or raises the same error, on texts with every kind of
    control character (C0, DEL, C1, vertical tab, form feed) in every number around the 1 % limit, in
    UTF-8 (with and without BOM), UTF-16 and GB18030."""
    import random

    from site_builder.read.text import decode_bytes, decode_list, remove_controls
    from site_builder.read.entries import ReadError

    rng = random.Random(5)
    base = "ICLR 2025 Papers\n\n" + "\n\n".join(r["abstract"] for r in corpus[:12] if r.get("abstract")) + "\n"
    controls = [chr(c) for c in [*range(0, 9), 11, 12, *range(14, 32), 127, *range(128, 160)]]
    cases = 0
    for count in (0, 1, 2, 3, 5, len(base) // 100 - 1, len(base) // 100 + 2):
        for kind in ("c0", "c1", "unsafe", "any", "vt"):
            chars = {"c0": controls[:27], "c1": controls[28:], "unsafe": ["\x0b", "\x0c", "\x7f", "\x01"],
                     "any": controls, "vt": ["\x0b", "\x0c"]}[kind]
            text = list(base)
            for _ in range(count):
                text.insert(rng.randrange(20, len(text)), rng.choice(chars))
            text = "".join(text)
            for encoding in ("utf-8", "utf-8-sig", "utf-16", "gb18030"):
                try:
                    data = text.encode(encoding)
                except UnicodeEncodeError:
                    continue
                try:
                    expected = remove_controls(decode_bytes(data), "x.txt")
                except ReadError as exc:
                    with pytest.raises(ReadError, match=re.escape(str(exc))):
                        decode_list(data, "x.txt")
                    continue
                assert decode_list(data, "x.txt") == expected
                cases += 1
    assert cases > 60
    assert decode_list(("ICLR 2025\n\nAn abstract \x0b with a vertical tab.\n").encode(), "x.txt")[1]
