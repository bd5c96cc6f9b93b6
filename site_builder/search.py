"""The prebuilt Lunr search index (lunr.py, read by lunr.js 2.3.9 in the browser).

Output shape (``search-index.json``)::

    {"index": <lunr.Index serialisation, what lunr.Index.load takes>,
     "docs": {ref: {"title", "url", "authors", "venue", "track", "snippet"}}}

``search-index.js`` holds the same object assigned to ``window.SEARCH_DATA``
so a classic ``<script>`` loads it from ``file://`` too.
"""

from __future__ import annotations

import json

from lunr import lunr

from .model import Paper, Site

FIELDS = (
    {"field_name": "title", "boost": 10},
    {"field_name": "authors", "boost": 3},
    {"field_name": "track", "boost": 2},
    {"field_name": "abstract"},
)
SNIPPET_CHARS = 240


def search_document(paper: Paper) -> dict:
    """The fields of ``paper`` that the index covers, as plain text."""
    return {
        "ref": paper.id,
        "title": paper.title_text,
        "authors": " ".join(paper.authors),
        "track": paper.track.label if paper.track else "",
        "abstract": paper.rendered.text,
    }


def result_record(paper: Paper) -> dict:
    """What a search result shows of ``paper`` (all plain text; the page inserts it as text)."""
    return {
        "title": paper.title_text,
        "url": paper.path,
        "authors": list(paper.authors) + (["et al."] if paper.et_al else []),
        "venue": paper.venue.label,
        "track": paper.track.label if paper.track else None,
        "snippet": paper.rendered.text[:SNIPPET_CHARS],
    }


def build_search_data(site: Site) -> dict:
    """Build the index over every paper of ``site``, in the model's fixed order."""
    index = lunr(ref="ref", fields=list(FIELDS), documents=[search_document(p) for p in site.papers])
    return {"index": index.serialize(), "docs": {p.id: result_record(p) for p in site.papers}}


def dump_json(data: object) -> str:
    """Serialise ``data`` deterministically (sorted keys, compact, UTF-8 kept)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def index_script(json_text: str) -> str:
    """The classic-script form of the index: assigns the data to ``window.SEARCH_DATA``.

    ``<``, U+2028 and U+2029 are escaped so the text can never close a script
    element or break a JavaScript string literal.
    """
    safe = json_text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.SEARCH_DATA = {safe};\n"
