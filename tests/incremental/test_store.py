"""The build cache's store (:mod:`site_builder.incremental.store`): values kept by the digest of their inputs,
one codec, one corrupt-file warning."""

from __future__ import annotations

import marshal
import zlib

import pytest

from site_builder.diagnostics import Diagnostics
from site_builder.incremental import store as store_module
from site_builder.incremental.digest import FORMAT
from site_builder.incremental.store import Store


def make(folder, code="v1") -> Store:
    return Store(folder, code, Diagnostics())


def test_a_value_is_given_back_for_its_key_and_code_version_only(tmp_path):
    make(tmp_path).put("value.marshal", "k1", {"items": [1, "two", ("a", None)]})
    assert make(tmp_path).get("value.marshal", "k1") == {"items": [1, "two", ("a", None)]}
    assert make(tmp_path).get("value.marshal", "k2") is None
    assert make(tmp_path, code="v2").get("value.marshal", "k1") is None
    assert make(tmp_path).get("missing.marshal", "k1") is None


def test_the_file_format_is_the_header_then_the_value(tmp_path):
    make(tmp_path).put("value.marshal", "k1", {"items": [1, "é"]})
    raw = (tmp_path / "value.marshal").read_bytes()
    assert raw.startswith(store_module.MAGIC)
    head = len(store_module.MAGIC) + 4
    assert int.from_bytes(raw[len(store_module.MAGIC):head], "little") == zlib.crc32(raw[head:])
    assert marshal.loads(raw[head:]) == {"format": FORMAT, "code": "v1", "digest": "k1",
                                                            "items": [1, "é"]}
    assert store_module.decode(raw) == {"format": FORMAT, "code": "v1", "digest": "k1", "items": [1, "é"]}


def test_a_value_may_not_hold_the_header_fields(tmp_path):
    for field in ("format", "code", "digest"):
        with pytest.raises(ValueError):
            make(tmp_path).put("value.marshal", "k1", {field: 1})
    assert not (tmp_path / "value.marshal").exists()


def test_a_corrupt_file_is_a_miss_with_the_cache_warning(tmp_path):
    whole = store_module.encode({"format": FORMAT, "code": "v1", "digest": "k1", "x": "letters " * 50})
    (tmp_path / "junk.marshal").write_bytes(b"junk")
    (tmp_path / "cut.marshal").write_bytes(whole[:-9])
    (tmp_path / "head.marshal").write_bytes(whole[:len(store_module.MAGIC) + 2])
    at = whole.index(b"letters") + 3
    (tmp_path / "letter.marshal").write_bytes(whole[:at] + b"X" + whole[at + 1:])  # marshal would read it
    body = marshal.dumps([1, 2])
    (tmp_path / "list.marshal").write_bytes(store_module.MAGIC + zlib.crc32(body).to_bytes(4, "little") + body)
    store = make(tmp_path)
    names = ("junk", "cut", "head", "letter", "list")
    for name in names:
        assert store.get(f"{name}.marshal", "k1") is None
    problems = ["not a cache file", "checksum mismatch", "truncated cache file", "checksum mismatch",
                "not a cache file"]
    assert [str(d) for d in store.diagnostics.warnings] == [
        f"{tmp_path / name}.marshal: warning: cache file corrupt, ignored: {problem}"
        for name, problem in zip(names, problems)]


def test_a_file_of_an_earlier_layout_is_a_quiet_miss(tmp_path):
    (tmp_path / "old.marshal").write_bytes(b"site-builder manifest\n" + marshal.dumps(
        {"format": FORMAT, "code": "v1", "digest": "k1", "x": 1}))
    store = make(tmp_path)
    assert store.get("old.marshal", "k1") is None and not store.diagnostics.warnings
    store.put("old.marshal", "k1", {"x": 2})
    assert make(tmp_path).get("old.marshal", "k1") == {"x": 2}


def test_kept_state_is_given_back_whatever_it_was_made_from_and_can_be_discarded(tmp_path):
    make(tmp_path).keep("state/one.marshal", {"rows": [[1, 2]]})
    assert make(tmp_path).kept("state/one.marshal") == {"rows": [[1, 2]]}
    assert make(tmp_path, code="v2").kept("state/one.marshal") is None
    assert make(tmp_path).discard("state/one.marshal") is None
    assert make(tmp_path).kept("state/one.marshal") is None
    assert make(tmp_path).discard("state/one.marshal") is None  # already gone: nothing to do


def test_verify_writes_only_what_reads_back_the_same(tmp_path):
    store = make(tmp_path)
    assert store.put("str.marshal", "k", {"v": [_Str("x")]}, verify=True) is None  # marshal refuses it
    assert store.put("nan.marshal", "k", {"v": float("nan")}, verify=True) is None  # nan != nan
    assert store.put("obj.marshal", "k", {"v": object()}, verify=True) is None  # marshal cannot write it
    assert list(tmp_path.iterdir()) == []
    assert store.put("ok.marshal", "k", {"v": (1, [2])}, verify=True) is None
    assert store.get("ok.marshal", "k") == {"v": (1, [2])}
    with pytest.raises(ValueError):
        store.put("obj.marshal", "k", {"v": object()})  # without verify: a programming error


def test_a_failed_write_warns_once_or_is_returned_to_the_caller(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    store = make(tmp_path / "file")
    assert store.put("a.marshal", "k", {"v": 1}, warn=False) is not None
    assert not store.diagnostics.warnings
    store.put("a.marshal", "k", {"v": 1})
    store.keep("b.marshal", {"v": 1})
    assert [d.message.split(":")[0] for d in store.diagnostics.warnings] == ["cannot write the build cache"]


def test_a_file_that_cannot_replace_its_name_leaves_no_temporary_file(tmp_path):
    (tmp_path / "a.marshal").mkdir()  # the temporary file is written, the rename onto a folder fails
    store = make(tmp_path)
    assert isinstance(store.keep("a.marshal", {"v": b"x" * 1000}, warn=False), OSError)
    assert [p.name for p in tmp_path.iterdir()] == ["a.marshal"]


def test_arrays_are_kept_as_their_bytes():
    import numpy as np
    array = np.arange(12, dtype=np.int64).reshape(3, 4)
    back = store_module.array_of(store_module.array_bytes(array, "<i4"), "<i4", (3, 4))
    assert back.dtype == np.dtype("<i4") and back.tolist() == array.tolist()
    with pytest.raises(ValueError):
        back[0, 0] = 7  # a read-only view of the kept bytes: a stage copies what it changes
    with pytest.raises(ValueError):
        store_module.array_of(b"\0" * 5, "<i4")
    with pytest.raises(TypeError):
        store_module.array_of([1, 2], "<i4")


class _Str(str):
    """A str subclass: marshal cannot write it."""


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
        f"{tmp_path / 'v.marshal'}: warning: cache file corrupt, ignored: not a list"]
    assert make(tmp_path).get("v.marshal", "k") == {"v": [1, 2]}  # rewritten


def test_a_disabled_store_keeps_nothing(tmp_path):
    store = make(None)
    store.put("v.marshal", "k", {"v": 1})
    assert store.get("v.marshal", "k") is None
    assert store.cached("v.marshal", "k", lambda: 3, lambda v: {"v": v}, lambda s: s["v"], "a number") == 3
    assert list(tmp_path.iterdir()) == []
