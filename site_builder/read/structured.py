"""Lists as JSON Lines, JSON (CSL-JSON, paperlists, OpenReview notes, our ``papers.json``), CSV and RIS.

Each file becomes :class:`~site_builder.read.records.Record`\\ s, then entries (:func:`~site_builder.read.records.list_result`).

- **JSON Lines** (``*.jsonl``): one JSON object per line with the fields of our own ``papers.json`` (README,
  Output): ``title`` (ignored when ``title_derived`` is true: derived again), ``authors``, ``et_al``,
  ``abstract``, ``venue``, ``year``, ``track`` (``"Area · Subarea"``), ``keywords``, ``doi``, ``landing_url``,
  ``code_urls``; the corpus's names are read too (``site``, ``github``, ``status``, ``primary_area``).
- **JSON** (``*.json``), told apart by its content (:func:`json_kind`): CSL-JSON (an array of items with
  ``type`` and ``author``/``issued``/``container-title``; the format of Zotero, citeproc and Pandoc,
  https://citeproc-js.readthedocs.io/en/latest/csl-json/markup.html), OpenReview API v2 notes (``{"notes":
  [...]}`` or an array of notes, each field ``{"value": …}``; https://docs.openreview.net/reference/api-v2),
  and an array of flat records (the paperlists data set, https://github.com/papercopilot/paperlists: ``title``,
  ``author`` as ``"A; B"``, ``abstract``, ``status``, ``track``, ``site``, ``github``, ``keywords``; and our
  ``papers.json``).
- **CSV** (``*.csv``, Python's :mod:`csv`, dialect sniffed): a header row naming the fields, as for JSON Lines;
  several authors or keywords in one cell are separated by ``;``; a row with more cells than column names is
  read as text cells split by an unquoted delimiter (:func:`csv_row_cells`).
- **RIS** (``*.ris``, read with rispy, https://github.com/MrTango/rispy): ``TI``/``T1``, ``AU``/``A1``, ``AB``
  (``N2`` when there is no ``AB``, as Scopus writes the abstract),
  ``T2``/``JO``/``BT`` (the venue), ``PY``/``Y1``, ``KW``, ``DO``, ``UR``.

A line that is not JSON, or a record that is not an object, is a warning naming its line, and the other
records are read; a file that is not the format its suffix says is an error naming it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from ..diagnostics import Diagnostic
from .entries import ListResult, ReadError
from .lines import CJK_NAME_CHARS
from .records import (Record, bad_year, doi_field, failed, links_in, list_result, read_text, split_keywords,
                      split_links, split_names, venue_name, year_in)



def _value(value):
    """An OpenReview API v2 field's value (``{"value": x}`` → x); any other value as it is."""
    return value.get("value") if isinstance(value, dict) and "value" in value else value


