"""Structured paper records (one dict per paper, as BibTeX, RIS, CSL-JSON, CSV and JSON files give them) → entries.

Every structured format reads its file into :class:`Record`\\ s: the fields of a paper under one set of names
(``title``, ``authors``, ``abstract``, ``venue``, ``year``, ``track``, ``keywords``, ``doi``, ``url``,
``code_urls``), the line the record starts on and its key (a BibTeX key, an id) for messages. :func:`list_result`
turns them into a :class:`~site_builder.read.entries.ListResult`: the title kept as given (never derived),
authors in order, the venue named by its usual short name (:func:`venue_name`: "Proceedings of the 41st
International Conference on Machine Learning" → ICML), the config's venue and year for a record naming none,
duplicates within the file read once with a warning (:func:`~site_builder.read.duplicates.merge_duplicates`).

A record without an abstract is a paper too (``abstract`` is ``""``): its id comes from its title
(:func:`~site_builder.read.duplicates.identity_key` takes the title for an abstract under 40 characters); a
record with neither a title nor an abstract is left out with a warning naming its key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic
from .duplicates import merge_duplicates
from .entries import Entry, ListResult, ReadError

#: Conference and journal names as proceedings and reference managers write them → the short name lists use.
#: Tried in order on the container title (case-insensitive); the first whose pattern is found names the venue.
VENUE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("ICML", r"\bICML\b|International Conference on Machine Learning\b"),
    ("ICLR", r"\bICLR\b|International Conference on Learning Representations"),
    ("NeurIPS", r"\bNeurIPS\b|\bNIPS\b|Neural Information Processing Systems"),
    ("AISTATS", r"\bAISTATS\b|Artificial Intelligence and Statistics"),
    ("COLT", r"\bCOLT\b|Conference on (Computational )?Learning Theory"),
    ("UAI", r"\bUAI\b|Uncertainty in Artificial Intelligence"),
    ("CoRL", r"\bCoRL\b|Conference on Robot Learning"),
    ("RSS", r"\bRSS\b|Robotics:? Science and Systems"),
    ("COLM", r"\bCOLM\b|Conference on Language Modeling"),
    ("NAACL", r"\bNAACL\b|North American Chapter of the Association for Computational Linguistics"),
    ("EMNLP", r"\bEMNLP\b|Empirical Methods in Natural Language Processing"),
    ("COLING", r"\bCOLING\b|International Conference on Computational Linguistics"),
    ("ACL", r"\bACL\b|Annual Meeting of the Association for Computational Linguistics"),
    ("AAAI", r"\bAAAI\b"),
    ("IJCAI", r"\bIJCAI\b|International Joint Conference on Artificial Intelligence"),
    ("ECCV", r"\bECCV\b|European Conference on Computer Vision"),
    ("ICCV", r"\bICCV\b|International Conference on Computer Vision"),
    ("CVPR", r"\bCVPR\b|Computer Vision and Pattern Recognition"),
    ("3DV", r"\b3DV\b|International Conference on 3D Vision"),
    ("KDD", r"\bKDD\b|Knowledge Discovery and Data Mining"),
    ("TMLR", r"\bTMLR\b|Transactions on Machine Learning Research"),
    ("JMLR", r"\bJMLR\b|Journal of Machine Learning Research"),
)
_VENUES = [(name, re.compile(pattern, re.IGNORECASE)) for name, pattern in VENUE_PATTERNS]
_YEAR = re.compile(r"\b(19[5-9]\d|20\d\d|2100)\b")
_DOI = re.compile(r"10\.\d{4,9}/\S+")
#: A link in free text: ``http(s)://…``, or a code host's without its scheme (``github.com/user/repo``).
LINK = re.compile(r"(?:https?://|(?<![\w./])(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co|"
                  r"codeberg\.org)/)[^\s\"'<>{}\\]+")
#: Hosts of code repositories: a link to one of them is a code link, any other the landing page.
CODE_HOSTS = re.compile(r"^(https?://)?(www\.)?(github\.com|gitlab\.com|bitbucket\.org|huggingface\.co|codeberg\.org)/",
                        re.IGNORECASE)


@dataclass
class Record:
    """One paper of a structured file under the common field names (see the module doc); ``line`` is the
    1-based line it starts on and ``key`` names it in messages (``@inproceedings{smith2024,`` → ``smith2024``)."""

    line: int
    key: str = ""
    title: str = ""
    authors: list[str] = field(default_factory=list)
    abstract: str = ""
    venue: str = ""
    year: int | None = None
    track: tuple[str, ...] = ()
    keywords: list[str] = field(default_factory=list)
    doi: str = ""
    url: str = ""
    code_urls: list[str] = field(default_factory=list)
    status: str = ""
    et_al: bool = False
    #: The entry's year field when it gives one that is not a year (``twenty``), for a warning; else ``""``.
    bad_year: str = ""
    #: What the entry gives that is not read as given (a DOI that is not a DOI, a list where text belongs), one
    #: message each, for warnings.
    problems: list[str] = field(default_factory=list)


def venue_name(container: str) -> str:
    """The venue's short name for a container title (``booktitle``, ``journal``, ``container-title``):
    the first of :data:`VENUE_PATTERNS` found in it, else the container title without a year, ordinal
    and "Proceedings of the" (so "ICLR 2025" → ICLR, "Proceedings of the 41st International Conference on
    Machine Learning" → ICML, "My Workshop 2024" → "My Workshop"); ``""`` for an empty one."""
    text = " ".join(container.split())
    for name, pattern in _VENUES:
        if pattern.search(text):
            return name
    text = re.sub(r"^(Proceedings of (the )?)?(\d+(st|nd|rd|th) )?", "", _YEAR.sub("", text), flags=re.IGNORECASE)
    return " ".join(text.strip(" ,.-'").split())


def year_in(text: str) -> int | None:
    """The first four-digit year (1950–2100) in ``text``, or None."""
    found = _YEAR.search(text or "")
    return int(found.group()) if found else None


def bare_doi(text: str) -> str:
    """A DOI as ``10.…`` from a DOI, ``doi:…`` or a ``https://doi.org/…`` link; ``""`` when ``text`` holds none."""
    found = _DOI.search(text or "")
    return found.group().rstrip(".,;") if found else ""


def doi_field(value, problems: list[str]) -> str:
    """The DOI (``10.…``) of an entry's DOI field ``value`` (:func:`bare_doi`); ``""`` when none is given, and
    when the field gives text that holds no DOI, with a message appended to ``problems``."""
    text = " ".join(str(value or "").split())
    doi = bare_doi(text)
    if text and not doi:
        problems.append(f"doi {text!r} is not a DOI (10.…); left out")
    return doi


def split_links(urls: list[str]) -> tuple[str, list[str]]:
    """``(landing page, code links)`` of ``urls``: links to code hosts (:data:`CODE_HOSTS`) are code, the first
    other link is the landing page."""
    code = [u for u in urls if CODE_HOSTS.match(u)]
    other = [u for u in urls if u and not CODE_HOSTS.match(u)]
    return (other[0] if other else ""), code


def links_in(text: str) -> list[str]:
    """The links (:data:`LINK`) in ``text``, in order, without a trailing ``.,;)``."""
    return [link.rstrip(".,;)") for link in LINK.findall(text or "")]


def split_keywords(text: str) -> list[str]:
    """Keywords written as one string: separated by ``;`` when it holds one, else by commas."""
    return [k.strip() for k in (text.split(";") if ";" in text else text.split(",")) if k.strip()]


def split_names(text: str) -> list[str]:
    """Authors written as one string: split on ``;`` when it holds one, else on `` and `` and commas
    (``"A. Smith, B. Jones and C. Wu"``)."""
    if ";" in text:
        parts = text.split(";")
    else:
        parts = re.split(r",|\band\b", text)
    return [" ".join(p.split()) for p in parts if p.strip()]


#: An author name that says the list goes on (``et al.``, ``others``, ``等``, ``…``): no author, the paper's
#: ``et_al`` (a JSON or CSV list ending ``"et al."``; found by the second new-user pass).
ET_AL_NAME = re.compile(r"^(?:et\.?\s*al\.?|and\s+others|others|等人?|等等|…|\.\.\.)$", re.I)


def entry_of(record: Record, path: str, venue: str | None, year: int | None) -> Entry | None:
    """The :class:`Entry` of ``record`` read from ``path``; ``venue``/``year`` are the config's for a record
    naming none; trailing author names matching :data:`ET_AL_NAME` are its ``et_al``. None when it has neither
    title nor abstract."""
    title = " ".join(record.title.split())
    if not title and not record.abstract.strip():
        return None
    authors = [a for a in (" ".join(n.split()) for n in record.authors) if a]
    et_al = record.et_al
    while authors and ET_AL_NAME.match(authors[-1]):
        authors.pop()
        et_al = True
    return Entry(
        path=path, line=record.line, abstract=record.abstract.strip(), title=title or None,
        authors=tuple(authors), et_al=et_al,
        track=tuple(p for p in record.track if p), venue=record.venue or venue, year=record.year or year,
        status=record.status or None, keywords=tuple(dict.fromkeys(k.strip() for k in record.keywords if k.strip())),
        end_line=record.line, doi=record.doi or None, url=record.url or None,
        code_urls=tuple(dict.fromkeys(record.code_urls)))


def list_result(path: Path, records: list[Record], diagnostics: list[Diagnostic], venue: str | None,
                year: int | None, explicit: bool = False) -> ListResult:
    """The :class:`ListResult` of ``records`` read from ``path`` (heading None): their entries in file order,
    duplicates read once with a warning; ``diagnostics`` (the format's own, e.g. malformed entries) come
    first, then a warning for each record with neither title nor abstract, naming its key, for each
    whose year field is not a year, and for each of a record's :attr:`Record.problems`; and, when the config
    names this list's ``venue`` and ``year`` (``explicit``), one warning if papers name others (each keeps its
    own, as a heading's venue wins over the config's in a text list)."""
    name = str(path)
    entries: list[Entry] = []
    for record in records:
        who = f"entry {record.key or 'at line ' + str(record.line)}"
        if record.bad_year:
            diagnostics.append(Diagnostic(name, record.line, "warning",
                                          f"{who}: year {record.bad_year!r} is not a year; the list's heading or the "
                                          "config gives it, if either does"))
        for problem in record.problems:
            diagnostics.append(Diagnostic(name, record.line, "warning", f"{who}: {problem}"))
        entry = entry_of(record, name, venue, year)
        if entry is None:
            diagnostics.append(Diagnostic(name, record.line, "warning",
                                          f"{who} gives neither a title nor an abstract; left out"))
        else:
            entries.append(entry)
    if not entries and not any(d.level == "error" for d in diagnostics):
        diagnostics.append(Diagnostic(name, 0, "warning", "the file holds no papers; the other lists are built without it"))
    if explicit:
        diagnostics.extend(_config_contradicted(name, records, venue, year))
    result = ListResult(name, None, entries, diagnostics)
    merge_duplicates([result])
    return result


def _config_contradicted(name: str, records: list[Record], venue: str | None, year: int | None) -> list[Diagnostic]:
    """One warning when records of the list ``name`` name another venue or year than the config gives it (found by
    the third new-user pass: a ``[lists]`` entry contradicting a CSV's rows said nothing)."""
    differ = [r for r in records if (venue and r.venue and venue_name(r.venue).casefold() != venue.casefold())
              or (year and r.year and r.year != year)]
    if not differ:
        return []
    first = differ[0]
    return [Diagnostic(name, first.line, "warning",
                       f"the config gives this list {' '.join(str(v) for v in (venue, year) if v)}, but {len(differ)} "
                       f"of its papers name their own venue or year ({venue_name(first.venue) or '?'} "
                       f"{first.year or '?'} here); each keeps its own")]


def read_text(path: Path) -> str:
    """The text of the file at ``path`` (UTF-8, a byte order mark dropped). Raises :class:`ReadError` when it
    cannot be read or decoded, or holds no text (``empty``)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ReadError(f"cannot read the file: {exc.strerror}") from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReadError(f"not UTF-8 text (byte {exc.start})") from exc
    if not text.strip():
        raise ReadError("the file is empty", empty=True)
    return text


def bad_year(value, year: int | None) -> str:
    """``value`` (an entry's year field) as text when it is given and yet no year was read from it (``year``
    None), for :attr:`Record.bad_year`; else ``""``."""
    text = " ".join(str(value).split()) if value not in (None, "", []) else ""
    return text if text and year is None else ""


def failed(path: Path, error: ReadError | str, kind: str = "error") -> ListResult:
    """A :class:`ListResult` with no entries and one diagnostic: ``error``'s message (an empty file is a warning)."""
    if isinstance(error, ReadError) and error.empty:
        kind = "warning"
    return ListResult(str(path), None, [], [Diagnostic(str(path), getattr(error, "line", 0), kind, str(error))])
