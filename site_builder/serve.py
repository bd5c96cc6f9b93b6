"""Preview server: build into a temporary folder, serve it, rebuild on change and reload open pages.

Serves the way GitHub Pages does: the site under ``--base-path`` (``/repo`` and the host's root ``/``
redirect to ``/repo/``, a folder without its slash to the folder with it), a missing file, or a path after a
file's name (``page.html/``), answered with the site's ``404.html`` and status 404, and never a file outside the
site folder, whatever the path.

Live reload (preview only, never written into the built files): every HTML page served gets a
small script that listens to the Server-Sent Events stream at ``/__livereload``
(https://html.spec.whatwg.org/multipage/server-sent-events.html). The stream sends
``{"generation": n, "error": text|null}`` on connect and after each rebuild; a page reloads when
``n`` differs from the generation it was served at, and shows ``error`` in an overlay (text only)
while the last good site keeps being served.

Watching (watchfiles): the lists folder, the config file, the templates and the assets.
An asset-only change copies just the changed assets into the served folder; a list, config or
template change rebuilds the whole site into a new folder, swapped in when the build succeeds.
"""

from __future__ import annotations

import argparse
import http.server
import json
import posixpath
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlsplit

from .config import ConfigError, config_path, resolve_config
from .read.formats import format_of

LIVERELOAD_PATH = "/__livereload"
#: Content types by file suffix (text types in UTF-8, as the builder writes them).
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".xml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".ico": "image/vnd.microsoft.icon",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".zip": "application/zip",
}
DEFAULT_TYPE = "application/octet-stream"
FALLBACK_404 = b"<!doctype html><title>Not found</title><h1>Not found</h1>"
#: The build's own exceptions (exit status 2 from build.py; messages name the file).
BUILD_ERRORS = ("ConfigError", "BuildError", "OutputError")
#: Seconds between keep-alive comments on an idle event stream.
KEEPALIVE = 10.0

LIVE_SCRIPT = """<script>/* live reload: injected by the preview server only */
(function () {
  "use strict";
  var GENERATION = %(generation)d, box = null;
  function show(text) {
    if (!box) {
      box = document.createElement("div");
      box.id = "livereload-error";
      box.setAttribute("role", "alert");
      box.style.cssText = "position:fixed;inset:auto 0 0 0;max-height:60vh;overflow:auto;z-index:2147483647;" +
        "background:#fff4f4;color:#600;border-top:3px solid #c00;padding:1em;font:14px/1.4 monospace";
      document.body.appendChild(box);
    }
    box.textContent = "";
    var head = document.createElement("strong");
    head.textContent = "Rebuild failed; showing the last good site.";
    var pre = document.createElement("pre");
    pre.style.whiteSpace = "pre-wrap";
    pre.textContent = text;
    box.appendChild(head);
    box.appendChild(pre);
  }
  var source = new EventSource("%(endpoint)s");
  source.onmessage = function (event) {
    var state = JSON.parse(event.data);
    if (state.generation !== GENERATION) { source.close(); window.location.reload(); return; }
    if (state.error) { show(state.error); } else if (box) { box.remove(); box = null; }
  };
})();
</script>
"""


def normalise_base_path(base_path: str) -> str:
    """``repo``, ``/repo`` and ``/repo/`` all become ``/repo/``; empty becomes ``/``."""
    parts = [p for p in base_path.split("/") if p]
    return "/" + "/".join(parts) + "/" if parts else "/"


def decode_path(raw_path: str) -> str | None:
    """The percent-decoded (once) UTF-8 path of the request target ``raw_path``, or None.

    ``raw_path`` is the target as http.server gives it (bytes as ISO-8859-1 characters); a path
    or query is split off first. None when the bytes are not UTF-8.
    """
    path = urlsplit(raw_path).path
    try:
        raw = path.encode("iso-8859-1")
    except UnicodeEncodeError:
        raw = path.encode("utf-8")
    try:
        return unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return None