def _strings(value) -> list[str]:
    """A field of several values (a list, or one string separated by ``;``) as a list of strings."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    if isinstance(value, str) and value.strip():
        return [part.strip() for part in value.split(";") if part.strip()]
    return []


def _year(value) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1900 <= value <= 2100 else None
    return year_in(str(value)) if value else None


def _venue(value: str) -> str:
    """A venue field: a single word as it is (``ICLR``, ``3DV``), a longer name by :func:`venue_name`."""
    text = " ".join(str(value or "").split())
    return text if text and " " not in text else venue_name(text)


#: The fields of a flat record that hold one text, and those that hold several (a list, or text split at ``;``).
TEXT_FIELDS = ("id", "title", "abstract", "venue", "conference", "track", "primary_area", "doi", "status",
               "landing_url", "site", "url_landing")
LIST_FIELDS = ("authors", "author", "keywords", "code_urls", "github", "code")


def _kind(value) -> str:
    return {list: "a list", dict: "an object", bool: "true or false"}.get(type(value), type(value).__name__)


def typed_fields(data: dict, problems: list[str]) -> dict:
    """``data`` (a flat record) with each field of the wrong kind read as text, a message for each appended to
    ``problems``: a text field (:data:`TEXT_FIELDS`) holding a list (its items joined with spaces) or an object
    or true/false (as JSON); a year that is a list, an object, true/false or a fraction (as JSON, a year read from it
    when it holds one); a list field (:data:`LIST_FIELDS`) holding an object or a number (as JSON), or a
    list with such items. Numbers in text fields (a year-like title, an id) are text as they are."""
    out = dict(data)
    for name in TEXT_FIELDS:
        value = data.get(name)
        if isinstance(value, (list, dict, bool)):
            out[name] = (" ".join(str(v) for v in value) if isinstance(value, list)
                         else json.dumps(value, ensure_ascii=False))
            problems.append(f"{name} is {_kind(value)}, not text; read as {out[name]!r}")
    year = data.get("year")
    if isinstance(year, (list, dict, bool)) or isinstance(year, float) and not year.is_integer():
        out["year"] = json.dumps(year, ensure_ascii=False)
        read = _year(out["year"])
        if read is not None:  # else the year is not read at all, which Record.bad_year reports
            problems.append(f"year {out['year']} is {_kind(year)}, not a year; read as {read}")
    for name in LIST_FIELDS:
        value = data.get(name)
        items = value if isinstance(value, list) else [value]
        if value is not None and not isinstance(value, str) and any(not isinstance(v, str) for v in items):
            out[name] = [v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in items]
            problems.append(f"{name} is not text or a list of texts; read as {out[name]!r}")
    return out


def flat_record(data: dict, line: int) -> Record:
    """The :class:`Record` of a flat paper object (JSON Lines, CSV, paperlists, ``papers.json``; field names
    in the module doc); a field of the wrong kind is read as text with a problem noted (:func:`typed_fields`),
    as is a DOI field that holds no DOI. Raises nothing."""
    problems: list[str] = []
    get = typed_fields(data, problems).get
    authors = get("authors") if get("authors") not in (None, "") else get("author")
    names = split_names(authors) if isinstance(authors, str) else _strings(authors)
    links = [*_strings(get("code_urls")), *_strings(get("github")), *_strings(get("code"))]
    landing, code = split_links([str(u) for u in (get("landing_url"), get("site"), get("url_landing")) if u])
    track = get("track") or get("primary_area") or ""
    return Record(
        line=line, key=str(get("id") or ""), title="" if get("title_derived") is True else str(get("title") or ""),
        authors=names, abstract=str(get("abstract") or ""), venue=_venue(get("venue") or get("conference") or ""),
        year=_year(get("year")) or year_in(str(get("venue") or "")),
        track=tuple(p.strip() for p in str(track).split("·")) if track else (),
        keywords=_strings(get("keywords")), doi=doi_field(get("doi"), problems), url=landing,
        code_urls=[*code, *links], status=str(get("status") or ""), et_al=get("et_al") is True,
        bad_year=bad_year(get("year"), _year(get("year"))), problems=problems)


def csl_text(name: str, value, problems: list[str]) -> str:
    """A CSL-JSON text field's value as text: a string as it is; a list of one string (Crossref's form) its
    string; a list of several joined with spaces, and any other non-text value as JSON, each with a message
    appended to ``problems``."""
    if value is None or isinstance(value, str):
        return value or ""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return value[0]
    text = " ".join(str(v) for v in value) if isinstance(value, list) else json.dumps(value, ensure_ascii=False)
    problems.append(f"{name} is {_kind(value)}, not text; read as {text!r}")
    return text


def csl_record(item: dict, line: int) -> Record:
    """The :class:`Record` of a CSL-JSON item (``title``, ``author``, ``abstract``, ``container-title``,
    ``issued``, ``keyword``, ``DOI``, ``URL``, code links in ``note``); authors given as text (not name objects),
    an ``issued`` that gives no year and a DOI that is not one are problems noted."""
    names, problems, authors = [], [], item.get("author") or []
    title, abstract = (csl_text(name, item.get(name), problems) for name in ("title", "abstract"))
    container = csl_text("container-title", item.get("container-title") or item.get("event-title") or
                         item.get("event"), problems)
    if isinstance(authors, str):
        problems.append(f"author is text, not a list of names; read as {split_names(authors)!r}")
        authors = split_names(authors)
    for person in authors if isinstance(authors, list) else []:
        if isinstance(person, dict):
            names.append(person.get("literal") or " ".join(str(person[p]) for p in CSL_NAME_PARTS if person.get(p)))
        elif str(person).strip():
            names.append(str(person).strip())
    given = item.get("issued")
    issued = given.get("date-parts") if isinstance(given, dict) else None
    year = _year(issued[0][0]) if isinstance(issued, list) and issued and isinstance(issued[0], list) and issued[0] \
        else None
    if year is None and given not in (None, "", {}):  # {"raw": "2024"}, {"literal": …} or bare text
        year = year_in(str(given.get("raw") or given.get("literal") or "") if isinstance(given, dict) else str(given))
    if given not in (None, "", {}) and year is None:
        problems.append(f"issued {json.dumps(item.get('issued'), ensure_ascii=False)} gives no year (CSL-JSON: "
                        '{"date-parts": [[2024]]}); the container title, the heading or the config gives it, if any does')
    note = str(item.get("note") or "")
    landing, code = split_links([str(item.get("URL") or ""), *links_in(note)])
    if re.match(r"\s*code\s*:", note, re.IGNORECASE):  # "code: https://…" names code, whatever its host
        code = links_in(note)
    return Record(line=line, key=str(item.get("id") or ""), title=title, authors=names,
                  abstract=abstract, venue=venue_name(container),
                  year=year or year_in(container), keywords=split_keywords(str(item.get("keyword") or "")),
                  doi=doi_field(item.get("DOI"), problems), url=landing, code_urls=code, problems=problems)


def openreview_record(note: dict, line: int) -> Record:
    """The :class:`Record` of an OpenReview note (API v2, or v1 with bare values): ``title``, ``authors``,
    ``abstract``, ``keywords``, ``primary_area`` (the track), ``venue`` (``"ICLR 2025 Poster"``: venue, year,
    status; ``"Submitted to ICLR 2025"``, a paper under review or not accepted: the status ``Submitted``),
    ``code``; the landing page is the note's forum."""
    content = {k: _value(v) for k, v in (note.get("content") or {}).items()}
    venue = str(content.get("venue") or "")
    status = re.split(r"\b(?:19|20)\d\d\b", venue, maxsplit=1)[-1].strip() if year_in(venue) else ""
    if re.match(r"\s*submitted\s+to\b", venue, re.I):
        status = "Submitted"
    forum = note.get("forum") or note.get("id")
    code = _strings(content.get("code")) + links_in(str(content.get("code_link") or ""))
    area = content.get("primary_area") or ""
    return Record(line=line, key=str(note.get("id") or ""), title=str(content.get("title") or ""),
                  authors=_strings(content.get("authors")), abstract=str(content.get("abstract") or ""),
                  venue=venue_name(venue), year=year_in(venue), track=(str(area).replace("_", " "),) if area else (),
                  keywords=_strings(content.get("keywords")), url=f"https://openreview.net/forum?id={forum}"
                  if forum else "", code_urls=code, status=status)


