"""Render pages with Jinja2 and write the output folder, replacing the old one only on success.

The build writes into a staging folder beside the output and swaps it in at
the end, so a failed build (bad input, template error, failed write,
interrupt) leaves the previous site exactly as it was.

A rebuild that keeps files of the previous output unchanged (:meth:`Output.keep`,
for the build cache) stages only the files it writes; at the end these are
moved into the output folder one by one (each an atomic rename) and the
files the build no longer has are removed, so the kept files are neither
copied nor linked. Until that commit the output folder is untouched.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path, PurePosixPath
from typing import Callable

import jinja2
from markupsafe import Markup

from .. import i18n
from ..model import urls
from ..pages.plan import Page
from ..pages.views import tags_in

MARKER = ".site-builder"


class OutputError(Exception):
    """The output folder cannot be written or replaced."""


class CommittedInterrupt(KeyboardInterrupt):
    """Ctrl-C came while the folders a commit set aside were being removed: the new site is in place whole; what
    was left of those folders the next commit removes (:func:`remove_leftovers`)."""


class TemplateFailure(Exception):
    """A template failed while rendering a page; the message reads ``template:line: error: …``."""


def template_location(exc: BaseException) -> str:
    """``file:line`` of the innermost template frame in ``exc``'s traceback (Jinja2 maps frames to
    template lines), or the exception's file (``file:line``, or the file alone, ``templates`` when it names none)
    when none is found."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith(".html")]
    if not frames:
        name, line = getattr(exc, "filename", None) or "templates", getattr(exc, "lineno", None)
        return f"{name}:{line}" if line else name
    return f"{frames[-1].filename}:{frames[-1].lineno}"


