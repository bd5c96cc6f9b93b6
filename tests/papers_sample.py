"""The tests' sample of real papers, ``tests/fixtures/papers/sample.jsonl``: 565 papers drawn from every venue-year
of the corpus (see ``tests/fixtures/papers/README.md``). No test reads the full corpus (``../shared/corpus/``):
it is for the benchmarks and the measuring scripts."""

from __future__ import annotations

import json
from pathlib import Path

SAMPLE = Path(__file__).resolve().parent / "fixtures" / "papers" / "sample.jsonl"


def sample_records() -> list[dict]:
    """The sample's records in its order (the corpus's), as new objects on every call."""
    with SAMPLE.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def sample_texts() -> list[str]:
    """``"title. abstract"`` of every paper of the sample, in its order (the related papers' input)."""
    return [f"{r['title']}. {r['abstract']}" for r in sample_records()]
