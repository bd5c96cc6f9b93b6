"""Read the JSON Lines paper corpus (``../shared/corpus/papers.jsonl``) into reader entries.

Used by the search tests and by ``scripts/search_recall.py`` / ``scripts/index_size.py``
to build sites bigger than the seeds. One JSON object a line with fields
``venue``, ``year``, ``title``, ``authors``, ``abstract`` and optionally
``track`` or ``primary_area`` (a string, ``" · "``/``" > "`` separating parts).
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

from .config import SiteConfig
from .diagnostics import Diagnostics
from .model.site import Site, build_site
from .read.plaintext import Entry



def _find_corpus() -> Path:
    """``$PAPERS_CORPUS``, else the first ``shared/corpus/papers.jsonl`` above this package."""
    if os.environ.get("PAPERS_CORPUS"):
        return Path(os.environ["PAPERS_CORPUS"])
    here = Path(__file__).resolve()
    for folder in here.parents:
        candidate = folder / "shared" / "corpus" / "papers.jsonl"
        if candidate.exists():
            return candidate
    return here.parents[2] / "shared" / "corpus" / "papers.jsonl"


DEFAULT_CORPUS = _find_corpus()
_TRACK_SEP = re.compile(r"\s*(?:·|>|›|/)\s*")


def read_corpus(path: Path = DEFAULT_CORPUS, sample: int | None = None, seed: int = 0) -> list[Entry]:
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