def json_kind(data) -> str | None:
    """Which JSON list ``data`` (parsed) is: ``"openreview"``, ``"csl"``, ``"records"`` (flat paper objects),
    or None when it is none of them."""
    if isinstance(data, dict) and isinstance(data.get("notes"), list):
        return "openreview"
    if not isinstance(data, list) or not data or not all(isinstance(x, dict) for x in data):
        return None
    first = data[0]
    if isinstance(first.get("content"), dict):
        return "openreview"
    if "type" in first and any(k in first for k in ("container-title", "issued", "author", "DOI")):
        return "csl"
    if any(k in first for k in ("title", "abstract")):
        return "records"
    return None


def _element_lines(text: str, items: list, start: int) -> list[int]:
    """The 1-based line each element of the JSON array opening at ``text[start]`` (a ``[``) begins on."""
    decoder, lines, at = json.JSONDecoder(), [], start + 1
    space = re.compile(r"[\s,]*")
    line, counted = 1, 0  # the line at text[counted]: lines counted as the elements go (linear, not from 0 each time)
    for _ in items:
        at = space.match(text, at).end()
        line, counted = line + text.count("\n", counted, at), at
        lines.append(line)
        try:
            at = decoder.raw_decode(text, at)[1]
        except ValueError:
            break
    return lines + [0] * (len(items) - len(lines))


