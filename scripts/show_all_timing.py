"""How long "Show all abstracts" takes on a list page: the first ten abstracts shown, then all of them.

Usage: PYTHONPATH=$PWD python3 scripts/show_all_timing.py PAGE SITE [SITE ...]

PAGE is a list page's path relative to each SITE (a built site's folder), e.g. ``venues/eccv-2022/index.html``.
For each SITE, opens PAGE from ``file://`` in Debian's Chromium (``tests/browser.py``), with the site's
localStorage emptied, clicks "Show all abstracts" and prints the milliseconds (``performance.now()``) until ten
disclosures, then every one, are filled (``data-filled``, set by ``assets/abstracts.js``). Issue 25, BENCHMARKS.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from browser import chromium_context  # noqa: E402

#: Milliseconds from the click until at least ``n`` disclosures are filled (``n`` None: all of them).
_UNTIL = """n => new Promise(done => { const t0 = performance.now();
    document.querySelector('button.show-abstracts').click();
    const all = document.querySelectorAll('.abstract-toggle').length, want = n === null ? all : Math.min(n, all);
    const check = () => document.querySelectorAll('.abstract-toggle[data-filled]').length < want
        ? setTimeout(check, 5) : done(performance.now() - t0);
    check(); })"""


def timing(url: str, n: int | None) -> float:
    """Milliseconds until ``n`` (None: all) abstracts are shown after "Show all abstracts" on ``url``."""
    with chromium_context(viewport={"width": 1000, "height": 900}) as context:
        page = context.new_page()
        page.goto(url)
        page.evaluate("localStorage.clear()")
        page.reload()
        return page.evaluate(_UNTIL, n)


def main(argv: list[str]) -> int:
    """Print, per site, the page's items and both timings; exit status 2 without a page and a site."""
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    page, sites = argv[0], argv[1:]
    for site in sites:
        url = (Path(site).resolve() / page).as_uri()
        print(f"{site}: first ten after {timing(url, 10):.0f} ms, all after {timing(url, None):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
