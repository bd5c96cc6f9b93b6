"""Benchmark: cold and incremental builds of the first N corpus papers, against lunr.py alone.

Usage (from the repository root; writes under ``bench/out/``, git-ignored)::

    PYTHONPATH=$PWD .venv/bin/python bench/run.py                      # N = 1000, 5000, 10000
    PYTHONPATH=$PWD .venv/bin/python bench/run.py --sizes 1000 --no-browser

Needs the full corpus (``../shared/corpus/papers.jsonl`` or ``$PAPERS_CORPUS``; else exit status 2) and lunr.py,
the baseline: the ``bench`` extra (``bash scripts/venv.sh bench``).

For each N it writes the lists (see ``bench/lists.py``), then runs, each as a
subprocess of this script:

1. the naive baseline: lunr.py's ``lunr()`` over the same fields of the same
   papers (title, authors, track, abstract text, boosts 10/3/2/1), alone, in
   one process (reading the lists and rendering the abstracts is done first
   and not timed);
2. a cold build (``python build.py``, empty cache, no output folder);
3. a rebuild with nothing changed, and a rebuild after one abstract changed
   (same output folder and cache, as ``python build.py`` twice would);
4. the cold build and the one-abstract rebuild again with the search index
   stubbed out (``--build-without-index``), to show what the rest costs;

and measures wall time (``time.perf_counter``), CPU time (user + system of
the build and its worker processes, from ``os.wait4``), the peak RSS of the
largest single process (``ru_maxrss``), the peak sum of RSS over the
build's process tree (sampled from ``/proc`` every 20 ms; a page shared by
forked processes counts once in each, so the sum overstates the memory used),
the peak sum of PSS over the tree (``/proc/<pid>/smaps_rollup``: a shared page
counts once in all; sampled only while the RSS sum exceeds the PSS peak so far,
at most once a second: ~15 ms of CPU per sample at 10,000 papers), output size, and index bytes per paper
(the files of ``search/``, the sharded index: raw and gzip level 6, each file alone).

Before any build it byte-compiles ``site_builder`` (``compileall``): a user's
Python keeps the ``.pyc`` files after its first run, but with
``PYTHONDONTWRITEBYTECODE`` set (as on the team's machine) each measured build
would otherwise compile the package again (~0.1 s of every build).

At every N it opens ``search.html`` from ``file://`` in headless
Chromium (``tests/browser.py``) and measures, in the page with
``performance.now()``: the time from navigation start to the first result of
a query (median of 3 loads), and the median time of 50 further queries. A
query is typed into the search field with an ``input`` event when the page
searches as you type; otherwise (search on submit only) the engine alone is
timed: ``index.search(q)`` per query on the page's index.

Prints a Markdown table and writes ``bench/out/results.json``.
No assertion: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from lists import CORPUS, distinct_copies, load_corpus, write_lists  # noqa: E402
from site_builder.corpus import require_corpus  # noqa: E402

OUT = ROOT / "bench" / "out"
STOP = set("a an and are as at be by for from in into is it of on or the to with via using towards toward "
           "learning based model models".split())


# -- measuring a subprocess -------------------------------------------------------------------------

#: Seconds between two samples of the process tree's RSS (``/proc/<pid>/status``, cheap).
RSS_INTERVAL = 0.02
#: At least this many seconds between two samples of its PSS (``/proc/<pid>/smaps_rollup``: the kernel walks
#: the process's page tables, ~8 ms of CPU for a 600 MB process, ~15 ms for a 10,000-paper build's tree).
PSS_INTERVAL = 1.0


def _tree(root: int) -> list[int]:
    """Process ``root`` and its descendants (pids), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo += children.get(pid, [])
    return pids


def proc_field(path: str, name: str) -> int | None:
    """The ``name: <n> kB`` line of the /proc file ``path``, in bytes; None when the file or line is missing."""
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith(name):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        return None
    return None


def _tree_rss(pids: list[int]) -> int:
    """Sum of VmRSS (bytes) of ``pids`` (a page shared by several processes counts once in each)."""
    return sum(proc_field(f"/proc/{pid}/status", "VmRSS:") or 0 for pid in pids)


