"""The build: read lists → site model → pages, index and assets → output folder."""

from __future__ import annotations

import gc
import shutil
import tomllib
from dataclasses import astuple, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import jinja2

from .incremental import lists as listcache, unchanged
from .model import urls
from . import parallel
from .output.abstracts import write_abstract_files
from .output.bibfiles import write_bib_files
from .output.papersjson import write_papers_json
from .output.mapdata import write_map_data
from .incremental.cache import BuildCache, CacheChanges
from .incremental.memo import paper_work
from .incremental.outputs import files_not_as_recorded, read_manifest
from .incremental.digest import code_version, content_digest
from . import i18n
from .config import SiteConfig, toml_error_location
from .diagnostics import Diagnostic, Diagnostics
from .output.feeds import DateError, build_time, rfc3339
from .output.hosting import write_hosting_files
from .model.site import OVERRIDABLE, Site, build_site
from .pages.plan import common_context, outline_pages
from .progress import Progress
from .read import formats
from .read.reference import Matched, ReferenceIndex, fill
from .read.plaintext import Entry
from .output.search_index import IndexRun
from .output.rendering import PageReuse, write_pages
from .output.writer import CommittedInterrupt, Output, OutputError, make_environment, unrecorded_names

if TYPE_CHECKING:
    from .model.library import Library, build_library, place_papers


def _import_library() -> None:
    """Bind :class:`~site_builder.model.library.Library`, :func:`~site_builder.model.library.build_library` and
    :func:`~site_builder.model.library.place_papers` in this
    module, importing :mod:`site_builder.model.library` (and numpy with it, ~0.03 s) on first use: a build that
    finds nothing changed (:mod:`site_builder.incremental.unchanged`) never needs them. A name already bound (e.g.
    a measuring tool's wrapper of ``pipeline.build_library``) is kept."""
    from .model import library

    for name in ("Library", "build_library", "place_papers"):
        globals().setdefault(name, getattr(library, name))


def __getattr__(name: str):
    """``pipeline.Library`` and ``pipeline.build_library`` as before the import was made lazy
    (https://peps.python.org/pep-0562/)."""
    if name in ("Library", "build_library", "place_papers"):
        _import_library()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

PROJECT_ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = PROJECT_ROOT / "templates"
ASSETS = PROJECT_ROOT / "assets"
LUNR_SOURCE = PROJECT_ROOT / "node_modules" / "lunr" / "lunr.min.js"
OVERRIDES_NAME = "overrides.toml"
#: The error of a build whose lists hold no paper at all (each empty list has its own warning): an emptied or
#: truncated list must not replace the site already built with an empty one.
NO_PAPERS_AT_ALL = "no list holds a paper: nothing built (an existing site is left as it was)"


#: Where :func:`build` leaves its objects when :func:`keep_objects` was called (else None).
_KEPT: list | None = None


def keep_objects() -> None:
    """Make every later :func:`build` in this process leave its objects (the lists' entries, the model,
    the library, the cache's and the output's state) alive when it returns, instead of freeing them one
    by one (~0.07 s after a 10,000-paper build): for a process that ends right after its build without
    the interpreter's teardown (:func:`site_builder.cli.exit_now`), where that memory is given back at
    once. Not for a process that builds again (the preview server): each build's objects would pile up."""
    global _KEPT
    if _KEPT is None:
        _KEPT = []


class BuildError(Exception):
    """The build must stop; the message says why (diagnostics are in the report)."""


@dataclass
class BuildReport:
    """What a build did: the model, its diagnostics, the number of files written and the build date."""

    site: Site | None
    diagnostics: Diagnostics
    files: int = 0
    updated: datetime | None = None
    library: Library | None = None
    pages: int = 0
    index_bytes: int = 0
    seconds: float = 0.0
    reused: int = 0
    paper_count: int = 0
    references: Matched | None = None  # the lists' papers matched to their reference files (None: no reference)


