"""The rendered abstracts' HTML and plain text kept in a file for the build, not in its memory.

A paper's rendered abstract (:class:`~site_builder.text.render.RenderedAbstract`) is two strings of some
1.5 kB each in memory (3.4 kB a paper on the corpus: CPython keeps a string with one curly quote at two
bytes a character), the largest part of the site model: 340 MB at 100,000 papers, held by the build's process
from the reading to the end, and copied on write by every forked process that reads them (the search index
process, the page workers). Once the model is made they are read a few times a paper (its page, its search
record, the list pages' abstracts, the feeds, the related papers' texts), so they are kept, UTF-8 encoded, in
an unlinked temporary file (:class:`TextStore`) and read back with ``os.pread`` (a few microseconds each) by
:class:`StoredAbstract`, a rendered abstract whose ``html`` and ``text`` are read when asked for.

The file is written by the process that made the store alone; forked processes inherit its descriptor and
read it (``pread`` at an offset shares no file position). A forked process asked to keep a text keeps it in
its memory instead (:meth:`TextStore.keep` returns a plain :class:`RenderedAbstract`), and so does a store
whose file cannot be made or written (a read-only or full disk). The file lives as long as the store (as long
as a paper reads it) and is never named: nothing is left behind, whatever stops the build. Its pages are the
kernel's page cache, which it may write out and drop, not the build's memory.
"""

from __future__ import annotations

import os
import tempfile
import threading
import weakref
from typing import Any

from ..text.render import RenderedAbstract

#: The kept texts are written to the file this many bytes at a time (a system call a megabyte, not one a paper).
FLUSH_BYTES = 1 << 20


class TextStore:
    """An append-only file of UTF-8 texts for one build, made when the first text is kept, in folder ``folder``
    (the build cache's) if it exists then, else in the system's temporary folder."""

    def __init__(self, folder: str | os.PathLike | None = None) -> None:
        self._folder = folder
        self._file = None
        self._written = 0  # bytes in the file
        self._pending = bytearray()  # the texts kept after those, written when there are FLUSH_BYTES of them
        self._owner = os.getpid()
        self._failed = False
        self._lock = threading.Lock()

    def keep(self, rendered: RenderedAbstract) -> RenderedAbstract:
        """``rendered`` with its ``html`` and ``text`` kept in the file: a :class:`StoredAbstract` (equal to
        ``rendered``) holding their place, or ``rendered`` itself in a forked process or when the file cannot be
        made or written (see the module's text)."""
        if os.getpid() != self._owner or self._failed or isinstance(rendered, StoredAbstract):
            return rendered
        html, text = rendered.html.encode("utf-8", "surrogatepass"), rendered.text.encode("utf-8", "surrogatepass")
        with self._lock:
            offset = self._written + len(self._pending)
            self._pending += html
            self._pending += text
            if len(self._pending) >= FLUSH_BYTES and not self._flush():
                return rendered
        return StoredAbstract(self, (offset, len(html), len(text)), rendered.code_urls, rendered.warnings)

    def _flush(self) -> bool:
        """Write the pending texts to the file (made at the first call); False (and the store kept in memory from
        then on) when that fails."""
        try:
            if self._file is None:
                folder = self._folder if self._folder is not None and os.path.isdir(self._folder) else None
                self._file = tempfile.TemporaryFile(dir=folder)
                weakref.finalize(self, self._file.close)  # closed (and gone) with the last paper reading it
            os.pwrite(self._file.fileno(), self._pending, self._written)
        except OSError:
            self._failed = True
            return False
        self._written += len(self._pending)
        self._pending = bytearray()
        return True

    def read(self, offset: int, size: int) -> str:
        """The text of ``size`` bytes kept at byte ``offset`` (a text is pending or in the file as a whole)."""
        pending = self._pending  # the same bytes in a forked process: its copy of this one's memory
        start = offset - self._written
        if start >= 0:
            return pending[start:start + size].decode("utf-8", "surrogatepass")
        return os.pread(self._file.fileno(), size, offset).decode("utf-8", "surrogatepass")


class StoredAbstract(RenderedAbstract):
    """A :class:`~site_builder.text.render.RenderedAbstract` whose ``html`` and ``text`` are in a
    :class:`TextStore`, read from it each time they are asked for. Equal to, and pickled as, the plain rendered
    abstract with the same fields."""

    def __init__(self, store: TextStore, place: tuple[int, int, int], code_urls: tuple[str, ...],
                 warnings: tuple[str, ...]) -> None:  # noqa: D107 - the fields of a frozen dataclass, set directly
        self.__dict__.update(_store=store, _place=place, code_urls=code_urls, warnings=warnings)

    @property
    def html(self) -> str:  # type: ignore[override]
        """The abstract's HTML, read from the store."""
        offset, html, _ = self._place
        return self._store.read(offset, html)

    @property
    def text(self) -> str:  # type: ignore[override]
        """The abstract's plain text, read from the store."""
        offset, html, text = self._place
        return self._store.read(offset + html, text)

    def plain(self) -> RenderedAbstract:
        """The same rendered abstract with its texts in memory."""
        return RenderedAbstract(self.html, self.text, self.code_urls, self.warnings)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, RenderedAbstract):
            return NotImplemented
        return (self.html, self.text, self.code_urls, self.warnings) == (
            other.html, other.text, other.code_urls, other.warnings)

    def __hash__(self) -> int:
        return hash((self.html, self.text, self.code_urls, self.warnings))

    def __repr__(self) -> str:
        return repr(self.plain()).replace("RenderedAbstract", "StoredAbstract", 1)

    def __reduce__(self):
        return RenderedAbstract, (self.html, self.text, self.code_urls, self.warnings)
