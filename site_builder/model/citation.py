"""Machine-readable citation data on paper pages: Highwire ``citation_*`` meta tags and JSON-LD.

Highwire Press tags are what Google Scholar's inclusion guidelines ask for
(``citation_title``, one ``citation_author`` per author, ``citation_publication_date``,
``citation_conference_title``); JSON-LD follows schema.org's ``ScholarlyArticle``.
JSON-LD is embedded in ``<script type="application/ld+json">``, so :func:`script_json`
escapes ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\\uXXXX``: the data can
never close the script element or start a comment (HTML Standard, "restrictions
for contents of script elements"), and it stays valid JSON.
"""

from __future__ import annotations

import json

from . import urls
from .authors import clean_name

_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(data) -> str:
    """``data`` as JSON safe to place verbatim inside a ``<script>`` element (see module doc)."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    for char, escaped in _SCRIPT_ESCAPES.items():
        text = text.replace(char, escaped)
    return text


def _authors(paper) -> list[str]:
    return [clean_name(a) for a in paper.authors if clean_name(a)]


def highwire_tags(paper, base_url: str = "") -> list[tuple[str, str]]:
    """``[(name, content)]`` of the Highwire ``citation_*`` meta tags for ``paper`` (contents unescaped)."""
    tags = [("citation_title", paper.title_text)]
    tags += [("citation_author", name) for name in _authors(paper)]
    tags += [("citation_publication_date", str(paper.venue.year)),
             ("citation_conference_title", paper.venue.label)]
    tags += [("citation_keywords", k) for k in getattr(paper, "keywords", ())]
    if getattr(paper, "doi", ""):
        tags.append(("citation_doi", paper.doi))
    if base_url:
        tags.append(("citation_abstract_html_url", urls.absolute_url(base_url, paper.path)))
    return tags


def json_ld(paper, base_url: str = "") -> dict:
    """The schema.org ``ScholarlyArticle`` of ``paper`` as a JSON-ready dict.

    Without the abstract (issue 25, the site's size): the page shows it, its description meta tags begin it, and
    Google Scholar reads the Highwire tags; ``headline`` names the article (schema.org ``CreativeWork``), so
    ``name`` would repeat it.
    """
    data = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "headline": paper.title_text,
        "author": [{"@type": "Person", "name": name} for name in _authors(paper)],
        "datePublished": str(paper.venue.year),
        "identifier": paper.id,
        "publication": {"@type": "PublicationEvent", "name": paper.venue.label},  # schema.org: CreativeWork.publication
    }
    if getattr(paper, "keywords", ()):
        data["keywords"] = list(paper.keywords)
    if getattr(paper, "doi", ""):
        data["sameAs"] = f"https://doi.org/{paper.doi}"
    if base_url:
        data["url"] = urls.absolute_url(base_url, paper.path)
    return data