def list_files(seeds: Path) -> list[Path]:
    """The list files in ``seeds``: those of a suffix an input format reads (:func:`formats.suffixes`, e.g.
    ``*.txt``), sorted by name. Raises BuildError when there are none."""
    if not seeds.is_dir():
        raise BuildError(f"{seeds}: no such folder of paper lists")
    known = formats.suffixes()
    files = sorted(p for p in seeds.iterdir() if p.suffix.lower() in known and p.is_file())
    if not files:
        raise BuildError(f"{seeds}: holds no paper list ({', '.join('*' + s for s in known)})")
    return files


def read_lists(files: list[Path], config: SiteConfig, diagnostics: Diagnostics,
               cache: BuildCache | None = None, matched: Matched | None = None,
               progress: Progress | None = None) -> list[Entry]:
    """Read every list file, with the config's venue for lists whose heading names none;
    a paper listed twice is merged into one (with a warning, see :func:`reader.merge_duplicates`);
    the entries of a list whose config names reference files are filled from them
    (:func:`fill_from_references`; ``matched`` receives the counts).

    With ``cache``, unchanged lists come from the build cache (see :mod:`site_builder.incremental.lists`;
    the result is the same; it takes the cache's :attr:`~BuildCache.file_digests` and
    :attr:`~BuildCache.defer_writes`). ``progress`` is advanced per list file.
    """
    configured = [(path, *astuple(config.list_defaults(path.name))) for path in files]
    entries: list[Entry] = []
    for result in listcache.read_lists(configured, cache, progress=progress):
        diagnostics.extend(result.diagnostics)
        entries.extend(result.entries)
    if config.reference_files():
        entries = fill_from_references(entries, config, diagnostics, matched, cache)
    return entries


def fill_from_references(entries: list[Entry], config: SiteConfig, diagnostics: Diagnostics,
                         matched: Matched | None = None, cache: BuildCache | None = None) -> list[Entry]:
    """``entries`` (as :func:`read_lists` gives them), those of a list whose config names reference files filled
    from them (:func:`site_builder.read.reference.fill`; ``matched`` receives the counts), in order.

    Reference files are not read through the list cache: their papers are looked up, not shown, and need no
    rendering. Their index is kept in the build cache (``cache``, :func:`reference_index`) under the digest of their
    bytes (which are also among the inputs of :func:`unchanged.inputs_digest`); the fill itself is a lookup per
    entry on every build that is not skipped, so the list cache keeps each list's own read."""
    indexes: dict[tuple[str, ...], ReferenceIndex] = {}
    matched = matched if matched is not None else Matched()
    out: list[Entry] = []
    for entry in entries:
        reference = config.list_defaults(Path(entry.path).name).reference
        if not reference:
            out.append(entry)
            continue
        if reference not in indexes:
            indexes[reference] = reference_index(reference, diagnostics, cache)
        out.extend(fill([entry], indexes[reference], diagnostics.items, matched))
    return out


def reference_index(paths: tuple[str, ...], diagnostics: Diagnostics, cache: BuildCache | None = None
                    ) -> ReferenceIndex:
    """The :class:`ReferenceIndex` of the reference files ``paths`` (each read by its format; its diagnostics,
    e.g. a missing file's error, go to ``diagnostics``). With ``cache`` (enabled), the index and the diagnostics
    are kept (``Store.cached``, ``reference-<digest of the paths>.marshal``) under the digest of the files' bytes:
    a build whose reference files are unchanged loads the index instead of reading and indexing them
    (a 10,000-paper CSL-JSON reference: BENCHMARKS.md). The index is the same either way."""
    def compute() -> tuple[ReferenceIndex, list[Diagnostic]]:
        found: list[Diagnostic] = []
        entries: list[Entry] = []
        for path in paths:
            result = formats.read_list(path)
            found.extend(result.diagnostics)
            entries.extend(result.entries)
        return ReferenceIndex(entries), found

    try:
        key = content_digest(*(part for path in paths for part in (str(path), Path(path).read_bytes())))
    except OSError:  # a missing or unreadable file: its error comes from reading it
        key = None
    if cache is None or not cache.enabled or key is None:
        index, found = compute()
    else:
        index, found = cache.store.cached(f"reference-{content_digest(*map(str, paths))[:16]}.marshal", key, compute,
                                          _reference_state, _reference_of_state, "a reference index")
    diagnostics.extend(found)
    return index


