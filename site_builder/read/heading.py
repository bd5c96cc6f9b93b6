"""List reader, stage 2: the heading line and the venue and year it names."""

from __future__ import annotations

import functools
import re

from .entries import Heading
from .text import clean


_PAGE_HEAD = (r"(?:accepted|papers?|list|lists|proceedings|main|conference|track|long|short|findings|oral|poster|"
              r"spotlight|workshop|reading|all|technical|of|the|論文|论文|列表|检索|檢索|收录|接收|录用|合集|汇总|清单|全部|"
              r"[-–—:：|·()（）])")
_VENUE = r"(?P<venue>[A-Za-z0-9][A-Za-z0-9&\-]*?[A-Za-z][A-Za-z0-9&]*|[A-Za-z])"
_LEAD = rf"^#*\s*(?P<lead>(?:{_PAGE_HEAD}\s*)*?)"


@functools.cache
def _heading_forms() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """``(HEADING, short year, year first, PAGE_HEADING, page word)``: the heading patterns, compiled on first
    use, not at import (~10 ms of CPU: a rebuild whose lists come from the list cache reads no heading)."""
    return (re.compile(_LEAD + _VENUE + r"[\s\-']*(?P<year>(?:19|20)\d\d)(?![\d])(?P<rest>.*)$", re.I),
            re.compile(_LEAD + _VENUE + r"(?:\s*[-'’]\s*|\s+[-'’])(?P<yy>\d\d)(?![\d])(?P<rest>.*)$", re.I),
            re.compile(_LEAD + r"(?P<year>(?:19|20)\d\d)(?![\d])(?:\s*年\s*|[\s\-]+)" + _VENUE
                       + r"(?![A-Za-z0-9_])(?P<rest>.*)$", re.I),
            re.compile(rf"^#*\s*(?:{_PAGE_HEAD}\s*)+$", re.I),
            re.compile(rf"^{_PAGE_HEAD}$", re.I))


def __getattr__(name: str) -> re.Pattern[str]:
    """``HEADING`` (a venue and year heading) and ``PAGE_HEADING`` (page words alone) as module attributes, as
    before their compilation was deferred (:func:`_heading_forms`; https://peps.python.org/pep-0562/)."""
    if name == "HEADING":
        return _heading_forms()[0]
    if name == "PAGE_HEADING":
        return _heading_forms()[3]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _match_heading(text: str) -> tuple[str, int, str] | None:
    """``(venue, year, rest)`` of a heading line, or None.

    Forms: ``ICLR 2025 Papers``, ``NeurIPS-2024``, ``Accepted Papers — ICML 2024`` (page words
    first), ``2024 NeurIPS`` and ``2025年ICML论文`` (year first), ``AAAI-25 Technical Track`` and ``KDD '24``
    (two-digit year after ``-`` or ``'``, read as 20YY).  ``Findings`` anywhere in the heading
    (``ACL 2024 Findings``, ``Findings of EMNLP 2023``) gives the venue ``ACL Findings``: the
    Findings are a venue of their own, apart from the main conference.
    """
    venue_year, short_year, year_first, _, page_word = _heading_forms()
    for pattern in (venue_year, short_year, year_first):
        m = pattern.match(text)
        if not m or len(m["rest"]) > 60 or page_word.match(m["venue"]):
            continue
        year = int(m["year"]) if "year" in m.groupdict() and m["year"] else 2000 + int(m["yy"])
        venue = m["venue"]
        if re.search(r"\bfindings\b", m["lead"] + " " + m["rest"], re.I) and not venue.lower().endswith("findings"):
            venue += " Findings"
        return venue, year, m["rest"]
    return None


def parse_heading(text: str, line: int = 1) -> Heading:
    """Return the venue and year named by a heading line such as ``ICLR 2025 Papers``.

    ``parse_heading("ICML 2024 论文列表") == Heading("ICML 2024 论文列表", "ICML", 2024, 1)``;
    a heading naming no venue (``论文检索``) gives venue and year None.  See :func:`_match_heading`
    for the forms read (``2024 NeurIPS``, ``KDD '24``, ``ACL 2024 Findings`` → venue ``ACL Findings``).
    """
    text = clean(text)
    m = _match_heading(text)
    if not m:
        return Heading(text, None, None, line)
    return Heading(text, m[0], m[1], line)


def is_heading_line(text: str) -> bool:
    """True when ``text`` reads as a list heading: venue and year, or only page words (``论文检索``)."""
    text = clean(text)
    if len(text) > 80:
        return False
    if _match_heading(text) and not re.search(r"[.!?。]$", text):
        return True
    return bool(_heading_forms()[3].match(text))
