"""The abstracts files of the list pages: where each paper's abstract is found when a reader opens the paper's
"Abstract" disclosure on a venue, track, author, tag or keyword page (``assets/abstracts.js``).

One store of the abstracts for the list pages and the search (issue 25, the site's bytes): an abstract whose
rendered HTML is a single paragraph of its search record's text (about three in four: no math, no link, no
emphasis, not cut) is read from its search record (``search/records/<ref>.js``, which the search page loads for
its results, :mod:`site_builder.search.shards`); only the others' HTML is written here. A venue's papers are split
into files by the first hex digits of their ids (:func:`~site_builder.model.urls.abstracts_ref`,
:func:`~site_builder.model.urls.abstracts_path`), so a paper stays in its file when papers are added and the list
pages, which name these files, not search refs, are not rewritten when a paper is inserted ahead of others (its
search ref, a position, shifts; only these small files change). A file is a classic script, so it loads from
``file://`` as over HTTP::

    siteAbstracts({"<id>": "<search ref>", "<id>": ["<abstract HTML>"], …});

Each file is keyed by the fingerprints of its papers and their refs and kept when unchanged
(:meth:`~site_builder.incremental.outputs.OutputRecord.reuse`), as the ``.bib`` files are.
"""

from __future__ import annotations

import json
import re
from html import escape

from ..model import urls
from ..text.cut import snippet

#: Runs of the white space HTML collapses (ASCII; not U+00A0).
_SPACES = re.compile(r"[ \t\n\r\f]+").sub
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def abstract_files(site) -> dict[str, list]:
    """``{path: papers}``: the abstracts file of every paper of ``site`` (:meth:`Site.abstracts_refs`; display
    order within a file)."""
    refs = site.abstracts_refs()
    files: dict[str, list] = {}
    for paper in site.papers:
        files.setdefault(urls.abstracts_path(refs[paper.id]), []).append(paper)
    return files


def search_refs(site) -> dict[str, str]:
    """``{paper id: search ref}`` (:func:`~site_builder.model.urls.search_ref` of the paper's position, as the
    search index numbers its documents, :func:`site_builder.search.index.search_tables`)."""
    return {paper.id: urls.search_ref(i) for i, paper in enumerate(site.papers)}


def record_shows_it(abstract_html: str, text: str) -> bool:
    """Whether abstract HTML ``abstract_html`` shows what ``assets/abstracts.js`` makes of a search record's abstract
    ``text`` (a ``<p>`` holding the text; :func:`~site_builder.search.documents.result_record`): one paragraph of
    exactly that text, escaped as markdown-it escapes it, runs of ASCII white space aside (a browser collapses
    them in a paragraph; a no-break space is not one)."""
    return _SPACES(" ", abstract_html).strip(" ") == "<p>" + escape(text, quote=False).replace('"', "&quot;") + "</p>"


def abstract_entry(paper, ref: str):
    """What an abstracts file holds of ``paper``: its search ref ``ref`` when its record shows its abstract
    (:func:`record_shows_it`), else ``[HTML]``."""
    html = paper.rendered.html
    return ref if record_shows_it(html, snippet(paper.rendered.text)) else [html]


def abstracts_script(papers, refs: dict[str, str]) -> str:
    """The text of one abstracts file (module doc) for ``papers`` with their search ``refs`` ({id: ref}), ids in
    the order of ``papers``; ``<`` is escaped in the JSON (``\\u003c``) as a matter of course."""
    data = _JSON({paper.id: abstract_entry(paper, refs[paper.id]) for paper in papers}).replace("<", "\\u003c")
    return f"siteAbstracts({data});\n"


def write_abstract_files(site, output, cache) -> None:
    """Write (or keep, with ``cache``: a :class:`~site_builder.incremental.cache.BuildCache`, possibly
    disabled) every abstracts file of ``site`` into ``output``. The bytes are the same with or without the
    cache."""
    refs = search_refs(site)
    for path, papers in abstract_files(site).items():
        key = None
        if cache.enabled:
            key = cache.outputs.key("abstracts", cache.fingerprints.of(papers), [refs[p.id] for p in papers])
        if cache.outputs.reuse(path, key, output):
            continue
        output.write_text(path, abstracts_script(papers, refs))
        cache.outputs.record(path, key, output)
