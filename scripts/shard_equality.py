#!/usr/bin/env python3
"""The sharded search index against the whole index, word by word (issue 25).

Usage: PYTHONPATH=$PWD python3 scripts/shard_equality.py [--papers 2000] [--seed 0] [--corpus PATH]

Draws ``--papers`` papers from the corpus (``site_builder.corpus``), writes their search index files
(``search.index.index_files``: the manifest, term shards and records) into a temporary folder, and runs
``tests/js/shards_check.js`` in Node: for every distinct word of every paper (title, authors, abstract,
split at white space, as a reader would copy them), the query through the page's own code
(``SearchCore.search``) on the sharded index, a fresh engine per query loading only the shards the
query needs, against the same query on ``lunr.Index.load`` of the whole serialised index
(``search.index.build_search_data``): the same results, scores and order. Prints the number of
queries and of results compared, the mismatches (exit status 1 when there is any), and what a query
loaded: files and raw bytes, median and largest.

The corpus is ``--corpus``, else ``$PAPERS_CORPUS``, else ``../shared/corpus/papers.jsonl``; without it,
exit status 2 (:func:`site_builder.corpus.require_corpus`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from site_builder.corpus import DEFAULT_CORPUS, corpus_site, read_corpus, require_corpus  # noqa: E402
from site_builder.search.index import build_search_data, index_files  # noqa: E402


def words_of(site) -> list[str]:
    """Every distinct white-space separated word of the papers' titles, authors and abstracts, sorted."""
    words: set[str] = set()
    for paper in site.papers:
        for text in (paper.title_text, " ".join(paper.authors), paper.rendered.text):
            words.update(text.split())
    return sorted(words)


def check(site, folder: Path) -> dict:
    """Write the index of ``site`` into ``folder`` and run the Node check over :func:`words_of`."""
    for path, text in index_files(site).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
    reference = folder / "reference.json"
    reference.write_text(json.dumps(build_search_data(site), ensure_ascii=False), encoding="utf-8")
    payload = {"site": str(folder), "reference": str(reference), "queries": words_of(site)}
    node = shutil.which("node") or "node"
    done = subprocess.run([node, str(ROOT / "tests" / "js" / "shards_check.js")], input=json.dumps(payload),
                          capture_output=True, text=True, encoding="utf-8", check=True)
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    """Print the comparison; exit status 0 when every query agrees, 1 otherwise (2 without the corpus)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args(argv)
    require_corpus(args.corpus)
    site = corpus_site(read_corpus(args.corpus, sample=args.papers, seed=args.seed))
    with tempfile.TemporaryDirectory(prefix="shard-equality-") as tmp:
        report = check(site, Path(tmp))
    print(f"{len(site.papers)} papers: {report['queries']} queries (every word of every paper), "
          f"{report['results']} results compared, {len(report['mismatches'])} mismatching queries")
    for miss in report["mismatches"]:
        print(f"  {miss['query']!r}: whole {miss['whole']} sharded {miss['sharded']}")
    files, size = report["files"], report["bytes"]
    print(f"loaded per query: files median {statistics.median(files):.0f}, most {max(files)}; "
          f"raw bytes median {statistics.median(size) / 1000:.1f} kB, most {max(size) / 1000:.1f} kB")
    return 1 if report["mismatches"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