def read_json(path: Path, venue: str | None = None, year: int | None = None, explicit: bool = True) -> ListResult:
    """The papers of a JSON file (CSL-JSON, OpenReview notes, paperlists or ``papers.json``, by content: see
    :func:`json_kind`); ``venue``/``year``: the config's for a record naming none. Not JSON, or JSON of none of
    these shapes, is an error naming the file; a non-object element is a warning naming its line."""
    try:
        text = read_text(path)
        data = json.loads(text)
    except ReadError as exc:
        return failed(path, exc)
    except ValueError as exc:
        return failed(path, ReadError(f"not JSON ({exc})", getattr(exc, "lineno", 0)))
    kind = json_kind(data)
    if kind is None:
        return failed(path, "not a paper list: JSON of no known shape (a CSL-JSON array, OpenReview notes, "
                            "an array of paper objects with title or abstract)")
    items = data["notes"] if isinstance(data, dict) else data
    start = text.index("[", text.index('"notes"')) if isinstance(data, dict) else text.index("[")
    make = {"openreview": openreview_record, "csl": csl_record, "records": flat_record}[kind]
    records, diagnostics = [], []
    for item, line in zip(items, _element_lines(text, items, start)):
        if isinstance(item, dict):
            records.append(make(item, line))
        else:
            diagnostics.append(Diagnostic(str(path), line, "warning", "not a paper object; left out"))
    return list_result(path, records, diagnostics, venue, year, explicit)


def read_jsonl(path: Path, venue: str | None = None, year: int | None = None, explicit: bool = True) -> ListResult:
    """The papers of a JSON Lines file (one flat paper object per line, :func:`flat_record`); a line that is
    not a JSON object is a warning naming it; a file none of whose lines is one is an error naming it. A JSON
    array (our own ``papers.json``, a record a line, renamed ``.jsonl``) is read as JSON (:func:`read_json`), with
    a warning saying so."""
    try:
        text = read_text(path)
    except ReadError as exc:
        return failed(path, exc)
    if text.lstrip()[:1] == "[":
        result = read_json(path, venue, year, explicit)
        if result.entries:
            result.diagnostics.insert(0, Diagnostic(str(path), 1, "warning", "a JSON array, not JSON Lines (an "
                                                                             "object a line); read as JSON"))
        return result
    records, diagnostics = [], []
    for number, line in enumerate(text.split("\n"), 1):  # not splitlines: U+2028 and others may sit in a value
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            data = exc
        if isinstance(data, dict):
            records.append(flat_record(data, number))
        else:
            reason = f"not JSON ({data})" if isinstance(data, ValueError) else "not a JSON object"
            diagnostics.append(Diagnostic(str(path), number, "warning", f"{reason}; line left out"))
    if not records:
        return failed(path, "not a JSON Lines paper list: no line is a JSON object")
    return list_result(path, records, diagnostics, venue, year, explicit)


