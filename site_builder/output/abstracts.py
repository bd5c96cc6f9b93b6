"""The abstracts files of the list pages: each paper's rendered abstract, loaded by ``assets/abstracts.js``
when a reader opens the paper's "Abstract" disclosure on a venue, track, author, tag or keyword page.

One copy of every abstract for all list pages (a page of 2,000 papers does not carry 2,000 abstracts, and
a paper listed on five pages is stored once): a venue's papers are split into files by the first hex digits
of their ids (:func:`~site_builder.model.urls.abstracts_ref`, :func:`~site_builder.model.urls.abstracts_path`), so a paper stays in its file when papers are
added. A file is a classic script, ``siteAbstracts({"<id>": "<abstract HTML>", …});``, so it loads from
``file://`` as over HTTP. Each file is keyed by the fingerprints of its papers and kept when unchanged
(:meth:`~site_builder.incremental.outputs.OutputRecord.reuse`), as the ``.bib`` files are.
"""

from __future__ import annotations

import json

from ..model import urls

_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def abstract_files(site) -> dict[str, list]:
    """``{path: papers}``: the abstracts file of every paper of ``site`` (:meth:`Site.abstracts_refs`; display
    order within a file)."""
    refs = site.abstracts_refs()
    files: dict[str, list] = {}
    for paper in site.papers:
        files.setdefault(urls.abstracts_path(refs[paper.id]), []).append(paper)
    return files


def abstracts_script(papers) -> str:
    """The text of one abstracts file: ``siteAbstracts({id: abstract HTML, …});`` and a newline, ids in the
    order of ``papers``. ``<`` is escaped in the JSON (``\\u003c``) as a matter of course."""
    data = _JSON({paper.id: paper.rendered.html for paper in papers}).replace("<", "\\u003c")
    return f"siteAbstracts({data});\n"


def write_abstract_files(site, output, cache) -> None:
    """Write (or keep, with ``cache``: a :class:`~site_builder.incremental.cache.BuildCache`, possibly
    disabled) every abstracts file of ``site`` into ``output``. The bytes are the same with or without the
    cache."""
    for path, papers in abstract_files(site).items():
        key = cache.outputs.key("abstracts", cache.fingerprints.of(papers)) if cache.enabled else None
        if cache.outputs.reuse(path, key, output):
            continue
        output.write_text(path, abstracts_script(papers))
        cache.outputs.record(path, key, output)