def make_environment(templates: Path, language: str = i18n.DEFAULT_LANGUAGE) -> jinja2.Environment:
    """A Jinja2 environment over ``templates`` with autoescaping and strict undefined, its page words in
    ``language`` (Jinja2's i18n extension, its gettext :func:`page_gettext` of :func:`i18n.translations`).

    Globals: ``link(target)`` (the URL of site-root relative ``target`` from the
    page being rendered), ``paper_item(item, show_track=True)`` (see :meth:`PageFolder.paper_item`),
    ``chrome(part)`` (see :class:`Chrome`), ``tags_in(items)`` and ``urls``; filter ``count``.
    :func:`render_page` hands each page the ``link``, ``paper_item``, ``chrome`` and ``macros``
    of its folder's :class:`PageFolder` (cheaper; they shadow the globals).
    All are pure functions of their arguments and the page's path.
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # one build: templates do not change while it runs (saves a stat per template and page)
        extensions=["jinja2.ext.i18n"],
    )
    env.policies["ext.i18n.trimmed"] = True  # {% trans %} blocks: white space trimmed, as babel.cfg extracts them
    words = i18n.translations(language)
    env.install_gettext_callables(page_gettext(words), words.ngettext)  # type: ignore[attr-defined]
    env.globals["link"] = jinja2.pass_context(lambda ctx, target: relative_link(ctx["page"].path, target))
    env.globals["paper_item"] = jinja2.pass_context(
        lambda ctx, item, show_track=True: page_folder(env, ctx["page"].path, ctx["config"]).paper_item(item, show_track))
    env.globals["chrome"] = jinja2.pass_context(Chrome(env))
    env.globals["tags_in"] = tags_in
    env.globals["urls"] = urls
    env.filters["count"] = lambda items, noun: count_noun(items, noun, words, language)
    env.filters["number"] = lambda n: i18n.format_number(n, language)
    env.page_folders = {}  # type: ignore[attr-defined]  # (folder, id(config)) -> PageFolder, see page_folder
    return env


def remove_detached(folder: Path) -> bool:
    """Start removing ``folder`` (:func:`shutil.rmtree`) in a new Python process of a session of its own, which
    outlives this one and is out of reach of the terminal's Ctrl-C. False when none can be started (then nothing
    is removed)."""
    if not sys.executable or not hasattr(os, "posix_spawn"):
        return False
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    try:  # posix_spawn, not subprocess.Popen: nothing here waits for it (it ends after this process)
        os.posix_spawn(sys.executable, [sys.executable, "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], True)",
                                        str(folder)], os.environ, file_actions=quiet, setsid=True)
    except OSError:
        return False
    return True


class PageFolder:
    """What every page of one output ``folder`` (``""``: the site root) shares, made once per folder,
    environment and ``config``, and handed to each page's template by :func:`render_page`:

    - ``link``: :func:`folder_link` of the folder (a dictionary lookup);
    - ``macros``: the module of ``_macros.html`` (its macros as attributes). The macros use nothing of
      a page's context but ``link`` and the globals, so one module serves the folder (cheaper than
      ``{% from "_macros.html" import … with context %}``, which makes the module again for every page);
    - ``chrome``: ``chrome(part)``, the macro ``part`` of ``_chrome.html`` (feed link, stylesheet,
      header, footer of ``base.html``) rendered once (it uses nothing but ``link``, ``config`` and
      ``urls``) and then looked up;
    - ``paper_item``: see :meth:`paper_item`.

    ``known`` (set by the build, see :meth:`site_builder.output.rendering.PageReuse.take_items`) is the HTML of items a previous
    build rendered in this folder, ``{digest + show_track byte: html}`` (:func:`item_slot`), ``digest`` the
    function giving an item's digest (:meth:`~site_builder.incremental.cache.Fingerprinter.digest`).
    """

    __slots__ = ("folder", "config", "link", "macros", "chrome", "_env", "_items", "known", "digest")

    def __init__(self, env: jinja2.Environment, folder: str, config) -> None:
        self.folder = folder
        self.config = config
        self.link = folder_link(folder)
        stand_in = Page(f"{folder}/index.html" if folder else "index.html", "_macros.html", "")
        self.macros = env.get_template("_macros.html").make_module({"page": stand_in, "link": self.link})
        self._env = env
        self.chrome = _ChromeParts(env, self.link, config).__getitem__
        self._items: dict[tuple[str, bool], tuple] = {}
        self.known: dict = {}
        self.digest: Callable[[object], bytes | None] | None = None

    def paper_item(self, item, show_track: bool = True) -> Markup:
        """``_macros.html``'s ``paper_item`` macro for ``item`` (a :class:`~site_builder.pages.views.Item`),
        rendered once per paper and ``show_track`` in this folder and then reused as one string:
        the macro's output depends on nothing else (its item, ``show_track``, the folder's links).
        An item whose digest is in ``known`` (rendered so by a previous build of the same code, templates
        and config) is taken from there instead."""
        key = (item.id, bool(show_track))
        html = self._items.get(key)
        if html is None or html[0] is not item:
            html = self._items[key] = (item, self._known(item, key[1]) or self.macros.paper_item(item, show_track))
        return html[1]

    def _known(self, item, show_track: bool) -> Markup | None:
        if not self.known or self.digest is None:
            return None
        digest = self.digest(item)
        text = self.known.get(item_slot(digest, show_track)) if digest is not None else None
        return Markup(text) if type(text) is str else None

    def rendered_items(self) -> dict[bytes, str]:
        """The HTML of the items rendered (or taken from ``known``) in this folder so far, as ``known`` holds
        them (items without a digest are left out)."""
        result = {}
        digest = self.digest
        if digest is not None:
            for (_, show_track), (item, html) in self._items.items():
                value = digest(item)
                if value is not None:
                    result[item_slot(value, show_track)] = str(html)
        return result


def item_slot(digest: bytes, show_track: bool) -> bytes:
    """The key of an item's HTML in :attr:`PageFolder.known`: its digest and a byte for ``show_track``."""
    return digest + (b"\1" if show_track else b"\0")


class _ChromeParts(dict):
    """``{part: html}``: the macros of ``_chrome.html`` rendered with one ``link`` and ``config``,
    on first use (``__missing__``)."""

    __slots__ = ("module",)

    def __init__(self, env: jinja2.Environment, link, config) -> None:
        super().__init__()
        self.module = env.get_template("_chrome.html").make_module({"link": link, "config": config})

    def __missing__(self, part: str) -> Markup:
        html = self[part] = getattr(self.module, part)()
        return html


