"""Benchmark: the site's search page against Pagefind over the same paper pages, over a throttled network.

Usage (from the repository root; writes under ``bench/out/``, git-ignored; needs the full corpus, Debian's
Chromium and ``npm ci --prefix bench``, which installs Pagefind, a benchmark-only dependency)::

    PYTHONPATH=$PWD python3 bench/search_bench.py 10000             # build 10,000 papers, then measure
    PYTHONPATH=$PWD python3 bench/search_bench.py 100000 --no-browser  # the build's figures alone
    PYTHONPATH=$PWD python3 bench/search_bench.py --site bench/out/search-n10000/_site   # a built site

Steps, in one run:

1. the lists of N papers (``bench/lists.py``: the corpus's first N, or the corpus and distinct copies of it
   above its size), and a cold build of them (``python build.py`` with an empty cache, measured as
   ``bench/run.py`` measures: wall time, CPU, peak PSS of the process tree; then the output's bytes a paper);
2. Pagefind (``bench/node_modules/.bin/pagefind``, its CLI) indexing the built paper pages
   (``--glob 'papers/**/*.html'``) into ``<site>/pagefind/``, and a minimal page beside ``search.html``,
   ``pagefind-bench.html``, that searches with Pagefind's JS API (``pagefind.search(q)``, then the first
   result's ``data()``) and shows that result as an item of ``#search-results`` (the search page's ids).
   Pagefind runs on the page's thread (its option ``noWorker``, its own fallback): by default it fetches from
   a Web Worker, whose requests neither the page's CDP session sees nor its network emulation slows;
3. a local HTTP server (``http.server``, HTTP/1.1 keep-alive) serving the site under ``/reading-list/``, text
   types gzip-compressed (``Content-Encoding: gzip``, level 6) as GitHub Pages serves them (Pagefind's own
   files are compressed already and served as they are);
4. headless Chromium (``tests/browser.py``) with Chrome DevTools Protocol ``Network.emulateNetworkConditions``
   (10 Mbit/s down and up, 40 ms latency) and ``Network.setCacheDisabled``: for every query of
   :func:`choose_queries` (one- and two-word, common and rare words of the papers' titles), a fresh tab opens
   ``search.html?q=…`` and ``pagefind-bench.html?q=…``, in turn, and measures the time from navigation start
   to the first item of ``#search-results`` (the result list of ``templates/search.html``, filled by
   ``assets/search.js``; a ``MutationObserver`` records ``performance.now()``), and the requests sent and bytes
   received before it (CDP ``Network.requestWillBeSent`` / ``Network.loadingFinished``'s ``encodedDataLength``:
   compressed bytes with the headers, timestamps set against the page's clock); then, on each tool's page, the
   median time of the follow-up queries, still throttled: each word set whole into the box (one ``input``
   event, as a paste: the event → the first result shown), then each typed key by key (:data:`TYPED_FOLLOW_UP`:
   the last key → the list drawn for the whole word).

Prints Markdown tables (both tools and the ratio ours / Pagefind) and writes ``bench/out/search_bench.json``.
Whatever the search page loads (the manifest, the shards of its terms, the records of the results shown) is what is counted.
No assertion: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import json
import mimetypes
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from lists import CORPUS, distinct_copies, load_corpus, write_lists  # noqa: E402
from run import FIRST_RESULT_SCRIPT, LIVE_QUERY, STOP, build_argv, compile_package, folder_bytes, measure  # noqa: E402

OUT = ROOT / "bench" / "out"
#: Words no reader would search for alone: ``bench/run.py``'s stop words, the derived titles' verbs, function words.
QUERY_STOP = STOP | set("studying investigating exploring analyzing addressing evaluating introducing new two three "
                        "first based multi non that this these their its our how what when which can not all "
                        "are has have".split())
PAGEFIND = ROOT / "bench" / "node_modules" / ".bin" / "pagefind"
PREFIX = "/reading-list/"
#: Network emulation (CDP ``Network.emulateNetworkConditions``): bytes a second and milliseconds.
THROUGHPUT = 10_000_000 / 8
LATENCY_MS = 40
#: Content types served gzip-compressed (GitHub Pages compresses text types).
TEXT_TYPES = ("text/", "application/javascript", "application/json", "image/svg+xml", "application/xml")

PAGEFIND_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pagefind benchmark</title></head>
<body><input id="search-input" type="search" aria-label="Search"><ol id="search-results"></ol>
<script type="module">
const pagefind = await import("./pagefind/pagefind.js");
await pagefind.options({ noWorker: true });  // its fetches on the page, where the network emulation applies
const input = document.getElementById("search-input"), list = document.getElementById("search-results");
let serial = 0;
async function run(q) {
  const mine = ++serial;
  const found = await pagefind.search(q);
  if (mine !== serial) return;
  if (!found || !found.results.length) { list.textContent = ""; return; }
  const data = await found.results[0].data();
  if (mine !== serial) return;
  const item = document.createElement("li"), link = document.createElement("a");
  link.href = data.url; link.textContent = data.meta.title || data.url;
  item.append(link); list.replaceChildren(item);
}
input.addEventListener("input", () => run(input.value));
const q = new URLSearchParams(location.search).get("q");
if (q) { input.value = q; run(q); }
</script></body></html>
"""


