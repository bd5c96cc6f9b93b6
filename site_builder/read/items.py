"""List reader, stage 4: blocks of lines into items, items into entry drafts, and the roles
(title, track, authors, abstract) of each draft's header lines."""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from .text import clean
from .lines import SENTENCE_END, split_words, author_score, capital_ratio, furniture, is_prose, name_shape, page_words, parse_track, prose_score, strip_label, strip_number, title_score, track_score


@dataclass
class Item:
    """One structural unit of a list (what :func:`blocks_to_items` gives): its kind, its first ``line``
    (1-based) and last (``end``), its ``text`` (cleaned) or ``raw`` source lines, the index of its
    ``block``, and what its kind carries (label name, list number, page words, track parts)."""

    kind: str  # number | label | page | furniture | track | short | prose
    line: int
    text: str = ""
    raw: list[str] = field(default_factory=list)  # prose: the paragraph's lines
    field_name: str | None = None  # label: title/authors/abstract/track/keywords/status
    number: int | None = None
    mark: bool = False  # the item opens with a number or bullet
    words: tuple[str, ...] = ()
    track: tuple[str, ...] = ()
    block: int = 0
    end: int = 0
    note: str = ""  # "lone abstract label": an "Abstract:" label in a list without other labels


def split_blocks(lines: list[str], start: int) -> list[list[tuple[int, str]]]:
    """Group non-blank lines (from index ``start``) into runs separated by blank lines; a run
    holding several papers with no blank line between them is split (:func:`split_run`).

    ``lines``: the list's source lines; returns each block as ``[(line number, 1-based; raw line), ...]``,
    in order, none empty. Raises nothing."""
    blocks: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for index in range(start, len(lines)):
        raw = lines[index]
        if clean(raw):
            current.append((index + 1, raw))
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return [part for block in blocks for part in split_run(block)]