def page_folder(env: jinja2.Environment, page_path: str, config) -> PageFolder:
    """The :class:`PageFolder` of the page at ``page_path`` rendered with ``config`` in ``env``."""
    folder = page_path.rpartition("/")[0]
    made = env.page_folders.get((folder, id(config)))
    if made is None or made.config is not config:
        made = env.page_folders[(folder, id(config))] = PageFolder(env, folder, config)
    return made


class FolderLinks(dict):
    """``{target: url}``: :func:`urls.relative_url_from` the pages of one ``folder`` to each site-root
    relative ``target``, computed on first use (``__missing__``) and kept."""

    __slots__ = ("folder",)

    def __init__(self, folder: str) -> None:
        super().__init__()
        self.folder = folder

    def __missing__(self, target: str) -> str:
        if len(self) > 1 << 17:  # a long-running process (the preview server) rebuilding many sites
            self.clear()
        url = self[target] = urls.relative_url_from(self.folder, target)
        return url


class Chrome:
    """The ``chrome`` global, for templates rendered without :func:`render_page` (the 404 page):
    ``chrome(part)`` is the macro ``part`` of ``_chrome.html`` (see :class:`PageFolder`), rendered
    with the context's ``link`` and ``config``; once per ``link`` function and config, then reused."""

    def __init__(self, env: jinja2.Environment) -> None:
        self.env = env
        self.html: dict[tuple, tuple] = {}

    def __call__(self, ctx, part: str) -> Markup:
        link, config = ctx["link"], ctx["config"]
        if link is self.env.globals["link"]:  # rendered without a link of its own: the page's folder's
            return page_folder(self.env, ctx["page"].path, config).chrome(part)
        key = (part, link)
        html = self.html.get(key)
        if html is None or html[0] is not config:
            module = self.env.get_template("_chrome.html").make_module({"link": link, "config": config})
            html = (config, getattr(module, part)())
            if len(self.html) < 4096:  # a few parts per link; links the cache does not know are not kept
                self.html[key] = html
        return html[1]


_FOLDERS: dict[str, FolderLinks] = {}


def folder_link(folder: str):
    """The ``link(target)`` function of the pages in ``folder`` (``""``: the site root): the relative
    URL from there to site-root relative ``target`` (a memoised :func:`urls.relative_url_from`; a
    C-level dictionary lookup, the cheapest callable a template can call)."""
    links = _FOLDERS.get(folder)
    if links is None:
        links = _FOLDERS[folder] = FolderLinks(folder)
    return links.__getitem__


def relative_link(page_path: str, target: str) -> str:
    """:func:`urls.relative_url` from the page at ``page_path`` to ``target`` (see :func:`folder_link`)."""
    return folder_link(page_path.rpartition("/")[0])(target)


def page_gettext(words) -> Callable[..., Markup]:
    """The templates' ``_``: ``_("Abstract")``, ``_("%(papers)s in %(venues)s.", papers=…, venues=…)``: the
    message from ``words`` (gettext translations), as markup (the catalogs are ours), with each ``%(name)s``
    filled by a value escaped unless it is markup. What Jinja2's "new style" gettext does, called directly:
    its wrapper goes through the template context twice a call, half the pages' time with ~500,000 calls at
    10,000 papers. ``{% trans %}`` blocks call it without values and fill them themselves (autoescaped)."""
    def gettext(message: str, **values) -> Markup:
        text = Markup(words.gettext(message))
        return text % values if values else text
    return gettext


#: The counted nouns of the templates' ``count`` filter: (singular, plural) messages, ``%(num)s`` the number.
COUNTED = {
    "paper": lambda words, n: words.ngettext("%(num)s paper", "%(num)s papers", n),
    "venue": lambda words, n: words.ngettext("%(num)s venue", "%(num)s venues", n),
    "track": lambda words, n: words.ngettext("%(num)s track", "%(num)s tracks", n),
    "author": lambda words, n: words.ngettext("%(num)s author", "%(num)s authors", n),
    "topic": lambda words, n: words.ngettext("%(num)s topic", "%(num)s topics", n),
}


def count_noun(items, noun: str, words=None, language: str = i18n.DEFAULT_LANGUAGE) -> str:
    """``"1 paper"``, ``"2 papers"``, ``"12,345 papers"``: the number of ``items`` (a sized collection or an
    int) and the noun (one of :data:`COUNTED`), in ``language`` through ``words`` (gettext translations;
    default English). Raises ``KeyError`` for another noun."""
    n = items if isinstance(items, int) else len(items)
    message = COUNTED[noun](words or i18n.translations(i18n.DEFAULT_LANGUAGE), n)
    return message % {"num": i18n.format_number(n, language)}


