"""Screenshots of each page type for review: phone (390×844) and desktop (1280×800), light and dark.

Usage::

    PYTHONPATH=$PWD python scripts/screenshots.py [OUT_DIR] [--seeds DIR] [--config FILE] [--no-stress]

Builds the seeds into a temporary folder, then writes ``OUT_DIR/<page-type>-<width>-<theme>.png``
(the whole page, cut after three screens; ``OUT_DIR`` defaults to ``screenshots/``, which git ignores) and prints one line per
file. Unless ``--no-stress``, a small extra list of real papers is built beside the seeds: the paper
with the longest author list and the papers with CJK author names, so wrapping and CJK fonts can be
judged. They are taken from the tests' sample of real papers (``tests/fixtures/papers/sample.jsonl``),
which holds the full corpus's longest author list and its one CJK author name.

Page types: see ``page_types`` (home, venue, track, paper, paper-math, paper-long-authors,
paper-cjk, search, map, and author/stars when the site has them). Uses Debian's Chromium through
``tests/browser.py``; exits with status 2 when the build fails.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from site_builder.model import urls  # noqa: E402
from site_builder.cli import main as build  # noqa: E402
from papers_sample import SAMPLE  # noqa: E402

VIEWPORTS = {"390": {"width": 390, "height": 844}, "1280": {"width": 1280, "height": 800}}
THEMES = ("light", "dark")
MAX_SCREENS = 3  # a long page is cut after three screens' height
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def stress_list(corpus: Path = SAMPLE) -> str:
    """A paper list (the seeds' text format) of real papers of ``corpus`` (JSON lines) that stress the layout.

    The longest author list and every paper with a CJK author name, under the heading
    ``Stress 2024 Papers``.
    """
    records = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = [r for r in records if r.get("abstract") and r.get("authors")]
    chosen = [max(records, key=lambda r: len(r["authors"]))]
    chosen += [r for r in records if any(CJK.search(a) for a in r["authors"]) and r not in chosen]
    blocks = ["Stress 2024 Papers"]
    for r in chosen:
        abstract = " ".join(r["abstract"].split())
        blocks.append("\n".join(["Stress Tests · Long Author Lists", ", ".join(r["authors"]), abstract]))
    return "\n\n".join(blocks) + "\n"


def page_types(site: Path) -> dict[str, str]:
    """Page type → site-root relative path (with query) of one representative page of ``site``."""
    records = json.loads((site / urls.PAPERS_JSON).read_text(encoding="utf-8"))
    tracked = next(r for r in records if r["track"])
    html = {r["url"]: (site / r["url"]).read_text(encoding="utf-8") for r in records}
    with_math = max(records, key=lambda r: html[r["url"]].count("<math"))
    venue_pages = sorted(p.relative_to(site).as_posix() for p in (site / "venues").glob("*/index.html"))
    track_pages = sorted(p.relative_to(site).as_posix() for p in (site / "venues").glob("*/*.html")
                         if p.name != "index.html")
    types = {
        "home": urls.HOME,
        "venue": max(venue_pages, key=lambda p: (site / p).stat().st_size),
        "track": track_pages[0] if track_pages else venue_pages[0],
        "paper": tracked["url"],
        "paper-math": with_math["url"],
        "paper-long-authors": max(records, key=lambda r: len(r["authors"]))["url"],
    }
    cjk = [r for r in records if any(CJK.search(a) for a in r["authors"])]
    if cjk:
        types["paper-cjk"] = cjk[0]["url"]
    types["search"] = f"{urls.SEARCH}?q=language+model"
    types["map"] = urls.MAP
    for kind, folder in (("author", "authors"), ("stars", "stars")):
        found = sorted((site / folder).glob("**/*.html")) if (site / folder).is_dir() else []
        if (site / f"{folder}.html").exists():
            found.insert(0, site / f"{folder}.html")
        if found:
            types[kind] = found[-1].relative_to(site).as_posix()
    return types


def shoot(site: Path, out: Path) -> list[Path]:
    """Write the screenshots of ``site`` into ``out``; returns the files written."""
    from browser import chromium_context

    written = []
    for theme in THEMES:
        for name, viewport in VIEWPORTS.items():
            with chromium_context(viewport=viewport, color_scheme=theme) as context:
                tab = context.new_page()
                for kind, path in page_types(site).items():
                    page_path, _, query = path.partition("?")
                    tab.goto((site / page_path).as_uri() + (f"?{query}" if query else ""))
                    tab.wait_for_load_state("load")
                    if kind == "search":
                        tab.wait_for_timeout(300)  # results render after load
                    target = out / f"{kind}-{name}-{theme}.png"
                    height = min(tab.evaluate("document.documentElement.scrollHeight"), MAX_SCREENS * viewport["height"])
                    tab.screenshot(path=str(target), full_page=True,
                                   clip={"x": 0, "y": 0, "width": viewport["width"], "height": height})
                    written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line entry; returns the exit status (0 written, 2 build failed)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="screenshots", type=Path, help="output folder (default screenshots/)")
    parser.add_argument("--seeds", type=Path, default=ROOT / "seeds")
    parser.add_argument("--config", type=Path, default=ROOT / "site.toml")
    parser.add_argument("--no-stress", action="store_true", help="build the seeds only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="screenshots-") as tmp:
        seeds = Path(tmp) / "seeds"
        shutil.copytree(args.seeds, seeds)
        if not args.no_stress:
            (seeds / "zz_stress.txt").write_text(stress_list(), encoding="utf-8")
        site = Path(tmp) / "_site"
        if build(["--seeds", str(seeds), "--config", str(args.config), "--out", str(site)]) != 0:
            print("screenshots: error: the build failed", file=sys.stderr)
            return 2
        args.out.mkdir(parents=True, exist_ok=True)
        for path in shoot(site, args.out):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