def split_run(block: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """A run of non-blank lines cut into the papers it holds: numbered or bulleted ones
    (:func:`split_numbered`), then title / authors / abstract ones (:func:`split_stacked`). ``block`` and the
    parts as :func:`split_numbered` takes and gives them."""
    return [part for numbered in split_numbered(block) for part in split_stacked(numbered)]


def split_stacked(block: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Split a run of unnumbered papers given as title, authors and abstract lines with no blank line between
    them (found by the third new-user pass: they were read as one paper, silently) before each line that
    ends no sentence, below a line that ends one (the abstract above) and above an author line
    (:func:`_authors_under`), each part keeping three lines or more.

    ``block``: ``[(line number, raw line), ...]``, not empty; returns its parts in order (``[block]`` when it
    is not cut). Raises nothing."""
    if len(block) < 6 or strip_number(clean(block[0][1]))[0] is not None:
        return [block]
    parts, cut = [], 0
    for k in range(3, len(block) - 2):
        line = clean(block[k][1])
        if k - cut < 3 or not SENTENCE_END.search(clean(block[k - 1][1])) or _sentence(line) or \
                strip_label(line)[0] is not None or not _authors_under(block, k):
            continue
        parts.append(block[cut:k])
        cut = k
    return parts + [block[cut:]]


def split_numbered(block: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Split a run that opens with a list number (``1.``, ``[1]``, ``(1)``) or bullet (``-``, ``•``, ``*``)
    before each later line that carries a higher number in the same style (numbers skip in a list copied
    from a filtered page: ``1.``, ``5.``, ``12.``), or the same bullet, and opens a paper
    (:func:`_opens_paper`): it reads as a title (not prose, not ending as a sentence does: an abstract's own
    ``- We propose X.`` or ``2. We show Y.`` stays in it), or an author line is under it (a title ending with
    ``?``), or the run's first line reads as a sentence too (a numbered list of abstracts alone). So
    ``1. A⏎authors⏎abstract⏎2. B⏎…``, ``- A⏎…⏎- B⏎…`` or ``1. We study…⏎2. We show…`` with no blank lines
    gives one run per paper. A line with another bullet (``•`` papers with one ``-`` among them) cuts only
    when it reads as a title and the line under it as a strong author line (several names:
    :data:`STRONG_AUTHORS`) or as a name above prose.

    ``block``: ``[(line number, raw line), ...]``, not empty; returns its parts in order (``[block]`` when
    it is not cut). Raises nothing."""
    first = clean(block[0][1])
    style, number, opening = strip_number(first)
    if style is None:
        return [block]
    sentences = _sentence(opening)  # the run's first paper is an abstract alone
    parts, cut = [], 0
    for k in range(1, len(block)):
        line = clean(block[k][1])
        s, n, rest = strip_number(line)
        if s != style or not rest.strip():
            continue
        if style == "bullet":
            cuts = (line[:1] == first[:1] and _opens_paper(block, k, rest, sentences)) or \
                (not _sentence(rest) and _authors_under(block, k))
        else:
            cuts = n > number and _opens_paper(block, k, rest, sentences)
        if cuts:
            parts.append(block[cut:k])
            cut, number = k, n
    return parts + [block[cut:]]


def _sentence(text: str) -> bool:
    """True when ``text`` (a numbered line without its number) reads as a sentence: prose, or ending as one."""
    return bool(SENTENCE_END.search(text.strip())) or is_prose(text)


def _opens_paper(block: list[tuple[int, str]], k: int, rest: str, sentences: bool) -> bool:
    """Whether numbered line ``k`` of ``block`` (``rest``: its text without the number) opens a paper of a run
    whose first line reads as a sentence (``sentences``) or not (see :func:`split_numbered`)."""
    return sentences or not _sentence(rest) or _authors_under(block, k)


#: An author line at least this author-like (:func:`author_score`) is strong: several names (one two-word
#: name scores 2.0, as a two-word title may).
STRONG_AUTHORS = 3.0
#: A line at least this author-like reads as a name (one author's two-word name).
NAME_LINE = 2.0


def _authors_under(block: list[tuple[int, str]], k: int) -> bool:
    """True when the line under line ``k`` of ``block`` is a strong author line, or a name (one author) above
    a prose line."""
    if k + 1 >= len(block):
        return False
    score = author_score(clean(block[k + 1][1]))
    return score >= STRONG_AUTHORS or (score >= NAME_LINE and k + 2 < len(block) and is_prose(clean(block[k + 2][1])))


def find_numbering(blocks: list[list[tuple[int, str]]]) -> tuple[str | None, set[int]]:
    """Find the file's numbering: its style and the lines whose number continues the sequence.

    A style counts only when its chain of increasing numbers (n, then any higher: a filtered page's list
    skips) at block starts covers at least half of the blocks that start an entry-like run.

    ``blocks`` as :func:`split_blocks` gives them. Returns ``(style, line numbers)``: the style
    (``"bullet"`` or a number style of :func:`~site_builder.read.lines.strip_number`) and the 1-based
    lines whose number or bullet opens a paper, or ``(None, set())`` when the list is not numbered.
    Raises nothing.
    """
    firsts = [(b[0][0], strip_number(clean(b[0][1]))) for b in blocks]
    styles = Counter(s for _, (s, _, _) in firsts if s)
    if not styles:
        return None, set()
    style, count = styles.most_common(1)[0]
    prose_blocks = sum(1 for b in blocks if any(is_prose(t) for _, t in b)) or 1
    if style == "bullet":
        marks = Counter(clean(b[0][1])[:1] for b in blocks if strip_number(clean(b[0][1]))[0] == "bullet")
        mark = marks.most_common(1)[0][0]
        count = marks[mark]
        lines = {b[0][0] for b in blocks if strip_number(clean(b[0][1]))[0] == "bullet" and clean(b[0][1])[:1] == mark}
        return ("bullet", lines) if count >= 0.6 * prose_blocks else (None, set())
    accepted: set[int] = set()
    last = None
    for ln, (s, n, _) in firsts:
        if s != style:
            continue
        if last is None or n > last:  # numbers may skip (a list copied from a filtered page: 1, 5, 12)
            accepted.add(ln)
            last = n
    if len(accepted) >= max(1, prose_blocks // 2) or len(accepted) >= 0.3 * len(blocks):
        return style, accepted
    return None, set()


def block_facts(block: list[tuple[int, str]]) -> tuple:
    """Everything the file-wide choices read from one block (as :func:`split_blocks` gives it): the
    numbering (:func:`find_numbering`: the first line's number style, number and mark, which lines are
    prose), the labels (``reader.ListReader._labelled``), the compact layout (:func:`is_compact`) and the
    titled one (:func:`titles_first`).
    Two blocks with equal facts weigh the same in those choices (:mod:`site_builder.read.reread`
    relies on it: keep this in step with those four functions)."""
    first = clean(block[0][1])
    heads = []
    for _, raw in block[:-1][:4]:
        text = strip_number(clean(raw))[2]
        heads.append((author_score(text) >= 2.5, len(parse_track(text) or ()) >= 2, strip_label(text)[0]))
    style, number, _ = strip_number(first)
    return (len(block), style, number, first[:1] if style == "bullet" else None, tuple(is_prose(t) for _, t in block),
            tuple(strip_label(strip_number(clean(raw))[2])[0] is not None for _, raw in block),
            page_words(block[0][1]), furniture(block[0][1]), tuple(heads), _title_above(block))


def _line_item(number: int, raw: str, block: int, marked: bool, labelled: bool) -> Item:
    """Classify one header-position line (number and bullet already removed when ``marked``)."""
    text = clean(raw)
    name, rest = strip_label(raw.lstrip())
    if name is not None:
        note = "" if labelled or name != "abstract" else "lone abstract label"
        return Item("label", number, clean(rest), [rest], field_name=name, mark=marked, block=block, note=note)
    words = page_words(text)
    if words:
        return Item("page", number, text, words=words, mark=marked, block=block)
    if furniture(text):
        return Item("furniture", number, text, mark=marked, block=block)
    track = parse_track(text)
    if track and all(name_shape(part) == 1.0 and len(part.split()) >= 2 for part in track):
        track = None  # "Ana Perez · Jian Li": names, an author line
    if track and len(track) >= 2 and not is_prose(text):
        return Item("track", number, text, track=track, mark=marked, block=block)
    if is_prose(text):
        return Item("prose", number, text, [raw], mark=marked, block=block)
    return Item("short", number, text, [raw], mark=marked, block=block)


def _sentence_like(text: str) -> bool:
    """True when a short line reads as a sentence, not a title or author line: six or more words
    ending in a full stop or exclamation mark, not in Title Case, not shaped like names."""
    ratio = capital_ratio(text)
    return bool(re.search(r"[.!。！]['\"”’)]*$", text)) and len(split_words(text)) >= 6 and \
        (ratio is None or ratio < 0.6) and author_score(text) < 2.5


def sentences_as_prose(items: list[Item]) -> list[Item]:
    """In a list whose short lines are mostly sentences (one-sentence abstracts, TL;DRs), read those
    lines as abstract paragraphs rather than as title, track or author candidates (when at least
    a quarter of the short lines are sentences: titles rarely end in a full stop).

    Changes the kind of those items in place and returns ``items`` (the same list). Raises nothing."""
    shorts = [i for i in items if i.kind == "short"]
    sentences = [i for i in shorts if _sentence_like(i.text)]
    if not sentences or len(sentences) < 0.25 * len(shorts):
        return items
    for item in sentences:
        item.kind = "prose"
    return items


def _title_above(block: list[tuple[int, str]]) -> bool:
    """Whether a block of several lines opens with a line that may be a title in any case (not prose, not a
    sentence, no author, track or label line) above a line that starts a sentence (see :func:`titles_first`)."""
    if len(block) < 2:
        return False
    first, second = (strip_number(clean(raw))[2] for _, raw in block[:2])
    return bool(first) and len(first) <= 150 and not is_prose(first) and _open_end(first) and \
        author_score(first) < 2.5 and len(parse_track(first) or ()) < 2 and strip_label(first)[0] is None and \
        re.match(r"^[\"'“‘(\[]?(?:[A-Z0-9$\\*]|[^\x00-\x7f])", second) is not None


#: How many of a list's blocks of several lines must open with a title above a sentence for the list to be read
#: as titled (:func:`titles_first`), and at least how many blocks.
TITLED_SHARE, TITLED_BLOCKS = 0.6, 3


def titles_first(blocks: list[list[tuple[int, str]]]) -> bool:
    """True when the list's papers open with a title line, even in sentence case (``Learning to rank with
    feedback``) and without an author line under it: most blocks of several lines (:data:`TITLED_SHARE`, at
    least :data:`TITLED_BLOCKS`) open with a line that is no sentence above one that starts a sentence
    (:func:`_title_above`). A wrapped abstract goes on in lower case, or its first line is prose. Decided for the
    list as a whole (:func:`blocks_to_items` then takes such a first line as a header line). Raises nothing."""
    several = [b for b in blocks if len(b) >= 2]
    titled = sum(map(_title_above, several))
    return titled >= TITLED_BLOCKS and titled >= TITLED_SHARE * len(several)


def is_compact(blocks: list[list[tuple[int, str]]]) -> bool:
    """True when header lines share blocks with the abstract: many blocks hold an author,
    track or label line above further lines, and few header lines stand alone as a block.
    ``blocks`` as :func:`split_blocks` gives them. Raises nothing."""
    def stacked(block: list[tuple[int, str]]) -> bool:
        for _, raw in block[:-1][:4]:
            text = strip_number(clean(raw))[2]
            if author_score(text) >= 2.5 or (parse_track(text) or ()).__len__() >= 2 or \
                    strip_label(text)[0] in ("title", "authors", "track"):
                return True
        return False

    alone = sum(1 for b in blocks if len(b) == 1 and not is_prose(b[0][1]) and not page_words(b[0][1])
                and not furniture(b[0][1]))
    with_prose = sum(1 for b in blocks if len(b) > 1 or is_prose(b[0][1])) or 1
    count = sum(stacked(b) for b in blocks if len(b) > 1)
    return count >= max(1.0, 0.3 * with_prose) and alone <= count


def _title_line(text: str) -> bool:
    """True when a line reads as a title: two or more words in Title Case (or with a colon),
    no full stop at the end, not shaped like an author list."""
    ratio = capital_ratio(text)
    if SENTENCE_END.search(text) and not text.endswith("?"):
        return False
    if len(split_words(text)) < 2 or author_score(text) >= 2.5 or page_words(text):
        return False
    return ratio is not None and (ratio >= 0.6 or (":" in text and ratio >= 0.4))


def _open_end(text: str) -> bool:
    """True when ``text`` does not end a sentence with a full stop or exclamation mark (a question
    mark may end a title)."""
    return not SENTENCE_END.search(text) or text.endswith("?")


def _authors_line(texts: list[str], i: int) -> bool:
    """Whether ``texts[i]`` exists and reads as an author line or a single name."""
    return len(texts) > i and (author_score(texts[i]) >= 2.5 or name_shape(texts[i]) == 1.0)


def _title_here(texts: list[str], i: int, titles: int) -> bool:
    """Whether ``texts[i]``, under the track lines and ``titles`` title-like lines that open a block, is a
    title-like header line: the first one a Title Case line, or a line without a full stop above the authors or
    above a title and the authors (a track of one area, then the title); a second one right above the authors."""
    text = texts[i]
    if titles == 1:
        return _authors_line(texts, i + 1) and (_title_line(text) or _open_end(text))
    if titles or not (_title_line(text) or _open_end(text)):
        return False
    return _title_line(text) or _authors_line(texts, i + 1) or (
        len(texts) > i + 2 and _open_end(texts[i + 1]) and not is_prose(texts[i + 1]) and _authors_line(texts, i + 2))


def _header_prefix(block: list[tuple[int, str]], titled: bool = False) -> int:
    """How many leading lines of a block of several lines are header lines (title, author,
    track or label lines) rather than the first lines of a paragraph wrapped over several lines.

    Header lines: an author line, a track line with a separator, a label; a title line
    first; a single name after a title.  They count when one of them is an author, name,
    track or label line, or when a title line is followed by a line opening a sentence
    (an uppercase letter), not by the lowercase rest of a wrapped sentence.  0 otherwise.
    In a ``titled`` list (:func:`titles_first`), a first line that may be a title (:func:`_title_above`) is one.
    A single short line under such header lines that is not a sentence (a stray word, page
    furniture such as ``Page 3``) is a header candidate too (all lines are headers): it is no abstract,
    and the roles then name it (:func:`choose_roles`, with a warning in the reader).
    """
    if len(block) < 2:
        return 0
    texts = [strip_number(clean(raw))[2] for _, raw in block]
    k, strong, tracks, titles = 0, False, 0, 0  # how many track lines open the block, title-like lines follow
    for i, text in enumerate(texts[:4]):
        if not text or is_prose(text):  # (a long line is prose unless it is an author line)
            break
        if len(parse_track(text) or ()) >= 2 and tracks == i:
            strong, tracks = True, tracks + 1
        elif author_score(text) >= 2.5 or len(parse_track(text) or ()) >= 2 or \
                strip_label(text)[0] in ("title", "authors", "track"):
            strong = True
        elif i == tracks + titles and (_title_here(texts, i, titles) or (titled and i == 0 and _title_above(block))):
            titles += 1
        elif i > 0 and k == i and name_shape(text) == 1.0 and not SENTENCE_END.search(text):
            strong = True  # a single author under a title
        elif i > 0 and k == i and strong and titles == 0 and _title_line(text):
            titles += 1  # a title under the author (or track) lines
        else:
            break
        k = i + 1
    rest = texts[k:]
    if strong and len(rest) == 1 and not is_prose(rest[0]) and prose_score(rest[0]) < 0 and \
            not SENTENCE_END.search(rest[0]):
        return len(texts)  # a stray short line (a word, page furniture) under header lines: no abstract
    if k == 0 or (rest and not re.match(r"^[\"'“‘(\[]?(?:[A-Z0-9$\\*]|[^\x00-\x7f])", rest[0])):
        return 0
    return k if strong or rest else 0


def _paragraph_lines(lines: list[tuple[int, str]]) -> bool:
    """True when ``lines`` may be the lines of one paragraph wrapped over several: none is a label or a
    track line with a separator (the header lines of a labelled entry), and none is a paragraph on its
    own (:func:`is_prose`: a line of an unwrapped abstract, which the lines of a next paper in the
    same block may follow). Author lines are not looked for: wrapped lines such as ``Conditional,
    Interventional, and Baseline SHAP, while exploring both`` read as names."""
    for _, raw in lines:
        text = strip_number(clean(raw))[2]
        if strip_label(text)[0] is not None or len(parse_track(text) or ()) >= 2 or is_prose(text):
            return False
    return True


def _wrapped_start(block: list[tuple[int, str]]) -> bool:
    """True when a block opens with a sentence wrapped over two lines: the first line ends without a
    full stop and is no track, label or author line, and the second goes on in lower case (the rest of
    a sentence, not the line under a title or an author line), so the block is one paragraph."""
    if len(block) < 2:
        return False
    first, second = (strip_number(clean(raw))[2] for _, raw in block[:2])
    return bool(re.match(r"[a-z]", second)) and not SENTENCE_END.search(first) and author_score(second) < 2.5 \
        and author_score(first) < 2.5 and len(parse_track(first) or ()) < 2 and strip_label(first)[0] is None


def blocks_to_items(blocks: list[list[tuple[int, str]]], numbered: set[int], labelled: bool, compact: bool,
                    titled: bool = False) -> list[Item]:
    """Turn blocks into items: header lines one by one, then the rest of the block as one prose paragraph.

    Unless the list is ``compact``, a block of several lines is one paragraph
    (after its number, label or page words): line-wrapped abstracts stay whole.  In a compact
    list too when the lines under the block's header lines (:func:`_header_prefix`) are the
    lines of a paragraph wrapped over several (:func:`_paragraph_lines`), or the block opens
    with a wrapped sentence (:func:`_wrapped_start`); else each line is a header candidate.

    ``blocks`` as :func:`split_blocks` gives them; ``numbered``: the lines whose number opens a paper
    (:func:`find_numbering`); ``labelled``: the list uses field labels; ``compact``: :func:`is_compact`;
    ``titled``: :func:`titles_first`.
    Returns the :class:`Item` of every line in order (a numbered line gives a ``number`` item and the
    item of its rest). Raises nothing.
    """
    items: list[Item] = []
    for b, block in enumerate(blocks):
        prose: Item | None = None
        heads = _header_prefix(block, titled)
        # compact: header lines are read one by one, unless they stand above an abstract wrapped over
        # several lines, whose first line then opens one paragraph (else each wrapped line is a header
        # candidate, and the next block's title and authors join this paper's abstract)
        wrapped = compact and ((heads > 0 and len(block) - heads >= 2 and _paragraph_lines(block[heads + 1:]))
                               or (heads == 0 and _wrapped_start(block)))
        if compact and not wrapped:
            heads = 0
        for index, (number, raw) in enumerate(block):
            text = clean(raw)
            marked = False
            if number in numbered:
                style, value, rest = strip_number(raw.lstrip())
                if style:
                    items.append(Item("number", number, clean(raw)[:len(text) - len(clean(rest))].strip(),
                                       number=value, mark=True, block=b))
                    raw, text, marked = rest, clean(rest), True
                    if not text:
                        continue
            if prose is not None and not marked:
                name, _ = strip_label(text)
                if not (labelled and name in ("title", "authors", "track", "keywords", "status")) and \
                        name not in ("tldr", "submission") and not page_words(text) and not furniture(text):
                    prose.raw.append(raw)
                    prose.end = number
                    continue
            item = _line_item(number, raw, b, marked, labelled)
            if item.kind in ("short", "track") and (not compact or wrapped) and index >= heads and \
                    (index + 1 < len(block) or heads > 0):
                item = Item("prose", number, item.text, [raw], mark=marked, block=b)
            if item.kind == "label" and item.field_name == "abstract":
                item = Item("prose", number, item.text, [item.raw[0]], field_name="abstract", mark=marked, block=b,
                             note=item.note)
            item.end = number
            items.append(item)
            prose = item if item.kind == "prose" else None
    return items


# ----------------------------------------------------------------------------
# Entries

@dataclass
class EntryDraft:
    """An entry under construction (what :func:`group_drafts` gives): its items, in order, before and after
    its abstract starts."""

    items: list[Item] = field(default_factory=list)
    header_block: bool = False  # opened by an unnumbered title + author block in a numbered list

    def has_abstract(self) -> bool:
        """True once a prose paragraph (an abstract, labelled or not) is in the draft."""
        return any(i.kind == "prose" for i in self.items)

    @property
    def line(self) -> int:
        """The draft's first line."""
        return self.items[0].line


def group_drafts(items: list[Item], abstract_only: bool, marked_file: bool, pages_lead: bool) -> list[EntryDraft]:
    """Group items into entry drafts.

    A number or bullet always opens a draft; in a numbered or bulleted list
    nothing else does.  Otherwise a title/authors/track line after an
    abstract opens one (a labelled one only when its label opens entries in this file: ``Title:``, or a label
    above the list's first abstract, such as ``Keywords:`` above ``Title:``; or when it appears twice; or
    when no label opens entries and it starts a block: a ``Track:`` or OpenReview ``Primary Area:`` line
    right under ``Abstract:`` belongs to the paper above), and so does a prose paragraph in
    a list of abstracts alone, or page words when the list puts them before a paper.

    ``items`` as :func:`blocks_to_items` gives them; ``abstract_only``: :func:`is_abstract_only` (for a list
    neither numbered nor labelled); ``marked_file``: the list is numbered or bulleted; ``pages_lead``: page
    words come before the first abstract. Returns the drafts in order, every item in one. Raises nothing.
    """
    drafts: list[EntryDraft] = []
    cur: EntryDraft | None = None
    first_abstract = next((k for k, i in enumerate(items) if i.kind == "prose" or
                           (i.kind == "label" and i.field_name == "abstract")), len(items))
    openers = {i.field_name for i in items[:first_abstract] if i.kind == "label" and i.field_name != "abstract"}
    header_block = False
    for k, item in enumerate(items):
        starts = False
        if cur is None:
            starts = True
        elif item.kind == "number":
            starts = True
        elif marked_file:
            starts = header_block = _unmarked_entry(item, items[k - 1], items[k + 1] if k + 1 < len(items) else None,
                                                    cur)
        elif item.kind == "label" and item.field_name != "abstract":
            starts = _label_opens(item, items[k - 1], cur, openers)
        elif item.kind in ("short", "track"):
            starts = cur.has_abstract()
        elif item.kind == "prose":
            starts = abstract_only and cur.has_abstract()
        elif item.kind == "page":
            starts = pages_lead and cur.has_abstract()
        if starts:
            cur = EntryDraft(header_block=header_block)
            drafts.append(cur)
            header_block = False
        cur.items.append(item)
    return drafts


def _label_opens(item: Item, before: Item, cur: EntryDraft, openers: set) -> bool:
    """Whether the label ``item`` (after ``before``) opens a new draft after ``cur``, in a list whose labels above
    its first abstract are ``openers`` (see :func:`group_drafts`)."""
    header = item.field_name in ("title", "authors", "track")
    if header and any(i.kind == "label" and i.field_name == item.field_name for i in cur.items):
        return True
    return cur.has_abstract() and (item.field_name in openers or item.field_name == "title" or
                                   (header and not openers and item.block != before.block))


def _unmarked_entry(item: Item, before: Item, after: Item | None, cur: EntryDraft) -> bool:
    """True when, in a numbered or bulleted list, ``item`` opens a paper that has no number:
    after a blank line that follows an abstract, a ``Title:`` label, or a title line (a header
    line of its block) with more of the block after it (an author line, a label, the abstract)."""
    if not cur.has_abstract() or item.mark or item.block == before.block:
        return False
    if item.kind == "label":
        return item.field_name == "title"
    if item.kind != "short" or after is None or after.block != item.block or \
            after.kind not in ("short", "label", "prose", "track"):
        return False
    return _title_line(item.text) or (not SENTENCE_END.search(item.text) and author_score(after.text) >= 2.5)


def split_by_header_pattern(drafts: list[EntryDraft]) -> list[EntryDraft]:
    """Split drafts holding more blank-separated header lines than the list's usual entry.

    When most entries have ``k`` header lines and a draft has ``k + 2`` or more, the last ``k`` open a new
    entry (:func:`_pattern_cut`): either each header line is its own block, and the ones before stay with
    the first (a short abstract taken for a header); or the last ``k`` are one block of their own and the
    block above ends on a name (a title and author block with no abstract, such as a keynote, above a paper:
    it is then reported rather than read into that paper).

    Returns the drafts in order (new ones for those split; the items are not copied). Raises nothing.
    """
    counts = Counter(len(header_items(d)) for d in drafts)
    if not counts:
        return drafts
    k = counts.most_common(1)[0][0]
    out: list[EntryDraft] = []
    for draft in drafts:
        cut = _pattern_cut(draft, k)
        if cut:
            out += [EntryDraft(draft.items[:cut]), EntryDraft(draft.items[cut:])]
        else:
            out.append(draft)
    return out


def _pattern_cut(draft: EntryDraft, k: int) -> int:
    """Where :func:`split_by_header_pattern` cuts ``draft`` when the list's entries have ``k`` header lines:
    the index of the new entry's first item, or 0 for no cut."""
    heads = header_items(draft)
    if k < 1 or len(heads) < k + 2 or draft.items[:len(heads)] != heads or any(h.kind != "short" for h in heads):
        return 0
    cut = len(heads) - k
    blocks = [h.block for h in heads]
    if len(set(blocks)) == len(blocks):
        return cut
    new_block = len(set(blocks[cut:])) == 1 and blocks[cut - 1] != blocks[cut]
    return cut if new_block and author_score(heads[cut - 1].text) >= NAME_LINE else 0


def is_abstract_only(items: list[Item]) -> bool:
    """True when the list gives abstracts alone: header lines are rare next to prose paragraphs
    (a few short one-line paragraphs do not make a list of titles). ``items`` as :func:`blocks_to_items`
    gives them. Raises nothing."""
    headers = sum(1 for i in items if i.kind in ("short", "track") or
                  (i.kind == "label" and i.field_name in ("title", "authors", "track")))
    prose = sum(1 for i in items if i.kind == "prose")
    return headers <= 0.25 * prose


def split_overfull(draft: EntryDraft) -> list[EntryDraft]:
    """Split a draft holding two papers whose first abstract was too short to be seen as prose.

    Evidence: a second strong author line among the header items.  The new
    entry starts as many items before it as the first author line has before it;
    the first part may hold no abstract at all (title and authors alone), which
    is then reported rather than read into the next paper.

    Returns the parts in order (``[draft]`` when not split). Raises nothing.
    """
    heads = [k for k, item in enumerate(draft.items) if item.kind in ("short", "track", "label", "number")]
    strong = [k for k in heads if draft.items[k].kind == "short" and author_score(draft.items[k].text) >= 3.0]
    # two author-like lines in a row are one paper's title and authors ("A and B Recovery" / "C, D")
    strong = [k for n, k in enumerate(strong) if n == 0 or strong[n - 1] != k - 1]
    if len(strong) < 2 or any(i.kind == "prose" for i in draft.items[:strong[-1]]):
        return [draft]
    lead = strong[0]
    # the first part may end right after its author line only when a title line stands above that line
    # (title and authors with no abstract); after a number alone, the "author line" is a title
    titled = any(i.kind != "number" for i in draft.items[:lead])
    cuts = []
    for k in strong[1:]:
        cut = k - lead
        if cut > (cuts[-1] if cuts else strong[0] + (0 if titled else 1)):
            cuts.append(cut)
    parts, start = [], 0
    for cut in cuts:
        parts.append(EntryDraft(draft.items[start:cut]))
        start = cut
    parts.append(EntryDraft(draft.items[start:]))
    return parts


@dataclass
class FileEvidence:
    """What the whole file says: how often each short line recurs over different papers (``repeats``, see
    :func:`_recurring`; a line over two papers is a track, never a title), and whether the first header line of
    entries recurs often (a track column, since titles are unique)."""

    repeats: Counter
    track_column: bool = False


def file_evidence(drafts: list[EntryDraft]) -> FileEvidence:
    """The :class:`FileEvidence` of a list's drafts: how often each short header line recurs, and whether
    the first header lines of entries are a track column (read from four or more entries opening with a short
    line): they recur often enough, or, in entries that mostly hold three short header lines (a track, a title
    and the authors), they are short and without colons. A single short line above the authors that never recurs is a
    title more often than a track: tracks recur, titles do not. Raises nothing."""
    heads = [h for h in (header_items(d) for d in drafts) if h and h[0].kind == "short"]
    repeats = _recurring(drafts)
    firsts = [h[0].text for h in heads]
    if len(firsts) < 4:
        return FileEvidence(repeats)
    rate = sum(repeats[t] >= 2 for t in firsts) / len(firsts)
    median = sorted(len(t) for t in firsts)[len(firsts) // 2]
    colons = sum(":" in t for t in firsts) / len(firsts)
    # three short header lines (track, title, authors) in most entries: one of them is a track, likely the first
    three = sum(sum(i.kind == "short" for i in h) >= 3 for h in heads) >= 0.5 * len(heads)
    return FileEvidence(repeats, rate >= 0.3 or (three and median <= 45 and colons < 0.1))


def _recurring(drafts: list[EntryDraft]) -> Counter:
    """How often each short header line recurs (:attr:`FileEvidence.repeats`): in how many entries whose other
    short header lines differ. The same paper listed twice repeats all its lines, and counts once."""
    others: dict[str, set] = {}
    for draft in drafts:
        texts = [i.text for i in header_items(draft) if i.kind == "short"]
        for text in texts:
            others.setdefault(text, set()).add(tuple(t for t in texts if t != text))
    return Counter({text: len(contexts) for text, contexts in others.items()})


def _role_scores(item: Item, evidence: FileEvidence, first: bool) -> dict[str, float]:
    """Local evidence for each role a short line can take (``first``: the entry's first header line, the one a
    track column puts a track on)."""
    text = item.text
    prose = prose_score(text)
    track = track_score(text, evidence.repeats[text])
    title = title_score(text)
    if evidence.track_column and first and author_score(text) < 2.5:
        track, title = track + 3.0, title - 3.0
    if evidence.repeats[text] >= 2:
        title -= 4.0  # one line over papers with different authors or titles: not a title
    return {
        "title": title,
        "track": track,
        "authors": author_score(text),
        "abs": prose,
        "cont": prose,
    }


def _assignments(n: int, fixed: list[str | None], allow_cont: bool) -> Iterable[tuple[str, ...]]:
    """Every order-respecting role tuple for ``n`` header items.

    The shape is ``cont* {title, track, authors} abs*``: leading items may
    continue the previous abstract, title/track/authors appear at most once
    each (in any order; :func:`choose_roles` prefers title, track, authors),
    trailing items open the abstract.  ``fixed`` pins the
    role of labelled or separator-track items.
    """
    subsets = [p for k in range(4) for s in itertools.combinations(("title", "track", "authors"), k)
               for p in itertools.permutations(s)]
    for conts in range(n + 1 if allow_cont else 1):
        for middle in subsets:
            if conts + len(middle) > n:
                continue
            combo = ("cont",) * conts + middle + ("abs",) * (n - conts - len(middle))
            if all(f is None or f == r for f, r in zip(fixed, combo)):
                yield combo


@functools.lru_cache(maxsize=4096)
def _assignments_cached(n: int, fixed: tuple[str | None, ...], allow_cont: bool) -> tuple[tuple[str, ...], ...]:
    """:func:`_assignments` as a tuple, computed once per ``(n, fixed, allow_cont)``."""
    return tuple(_assignments(n, fixed, allow_cont))  # type: ignore[arg-type]


_CANONICAL = ["title", "track", "authors"]
AMBIGUOUS_MARGIN = 1.5  # below this score margin a role choice is reported as a warning


def _fixed_roles(headers: list[Item]) -> list[str | None]:
    """The role each header item is pinned to (a separator track line, a label), None where evidence decides."""
    fixed: list[str | None] = []
    for item in headers:
        if item.kind == "track":
            fixed.append("track")
        elif item.kind == "label":
            fixed.append({"title": "title", "authors": "authors", "track": "track"}.get(item.field_name or ""))
        else:
            fixed.append(None)
    return fixed


def layout_of(roles: Iterable[str]) -> tuple[str, ...]:
    """The layout of an entry's roles: its title, track and authors, in their order (what the list-level prior
    of :func:`choose_roles` counts)."""
    return tuple(r for r in roles if r in _CANONICAL)


def scored_roles(headers: list[Item], repeats: FileEvidence, prior: Counter | None, allow_cont: bool
                 ) -> list[tuple[float, tuple[str, ...]]]:
    """Every role tuple :func:`choose_roles` considers for ``headers``, with its score, best first (see there)."""
    fixed = _fixed_roles(headers)
    local = [_role_scores(i, repeats, n == 0) if f is None else None for n, (i, f) in enumerate(zip(headers, fixed))]
    total = sum(prior.values()) if prior else 0
    scored = []
    for combo in _assignments_cached(len(headers), tuple(fixed), allow_cont):
        score = sum(0.0 if loc is None else loc[r] for loc, r in zip(local, combo))
        middle = [r for r in combo if r in _CANONICAL]
        if middle != sorted(middle, key=_CANONICAL.index):
            score -= 1.5  # title, track, authors is the usual order
        if prior is not None and total and all(r == "cont" for r in combo):
            score += 2.5 * math.log(0.2)  # a draft read wholly as continuation makes no entry: a mild cost
        elif prior is not None and total:
            score += 2.5 * math.log((prior[layout_of(combo)] + 0.5) / (total + 1))
        scored.append((score, combo))
    scored.sort(key=lambda s: -s[0])
    return scored


def choose_roles(headers: list[Item], repeats: FileEvidence, prior: Counter | None, allow_cont: bool
                ) -> tuple[tuple[str, ...], float]:
    """Choose roles for the header items of one entry; returns the roles and the margin over the runner-up.

    ``headers``: the draft's :func:`header_items`; ``repeats``: the list's :func:`file_evidence`; ``prior``:
    how many entries of the list use each tuple of roles (title, track, authors in their order; see
    :func:`list_layouts`), None in the first pass; ``allow_cont``: leading items may continue the abstract above.
    Returns ``(roles, margin)``: one of ``"title"``, ``"track"``, ``"authors"``, ``"abs"`` (an abstract
    paragraph) or ``"cont"`` (a further paragraph of the abstract above) per header item, and the score margin
    over the runner-up (99.0 without a runner-up, 0.0 when no assignment fits and all are ``"abs"``; below
    :data:`AMBIGUOUS_MARGIN` the reader warns). Raises nothing."""
    scored = scored_roles(headers, repeats, prior, allow_cont)
    if not scored:
        return tuple("abs" for _ in headers), 0.0
    margin = scored[0][0] - scored[1][0] if len(scored) > 1 else 99.0
    return scored[0][1], margin


#: How much worse than its own best layout an entry may find the list's layout and still count for it.
LAYOUT_FIT = 4.0


@dataclass
class ListLayouts:
    """The layouts of a list's entries (:func:`list_layouts`): ``counts``, how many entries use each layout
    (title, track, authors in their order; ``()`` for none), the prior of :func:`choose_roles`' second pass;
    ``shared``, the layout the entries of each header shape share (shape: the kinds of their header lines) and
    ``sizes``, how many entries have that shape."""

    counts: Counter
    shared: dict = field(default_factory=dict)
    sizes: Counter = field(default_factory=Counter)


def list_layouts(heads_of: list[list[Item]], repeats: FileEvidence) -> ListLayouts:
    """The layouts of a list's entries (``heads_of``: each entry's :func:`header_items`), decided for the list as
    a whole: the entries whose header lines have the same kinds (e.g. short, track, short) share the layout with
    the highest total score over all of them (each entry's score for a layout relative to its own best), and an
    entry counts for that layout unless it finds it more than :data:`LAYOUT_FIT` worse than its own best (then
    it counts for its own: a list that really mixes layouts keeps them). Raises nothing."""
    tables: dict[tuple, list[dict[tuple, float]]] = {}
    result = ListLayouts(Counter())
    for heads in heads_of:
        if not heads:
            result.counts[()] += 1
            continue
        table: dict[tuple, float] = {}
        for score, combo in scored_roles(heads, repeats, None, False):
            table.setdefault(layout_of(combo), score)  # best first: the best score of each layout
        tables.setdefault(tuple(i.kind for i in heads), []).append(table)
    for shape, group in tables.items():
        totals: Counter = Counter()
        for table in group:
            best = max(table.values(), default=0.0)
            for layout in set.intersection(*(set(t) for t in group)):
                totals[layout] += table[layout] - best
        shared = max(sorted(totals), key=lambda layout: totals[layout]) if totals else None
        result.shared[shape], result.sizes[shape] = shared, len(group)
        for table in group:
            own = max(table, key=lambda layout: table[layout]) if table else ()
            result.counts[shared if shared is not None and table[shared] >= table[own] - LAYOUT_FIT else own] += 1
    return result


def header_items(draft: EntryDraft) -> list[Item]:
    """The header items of a draft: shorts, tracks and header labels (title, authors, track) before its first
    prose paragraph or abstract label, in order (``[]`` when there are none). Raises nothing."""
    out = []
    for item in draft.items:
        if item.kind == "prose" or (item.kind == "label" and item.field_name == "abstract"):
            break
        if item.kind in ("short", "track") or (item.kind == "label" and item.field_name in ("title", "authors", "track")):
            out.append(item)
    return out