def default_mode(mode: int) -> int:
    """``mode`` (e.g. ``0o777`` for folders, ``0o666`` for files) less the process umask, as
    :func:`open` and :func:`os.mkdir` would give it."""
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


#: A line of a path that :meth:`Output.keep` refuses (empty, absolute, a ``.``/``..``/empty part); with
#: the paths joined by newlines, a path holding a newline is refused too (then checked one by one).
_UNSAFE_LINE = re.compile(r"^$|^/|/$|//|(?:^|/)\.\.?(?:/|$)", re.MULTILINE)
#: Substrings of the paths joined by newlines (with a newline before and after) that :data:`_UNSAFE_LINE`
#: can only match where one occurs: an empty line, a line starting or ending with ``/``, ``//``, and a part
#: ending with ``.`` (``./``, ``.\n``; the ``.``/``..`` parts among those are for the regex to tell).
_UNSAFE_HINTS = ("\n\n", "\n/", "/\n", "//", "./", ".\n")


def _unsafe_lines(paths: list[str]) -> bool:
    """Whether a line of ``paths`` joined by newlines matches :data:`_UNSAFE_LINE`: six substring
    searches in C (~1 ms each for a rebuild's ~28,800 pages, against ~35 ms for the regex over all of
    them), the regex only when one of :data:`_UNSAFE_HINTS` occurs."""
    joined = "\n".join(paths)
    wrapped = f"\n{joined}\n"
    if not any(hint in wrapped for hint in _UNSAFE_HINTS):
        return False
    return _UNSAFE_LINE.search(joined) is not None


#: Flags of a page file opened for writing (created, or emptied when a previous build left it).
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)


def write_file(file: str, text: str) -> list:
    """Write ``text`` (UTF-8, as given: no newline translation) to the file named ``file`` (created or
    emptied) with one ``os.write``, without a text-file object, and return its ``[size, mtime_ns, inode]``
    (from the open file). Raises ``OSError`` as :func:`os.open` does, ``UnicodeEncodeError`` (before
    the file is made) for text that is not UTF-8 encodable (a lone surrogate)."""
    data = text.encode("utf-8")
    fd = os.open(file, _WRITE_FLAGS, 0o666)
    try:
        done = os.write(fd, data)
        while done < len(data):  # os.write may write less than asked (not for a regular file on Linux)
            done += os.write(fd, memoryview(data)[done:])
        st = os.fstat(fd)
    finally:
        os.close(fd)
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def write_spliced(file: str, pieces: list) -> list:
    """Write into the file named ``file`` (created or emptied) the ``pieces`` one after the other: a
    ``bytes`` piece as it is, an ``(fd, offset, count)`` piece as the ``count`` bytes from ``offset`` of
    the file open for reading as ``fd``, copied inside the kernel (:func:`os.copy_file_range`, Linux
    4.5+; read and written here where that is unavailable or refused), so a file made mostly of a
    previous file's bytes (``papers.json``, the site's ``.bib`` file) does not pass them through this
    process. Returns the file's ``[size, mtime_ns, inode]`` like :func:`write_file`. Raises
    ``OSError`` as :func:`os.open` and :func:`os.write` do, ``ValueError`` when a source file ends
    before ``offset + count`` (the file written so far is left as it is)."""
    fd = os.open(file, _WRITE_FLAGS, 0o666)
    try:
        for piece in pieces:
            if isinstance(piece, bytes):
                _write_all(fd, piece)
            else:
                _copy_range(*piece, fd)
        st = os.fstat(fd)
    finally:
        os.close(fd)
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _write_all(fd: int, data: bytes) -> None:
    done = os.write(fd, data)
    while done < len(data):  # os.write may write less than asked (not for a regular file on Linux)
        done += os.write(fd, memoryview(data)[done:])


#: :func:`os.copy_file_range`, while the kernel accepts it (None: copy through this process).
_copy_file_range = getattr(os, "copy_file_range", None)