def read_csv(path: Path, venue: str | None = None, year: int | None = None, explicit: bool = True) -> ListResult:
    """The papers of a CSV file whose header row names the fields (:func:`flat_record`; the header's names
    case-insensitive, spaces as underscores). A header naming neither ``title`` nor ``abstract`` is an error."""
    try:
        text = read_text(path)
    except ReadError as exc:
        return failed(path, exc)
    try:  # the delimiter only: quoting is RFC 4180's (a doubled quote is a quote), which the sniffer can misjudge
        delimiter = csv.Sniffer().sniff(text[:4096], delimiters=",;\t").delimiter
    except csv.Error:
        delimiter = ","
    reader = csv.reader(io.StringIO(text, newline=""), csv.excel, delimiter=delimiter)
    try:
        header = [" ".join(h.split()).lower().replace(" ", "_") for h in next(reader)]
    except (StopIteration, csv.Error):
        header = []
    if "title" not in header and "abstract" not in header:
        return failed(path, "not a CSV paper list: its first row names no title or abstract column")
    records, diagnostics, line = [], [], reader.line_num + 1
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                row, problem = csv_row_cells(row, header, delimiter)
                if problem:
                    diagnostics.append(Diagnostic(str(path), line, "warning", problem))
                if row is not None:
                    data = {h: cell for h, cell in zip(header, row) if cell.strip()}
                    records.append(flat_record(data, line))
            line = reader.line_num + 1
    except csv.Error as exc:
        diagnostics.append(Diagnostic(str(path), line, "warning", f"malformed CSV ({exc}); the rest is left out"))
    return list_result(path, records, diagnostics, venue, year, explicit)


#: The CSV columns of free text, where an unquoted delimiter most likely split a cell, most likely first.
_CSV_TEXT_COLUMNS = ("abstract", "title", "authors", "author", "keywords", "track", "primary_area")
#: The CSV columns whose cells have a form of their own: a row's cells fit its columns only if these hold it.
_CSV_LINKS = re.compile(r"\s*[^\s;]*[./][^\s;]*(\s*;\s*[^\s;]+)*\s*")
_CSV_FORMED = {"year": re.compile(r"\s*(19[5-9]\d|20\d\d|2100)\s*"), "doi": re.compile(r"\s*\S*10\.\d{4,9}/\S+\s*"),
               **dict.fromkeys(("landing_url", "site", "url_landing", "code_urls", "github", "code"), _CSV_LINKS)}
#: Extra cells beyond which the ways of sharing them among several text columns are not all tried (one column
#: still takes any number).
_CSV_SHARED_EXTRA = 8


def csv_row_cells(row: list[str], header: list[str], delimiter: str) -> tuple[list[str] | None, str]:
    """A CSV row's cells, one per column of ``header``, and a problem to warn about (``""`` when none).

    A row with more cells than the header has names is most likely a text cell (abstract, title, authors, …)
    holding the delimiter without being quoted (RFC 4180, section 2.6: such a cell must be quoted): the extra
    cells are given back to the text columns, joined by the delimiter, so no text is lost. Of the ways to share
    them, those that leave every cell of a column of fixed form (year, DOI, links) in its form are kept, the one
    giving most to the abstract, then the title, … taken (:data:`_CSV_TEXT_COLUMNS`), and the problem says what
    was joined; a row no way fits is left out (``None``), the problem saying so. Raises nothing."""
    extra = len(row) - len(header)
    if extra <= 0:
        return row, ""
    columns = [header.index(name) for name in _CSV_TEXT_COLUMNS if name in header]
    for shares in _csv_shares(extra, len(columns)):
        cells = _csv_joined(row, dict(zip(columns, shares)), delimiter)
        if all(not cells[i].strip() or _CSV_FORMED[name].fullmatch(cells[i])
               for i, name in enumerate(header) if name in _CSV_FORMED):
            joined = ", ".join(f"{header[c]} ({share + 1} cells)" for c, share in zip(columns, shares) if share)
            return cells, (f"{len(row)} cells under {len(header)} column names: read as an unquoted {delimiter!r} "
                           f"in {joined}, joined again; quote a cell that holds a {delimiter!r}")
    return None, (f"{len(row)} cells under {len(header)} column names, and no text cell joined again fits the "
                  f"columns; row left out: quote each cell that holds a {delimiter!r}")


def _csv_shares(extra: int, columns: int):
    """Each way to share ``extra`` cells among ``columns`` text columns (a tuple per way), those giving most to
    the first columns first; a single column alone above :data:`_CSV_SHARED_EXTRA` extra cells."""
    if columns == 0:
        return
    if columns == 1 or extra > _CSV_SHARED_EXTRA:
        for c in range(columns):
            yield tuple(extra if i == c else 0 for i in range(columns))
        return
    for first in range(extra, -1, -1):
        for rest in _csv_shares(extra - first, columns - 1):
            yield (first, *rest)


