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

from ..model import urls
from .bibfiles import venue_digests, venue_groups

OPTIONS = {"ensure_ascii": False, "sort_keys": True, "separators": (",", ":")}
_ENCODE = json.JSONEncoder(**OPTIONS).encode  # C accelerated with these options


def item_json(record: dict) -> str:
    """``record`` as an item of the ``papers.json`` list, one line: ``json.dumps(record, **OPTIONS)``
    (JSON escapes the line breaks of strings). Raises TypeError for a value JSON cannot hold."""
    return _ENCODE(record)


def papers_json(papers) -> str:
    """The text of ``papers.json`` for ``papers`` (display order)."""
    if not papers:
        return "[]\n"
    return "[\n" + part(papers) + "\n]\n"


def part(papers) -> str:
    """The part of ``papers.json`` holding ``papers`` (a non-empty run of consecutive papers)."""
    return ",\n".join([item_json(p.record()) for p in papers])


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
        output.write_text(path, papers_json(site.papers))
        cache.outputs.record(path, key, output)
        return
    previous = {entry[0]: entry[1:] for entry in cache.outputs.previous_parts(path)}
    old_file = cache.outputs.previous_file(path) if previous else None
    source = None  # the previous file, open, when a part is taken from it
    try:
        if old_file is not None:
            try:
                source = os.open(old_file, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
                size = os.fstat(source).st_size
            except OSError:
                source = None
        digests = venue_digests(site, cache)
        pieces: list = [b"[\n"]  # bytes, or (source, start, count): bytes of the previous file (write_spliced)
        parts, at = [], 2  # after "[\n"
        for papers, digest in zip(groups, digests):
            part_key = cache.outputs.key("papers.json part", digest) if digest is not None else None
            span = previous.get(part_key) if part_key is not None and source is not None else None
            if parts:
                pieces.append(b",\n")
            if span is not None and 0 <= span[0] <= span[1] <= size:
                start, end = span
                last = pieces[-2] if len(pieces) > 2 else None
                if type(last) is tuple and last[1] + last[2] + 2 == start:  # continues the last copied run:
                    pieces[-2:] = [(source, last[1], end - last[1])]  # one copy (the file's ",\n" between)
                else:
                    pieces.append((source, start, end - start))
                length = end - start
            else:
                chunk = part(papers).encode("utf-8")
                pieces.append(chunk)
                length = len(chunk)
            parts.append([part_key, at, at + length])
            at += length + 2  # ",\n"
        pieces.append(b"\n]\n")
        output.write_spliced(path, pieces)
    finally:
        if source is not None:
            os.close(source)
    cache.outputs.record(path, key, output)
    if None not in (p[0] for p in parts):
        cache.outputs.set_parts(path, parts)
