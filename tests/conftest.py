"""Shared fixtures: the seed site built once per test session."""

from __future__ import annotations

import atexit
import hashlib
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_builder.cli import main  # noqa: E402

SEEDS = ROOT / "seeds"
CONFIG = ROOT / "site.toml"


#: The build caches of the output folders the tests build into without naming a cache (:func:`build_into`).
_CACHES: list[Path] = []


def own_cache(out: Path) -> Path:
    """The build cache of output folder ``out`` when a test names none: one per folder, in a temporary folder of
    the session (removed at exit), not the working directory's default shared by every test: a rebuild places a
    changed paper in the map its cache kept (``site_builder/model/layout.py``, "Reuse"), so a shared cache would
    make a build's map depend on the other tests' builds."""
    if not _CACHES:
        _CACHES.append(Path(tempfile.mkdtemp(prefix="site-builder-test-caches-")))
        atexit.register(shutil.rmtree, _CACHES[0], True)
    return _CACHES[0] / hashlib.sha256(str(Path(out).resolve()).encode()).hexdigest()[:16]


def build_into(out: Path, *extra: str, seeds: Path = SEEDS, config: Path = CONFIG) -> int:
    """Run the command line build of ``seeds`` into ``out``; returns the exit status. Without ``--cache`` or
    ``--no-cache`` in ``extra``, with ``out``'s own cache (:func:`own_cache`)."""
    cache = [] if {"--cache", "--no-cache"} & set(extra) else ["--cache", str(own_cache(out))]
    return main(["--seeds", str(seeds), "--config", str(config), "--out", str(out), *cache, *extra])


@pytest.fixture(scope="session")
def seed_site(tmp_path_factory) -> Path:
    """The seeds built with the repo's config into a temporary folder."""
    out = tmp_path_factory.mktemp("seed-site") / "_site"
    assert build_into(out) == 0
    return out


@pytest.fixture(scope="session")
def seed_records(seed_site) -> list[dict]:
    """The records of the seed site's ``papers.json``."""
    return json.loads((seed_site / "papers.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def browser_context():
    """One headless Chromium context for the session (see ``tests/browser.py``)."""
    from browser import chromium_context

    with chromium_context() as context:
        yield context


@pytest.fixture
def page(browser_context):
    """A new page in the shared Chromium context, closed after the test; page errors fail the test."""
    tab = browser_context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    tab.close()
    assert errors == [], f"JavaScript errors: {errors}"


@pytest.fixture(scope="session")
def notes_site(tmp_path_factory) -> Path:
    """The seeds built with the curator's notes of ``tests/notes/`` (see ``features_support``)."""
    from features_support import build_notes_site

    out = tmp_path_factory.mktemp("notes-site") / "_site"
    assert build_notes_site(out) == 0
    return out


def pytest_collection_modifyitems(config, items):
    """Run the tests marked ``forks`` first: :func:`site_builder.parallel.worker_count` is 1 (no forking) while
    another thread runs, and the session's browser fixture keeps one running once a browser test has run."""
    items.sort(key=lambda item: item.get_closest_marker("forks") is None)  # stable: the rest keep their order


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path, with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


#: The venue pages' list of the map's topics (``templates/venue.html``).
VENUE_TOPICS = re.compile(rb'<section class="topics".*?</section>', re.S)
#: A link to a paper's page (from the map page, at the site's root).
PAPER_LINK = re.compile(rb'href="(papers/[^"#]+)"')


def map_data(text: bytes) -> dict:
    """The object ``map-data.js`` sets (``window.PAPER_MAP = {…};``)."""
    text = text.decode("utf-8")
    return json.loads(text[text.index("{"):text.rindex("}") + 1])


def assert_same_site(a: Path, b: Path, placed_map: bool = False) -> None:
    """The folders ``a`` and ``b`` hold the same files with the same bytes.

    With ``placed_map`` (``b`` a rebuild, ``a`` a build without cache), what the paper map shows may differ as the
    project's one exemption allows (``site_builder/model/layout.py``, "Reuse"; ARCHITECTURE.md): in ``map-data.js``
    the points and clusters (``x``, ``y``, ``cluster``, ``clusters``), in ``map.html`` the topics (it must link each
    of ``a``'s papers once, as ``a`` does), and the venue pages' topics section; every other byte is the same."""
    assert_same_files(files_of(a), files_of(b), placed_map)


def assert_same_files(fa: dict[str, bytes], fb: dict[str, bytes], placed_map: bool = False) -> None:
    """:func:`assert_same_site` of two folders' files (relative path → bytes, e.g. :func:`files_of`)."""
    assert sorted(fa) == sorted(fb)
    different = [path for path in fa if fa[path] != fb[path]]
    if placed_map:
        different = [path for path in different if not _placed_map_differs(path, fa[path], fb[path])]
    assert different == []


def _placed_map_differs(path: str, plain: bytes, rebuilt: bytes) -> bool:
    """Whether ``rebuilt`` differs from ``plain`` only as the exemption of :func:`assert_same_site` allows (asserts
    the map's data and page hold every paper once)."""
    if path == "map-data.js":
        before, after = map_data(plain), map_data(rebuilt)
        placed = ("x", "y", "cluster", "clusters")
        assert {k: v for k, v in before.items() if k not in placed} == {k: v for k, v in after.items() if k not in placed}
        n = len(after["path"])
        assert len(after["x"]) == len(after["y"]) == len(after["cluster"]) == n == len(set(after["path"]))
        sizes = [0] * len(after["clusters"])
        for number in after["cluster"]:
            sizes[number] += 1
        assert sizes == [c["size"] for c in after["clusters"]] and all(sizes)
        return True
    if path == "map.html":
        links = PAPER_LINK.findall(rebuilt)
        assert sorted(links) == sorted(PAPER_LINK.findall(plain)) and len(links) == len(set(links))
        return True
    if path.startswith("venues/") and path.endswith("/index.html"):
        return VENUE_TOPICS.sub(b"", plain) == VENUE_TOPICS.sub(b"", rebuilt)
    return False
