"""Derive a readable title from an abstract when a list gives none.

PLACEHOLDER: to be replaced by the full heuristic (issue 2/3) with the same interface.
"""

from __future__ import annotations

import re

PROPOSE = re.compile(r"\b(?:we|this paper|this work)\s+(?:propose|introduce|present)s?\s+(?P<rest>[^.;:]+)", re.I)


def introduced_name(abstract: str) -> str | None:
    """Return the method name the abstract introduces (e.g. ``HASS``), or None."""
    m = re.search(r"\(([A-Z][A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*)\)", abstract)
    return m.group(1) if m else None


def derive_title(abstract: str) -> str:
    """Return a title of at most about 12 words derived from ``abstract``."""
    m = PROPOSE.search(abstract)
    text = m["rest"] if m else abstract.split(".")[0]
    words = re.sub(r"^(?:a|an|the)\s+", "", text.strip(), flags=re.I).split()[:12]
    title = " ".join(words).rstrip(",")
    return title[:1].upper() + title[1:]
