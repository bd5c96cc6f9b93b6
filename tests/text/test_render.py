"""Tests for site_builder.text.render (issue 4): each construct with its expected HTML."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from papers_sample import sample_records
from site_builder.read.plaintext import read_list
from site_builder.text.render import RenderedAbstract, render_abstract, render_inline, render_math

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("check_render_corpus", ROOT / "scripts" / "check_render_corpus.py")
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

M = '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline"><mrow>'
ME = "</mrow></math>"


def html(source: str) -> str:
    """The inline HTML of ``source`` (a one-paragraph abstract without its <p>)."""
    out = render_abstract(source).html.strip()
    assert out.startswith("<p>") and out.endswith("</p>"), out
    return out[3:-4]


@pytest.mark.parametrize("source, expected", [
    ("**bold**", "<strong>bold</strong>"),
    ("*italic*", "<em>italic</em>"),
    ("_x_", "<em>x</em>"),
    ("***both***", "<em><strong>both</strong></em>"),
    ("_**T**est **M**odel_", "<em><strong>T</strong>est <strong>M</strong>odel</em>"),
    ("[text](https://example.org/a)", '<a href="https://example.org/a" rel="noopener">text</a>'),
    ("snake_case_name and __init__x", "snake_case_name and __init__x"),
    ("`a -- b ``x''`", "<code>a -- b ``x''</code>"),
])
def test_markdown(source, expected):
    assert html(source) == expected


@pytest.mark.parametrize("source, expected, text", [
    (r"$\mathcal{O}(k)$", M + '<mi>𝒪</mi><mo stretchy="false">(</mo><mi>k</mi><mo stretchy="false">)</mo>' + ME, "O(k)"),
    (r"$k \approx 2000$", M + "<mi>k</mi><mo>≈</mo><mn>2000</mn>" + ME, "k ≈ 2000"),
    (r"$\varepsilon \in [0.01,8.0]$", M + '<mi>ε</mi><mo>∈</mo><mo stretchy="false">[</mo><mn>0.01</mn>'
     '<mo>,</mo><mn>8.0</mn><mo stretchy="false">]</mo>' + ME, "ε ∈ [0.01,8.0]"),
    (r"x$^1$", "x" + M + "<msup><mi></mi><mn>1</mn></msup>" + ME, "x1"),
    (r"$\mathrm{SE}(3)$", M + '<mrow><mi mathvariant="normal">S</mi><mi mathvariant="normal">E</mi></mrow>'
     '<mo stretchy="false">(</mo><mn>3</mn><mo stretchy="false">)</mo>' + ME, "SE(3)"),
    (r"$\log n$", M + "<mi>log</mi><mi>n</mi>" + ME, "log n"),
    (r"\(x\)", M + "<mi>x</mi>" + ME, "x"),
    (r"$ m \geq 2 $", M + "<mi>m</mi><mo>≥</mo><mn>2</mn>" + ME, "m ≥ 2"),
    (r"$2$", M + "<mn>2</mn>" + ME, "2"),
    (r"[$-$1, 1]", "[" + M + "<mo>−</mo>" + ME + "1, 1]", "[ − 1, 1]"),
])
def test_math_becomes_mathml(source, expected, text):
    rendered = render_abstract(source)
    assert html(source) == expected
    assert rendered.text == text
    assert rendered.warnings == ()


def test_display_math_block():
    r = render_abstract("Before\n\n$$\\sum_i x_i$$\n\nafter")
    assert r.html == ('<p>Before</p>\n<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><mrow>'
                      "<munder><mo>∑</mo><mi>i</mi></munder><msub><mi>x</mi><mi>i</mi></msub></mrow></math>"
                      "<p>after</p>\n")
    assert r.text == "Before ∑ixi after"


@pytest.mark.parametrize("source, expected", [
    ("costs $10 and $20", "costs $10 and $20"),
    ("from $5-$10 per hour", "from $5-$10 per hour"),
    ("GPU cards (~2000$) and", "GPU cards (~2000$) and"),
    (r"an escaped \$5 fee and \$x\$", "an escaped $5 fee and $x$"),
    ("it costs 35$ and 40$ a month", "it costs 35$ and 40$ a month"),
    ("prices (35$), 40$, or 50$; 60$. More", "prices (35$), 40$, or 50$; 60$. More"),
])
def test_money_is_not_math(source, expected):
    assert html(source) == expected


def test_an_amount_with_its_sign_after_leaves_the_math_around_it():
    source = "It costs 35$ per run, and the loss $a_1$ falls; 40$ later."
    rendered = render_abstract(source)
    assert html(source) == ("It costs 35$ per run, and the loss " + M + "<msub><mi>a</mi><mn>1</mn></msub>" + ME
                            + " falls; 40$ later.")
    assert rendered.text == "It costs 35$ per run, and the loss a1 falls; 40$ later."
    assert html("$10^3$ and $2$") == M + "<msup><mn>10</mn><mn>3</mn></msup>" + ME + " and " + M + "<mn>2</mn>" + ME


def test_money_before_math():
    assert html("costs $10 vs. $x$") == "costs $10 vs. " + M + "<mi>x</mi>" + ME


@pytest.mark.parametrize("source, expected", [
    ("``quoted''", "“quoted”"),
    ('``quoted"', "“quoted”"),
    ("`single'", "‘single’"),
    (r"76.3\%", "76.3%"),
    (r"\texttt{Name_x}", "<code>Name_x</code>"),
    (r"\emph{x}", "<em>x</em>"),
    (r"\textit{x}", "<em>x</em>"),
    (r"\textbf{x}", "<strong>x</strong>"),
    (r"{\em x y}", "<em>x y</em>"),
    ("1--2 and a---b", "1–2 and a—b"),
    (r"Fig.~3 and ~10", "Fig.\u00a03 and ~10"),
    (r"\'ecole \"{o}", "école ö"),
    (r"\textcolor[rgb]{0,0.5,0.5}{Code}", "Code"),
    (r"\epsilon-greedy", M + "<mi>ϵ</mi>" + ME + "-greedy"),
    (r"\epsilon [0,1] \eg [2]", M + "<mi>ϵ</mi>" + ME + " [0,1] e.g. [2]"),
    (r"\citep{smith20}", "[smith20]"),
    ("don't", "don't"),
])
def test_tex_habits(source, expected):
    assert html(source) == expected


def test_tex_habits_not_in_code_or_math():
    assert html("`--` $a--b$") == "<code>--</code> " + M + "<mi>a</mi><mo>−</mo><mo>−</mo><mi>b</mi>" + ME


def test_unknown_macro_outside_math_warns():
    r = render_abstract(r"We propose \Ours{} here.")
    assert html(r"We propose \Ours{} here.") == "We propose Ours here."
    assert r.warnings and "\\Ours" in r.warnings[0]


@pytest.mark.parametrize("source, url, shown", [
    ("Code: https://github.com/pruirui/PLRC.", "https://github.com/pruirui/PLRC", "."),
    ("(see https://gitlab.com/a/b_c), x", "https://gitlab.com/a/b_c", "), x"),
    ("at https://huggingface.co/x/y, and", "https://huggingface.co/x/y", ", and"),
    ("https://bitbucket.org/a/b_(c)", "https://bitbucket.org/a/b_(c)", ""),
    (r"\url{https://github.com/a/b}", "https://github.com/a/b", ""),
    ("<https://github.com/a/b>", "https://github.com/a/b", ""),
])
def test_urls_become_links_and_code_urls(source, url, shown):
    r = render_abstract(source)
    assert f'<a href="{url}" rel="noopener">{url}</a>{shown}' in r.html
    assert r.code_urls == (url,)


def test_www_and_other_hosts():
    r = render_abstract("see www.robot-learning.uk/miles. and https://example.org/x")
    assert '<a href="https://www.robot-learning.uk/miles" rel="noopener">www.robot-learning.uk/miles</a>.' in r.html
    assert '<a href="https://example.org/x" rel="noopener">' in r.html
    assert r.code_urls == ()


@pytest.mark.parametrize("source, expected", [
    ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ("a <b>x</b> <!-- c -->", "a &lt;b&gt;x&lt;/b&gt; &lt;!– c –&gt;"),
    ("[x](javascript:alert(1))", "[x](javascript:alert(1))"),
    ("[x](JavaScript:alert(1))", "[x](JavaScript:alert(1))"),
    ("[x](data:text/html,hi)", "[x](data:text/html,hi)"),
    ("<javascript:alert(1)>", "&lt;javascript:alert(1)&gt;"),
    (r"\url{javascript:alert(1)}", "javascript:alert(1)"),
    (r"\href{data:text/html,hi}{x}", "x"),
])
def test_raw_html_is_text_and_bad_links_not_clickable(source, expected):
    assert html(source) == expected


def test_mathml_is_escaped_and_has_no_links():
    out = html(r"$\text{<script>}$ $\href{javascript:alert(1)}{x}$")
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "href" not in out and "javascript" not in out


def test_failed_formula_is_code_with_warning():
    r = render_abstract(r"bad $\left( x$ here")
    assert html(r"bad $\left( x$ here") == r'bad <code class="tex">\left( x</code> here'
    assert len(r.warnings) == 1 and "not converted" in r.warnings[0]


def test_unknown_macro_in_math_shown_by_name():
    r = render_math(r"\fstar + \eps")
    assert '<mi mathvariant="normal">fstar</mi>' in r.html and "<mi>ϵ</mi>" in r.html
    assert r.text == "fstar + ϵ" and "\\fstar" in r.warnings[0]


@pytest.mark.parametrize("source, text", [
    ("1. First\n# Not a heading\n    indented\n* star\n> quote\n---\nText\n===",
     "1. First # Not a heading indented * star > quote — Text ==="),
    ("2 * 3 * 4 = 24", "2 * 3 * 4 = 24"),
    ("roughly O^*(2^k) and O^*(n)", "roughly O^*(2^k) and O^*(n)"),
    ("[1]: https://example.org\nkept", "[1]: https://example.org kept"),
])
def test_plain_text_constructs_are_not_eaten(source, text):
    r = render_abstract(source)
    assert r.text == text
    assert r.html.count("<p>") == 1


def test_soft_breaks_and_paragraphs():
    r = render_abstract("one\ntwo\n\nthree")
    assert r.html == "<p>one\ntwo</p>\n<p>three</p>\n"
    assert r.text == "one two three"


def test_plain_text_has_no_marks():
    r = render_abstract(r"**B** *i* ``q'' \emph{e} 5\% $\mathcal{O}(k)$ and $k \approx 2000$ [l](https://x.org)")
    assert r.text == "B i “q” e 5% O(k) and k ≈ 2000 l"


def test_render_inline_for_titles():
    assert render_inline(r"A $\mathcal{O}(n)$ **Title** -- x") == (
        "A " + M + '<mi>𝒪</mi><mo stretchy="false">(</mo><mi>n</mi><mo stretchy="false">)</mo>' + ME
        + " <strong>Title</strong> – x", "A O(n) Title – x")
    assert render_inline("1. Not a list") == ("1. Not a list", "1. Not a list")


def test_result_shape():
    r = render_abstract("x")
    assert isinstance(r, RenderedAbstract) and r.html == "<p>x</p>\n" and r.text == "x"
    assert r.code_urls == () and r.warnings == ()


def _seed_abstracts() -> list[str]:
    return [e.abstract for p in sorted((ROOT / "seeds").glob("*.txt")) for e in read_list(p).entries]


def _sample_abstracts() -> list[str]:
    return [r.get("abstract") or "" for r in sample_records()]


def _assert_visible_equals_text(abstracts: list[str]) -> None:
    for source in abstracts:
        r = render_abstract(source)
        visible, code = check.visible_text(r.html)
        assert check.comparable(visible) == check.comparable(r.text), source[:80]
        for mark in check.MARKS:
            assert visible.count(mark) == check.literal_count(mark, visible, code, source), (mark, source[:80])


def test_seeds_visible_text_equals_plain_text():
    abstracts = _seed_abstracts()
    assert len(abstracts) > 30
    _assert_visible_equals_text(abstracts)


def test_corpus_visible_text_equals_plain_text():
    """The sample of real papers; scripts/check_render_corpus.py covers the whole corpus."""
    abstracts = _sample_abstracts()
    assert len(abstracts) > 500
    _assert_visible_equals_text(abstracts)


def test_visible_text_extraction_of_mathml():
    visible, _ = check.visible_text("<p>a <math><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow></math> b</p>")
    assert re.sub(r"\s+", " ", visible).strip() == "a x2 b"


def test_an_abstract_hard_wrapped_after_hyphens_reads_as_the_unwrapped_one():
    """Real abstracts with hyphenated words, wrapped at 60 columns breaking after hyphens (as textwrap, PDF copies
    and conference pages do): the visible text equals the one-line abstract's ("real-\\ntime" showed as
    "real- time"; found by the new-user pass)."""
    import textwrap

    abstracts = [r["abstract"] for r in sample_records() if re.search(r"\w-\w", r["abstract"] or "")
                 and not re.search(r"[$\\\n]", r["abstract"])][:150]
    assert len(abstracts) >= 100
    wrapped_at_hyphen = 0
    for abstract in abstracts:
        wrapped = textwrap.fill(abstract, 60, break_on_hyphens=True, break_long_words=False)
        wrapped_at_hyphen += bool(re.search(r"\w-\n\w", wrapped))
        assert render_abstract(wrapped).text == render_abstract(abstract).text
    assert wrapped_at_hyphen >= 20


@pytest.mark.parametrize("tex, text", [
    (r"\sqrt{n}", "√n"), (r"O(\sqrt{T}\log T)", "O(√T log T)"), (r"\frac{a+b}{2}", "(a + b)/2"),
    (r"O(d/\epsilon^2)", "O(d/ϵ^2)"), (r"e^{-x}", "e^(−x)"), (r"\sqrt[3]{x}", "∛x"), (r"x_i^2", "xi^2")])
def test_what_mathml_draws_is_spelled_out_in_the_plain_text(tex, text):
    """(found by a new-user pass: "$\\sqrt{n}$ Features" read "n Features" in the page title, feeds and search)"""
    assert render_math(tex).text == text
    assert render_inline(f"Kernels: ${tex}$ Suffice")[1] == f"Kernels: {text} Suffice"
