"""Keywords read from a real list file (``Keywords:`` lines) get pages, links and citation tags."""

from __future__ import annotations

import json

from conftest import ROOT, build_into
from linkcheck import broken_links
from site_builder.model import urls

FIXTURE = ROOT / "tests" / "fixtures" / "keywords"


def test_keyword_pages_from_a_list_file(tmp_path):
    config = tmp_path / "site.toml"
    config.write_text('title = "Keywords"\n', encoding="utf-8")
    out = tmp_path / "site"
    assert build_into(out, seeds=FIXTURE, config=config) == 0
    records = json.loads((out / "papers.json").read_text(encoding="utf-8"))
    assert len(records) == 3
    by_title = {r["title"]: r for r in records}
    assert by_title["Grasping Transparent Objects with Tactile Feedback"]["keywords"] == ["manipulation",
                                                                                         "tactile sensing"]
    legged = (out / urls.keyword_path("legged-robots")).read_text(encoding="utf-8")
    # "legged robots" and "Legged Robots" are one keyword page listing both papers.
    assert legged.count('data-paper-id="') == 2
    for title in ("Learning Agile Locomotion on Rough Terrain", "Sim-to-Real Transfer for Bipedal Walking"):
        assert by_title[title]["id"] in legged
    paper = (out / by_title["Sim-to-Real Transfer for Bipedal Walking"]["url"]).read_text(encoding="utf-8")
    assert '<meta name="citation_keywords" content="sim-to-real">' in paper
    assert (out / urls.KEYWORDS).is_file()
    assert broken_links(out) == []
