"""The command line: ``python build.py [options]`` and ``python build.py serve [options]``."""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
import threading
from pathlib import Path
from typing import NoReturn

from .config import ConfigError, resolve_config
from .pipeline import BuildError, build, keep_objects
from .progress import Progress, format_bytes
from .output.writer import CommittedInterrupt, OutputError, TemplateFailure

DEFAULT_CACHE = Path(".cache") / "site-builder"


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seeds", type=Path, default=Path("seeds"), help="folder of paper lists (default: seeds)")
    parser.add_argument("--config", type=Path, default=None, help="site config file (default: site.toml if present)")
    parser.add_argument("--base-url", default=None, help="absolute URL the site is hosted at, e.g. https://user.github.io/repo/")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument("--notes", type=Path, default=None,
                        help="folder of the curator's Markdown notes (default: notes/ beside the seeds, if present)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, metavar="DIR",
                        help=f"build cache folder, reused by the next build (default: {DEFAULT_CACHE})")
    parser.add_argument("--no-cache", dest="cache", action="store_const", const=None, help="build without the cache")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress and no summary line (diagnostics only)")


def make_parser() -> argparse.ArgumentParser:
    """The argument parser for the build command (``serve`` has its own, see :mod:`site_builder.serve`)."""
    parser = argparse.ArgumentParser(prog="build.py", description="Build the reading-list site from paper lists.",
                                     epilog="Run `build.py serve --help` for the preview server.")
    _common(parser)
    parser.add_argument("--out", type=Path, default=Path("_site"), help="output folder (default: _site)")
    parser.add_argument("--zip", type=Path, default=None, metavar="FILE",
                        help="also write the built site as one zip file (deterministic)")
    return parser


def make_serve_parser() -> argparse.ArgumentParser:
    """The argument parser for ``build.py serve``."""
    parser = argparse.ArgumentParser(prog="build.py serve", description="Build into a temporary folder and serve it.")
    _common(parser)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--base-path", default="/", help="serve the site under this path, e.g. /repo/")
    return parser


def kept(out: Path) -> str:
    """The end of a failure message: what became of the output folder ``out``."""
    return f"{out} left as it was" if out.exists() else f"nothing written to {out}"


def run_build(args: argparse.Namespace, out: Path) -> int:
    """Build with ``args`` into ``out``, print diagnostics to stderr, return the exit status."""
    try:
        config = resolve_config(args.config, args.base_url)
        if args.notes is not None and not args.notes.is_dir():
            raise BuildError(f"{args.notes}: no such folder of notes")
        progress = Progress(enabled=False if getattr(args, "quiet", False) else None)
        unused = config.unused_lists({p.name for p in args.seeds.iterdir()}) if args.seeds.is_dir() else []
        if unused and args.strict:
            print(*unused, f"build failed: {len(unused)} warning(s) with --strict; {kept(out)}", sep="\n",
                  file=sys.stderr)
            return 1
        zip_file = getattr(args, "zip", None)
        if zip_file and Path(zip_file).resolve().is_relative_to(Path(out).resolve()):
            raise BuildError(f"{zip_file}: the zip file is inside the output folder {out}, whose files each build "
                             f"replaces; write it outside (e.g. beside the output folder)")
        report = build(args.seeds, out, config, strict=args.strict, notes=args.notes,
                       cache=getattr(args, "cache", None), progress=progress)
    except (ConfigError, BuildError, OutputError) as exc:
        print(exc if getattr(exc, "located", False) else f"error: {exc}", file=sys.stderr)
        return 2
    except TemplateFailure as exc:
        print(f"{exc}; {kept(out)}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write the site: {exc}; {kept(out)}", file=sys.stderr)
        return 2
    except CommittedInterrupt:
        print(f"interrupted as the build finished: {out} holds the new site", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"interrupted; {kept(out)}", file=sys.stderr)
        return 130
    for diagnostic in [*unused, *report.diagnostics.in_order()]:
        print(diagnostic, file=sys.stderr)
    errors, warnings = len(report.diagnostics.errors), len(report.diagnostics.warnings) + len(unused)
    if report.files == 0:
        why = f"{errors} error(s)" if errors else f"{warnings} warning(s) with --strict"
        print(f"build failed: {why}; {kept(out)}", file=sys.stderr)
        return 1
    if not getattr(args, "quiet", False):
        reused = f", {report.reused} reused" if report.reused else ""
        found = report.references
        matched = (f"; {found.matched} of {found.matched + found.unmatched} papers matched a reference "
                   f"({found.near} nearly)" if found is not None and found.matched + found.unmatched else "")
        print(f"built {report.paper_count} paper{'' if report.paper_count == 1 else 's'}, {report.pages} pages, {report.files} files{reused} into {out}; "
              f"index {format_bytes(report.index_bytes)}{matched}; {report.seconds:.1f}s; {warnings} warning(s)", file=sys.stderr)
    if getattr(args, "zip", None):
        from .output.archive import write_zip
        try:
            count = write_zip(out, args.zip, report.updated)
        except OSError as exc:
            print(f"{args.zip}: error: cannot write the zip: {exc.strerror or exc}", file=sys.stderr)
            return 2
        if not getattr(args, "quiet", False):
            print(f"wrote {count} files into {args.zip} (the site's, without the build's own marker file)",
                  file=sys.stderr)
    return 0


def exit_now(status: int) -> NoReturn:
    """End this process with exit status ``status`` without the interpreter's teardown.

    Does what a normal exit does that has an effect outside the process: the :mod:`atexit` functions
    run (:mod:`multiprocessing` reaps its children there, :func:`weakref.finalize` callbacks run), then
    ``sys.stdout`` and ``sys.stderr`` are flushed; then :func:`os._exit`. What is skipped is freeing
    every object one by one, ~0.1 s after a 10,000-paper build (its model is millions of objects).
    Every file the build writes is closed before it returns (``os.write`` on a descriptor, ``with``
    blocks), so nothing is lost. A failed flush of ``sys.stdout`` (e.g. a closed pipe) turns status 0
    into 120, as Python's own exit does. With threads other than the main one still running, this is
    a normal exit (``sys.exit``), which waits for them.
    """
    if threading.active_count() > 1:
        sys.exit(status)
    atexit._run_exitfuncs()  # noqa: SLF001 (what Py_FinalizeEx runs first; no public equivalent)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout and status == 0:
                status = 120
    os._exit(status)


def run(argv: list[str] | None = None) -> NoReturn:
    """The process entry point of ``build.py``: :func:`main` with ``argv`` (default ``sys.argv[1:]``), then exit.

    A build runs without the cyclic garbage collector (as :func:`site_builder.pipeline.build` does
    anyway; ``build.py`` turns it off before the imports, which saves their collections), leaves its
    objects alive (:func:`site_builder.pipeline.keep_objects`) and ends with :func:`exit_now`, so the
    model is never freed object by object; ``serve`` turns the collector on and exits normally.
    """
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        gc.enable()
        sys.exit(main(argv))
    gc.disable()
    keep_objects()
    exit_now(main(argv))


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse ``argv`` (default ``sys.argv[1:]``) and run; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        from .serve import serve
        return serve(make_serve_parser().parse_args(argv[1:]))
    args = make_parser().parse_args(argv)
    return run_build(args, args.out)
