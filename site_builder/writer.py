"""Render pages with Jinja2 and write the output folder, replacing the old one only on success.

The build writes into a staging folder beside the output and swaps it in at
the end, so a failed build (bad input, template error, failed write,
interrupt) leaves the previous site exactly as it was.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import traceback
from pathlib import Path, PurePosixPath

import jinja2

from . import urls
from .pages import Page

MARKER = ".site-builder"


class OutputError(Exception):
    """The output folder cannot be written or replaced."""


class TemplateFailure(Exception):
    """A template failed while rendering a page; the message reads ``template:line: error: …``."""


def template_location(exc: BaseException) -> str:
    """``file:line`` of the innermost template frame in ``exc``'s traceback (Jinja2 maps frames to
    template lines), or ``templates:0`` when none is found."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith(".html")]
    if not frames:
        return f"{getattr(exc, 'filename', None) or 'templates'}:{getattr(exc, 'lineno', None) or 0}"
    return f"{frames[-1].filename}:{frames[-1].lineno}"


def make_environment(templates: Path) -> jinja2.Environment:
    """A Jinja2 environment over ``templates`` with autoescaping and strict undefined."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["link"] = jinja2.pass_context(lambda ctx, target: urls.relative_url(ctx["page"].path, target))
    env.globals["urls"] = urls
    env.filters["count"] = count_noun
    return env


def count_noun(items, noun: str) -> str:
    """``"1 paper"``, ``"2 papers"``: the number of ``items`` (a sized collection or an int) and the
    noun, with an ``s`` unless it is one."""
    n = items if isinstance(items, int) else len(items)
    return f"{n} {noun}{'' if n == 1 else 's'}"


def default_mode(mode: int) -> int:
    """``mode`` (e.g. ``0o777`` for folders, ``0o666`` for files) less the process umask, as
    :func:`open` and :func:`os.mkdir` would give it."""
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


class Output:
    """A staging folder that collects the files of one build.

    Refuses to write one path twice, so two objects can never share a URL.
    """

    def __init__(self, target: Path):
        self.target = Path(target).resolve()
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.staging = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.building-", dir=self.target.parent))
        self.staging.chmod(default_mode(0o777))  # mkdtemp makes it 0700; the site is for everyone to read
        self.written: set[str] = set()
        self.write_text(MARKER, "Built by site_builder; this folder is replaced whole by each build.\n")

    def _claim(self, path: str) -> Path:
        pure = PurePosixPath(path)
        if pure.is_absolute() or ".." in pure.parts or path in self.written:
            raise OutputError(f"refusing to write {path!r}: {'written twice' if path in self.written else 'unsafe path'}")
        self.written.add(path)
        dest = self.staging / pure
        dest.parent.mkdir(parents=True, exist_ok=True)
        return dest

    def write_text(self, path: str, text: str) -> None:
        """Write ``text`` (UTF-8, ``\\n`` line ends) at site-root relative ``path``."""
        self._claim(path).write_text(text, encoding="utf-8", newline="\n")

    def copy_file(self, path: str, source: Path) -> None:
        """Copy the file ``source`` to site-root relative ``path``."""
        shutil.copyfile(source, self._claim(path))

    def discard(self) -> None:
        """Remove the staging folder (after a failure)."""
        shutil.rmtree(self.staging, ignore_errors=True)

    def commit(self) -> None:
        """Swap the staging folder in for the target folder.

        Raises :class:`OutputError` (and keeps the target untouched) when the
        target is a non-empty folder that this tool did not build.
        """
        t = self.target
        if t.exists() and (not t.is_dir() or (any(t.iterdir()) and not (t / MARKER).exists())):
            self.discard()
            raise OutputError(f"{t}: exists and was not built by this tool; refusing to replace it")
        old = None
        if t.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{t.name}.old-", dir=t.parent))
            os.replace(t, old / "site")
        os.replace(self.staging, t)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def render_pages(env: jinja2.Environment, pages: list[Page], output: Output, common: dict) -> None:
    """Render each page of ``pages`` with its template and write it to ``output``."""
    for page in pages:
        try:
            html = env.get_template(page.template).render(page=page, **common, **page.context)
        except jinja2.TemplateError as exc:
            raise TemplateFailure(f"{template_location(exc)}: error: rendering {page.path}: {exc}") from exc
        output.write_text(page.path, html)
