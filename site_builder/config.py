"""The site configuration file (``site.toml``).

Format (TOML, read with :mod:`tomllib`)::

    title = "Paper Reading List"
    description = "..."
    base_url = "https://user.github.io/repo/"
    author_page_papers = 2    # optional: the papers an author needs for a page of their own (1: every author)
    [default]                 # optional: venue for every list whose heading names none
    venue = "ICML"
    year = 2025
    [lists."003_x.txt"]      # per list file name, wins over [default]
    venue = "ICML"
    year = 2025
    reference = ["refs/icml2025.json"]  # optional: files of the same papers with their metadata (relative to
                                        # this file; any list format), see site_builder.read.reference

A key or table not listed here (a typo such as ``titel``, ``venu`` or ``[list."x.txt"]``) is
an error naming its line: ``site.toml:3: error: unknown key 'titel' …``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from . import i18n
from .diagnostics import Diagnostic

TOP_KEYS = ("title", "description", "base_url", "language", "author_page_papers", "default", "lists")
DEFAULT_KEYS = ("venue", "year")
LIST_KEYS = ("venue", "year", "reference")


class ConfigError(Exception):
    """The config file is missing, not TOML, holds a value of the wrong type or an unknown key.

    ``located`` True: ``str()`` is a whole diagnostic, ``path:line: error: unknown key …``."""

    def __init__(self, message: str, located: bool = False):
        super().__init__(message)
        self.located = located


@dataclass(frozen=True)
class ListDefaults:
    """Venue and year for a list whose heading names none."""

    venue: str | None = None
    year: int | None = None
    explicit: bool = False  # given by a [lists."file"] entry, not by [default]
    reference: tuple[str, ...] = ()  # reference files' paths (relative to the config file's folder: as joined)


@dataclass(frozen=True)
class SiteConfig:
    """The site's settings; ``base_url`` is empty or ends with ``/``."""

    title: str = "Paper Reading List"
    description: str = ""
    base_url: str = ""
    language: str = i18n.DEFAULT_LANGUAGE  # the page words' language, a BCP 47 tag with a catalog (i18n.languages)
    author_page_papers: int = 2  # the papers an author needs for a page of their own (model.authors.PAGE_PAPERS)
    default: ListDefaults = ListDefaults()
    lists: dict[str, ListDefaults] = field(default_factory=dict)
    source: str = ""  # the config file's path, for diagnostics
    list_lines: dict[str, int] = field(default_factory=dict)  # [lists."file"] → its line in the file

    def reference_files(self) -> list[str]:
        """Every reference file any ``[lists."file"]`` entry names, each once, in order of the list names."""
        return list(dict.fromkeys(r for name in sorted(self.lists) for r in self.lists[name].reference))

    def list_defaults(self, filename: str) -> ListDefaults:
        """Return the venue and year the config gives for the list named ``filename``."""
        return self.lists.get(filename, self.default)

    def with_base_url(self, base_url: str | None) -> "SiteConfig":
        """Return a copy whose base URL is ``base_url`` (normalised to end in ``/``) when given.

        Raises :class:`ConfigError` when it is not an absolute http(s) URL (:func:`base_url_problem`)."""
        if base_url is None:
            return self
        problem = base_url_problem(base_url)
        if problem:
            raise ConfigError(f"--base-url {base_url!r}: {problem}")
        return replace(self, base_url=normalise_base_url(base_url))

    def unused_lists(self, names: set[str]) -> list[Diagnostic]:
        """Warnings for ``[lists."file"]`` entries naming no list file among ``names`` (file
        names in the lists folder): ``site.toml:N: warning: …``, one per entry, in file order."""
        return [Diagnostic(self.source, self.list_lines.get(name, 0), "warning",
                           f'[lists."{name}"] names no list file in the lists folder; it is not used')
                for name in sorted(self.lists, key=lambda n: self.list_lines.get(n, 0)) if name not in names]


def normalise_base_url(url: str) -> str:
    """Return ``url`` with exactly one trailing slash, or ``""`` for an empty URL."""
    url = url.strip()
    return url.rstrip("/") + "/" if url else ""


def base_url_problem(url: str) -> str | None:
    """What is wrong with ``url`` as the base URL (where the site is hosted), or None when it is empty or an
    absolute ``http``/``https`` URL with a host and no query or fragment (RFC 3986, parsed by
    :func:`urllib.parse.urlsplit`): canonical links, the sitemap, feeds and the 404 page are made from it, and a
    relative one (``user.github.io/repo``) would make them all broken relative paths."""
    url = url.strip()
    if not url:
        return None
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        return f"not a URL ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an absolute http(s) URL with a host, e.g. https://user.github.io/repo/"
    if parts.query or parts.fragment or any(c.isspace() for c in url):
        return "a base URL holds no query, fragment or white space"
    return None


