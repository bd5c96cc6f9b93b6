#!/usr/bin/env python3
"""Search recall in the real page: every word of every paper, typed into the site's search, finds it.

Usage: PYTHONPATH=$PWD python scripts/search_recall.py [--sample 2000] [--seed 0] [--typed 200] [--corpus PATH]

Builds two sites into a temporary folder: the seeds (``seeds/`` with
``site.toml``) and ``--sample`` papers of the corpus. For each, opens
``search.html`` from disk in headless Chromium (Debian's, see
``tests/browser.py``) and, for every (word, paper) pair of
``site_builder.search.index.recall_words``, runs the page's own search
(``window.SiteSearch.run``, what the search box calls) and checks that the
paper is among the results; ``--typed`` pairs per site are also typed into
the box with the keyboard and read back from the result list. Prints the
pairs, misses and recall per site; exit status 1 when anything is missed.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from site_builder.config import load_config  # noqa: E402
from site_builder.corpus import DEFAULT_CORPUS, corpus_site, read_corpus, require_corpus  # noqa: E402
from site_builder.diagnostics import Diagnostics  # noqa: E402
from site_builder.model.site import Site, build_site  # noqa: E402
from site_builder.pipeline import list_files, load_overrides, read_lists, write_site  # noqa: E402
from site_builder.search.documents import recall_words  # noqa: E402
from site_builder.output.writer import Output  # noqa: E402

CHECK = """async byWord => {
    const misses = [];
    for (const [word, urls] of Object.entries(byWord)) {
        const records = await window.SiteSearch.run(word).then(window.SiteSearch.records);
        const found = new Set(records.map(r => r.url));
        urls.forEach(u => { if (!found.has(u)) misses.push([word, u]); });
    }
    return misses;
}"""


def seeds_site() -> Site:
    """The model of ``seeds/`` with the repo's config."""
    config = load_config(ROOT / "site.toml")
    diagnostics = Diagnostics()
    entries = read_lists(list_files(ROOT / "seeds"), config, diagnostics)
    return build_site(entries, load_overrides(ROOT / "seeds", diagnostics), config, diagnostics)


def write(site: Site, out: Path) -> Path:
    """Write ``site`` into the folder ``out`` as a build does; returns ``out``."""
    output = Output(out)
    write_site(site, output)
    output.commit()
    return out


def check_site(context, name: str, site: Site, out: Path, typed: int, seed: int) -> int:
    """Run the recall check of ``site`` (written to ``out``); print the figures; return the misses."""
    pairs = sorted({(w, p.path) for p in site.papers for w in recall_words(p)})
    by_word: dict[str, list[str]] = {}
    for word, url in pairs:
        by_word.setdefault(word, []).append(url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((out / "search.html").as_uri())
    start = time.perf_counter()
    words = sorted(by_word)
    misses: list[list[str]] = []
    for i in range(0, len(words), 2000):
        misses += page.evaluate(CHECK, {w: by_word[w] for w in words[i:i + 2000]})
    elapsed = time.perf_counter() - start
    typed_misses = []
    for word, url in random.Random(seed).sample(pairs, min(typed, len(pairs))):
        page.fill("#search-input", "")
        page.locator("#search-input").type(word)
        page.press("#search-input", "Enter")
        page.wait_for_function("!document.getElementById('search-results').hasAttribute('aria-busy')")
        hrefs = page.eval_on_selector_all("#search-results a.result-title", "as => as.map(a => a.getAttribute('href'))")
        full = page.evaluate("q => SiteSearch.run(q).then(SiteSearch.records).then(rs => rs.map(r => r.url))", word)
        if url not in hrefs and url not in full:
            typed_misses.append((word, url))
    page.close()
    total = len(pairs)
    recall = 100 * (total - len(misses)) / total if total else 100.0
    print(f"{name}: {len(site.papers)} papers, {len(words)} distinct words, {total} (word, paper) pairs: "
          f"{len(misses)} missed, recall {recall:.3f}% ({elapsed:.1f} s in the page); "
          f"typed with the keyboard: {min(typed, total)} pairs, {len(typed_misses)} missed; page errors: {len(errors)}")
    for word, url in (misses + typed_misses)[:20]:
        print(f"  miss: {word!r} → {url}")
    return len(misses) + len(typed_misses) + len(errors)


def main(argv: list[str] | None = None) -> int:
    """Check the seeds and a corpus sample; exit status 1 when any pair is missed or the page errs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=2000, help="corpus papers (0: seeds only)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--typed", type=int, default=200, help="pairs per site typed with the keyboard")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args(argv)
    if args.sample:
        require_corpus(args.corpus)

    from browser import chromium_context

    bad = 0
    with tempfile.TemporaryDirectory(prefix="search-recall-") as tmp, chromium_context() as context:
        sites = [("seeds", seeds_site())]
        if args.sample:
            sites.append((f"corpus sample of {args.sample}", corpus_site(read_corpus(args.corpus, args.sample, args.seed))))
        for i, (name, site) in enumerate(sites):
            out = write(site, Path(tmp) / f"site{i}")
            bad += check_site(context, name, site, out, args.typed, args.seed)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
