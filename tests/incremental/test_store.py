"""The build cache's store (:mod:`site_builder.incremental.store`): values kept by the digest of their inputs,
one codec, one corrupt-file warning."""

from __future__ import annotations

import json

from site_builder.diagnostics import Diagnostics
from site_builder.incremental import store as store_module
from site_builder.incremental.digest import FORMAT
from site_builder.incremental.store import Store


def make(folder, code="v1") -> Store:
    return Store(folder, code, Diagnostics())


def test_a_value_is_given_back_for_its_key_and_code_version_only(tmp_path):
    for name in ("value.marshal", "value.json"):
        make(tmp_path).put(name, "k1", {"items": [1, "two"]})
        assert make(tmp_path).get(name, "k1") == {"items": [1, "two"]}
        assert make(tmp_path).get(name, "k2") is None
        assert make(tmp_path, code="v2").get(name, "k1") is None
        assert make(tmp_path).get("missing.marshal", "k1") is None


def test_the_file_format_is_the_header_then_the_value(tmp_path):
    make(tmp_path).put("value.json", "k1", {"items": ["é"]})
    raw = (tmp_path / "value.json").read_bytes()
    assert json.loads(raw) == {"format": FORMAT, "code": "v1", "digest": "k1", "items": ["é"]}
    assert "é".encode() in raw  # not ASCII-escaped
    make(tmp_path).put("value.marshal", "k1", {"items": [1]})
    raw = (tmp_path / "value.marshal").read_bytes()
    assert raw.startswith(store_module.MANIFEST_MAGIC)
    assert store_module.decode_marshal(raw) == {"format": FORMAT, "code": "v1", "digest": "k1", "items": [1]}


def test_a_corrupt_file_is_a_miss_with_the_cache_warning(tmp_path):
    (tmp_path / "value.marshal").write_bytes(b"junk")
    (tmp_path / "value.json").write_bytes(b"{")
    store = make(tmp_path)
    assert store.get("value.marshal", "k1") is None
    assert store.get("value.json", "k1") is None
    assert [str(d) for d in store.diagnostics.warnings] == [
        f"{tmp_path / 'value.marshal'}:0: warning: cache file corrupt, ignored: not a manifest file",
        f"{tmp_path / 'value.json'}:0: warning: cache file corrupt, ignored: "
        "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    ]


def test_cached_computes_once_and_a_malformed_value_is_computed_again_with_a_warning(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return [1, 2]

    def cached(store):
        return store.cached("v.marshal", "k", compute, lambda v: {"v": v},
                            lambda saved: saved["v"] if isinstance(saved.get("v"), list) else None, "a list")

    assert cached(make(tmp_path)) == [1, 2] and len(calls) == 1
    store = make(tmp_path)
    assert cached(store) == [1, 2] and len(calls) == 1 and not store.diagnostics.warnings
    store.put("v.marshal", "k", {"v": "junk"})
    store = make(tmp_path)
    assert cached(store) == [1, 2] and len(calls) == 2
    assert [str(d) for d in store.diagnostics.warnings] == [
        f"{tmp_path / 'v.marshal'}:0: warning: cache file corrupt, ignored: not a list"]
    assert make(tmp_path).get("v.marshal", "k") == {"v": [1, 2]}  # rewritten


def test_a_disabled_store_keeps_nothing(tmp_path):
    store = make(None)
    store.put("v.marshal", "k", {"v": 1})
    assert store.get("v.marshal", "k") is None
    assert store.cached("v.marshal", "k", lambda: 3, lambda v: {"v": v}, lambda s: s["v"], "a number") == 3
    assert list(tmp_path.iterdir()) == []
