"""The preview server: paths, content types, 404, sub-path, live reload, watching and rebuilding."""

from __future__ import annotations

import argparse
import json
import re
import signal
import shutil
import socket
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from watchfiles import Change

from serving import ROOT, append_paper, copy_seeds, corpus_paper, one_line, raw_get, running, serve_process
from site_builder import pipeline
from site_builder.config import ConfigError, load_config
from site_builder.serve import LIVERELOAD_PATH, Preview, SiteState, Sources, classify_changes, format_error, inject_live_reload, make_server, resolve_request, sources_from_args

SECRET = "top secret, outside the site"


@pytest.fixture(scope="module")
def served(tmp_path_factory, seed_site) -> Path:
    """A copy of the seed site with extra files (non-ASCII name, SVG, WOFF2) and a secret beside it."""
    base = tmp_path_factory.mktemp("served")
    site = base / "site"
    shutil.copytree(seed_site, site)
    (base / "secret.txt").write_text(SECRET, encoding="utf-8")
    (site / "assets" / "données 論文.txt").write_text("naïve café 論文\n", encoding="utf-8")
    (site / "assets" / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n')
    (site / "assets" / "font.woff2").write_bytes(b"wOF2" + bytes(60))
    (site / "assets" / "escape").symlink_to(base / "secret.txt")
    return site


def test_content_types(served):
    expected = {
        "index.html": "text/html; charset=utf-8",
        "assets/style.css": "text/css; charset=utf-8",
        "assets/search.js": "text/javascript; charset=utf-8",
        "papers.json": "application/json",
        "feed.xml": "application/xml",
        "assets/logo.svg": "image/svg+xml",
        "assets/font.woff2": "font/woff2",
    }
    with running(make_server(served, "127.0.0.1", 0, "/")) as port:
        for path, ctype in expected.items():
            status, headers, body = raw_get(port, ("/" + path).encode())
            assert (status, headers["content-type"]) == (200, ctype), path
            assert body == (served / path).read_bytes(), path


def test_non_ascii_file_name(served):
    name = "assets/données 論文.txt"
    with running(make_server(served, "127.0.0.1", 0, "/repo/")) as port:
        status, headers, body = raw_get(port, ("/repo/" + quote(name)).encode("ascii"))
    assert status == 200 and headers["content-type"] == "text/plain; charset=utf-8"
    assert body.decode("utf-8") == "naïve café 論文\n"


def test_missing_page_is_the_site_404_with_status_404(served):
    with running(make_server(served, "127.0.0.1", 0, "/repo/")) as port:
        for target in (b"/repo/papers/no-such-paper.html", b"/repo/a/b/c/d", b"/elsewhere.html"):
            status, headers, body = raw_get(port, target)
            assert status == 404, target
            assert headers["content-type"] == "text/html; charset=utf-8"
            assert body == (served / "404.html").read_bytes()


@pytest.mark.parametrize("target", [
    b"/repo/../secret.txt",
    b"/repo/../../../../etc/passwd",
    b"/repo/%2e%2e/secret.txt",
    b"/repo/%2E%2E/%2e%2e/etc/passwd",
    b"/repo/..%2fsecret.txt",
    b"/repo/%252e%252e/secret.txt",
    b"/repo/%252e%252e%252fsecret.txt",
    b"//etc/passwd",
    b"/repo//etc/passwd",
    b"/repo/" + str(Path("/etc/passwd")).encode(),
    b"http://127.0.0.1/repo/../secret.txt",
    b"/repo/..\\secret.txt",
    b"/repo/%5c..%5csecret.txt",
    b"/repo/assets\\..\\..\\secret.txt",
    b"/repo/%00",
    b"/repo/index.html%00.txt",
    b"/repo/assets/escape",
    b"/repo/%c0%ae%c0%ae/secret.txt",
])
def test_never_serves_outside_the_site(served, target):
    with running(make_server(served, "127.0.0.1", 0, "/repo/")) as port:
        status, _, body = raw_get(port, target)
    assert status in (301, 404), target
    assert SECRET.encode() not in body and b"root:x:0:0" not in body


def test_resolve_request_stays_inside(served):
    root = served.resolve()
    for raw in ("/repo/../secret.txt", "/repo/%2e%2e/secret.txt", "/repo/a\\b", "/repo/\x00", "/repo/assets/escape"):
        target = resolve_request(root, "/repo/", raw)
        assert target is None or root in target.parents and not target.is_file(), raw
    assert resolve_request(root, "/repo/", "/repo/") == root / "index.html"
    assert resolve_request(root, "/repo/", "/repo/venues/icml-2025/") == root / "venues/icml-2025/index.html"


PATH_PARTS = st.sampled_from(["..", ".", "%2e%2e", "%2E.", "%252e%252e", "\\", "%5c", "%00", "/", "//", "%2f",
                               "assets", "papers", "escape", "secret.txt", "%c0%ae", "é", "%", "?", "#", "~"])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(PATH_PARTS, max_size=12), base=st.sampled_from(["/", "/repo/"]))