def _reference_state(value: tuple[ReferenceIndex, list[Diagnostic]]) -> dict:
    index, found = value
    return {"index": index.state(), "diagnostics": [(d.path, d.line, d.level, d.message) for d in found]}


def _reference_of_state(saved: dict) -> tuple[ReferenceIndex, list[Diagnostic]] | None:
    index = ReferenceIndex.from_state(saved.get("index")) if isinstance(saved.get("index"), dict) else None
    found = saved.get("diagnostics")
    if index is None or not isinstance(found, list) or not all(type(d) is tuple and len(d) == 4 for d in found):
        return None
    return index, [Diagnostic(*d) for d in found]


def load_overrides(seeds: Path, diagnostics: Diagnostics) -> dict[str, dict]:
    """The curator's overrides in ``seeds/overrides.toml``: ``[papers.<id>]`` tables of fields.

    A file that is not valid TOML is an error diagnostic at the line (and column) tomllib names; a field the
    model does not know (a typo such as ``titel``) is a warning at the line of its paper's table, a field of
    the wrong type an error there (:func:`checked_override`). Each table also carries ``__source__`` (the
    file) and ``__line__`` (its table's line), for the model's diagnostics.
    """
    path = seeds / OVERRIDES_NAME
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8-sig")
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        diagnostics.error(str(path), toml_error_location(exc)[1], f"not valid TOML: {exc}")
        return {}
    except UnicodeDecodeError as exc:
        diagnostics.error(str(path), 0, f"not valid TOML: {exc}")
        return {}
    papers = {pid: fields for pid, fields in data.get("papers", {}).items() if isinstance(fields, dict)}
    lines = text.splitlines()
    checked = {}
    for pid, fields in sorted(papers.items()):
        line = next((n for n, raw in enumerate(lines, 1) if pid in raw and raw.lstrip().startswith("[")), 0)
        for key in sorted(set(fields) - set(OVERRIDABLE)):
            diagnostics.warning(str(path), line, f"unknown field {key!r} for paper {pid} (known: {', '.join(OVERRIDABLE)})")
        checked[pid] = {**checked_override(fields, str(path), line, diagnostics), "__source__": str(path),
                        "__line__": line}
    return checked


def checked_override(fields: dict, path: str, line: int, diagnostics: Diagnostics) -> dict:
    """``fields`` of one ``[papers.<id>]`` table as the model takes them: ``year`` an integer; ``title``,
    ``abstract``, ``slug`` and ``venue`` strings; ``authors`` and ``track`` lists of strings, where one string
    is taken as a list's author line (split as the reader splits one, e.g. ``"A. Smith and B. Jones"``) or as
    one track. A value of another type is an error at ``path:line`` (the table's line), and is dropped."""
    from .read.plaintext import split_authors

    result = {}
    for key, value in fields.items():
        if key == "authors" and isinstance(value, str):
            value = list(split_authors(value)[0])
        elif key == "track" and isinstance(value, str):
            value = [value]
        if key not in OVERRIDABLE:
            result[key] = value
        elif key == "year" and (isinstance(value, bool) or not isinstance(value, int)):
            diagnostics.error(path, line, f"year must be a number, e.g. year = 2024 (got {value!r})")
        elif key in ("authors", "track") and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            diagnostics.error(path, line, f"{key} must be a string or a list of strings (got {value!r})")
        elif key not in ("year", "authors", "track") and not isinstance(value, str):
            diagnostics.error(path, line, f"{key} must be a string (got {value!r})")
        else:
            result[key] = value
    return result


def copy_assets(output: Output) -> None:
    """Copy the site's own assets and lunr.js (from ``node_modules``) into the output."""
    for source in sorted(ASSETS.rglob("*")):
        if source.is_file():
            output.copy_file(f"{urls.ASSETS}/{source.relative_to(ASSETS).as_posix()}", source)
    if not LUNR_SOURCE.exists():
        raise BuildError(f"{LUNR_SOURCE}: missing; run `npm ci` in {PROJECT_ROOT} first")
    output.copy_file(urls.LUNR_JS, LUNR_SOURCE)


