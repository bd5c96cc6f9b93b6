"""Write the first N papers of the shared corpus as text lists in the seed layouts.

Input: ``papers.jsonl`` (one JSON object a line: ``venue``, ``year``,
``authors``, ``abstract``, optional ``track``/``primary_area``, ``status``).
Output: one ``*.txt`` list per venue-year in a seeds folder, plus a
``site.toml`` that names the venue and year of the lists whose heading names none.

Layouts, alternating by venue-year (sorted), copied from ``seeds/``:

- ``seeds/000…``/``002…``: heading ``VENUE YEAR Papers``, then the
  abstracts, one paragraph each, separated by blank lines;
- ``seeds/003…``: heading ``论文检索`` (names no venue; the venue comes from
  ``site.toml``), then per paper a track line ``Area · Subarea``
  (the corpus ``track`` or ``primary_area``, else ``Papers``, with the ``status`` as sub-area),
  an author line (comma-separated, only for two or more authors, as in the
  seed) and the abstract.

Abstracts are written on one line (runs of whitespace become one space) so
a paragraph break inside an abstract never splits a paper.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from site_builder.corpus import DEFAULT_CORPUS as CORPUS, require_corpus


def load_corpus(path: Path, n: int) -> list[dict]:
    """The first ``n`` records of the JSON-lines file at ``path`` (fewer when it holds fewer)."""
    records: list[dict] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if len(records) >= n:
                break
            if line.strip():
                records.append(json.loads(line))
    return records


def one_line(text: str) -> str:
    """``text`` with every run of whitespace made one space, stripped."""
    return re.sub(r"\s+", " ", text).strip()


def list_name(index: int, venue: str, year: int) -> str:
    """File name of the ``index``-th list, e.g. ``001_aistats-2023.txt``."""
    return f"{index:03d}_{re.sub(r'[^a-z0-9]+', '-', venue.lower())}-{year}.txt"


def track_line(record: dict) -> str:
    """The ``Area · Subarea`` line of ``record`` (area ``Papers`` when the corpus gives none).

    Every paper of the track/author layout gets one: a paper with no header
    line at all (no track, fewer than two authors) is read as the
    continuation of the abstract above it in such a list.
    """
    area = record.get("track") or record.get("primary_area") or "Papers"
    return f"{one_line(area)} · {one_line(record.get('status') or 'Papers')}"


def render_list(venue: str, year: int, records: list[dict], tracked: bool) -> str:
    """The text of one list: heading layout (``tracked`` False) or track/author/abstract layout."""
    if not tracked:
        return f"{venue} {year} Papers\n\n" + "".join(f"{one_line(r['abstract'])}\n\n" for r in records)
    blocks = []
    for record in records:
        lines = [track_line(record)]
        authors = [one_line(a) for a in record.get("authors") or [] if one_line(a)]
        if len(authors) >= 2:
            lines.append(", ".join(authors))
        lines.append(one_line(record["abstract"]))
        blocks.append("\n\n".join(lines))
    return "论文检索\n\n" + "".join(f"{b}\n\n" for b in blocks)


def write_lists(records: list[dict], seeds: Path, config: Path) -> list[Path]:
    """Write ``records`` as one list per venue-year into ``seeds`` and the config to ``config``.

    Returns the written list paths. Records keep their corpus order within a list.
    """
    seeds.mkdir(parents=True, exist_ok=True)
    for old in seeds.glob("*.txt"):
        old.unlink()
    groups: dict[tuple[str, int], list[dict]] = {}
    for record in records:
        if one_line(record.get("abstract") or ""):
            groups.setdefault((record["venue"], int(record["year"])), []).append(record)
    written: list[Path] = []
    toml = ['title = "Benchmark reading list"', 'description = "The first papers of the shared corpus."', ""]
    for i, ((venue, year), group) in enumerate(sorted(groups.items())):
        tracked = i % 2 == 1
        path = seeds / list_name(i, venue, year)
        path.write_text(render_list(venue, year, group, tracked), encoding="utf-8")
        written.append(path)
        if tracked:  # its heading (论文检索) names no venue: the config does, as for seeds/003
            toml += [f'[lists."{path.name}"]', f'venue = "{venue}"', f"year = {year}", ""]
    config.write_text("\n".join(toml), encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    """``python bench/lists.py N OUTDIR``: write ``OUTDIR/seeds/*.txt`` and ``OUTDIR/site.toml``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="number of papers (the first N of the corpus)")
    parser.add_argument("out", type=Path, help="folder to write seeds/ and site.toml into")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    paths = write_lists(load_corpus(require_corpus(args.corpus), args.n), args.out / "seeds", args.out / "site.toml")
    print(f"wrote {len(paths)} lists into {args.out / 'seeds'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