def _copy_range(source: int, offset: int, count: int, fd: int) -> None:
    """Append ``count`` bytes of ``source`` from ``offset`` to ``fd`` (at its file position)."""
    global _copy_file_range
    while count > 0:
        copied = None
        if _copy_file_range is not None:
            try:
                copied = _copy_file_range(source, fd, count, offset)
            except OSError:  # e.g. EXDEV, ENOSYS, EINVAL: copy here (a real error, e.g. ENOSPC, is raised there)
                _copy_file_range = None
        if copied is None:
            data = os.pread(source, min(count, 1 << 22), offset)
            _write_all(fd, data)
            copied = len(data)
        if copied == 0:
            raise ValueError(f"a source file ends before byte {offset + count}")
        offset += copied
        count -= copied


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
        self._folders: set[str] = {""}  # folders of the staging folder made so far
        self.kept: set[str] = set()  # files of the previous output kept as they are (see keep)
        self._ours = False  # whether keep found the output folder built by this tool
        self.write_text(MARKER, "Built by site_builder; this folder is replaced whole by each build.\n")

    def _claim(self, path: str) -> Path:
        return Path(self._claim_name(path))

    def _claim_name(self, path: str) -> str:
        """:meth:`_claim` as a string (the file name in the staging folder)."""
        parts = path.split("/")
        if path.startswith("/") or ".." in parts or "." in parts or "" in parts or path in self.written:
            raise OutputError(f"refusing to write {path!r}: {'written twice' if path in self.written else 'unsafe path'}")
        self.written.add(path)
        folder = path.rpartition("/")[0]
        if folder not in self._folders:
            os.makedirs(os.path.join(self.staging, folder), exist_ok=True)
            self._folders.add(folder)
        return os.path.join(self.staging, path)

    def write_text(self, path: str, text: str) -> None:
        """Write ``text`` (UTF-8, ``\\n`` line ends) at site-root relative ``path`` (see :func:`write_file`)."""
        write_file(self._claim_name(path), text)

    def write_spliced(self, path: str, pieces: list) -> None:
        """Write at site-root relative ``path`` the ``pieces``: bytes, and ranges of open files copied by
        the kernel (see :func:`write_spliced`)."""
        write_spliced(self._claim_name(path), pieces)

    def read_text(self, path: str) -> str:
        """The text of the file already written (or kept) at site-root relative ``path``."""
        return self.file(path).read_text(encoding="utf-8")

    def file(self, path: str) -> Path:
        """Where the file of this build at site-root relative ``path`` is now (staging folder, or the
        output folder for a kept file)."""
        return (self.target if path in self.kept else self.staging) / PurePosixPath(path)

    def keep(self, path: str) -> None:
        """Keep the previous output's file at ``path`` as this build's (unchanged; not copied).

        Raises :class:`OutputError` like the writing methods for a path already written or unsafe,
        or when the output folder was not built by this tool.
        """
        if not self._ours:  # checked once per build: the output folder is not touched before commit
            if not (self.target / MARKER).is_file():
                raise OutputError(f"{self.target}: not built by this tool; cannot keep {path!r}")
            self._ours = True
        parts = path.split("/")
        if path.startswith("/") or ".." in parts or "." in parts or "" in parts or path in self.written:
            raise OutputError(f"refusing to keep {path!r}: {'written twice' if path in self.written else 'unsafe path'}")
        self.written.add(path)
        self.kept.add(path)

    def keep_all(self, paths: list[str]) -> None:
        """:meth:`keep` every one of ``paths`` (the same checks and errors, most of them in one pass: a
        rebuild keeps ~28,800 pages)."""
        paths = list(paths)
        if not paths:
            return
        unique = set(paths)
        if (len(unique) != len(paths) or not self.written.isdisjoint(unique)
                or _unsafe_lines(paths)):
            for path in paths:  # raises the error :meth:`keep` gives the first bad path
                self.keep(path)
            return
        self.keep(paths[0])  # checks the output folder once
        self.written.update(unique)
        self.kept.update(unique)

    def copy_file(self, path: str, source: Path) -> None:
        """Copy the file ``source`` to site-root relative ``path``."""
        shutil.copyfile(source, self._claim(path))

    def claim(self, path: str) -> Path:
        """Reserve site-root relative ``path`` (for a worker process to write); returns its staging file.

        Raises :class:`OutputError` like the writing methods for a path already written or unsafe.
        """
        return self._claim(path)

    def release(self, path: str) -> None:
        """Give up ``path``, claimed (:meth:`claim`) or kept (:meth:`keep`) but not written: it is no longer
        this build's file (nothing is removed; a claimed file must not have been written yet)."""
        self.written.discard(path)
        self.kept.discard(path)

    def link_file(self, path: str, source: Path) -> bool:
        """Hard-link the file ``source`` to ``path`` (copy it where links are not possible); True if linked."""
        dest = self._claim_name(path)
        try:
            os.link(source, dest)
            return True
        except OSError:
            shutil.copyfile(source, dest)
            return False

    def discard(self, detached: bool = False) -> None:
        """Remove the staging folder (after a failure). ``detached``: by a process of its own that goes on after
        this one ends (:func:`remove_detached`; here when none can be started), so that an interrupted large build
        returns at once: removing the ~100,000 files of a 100,000-paper build's staging folder took 15–90 s on the
        shared 2-core machine (BENCHMARKS.md). The folder is hidden (``.<out>.building-*``) until it is gone."""
        if not (detached and remove_detached(self.staging)):
            shutil.rmtree(self.staging, ignore_errors=True)

    def commit(self, listing: dict | None = None, recorded: dict | frozenset = frozenset()) -> None:
        """Swap the staging folder in for the target folder.

        ``listing`` (optional) is :func:`unrecorded_names` of the target folder with the paths ``recorded``,
        made earlier (in another process): a rebuild that keeps files then lists again only the folders
        changed since (see :meth:`_commit_in_place`).

        Raises :class:`OutputError` (and keeps the target untouched) when the
        target is a non-empty folder that this tool did not build. Any other
        error or interrupt (``KeyboardInterrupt``) while committing puts the
        target back as it was (the previous files are moved aside, not deleted,
        until the commit is complete) and is raised again; only a process killed
        outright (SIGKILL, power loss) can leave a mix of old and new files.
        """
        t = self.target
        if t.exists() and (not t.is_dir() or (any(t.iterdir()) and not (t / MARKER).exists())):
            self.discard()
            raise OutputError(f"{t}: exists and was not built by this tool; refusing to replace it")
        remove_leftovers(t)
        if self.kept:
            self._commit_in_place(listing, recorded)
            return
        old = Path(tempfile.mkdtemp(prefix=f".{t.name}.old-", dir=t.parent)) if t.exists() else None
        try:
            if old is not None:
                os.replace(t, old / "site")
            try:
                os.replace(self.staging, t)
            except BaseException:
                if old is not None:
                    os.replace(old / "site", t)
                raise
        except BaseException:
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            raise
        if old is not None:
            clean_up(old)

    def _commit_in_place(self, listing: dict | None = None, recorded: dict | frozenset = frozenset()) -> None:
        """Move the staged files into the output folder and remove its files this build does not have.

        Every file replaced or removed is first moved into a backup folder beside the output; on an
        error or interrupt the moves are undone in reverse order (:func:`_undo_moves`) and the error
        is raised again, so the output is left as it was.

        The files to remove are found by listing every folder of the output (:func:`_set_aside_unwritten`),
        but for the folders of ``listing`` (:func:`unrecorded_names` with the paths ``recorded``) that are
        still as listed (inode and mtime, checked before anything is moved in): there the names it found
        that are not ``recorded`` and the ``recorded`` paths this build did not write are all there is.
        """
        target, staging = str(self.target), str(self.staging)
        unchanged = _still_listed(target, listing) if listing else {}
        backup = tempfile.mkdtemp(prefix=f".{self.target.name}.old-", dir=str(self.target.parent))
        done: list[tuple[str, str | None]] = []  # (output file, its previous file in the backup or None)
        made: list[str] = []  # folders made in the output
        try:
            for folder, _, names in os.walk(staging):
                rel = os.path.relpath(folder, staging)
                rel = "" if rel == "." else rel.replace(os.sep, "/")
                made += _make_folder(target, rel, backup, done)
                for name in names:
                    dest = os.path.join(target, rel, name)
                    replaced = os.path.lexists(dest)
                    if replaced:
                        _set_aside(dest, backup, done)
                    os.replace(os.path.join(folder, name), dest)
                    if not replaced:
                        done.append((dest, None))
            if unchanged:
                for path in sorted(set(recorded).difference(self.written)):  # recorded in a listed folder
                    folder, _, name = path.rpartition("/")
                    if (f"{folder}/" if folder else "") in unchanged:
                        where = os.path.join(target, path)
                        if os.path.lexists(where) and not os.path.isdir(where):
                            _set_aside(where, backup, done)
            _set_aside_unwritten(target, "", self.written, backup, done, unchanged)
        except BaseException:
            _undo_moves(done, made)
            shutil.rmtree(backup, ignore_errors=True)
            raise
        clean_up(backup, staging)


