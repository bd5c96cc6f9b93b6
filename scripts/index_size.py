#!/usr/bin/env python3
"""Index size and build time: the site's own index vs lunr.py's naive ``lunr()`` over the same papers.

Usage: PYTHONPATH=$PWD .venv/bin/python scripts/index_size.py [--papers 10000] [--seed 0] [--corpus PATH] [--no-naive]

Needs the full corpus (``../shared/corpus/papers.jsonl`` or ``$PAPERS_CORPUS``; else exit status 2) and, unless
``--no-naive``, lunr.py: the ``bench`` extra (``bash scripts/venv.sh bench``).

Draws ``--papers`` papers from the corpus (``site_builder.corpus``), then reports
for each index: raw and gzip bytes per paper of what the site ships
(``search/``: the term shards, the manifest and the result records, each file gzipped alone as a
server sends it; and the records alone) and of the lunr
serialised JSON (index plus records, and the index alone), and the wall and CPU
seconds to build it (``search.index_files``: tokenizing, the index and the packing).
The naive lunr.py index is measured as serialised JSON with the same records.
It also times the whole site build (``pipeline.write_site``: every page,
papers.json, index, assets) into a temporary folder, which must take less
wall time than the naive ``lunr()`` alone (issue 8). Timings are of this
machine at this moment; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_builder.corpus import DEFAULT_CORPUS, corpus_site, read_corpus, require_corpus  # noqa: E402
from site_builder.search.documents import result_record  # noqa: E402
from site_builder.search.index import build_search_data, dump_json, index_files  # noqa: E402


def timed(fn):
    """``(result, wall seconds, CPU seconds)`` of ``fn()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def sizes(obj: object, n: int) -> tuple[float, float]:
    """Raw and gzip (level 9) bytes per paper of ``obj`` dumped as the site dumps it."""
    raw = dump_json(obj).encode("utf-8")
    return len(raw) / n, len(gzip.compress(raw, 9)) / n


def naive_lunr(site):
    """lunr.py's ``lunr()`` over the same fields, boosts and texts (the starting point of issue 5)."""
    from lunr import lunr
    docs = [{"ref": p.id, "title": p.title_text, "authors": " ".join(p.authors),
             "track": p.track.label if p.track else "", "abstract": p.rendered.text} for p in site.papers]
    fields = [{"field_name": "title", "boost": 10}, {"field_name": "authors", "boost": 3},
              {"field_name": "track", "boost": 2}, {"field_name": "abstract"}]
    return lunr(ref="ref", fields=fields, documents=docs).serialize()


def main(argv: list[str] | None = None) -> int:
    """Print the measurements; exit status 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--no-naive", action="store_true", help="skip lunr.py (slow)")
    args = parser.parse_args(argv)
    require_corpus(args.corpus)

    def model():
        site = corpus_site(read_corpus(args.corpus, sample=args.papers, seed=args.seed))
        for p in site.papers:  # render titles here, outside the index timings (both indexes need them)
            p.title_text
        return site

    site, mwall, mcpu = timed(model)
    n = len(site.papers)
    print(f"{n} papers from {args.corpus}; model (read, render abstracts and titles): {mwall:.2f} s wall {mcpu:.2f} s CPU")

    files, wall, cpu = timed(lambda: index_files(site))
    raw_of = {path: text.encode("utf-8") for path, text in files.items()}
    gzip_of = {path: len(gzip.compress(data, 9)) for path, data in raw_of.items()}
    print(f"site index:  build {wall:7.2f} s wall {cpu:7.2f} s CPU ({1000 * wall / n:.2f} ms/paper); "
          f"search/ {sum(map(len, raw_of.values())) / n:7.0f} B/paper raw {sum(gzip_of.values()) / n:6.0f} B/paper gzip "
          f"in {len(files)} files")
    records = [path for path in files if path.startswith("search/records/")]
    print(f"             of which the result records (a file each): {sum(len(raw_of[p]) for p in records) / n:7.0f} "
          f"B/paper raw {sum(gzip_of[p] for p in records) / n:6.0f} B/paper gzip")
    data = build_search_data(site)
    raw, gz = sizes(data, n)
    iraw, igz = sizes(data["index"], n)
    print(f"             the same as lunr serialised JSON: {raw:7.0f} B/paper raw {gz:6.0f} B/paper gzip "
          f"(index alone {iraw:.0f} / {igz:.0f})")

    if not args.no_naive:
        naive, nwall, ncpu = timed(lambda: naive_lunr(site))
        docs = {p.id: result_record(p) for p in site.papers}
        nraw, ngz = sizes({"index": naive, "docs": docs}, n)
        niraw, nigz = sizes(naive, n)
        print(f"naive lunr(): build {nwall:7.2f} s wall {ncpu:7.2f} s CPU ({1000 * nwall / n:.2f} ms/paper); "
              f"with the same docs {nraw:7.0f} B/paper raw {ngz:6.0f} B/paper gzip (index alone {niraw:.0f} / {nigz:.0f})")

    from site_builder.pipeline import write_site
    from site_builder.output.writer import Output
    with tempfile.TemporaryDirectory(prefix="index-size-") as tmp:
        output = Output(Path(tmp) / "site")
        _, bwall, bcpu = timed(lambda: write_site(site, output))
        output.discard()
    print(f"whole site write (pages + papers.json + index + assets): {bwall:7.2f} s wall {bcpu:7.2f} s CPU")
    if not args.no_naive:
        for label, wall in (("site write", bwall), ("model + site write", mwall + bwall)):
            verdict = "faster" if wall < nwall else "SLOWER"
            print(f"{label} vs naive lunr() alone: {wall:.2f} s vs {nwall:.2f} s wall: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