def _defaults(table: object, where: str, at: Callable[[str], str], explicit: bool = False,
              folder: Path = Path(".")) -> ListDefaults:
    """The venue, year and reference files of a ``[default]`` or ``[lists."file"]`` table; ``at(key)`` gives the
    ``path:line`` of ``key`` in it; ``folder``: the config file's, which reference paths are relative to.
    Raises a located :class:`ConfigError` for a bad value."""
    if not isinstance(table, dict):
        raise ConfigError(f"{at('')}: error: {where}: expected a table with venue and year", located=True)
    venue, year = table.get("venue"), table.get("year")
    if venue is not None and not (isinstance(venue, str) and venue.strip()):
        raise ConfigError(f"{at('venue')}: error: {where}: venue must be a non-empty string", located=True)
    if year is not None and not (isinstance(year, int) and 1900 <= year <= 2100):
        raise ConfigError(f"{at('year')}: error: {where}: year must be an integer year, got {year!r}", located=True)
    reference = table.get("reference", ())
    if isinstance(reference, str):
        reference = [reference]
    if not (isinstance(reference, (list, tuple)) and all(isinstance(r, str) and r.strip() for r in reference)):
        raise ConfigError(f"{at('reference')}: error: {where}: reference must be a file path or a list of them",
                          located=True)
    return ListDefaults(venue.strip() if venue else None, year, explicit,
                        tuple(str(folder / r.strip()) for r in reference))