def check_inputs_outside(out: Path, seeds: Path, notes: Path | None, cache: Path | None) -> None:
    """Raise BuildError when the lists folder ``seeds``, the notes folder or the cache folder is the
    output folder ``out`` or inside it: each build replaces the output folder's files with its own,
    so the inputs would be deleted (found by a new user who kept a copy of the lists in the site)."""
    target = Path(out).resolve()
    for what, folder in (("lists folder", seeds), ("notes folder", notes), ("cache folder", cache)):
        if folder is not None and Path(folder).resolve().is_relative_to(target):
            raise BuildError(f"{folder}: the {what} is inside the output folder {out}, whose files each build "
                             f"replaces; keep it outside (or choose another --out)")


def default_notes(seeds: Path) -> Path | None:
    """The notes folder used without ``--notes``: ``notes/`` beside the seeds folder, when it exists."""
    folder = Path(seeds).resolve().parent / "notes"
    return folder if folder.is_dir() else None


def template_bytecode(cache: BuildCache):
    """Jinja2's compiled templates kept in the cache folder (``templates/``), so a rebuild does not compile
    them again; None without a cache or when the folder cannot be made. Jinja2 checks each entry against
    the template's source (https://jinja.palletsprojects.com/en/3.1.x/api/#bytecode-cache); they are kept
    in a folder per code version, and the folders and files of other versions are removed."""
    if cache.folder is None:
        return None
    folder = cache.folder / "templates"
    current = folder / cache.code[:16]
    try:
        current.mkdir(parents=True, exist_ok=True)
        for other in folder.iterdir():
            if other.name != current.name:
                if other.is_dir() and not other.is_symlink():
                    shutil.rmtree(other, ignore_errors=True)
                else:
                    other.unlink(missing_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(current))


def write_site(site: Site, output: Output, library: Library | None = None, updated: datetime | None = None,
               cache: BuildCache | None = None, progress: Progress | None = None,
               index: IndexRun | None = None) -> int:
    """Write every page, ``papers.json``, the search index and the assets of ``site``, the
    reading-list pages and ``.bib`` files of ``library``, then the hosting files (404 page,
    sitemap, robots.txt, feeds stamped ``updated``, default the epoch). Returns the page count.

    ``index`` is the search index already started (:class:`IndexRun`; default: started here);
    it is finished before this returns. With ``cache`` (see :mod:`site_builder.incremental.cache`),
    ``papers.json`` and the search index are reused when the whole site is unchanged, pages
    when their key is.
    """
    cache = cache if cache is not None else BuildCache(None)
    progress = progress if progress is not None else Progress(enabled=False)
    index = index if index is not None else IndexRun(site, output, cache)
    background = None
    try:
        env = make_environment(TEMPLATES, site.config.language)
        env.bytecode_cache = template_bytecode(cache)
        if library is None:
            _import_library()
            library = Library(site)
        progress.stage("planning pages")
        outline = outline_pages(site, library)

        # beside the page workers (their time is in the "pages" stage then), one step after another: the
        # pages' progress is taken between steps (parallel.run_jobs)
        steps = other_file_steps(env, site, library, output, cache, updated, [planned.path for planned in outline])

        def other_files() -> None:
            for step in steps:
                step()

        if cache.enabled:  # the papers' digests, computed by the index process with the index key
            index.lend_digests(cache.fingerprints)
        meanwhile = steps
        if cache.enabled and cache.outputs.has_previous:
            # A rebuild: few pages are rendered, in this process, so the other files are written by a forked
            # process meanwhile, on the core the index process leaves mostly idle (see other_files_job).
            background = parallel.start_background(other_files_job(other_files, output, cache))
            if background is not None:
                cache.deferred_elsewhere()  # the forked process runs them
                meanwhile = [lambda: apply_other_files(background.result(), output, cache)]
        reuse = PageReuse(cache, common_context(site), TEMPLATES)
        write_pages(env, outline, site, library, output, reuse, progress, meanwhile)
        if index.pending:
            progress.stage("search index (finishing)")
        index.finish()
    except BaseException:
        index.cancel()
        if background is not None:
            background.cancel()
        raise
    return len(outline)


