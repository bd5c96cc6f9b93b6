"""Build progress on a terminal: stage, items done of total, elapsed time.

One status line, redrawn in place (``\\r``) at most ten times a second, shown
only once the build has run for :data:`DELAY` seconds, only when the stream
is a terminal, and never with ``--quiet``. Cleared at the end, so the summary
line and diagnostics print on a clean line. Standard library only.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

DELAY = 1.0
INTERVAL = 0.1


class Progress:
    """Progress of one build.

    ``stream`` defaults to ``sys.stderr``; ``enabled`` None means "when the
    stream is a terminal". Methods are cheap no-ops when disabled.
    """

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.start = time.monotonic()
        self.name = ""
        self.unit = ""
        self.total: int | None = None
        self.done = 0
        self._last = 0.0
        self._width = 0
        self.stages: list[tuple[str, float, float, int | None]] = []  # (name, wall start, CPU start, total)

    @property
    def elapsed(self) -> float:
        """Seconds since the build started."""
        return time.monotonic() - self.start

    def stage(self, name: str, total: int | None = None, unit: str = "") -> None:
        """Start stage ``name`` (e.g. ``"pages"``) of ``total`` items (None: no count)."""
        self.name, self.total, self.done, self.unit = name, total, 0, unit
        self.stages.append((name, time.monotonic(), _cpu(), total))
        self._draw(force=True)

    def advance(self, count: int = 1) -> None:
        """Count ``count`` more items of the current stage done."""
        self.done += count
        if self.enabled:
            self._draw()

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < DELAY or (not force and now - self._last < INTERVAL):
            return
        self._last = now
        count = f" {self.done:,}/{self.total:,}{' ' + self.unit if self.unit else ''}" if self.total else ""
        line = f"{self.name}{count}  {now - self.start:.1f}s"
        self.stream.write("\r" + line.ljust(self._width))
        self.stream.flush()
        self._width = len(line)

    def timings(self) -> list[tuple[str, float, float, int | None]]:
        """``(stage name, wall seconds, CPU seconds, items or None)`` of each stage so far, in order."""
        marks = self.stages + [("", time.monotonic(), _cpu(), None)]
        return [(name, marks[i + 1][1] - wall, marks[i + 1][2] - cpu, total)
                for i, (name, wall, cpu, total) in enumerate(self.stages)]

    def close(self) -> None:
        """Clear the status line (if one was drawn); print the stage timings when asked (see module doc)."""
        if os.environ.get("SITE_BUILDER_TIMINGS") and self.stages:
            for name, wall, cpu, total in self.timings():
                print(f"stage {name}: {wall:.2f} s wall, {cpu:.2f} s CPU, {total or 0} items", file=sys.stderr)
            self.stages = []
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def _cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def format_bytes(size: int) -> str:
    """``size`` bytes for people: ``512 B``, ``3.4 kB``, ``12.0 MB`` (powers of 1000)."""
    value = float(size)
    for unit in ("B", "kB", "MB"):
        if value < 1000:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"