def clean_up(*folders) -> None:
    """Remove ``folders`` (what a commit set aside once the new site is in place). Raises
    :class:`CommittedInterrupt` when Ctrl-C stops it: the site is the new one, the rest is a leftover."""
    try:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    except KeyboardInterrupt as exc:
        raise CommittedInterrupt() from exc


#: Seconds after which a folder an interrupted commit (``old``) or build (``building``) left beside the output is
#: a leftover: a commit sets files aside for seconds, a build of 100,000 papers stages for minutes.
LEFTOVER_AGE = {"old": 600, "building": 86_400}


def remove_leftovers(target: Path) -> None:
    """Remove the folders beside ``target`` that an interrupted commit or build left (``.<name>.old-*``,
    ``.<name>.building-*``, made by :func:`tempfile.mkdtemp`), once unchanged for :data:`LEFTOVER_AGE`."""
    now = time.time()
    for kind, age in LEFTOVER_AGE.items():
        for leftover in target.parent.glob(f"{glob.escape(f'.{target.name}.{kind}-')}*"):
            try:
                if leftover.is_dir() and not leftover.is_symlink() and now - leftover.stat().st_mtime > age:
                    shutil.rmtree(leftover, ignore_errors=True)
            except OSError:
                pass


def _set_aside_unwritten(folder: str, rel: str, written: set[str], backup: str, done: list,
                         listed: dict[str, list[str]] | None = None) -> None:
    """Set aside (:func:`_set_aside`) every file under ``folder`` whose path ``rel + name`` (``rel``: the folder's
    path in the output, ``""`` or ending in ``/``) is not in ``written``, and remove the subfolders left empty.

    What a bottom-up :func:`os.walk` of ``folder`` does (a link to a folder is neither followed nor removed), at
    about half its cost for an output of ~28,800 files that a rebuild keeps: :func:`os.listdir` names, the
    written ones (nearly all) skipped with C-level set lookups, and only the others (folders, files of a
    previous build or of the user's) looked at. A folder that cannot be listed is skipped, as by
    :func:`os.walk`; raises ``OSError`` as :func:`os.replace` does. ``listed``: names to take instead of
    listing a folder, by ``rel`` (see :meth:`Output._commit_in_place`)."""
    names = listed.get(rel) if listed else None
    if names is None:
        try:
            names = os.listdir(folder)
        except OSError:
            return
    is_written = map(written.__contains__, map(rel.__add__, names))
    for name in [name for name, kept in zip(names, is_written) if not kept]:
        path = os.path.join(folder, name)
        if os.path.isdir(path):  # a folder, or a link to one (as os.walk tells them, following links)
            if not os.path.islink(path):
                _set_aside_unwritten(path, f"{rel}{name}/", written, backup, done, listed)
            try:
                os.rmdir(path)  # only when empty
            except OSError:
                pass
        elif os.path.lexists(path):  # (a name of a listing made earlier may be gone)
            _set_aside(path, backup, done)


