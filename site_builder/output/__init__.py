"""Output: the staged output folder, page and file writing, feeds, hosting files, ``.bib``, ``papers.json``, zip."""
