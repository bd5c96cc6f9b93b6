"""Render pages with Jinja2 and write the output folder, replacing the old one only on success.

The build writes into a staging folder beside the output and swaps it in at
the end, so a failed build (bad input, template error, failed write,
interrupt) leaves the previous site exactly as it was.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path, PurePosixPath

import jinja2
import jinja2.meta
from jinja2 import nodes

from . import urls
from .pages import Page

MARKER = ".site-builder"


class OutputError(Exception):
    """The output folder cannot be written or replaced."""


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
    env.globals["link"] = jinja2.pass_context(lambda ctx, target: _relative_url(posixpath.dirname(ctx["page"].path), target))
    env.globals["urls"] = urls
    return env


@lru_cache(maxsize=65536)
def _relative_url(from_dir: str, target: str) -> str:
    """:func:`urls.relative_url` memoised by the page's folder (pages share few folders)."""
    return urls.relative_url(f"{from_dir}/x" if from_dir else "x", target)


class Output:
    """A staging folder that collects the files of one build.

    Refuses to write one path twice, so two objects can never share a URL.
    """

    def __init__(self, target: Path):
        self.target = Path(target).resolve()
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.staging = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.building-", dir=self.target.parent))
        self.written: set[str] = set()
        self._folders: set[Path] = set()
        self.write_text(MARKER, "Built by site_builder; this folder is replaced whole by each build.\n")

    def _claim(self, path: str) -> Path:
        pure = PurePosixPath(path)
        if pure.is_absolute() or ".." in pure.parts or path in self.written:
            raise OutputError(f"refusing to write {path!r}: {'written twice' if path in self.written else 'unsafe path'}")
        self.written.add(path)
        dest = self.staging / pure
        if dest.parent not in self._folders:
            dest.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(dest.parent)
        return dest

    def write_text(self, path: str, text: str) -> None:
        """Write ``text`` (UTF-8, ``\\n`` line ends) at site-root relative ``path``."""
        self._claim(path).write_text(text, encoding="utf-8", newline="\n")

    def read_text(self, path: str) -> str:
        """The text of the file already written at site-root relative ``path``."""
        return (self.staging / PurePosixPath(path)).read_text(encoding="utf-8")

    def copy_file(self, path: str, source: Path) -> None:
        """Copy the file ``source`` to site-root relative ``path``."""
        shutil.copyfile(source, self._claim(path))

    def claim(self, path: str) -> Path:
        """Reserve site-root relative ``path`` (for a worker process to write); returns its staging file."""
        return self._claim(path)

    def link_file(self, path: str, source: Path) -> None:
        """Hard-link the file ``source`` to ``path`` (copy it where links are not possible)."""
        dest = self._claim(path)
        try:
            os.link(source, dest)
        except OSError:
            shutil.copyfile(source, dest)

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


def render_page(env: jinja2.Environment, page: Page, common: dict) -> str:
    """The HTML of ``page`` rendered with its template, ``common`` and its context."""
    return env.get_template(page.template).render(page=page, **common, **page.context)


def render_pages(env: jinja2.Environment, pages: list[Page], output: Output, common: dict,
                 cache=None, progress=None) -> None:
    """Render each page of ``pages`` with its template and write it to ``output``.

    With a :class:`~site_builder.cache.BuildCache`, a page whose key (see
    :func:`page_key`) matches the previous build is reused instead.
    ``progress`` (a :class:`~site_builder.progress.Progress`) is advanced per page.
    """
    for page in pages:
        key = page_key(env, page, common, cache) if cache is not None else None
        if cache is None or not cache.reuse(page.path, key, output):
            output.write_text(page.path, render_page(env, page, common))
            if cache is not None:
                cache.record(page.path, key, output)
        if progress is not None:
            progress.advance()


def page_key(env: jinja2.Environment, page: Page, common: dict, cache) -> str | None:
    """Key of ``page`` for the build cache: digest of all the page shows.

    Covers the page's path, template, title and context, and of each
    ``common`` value only what the template (with the templates it extends,
    includes or imports) uses: ``site.config`` alone when that is all it reads
    of ``site``, else the whole value. Template sources are in the cache's code version.
    """
    parts: list = [page.path, page.template, page.title, page.context]
    for name, value in sorted(common.items()):
        use = _template_use(env, page.template, name)
        if use == "config":
            parts += [name, value.config]
        elif use == "all":
            parts += [name, value]
    return cache.key(*parts)


_USE_MEMO: dict[tuple[int, str, str], str] = {}


def _template_use(env: jinja2.Environment, template: str, name: str) -> str:
    """How the template named ``template`` uses variable ``name``: ``"none"``, ``"config"`` (only ``name.config``) or ``"all"``."""
    memo_key = (id(env), template, name)
    if memo_key in _USE_MEMO:
        return _USE_MEMO[memo_key]
    seen: set[str] = set()
    todo = [template]
    total = config_only = 0
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        source = env.loader.get_source(env, current)[0]
        tree = env.parse(source)
        total += sum(1 for n in tree.find_all(nodes.Name) if n.name == name)
        config_only += sum(1 for n in tree.find_all(nodes.Getattr)
                           if isinstance(n.node, nodes.Name) and n.node.name == name and n.attr == "config")
        for ref in jinja2.meta.find_referenced_templates(tree):
            if ref is None:
                total += 1  # a dynamic include: assume it uses everything
            else:
                todo.append(ref)
    use = "none" if total == 0 else "config" if total == config_only else "all"
    _USE_MEMO[memo_key] = use
    return use
