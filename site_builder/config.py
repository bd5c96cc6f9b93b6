"""The site configuration file (``site.toml``).

Format (TOML, read with :mod:`tomllib`)::

    title = "Paper Reading List"
    description = "..."
    base_url = "https://user.github.io/repo/"
    [default]                 # optional: venue for every list whose heading names none
    venue = "ICML"
    year = 2025
    [lists."003_x.txt"]      # per list file name, wins over [default]
    venue = "ICML"
    year = 2025
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path


class ConfigError(Exception):
    """The config file is missing, not TOML, or holds a value of the wrong type."""


@dataclass(frozen=True)
class ListDefaults:
    """Venue and year for a list whose heading names none."""

    venue: str | None = None
    year: int | None = None


@dataclass(frozen=True)
class SiteConfig:
    """The site's settings; ``base_url`` is empty or ends with ``/``."""

    title: str = "Paper Reading List"
    description: str = ""
    base_url: str = ""
    default: ListDefaults = ListDefaults()
    lists: dict[str, ListDefaults] = field(default_factory=dict)

    def list_defaults(self, filename: str) -> ListDefaults:
        """Return the venue and year the config gives for the list named ``filename``."""
        return self.lists.get(filename, self.default)

    def with_base_url(self, base_url: str | None) -> "SiteConfig":
        """Return a copy whose base URL is ``base_url`` (normalised to end in ``/``) when given."""
        if base_url is None:
            return self
        return SiteConfig(self.title, self.description, normalise_base_url(base_url), self.default, self.lists)


def normalise_base_url(url: str) -> str:
    """Return ``url`` with exactly one trailing slash, or ``""`` for an empty URL."""
    url = url.strip()
    return url.rstrip("/") + "/" if url else ""


def _defaults(table: object, where: str) -> ListDefaults:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table with venue and year")
    venue, year = table.get("venue"), table.get("year")
    if venue is not None and not (isinstance(venue, str) and venue.strip()):
        raise ConfigError(f"{where}: venue must be a non-empty string")
    if year is not None and not (isinstance(year, int) and 1900 <= year <= 2100):
        raise ConfigError(f"{where}: year must be an integer year, got {year!r}")
    return ListDefaults(venue.strip() if venue else None, year)


def _string(data: dict, key: str, path: Path, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ConfigError(f"{path}: {key} must be a string, got {value!r}")
    return value


def load_config(path: Path | None) -> SiteConfig:
    """Read the config at ``path``; ``None`` or a missing default file gives the defaults.

    Raises :class:`ConfigError` naming the file for unreadable TOML or bad values.
    """
    if path is None:
        return SiteConfig()
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    lists = data.get("lists", {})
    if not isinstance(lists, dict):
        raise ConfigError(f"{path}: [lists] must be a table")
    return SiteConfig(
        title=_string(data, "title", path, SiteConfig.title),
        description=_string(data, "description", path, ""),
        base_url=normalise_base_url(_string(data, "base_url", path, "")),
        default=_defaults(data.get("default", {}), f"{path}: [default]"),
        lists={name: _defaults(t, f"{path}: [lists.{name!r}]") for name, t in sorted(lists.items())},
    )