# -- the site and Pagefind's index --------------------------------------------------------------------

def build(n: int, corpus: Path) -> tuple[Path, dict]:
    """Write the lists of ``n`` papers and build them cold; return the site folder and the build's figures
    (``bench/run.py``'s :func:`measure` plus ``papers``, ``output_bytes``, ``bytes_per_paper``)."""
    folder = OUT / f"search-n{n}"
    shutil.rmtree(folder, ignore_errors=True)
    started = time.perf_counter()
    records = distinct_copies(load_corpus(corpus, n), n)
    write_lists(records, folder / "seeds", folder / "site.toml")
    print(f"N={n}: lists written in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    compile_package()
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT), "SOURCE_DATE_EPOCH": "1700000000"}
    figures = {k: v for k, v in measure(build_argv(folder), env).items() if k not in ("stdout", "stderr")}
    site = folder / "_site"
    papers = len(json.loads((site / "papers.json").read_text(encoding="utf-8")))
    size = folder_bytes(site)
    figures.update(n=n, papers=papers, output_bytes=size, bytes_per_paper=size / papers)
    print(f"N={n}: cold build {figures['wall_s']:.1f} s", file=sys.stderr, flush=True)
    return site, figures


def index_with_pagefind(site: Path) -> dict:
    """Run Pagefind's CLI over ``site``'s paper pages (into ``site/pagefind``) and write
    ``pagefind-bench.html``; return ``{"wall_s", "pages", "files", "bytes"}``. Raises SystemExit when
    Pagefind is not installed (``npm ci --prefix bench``) or fails."""
    if not PAGEFIND.exists():
        raise SystemExit(f"{PAGEFIND} not found: run `npm ci --prefix bench`")
    shutil.rmtree(site / "pagefind", ignore_errors=True)
    started = time.perf_counter()
    done = subprocess.run([str(PAGEFIND), "--site", str(site), "--glob", "papers/**/*.html"],
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"pagefind failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    pages = re.search(r"Indexed (\d+) pages?", done.stdout)
    (site / "pagefind-bench.html").write_text(PAGEFIND_PAGE, encoding="utf-8")
    files = [p for p in (site / "pagefind").rglob("*") if p.is_file()]
    return {"wall_s": wall, "pages": int(pages[1]) if pages else None, "files": len(files),
            "bytes": sum(p.stat().st_size for p in files)}


# -- serving ----------------------------------------------------------------------------------------

class _Handler(http.server.BaseHTTPRequestHandler):
    """GET/HEAD of the site's files under :data:`PREFIX`, text types gzip-compressed when accepted."""

    protocol_version = "HTTP/1.1"
    site: Path
    compressed: dict[Path, bytes]
    lock = threading.Lock()

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        path = unquote(urlsplit(self.path).path)
        if not path.startswith(PREFIX):
            return self._send(404, b"not found", "text/plain", gzip_ok=False)
        target = (self.site / path[len(PREFIX):]).resolve()
        if target.is_dir():
            target = target / "index.html"
        if self.site not in target.parents or not target.is_file():
            return self._send(404, b"not found", "text/plain", gzip_ok=False)
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        body = target.read_bytes()
        self._send(200, body, kind, gzip_ok="gzip" in self.headers.get("Accept-Encoding", ""), target=target)

    def _send(self, status: int, body: bytes, kind: str, gzip_ok: bool, target: Path | None = None) -> None:
        encoded = gzip_ok and kind.startswith(TEXT_TYPES)
        if encoded:
            with self.lock:
                if target not in self.compressed:
                    self.compressed[target] = gzip.compress(body, 6, mtime=0)
                body = self.compressed[target]
        self.send_response(status)
        self.send_header("Content-Type", kind + ("; charset=utf-8" if kind.startswith("text/") else ""))
        if encoded:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def serve(site: Path) -> http.server.ThreadingHTTPServer:
    """A started server of ``site`` under :data:`PREFIX` on a free port of 127.0.0.1 (``server_address``)."""
    handler = type("SiteHandler", (_Handler,), {"site": site.resolve(), "compressed": {}})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# -- queries --------------------------------------------------------------------------------------

def choose_queries(titles: list[str]) -> dict[str, list[str]]:
    """Queries from the papers' ``titles`` (deterministic): ``one-word common`` (the 3 most frequent title
    words, :data:`QUERY_STOP` left out), ``one-word rare`` (3 words of 7+ letters in exactly 2 titles, spread over
    the alphabet), ``two-word common`` (the 2 most frequent pairs of adjacent title words), ``two-word rare``
    (2 adjacent pairs that occur in one title, one word of it frequent), and ``follow-up`` (20 more frequent
    words, typed one after the other into a loaded page)."""
    words = [re.findall(r"[a-z]+", t.lower()) for t in titles]
    counts = Counter(w for ws in words for w in set(ws) if len(w) >= 3 and w not in QUERY_STOP)
    common = [w for w, _ in counts.most_common(30)]
    rare = sorted(w for w, c in counts.items() if c == 2 and len(w) >= 7)
    pairs = Counter((a, b) for ws in words for a, b in zip(ws, ws[1:]) if a not in QUERY_STOP and b not in QUERY_STOP
                    and len(a) >= 3 and len(b) >= 3)
    rare_pairs = sorted(p for p, c in pairs.items() if c == 1 and p[0] in common[:10] and counts[p[1]] <= 3)
    step = max(1, len(rare) // 3)
    pick = max(1, len(rare_pairs) // 2)
    return {"one-word common": common[:3], "one-word rare": rare[::step][:3],
            "two-word common": [" ".join(p) for p, _ in pairs.most_common(2)],
            "two-word rare": [" ".join(p) for p in rare_pairs[::pick][:2]],
            "follow-up": common[3:23]}


# -- the browser ------------------------------------------------------------------------------------

FOLLOW_UP = LIVE_QUERY.replace("3000", "30000")  # typed query → first result shown; null after 30 s

#: Milliseconds between two keys when a follow-up is typed key by key (80 words a minute).
KEY_DELAY_MS = 150
#: A follow-up typed key by key into a loaded page (the box emptied first; an ``input`` event a key, as typing
#: gives, KEY_DELAY_MS apart): the milliseconds from the last key to the list drawn anew for the whole query
#: (the last batch of changes after it that emptied the list and left a result in it; items appended later to
#: a drawn list do not count), once nothing has changed for 3 s; null when none.
TYPED_FOLLOW_UP = """async ([q, delay]) => {
  const input = document.getElementById('search-input');
  const results = document.getElementById('search-results');
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  input.value = '';
  input.dispatchEvent(new Event('input', {bubbles: true}));
  await sleep(500);
  const drawn = [];
  const seen = new MutationObserver((records) => {
    if (records.some((r) => r.removedNodes.length) && results.querySelector('li')) drawn.push(performance.now());
  });
  seen.observe(results, {childList: true, subtree: true});
  let last = 0;
  for (let i = 1; i <= q.length; i++) {
    input.value = q.slice(0, i);
    last = performance.now();
    input.dispatchEvent(new Event('input', {bubbles: true}));
    await sleep(i < q.length ? delay : 0);
  }
  let count = -1;
  while (count !== drawn.length) { count = drawn.length; await sleep(3000); }
  seen.disconnect();
  const after = drawn.filter((t) => t >= last);
  return after.length ? after[after.length - 1] - last : null;
}"""


def _throttled_page(context):
    """A new tab of ``context`` with the network emulated and the cache disabled, and the CDP events of its
    requests recorded: ``(page, {"sent": [(id, timestamp, wallTime, url)], "done": {id: (timestamp, bytes)}})``
    (timestamps in seconds of CDP's monotonic clock, ``wallTime`` in seconds since the epoch)."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    events: dict = {"sent": [], "done": {}}
    cdp.on("Network.requestWillBeSent", lambda e: events["sent"].append(
        (e["requestId"], e["timestamp"], e["wallTime"], e["request"]["url"])))
    cdp.on("Network.loadingFinished", lambda e: events["done"].__setitem__(
        e["requestId"], (e["timestamp"], e["encodedDataLength"])))
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": LATENCY_MS,
                                                  "downloadThroughput": THROUGHPUT, "uploadThroughput": THROUGHPUT})
    return page, events


def first_result(context, url: str) -> dict:
    """Open ``url`` in a throttled tab and wait (up to 15 minutes) for the first item of ``#search-results``.

    Returns ``{"first_ms"`` (from navigation start, the page's ``performance.now()``), ``"requests"`` and
    ``"bytes"`` (sent / received compressed, headers included, before that moment), ``"files"`` (their paths),
    ``"page"`` (the open tab, for follow-up queries)}. Raises Playwright's TimeoutError when no result shows."""
    page, events = _throttled_page(context)
    page.goto(url, wait_until="commit", timeout=0)
    page.wait_for_function("window.__firstResult !== null", timeout=900_000, polling=50)
    origin, first = page.evaluate("[performance.timeOrigin, window.__firstResult]")
    page.wait_for_timeout(100)  # the CDP events up to that moment are delivered
    _, mono, wall, _ = events["sent"][0]
    shown = (origin + first) / 1000 - (wall - mono)  # the first result's moment on CDP's clock
    sent = [(rid, url) for rid, t, _, url in events["sent"] if t <= shown]
    done = [events["done"][rid] for rid, _ in sent if rid in events["done"] and events["done"][rid][0] <= shown]
    return {"first_ms": first, "requests": len(sent), "bytes": sum(size for _, size in done),
            "files": [urlsplit(u).path.removeprefix(PREFIX) for _, u in sent], "page": page}


def follow_ups(page, words: list[str]) -> list[float]:
    """Milliseconds from typing each of ``words`` into ``#search-input`` (an ``input`` event) to the first
    result shown, on the loaded ``page``, one after the other (queries with no result within 30 s left out)."""
    times = [page.evaluate(FOLLOW_UP, w) for w in words]
    return [t for t in times if t is not None]


def typed_follow_ups(page, words: list[str]) -> list[float]:
    """Milliseconds from the last key of each of ``words``, typed key by key into ``#search-input`` of the loaded
    ``page`` (:data:`TYPED_FOLLOW_UP`), to its results drawn; words never drawn left out."""
    times = [page.evaluate(TYPED_FOLLOW_UP, [w, KEY_DELAY_MS]) for w in words]
    return [t for t in times if t is not None]


def measure_search(site: Path, queries: dict[str, list[str]], pagefind: bool = True) -> dict:
    """Both tools' figures for every query (see the module's docstring): ``{"queries": [{"kind", "q", "ours",
    "pagefind"}], "follow_up": {"ours": [ms], "pagefind": [ms]}}``; ours alone when not ``pagefind``."""
    from browser import chromium_context
    from urllib.parse import quote

    server = serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"
    pages = {"ours": "search.html", "pagefind": "pagefind-bench.html"}
    if not pagefind:
        del pages["pagefind"]
    out: dict = {"queries": [], "follow_up": {}}
    try:
        with chromium_context() as context:
            context.add_init_script(FIRST_RESULT_SCRIPT)
            first_q = queries["one-word common"][0]
            for name, path in pages.items():  # warm the server's gzip cache (unthrottled figures not kept)
                warm = context.new_page()
                warm.goto(f"{base}{path}?q={quote(first_q)}", wait_until="commit", timeout=0)
                warm.wait_for_function("window.__firstResult !== null", timeout=0, polling=500)
                warm.close()
            for kind, words in queries.items():
                for q in words if kind != "follow-up" else []:
                    row = {"kind": kind, "q": q}
                    for name, path in pages.items():
                        row[name] = first_result(context, f"{base}{path}?q={quote(q)}")
                        row[name].pop("page").close()
                    out["queries"].append(row)
                    print(f"{q!r}: " + ", ".join(f"{name} {row[name]['first_ms']:.0f} ms" for name in pages),
                          file=sys.stderr, flush=True)
            for name, path in pages.items():
                loaded = first_result(context, f"{base}{path}?q={quote(first_q)}")
                out["follow_up"][name] = follow_ups(loaded["page"], queries["follow-up"])
                out.setdefault("typed", {})[name] = typed_follow_ups(loaded["page"], queries["follow-up"])
                loaded["page"].close()
    finally:
        server.shutdown()
    return out


# -- the report -------------------------------------------------------------------------------------

def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "–"


def search_table(result: dict) -> str:
    """The per-query Markdown table: bytes (kB, compressed), requests and first result (ms), ours / Pagefind
    (Pagefind's columns NaN when it was not measured)."""
    missing = {"bytes": float("nan"), "requests": float("nan"), "first_ms": float("nan")}
    result = {**result, "queries": [{"pagefind": missing, **row} for row in result["queries"]]}
    lines = ["| query | kind | kB ours / Pagefind (ratio) | requests ours / Pagefind | first result ms ours / Pagefind (ratio) |",
             "|---|---|---:|---:|---:|"]
    for row in result["queries"]:
        o, p = row["ours"], row["pagefind"]
        lines.append(f"| `{row['q']}` | {row['kind']} | {o['bytes'] / 1e3:,.0f} / {p['bytes'] / 1e3:,.0f} "
                     f"({_ratio(o['bytes'], p['bytes'])}) | {o['requests']} / {p['requests']} | "
                     f"{o['first_ms']:,.0f} / {p['first_ms']:,.0f} ({_ratio(o['first_ms'], p['first_ms'])}) |")
    med = {k: {f: statistics.median(r[k][f] for r in result["queries"]) for f in ("bytes", "requests", "first_ms")}
           for k in ("ours", "pagefind")}
    o, p = med["ours"], med["pagefind"]
    lines.append(f"| **median** | | {o['bytes'] / 1e3:,.0f} / {p['bytes'] / 1e3:,.0f} ({_ratio(o['bytes'], p['bytes'])}) "
                 f"| {o['requests']:.0f} / {p['requests']:.0f} | {o['first_ms']:,.0f} / {p['first_ms']:,.0f} "
                 f"({_ratio(o['first_ms'], p['first_ms'])}) |")
    fo, fp = (result["follow_up"].get(k) or [float("nan")] for k in ("ours", "pagefind"))
    lines.append(f"| **typed follow-up**, median of {len(fo)} / {len(fp)} | | | | "
                 f"{statistics.median(fo):,.0f} / {statistics.median(fp):,.0f} "
                 f"({_ratio(statistics.median(fo), statistics.median(fp))}) |")
    to, tp = ((result.get("typed") or {}).get(k) or [float("nan")] for k in ("ours", "pagefind"))
    lines.append(f"| **follow-up typed key by key** ({KEY_DELAY_MS} ms a key), last key to its results, median of "
                 f"{len(to)} / {len(tp)} | | | | {statistics.median(to):,.0f} / {statistics.median(tp):,.0f} "
                 f"({_ratio(statistics.median(to), statistics.median(tp))}) |")
    return "\n".join(lines)


def build_table(figures: dict, pagefind: dict | None) -> str:
    """The build's figures as a Markdown table."""
    rows = [("papers", f"{figures['papers']:,}"),
            ("cold build, wall / CPU", f"{figures['wall_s']:.1f} s / {figures['cpu_s']:.1f} s"),
            ("peak PSS of the process tree / peak RSS of the largest process",
             "–" if figures.get("tree_pss_mb") is None else f"{figures['tree_pss_mb']:,.0f} MiB / {figures['max_rss_mb']:,.0f} MiB"),
            ("output on disk, total / a paper", f"{figures['output_bytes'] / 1e6:,.1f} MB / {figures['bytes_per_paper'] / 1e3:.1f} kB"),
            ("1-min load average before / after", f"{figures['load_before']:.1f} / {figures['load_after']:.1f}")]
    if pagefind:
        rows.append(("Pagefind: indexing the paper pages, wall; pages; its files",
                     f"{pagefind['wall_s']:.1f} s; {pagefind['pages']:,}; {pagefind['files']:,}, {pagefind['bytes'] / 1e6:.1f} MB"))
    return "| | |\n|---|---:|\n" + "\n".join(f"| {a} | {b} |" for a, b in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The search page against Pagefind, throttled; and the build at N papers.")
    parser.add_argument("n", type=int, nargs="?", default=10_000, help="papers to build (default 10,000)")
    parser.add_argument("--site", type=Path, help="measure this built site instead of building one")
    parser.add_argument("--no-browser", action="store_true", help="build only (and Pagefind's index)")
    parser.add_argument("--per-kind", type=int, default=None,
                        help="measure only the first K queries of each kind (at 100,000 papers a load of the "
                             "whole index takes about a minute at 10 Mbit/s)")
    parser.add_argument("--reuse-pagefind", action="store_true",
                        help="with --site: keep the site's Pagefind index when it has one (at 100,000 papers "
                             "Pagefind takes minutes and 11 GB)")
    parser.add_argument("--no-pagefind", action="store_true",
                        help="measure our search only (Pagefind's figures at 100,000 papers are in BENCHMARKS.md)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    from site_builder.corpus import require_corpus

    report: dict = {}
    if args.site:
        site = args.site.resolve()
    else:
        site, report["build"] = build(args.n, require_corpus(args.corpus))
        print(build_table(report["build"], None), file=sys.stderr, flush=True)
    if args.no_pagefind:
        pass
    elif args.reuse_pagefind and (site / "pagefind" / "pagefind.js").is_file():
        (site / "pagefind-bench.html").write_text(PAGEFIND_PAGE, encoding="utf-8")
    else:
        report["pagefind_index"] = index_with_pagefind(site)
    titles = [p["title"] for p in json.loads((site / "papers.json").read_text(encoding="utf-8"))]
    report["queries"] = {kind: words if kind == "follow-up" else words[:args.per_kind]
                         for kind, words in choose_queries(titles).items()}
    if not args.no_browser:
        report["search"] = measure_search(site, report["queries"], pagefind=not args.no_pagefind)
    OUT.mkdir(parents=True, exist_ok=True)
    name = "search_bench.json" if not args.site else "search_bench_site.json"
    (OUT / name).write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
    if "build" in report:
        print(build_table(report["build"], report.get("pagefind_index")))
        print()
    if "search" in report:
        print(f"Chromium, {THROUGHPUT * 8 / 1e6:.0f} Mbit/s, {LATENCY_MS} ms latency, cache disabled, text gzipped; site {site}\n")
        print(search_table(report["search"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