#: A folder whose mtime is this close to the time it is listed (ns) is listed again at commit: a change made
#: within the file system's timestamp granularity (a clock tick) after the listing could leave its mtime as it was.
_RACY_NS = 2_000_000_000


def unrecorded_names(target: Path, recorded: dict | set) -> dict[str, tuple[tuple[int, int], list[str]]]:
    """``{rel: ((inode, mtime_ns), names)}`` for every folder under the output folder ``target`` (``rel``: its
    path in the output, ``""`` or ending in ``/``; links to folders not followed): its inode and mtime before it
    was listed, and the names in it whose path ``rel + name`` is not in ``recorded`` (the previous build's files;
    the names of subfolders among them). A folder whose mtime is within :data:`_RACY_NS` of the listing, or that
    cannot be listed, is left out (listed again at commit). For :meth:`Output.commit`; made in a forked process
    (:func:`site_builder.pipeline.start_file_check`) while the build runs, off its path (~28,800 names)."""
    result: dict[str, tuple[tuple[int, int], list[str]]] = {}

    def visit(folder: str, rel: str) -> None:
        try:
            st = os.lstat(folder)
            if time.time_ns() - st.st_mtime_ns < _RACY_NS:
                raise OSError("changed too recently to trust its mtime")
            names = os.listdir(folder)
        except OSError:
            return
        is_recorded = map(recorded.__contains__, map(rel.__add__, names))
        others = [name for name, known in zip(names, is_recorded) if not known]
        result[rel] = ((st.st_ino, st.st_mtime_ns), others)
        for name in others:
            path = os.path.join(folder, name)
            if os.path.isdir(path) and not os.path.islink(path):
                visit(path, f"{rel}{name}/")

    visit(str(Path(target).resolve()), "")
    return result