def locate(root: Path, base_path: str, raw_path: str) -> Path | None:
    """The file or folder under ``root`` that ``raw_path`` names, or None when it is outside the site.

    ``raw_path`` is percent-decoded once (so ``%252e%252e`` stays the literal name ``%2e%2e``);
    ``..`` segments, backslashes, NUL, absolute paths and symbolic links never leave ``root``
    (which must be resolved).
    """
    path = decode_path(raw_path)
    if path is None or not path.startswith(base_path) or "\\" in path or "\x00" in path:
        return None
    rel = posixpath.normpath("/" + path[len(base_path):]).lstrip("/")
    if any(part == ".." for part in rel.split("/")):
        return None
    target = (root / rel).resolve()
    if target != root and root not in target.parents:
        return None
    return target


def resolve_request(root: Path, base_path: str, raw_path: str) -> Path | None:
    """The file under ``root`` that URL path ``raw_path`` names, or None when outside the site.

    As :func:`locate`; a folder maps to its ``index.html``.
    """
    target = locate(root, base_path, raw_path)
    if target is None:
        return None
    return target / "index.html" if target.is_dir() else target


def content_type(path: Path) -> str:
    """The Content-Type header for the file ``path``, from its suffix (:data:`CONTENT_TYPES`)."""
    return CONTENT_TYPES.get(path.suffix.lower(), DEFAULT_TYPE)


def inject_live_reload(html: bytes, generation: int) -> bytes:
    """``html`` with the live-reload script for ``generation`` inserted before its last ``</body>``
    (appended when there is none)."""
    script = (LIVE_SCRIPT % {"generation": generation, "endpoint": LIVERELOAD_PATH}).encode("utf-8")
    at = html.lower().rfind(b"</body>")
    return html + script if at < 0 else html[:at] + script + html[at:]


class SiteState:
    """The site being served: its folder, a generation number and the last rebuild error.

    The generation grows by one at each successful rebuild or asset update; pages served at an
    older generation reload. Thread-safe; :meth:`wait` blocks until the state changes.
    """

    def __init__(self, root: Path):
        self._changed = threading.Condition()
        self.root = Path(root).resolve()
        self.generation = 1
        self.error: str | None = None
        self.closed = False

    def snapshot(self) -> tuple[Path, int, str | None]:
        """``(root, generation, error)`` at this moment."""
        with self._changed:
            return self.root, self.generation, self.error

    def publish(self, root: Path | None = None) -> None:
        """A rebuild succeeded: serve ``root`` (or the same folder, updated in place) at the next generation."""
        with self._changed:
            if root is not None:
                self.root = Path(root).resolve()
            self.generation += 1
            self.error = None
            self._changed.notify_all()

    def fail(self, error: str) -> None:
        """A rebuild failed with the diagnostics ``error``; the current site stays served."""
        with self._changed:
            self.error = error
            self._changed.notify_all()

    def close(self) -> None:
        """Wake and end every waiting event stream."""
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def wait(self, seen: tuple[int, str | None] | None, timeout: float) -> tuple[int, str | None]:
        """``(generation, error)`` once it differs from ``seen``, or after ``timeout`` seconds or close."""
        with self._changed:
            self._changed.wait_for(lambda: self.closed or (self.generation, self.error) != seen, timeout)
            return self.generation, self.error