def other_file_steps(env, site: Site, library: Library, output: Output, cache: BuildCache, updated: datetime | None,
                     pages: list[str]) -> list[Callable[[], None]]:
    """The steps writing the files beside the pages into ``output``, in order: an edited list's cache files
    (:meth:`BuildCache.run_deferred`), the ``.bib`` files, the list pages' abstracts, ``papers.json``, the map's
    data, ``.nojekyll`` and the assets (with the browser scripts' words in another language), then the hosting
    files (404 page listing the top-level names of ``pages``, sitemap, robots.txt, feeds stamped ``updated``,
    default the epoch)."""
    def assets() -> None:
        output.write_text(".nojekyll", "")
        copy_assets(output)
        if site.config.language != i18n.DEFAULT_LANGUAGE:  # the browser scripts' words (i18n.script_strings)
            output.write_text(urls.STRINGS_JS, i18n.script_strings(site.config.language))

    return [cache.run_deferred,  # an edited list's cache files (see listcache.read_lists)
            lambda: write_bib_files(site, library, output, cache),
            lambda: write_abstract_files(site, output, cache),
            lambda: write_papers_json(site, output, cache),
            lambda: write_map_data(site, library, output),
            assets,
            lambda: write_hosting_files(env, site, output, updated or datetime.fromtimestamp(0, tz=timezone.utc),
                                        pages, cache)]


@dataclass
class OtherFiles:
    """What :func:`other_files_job` changed in the forked process (picklable), for :func:`apply_other_files`:
    the paths it ``written`` and ``kept`` into its copy of the output, and what its copy of the cache recorded
    (:meth:`BuildCache.changes_since <site_builder.incremental.cache.BuildCache.changes_since>`)."""

    written: set[str]
    kept: set[str]
    cache: CacheChanges


def other_files_job(write: Callable[[], None], output: Output, cache: BuildCache) -> Callable[[], OtherFiles]:
    """A job for :func:`parallel.start_background`: run ``write`` (which writes files into ``output``'s
    staging folder and notes them in ``cache``) in the forked process, and return what it changed in
    this process's copies of ``output`` and ``cache`` (:class:`OtherFiles`), for :func:`apply_other_files`
    in the parent.

    The pages the parent writes or keeps meanwhile are not in the job's ``output``: the 404 page takes
    the top-level names of the pages from the outline (:func:`~site_builder.output.hosting.write_hosting_files`),
    and a path written by both is refused by :func:`apply_other_files`.
    """
    def job() -> OtherFiles:
        written, kept = set(output.written), set(output.kept)
        mark = cache.mark()
        write()
        return OtherFiles(output.written - written, output.kept - kept, cache.changes_since(mark))
    return job


def apply_other_files(delta: OtherFiles, output: Output, cache: BuildCache) -> None:
    """Take into ``output`` and ``cache`` what :func:`other_files_job` changed in the forked process.

    Raises :class:`~site_builder.output.writer.OutputError` when a path it wrote is also this process's."""
    clash = delta.written & output.written
    if clash:
        raise OutputError(f"refusing to write {min(clash)!r}: written twice")
    output.written.update(delta.written)
    output.kept.update(delta.kept)
    cache.apply(delta.cache)


def build(seeds: Path, out: Path, config: SiteConfig, strict: bool = False,
          notes: Path | None = None, cache: Path | None = None, progress: Progress | None = None) -> BuildReport:
    """Build the lists in ``seeds`` into ``out``.

    Errors (or warnings with ``strict``) stop the build before anything is
    written: ``out`` is then left exactly as it was, and the report's
    diagnostics say why. Raises BuildError for a missing seeds folder or
    lunr.js, OutputError when ``out`` cannot be replaced. ``notes`` is the
    curator's notes folder (default: :func:`default_notes`). ``cache`` is the
    build cache folder (None: no cache; see :mod:`site_builder.incremental.cache`): its
    warnings are reported but never fatal, and it never changes the output.
    With a cache, a build whose inputs, output and cache are all as the last
    build left them returns that build's report at once (:mod:`site_builder.incremental.unchanged`).
    ``progress`` shows the stages on a terminal.
    """
    progress = progress if progress is not None else Progress(enabled=False)
    # The build's own process runs without the cyclic garbage collector (restored on return): its objects
    # live until the build ends, and collections cost ~0.5 s of a 10,000-paper rebuild (1,300 of them,
    # the full ones traversing the whole model). Forked workers collect again (parallel.collect_garbage).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build_lists(seeds, out, config, strict, notes, cache, progress)
    finally:
        if collecting:
            gc.enable()


