"""The Fingerprinter (site_builder.incremental.cache): digests that tell every field and every kind of value apart,
are the same in every process and run, and refuse what they cannot digest."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

from conftest import CONFIG, SEEDS
from site_builder import pipeline
from site_builder.incremental.digest import Fingerprinter
from site_builder.config import load_config


def _seed_model():
    from site_builder.diagnostics import Diagnostics
    from site_builder.model.site import build_site

    config = load_config(CONFIG)
    diagnostics = Diagnostics()
    entries = pipeline.read_lists(pipeline.list_files(SEEDS), config, diagnostics)
    return build_site(entries, {}, config, diagnostics)


def _changed(value):
    """A value of the same type as ``value`` that differs from it (for every field type of the model)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x" if len(value) < 300 else value[:150] + "Y" + value[151:]  # a long text changed inside
    if isinstance(value, tuple):
        return value[:-1] if value else ("x",)
    if value is None:
        return "x"
    return None


def test_every_field_of_a_paper_and_of_what_it_holds_changes_its_digest():
    site = _seed_model()
    paper = max(site.papers, key=lambda p: (p.track is not None, len(p.rendered.code_urls), len(p.abstract)))
    assert paper.track is not None and len(paper.abstract) > 300 and paper.rendered.code_urls
    base = Fingerprinter().digests([paper])[0]
    assert len(base) == 32
    checked = 0
    for field in dataclasses.fields(paper):
        value = getattr(paper, field.name)
        if dataclasses.is_dataclass(value):  # a field of what the paper holds (rendered abstract, venue, track)
            for inner in dataclasses.fields(value):
                new = _changed(getattr(value, inner.name))
                if new is None:
                    continue
                held = copy_with(value, inner.name, new)
                assert Fingerprinter().digests([copy_with(paper, field.name, held)])[0] != base, (field.name, inner.name)
                checked += 1
            continue
        assert Fingerprinter().digests([copy_with(paper, field.name, _changed(value))])[0] != base, field.name
        checked += 1
    assert checked >= 18
    # An equal copy has the same digest (digests are of the data, not the object).
    assert Fingerprinter().digests([copy_with(paper, "id", paper.id)])[0] == base


def copy_with(obj, name, value):
    """A shallow copy of the dataclass instance ``obj`` with field ``name`` set to ``value`` (also
    ``init=False`` fields, e.g. a venue's slug)."""
    import copy

    new = copy.copy(obj)
    object.__setattr__(new, name, value)
    return new


def test_values_of_different_kinds_or_shapes_have_different_digests():
    of = Fingerprinter().of
    values = [1, True, 1.0, "1", None, "", 0, False, 0.0, -0.0, (1,), [1], {1: 1}, {1},
              (1, 2), ((1, 2),), [(1, 2)], ((1,), 2), ("a", "b"), ("ab",), ("a", "b", ""),
              {"a": 1, "b": 2}, {"b": 2, "a": 1}, (("a", 1), ("b", 2)), [["a", 1], ["b", 2]],
              (..., "d", (("a", 1),)), {"a": 1}, "x" * 300, "x" * 301, ("x" * 300,), "\ud800", "é", "e\u0301"]
    digests = []
    for value in values:
        try:
            digests.append(of(value))
        except Exception as exc:  # noqa: BLE001
            raise AssertionError(value) from exc
    undigestible = [i for i, d in enumerate(digests) if d is None]
    assert undigestible == [values.index((..., "d", (("a", 1),)))]  # Ellipsis is no value of the model
    kept = [d for d in digests if d is not None]
    assert len(set(kept)) == len(kept)
    # A set's digest does not depend on its order; a dict's does (templates iterate it in order).
    assert of({"b", "a", "c"}) == of({"c", "a", "b"}) == of(frozenset("abc"))  # (templates iterate both alike)
    assert of({"a": 1, "b": 2}) != of({"b": 2, "a": 1})


def test_what_cannot_be_digested_gives_no_digest():
    class Text(str):
        pass

    class Table(dict):
        pass

    of = Fingerprinter().of
    for value in (Text("x"), (1, Text("x")), Table(), b"x", [b"x"], object(), {"k": object()}, 1j, ...):
        assert of(value) is None, value
    assert Fingerprinter().digest("x") is None


@dataclasses.dataclass
class Box:
    value: object


@dataclasses.dataclass
class Other:
    value: object


@dataclasses.dataclass
class Empty:
    pass


def test_dataclasses_are_told_apart_by_class_and_fields_and_stand_as_their_digest():
    of = Fingerprinter().of
    assert of(Box(1)) != of(Other(1))
    assert of(Box(1)) != of(Box(True)) != of(Box("1"))
    assert of(Box(Box(1))) != of(Box(Box(2)))
    assert of(Empty()) == of(Empty()) != of(Box(None))
    assert of(Box(object())) is None
    # Memoised per object: the same object gives the same digest inside any structure.
    fingerprints = Fingerprinter()
    inner = Box([1, "a"])
    digest = fingerprints.digest(inner)
    assert fingerprints.of((inner, inner)) == Fingerprinter().of((Box([1, "a"]), Box([1, "a"])))
    assert fingerprints.of(digest) is None  # bytes are no value of the model


def test_digests_are_the_same_in_another_process_with_another_hash_seed():
    site = _seed_model()
    here = (Fingerprinter().of(site), Fingerprinter().of({"a", "b", ("c", 1)}))
    script = ("import sys; sys.path[:0] = ['tests', 'tests/incremental']; import test_fingerprint as t; "
              "from site_builder.incremental.digest import Fingerprinter as F; "
              "print(F().of(t._seed_model()), F().of({'a', 'b', ('c', 1)}))")
    root = Path(pipeline.__file__).resolve().parent.parent
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True,
                             cwd=root).stdout.split()
        assert tuple(out) == here


@dataclasses.dataclass(frozen=True)
class _Shared:
    name: str


@dataclasses.dataclass(frozen=True)
class _Made:
    shared: object
    text: str


def test_forget_since_lets_go_of_what_was_digested_after_the_mark_but_the_kinds_kept():
    import weakref

    fingerprints = Fingerprinter()
    before = _Made(None, "before")
    fingerprints.of(before)
    mark = fingerprints.mark()
    shared = _Shared("item")
    made = _Made(shared, "page")
    digest = fingerprints.of(made)
    gone = weakref.ref(made)
    fingerprints.forget_since(mark, (_Shared,))
    del made
    assert gone() is None  # the memo no longer holds the page's view
    assert fingerprints.mark() == mark + 1  # the shared view's digest is kept, the one before the mark too
    assert fingerprints.digest(before) is not None and fingerprints.mark() == mark + 1
    assert fingerprints.of(_Made(_Shared("item"), "page")) == digest  # digested again alike