def _tree_pss(pids: list[int]) -> int | None:
    """Sum of PSS (bytes) of ``pids``: Proportional Set Size, a page shared by k processes counting 1/k in
    each, so the sum is what the processes really use (``/proc/<pid>/smaps_rollup``, Linux 4.14+,
    https://www.kernel.org/doc/html/latest/filesystems/proc.html). None when no process's could be read."""
    values = [proc_field(f"/proc/{pid}/smaps_rollup", "Pss:") for pid in pids]
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def measure(argv: list[str], env: dict | None = None) -> dict:
    """Run ``argv``; return wall and CPU seconds, peak RSS (largest process, and tree sum), peak PSS of the
    tree and output.

    The tree's RSS is sampled every :data:`RSS_INTERVAL` seconds. Its PSS is sampled only when the RSS
    sum exceeds the highest PSS so far (PSS never exceeds RSS, so no other sample can raise the peak),
    at most every :data:`PSS_INTERVAL` seconds; the samples' count and CPU time are reported
    (``pss_samples``, ``pss_sampling_s``), as the sampler shares the cores with the build."""
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = {"rss": 0, "pss": None, "pss_samples": 0, "pss_sampling_s": 0.0}
    done = threading.Event()

    def sample():
        last_pss = -PSS_INTERVAL
        while not done.wait(RSS_INTERVAL):
            pids = _tree(proc.pid)
            rss = _tree_rss(pids)
            peak["rss"] = max(peak["rss"], rss)
            now = time.perf_counter()
            if rss > (peak["pss"] or 0) and now - last_pss >= PSS_INTERVAL:
                last_pss, cpu = now, time.thread_time()
                pss = _tree_pss(pids)
                peak["pss_samples"] += 1
                peak["pss_sampling_s"] += time.thread_time() - cpu
                if pss is not None:
                    peak["pss"] = max(peak["pss"] or 0, pss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    # read pipes in threads so the child never blocks on a full pipe
    out: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda n=n, s=s: out.__setitem__(n, s.read()))
               for n, s in (("stdout", proc.stdout), ("stderr", proc.stderr))]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    for r in readers:
        r.join()
    proc.stdout.close()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = out["stderr"].decode("utf-8", "replace")
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{stderr[-3000:]}")
    stages = {m[1]: {"wall_s": float(m[2]), "cpu_s": float(m[3]), "items": int(m[4])}
              for m in re.finditer(r"^stage (.+): ([0-9.]+) s wall, ([0-9.]+) s CPU, ([0-9]+) items$", stderr, re.M)}
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_mb": usage.ru_maxrss / 1024,
            "stages": stages,
            "load_before": load_before, "load_after": os.getloadavg()[0],
            "tree_rss_mb": peak["rss"] / 2**20,
            "tree_pss_mb": None if peak["pss"] is None else peak["pss"] / 2**20,
            "pss_samples": peak["pss_samples"], "pss_sampling_s": peak["pss_sampling_s"],
            "stdout": out["stdout"].decode("utf-8", "replace"), "stderr": stderr}


def compile_package(package: Path = ROOT / "site_builder") -> None:
    """Byte-compile ``package`` (``compileall``, timestamp ``.pyc`` files in ``__pycache__``) before any
    build is measured: a user's Python keeps them after its first run, but with ``PYTHONDONTWRITEBYTECODE``
    set (as on the team's machine) every measured build would compile the whole package again (~0.1 s).
    Raises ``SystemExit`` when a module does not compile."""
    import compileall
    import py_compile

    if not compileall.compile_dir(str(package), quiet=1,
                                  invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP):
        raise SystemExit(f"{package} does not byte-compile")


# -- the naive baseline (runs in its own process) ----------------------------------------------------

def baseline(folder: Path) -> None:
    """Print JSON ``{"papers", "wall_s", "cpu_s"}`` of lunr.py's ``lunr()`` over the site model of ``folder``."""
    from lunr import lunr

    from site_builder.config import load_config
    from site_builder.diagnostics import Diagnostics
    from site_builder.model.site import build_site
    from site_builder.pipeline import list_files, load_overrides, read_lists

    config = load_config(folder / "site.toml")
    diagnostics = Diagnostics()
    seeds = folder / "seeds"
    site = build_site(read_lists(list_files(seeds), config, diagnostics), load_overrides(seeds, diagnostics),
                      config, diagnostics)
    documents = [{"ref": p.id, "title": p.title_text, "authors": " ".join(p.authors),
                  "track": p.track.label if p.track else "", "abstract": p.rendered.text} for p in site.papers]
    fields = [{"field_name": "title", "boost": 10}, {"field_name": "authors", "boost": 3},
              {"field_name": "track", "boost": 2}, {"field_name": "abstract"}]
    wall, cpu = time.perf_counter(), time.process_time()
    index = lunr(ref="ref", fields=fields, documents=documents)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    size = len(json.dumps(index.serialize(), separators=(",", ":")))
    print(json.dumps({"papers": len(documents), "wall_s": wall, "cpu_s": cpu, "index_bytes": size}))


# -- the build steps ---------------------------------------------------------------------------------