def _build_lists(seeds: Path, out: Path, config: SiteConfig, strict: bool, notes: Path | None,
                 cache: Path | None, progress: Progress) -> BuildReport:
    diagnostics = Diagnostics()
    files = list_files(seeds)
    try:
        updated = build_time([*files, seeds / OVERRIDES_NAME])
    except DateError as exc:
        raise BuildError(str(exc)) from exc
    notes = notes if notes is not None else default_notes(seeds)
    check_inputs_outside(out, seeds, notes, cache)
    inputs = manifest = None
    digests: dict[str, bytes] = {}  # each list file's SHA-256, read once for both uses
    if cache is not None:
        inputs = unchanged.inputs_digest(code_version(), [*files, *map(Path, config.reference_files())],
                                         seeds / OVERRIDES_NAME, config, strict, notes,
                                         [TEMPLATES, ASSETS], [LUNR_SOURCE], rfc3339(updated), digests)
        manifest = read_manifest(cache, out)
        saved = unchanged.unchanged_report(manifest, inputs, Path(out).resolve(), Path(cache))
        if saved is not None:
            try:
                return _saved_report(saved, progress)
            except (TypeError, ValueError, KeyError):
                pass
    # Forked before the cache loads its tables (a smaller process to copy, ~0.1 s earlier).
    check = start_file_check(out, manifest) if manifest is not None else None
    try:
        build_cache = BuildCache(cache)
    except BaseException:
        if check is not None:
            check.cancel()
        raise
    build_cache.file_digests = digests  # the lists as inputs_digest read them: not read again
    build_cache.defer_writes = True  # an edited list's cache files are written beside the pages (other_files)
    if manifest is not None:
        build_cache.outputs.check_files_meanwhile(manifest, check)
    try:
        progress.stage("reading lists", len(files), "lists")
        matched = Matched() if config.reference_files() else None
        entries = read_lists(files, config, diagnostics, build_cache, matched, progress)
        if not entries and not diagnostics.errors:
            diagnostics.error(str(seeds), 0, NO_PAPERS_AT_ALL)
        overrides = load_overrides(seeds, diagnostics)
    except BaseException:
        build_cache.outputs.stop_file_check()
        raise
    try:
        report = _build(out, config, strict, build_cache, entries, overrides, diagnostics, progress, notes, updated,
                        inputs, manifest)
        report.references = matched
        return report
    finally:
        build_cache.outputs.stop_file_check()
        gc.unfreeze()
        progress.close()


def start_file_check(out: Path, manifest: dict):
    """Start :func:`~site_builder.incremental.cache.files_not_as_recorded` of the previous build's files (``manifest``,
    as :func:`read_manifest` gave it) in a forked process (:func:`parallel.start_background`), for
    :meth:`OutputRecord.check_files_meanwhile`: it runs on another core while this process reads the lists
    and builds the model (the ~28,800 ``stat`` calls of a 10,000-paper rebuild, ~0.1 s, were on its serial
    path). None when there is nothing to check or no process can be forked (the files are then checked
    where they are kept). The same process lists the output folder for :meth:`~site_builder.output.writer.Output.commit`
    (:func:`~site_builder.output.writer.unrecorded_names`, :meth:`OutputRecord.output_listing`)."""
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        return None
    target = Path(out)
    return parallel.start_background(lambda: (files_not_as_recorded(target, files), unrecorded_names(target, files)))


def _saved_report(saved: dict, progress: Progress) -> BuildReport:
    """The :class:`BuildReport` of a build that found nothing changed (see :mod:`site_builder.incremental.unchanged`)."""
    progress.stage("nothing changed")
    report = BuildReport(None, unchanged.diagnostics_of(saved), int(saved["files"]),
                         datetime.fromtimestamp(int(saved["updated"]), tz=timezone.utc), None, int(saved["pages"]),
                         int(saved["index_bytes"]), 0.0, int(saved["reused"]), int(saved["papers"]))
    progress.close()
    report.seconds = progress.elapsed
    return report