def _still_listed(target: str, listing: dict) -> dict[str, list[str]]:
    """The names of :func:`unrecorded_names` ``listing`` of each folder of ``target`` that is still the folder
    it listed, with the same mtime (no name added, removed or renamed in it since), by ``rel``."""
    result = {}
    for rel, ((inode, mtime_ns), names) in listing.items():
        try:
            st = os.lstat(os.path.join(target, rel) if rel else target)
        except OSError:
            continue
        if st.st_ino == inode and st.st_mtime_ns == mtime_ns:
            result[rel] = names
    return result


def _set_aside(path: str, backup: str, done: list) -> None:
    """Move the file or folder ``path`` into the folder ``backup`` (under a new numbered name) and
    record the move in ``done`` as ``(path, where it went)``. Raises ``OSError`` as :func:`os.replace` does."""
    aside = os.path.join(backup, str(len(done)))
    os.replace(path, aside)
    done.append((path, aside))


def _undo_moves(done: list, made: list[str]) -> None:
    """Undo a commit's moves (``done``, from :meth:`Output._commit_in_place`) in reverse order: a
    staged file moved in where there was none is removed, a file set aside is moved back (over the
    staged file that replaced it, if any); then the folders in ``made``
    are removed where empty. Errors are skipped (what can be put back, is)."""
    for path, aside in reversed(done):
        try:
            if aside is None:
                os.unlink(path)
            elif os.path.lexists(aside):
                os.replace(aside, path)
        except OSError:
            pass
    for folder in reversed(made):
        try:
            os.rmdir(folder)
        except OSError:
            pass


def _make_folder(root: str, rel: str, backup: str, done: list) -> list[str]:
    """Make folder ``rel`` under ``root``, setting aside (:func:`_set_aside` into ``backup``) a file that
    stands where one of its folders must be; returns the folders made."""
    path, made = root, []
    for part in [p for p in rel.split("/") if p]:
        path = os.path.join(path, part)
        if os.path.lexists(path) and not os.path.isdir(path):
            _set_aside(path, backup, done)
        if not os.path.isdir(path):
            os.mkdir(path)
            made.append(path)
    return made


def render_page(env: jinja2.Environment, page: Page, common: dict) -> str:
    """The HTML of ``page`` rendered with its template, ``common`` and its context (and, from the
    :class:`PageFolder` of the page's folder, ``link``, ``macros``, ``chrome`` and ``paper_item``).

    Raises :class:`TemplateFailure` (``template:line: error: …``) when the template fails.
    """
    try:
        template = env.get_template(page.template)
        values = {**common, "page": page}
        values.update(page.context)
        parts = page_folder(env, page.path, values["config"])
        values["link"] = parts.link
        values["macros"] = parts.macros
        values["chrome"] = parts.chrome
        values["paper_item"] = parts.paper_item
        return template.render(values)
    except jinja2.TemplateError as exc:
        raise TemplateFailure(f"{template_location(exc)}: error: rendering {page.path}: {exc}") from exc