def _string(data: dict, key: str, path: Path, lines: list[str], default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ConfigError(f"{path}:{_key_line(lines, key, ())}: error: {key} must be a string, got {value!r}",
                          located=True)
    return value


def toml_error_location(exc: tomllib.TOMLDecodeError) -> tuple[str, int, int]:
    """``(message, line, column)`` of a TOML syntax error, read off tomllib's message ``… (at line N, column M)``
    (Python 3.11's exception has no line attribute); line and column 0 when it names none."""
    found = re.search(r"\(at line (\d+), column (\d+)\)$", str(exc))
    if not found:
        return str(exc), 0, 0
    return str(exc)[:found.start()].rstrip(), int(found.group(1)), int(found.group(2))


def _encoding_error(path: Path, raw: bytes, exc: UnicodeDecodeError) -> ConfigError:
    """A located :class:`ConfigError` for a config file that is not UTF-8: the line and column (in bytes, after a
    byte-order mark) of its first byte that is not (found by the third new-user pass: the message named no line)."""
    data = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw  # a byte-order mark is no column an editor shows
    start = exc.start
    line = data.count(b"\n", 0, start) + 1
    column = start - (data.rfind(b"\n", 0, start) + 1) + 1
    return ConfigError(f"{path}:{line}:{column}: error: not UTF-8 text (byte 0x{data[start]:02x}); TOML files are "
                       f"UTF-8: save it so", located=True)


def _toml_error(path: Path, exc: tomllib.TOMLDecodeError) -> ConfigError:
    """A located :class:`ConfigError` for a TOML syntax error (:func:`toml_error_location`)."""
    message, line, column = toml_error_location(exc)
    where = f"{path}:{line}:{column}" if line else str(path)  # no line: the whole file, as diagnostics.WHOLE_FILE
    return ConfigError(f"{where}: error: not valid TOML: {message}", located=True)


#: The config read when none is named: ``site.toml`` in the working directory, when present.
DEFAULT_CONFIG = "site.toml"


def config_path(path: Path | None) -> Path | None:
    """``path``, else :data:`DEFAULT_CONFIG` in the working directory when it exists, else None."""
    if path is None and Path(DEFAULT_CONFIG).exists():
        return Path(DEFAULT_CONFIG)
    return path


def resolve_config(path: Path | None, base_url: str | None) -> SiteConfig:
    """Load ``path`` (or :data:`DEFAULT_CONFIG`, see :func:`config_path`) and apply ``--base-url``.

    Raises :class:`ConfigError` as :func:`load_config` and :meth:`SiteConfig.with_base_url` do."""
    return load_config(config_path(path)).with_base_url(base_url)


def load_config(path: Path | None) -> SiteConfig:
    """Read the config at ``path``; ``None`` or a missing default file gives the defaults.

    Raises :class:`ConfigError` naming the file for an unreadable file, and located (``path:line: error: …``,
    with the column for TOML syntax) for invalid TOML, unknown keys and bad values.
    """
    if path is None:
        return SiteConfig()
    try:
        raw = Path(path).read_bytes()
        text = raw.decode("utf-8-sig")
        data = tomllib.loads(text)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(path, exc) from exc
    except UnicodeDecodeError as exc:
        raise _encoding_error(path, raw, exc) from exc
    lines = text.splitlines()  # the text read above (splitlines counts CRLF as one line end, as reading did)
    lists = data.get("lists", {})
    if not isinstance(lists, dict):
        raise ConfigError(f"{path}:{_key_line(lines, 'lists', ())}: error: [lists] must be a table", located=True)
    _check_keys(data, lines, str(path))

    def at(table: tuple[str, ...]) -> Callable[[str], str]:
        return lambda key: f"{path}:{_key_line(lines, key or table[-1], table if key else table[:-1])}"

    base_url = _string(data, "base_url", path, lines, "")
    problem = base_url_problem(base_url)
    if problem:
        raise ConfigError(f"{path}:{_key_line(lines, 'base_url', ())}: error: base_url {base_url!r}: {problem}",
                          located=True)
    language = _string(data, "language", path, lines, i18n.DEFAULT_LANGUAGE)
    if language not in (known := i18n.languages()):
        where = i18n.catalog_path(language).relative_to(i18n.LOCALE_DIR.parent) if _tag(language) else "locale/"
        raise ConfigError(f"{path}:{_key_line(lines, 'language', ())}: error: language {language!r} has no catalog "
                          f"{where} (known: {', '.join(known)}; README, Languages, says how to add one)", located=True)
    return SiteConfig(
        title=_string(data, "title", path, lines, SiteConfig.title),
        language=language,
        author_page_papers=_count(data, "author_page_papers", path, lines, SiteConfig.author_page_papers),
        description=_string(data, "description", path, lines, ""),
        base_url=normalise_base_url(base_url),
        default=_defaults(data.get("default", {}), "[default]", at(("default",))),
        lists={name: _defaults(t, f"[lists.{name!r}]", at(("lists", name)), True, Path(path).parent)
               for name, t in sorted(lists.items())},
        source=str(path),
        list_lines={name: _table_line(lines, ("lists", name)) for name in lists},
    )


def _count(data: dict, key: str, path: Path, lines: list[str], default: int) -> int:
    """``data[key]``, a whole number of at least 1, or ``default`` when absent; raises a located
    :class:`ConfigError` for any other value."""
    value = data.get(key, default)
    if type(value) is not int or value < 1:
        raise ConfigError(f"{path}:{_key_line(lines, key, ())}: error: {key} must be a whole number of at least 1, "
                          f"not {value!r}", located=True)
    return value


def _tag(language: str) -> bool:
    """Whether Babel knows the language tag ``language`` (``zh-CN``; not ``klingon``)."""
    try:
        i18n.locale_name(language)
    except (ValueError, TypeError):
        return False
    return True


def _table_line(lines: list[str], keys: tuple[str, ...]) -> int:
    """The 1-based line of the table header ``[a."b"]`` for ``keys``; 0 when not found."""
    parts = [r"\s*(?:" + re.escape(k) + r"|\"" + re.escape(k) + r"\"|'" + re.escape(k) + r"')\s*" for k in keys]
    header = re.compile(r"^\s*\[" + r"\.".join(parts) + r"\]")
    return next((n for n, raw in enumerate(lines, 1) if header.match(raw)), 0)


def _key_line(lines: list[str], key: str, table: tuple[str, ...]) -> int:
    """The 1-based line where ``key = …`` is set inside ``table`` (``()`` for the top level),
    or where ``[key]`` opens; 0 when not found."""
    start = _table_line(lines, table) if table else 0
    assign = re.compile(r"^\s*(?:" + re.escape(key) + r"|\"" + re.escape(key) + r"\")\s*[=.]")
    for n in range(start + 1, len(lines) + 1):
        raw = lines[n - 1]
        if n > start + 1 and raw.lstrip().startswith("[") and table:
            break
        if table == () and raw.lstrip().startswith("["):
            break
        if assign.match(raw):
            return n
    return _table_line(lines, table + (key,)) or next(
        (n for n, raw in enumerate(lines, 1) if re.match(r"^\s*\[+\s*\"?" + re.escape(key) + r"\b", raw)), 0)


def _check_keys(data: dict, lines: list[str], path: str) -> None:
    """Raise a located :class:`ConfigError` at the first key or table the format does not know."""
    def unknown(key: str, table: tuple[str, ...], known: tuple[str, ...]) -> None:
        where = "[" + ".".join(table) + "]" if table else "the top level"
        hint = f"; did you mean {close[0]!r}?" if (close := _close(key, known)) else ""
        kind = "table" if isinstance(data_at(table).get(key), dict) else "key"
        raise ConfigError(f"{path}:{_key_line(lines, key, table)}: error: unknown {kind} {key!r} in {where} "
                          f"(known: {', '.join(known)}){hint}", located=True)

    def data_at(table: tuple[str, ...]) -> dict:
        d = data
        for k in table:
            d = d[k]
        return d

    for key in data:
        if key not in TOP_KEYS:
            unknown(key, (), TOP_KEYS)
    if isinstance(data.get("default"), dict):
        for key in data["default"]:
            if key not in DEFAULT_KEYS:
                unknown(key, ("default",), DEFAULT_KEYS)
    for name, table in (data.get("lists") or {}).items():
        if isinstance(table, dict):
            for key in table:
                if key not in LIST_KEYS:
                    unknown(key, ("lists", name), LIST_KEYS)


def _close(key: str, known: tuple[str, ...]) -> list[str]:
    import difflib
    return difflib.get_close_matches(key, known, n=1, cutoff=0.6)