def build_argv(folder: Path, index: bool = True) -> list[str]:
    """``python build.py`` for ``folder``; without ``index``, this script's stand-in that skips the search index."""
    suffix = "" if index else "_noindex"
    program = ["build.py"] if index else [str(Path(__file__).resolve()), "--build-without-index"]
    return [sys.executable, *program, "--seeds", str(folder / "seeds"), "--config", str(folder / "site.toml"),
            "--out", str(folder / f"_site{suffix}"), "--cache", str(folder / f"cache{suffix}"), "--quiet"]


def build_without_index(argv: list[str]) -> int:
    """``python build.py argv`` with :func:`search.index_items` replaced by an empty index.

    Measures everything but the search index (the part being replaced by a
    faster builder), so the budget left for the index is visible.
    """
    from site_builder import cli
    from site_builder.output import search_index, workers

    def empty_index(site, store=None, models=None):  # the signature of workers.index_items
        return [(search_index.MANIFEST, "")]

    workers.index_items = empty_index
    cli.run(argv)  # ends the process as build.py does (cli.exit_now)
    return 0


def change_one_abstract(seeds: Path) -> None:
    """Edit one abstract of the largest list: append a sentence to its last paper."""
    path = max(sorted(seeds.glob("*.txt")), key=lambda p: p.stat().st_size)
    text = path.read_text(encoding="utf-8").rstrip("\n")
    path.write_text(text + " We also release our code.\n", encoding="utf-8")


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def queries(records: list[dict], count: int) -> list[str]:
    """``count`` distinct frequent title words of ``records`` (deterministic)."""
    words = Counter(w for r in records for w in re.findall(r"[a-z]{4,}", r["title"].lower()) if w not in STOP)
    return [w for w, _ in words.most_common(count * 2)][:count]


FIRST_RESULT_SCRIPT = """
(() => {
  window.__firstResult = null;
  const seen = () => {
    const list = document.getElementById('search-results');
    if (list && list.querySelector('li, a') && window.__firstResult === null) window.__firstResult = performance.now();
  };
  new MutationObserver(seen).observe(document, {childList: true, subtree: true});
})();
"""

LIVE_QUERY = """async (q) => {
  const input = document.getElementById('search-input');
  const results = document.getElementById('search-results');
  return await new Promise((resolve) => {
    const t0 = performance.now();
    const obs = new MutationObserver(() => {
      if (results.querySelector('li, a')) { obs.disconnect(); resolve(performance.now() - t0); }
    });
    obs.observe(results, {childList: true, subtree: true, characterData: true});
    input.value = q;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    setTimeout(() => { obs.disconnect(); resolve(null); }, 3000);
  });
}"""

ENGINE_QUERIES = """async (qs) => {
  const engine = window.SiteSearch.engine;  // the page's own sharded index: loads a query's shards first
  const out = [];
  for (const q of qs) {
    const t0 = performance.now(), found = await engine.search(window.SearchCore, q);
    out.push([performance.now() - t0, found.results.length]);
  }
  return out;
}"""


def browser(site: Path, words: list[str]) -> dict:
    """First-result time (median of 3 loads) and the median of 50 further queries, in headless Chromium.

    When the page fails (a JavaScript error, or no result within 60 s) the
    result is ``{"error": message}`` instead.
    """
    from browser import chromium_context
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    url = (site / "search.html").resolve().as_uri()
    first_times = []
    errors: list[str] = []
    with chromium_context() as context:
        context.add_init_script(FIRST_RESULT_SCRIPT)
        try:
            for _ in range(3):
                page = context.new_page()
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.goto(f"{url}?q={words[0]}", wait_until="commit")
                for _ in range(120):  # up to 60 s, stopping at the first page error
                    if errors:
                        return {"error": f"page error: {errors[0]}"}
                    if page.evaluate("window.__firstResult !== null"):
                        break
                    page.wait_for_timeout(500)
                else:
                    raise PlaywrightTimeout("no first result")
                first_times.append(page.evaluate("window.__firstResult"))
                page.close()
        except PlaywrightTimeout:
            return {"error": f"no result for {words[0]!r} within 60 s; page errors: {errors or 'none'}"}
        page = context.new_page()
        page.goto(f"{url}?q={words[0]}")
        page.wait_for_function("window.__firstResult !== null", timeout=60_000)
        probe = page.evaluate(LIVE_QUERY, words[1])
        engine = [t for t, _ in page.evaluate(ENGINE_QUERIES, words[1:])]
        if probe is not None:
            mode = "as-you-type (input event → first result in the list, the page searches on the next task, no debounce)"
            times = [page.evaluate(LIVE_QUERY, w) for w in words[1:]]
            times = [t for t in times if t is not None]
        else:
            mode = "engine only (index.search; the page searches on submit)"
            times = engine
        page.close()
    return {"first_result_ms": statistics.median(first_times), "first_result_each_ms": first_times,
            "query_median_ms": statistics.median(times), "query_max_ms": max(times), "queries": len(times),
            "query_mode": mode, "engine_median_ms": statistics.median(engine), "engine_max_ms": max(engine)}


