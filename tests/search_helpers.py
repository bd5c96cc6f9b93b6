"""Helpers of the search tests: the seed site's model without writing anything."""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from conftest import CONFIG, ROOT, SEEDS
from site_builder.config import load_config
from site_builder.diagnostics import Diagnostics
from site_builder.model.site import Site, build_site
from site_builder.pipeline import list_files, load_overrides, read_lists


@lru_cache(maxsize=1)
def seed_model() -> Site:
    """The site model of ``seeds/`` with the repo's config, as a build computes it."""
    config = load_config(CONFIG)
    diagnostics = Diagnostics()
    entries = read_lists(list_files(SEEDS), config, diagnostics)
    return build_site(entries, load_overrides(SEEDS, diagnostics), config, diagnostics)


@lru_cache(maxsize=8)
def site_search_data(site: Path) -> dict:
    """``{"index": <lunr serialised index>, "docs": {ref: record}}`` of the built site in ``site``, as the
    page's own code reads its sharded index, every shard and record (``scripts/search_index_json.js``, in Node)."""
    node = shutil.which("node")
    assert node, "node is required"
    out = subprocess.run([node, str(ROOT / "scripts" / "search_index_json.js"), str(site)], check=True,
                         capture_output=True, text=True, encoding="utf-8").stdout
    return json.loads(out)


def settled(page) -> None:
    """Wait until the search page shows the results of its latest search (its list is no longer
    ``aria-busy``: the shards and records it needed are loaded and the results shown)."""
    page.wait_for_function("() => { const r = document.getElementById('search-results');"
                           " return r && !r.hasAttribute('aria-busy'); }")
