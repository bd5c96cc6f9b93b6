"""The ``.bib`` files: one ``papers.bib`` per venue, kept when unchanged, and the site's ``papers.bib``, a list of them.

A venue's file shows, for each of its papers in display order, :func:`bibtex.entry` of the paper,
its BibTeX key and its absolute URL (from the base URL): its cache key is the digest of exactly
those (:meth:`~site_builder.incremental.outputs.OutputRecord.key` of the papers' fingerprint (:func:`venue_digests`,
shared with the parts of ``papers.json``), their keys (one per line) and the base URL, plus the code version). A venue file with an unchanged key that is still as the previous build left it
is kept (:meth:`~site_builder.incremental.outputs.OutputRecord.reuse`), so a rebuild writes the entries of the
changed venues only.

The site's file lists the venues' files (:func:`site_bib_index`) rather than repeating their entries: each entry is
in the site once (issue 25, the site's size).
"""

from __future__ import annotations

from ..model import urls


_LAST: list = []  # [site, its venue groups, {id(cache): digests}] of the last site asked (one at a time)


def venue_groups(site) -> list[list] | None:
    """The papers of each venue of ``site.venues`` (display order), when ``site.papers`` is exactly
    these groups one after the other; None otherwise. Computed once per site (the same list is
    returned again: do not change it)."""
    if _LAST and _LAST[0] is site:
        return _LAST[1]
    groups: list[list] | None = []
    index = {venue: n for n, venue in enumerate(site.venues)}
    last = -1
    for paper in site.papers:
        n = index.get(paper.venue)
        if n is None or n < last or (n != last and n != last + 1):
            groups = None
            break
        if n != last:
            groups.append([])
            last = n
        groups[-1].append(paper)
    if groups is not None and len(groups) != len(site.venues):
        groups = None
    _LAST[:] = [site, groups, {}]
    return groups


def venue_digests(site, cache) -> list[str | None] | None:
    """The fingerprint (:meth:`~site_builder.incremental.cache.Fingerprinter.of`) of each group of
    :func:`venue_groups` (None when there are none), computed once per site and cache: the
    ``.bib`` files and the parts of ``papers.json`` are keyed by them."""
    groups = venue_groups(site)
    if groups is None:
        return None
    digests = _LAST[2]
    if id(cache) not in digests:
        digests[id(cache)] = (cache, [cache.fingerprints.of(papers) for papers in groups])
    return digests[id(cache)][1]


def write_bib_files(site, library, output, cache) -> None:
    """Write (or keep, with ``cache``) one ``papers.bib`` per venue and the site's ``papers.bib``, the list of
    them (:func:`site_bib_index`), into ``output``.

    ``library`` gives the entries (:meth:`~site_builder.model.library.Library.bib_file`) and keys;
    ``cache`` is a :class:`~site_builder.incremental.cache.BuildCache` (possibly disabled). The bytes are the
    same with or without the cache.
    """
    groups = venue_groups(site)
    if groups is None:
        groups = [site.papers_of(venue) for venue in site.venues]
        digests = [cache.fingerprints.of(papers) for papers in groups] if cache.enabled else [None] * len(groups)
    else:
        digests = venue_digests(site, cache) if cache.enabled else [None] * len(groups)
    bib_key = library.bib_key
    for venue, papers, digest in zip(site.venues, groups, digests):
        path = urls.venue_bib_path(venue.slug)
        key = None
        if digest is not None:
            # The keys as one string, cheaper to digest than a list of them, when none holds a newline.
            names = "\n".join([bib_key(paper) for paper in papers])
            keys = names if names.count("\n") == len(papers) - 1 else [bib_key(paper) for paper in papers]
            key = cache.outputs.key("bib", library.base_url, digest, keys)
        if cache.outputs.reuse(path, key, output):
            continue
        output.write_text(path, library.bib_file(papers))
        cache.outputs.record(path, key, output)
    output.write_text(urls.SITE_BIB, site_bib_index(site, groups))


def site_bib_index(site, groups: list[list]) -> str:
    """The text of the site's ``papers.bib``: a BibTeX comment line per venue of ``site.venues`` naming its file
    (path from the site's root) and its number of papers (``groups``: the papers of each venue). Each entry is in
    its venue's file only, so the site holds it once (issue 25, the site's size). Text outside ``@`` entries is a
    comment to BibTeX (bibtexparser: implicit comments), and these lines hold no ``@`` (paths are slugs), so the
    file reads as a ``.bib`` file without entries."""
    lines = [f"% The BibTeX entries of the {sum(map(len, groups))} papers of this site are in one file per venue:"]
    lines += [f"% {urls.venue_bib_path(venue.slug)} ({len(papers)} papers)" for venue, papers in zip(site.venues, groups)]
    return "\n".join(lines) + "\n"