def test_resolve_request_never_leaves_the_root(served, parts, base):
    root = served.resolve()
    target = resolve_request(root, base, base + "/".join(parts))
    assert target is None or target == root / "index.html" or root in target.parents


def test_sub_path_redirects(served):
    with running(make_server(served, "127.0.0.1", 0, "/repo/")) as port:
        status, headers, _ = raw_get(port, b"/repo")
        assert (status, headers["location"]) == (301, "/repo/")
        status, headers, _ = raw_get(port, b"/repo?q=x")
        assert (status, headers["location"]) == (301, "/repo/?q=x")
        status, headers, _ = raw_get(port, b"/repo/venues/icml-2025")
        assert (status, headers["location"]) == (301, "/repo/venues/icml-2025/")
        status, _, body = raw_get(port, b"/repo/venues/icml-2025/")
        assert status == 200 and body == (served / "venues/icml-2025/index.html").read_bytes()
        status, headers, body = raw_get(port, b"/repo/", method=b"HEAD")
        assert status == 200 and body == b"" and int(headers["content-length"]) > 0
        status, headers, _ = raw_get(port, b"/")  # the host's root: to the site
        assert (status, headers["location"]) == (301, "/repo/")
        status, headers, _ = raw_get(port, b"/?q=x")
        assert (status, headers["location"]) == (301, "/repo/?q=x")


def test_a_path_after_a_file_name_is_not_found(served):
    page = next(p for p in sorted((served / "papers").iterdir()) if p.suffix == ".html")
    for base in ("/", "/repo/"):
        with running(make_server(served, "127.0.0.1", 0, base)) as port:
            status, _, body = raw_get(port, f"{base}papers/{page.name}".encode())
            assert status == 200 and body == page.read_bytes()
            for tail in ("/", "/x", "/x/"):
                status, _, body = raw_get(port, f"{base}papers/{page.name}{tail}".encode())
                assert status == 404 and body == (served / "404.html").read_bytes(), tail


def test_live_reload_script_only_in_served_html(served):
    built = (served / "index.html").read_bytes()
    assert b"EventSource" not in built and LIVERELOAD_PATH.encode() not in built
    with running(make_server(served, "127.0.0.1", 0, "/", live_reload=True)) as port:
        _, _, page = raw_get(port, b"/index.html")
        _, _, missing = raw_get(port, b"/missing.html")
        _, _, css = raw_get(port, b"/assets/style.css")
    assert b'new EventSource("/__livereload")' in page and page == inject_live_reload(built, 1)
    assert page.rfind(b"</body>") > page.rfind(b"EventSource")
    assert b"EventSource" in missing
    assert css == (served / "assets/style.css").read_bytes()
    assert not any(b"EventSource" in p.read_bytes() for p in served.rglob("*.html"))


