"""``papers.json``: every paper's record, written from per-venue parts that a rebuild keeps when unchanged.

The file is a JSON list of the records in display order (:meth:`~site_builder.model.site.Paper.record`), a record
a line: ``"[\\n" + ",\\n".join(records) + "\\n]\\n"``, each record ``json.dumps(record, ensure_ascii=False,
sort_keys=True, separators=(",", ":"))`` (compact: issue 25, the site's bytes; it was ``indent=1``, 0.1 kB a paper
more). So when the papers are grouped by venue (:func:`~site_builder.output.bibfiles.venue_groups`) the file is
``"[\\n" + ",\\n".join(part) + "\\n]\\n"`` where each venue's ``part`` is its records so joined, in UTF-8
(``tests/incremental/test_cache.py`` checks the identity).

Keys: the whole file's is the digest of the whole site (:meth:`~site_builder.incremental.outputs.OutputRecord.key`);
each part's is the digest of its venue's papers (a record shows nothing else; :func:`~site_builder.output.bibfiles.venue_digests`). The manifest keeps
each part's key and byte offsets in the file (:meth:`~site_builder.incremental.outputs.OutputRecord.set_parts`); a
rebuild takes an unchanged part from the previous file (when that file is still as the previous
build left it) and serialises only the changed venues. The unchanged parts are copied from the previous
file by the kernel (:func:`~site_builder.output.writer.write_spliced`; a run of consecutive parts is one copy),
so the 17 MB of a 10,000-paper site are neither read nor joined here.
"""

from __future__ import annotations

import json
import os
from typing import Iterator

from ..model import urls
from .bibfiles import venue_digests, venue_groups

OPTIONS = {"ensure_ascii": False, "sort_keys": True, "separators": (",", ":")}
_ENCODE = json.JSONEncoder(**OPTIONS).encode  # C accelerated with these options


def item_json(record: dict) -> str:
    """``record`` as an item of the ``papers.json`` list, one line: ``json.dumps(record, **OPTIONS)``
    (JSON escapes the line breaks of strings). Raises TypeError for a value JSON cannot hold."""
    return _ENCODE(record)


def part(papers) -> str:
    """The part of ``papers.json`` holding ``papers`` (a non-empty run of consecutive papers)."""
    return ",\n".join([item_json(p.record()) for p in papers])


#: Papers encoded at a time by :func:`whole_pieces`.
CHUNK = 2000


def whole_pieces(papers) -> Iterator[bytes]:
    """The bytes of ``papers.json`` for ``papers`` (display order): ``"[\n" + part(papers) + "\n]\n"``, ``"[]\n"``
    for none, made :data:`CHUNK` papers at a time (for :func:`~site_builder.output.writer.write_spliced`: the file
    is never whole in memory)."""
    if not papers:
        yield b"[]\n"
        return
    yield b"[\n"
    for a in range(0, len(papers), CHUNK):
        yield (",\n" if a else "").encode("utf-8") + part(papers[a:a + CHUNK]).encode("utf-8")
    yield b"\n]\n"


def part_spans(site, cache, previous: dict, size: int) -> list[tuple]:
    """Per venue (:func:`~site_builder.output.bibfiles.venue_groups` order), ``(part key, span)``: its part's key
    (None when its papers cannot be digested) and the bytes ``(start, end)`` of that part in the previous file
    (``previous``: part key → span; ``size``: that file's bytes), or None when it is not there to take."""
    spans = []
    for digest in venue_digests(site, cache):
        part_key = cache.outputs.key("papers.json part", digest) if digest is not None else None
        span = previous.get(part_key) if part_key is not None else None
        spans.append((part_key, span if span is not None and 0 <= span[0] <= span[1] <= size else None))
    return spans


def part_pieces(groups: list, spans: list, source: int | None, parts: list) -> Iterator:
    """The pieces of ``papers.json`` (for :func:`~site_builder.output.writer.write_spliced`), made one venue at a
    time: per venue's papers (``groups``) its part: the bytes of the previous file (open as ``source``) its span
    gives (``spans``, :func:`part_spans`), else its records encoded; a run of consecutive parts copied from the
    previous file is one copy (with the file's ``",\n"`` between them). Appends ``[part key, start, end]`` per
    venue to ``parts`` as it goes."""
    yield b"[\n"
    at, run = 2, None  # after "[\n"; the previous file's bytes (start, end) not yet given
    for papers, (part_key, span) in zip(groups, spans):
        separator = b",\n" if parts else b""
        if span is not None and run is not None and run[1] + 2 == span[0]:
            run = (run[0], span[1])  # continues the copied run
        elif span is not None:
            if run is not None:
                yield source, run[0], run[1] - run[0]
            yield separator
            run = span
        else:
            if run is not None:
                yield source, run[0], run[1] - run[0]
                run = None
            chunk = part(papers).encode("utf-8")
            yield separator + chunk
        length = span[1] - span[0] if span is not None else len(chunk)
        parts.append([part_key, at, at + length])
        at += length + 2  # ",\n"
    if run is not None:
        yield source, run[0], run[1] - run[0]
    yield b"\n]\n"


def write_papers_json(site, output, cache) -> None:
    """Write (or keep) ``papers.json`` of ``site`` into ``output`` with ``cache`` (a
    :class:`~site_builder.incremental.cache.BuildCache`, possibly disabled); the bytes never depend on the cache."""
    path = urls.PAPERS_JSON
    key = cache.outputs.key(path, site)
    if cache.outputs.reuse(path, key, output):
        cache.outputs.keep_parts(path)
        return
    groups = venue_groups(site) if cache.enabled else None
    if not groups or not all(groups):
        output.write_spliced(path, whole_pieces(site.papers))
        cache.outputs.record(path, key, output)
        return
    previous = {entry[0]: entry[1:] for entry in cache.outputs.previous_parts(path)}
    old_file = cache.outputs.previous_file(path) if previous else None
    source, size = None, 0  # the previous file, open, when a part is taken from it, and its bytes
    parts: list[list] = []
    try:
        if old_file is not None:
            try:
                source = os.open(old_file, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
                size = os.fstat(source).st_size
            except OSError:
                source = None
        spans = part_spans(site, cache, previous if source is not None else {}, size)
        output.write_spliced(path, part_pieces(groups, spans, source, parts))
    finally:
        if source is not None:
            os.close(source)
    cache.outputs.record(path, key, output)
    if None not in (p[0] for p in parts):
        cache.outputs.set_parts(path, parts)
