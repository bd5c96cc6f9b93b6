"""Helpers for tests of the preview server: run it in a thread or a subprocess, and raw HTTP."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from papers_sample import sample_records

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def running(server):
    """Run ``server.serve_forever`` in a thread; always shut it down and close it."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def raw_get(port: int, target: bytes, method: bytes = b"GET") -> tuple[int, dict, bytes]:
    """Send ``target`` exactly as given (no client normalisation) and return status, headers, body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(method + b" " + target + b" HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        response = http.client.HTTPResponse(sock, method=method.decode())
        response.begin()
        body = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def copy_seeds(dest: Path) -> tuple[Path, Path]:
    """A temporary copy of the seeds and of the repo's ``site.toml``; returns ``(seeds, config)``."""
    seeds = dest / "seeds"
    shutil.copytree(ROOT / "seeds", seeds)
    config = dest / "site.toml"
    shutil.copyfile(ROOT / "site.toml", config)
    return seeds, config


def corpus_paper(venue: str, year: int, index: int = 0) -> dict:
    """The ``index``-th paper of ``venue`` ``year`` in the tests' sample of real papers (tests/fixtures/papers/)."""
    found = [r for r in sample_records() if r["venue"] == venue and r["year"] == year and r.get("abstract")]
    if index >= len(found):
        raise LookupError(f"no paper {index} of {venue} {year} in the sample of real papers ({len(found)} papers)")
    return found[index]


def append_paper(list_file: Path, record: dict) -> None:
    """Append ``record`` (a corpus paper) to the list ``list_file`` in the list format: authors, then
    the abstract on one line (as the lists give it; the corpus keeps the PDF's line breaks)."""
    text = list_file.read_text(encoding="utf-8").rstrip("\n")
    authors = ", ".join(record["authors"])
    list_file.write_text(f"{text}\n\n{authors}\n\n{one_line(record['abstract'])}\n", encoding="utf-8")


def one_line(text: str) -> str:
    """``text`` with every run of whitespace made one space."""
    return " ".join(text.split())


@contextmanager
def serve_process(*args: str, cwd: Path, env: dict | None = None):
    """Run ``build.py serve --port 0 …`` in ``cwd`` (with ``env`` added to the environment); yield
    ``(base URL, process)``; always stop it.

    The server's stderr (its log) goes to ``cwd/serve.log``.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", **(env or {})}
    log = (cwd / "serve.log").open("w", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(ROOT / "build.py"), "serve", "--port", "0", *args], cwd=cwd,
                            env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"serving at (http://\S+)", line)
        assert match, f"no 'serving at' line: {line!r}; log: {(cwd / 'serve.log').read_text(encoding='utf-8')}"
        yield match.group(1), proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        proc.stdout.close()
        log.close()


@pytest.fixture(scope="module")
def repo_server(seed_site):
    """The seed site served under /repo/ by the preview server's handler; yields the base URL. A fixture:
    import it into a test module to use it."""
    from site_builder.serve import make_server

    with running(make_server(seed_site, "127.0.0.1", 0, "/repo/")) as port:
        yield f"http://127.0.0.1:{port}/repo/"