def run_size(n: int, records: list[dict], with_browser: bool, save=lambda result: None) -> dict:
    folder = OUT / f"n{n}"
    shutil.rmtree(folder, ignore_errors=True)
    write_lists(records[:n], folder / "seeds", folder / "site.toml")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SITE_BUILDER_TIMINGS": "1"}  # stage timings on stderr
    result: dict = {"n": n}
    base = measure([sys.executable, str(Path(__file__).resolve()), "--baseline", str(folder)], env)
    result["baseline"] = json.loads(base["stdout"])
    print(f"N={n}: lunr.py alone {result['baseline']['wall_s']:.1f}s", file=sys.stderr, flush=True)
    cold = measure(build_argv(folder), env)
    result["cold"] = {k: v for k, v in cold.items() if k not in ("stdout", "stderr")}
    print(f"N={n}: cold build {cold['wall_s']:.1f}s", file=sys.stderr, flush=True)
    cold = measure(build_argv(folder, index=False), env)
    result["cold_without_index"] = {k: v for k, v in cold.items() if k not in ("stdout", "stderr")}
    same = measure(build_argv(folder), env)
    result["rebuild_unchanged"] = {k: v for k, v in same.items() if k not in ("stdout", "stderr")}
    change_one_abstract(folder / "seeds")
    changed = measure(build_argv(folder), env)
    result["rebuild_one_abstract"] = {k: v for k, v in changed.items() if k not in ("stdout", "stderr")}
    changed = measure(build_argv(folder, index=False), env)
    result["rebuild_one_abstract_without_index"] = {k: v for k, v in changed.items() if k not in ("stdout", "stderr")}
    site = folder / "_site"
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    index = [p.read_bytes() for p in sorted((site / "search").rglob("*.js"))]
    result.update({
        "papers": len(papers),
        "files": sum(1 for p in site.rglob("*") if p.is_file()),
        "output_bytes": folder_bytes(site),
        "index_bytes": sum(map(len, index)),
        "index_gzip_bytes": sum(len(gzip.compress(b, 6)) for b in index),
    })
    save(result)
    if with_browser:
        result["browser"] = browser(site, queries(records[:n], 51))
        print(f"N={n}: browser {result['browser']}", file=sys.stderr, flush=True)
    return result


PAGE_STAGES = ("planning pages", "page keys and reuse", "pages", "pages and search index")


def page_stage(run: dict, rendered: bool = False) -> str:
    """The page stage of one measured build (its ``SITE_BUILDER_TIMINGS`` lines), as table text."""
    stages = run.get("stages", {})
    parts = [stages[name] for name in PAGE_STAGES if name in stages]
    if not parts:
        return "–"
    text = f"{sum(p['wall_s'] for p in parts):.1f} s / {sum(p['cpu_s'] for p in parts):.1f} s"
    if rendered:
        text += f", {sum(stages[n]['items'] for n in ('pages', 'pages and search index') if n in stages):,}"
    return text


def wall_cpu(step: dict) -> str:
    """``"<wall> s / <CPU> s"`` of one measured step."""
    return f"{step['wall_s']:.1f} s / {step['cpu_s']:.1f} s"


