"""Render every abstract of the seeds and the corpus; count TeX/Markdown marks left visible.

Usage (from the repository root):

    PYTHONPATH=$PWD python scripts/check_render_corpus.py [--corpus ../shared/corpus/papers.jsonl]
        [--seeds seeds] [--examples 3]

For each abstract the page's visible text is extracted from the HTML with
html.parser (MathML: only the token elements mi/mn/mo/mtext/ms), then:

- each of ``$``, ``\\``, ``**``, ````````, ``''`` left in it is counted, split into
  *literal* (a ``$`` before a digit — a price — or from an escaped ``\\$`` in the
  source; any mark inside ``<code>``, which shows code or a formula's TeX source
  because it could not be converted) and *unexplained*;
- the visible text is compared with ``RenderedAbstract.text`` up to white space
  (and math-alphabet letters read plainly, 𝒪 → O).

Exit status 1 when an unexplained mark or a text mismatch remains.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

from site_builder.corpus import DEFAULT_CORPUS, require_corpus
from site_builder.read.plaintext import read_list
from site_builder.text.render import render_abstract, render_inline

MARKS = ("$", "\\", "**", "``", "''")
MATH_TOKENS = {"mi", "mn", "mo", "mtext", "ms"}


class VisibleText(HTMLParser):
    """Collects visible text; ``code`` collects the text inside ``<code>`` separately."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.code: list[str] = []
        self.stack: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag in ("p", "br", "div"):
            self.parts.append(" ")

    def handle_startendtag(self, tag, attrs):
        if tag in ("br", "mspace"):
            self.parts.append(" ")

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        if "math" in self.stack and not (self.stack and self.stack[-1] in MATH_TOKENS):
            return
        self.parts.append(data)
        if "code" in self.stack:
            self.code.append(data)


def visible_text(html: str) -> tuple[str, str]:
    """``(visible text, text inside <code>)`` of rendered ``html``."""
    parser = VisibleText()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts), " ".join(parser.code)


def comparable(text: str) -> str:
    """``text`` without white space or invisible operators, math letters folded (𝒪 → O), and without the
    marks the plain text writes for what MathML draws (``√ ∛ ∜ / ^`` and parentheses: ``render.LAYOUT_TEXT``)."""
    text = "".join(unicodedata.normalize("NFKC", c) if unicodedata.category(c) in ("Lu", "Ll")
                   and unicodedata.normalize("NFKC", c).isascii() else c for c in text)
    return re.sub(r"[\s\u2061-\u2064√∛∜/^()]+", "", text)


def literal_count(mark: str, visible: str, code: str, source: str) -> int:
    """How many ``mark`` in ``visible`` the source meant literally."""
    in_code = code.count(mark)
    if mark == "$":
        price = r"\$(?=\s?\d)|(?<=\d)\$"  # $10, US$ 5, 2000$
        prices = len(re.findall(price, visible)) - len(re.findall(price, code))
        return min(visible.count(mark), in_code + prices + source.count("\\$"))
    return in_code


def sources(corpus: Path, seeds: Path) -> list[tuple[str, str]]:
    """``(where, abstract)`` for every seed entry and corpus paper."""
    out = []
    for path in sorted(seeds.glob("*.txt")):
        out += [(f"{path}:{e.line}", e.abstract) for e in read_list(path).entries]
    with open(corpus, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            out.append((f"{corpus}:{number}", json.loads(line).get("abstract") or ""))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the check; print the figures; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--seeds", type=Path, default=Path("seeds"))
    ap.add_argument("--examples", type=int, default=3)
    args = ap.parse_args(argv)
    items = sources(require_corpus(args.corpus), args.seeds)
    started, cpu = time.perf_counter(), time.process_time()
    rendered = [render_abstract(a) for _, a in items]
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    literal, unexplained, examples = Counter(), Counter(), []
    mismatches, with_warnings, warnings, bad = 0, 0, Counter(), 0
    for (where, source), r in zip(items, rendered):
        visible, code = visible_text(r.html)
        before = sum(unexplained.values())
        for mark in MARKS:
            lit = literal_count(mark, visible, code, source)
            literal[mark] += lit
            unexplained[mark] += visible.count(mark) - lit
            if visible.count(mark) > lit and len(examples) < args.examples * len(MARKS):
                i = visible.find(mark)
                examples.append(f"  {where}: {mark!r} in …{visible[max(0, i - 50):i + 50]}…")
        bad += sum(unexplained.values()) > before
        mismatches += comparable(visible) != comparable(r.text)
        with_warnings += bool(r.warnings)
        warnings.update(w.split(":")[0].split(" \\")[0] for w in r.warnings)
    print(f"abstracts rendered: {len(items)} in {seconds:.2f} s ({cpu:.2f} s CPU)")
    for mark in MARKS:
        print(f"  {mark!r:6} unexplained {unexplained[mark]:5}   literal {literal[mark]:5}")
    print(f"abstracts with unexplained marks: {bad}")
    print(f"visible text != plain text (up to white space): {mismatches}")
    print(f"abstracts with warnings: {with_warnings}; warnings by kind: {dict(warnings)}")
    titles = [json.loads(line).get("title") or "" for line in args.corpus.open(encoding="utf-8")]
    left = sum(any(m in visible_text(render_inline(t)[0])[0] for m in MARKS[1:]) for t in titles)
    print(f"corpus titles with \\, **, `` or '' left (render_inline): {left} of {len(titles)}")
    print("\n".join(examples))
    return 1 if sum(unexplained.values()) or mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
