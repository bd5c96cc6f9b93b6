"""Helpers of the search tests: the seed site's model without writing anything."""

from __future__ import annotations

from functools import lru_cache

from conftest import CONFIG, SEEDS
from site_builder.config import load_config
from site_builder.diagnostics import Diagnostics
from site_builder.model import Site, build_site
from site_builder.pipeline import list_files, load_overrides, read_lists


@lru_cache(maxsize=1)
def seed_model() -> Site:
    """The site model of ``seeds/`` with the repo's config, as a build computes it."""
    config = load_config(CONFIG)
    diagnostics = Diagnostics()
    entries = read_lists(list_files(SEEDS), config, diagnostics)
    return build_site(entries, load_overrides(SEEDS, diagnostics), config, diagnostics)
