"""Read a JSON Lines paper corpus into reader entries, and find the full corpus of real papers.

The full corpus (``../shared/corpus/papers.jsonl`` beside the repo, or ``$PAPERS_CORPUS``) is for the
benchmarks and the measuring scripts (``scripts/index_size.py``, ``scripts/search_recall.py``, …), which
call :func:`require_corpus`; the tests read the sample committed in ``tests/fixtures/papers/`` and never
the full corpus. One JSON object a line with fields ``venue``, ``year``, ``title``, ``authors``,
``abstract`` and optionally ``track`` or ``primary_area`` (a string, ``" · "``/``" > "`` separating parts).
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from .config import SiteConfig
from .diagnostics import Diagnostics
from .model.site import Site, build_site
from .read.plaintext import Entry

ENVIRONMENT = "PAPERS_CORPUS"
_TRACK_SEP = re.compile(r"\s*(?:·|>|›|/)\s*")


def find_corpus(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the full corpus is looked for: ``$PAPERS_CORPUS`` when set (even when no file is there: never
    another place then), else the first ``shared/corpus/papers.jsonl`` in a folder above this package, else
    that path beside the repo (``../shared/corpus/papers.jsonl``)."""
    if environ.get(ENVIRONMENT):
        return Path(environ[ENVIRONMENT])
    here = Path(__file__).resolve()
    for folder in here.parents:
        candidate = folder / "shared" / "corpus" / "papers.jsonl"
        if candidate.exists():
            return candidate
    return here.parents[2] / "shared" / "corpus" / "papers.jsonl"


DEFAULT_CORPUS = find_corpus()


def require_corpus(path: Path | str | None = None) -> Path:
    """``path`` (default :data:`DEFAULT_CORPUS`) when it is a file; else one line on stderr naming where it
    was looked for and ``PAPERS_CORPUS``, and exit status 2. Every benchmark and measuring script that needs the
    full corpus calls this before anything else."""
    corpus = DEFAULT_CORPUS if path is None else Path(path)
    if not corpus.is_file():
        print(f"papers corpus not found: {corpus} (set {ENVIRONMENT}=/path/to/papers.jsonl)", file=sys.stderr)
        raise SystemExit(2)
    return corpus


def read_corpus(path: Path, sample: int | None = None, seed: int = 0) -> list[Entry]:
    """Entries of the corpus at ``path``: all, or ``sample`` of them drawn with ``random.Random(seed)``.

    Lines that are not JSON objects with a non-empty abstract, venue and year
    are skipped. Raises OSError when the file cannot be read.
    """
    entries = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(record, dict) or not record.get("abstract") or not record.get("venue") or not record.get("year"):
                continue
            track = record.get("track") or record.get("primary_area") or ""
            entries.append(Entry(
                path=str(path), line=number, abstract=str(record["abstract"]),
                title=str(record["title"]) if record.get("title") else None,
                authors=tuple(str(a) for a in record.get("authors") or ()),
                track=tuple(p for p in _TRACK_SEP.split(str(track)) if p) if track else (),
                venue=str(record["venue"]), year=int(record["year"])))
    if sample is not None and sample < len(entries):
        entries = random.Random(seed).sample(entries, sample)
    return entries


def corpus_site(entries: list[Entry]) -> Site:
    """The site model of corpus ``entries`` (duplicate abstracts merged, as in a build)."""
    return build_site(entries, {}, SiteConfig(), Diagnostics())
