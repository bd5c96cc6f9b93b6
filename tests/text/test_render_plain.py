"""The plain-text fast path of render.py gives exactly what markdown-it-py gives."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papers_sample import sample_records
from site_builder.text import render
from site_builder.text.plain import OTHER_SPACE, plain_abstract, plain_inline


def _slow_abstract(source: str) -> tuple[str, str, tuple[str, ...]]:
    md, env = render.parser(), {}
    tokens = md.parse(source, env)
    assert not env.get("warnings")
    return md.renderer.render(tokens, md.options, env), render._plain(tokens), render._code_urls(tokens)


def _slow_inline(source: str) -> tuple[str, str]:
    md, env = render.parser(), {}
    tokens = md.parseInline(source, env)
    return md.renderer.render(tokens, md.options, env), render._plain(tokens)


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    """The sample of real papers (tests/fixtures/papers/)."""
    return sample_records()


def test_corpus_abstracts_and_titles(corpus):
    fast = urls = 0
    for paper in corpus:
        for text in (paper["abstract"], paper["abstract"].replace(". ", ".\n", 3) + "\n\n  Second paragraph.\n"):
            plain = plain_abstract(text, render.parser())
            if plain is not None:
                fast += 1
                urls += "://" in text
                assert plain == _slow_abstract(text), text
        plain = plain_inline(paper["title"])
        if plain is not None:
            assert plain == _slow_inline(paper["title"]), paper["title"]
    assert fast > len(corpus)  # the fast path is taken for most abstracts (about 80 %)
    assert urls > sum("://" in paper["abstract"] for paper in corpus)  # and for most of those with a bare URL


def test_other_space_is_all_white_space_but_space_and_line_end():
    spaces = {chr(c) for c in range(0x110000) if chr(c).isspace()}
    assert set(OTHER_SPACE) == spaces - {" ", "\n"}
    assert all(re.fullmatch(r"\s", c) for c in spaces)  # re's \s is str.isspace, so split() = re.sub(r"\s+")


def test_not_plain():
    for text in ("costs $5", "a \\emph{b}", "x_i", "see https://x.org", "www.x.org", "a -- b", "a''",
                 "two  \nlines", "tab\there", "nbsp\u00a0here", "a & b", "<b>", "[a](b)", "`a`", "~", "{x}"):
        assert plain_abstract(text) is None and plain_inline(text) is None, text
    assert plain_inline("two\nlines") is None


PIECES = list("ab .,:;!?#%+-=@^/'\"()|é\n") + ["  ", "\n\n", " \n", "\u00a0", "\t", "\u3000", "\x01", "1.", "    ",
                                               "https://", "http://", "FTP://", "://", "https", "x.org", "www.",
                                               "github.com/a_b", "~", "_", "*", "&", "$", "[", "]", "%20", "%",
                                               "\ue000"]
TRICKY = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=3000, deadline=None)
@given(TRICKY)
def test_generated(text):
    plain = plain_abstract(text, render.parser())
    if plain is not None:
        assert plain == _slow_abstract(text)
    plain = plain_inline(text)
    if plain is not None:
        assert plain == _slow_inline(text)


URL_PIECES = ["https://", "http://", "x.org", "github.com/a_b", "hf.co/x", ".", ",", ")", "(", " ", "\n", "see ", "a",
              "%20", "~u", "'", "?", "#x", "www.", "/", "pages.github.com", "HTTPS://", "ftp://"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(URL_PIECES), max_size=14).map("".join))
def test_generated_urls(text):
    plain = plain_abstract(text, render.parser())
    if plain is not None:
        assert plain == _slow_abstract(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("&<>\"' a&amp;é\n"), max_size=40))
def test_own_escape_is_markdown_its(text):
    from markdown_it.common.utils import escapeHtml as theirs

    from site_builder.text.plain import escapeHtml
    assert escapeHtml(text) == theirs(text)


def test_plain_rendering_imports_no_markdown_it():
    """Rendering plain prose (most abstracts, e.g. the one edited before a rebuild) must not import
    markdown-it-py, latex2mathml or texhabits; a text with markup still renders through them."""
    import subprocess
    import sys
    code = ("import sys; from site_builder.text import render;"
            "r = render.render_abstract('Plain prose.\\n\\nTwo paragraphs.'); t = render.render_inline('A title');"
            "assert r.html == '<p>Plain prose.</p>\\n<p>Two paragraphs.</p>\\n', r;"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'markdown_it', 'latex2mathml', 'mdit_py_plugins'}),"
            " 'site_builder.text.texhabits' in sys.modules);"
            "r = render.render_abstract('With $x^2$ math.'); print('<math' in r.html, 'latex2mathml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["[] False", "True True"], out
