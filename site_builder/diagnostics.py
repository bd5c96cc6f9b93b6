"""Diagnostics: what the build could not place, named by file and line.

Format follows compilers and Sphinx: ``path:line: warning: message``; a message about a whole file (line
:data:`WHOLE_FILE`) names the path alone, ``path: warning: message``, as GCC and Sphinx write one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Level = Literal["warning", "error"]
#: The line of a diagnostic about a whole file (shown as the path alone).
WHOLE_FILE = 0


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One message about one place in the input.

    ``path`` is the input file as given on the command line, ``line`` is
    1-based (:data:`WHOLE_FILE`, 0, when the message concerns the whole file: then shown without a line).
    """

    path: str
    line: int
    level: Level
    message: str

    def __str__(self) -> str:
        where = self.path if self.line == WHOLE_FILE else f"{self.path}:{self.line}"
        return f"{where}: {self.level}: {self.message}"


@dataclass
class Diagnostics:
    """An ordered collection of diagnostics with helpers to add and count."""

    items: list[Diagnostic] = field(default_factory=list)

    def warning(self, path: str, line: int, message: str) -> None:
        """Record a warning at ``path:line``."""
        self.items.append(Diagnostic(str(path), line, "warning", message))

    def error(self, path: str, line: int, message: str) -> None:
        """Record an error at ``path:line``."""
        self.items.append(Diagnostic(str(path), line, "error", message))

    def extend(self, others: "Diagnostics | list[Diagnostic]") -> None:
        """Append every diagnostic of ``others``."""
        self.items.extend(others.items if isinstance(others, Diagnostics) else others)

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics of level ``error``."""
        return [d for d in self.items if d.level == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The diagnostics of level ``warning``."""
        return [d for d in self.items if d.level == "warning"]

    def in_order(self) -> list[Diagnostic]:
        """The diagnostics sorted by file, then line (a stable sort: those of one line stay in the
        order they were found), as a reader goes through the lists; for printing."""
        return sorted(self.items, key=lambda d: (d.path, d.line))

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)
