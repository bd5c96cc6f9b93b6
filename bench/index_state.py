"""Benchmark: CPU time of the search index with and without the kept tokenized papers (site_builder/search/state.py).

Usage (from the repository root, after ``bench/lists.py N FOLDER``)::

    PYTHONPATH=$PWD python bench/index_state.py FOLDER [--repeat 1]

Reads the lists of ``FOLDER/seeds`` with ``FOLDER/site.toml`` and builds the
site model as a build does (memo in a temporary cache folder), then measures
CPU time (``time.process_time``: user + system; each in a forked process, so
the tokenizer's caches start empty as in a fresh build) of:

1. ``search.index_files(site)`` without state (every paper tokenized);
2. ``index_files(site, store)`` cold (no state file: every paper tokenized, the state kept in the store);
3. the same with the warm state and nothing changed;
4. the same with the warm state after one abstract changed (the one paper re-tokenized, the state rewritten);

then ``index_state.prepare`` with the warm state (digests, state file, tokens of the changed paper), and
for comparison all result records and ``shards.shard_files`` of the whole index (the packing, done on
every build); and ``index_state.load_state`` and ``save_state`` of the
state (``search-terms.marshal`` through the build cache's ``Store``), its file size, and checks that all
outputs are byte-identical to the stateless one of the same papers.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

from site_builder.model import urls
from site_builder.search import state as index_state
from site_builder import pipeline
from site_builder.incremental.cache import BuildCache
from site_builder.config import load_config
from site_builder.diagnostics import Diagnostics
from site_builder.incremental.digest import code_version
from site_builder.incremental.store import Store
from site_builder.model.site import build_site
from site_builder.search.documents import result_record
from site_builder.search.index import index_files, search_tables
from site_builder.search.shards import shard_files


def cpu(fn):
    """``(digest of the result, CPU seconds)`` of ``fn()`` run in a forked child process, so every
    measurement starts with the tokenizer's caches as a fresh build has them (empty)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        t = time.process_time()
        out = fn()
        seconds = time.process_time() - t
        os.write(write, json.dumps([hashlib.sha256(repr(out).encode()).hexdigest(), seconds]).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    digest, seconds = json.loads(data)
    return digest, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    config = load_config(args.folder / "site.toml")
    diagnostics = Diagnostics()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        entries = pipeline.read_lists(pipeline.list_files(args.folder / "seeds"), config, diagnostics)
        site = build_site(entries, {}, config, diagnostics, memo=BuildCache(tmp / "memo").memo)
        papers = list(site.papers)
        i = len(papers) // 2
        edited = dataclasses.replace(papers[i], abstract=papers[i].abstract + " We also study robustness.",
                                     rendered=dataclasses.replace(papers[i].rendered,
                                                                  text=papers[i].rendered.text + " We also study robustness."))
        site2 = dataclasses.replace(site, papers=tuple(papers[:i] + [edited] + papers[i + 1:]))
        state = Store(tmp, code_version(), diagnostics)
        file = state.path(index_state.STATE_NAME)
        copy = Store(tmp / "copy", state.code, diagnostics)
        print(f"{len(papers)} papers")
        for _ in range(args.repeat):
            file.unlink(missing_ok=True)
            plain, t_plain = cpu(lambda: index_files(site))
            cold, t_cold = cpu(lambda: index_files(site, state))
            warm, t_warm = cpu(lambda: index_files(site, state))
            plain2, _ = cpu(lambda: index_files(site2))
            one, t_one = cpu(lambda: index_files(site2, state))
            _, t_load = cpu(lambda: index_state.load_state(state))
            loaded = index_state.load_state(state)
            _, t_save = cpu(lambda: index_state.save_state(copy, loaded))
            assert cold == plain and warm == plain and one == plain2, "outputs differ"
            print(f"index_files(site) without state   {t_plain:6.3f} s CPU")
            print(f"index_files(site, store) cold      {t_cold:6.3f} s CPU")
            print(f"  warm, nothing changed            {t_warm:6.3f} s CPU")
            print(f"  warm, one abstract changed       {t_one:6.3f} s CPU")
            _, t_prep = cpu(lambda: index_state.prepare(site2.papers, state))
            _, t_records = cpu(lambda: [result_record(p) for p in site.papers])
            tables, docs = search_tables(site)
            _, t_script = cpu(lambda: shard_files(tables, docs))
            print(f"  of which (warm, one changed): index_state.prepare {t_prep:.3f} s; for comparison, all result "
                  f"records {t_records:.3f} s, shards.shard_files of the whole index {t_script:.3f} s")
            print(f"load_state {t_load * 1000:.0f} ms, save_state {t_save * 1000:.0f} ms, "
                  f"file {file.stat().st_size / 1e6:.1f} MB; outputs byte-identical")


if __name__ == "__main__":
    main()