def _csv_joined(row: list[str], shares: dict[int, int], delimiter: str) -> list[str]:
    """``row`` with each column ``c`` of ``shares`` (its index in the header) joined with the ``shares[c]``
    cells that follow it."""
    cells, i, column = [], 0, 0
    while i < len(row):
        take = shares.get(column, 0) + 1
        cells.append(delimiter.join(row[i:i + take]))
        i, column = i + take, column + 1
    return cells


#: What follows a name's comma when it is a suffix, not the given names (lower case, no final dot).
_NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "phd"})


_CJK_NAME = re.compile(f"[{CJK_NAME_CHARS}]+")


def ris_name(name: str) -> str:
    """An RIS author as a reader writes it: RIS gives ``Family, Given`` or ``Family, Given, Suffix``
    (RIS specification, ``AU``: https://web.archive.org/web/2012/http://refman.com/support/risformat_intro.asp),
    so ``Müller, Jörg`` is ``Jörg Müller`` and ``King, Martin Luther, Jr.`` is ``Martin Luther King Jr.``;
    a name without a comma, or whose comma only sets off a suffix (``John Smith, Jr.``), is kept as given; a name
    in Chinese, Japanese or Korean script keeps its order, family name first, with no space (``李, 四`` → ``李四``)."""
    parts = [part.strip() for part in str(name).split(",")]
    if len(parts) < 2 or not parts[0] or not parts[1] or parts[1].lower().rstrip(".") in _NAME_SUFFIXES:
        return str(name).strip()
    if len(parts) == 2 and all(_CJK_NAME.fullmatch(part) for part in parts):
        return parts[0] + parts[1]
    return " ".join([parts[1], parts[0], *[p for p in parts[2:] if p]])


#: The parts of a CSL-JSON name in the order they are written (CSL 1.0.2, "Name-part Order": "Ludwig van
#: Beethoven", given, dropping particle, non-dropping particle, family, suffix).
CSL_NAME_PARTS = ("given", "dropping-particle", "non-dropping-particle", "family", "suffix")


def ris_record(item: dict, line: int) -> Record:
    """The :class:`Record` of a rispy entry (its field names: ``title``, ``authors``, ``abstract``, …); a DOI
    field that holds no DOI is a problem noted."""
    get, problems = item.get, []
    container = str(get("secondary_title") or get("journal_name") or get("alternate_title3") or
                    get("tertiary_title") or "")
    landing, code = split_links([str(u) for u in get("urls") or []])
    return Record(line=line, key=str(get("id") or ""), title=str(get("title") or get("primary_title") or ""),
                  authors=[ris_name(a) for a in [*(get("authors") or []), *(get("first_authors") or [])]],
                  abstract=str(get("abstract") or get("notes_abstract") or ""), venue=venue_name(container),
                  year=_year(get("year") or get("publication_year") or "") or year_in(container),
                  bad_year=bad_year(get("year") or get("publication_year"), _year(get("year") or get("publication_year"))),
                  keywords=list(get("keywords") or []), doi=doi_field(get("doi"), problems), url=landing,
                  code_urls=code, problems=problems)


def read_ris(path: Path, venue: str | None = None, year: int | None = None, explicit: bool = True) -> ListResult:
    """The papers of an RIS file, read with rispy (see the module doc). A file with no ``TY  -`` record is an
    error naming it."""
    import rispy

    try:
        text = read_text(path)
    except ReadError as exc:
        return failed(path, exc)
    starts = [n for n, line in enumerate(text.splitlines(), 1) if re.match(r"^TY  - ", line)]
    if not starts:
        return failed(path, "not an RIS file: no record starts with a 'TY  - ' line")
    try:
        items = rispy.loads(text, skip_unknown_tags=True)
    except (ValueError, IOError, KeyError) as exc:
        return failed(path, f"not a readable RIS file ({exc})")
    records = [ris_record(item, line) for item, line in zip(items, starts + [0] * len(items))]
    return list_result(path, records, [], venue, year, explicit)
