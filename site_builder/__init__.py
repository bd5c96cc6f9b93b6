"""Static reading-list website generator for research paper lists.

Stages, one module each: ``reader`` (text lists → raw papers and diagnostics),
``titles`` (derived titles), ``render`` (abstract Markdown/TeX → HTML and plain
text), ``model`` (the site model), ``urls`` (every output path), ``search``
(the Lunr index), ``pages`` and ``writer`` (rendered files), ``serve`` (preview
server) and ``cli`` (the command line).
"""

__version__ = "0.1.0"