class SiteHandler(http.server.BaseHTTPRequestHandler):
    """Serves ``server.state.root`` under ``server.base_path`` (see :class:`PreviewServer`)."""

    server_version = "site-preview"

    def do_GET(self):  # noqa: N802 - http.server's naming
        """Answer a GET."""
        self._answer(send_body=True)

    def do_HEAD(self):  # noqa: N802 - http.server's naming
        """Answer a HEAD (headers only)."""
        self._answer(send_body=False)

    def _answer(self, send_body: bool) -> None:
        server: PreviewServer = self.server  # type: ignore[assignment]
        path = decode_path(self.path)
        if server.live_reload and path == LIVERELOAD_PATH:
            return self._events()
        base = server.base_path
        query = urlsplit(self.path).query
        if base != "/" and path in (base.rstrip("/"), "/"):  # the sub-path without its slash, or the host's root
            return self._redirect(base + ("?" + query if query else ""))
        root, generation, _ = server.state.snapshot()
        target = locate(root, base, self.path)
        slash = urlsplit(self.path).path.endswith("/")
        if target is not None and target.is_dir():
            if not slash:
                return self._redirect(urlsplit(self.path).path + "/" + ("?" + query if query else ""))
            target = target / "index.html"
        elif slash:  # a path after a file's name (``x.html/``): a static host answers 404, its links would break
            target = None
        if target is None or not target.is_file():
            page = root / "404.html"
            body = page.read_bytes() if page.is_file() else FALLBACK_404
            return self._send(404, "text/html; charset=utf-8", body, generation, send_body)
        try:
            body = target.read_bytes()
        except OSError:
            return self._send(404, "text/html; charset=utf-8", FALLBACK_404, generation, send_body)
        self._send(200, content_type(target), body, generation, send_body)

    def _send(self, status: int, ctype: str, body: bytes, generation: int, send_body: bool) -> None:
        if self.server.live_reload and ctype.startswith("text/html"):  # type: ignore[attr-defined]
            body = inject_live_reload(body, generation)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self.send_response(301)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _events(self) -> None:
        state: SiteState = self.server.state  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        seen = None
        try:
            self.wfile.write(b"retry: 500\n\n")
            while not state.closed:
                current = state.wait(seen, KEEPALIVE)
                if current == seen:
                    self.wfile.write(b": keep-alive\n\n")
                else:
                    seen = current
                    data = json.dumps({"generation": current[0], "error": current[1]})
                    self.wfile.write(f"data: {data}\n\n".encode("utf-8"))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        """Log to stderr with a ``serve:`` prefix."""
        sys.stderr.write("serve: " + format % args + "\n")


class PreviewServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server holding the :class:`SiteState`, base path and live-reload switch."""

    daemon_threads = True

    def __init__(self, address, state: SiteState, base_path: str, live_reload: bool):
        self.state, self.base_path, self.live_reload = state, normalise_base_path(base_path), live_reload
        super().__init__(address, SiteHandler)

    def server_close(self) -> None:
        """Close the socket and end the event streams."""
        self.state.close()
        super().server_close()


def make_server(root: Path | SiteState, host: str, port: int, base_path: str,
                live_reload: bool = False) -> PreviewServer:
    """A server for the site in ``root`` (a folder or a :class:`SiteState`); ``port`` 0 picks a free port.

    With ``live_reload`` HTML answers carry the live-reload script and ``/__livereload`` streams events.
    """
    state = root if isinstance(root, SiteState) else SiteState(Path(root))
    return PreviewServer((host, port), state, base_path, live_reload)


# --- watching and rebuilding -------------------------------------------------------------------

@dataclass(frozen=True)
class Sources:
    """What the site is built from: lists folder, config file (or None), templates and assets folders."""

    seeds: Path
    config: Path | None
    templates: Path
    assets: Path
    references: tuple[Path, ...] = ()  # the reference files the config names (site_builder.read.reference)

    def watch_roots(self) -> list[Path]:
        """The folders to watch: the three folders, the config's folder and the reference files' folders,
        none inside another."""
        folders = [self.seeds, self.templates, self.assets] + ([self.config.parent] if self.config else [])
        folders += [path.parent for path in self.references]
        folders = sorted({f.resolve() for f in folders}, key=lambda p: len(p.parts))
        roots: list[Path] = []
        for folder in folders:
            if not any(folder == r or r in folder.parents for r in roots):
                roots.append(folder)
        return roots


@dataclass(frozen=True)
class Plan:
    """What a batch of file changes needs: ``kind`` ``"none"``, ``"assets"`` (copy ``assets``) or ``"full"``."""

    kind: str
    assets: tuple[Path, ...] = ()


def _ignored(path: Path) -> bool:
    name = path.name
    return name.startswith((".", "#")) or name.endswith(("~", ".swp", ".swx", ".tmp")) or name == "4913"


def _under(path: Path, folder: Path) -> bool:
    return folder == path or folder in path.parents


def classify_changes(changes, sources: Sources) -> Plan:
    """The :class:`Plan` for ``changes``, an iterable of ``(change, path)`` as watchfiles yields them.

    A list (a file an input format reads, :func:`~site_builder.read.formats.format_of`) or ``overrides.toml``
    in the lists folder, the config file, a reference file the config names, or anything in
    the templates folder needs a full build; files in the assets folder only need copying;
    anything else (editor temporary files, other files beside the config) nothing.
    """
    full, assets = False, set()
    seeds, templates, assets_dir = sources.seeds.resolve(), sources.templates.resolve(), sources.assets.resolve()
    config = sources.config.resolve() if sources.config else None
    references = {path.resolve() for path in sources.references}
    for _change, raw in changes:
        path = Path(raw).resolve()
        if _ignored(path):
            continue
        if path == config or path in references or _under(path, templates):
            full = True
        elif _under(path, seeds) and (format_of(path) is not None or path.name == "overrides.toml"):
            full = True
        elif _under(path, assets_dir) and path != assets_dir:
            assets.add(path)
    if full:
        return Plan("full")
    return Plan("assets", tuple(sorted(assets))) if assets else Plan("none")


def format_error(exc: BaseException) -> str:
    """A one-line diagnostic for an exception of a failed rebuild (``path:line: error: …`` when known)."""
    filename, lineno = getattr(exc, "filename", None), getattr(exc, "lineno", None)
    if filename and lineno:
        return f"{filename}:{lineno}: error: {getattr(exc, 'message', None) or exc}"
    if getattr(exc, "located", False):  # the message is already a whole diagnostic (config.ConfigError)
        return str(exc)
    if type(exc).__name__ in BUILD_ERRORS:  # their messages already name the file
        return f"error: {exc}"
    return f"error: {type(exc).__name__}: {exc}"


class Preview:
    """The preview's build side: builds into numbered folders under ``workdir`` and updates ``state``.

    ``args`` are the parsed ``serve`` arguments (seeds, config, base_url, strict, notes, cache).
    """

    def __init__(self, args: argparse.Namespace, sources: Sources, workdir: Path):
        self.args, self.sources, self.workdir = args, sources, Path(workdir)
        self.state: SiteState | None = None
        self.status = 0  # exit status of the last build, as build.py's
        self._count = 0
        self._lock = threading.Lock()

    def build(self) -> tuple[Path | None, str]:
        """Build the site into a new folder; returns ``(folder, diagnostics)``, folder None on failure."""
        from .pipeline import build

        self._count += 1
        out = self.workdir / f"site-{self._count}"
        try:
            config = resolve_config(self.sources.config, getattr(self.args, "base_url", None))
            report = build(self.sources.seeds, out, config, strict=getattr(self.args, "strict", False),
                           notes=getattr(self.args, "notes", None), cache=getattr(self.args, "cache", None))
        except Exception as exc:  # any failure of a rebuild is shown, never fatal to the server
            self.status = 2 if type(exc).__name__ in BUILD_ERRORS else 1
            return None, format_error(exc)
        self.status = 0 if report.files else 1
        text = "\n".join(str(d) for d in report.diagnostics.in_order())
        if report.files == 0:
            errors = len(report.diagnostics.errors)
            why = f"{errors} error(s)" if errors else f"{len(report.diagnostics.warnings)} warning(s) with --strict"
            return None, (text + "\n" if text else "") + f"build failed: {why}"
        return out, text

    def start(self) -> tuple[SiteState | None, str]:
        """The first build; returns ``(state, diagnostics)``, state None when it failed."""
        root, text = self.build()
        if root is not None:
            self.state = SiteState(root)
        return self.state, text

    def rebuild(self) -> bool:
        """Full rebuild into a new folder; on success swap it in (keeping the previous folder for
        requests in flight, removing older ones), else record the error. Returns success."""
        started = time.perf_counter()
        root, text = self.build()
        if text:
            print(text, file=sys.stderr)
        print(f"serve: {'rebuilt' if root else 'rebuild failed'} in {time.perf_counter() - started:.2f} s",
              file=sys.stderr)
        if root is None:
            self.state.fail(text)
            return False
        self.state.publish(root)
        for old in self.workdir.glob("site-*"):
            if old.name not in (root.name, f"site-{self._count - 1}"):
                shutil.rmtree(old, ignore_errors=True)
        return True

    def sync_assets(self, paths: tuple[Path, ...]) -> list[str]:
        """Copy the changed asset files ``paths`` into the served site's ``assets/`` (removing the
        deleted ones) and bump the generation. Returns the site-relative paths touched."""
        from .model import urls

        root = self.state.snapshot()[0]
        source_root = self.sources.assets.resolve()
        touched = []
        for path in paths:
            rel = path.relative_to(source_root).as_posix()
            dest = root / urls.ASSETS / rel
            if path.is_file():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, dest)
            elif dest.is_file():
                dest.unlink()
            touched.append(f"{urls.ASSETS}/{rel}")
        self.state.publish()
        return touched

    def handle(self, changes) -> Plan:
        """Act on one batch of watchfiles ``changes``: copy assets or rebuild; returns the plan."""
        plan = classify_changes(changes, self.sources)
        with self._lock:
            if plan.kind == "full":
                self.rebuild()
            elif plan.kind == "assets":
                touched = self.sync_assets(plan.assets)
                print(f"serve: copied {', '.join(touched)}", file=sys.stderr)
        return plan

    def watch(self, stop: threading.Event, debounce_ms: int = 50) -> None:
        """Watch the sources until ``stop`` is set, handling each batch of changes."""
        import watchfiles

        for changes in watchfiles.watch(*self.sources.watch_roots(), stop_event=stop, debounce=debounce_ms,
                                        step=25, raise_interrupt=False):
            self.handle(changes)


def sources_from_args(args: argparse.Namespace) -> Sources:
    """The :class:`Sources` of the ``serve`` arguments (templates and assets of the project)."""
    from .pipeline import ASSETS, TEMPLATES

    config = config_path(args.config)
    try:
        references = tuple(map(Path, resolve_config(config, None).reference_files()))
    except ConfigError:  # the build reports it
        references = ()
    return Sources(Path(args.seeds), Path(config) if config else None, TEMPLATES, ASSETS, references)


def serve(args: argparse.Namespace) -> int:
    """Build into a temporary folder (never ``_site/``), serve it and rebuild on change until interrupted.

    Returns the exit status: that of the first build when it fails (as ``build.py``), else 0. SIGTERM
    stops it as Ctrl-C does (the temporary folder is removed either way).
    """
    previous = _stop_on_terminate()
    try:
        return _serve(args)
    except KeyboardInterrupt:  # while the first build runs (once serving, Ctrl-C is the normal way out)
        print("interrupted; nothing served", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _serve(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="site-preview-") as tmp:
        preview = Preview(args, sources_from_args(args), Path(tmp))
        state, text = preview.start()
        if text:
            print(text, file=sys.stderr)
        if state is None:
            print("build failed; nothing to serve", file=sys.stderr)
            return preview.status
        try:
            server = make_server(state, args.host, args.port, args.base_path, live_reload=True)
        except OSError as exc:
            print(f"error: cannot serve on {args.host}:{args.port}: {exc.strerror or exc} "
                  f"(pick another --port, or --port 0 for a free one)", file=sys.stderr)
            return 2
        host, port = server.server_address[:2]
        stop = threading.Event()
        watcher = threading.Thread(target=preview.watch, args=(stop,), name="watch", daemon=True)
        try:  # from the "serving at" line on, Ctrl-C or SIGTERM is the normal way out
            print(f"serving at http://{host}:{port}{normalise_base_path(args.base_path)} (Ctrl-C stops)", flush=True)
            watcher.start()
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
            server.server_close()
            if watcher.is_alive():
                watcher.join(timeout=5)
    return 0


def _stop_on_terminate():
    """Make SIGTERM (``kill``, a process manager, a closed terminal's job control) stop the server as Ctrl-C
    does, so the temporary preview folder is removed; returns the previous handler (None when this is not
    the main thread, where Python cannot set handlers)."""
    def terminate(signum, frame):
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, terminate)
    except ValueError:  # not the main thread
        return None