#: An interrupted build of at least this many papers leaves removing its staging folder to a process of its own
#: (:meth:`Output.discard <site_builder.output.writer.Output.discard>`), and returns at once.
DETACHED_DISCARD_PAPERS = 20_000


def _abandon(output: Output | None, index: IndexRun | None, detached: bool = False) -> None:
    """Stop the index process and remove the staging folder of a build that will not be committed (``detached``:
    by a process of its own, see :data:`DETACHED_DISCARD_PAPERS`)."""
    if index is not None:
        index.cancel()
    if output is not None:
        output.discard(detached)


def _build(out: Path, config: SiteConfig, strict: bool, build_cache: BuildCache, entries: list[Entry],
           overrides: dict, diagnostics: Diagnostics, progress: Progress, notes: Path | None,
           updated: datetime, inputs: str | None = None, manifest: dict | None = None) -> BuildReport:
    report = _build_site(out, config, strict, build_cache, entries, overrides, diagnostics, progress, notes,
                         updated, inputs, manifest)
    if _KEPT is not None:  # see keep_objects
        _KEPT.append((build_cache, entries, overrides, report))
    return report


def _build_site(out: Path, config: SiteConfig, strict: bool, build_cache: BuildCache, entries: list[Entry],
                overrides: dict, diagnostics: Diagnostics, progress: Progress, notes: Path | None,
                updated: datetime, inputs: str | None = None, manifest: dict | None = None) -> BuildReport:
    _import_library()  # here, before the index process is forked (index_run): it needs numpy too

    work = build_cache.memo.missing_work(entries)
    progress.stage("rendering abstracts", len(work), "papers")
    build_cache.memo.store_work(parallel.parallel_map(paper_work, work, progress))
    progress.stage("papers", len(entries), "papers")
    site = build_site(entries, overrides, config, diagnostics, memo=build_cache.memo, progress=progress)
    failed = lambda: diagnostics.errors or (strict and diagnostics.warnings)  # noqa: E731
    output = index = None
    try:
        if not failed():
            output = Output(out)
            build_cache.outputs.open(out, manifest)
            # The model lives through the rest of the build: move it out of the garbage collector's sight
            # (undone in build): collections stay cheap, and forked workers do not copy every memory
            # page of the parent by touching its objects' GC headers.
            gc.freeze()
            # The search index needs the model alone: it runs in a forked process from here on,
            # beside the reading-list features, the pages and the other files (see index_run).
            index = IndexRun(site, output, build_cache)
        progress.stage("reading-list features")
        library = build_library(site, notes, diagnostics, build_cache, progress)
        if failed():
            _abandon(output, index)
            build_cache.save()
            diagnostics.extend(build_cache.diagnostics)
            return BuildReport(site, diagnostics, library=library, seconds=progress.elapsed)
        progress.stage("paper map")
        place_papers(library, build_cache)
        pages = write_site(site, output, library, updated, build_cache, progress, index)
        index_bytes = sum(output.file(path).stat().st_size for path in index.paths)
        output.commit(*build_cache.outputs.output_listing())
    except BaseException as exc:  # an error or Ctrl-C anywhere (even while committing): no staging folder is left behind
        _abandon(output, index, isinstance(exc, KeyboardInterrupt) and len(site.papers) >= DETACHED_DISCARD_PAPERS)
        raise
    try:  # the new site is in place: a Ctrl-C from here on must not be reported as leaving the old one
        progress.stage("saving the build cache")
        if inputs is not None and build_cache.enabled:
            fields = unchanged.report_fields(diagnostics, len(output.written), pages, index_bytes,
                                             build_cache.outputs.reused, len(site.papers), int(updated.timestamp()))
            build_cache.outputs.snapshot = unchanged.snapshot(inputs, output.target, output.written,
                                                              build_cache.outputs.manifest, fields)
        build_cache.save()
    except KeyboardInterrupt as exc:
        raise CommittedInterrupt() from exc
    diagnostics.extend(build_cache.diagnostics)
    return BuildReport(site, diagnostics, len(output.written), updated, library, pages, index_bytes,
                       progress.elapsed, build_cache.outputs.reused, len(site.papers))
