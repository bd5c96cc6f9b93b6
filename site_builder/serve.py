"""Preview server: build into a temporary folder and serve it, optionally under a sub-path.

Serves the way GitHub Pages does: the site under ``--base-path`` (``/repo``
redirects to ``/repo/``), a missing file answered with the site's
``404.html`` (or a plain message) and status 404, never a file outside the site.
"""

from __future__ import annotations

import argparse
import http.server
import posixpath
import sys
import tempfile
from functools import partial
from pathlib import Path
from urllib.parse import unquote, urlsplit


def normalise_base_path(base_path: str) -> str:
    """``repo``, ``/repo`` and ``/repo/`` all become ``/repo/``; empty becomes ``/``."""
    parts = [p for p in base_path.split("/") if p]
    return "/" + "/".join(parts) + "/" if parts else "/"


def resolve_request(root: Path, base_path: str, raw_path: str) -> Path | None:
    """The file under ``root`` that URL path ``raw_path`` names, or None when outside the site.

    ``raw_path`` is percent-decoded once; ``..`` segments, backslashes, NUL
    and absolute paths never leave ``root``. A folder maps to its ``index.html``.
    """
    path = unquote(urlsplit(raw_path).path)
    if not path.startswith(base_path) or "\\" in path or "\x00" in path:
        return None
    rel = posixpath.normpath("/" + path[len(base_path):]).lstrip("/")
    if any(part == ".." for part in rel.split("/")):
        return None
    target = (root / rel).resolve()
    if target != root and root not in target.parents:
        return None
    return target / "index.html" if target.is_dir() else target


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves ``root`` under ``base_path`` with the site's 404 page."""

    def __init__(self, *args, root: Path, base_path: str, **kwargs):
        self.root, self.base_path = root, base_path
        super().__init__(*args, directory=str(root), **kwargs)

    def send_head(self):  # noqa: D102 - documented in the class
        if self.path.split("?")[0] == self.base_path.rstrip("/") and self.base_path != "/":
            self.send_response(301)
            self.send_header("Location", self.base_path)
            self.end_headers()
            return None
        target = resolve_request(self.root, self.base_path, self.path)
        if target is None or not target.is_file():
            return self._not_found()
        self.path = "/" + target.relative_to(self.root).as_posix()
        return super().send_head()

    def translate_path(self, path):  # noqa: D102 - path was resolved in send_head
        return str(self.root / unquote(urlsplit(path).path).lstrip("/"))

    def _not_found(self):
        page = self.root / "404.html"
        body = page.read_bytes() if page.exists() else b"<!doctype html><title>Not found</title><h1>Not found</h1>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        return None

    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        sys.stderr.write("serve: " + format % args + "\n")


def make_server(root: Path, host: str, port: int, base_path: str) -> http.server.ThreadingHTTPServer:
    """A threading HTTP server for the site in ``root``; ``port`` 0 picks a free port."""
    handler = partial(SiteHandler, root=Path(root).resolve(), base_path=normalise_base_path(base_path))
    return http.server.ThreadingHTTPServer((host, port), handler)


def serve(args: argparse.Namespace) -> int:
    """Build into a temporary folder (never ``_site/``) and serve it until interrupted."""
    from .cli import run_build
    with tempfile.TemporaryDirectory(prefix="site-preview-") as tmp:
        out = Path(tmp) / "site"
        status = run_build(args, out)
        if status:
            return status
        server = make_server(out, args.host, args.port, args.base_path)
        host, port = server.server_address[:2]
        print(f"serving at http://{host}:{port}{normalise_base_path(args.base_path)} (Ctrl-C stops)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0