def _events(port: int):
    """Yield the JSON data of each event of the live-reload stream."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"GET /__livereload HTTP/1.0\r\n\r\n")
    stream = sock.makefile("rb")
    try:
        for line in stream:
            if line.startswith(b"data: "):
                yield json.loads(line[6:])
    finally:
        stream.close()
        sock.close()


def test_event_stream_reports_generations_and_errors(served):
    state = SiteState(served)
    with running(make_server(state, "127.0.0.1", 0, "/", live_reload=True)) as port:
        events = _events(port)
        assert next(events) == {"generation": 1, "error": None}
        state.fail("seeds/x.txt:3: error: broken")
        assert next(events) == {"generation": 1, "error": "seeds/x.txt:3: error: broken"}
        state.publish()
        assert next(events) == {"generation": 2, "error": None}
        events.close()


# --- watching and rebuilding, driven by handing changes in directly (no real waits) -------------

@pytest.fixture
def preview(tmp_path):
    """A Preview over temporary copies of the seeds, config and assets, built once."""
    seeds, config = copy_seeds(tmp_path)
    assets = tmp_path / "assets"
    shutil.copytree(pipeline.ASSETS, assets)
    sources = Sources(seeds, config, pipeline.TEMPLATES, assets)
    work = tmp_path / "work"
    work.mkdir()
    prev = Preview(argparse.Namespace(base_url=None, strict=False), sources, work)
    state, _ = prev.start()
    assert state is not None
    return prev


def test_classify_changes(preview):
    s = preview.sources
    assert classify_changes({(Change.modified, str(s.seeds / "000_3c4c43013b737622.txt"))}, s).kind == "full"
    assert classify_changes({(Change.added, str(s.seeds / "overrides.toml"))}, s).kind == "full"
    assert classify_changes({(Change.modified, str(s.config))}, s).kind == "full"
    assert classify_changes({(Change.modified, str(s.templates / "base.html"))}, s).kind == "full"
    plan = classify_changes({(Change.modified, str(s.assets / "style.css"))}, s)
    assert (plan.kind, plan.assets) == ("assets", ((s.assets / "style.css").resolve(),))
    both = {(Change.modified, str(s.assets / "style.css")), (Change.modified, str(s.config))}
    assert classify_changes(both, s).kind == "full"
    for ignored in (s.seeds / ".000.txt.swp", s.seeds / "notes.md", s.config.parent / "other.toml",
                    s.assets / "style.css~", s.seeds / "000_3c4c43013b737622.txt~"):
        assert classify_changes({(Change.modified, str(ignored))}, s).kind == "none", ignored


def test_asset_change_copies_only_the_assets(preview):
    root, generation, _ = preview.state.snapshot()
    before = {p: p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}
    style = preview.sources.assets / "style.css"
    style.write_text(style.read_text(encoding="utf-8") + "\n.changed-by-test { color: red; }\n", encoding="utf-8")
    plan = preview.handle({(Change.modified, str(style))})
    assert plan.kind == "assets"
    new_root, new_generation, error = preview.state.snapshot()
    assert (new_root, new_generation, error) == (root, generation + 1, None)
    assert (root / "assets/style.css").read_bytes() == style.read_bytes()
    changed = sorted(p.relative_to(root).as_posix() for p, t in before.items() if p.stat().st_mtime_ns != t)
    assert changed == ["assets/style.css"]
    assert sorted(p.name for p in preview.workdir.iterdir()) == ["site-1"]


def test_list_change_rebuilds_into_a_new_folder_and_swaps(preview):
    root = preview.state.snapshot()[0]
    count = len(json.loads((root / "papers.json").read_text(encoding="utf-8")))
    record = corpus_paper("AISTATS", 2025)
    list_file = preview.sources.seeds / "003_7bfb54ea2f2037fe.txt"
    append_paper(list_file, record)
    assert preview.handle({(Change.modified, str(list_file))}).kind == "full"
    new_root, generation, error = preview.state.snapshot()
    assert new_root != root and error is None and generation == 2
    papers = json.loads((new_root / "papers.json").read_text(encoding="utf-8"))
    assert len(papers) == count + 1 and any(p["abstract"] == one_line(record["abstract"]) for p in papers)
    assert root.is_dir()  # the previous folder stays for requests in flight


def test_failed_rebuild_keeps_the_last_good_site(preview):
    root, generation, _ = preview.state.snapshot()
    config = preview.sources.config
    good = config.read_text(encoding="utf-8")
    config.write_text(good + "\n[broken\n", encoding="utf-8")
    preview.handle({(Change.modified, str(config))})
    assert preview.state.snapshot()[:2] == (root, generation)
    assert str(config) in preview.state.error and "not valid TOML" in preview.state.error
    # An input error: a list whose heading names no venue, without a config entry.
    config.write_text(good.replace('[lists."003_7bfb54ea2f2037fe.txt"]', "[lists.\"other.txt\"]"), encoding="utf-8")
    preview.handle({(Change.modified, str(config))})
    assert preview.state.snapshot()[:2] == (root, generation)
    assert "003_7bfb54ea2f2037fe.txt:" in preview.state.error and ": error: " in preview.state.error
    config.write_text(good, encoding="utf-8")
    preview.handle({(Change.modified, str(config))})
    assert preview.state.error is None and preview.state.snapshot()[1] == generation + 1
    with running(make_server(preview.state, "127.0.0.1", 0, "/")) as port:
        assert raw_get(port, b"/index.html")[0] == 200


# --- the command, end to end -------------------------------------------------------------------

def test_serve_command_live_reload_round_trip(tmp_path, page):
    """``build.py serve`` on a free port under /repo/: a list edit shows in the open page, a broken
    config shows its error over the last good site, a fix reloads; ``_site/`` is never written."""
    seeds, config = copy_seeds(tmp_path)
    project_site = ROOT / "_site"
    before = project_site.stat().st_mtime_ns if project_site.exists() else None
    with serve_process("--seeds", str(seeds), "--config", str(config), "--base-path", "/repo/", cwd=tmp_path) as (url, _):
        assert url.endswith("/repo/") and ":0/" not in url
        page.goto(url)
        papers = int(re.search(r"(\d+) papers in \d+ venues", page.locator("main").inner_text()).group(1))
        append_paper(seeds / "003_7bfb54ea2f2037fe.txt", corpus_paper("AISTATS", 2025))
        page.wait_for_function(f"document.querySelector('main').innerText.includes('{papers + 1} papers in')",
                               timeout=10_000)
        good = config.read_text(encoding="utf-8")
        config.write_text(good + "\n[broken\n", encoding="utf-8")
        page.wait_for_selector("#livereload-error", timeout=10_000)
        overlay = page.locator("#livereload-error").inner_text()
        assert "not valid TOML" in overlay and str(config) in overlay
        assert f"{papers + 1} papers in" in page.locator("main").inner_text()
        config.write_text(good, encoding="utf-8")
        page.wait_for_function("!document.getElementById('livereload-error')", timeout=10_000)
        page.screenshot(path=str(tmp_path / "live-reload.png"))
    assert not (tmp_path / "_site").exists()
    assert (project_site.stat().st_mtime_ns if project_site.exists() else None) == before


def test_sigterm_stops_the_server_and_removes_its_temporary_folder(tmp_path):
    """``kill`` (SIGTERM) stops ``serve`` as Ctrl-C does: exit status 0 and no ``site-preview-*`` folder left."""
    seeds, config = copy_seeds(tmp_path)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    with serve_process("--seeds", str(seeds), "--config", str(config), cwd=tmp_path,
                       env={"TMPDIR": str(temporary)}) as (url, proc):
        assert [p.name for p in temporary.iterdir() if p.name.startswith("site-preview-")]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    assert not list(temporary.iterdir())


def test_serve_on_a_busy_port_is_a_clear_error(capsys):
    import socket

    from conftest import CONFIG, SEEDS
    from site_builder.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        status = main(["serve", "--seeds", str(SEEDS), "--config", str(CONFIG), "--port", str(port)])
    assert status == 2
    assert f"error: cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err


def test_a_config_typo_is_one_diagnostic_in_the_overlay(tmp_path):
    config = tmp_path / "site.toml"
    config.write_text('title = "Reading"\n[default]\nvenu = "COLM"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    line = format_error(caught.value)
    assert line.startswith(f"{config}:3: error: unknown key 'venu'")
    assert line.count("error:") == 1


def test_a_reference_file_the_config_names_is_watched(tmp_path):
    """Reference files (site.toml's ``reference``) may sit outside the lists folder: their folder is watched and
    a change to one rebuilds; another file beside it does not."""
    refs = tmp_path / "refs"
    refs.mkdir()
    config = tmp_path / "site.toml"
    config.write_text('[lists."a.txt"]\nreference = ["refs/iclr.json"]\n', encoding="utf-8")
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    sources = sources_from_args(argparse.Namespace(seeds=str(seeds), config=str(config)))
    assert sources.references == (refs / "iclr.json",)
    assert refs.resolve() in sources.watch_roots() or tmp_path.resolve() in sources.watch_roots()
    assert classify_changes({(Change.modified, str(refs / "iclr.json"))}, sources).kind == "full"
    assert classify_changes({(Change.modified, str(refs / "other.json"))}, sources).kind == "none"
    assert classify_changes({(Change.modified, str(seeds / "list.bib"))}, sources).kind == "full"
