#!/usr/bin/env python3
"""Where a built site's bytes go: bytes a paper by kind of file (issue 25, "the site fits GitHub Pages").

Usage: python3 scripts/site_bytes.py SITE [SITE ...] [--papers N] [--ignore NAME ...]

For each SITE folder, sums the files' sizes (their bytes, not the disk blocks they take) by kind: paper pages,
author pages, venue list pages, the list pages' abstracts files, the venues' ``.bib`` files, ``papers.bib``,
``papers.json``, ``search/``, the map (``map.html`` and ``map-data.js``), ``assets/`` and the rest, and prints each
kind's total in MB, its bytes a paper and its share. The number of papers is the number of paper pages
(``papers/*.html``) unless ``--papers`` says otherwise. Two sites side by side (the first the baseline) also get
the difference. ``--ignore`` leaves top-level entries out (default: ``pagefind`` and ``pagefind-bench.html``,
which the search benchmark adds to a site). GitHub Pages' limit is 1 GB a published site: 10 kB a paper at
100,000 papers.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path, PurePosixPath

KINDS = ("paper pages", "author pages", "venue list pages", "venue abstracts .js", "venue .bib",
         "papers.bib", "papers.json", "search/", "map", "assets/", "other")


def kind_of(rel: PurePosixPath) -> str:
    """The kind of the file at ``rel`` (a path relative to the site's root), one of ``KINDS``."""
    top, name = rel.parts[0], rel.name
    if len(rel.parts) == 1:
        if name in ("papers.bib", "papers.json"):
            return name
        return "map" if name in ("map.html", "map-data.js") else "other"
    by_top = {"papers": "paper pages", "authors": "author pages", "search": "search/", "assets": "assets/"}
    if top in by_top:
        return by_top[top]
    if top == "venues":
        if "abstracts" in rel.parts[:-1]:
            return "venue abstracts .js"
        return "venue .bib" if name.endswith(".bib") else "venue list pages"
    return "other"


def measure(site: Path, ignore: set[str]) -> tuple[Counter, Counter, int]:
    """``(bytes by kind, files by kind, paper pages)`` of the files under ``site``."""
    sizes, files = Counter(), Counter()
    for path in site.rglob("*"):
        rel = PurePosixPath(path.relative_to(site).as_posix())
        if rel.parts[0] in ignore or not path.is_file():
            continue
        kind = kind_of(rel)
        sizes[kind] += path.stat().st_size
        files[kind] += 1
    papers = sum(1 for p in (site / "papers").glob("*.html")) if (site / "papers").is_dir() else 0
    return sizes, files, papers


def report(sites: list[Path], ignore: set[str], papers: int | None) -> str:
    """The table for ``sites``: a row per kind, for each site MB, files, bytes a paper, share."""
    measured = [measure(site, ignore) for site in sites]
    counts = [papers or m[2] or 1 for m in measured]
    head = "kind".ljust(20) + "".join(f"| {s.name[:14]:>14}: MB  files B/paper share " for s in sites)
    lines = [head + ("| B/paper change" if len(sites) == 2 else "")]
    for kind in KINDS + ("total",):
        row = kind.ljust(20)
        per = []
        for (sizes, files, _), n in zip(measured, counts):
            size = sum(sizes.values()) if kind == "total" else sizes[kind]
            count = sum(files.values()) if kind == "total" else files[kind]
            share = size / max(1, sum(sizes.values()))
            per.append(size / n)
            row += f"| {size / 1e6:17.1f} {count:6d} {size / n:7.0f} {share:6.1%} "
        if len(sites) == 2:
            row += f"| {per[1] - per[0]:+8.0f}"
        lines.append(row)
    lines.append("papers: " + ", ".join(f"{s}: {n}" for s, n in zip(sites, counts)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the table for the sites named on the command line; exit status 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sites", nargs="+", type=Path)
    parser.add_argument("--papers", type=int, help="papers in the site (default: its paper pages)")
    parser.add_argument("--ignore", nargs="*", default=["pagefind", "pagefind-bench.html"])
    args = parser.parse_args(argv)
    print(report(args.sites, set(args.ignore), args.papers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
