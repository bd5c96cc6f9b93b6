"""Headless Chromium for tests: Debian's ``/usr/bin/chromium`` driven by Playwright.

Never downloads a browser. A missing Chromium fails the tests that need it
(it never skips them): install it with ``apt-get install chromium``.
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic",
]


@contextmanager
def chromium_context(**options):
    """Yield a fresh persistent Playwright context (new user-data folder) of headless Chromium.

    ``options`` go to ``launch_persistent_context`` (e.g. ``viewport``,
    ``color_scheme``, ``offline``, ``java_script_enabled``).
    Raises AssertionError when Chromium is not installed.
    """
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"Chromium not found at {CHROMIUM}: apt-get install chromium"
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=ARGS, **options)
        try:
            yield context
        finally:
            context.close()
