"""The ``.bib`` files: ``papers.bib`` (the whole site) and one ``papers.bib`` per venue, kept when unchanged.

A venue's file shows, for each of its papers in display order, :func:`bibtex.entry` of the paper,
its BibTeX key and its absolute URL (from the base URL): its cache key is the digest of exactly
those (:meth:`~site_builder.cache.BuildCache.key` of the papers, their keys and the base URL, plus
the code version). A venue file with an unchanged key that is still as the previous build left it
is kept (:meth:`~site_builder.cache.BuildCache.reuse`), so a rebuild writes the entries of the
changed venues only.

The site's file is the entries of every paper in display order, separated by blank lines
(:func:`bibtex.bib_file`). Papers are displayed grouped by venue, in the order of ``site.venues``,
so it is the venues' files joined by newlines; when the grouping does not hold it is written from
the entries.
"""

from __future__ import annotations

from . import urls


def venue_groups(site) -> list[list] | None:
    """The papers of each venue of ``site.venues`` (display order), when ``site.papers`` is exactly
    these groups one after the other; None otherwise."""
    groups: list[list] = []
    index = {venue: n for n, venue in enumerate(site.venues)}
    last = -1
    for paper in site.papers:
        n = index.get(paper.venue)
        if n is None or n < last:
            return None
        if n != last:
            if n != last + 1:
                return None
            groups.append([])
            last = n
        groups[-1].append(paper)
    return groups if len(groups) == len(site.venues) else None


def write_bib_files(site, library, output, cache) -> None:
    """Write (or keep, with ``cache``) ``papers.bib`` and one ``papers.bib`` per venue into ``output``.

    ``library`` gives the entries (:meth:`~site_builder.library.Library.bib_file`) and keys;
    ``cache`` is a :class:`~site_builder.cache.BuildCache` (possibly disabled). The bytes are the
    same with or without the cache.
    """
    groups = venue_groups(site)
    if groups is None:
        groups = [site.papers_of(venue) for venue in site.venues]
        joinable = False
    else:
        joinable = all(groups)
    texts = []
    for venue, papers in zip(site.venues, groups):
        path = urls.venue_bib_path(venue.slug)
        key = cache.key("bib", library.base_url, [(paper, library.bib_key(paper)) for paper in papers])
        if cache.reuse(path, key, output):
            texts.append(output.read_text(path) if joinable else "")
            continue
        text = library.bib_file(papers)
        output.write_text(path, text)
        cache.record(path, key, output)
        texts.append(text)
    site_text = "\n".join(texts) if joinable else library.bib_file(site.papers)
    output.write_text(urls.SITE_BIB, site_text)