def table(results: list[dict]) -> str:
    """The results as a Markdown table (one column per N)."""
    def row(label, fn):
        return f"| {label} | " + " | ".join(fn(r) for r in results) + " |"

    lines = ["| | " + " | ".join(f"N = {r['n']:,}" for r in results) + " |",
             "|---|" + "---:|" * len(results),
             row("papers in the site", lambda r: f"{r['papers']:,}"),
             row("lunr.py `lunr()` alone, wall / CPU", lambda r: wall_cpu(r['baseline'])),
             row("cold build, wall / CPU", lambda r: wall_cpu(r['cold'])),
             row("1-min load average around the cold build (2 cores)", lambda r: f"{r['cold']['load_before']:.1f} → {r['cold']['load_after']:.1f}"),
             row("**ratio** cold build wall / lunr.py wall", lambda r: f"**{r['cold']['wall_s'] / r['baseline']['wall_s']:.2f}**"),
             row("ratio cold build CPU / lunr.py CPU", lambda r: f"{r['cold']['cpu_s'] / r['baseline']['cpu_s']:.2f}"),
             row("cold build without the search index (stubbed), wall / CPU", lambda r: wall_cpu(r['cold_without_index'])),
             row("peak RSS, largest process / whole tree", lambda r: f"{r['cold']['max_rss_mb']:.0f} MB / {r['cold']['tree_rss_mb']:.0f} MB"),
             row("peak PSS, whole tree (a shared page counted once)", lambda r: "–" if r['cold'].get('tree_pss_mb') is None
                 else f"{r['cold']['tree_pss_mb']:.0f} MB"),
             row("rebuild, nothing changed (wall)", lambda r: f"{r['rebuild_unchanged']['wall_s']:.1f} s"),
             row("rebuild, one abstract changed (wall / CPU)", lambda r: wall_cpu(r['rebuild_one_abstract'])),
             row("**rebuild / cold** (wall)", lambda r: f"**{100 * r['rebuild_one_abstract']['wall_s'] / r['cold']['wall_s']:.0f} %**"),
             row("same without the search index (wall / CPU)", lambda r: wall_cpu(r['rebuild_one_abstract_without_index'])),
             row("rebuild / cold, both without the index (wall / CPU)", lambda r: f"{100 * r['rebuild_one_abstract_without_index']['wall_s'] / r['cold_without_index']['wall_s']:.0f} % / {100 * r['rebuild_one_abstract_without_index']['cpu_s'] / r['cold_without_index']['cpu_s']:.0f} %"),
             row("page stage without the index (planning, keys and reuse, pages), cold: wall / CPU",
                 lambda r: page_stage(r["cold_without_index"])),
             row("page stage without the index, one-abstract rebuild: wall / CPU, pages rendered",
                 lambda r: page_stage(r["rebuild_one_abstract_without_index"], rendered=True)),
             row("output files / size", lambda r: f"{r['files']:,} / {r['output_bytes'] / 1e6:.1f} MB"),
             row("search index (search/) raw / gzip", lambda r: f"{r['index_bytes'] / 1e6:.1f} MB / {r['index_gzip_bytes'] / 1e6:.1f} MB"),
             row("index bytes per paper, raw / gzip", lambda r: f"{r['index_bytes'] / r['papers']:,.0f} / {r['index_gzip_bytes'] / r['papers']:,.0f}")]
    if any("browser" in r for r in results):
        def first(r):
            b = r.get("browser")
            return "–" if b is None else "fails (see notes)" if "error" in b else f"{b['first_result_ms']:.0f} ms"

        def median(r):
            b = r.get("browser")
            return "–" if b is None or "error" in b else f"{b['query_median_ms']:.1f} ms"

        def engine(r):
            b = r.get("browser")
            return "–" if b is None or "engine_median_ms" not in b else f"{b['engine_median_ms']:.1f} ms"

        lines.append(row("Chromium: first result after opening search.html", first))
        lines.append(row("Chromium: median of 50 queries typed (input → results shown)", median))
        lines.append(row("Chromium: median of the same 50 queries, `index.search` alone", engine))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark cold and incremental builds against lunr.py alone.")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000])
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium measurements")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--baseline", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--browser-only", action="store_true",
                        help="only redo the Chromium measurements on the sites of the last run (bench/out/results.json)")
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--build-without-index"]:
        return build_without_index(argv[1:])
    args = parser.parse_args(argv)
    if args.baseline:
        baseline(args.baseline)
        return 0
    corpus = require_corpus(args.corpus)
    compile_package()
    records = distinct_copies(load_corpus(corpus, max(args.sizes)), max(args.sizes))  # copies above the corpus's size
    results: list[dict] = []
    if args.browser_only:
        results = json.loads((OUT / "results.json").read_text(encoding="utf-8"))
        for result in results:
            if result["n"] in args.sizes:
                result["browser"] = browser(OUT / f"n{result['n']}" / "_site", queries(records[:result["n"]], 51))
                print(f"N={result['n']}: browser {result['browser']}", file=sys.stderr, flush=True)
        (OUT / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
        print(table(results))
        return 0

    def save(partial: dict | None = None) -> None:
        OUT.mkdir(parents=True, exist_ok=True)
        done = results + ([partial] if partial is not None else [])
        (OUT / "results.json").write_text(json.dumps(done, indent=1), encoding="utf-8")

    for n in sorted(args.sizes):
        results.append(run_size(n, records, not args.no_browser, save))
        save()
    print(f"cores: {len(os.sched_getaffinity(0))}, load average before: see `uptime`; corpus: {args.corpus}")
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
