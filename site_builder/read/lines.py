"""List reader, stage 3: what one line is (number, label, page words, track, authors) and the
evidence that a short line is a title, track, author line or abstract text."""

from __future__ import annotations

import functools
import re

from .text import clean


LABELS = {
    "title": "title", "paper title": "title", "paper": "title", "标题": "title", "题目": "title", "論文題目": "title",
    "authors": "authors", "author": "authors", "author(s)": "authors", "by": "authors", "作者": "authors",
    "abstract": "abstract", "summary": "abstract", "tl;dr": "tldr", "摘要": "abstract", "简介": "abstract",
    "track": "track", "area": "track", "primary area": "track", "subject area": "track", "session": "track",
    "topic": "track", "category": "track", "领域": "track", "方向": "track", "分类": "track", "主题": "track",
    "keywords": "keywords", "keyword": "keywords", "关键词": "keywords", "關鍵詞": "keywords",
    "status": "status", "decision": "status", "type": "status", "presentation": "status", "类型": "status",
    "submission number": "submission", "submission id": "submission", "paper id": "submission",
    "paper number": "submission", "论文编号": "submission", "投稿编号": "submission",
}
_LABEL = re.compile(r"^(?:\*\*)?(?P<label>" + "|".join(sorted((re.escape(k) for k in LABELS), key=len, reverse=True))
                    + r")(?:\*\*)?\s*[:：](?:\*\*)?\s*", re.I)

_BARE_ABSTRACT = re.compile(r"^\s*(?:\*\*)?(?:abstract|summary|摘要)(?:\*\*)?\s*$", re.I)


def strip_label(text: str) -> tuple[str | None, str]:
    """Split a field label off ``text``: ``("title", "Foo")`` for ``Title: Foo``, ``(None, text)`` without one.

    Field names are ``title``, ``authors``, ``abstract``, ``track``, ``keywords``, ``status``,
    ``tldr``, ``submission`` (OpenReview's ``Submission Number:``, kept as a page word).  A line holding only ``Abstract``, ``Summary`` or ``摘要`` (no colon) is an
    abstract label too: ``("abstract", "")``.
    """
    m = _LABEL.match(text)
    if not m:
        if _BARE_ABSTRACT.match(text):
            return "abstract", ""
        return None, text
    return LABELS[m["label"].lower()], text[m.end():]


_NUMBER = re.compile(r"^(?:(?P<dot>\d{1,5})[.．、](?!\d)|\[(?P<br>\d{1,5})\]|\((?P<par>\d{1,5})\)|（(?P<fpar>\d{1,5})）"
                     r"|(?P<rpar>\d{1,5})\)|#(?P<hash>\d{1,5})|No\.\s*(?P<no>\d{1,5}))(?:\s+|$)")
_BULLET = re.compile(r"^(?:[-*•▪●◦‣·–—+]|\d{1,5}\s*[-–—])(?:\s+|$)")


def strip_number(text: str) -> tuple[str | None, int | None, str]:
    """Split a list number or bullet off ``text``.

    Returns ``(style, number, rest)``: ``("[]", 12, "Title")`` for ``[12] Title``,
    ``("bullet", None, "Title")`` for ``- Title``, ``(None, None, text)`` otherwise.
    Styles: ``"."``, ``"[]"``, ``"()"``, ``")"``, ``"#"``, ``"no"``, ``"bullet"``.
    """
    m = _NUMBER.match(text)
    if m:
        for style, name in ((".", "dot"), ("[]", "br"), ("()", "par"), ("()", "fpar"), (")", "rpar"),
                            ("#", "hash"), ("no", "no")):
            if m[name] is not None:
                return style, int(m[name]), text[m.end():]
    m = _BULLET.match(text)
    if m and not re.match(r"^[-–—]\d", text):
        return "bullet", None, text[m.end():]
    return None, None, text


PAGE_WORDS = {"pdf", "bibtex", "bib", "code", "poster", "oral", "spotlight", "highlight", "slides", "slide", "video",
              "videos", "paper", "openreview", "arxiv", "project", "page", "project page", "supplementary",
              "supplemental", "material", "website", "reviews", "review", "download", "cite", "citation", "github",
              "link", "links", "html", "doi", "abs", "talk", "demo", "dataset", "expand", "more", "show", "less",
              "details", "copy", "award", "best paper", "论文", "代码", "海报", "下载", "链接", "引用", "详情", "展开",
              "收起", "视频", "口头报告", "[pdf]", "[code]", "[bibtex]", "[slides]", "[video]"}
STATUS_WORDS = {"oral": "Oral", "poster": "Poster", "spotlight": "Spotlight", "highlight": "Highlight"}
#: A citation count as aggregators print it beside a paper's links (found by the third new-user pass).
_CITED = re.compile(r"(?:\bcited\s+by|\bcitations?\s*[:：]?|被引(?:用)?(?:次数)?\s*[:：]?|引用(?:次数|数)\s*[:：]?)\s*\d[\d,]*",
                    re.I)
_PAGE_SPLIT = re.compile(r"\s*(?:[|·•/,;]|\s)\s*")


def page_words(text: str) -> tuple[str, ...] | None:
    """Return the words of a line made only of page words (``PDF · Bibtex``), else None."""
    text = clean(text)
    if not text or len(text) > 60:
        return None
    if text.lower() in PAGE_WORDS:
        return (text,)
    cited = _CITED.search(text)  # "[PDF] [Code] Cited by 120", "引用次数: 120": an aggregator's citation count
    if cited:
        rest = page_words(text[:cited.start()] + " " + text[cited.end():]) if text[:cited.start()].strip() or \
            text[cited.end():].strip() else ()
        return None if rest is None else (*rest, cited.group().strip())
    words = [w for w in _PAGE_SPLIT.split(text) if w]
    if words and all(w.lower().strip("[]()") in PAGE_WORDS or w.lower() in PAGE_WORDS for w in words):
        # two-word page words like "Project Page" are fine word by word
        return tuple(words)
    return None


#: Site-navigation and action words of a conference or aggregator page (buttons and links pasted with a
#: list): a line made of these (and page words) only is page furniture (:func:`furniture`). Words that
#: could be a track or a one-word title (``Search``, ``Top``, ``Sort``, ``Collapse``, ``Save``) are left out.
FURNITURE_WORDS = {
    "back to top", "return to top", "scroll to top", "go to top", "to top", "show all", "show more", "show less",
    "view all", "see all", "expand all", "collapse all", "hide abstract", "show abstract", "filter", "filters",
    "sort by", "share", "tweet", "bookmark", "favourite", "favorite", "favourites", "favorites",
    "add to favourites", "add to favorites", "cite this", "cite this paper", "export citation", "copy link",
    "copy bibtex", "permalink",
    "收藏", "分享", "下载", "引用", "返回顶部", "回到顶部", "返回首页", "显示全部", "查看全部", "全部", "筛选",
    "排序", "排序方式", "导出", "复制", "复制链接", "点赞", "更多", "全文", "下载全文", "打印", "上一页", "下一页",
}
_FURNITURE_SEP = r"[\s·|/•｜／、↑⬆]*"
#: A count or a page number of a listing: ``共 8 篇``, ``1,645 papers``, ``Showing 1-50 of 1645 results``,
#: ``Page 1 of 12 Next »``, ``第 1 页 / 共 12 页``.
_COUNT_LINE = re.compile(r"共\s*\d[\d,]*\s*(?:篇|条)(?:论文|文章|结果)?|\d[\d,]*\s+(?:papers|results)(?:\s+found)?"
                         r"|showing\s+\d[\d,]*(?:\s*[-–]\s*\d[\d,]*)?\s+of\s+\d[\d,]*(?:\s+(?:papers|results))?"
                         r"|(?:«\s*(?:prev|previous)\s+)?page\s+\d+\s+of\s+\d+(?:\s+(?:next|last)(?:\s*»)?)?"
                         r"|第\s*\d+\s*页(?:\s*/?\s*共\s*\d+\s*页)?")


@functools.cache
def _furniture_line() -> re.Pattern[str]:
    phrases = sorted(FURNITURE_WORDS | {w for w in PAGE_WORDS if not w.startswith("[")}, key=len, reverse=True)
    # a Latin word is whole (``showall`` is no ``show all``); Chinese words may touch (``下载PDF``)
    word = "|".join((r"(?<![a-z])" if p[0].isascii() else "") + r"\s+".join(map(re.escape, p.split()))
                    + (r"(?![a-z])" if p[-1].isascii() else "") for p in phrases)
    return re.compile(rf"{_FURNITURE_SEP}(?:[\[(]?(?:{word})[\])]?{_FURNITURE_SEP})+")


def furniture(text: str) -> bool:
    """True when ``text`` is a line of page furniture: at most 60 characters of site-navigation or action
    words (:data:`FURNITURE_WORDS`, ``Back to top``, ``Show all · Filter · Sort by``, ``收藏 | 分享 |
    下载PDF``), with page words (:data:`PAGE_WORDS`) among them or not, separated by spaces, ``·``, ``|``,
    ``/`` or ``•``, and not a line of page words (:func:`page_words`: those are kept with the paper); or a
    count or page number of the listing (``共 8 篇``, ``Page 1 of 12 Next »``); or breadcrumbs (``首页 > 会议 >
    NeurIPS 2024``); or a line of symbols alone,
    without a letter or digit (``@@@@ ### ~~~``). Such a line is no title, track, author line or abstract text: the reader drops it with a warning."""
    text = clean(text)
    if not text or len(text) > 60:
        return False
    if not any(c.isalnum() for c in text):
        return True  # symbols alone (``@@@@ ### ~~~``, ``* * *``): a separator or a garbled line, never a field
    lower = text.lower()
    if _COUNT_LINE.fullmatch(lower) or _BREADCRUMBS.match(lower):
        return True
    return bool(_furniture_line().fullmatch(lower)) and not page_words(text)


#: A page's breadcrumbs (``Home > Conferences > NeurIPS 2024``, ``首页 > 会议``): no track (third new-user pass).
_BREADCRUMBS = re.compile(r"(?:home|homepage|首页|主页|首頁|主頁)\s*(?:›|»|→|->|>|/)\s*\S")


_TRACK_SEP = re.compile(r"\s*(?:·|›|»|→|->|=>|>)\s*")
_TRACK_SEP_SPACED = re.compile(r"\s+(?:·|›|»|→|->|=>|>)\s+|\s*[·›»→]\s*")


def parse_track(text: str) -> tuple[str, ...] | None:
    """Return the area path of a track line with a separator, e.g. ``("Theory", "Learning Theory")``.

    Separators: ``·``, ``›``, ``»``, ``→``, ``->``, ``=>``, ``>`` (the ASCII ones with spaces
    around them).  Returns None when ``text`` has none or does not look like a track.
    """
    text = clean(text)
    if len(text) > 160 or not _TRACK_SEP_SPACED.search(text) or re.search(r"[.!?。]$|https?://|\$", text):
        return None
    parts = tuple(p.strip() for p in _TRACK_SEP_SPACED.split(text))
    if len(parts) > 4 or any(not p or len(p) > 80 for p in parts):
        return None
    if any(len(p.split()) > 9 for p in parts):
        return None
    return parts


_ET_AL = re.compile(r"(?:\s*[,;，、]?\s*(?:等人?|et\s*al\.?|…|\.\.\.|and\s+others|等等)\s*)$", re.I)
# How every _ET_AL match in stripped text ends (re.I: ſ folds to s; a final "." only in "al." or "...").
_ET_AL_LAST = tuple("等人…lLsSſ") + ("l.", "L.", "...")
_AUTHOR_SEP = re.compile(r"(?=[\s;；，、,])\s*(?:[;；，、]|,(?:\s*and\s+)?|\s+and\s+|\s+&\s+|\s+和\s+|\s+[·•]\s+)\s*")


@functools.lru_cache(maxsize=65536)
def split_authors(text: str) -> tuple[tuple[str, ...], bool]:
    """Split an author line into names and whether it ends in ``等``/``et al.``/``…``.

    ``split_authors("A. Smith, B. Jones and C. Wu et al.") == (("A. Smith", "B. Jones", "C. Wu"), True)``.
    Separators: commas, semicolons, ``and``, ``&``, ``、``, a spaced ``·`` or ``•``; ``等`` is never an author.
    A trailing parenthesised affiliation is dropped: ``"Yang Liu (MIT)"`` → ``"Yang Liu"``.
    """
    text = _MARKERS.sub("", text.strip())
    et_al = False
    m = _ET_AL.search(text) if text.endswith(_ET_AL_LAST) else None
    if m and m.start() > 0:
        text, et_al = text[:m.start()], True
    text = _BRACKETED.sub(lambda b: b.group().replace(",", _KEPT_COMMA).replace(";", _KEPT_SEMICOLON), text)
    parts = _family_first(text) or [n.strip() for n in _AUTHOR_SEP.split(text)]
    names = (_without_affiliation(n.replace(_KEPT_COMMA, ",").replace(_KEPT_SEMICOLON, ";")) for n in parts if n)
    return tuple(n for n in names if n), et_al


#: Affiliation marks after a name: ``Ziwei Liu1,2`` or ``Wei Chen*†`` (digits right after a letter, a comma-
#: separated run of them, or symbols), dropped before splitting (found by the third new-user pass).
_MARKERS = re.compile(r"(?<=[^\W\d_])(?:\d{1,2}(?:\s*,\s*\d{1,2})*|[*†‡§¶#]+|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)(?=\s*(?:[,;，、]|$|\s(?:and|&)\s))")
#: A bracketed part (an affiliation: ``Yang Liu (MIT, CSAIL)``), whose commas do not separate names.
_BRACKETED = re.compile(r"[(（][^()（）]*[)）]")
_KEPT_COMMA, _KEPT_SEMICOLON = "\x00", "\x01"


def _family_first(text: str) -> list[str]:
    """``"Smith, John; Doe, Jane"`` → ``["John Smith", "Jane Doe"]``: names separated by semicolons, each a
    family name, a comma and given names (every part so, both sides name-shaped); ``[]`` for any other line."""
    parts = [part.partition(",") for part in re.split(r"\s*;\s*", text.strip())]
    if len(parts) < 2 or any(not comma or "," in given or not name_shape(family.strip()) or not name_shape(given.strip())
                             for family, comma, given in parts):
        return []
    return [f"{given.strip()} {family.strip()}" for family, _, given in parts]


_AFFILIATION = re.compile(r"\s*[(（][^()（）]*[)）]\s*$")


def _without_affiliation(name: str) -> str:
    """``"Yang Liu (MIT)"`` → ``"Yang Liu"``: a trailing parenthesised affiliation is not part of
    the name (none of the corpus's author names ends in one); a name that is only brackets is kept."""
    stripped = _AFFILIATION.sub("", name)
    return stripped if stripped else name


# ----------------------------------------------------------------------------
# Evidence for title / authors / track / prose

FUNCTION_WORDS = {"of", "for", "with", "in", "on", "to", "the", "a", "an", "via", "from", "by", "is", "are", "as",
                  "at", "under", "without", "beyond", "through", "towards", "toward", "using", "into", "over",
                  "do", "does", "can", "not", "be", "we", "our", "how", "what", "when", "why", "which", "that",
                  "this", "its", "their", "versus", "vs", "vs.", "or", "all", "is", "than", "between", "across",
                  "within", "against", "made", "meets", "your", "you", "it", "more", "less", "only", "need",
                  "learning", "learn", "model", "models", "network", "networks", "neural", "data", "deep",
                  "language", "based", "efficient", "robust", "towards", "graph", "graphs", "large", "multi",
                  "optimization", "generative", "diffusion", "reinforcement", "transformer", "transformers",
                  "attention", "training", "inference", "estimation", "analysis", "approach", "framework",
                  "benchmark", "dataset", "method", "methods", "detection", "segmentation", "generation",
                  "representation", "representations", "image", "images", "video", "3d", "policy", "bandits",
                  "algorithm", "algorithms", "theory", "robot", "robots", "robotic", "vision", "visual", "text",
                  "knowledge", "reasoning", "agents", "agent", "bayesian", "causal", "adversarial", "fast",
                  "scalable", "online", "optimal", "sparse", "stochastic", "convex", "linear", "nonlinear",
                  "gradient", "kernel", "sampling", "planning", "control", "manipulation", "retrieval", "question",
                  "answering", "translation", "dialogue", "speech", "embedding", "embeddings", "prediction",
                  "classification", "regression", "clustering", "privacy", "private", "fairness", "federated",
                  "bounds", "complexity", "games", "game", "problem", "problems", "system", "systems", "tasks",
                  "task", "evaluation", "understanding", "improving", "towards", "rethinking", "revisiting",
                  "unsupervised", "supervised", "self-supervised", "contrastive", "zero-shot", "few-shot",
                  "llms", "llm", "semantic", "temporal", "spatial", "dynamic", "dynamics", "search", "matching",
                  "tracking", "pose", "scene", "object", "objects", "human", "humans", "multimodal", "cross"}
TITLE_WORDS = {
    "learning", "model", "models", "network", "networks", "neural", "data", "language", "languages", "optimization",
    "generative", "diffusion", "reinforcement", "transformer", "transformers", "attention", "training", "inference",
    "estimation", "analysis", "approach", "framework", "benchmark", "dataset", "datasets", "method", "methods",
    "detection", "segmentation", "generation", "representation", "representations", "image", "images", "video",
    "videos", "algorithm", "algorithms", "theory", "robot", "robots", "robotic", "robotics", "vision", "knowledge",
    "reasoning", "agent", "agents", "bayesian", "causal", "adversarial", "scalable", "stochastic", "gradient",
    "kernel", "sampling", "planning", "manipulation", "retrieval", "question", "answering", "translation",
    "dialogue", "speech", "embedding", "embeddings", "prediction", "classification", "regression", "clustering",
    "privacy", "fairness", "federated", "bounds", "complexity", "games", "problem", "problems", "system", "systems",
    "task", "tasks", "evaluation", "understanding", "satisfaction", "processing", "mining", "management",
    "application", "applications", "paradigms", "ethics", "philosophy", "multimodal", "computer", "machine",
    "intelligence", "artificial", "constraint", "constraints", "uncertainty", "economic", "economics", "natural",
    "humans", "recognition", "graphs", "supervised", "unsupervised", "semi-supervised", "self-supervised",
    "simulation", "interpretability", "explainability", "robustness", "efficient", "efficiency", "via", "using",
    "towards", "toward", "track", "tracks", "papers", "paper", "demo", "demonstrations", "survey", "domain",
    "domain(s)", "multiagent", "multi-agent", "scheduling", "routing", "heuristic", "search", "consortium",
}
_PARTICLES = {"de", "da", "del", "della", "der", "den", "van", "von", "di", "du", "la", "le", "dos", "das", "do",
              "al", "el", "bin", "ibn", "y", "zu", "ter", "ten", "e", "st.", "mc", "d'", "dela", "des", "af"}


#: The characters of names written in CJK scripts, as a regular expression class body (Unicode 15.1 blocks,
#: https://www.unicode.org/charts/): the ideographs (the unified ones with extensions A to H, the compatibility
#: ideographs and their supplement: 﨑 in 山﨑, 𠮷 in 𠮷田), the iteration marks 々 and 〆, kana (hiragana,
#: katakana with its phonetic extensions, halfwidth katakana, the kana supplement and extensions) and hangul
#: (syllables, jamo, compatibility jamo, jamo extended A and B).
CJK_NAME_CHARS = ("\u3005\u3006\u3040-\u30ff\u31f0-\u31ff\u3130-\u318f\u1100-\u11ff\u3400-\u4dbf\u4e00-\u9fff"
                  "\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uf900-\ufaff\uff66-\uff9f\U0001b000-\U0001b16f"
                  "\U00020000-\U0002a6df\U0002a700-\U0002ebef\U0002f800-\U0002fa1f\U00030000-\U000323af")


@functools.cache
def _name_token() -> re.Pattern[str]:
    """A token shaped like part of a person's name (for :func:`name_shape`), compiled on first use, not at
    import (~5 ms of CPU that a rebuild whose lists come from the list cache does not spend)."""
    return re.compile(r"^(?:[A-Z\u00C0-\u00DE\u0100-\u024F\u0391-\u03A9\u0410-\u042F][\w\u0300-\u036f'’.\-]*|"
                      r"[A-Z]\.(?:[A-Z]\.?)*|[" + CJK_NAME_CHARS + r"]{1,6}|"
                      r"[A-Za-z][a-z]*[-'’][A-Z][\w'’\-]*|d[’'][A-Z]\w*|[A-Z]{2,4}|[a-z]{1,3}[A-Z][\w'’\-]+|"
                      r"\([A-Z][\w'’.\-]*\))$")


#: Matches the end of a line that ends a sentence: a full stop, question or exclamation mark (ASCII or
#: CJK), then any closing quotes or parenthesis (``SENTENCE_END.search(line)``).
SENTENCE_END = re.compile(r"[.!?。！？]['\"”’)]*$")


def split_words(text: str) -> list[str]:
    """The words of ``text``: its pieces between runs of white space, none empty (``"A  b c"`` gives
    ``["A", "b", "c"]``; ``""`` gives ``[]``). Raises nothing."""
    return text.split()  # the same as splitting at r"\s+" and dropping empty pieces (str.isspace == \s)


_INITIALS_COLON = re.compile(r"(?=[A-Z]\.)(?<![\w.])((?:[A-Z]\.)+[A-Z]):(?=\s)")


def _typo_initials(text: str) -> str:
    """``K.H: Tung`` as ``K.H. Tung``: a colon typed for the last dot of initials (seen in real author lists)."""
    if ":" not in text:
        return text
    return _INITIALS_COLON.sub(r"\1.", text)


_NOT_NAME_CHAR = re.compile(r"[\d:?!$@/\[\]{}=+*<>|]")
_OPEN_PAREN = re.compile(r"\((?![A-Z][\w'’.\-]*\))")
_LOWER_NAME_TOKEN = re.compile(r"[a-z\u00df-\u00ff][a-z\u00df-\u00ff\u0300-\u036f\-']{1,30}")


@functools.lru_cache(maxsize=65536)
def name_shape(name: str) -> float:
    """How much ``name`` looks like a person's name: 1.0 (capitalised tokens, initials,
    particles, CJK), 0.5 (all-lowercase tokens such as ``xiaofei wu`` or a user name), 0.0 (not a name).
    A colon typed for the last dot of initials (``Anthony K.H: Tung``) counts as the dot."""
    if len(name) > 60:
        return 0.0  # checked first: _typo_initials keeps the length
    name = _typo_initials(name)
    tokens = split_words(name)
    if not 1 <= len(tokens) <= 7 or len(name) > 60:
        return 0.0
    if any(t[0].islower() and t.strip(",.") in FUNCTION_WORDS and t not in _PARTICLES for t in tokens):
        return 0.0
    if any(part.lower() in TITLE_WORDS for t in tokens for part in [t, *t.split("-")]):
        return 0.0
    if _NOT_NAME_CHAR.search(name) or _OPEN_PAREN.search(name):
        return 0.0
    caps = weak = 0
    for t in tokens:
        if _name_token().match(t):
            caps += 1
        elif t.lower() in _PARTICLES:
            continue
        elif _LOWER_NAME_TOKEN.fullmatch(t) and len(tokens) <= 4:
            weak += 1
        else:
            return 0.0
    if weak:
        return 0.5
    return 1.0 if caps >= 1 else 0.0


def name_shaped(name: str) -> bool:
    """True when ``name`` looks like a person's name: 1–7 capitalised tokens, initials or particles."""
    return name_shape(name) == 1.0


# A match is at most 6 characters and ends at the end or before a final newline, so author_score
# searches only the last 7 (\b still sees the character before: the search position is not the string start).
_ENDS_INITIAL = re.compile(r"(?:\b[A-Z]\.|et al\.)$")


@functools.lru_cache(maxsize=65536)
def author_score(text: str) -> float:
    """Log-odds-like evidence that ``text`` is an author line (positive: authors)."""
    names, et_al = split_authors(text)
    if not names:
        return -9.0
    shapes = [name_shape(n) for n in names]
    text = _typo_initials(text)
    score = 4.0 if et_al else 0.0
    bad = shapes.count(0.0)
    score -= (6.0 if bad > 0.2 * len(names) else 2.0) * bad + 0.5 * shapes.count(0.5)
    if len(names) >= 2 and bad <= 0.2 * len(names):
        score += 3.0 + min(len(names), 6) * 0.3
        if all(_one_word(n) for n in names):
            score -= 3.0  # "Subscripts and Emphasis": single capitalised words, more often a title than mononyms
    elif 0.0 not in shapes:
        score += 0.5
        if len(names) == 1 and shapes == [1.0] and 2 <= len(split_words(names[0])) <= 4:
            score += 1.5  # one name such as "Ana Perez": an author line of one author
    if re.search(r"[:?!]|\d", _MARKERS.sub("", text)):  # affiliation marks (``Liu1,2``) are no digits here
        score -= 3.0
    if SENTENCE_END.search(text) and not _ENDS_INITIAL.search(text, max(0, len(text) - 7)):
        score -= 2.0
    return score


_LATIN_WORD = re.compile(r"[^\W\d_]+", re.ASCII)


def _one_word(name: str) -> bool:
    """Whether ``name`` is one word of Latin letters (a CJK name is written without spaces: not one)."""
    return _LATIN_WORD.fullmatch(name) is not None


_MARK_OR_DIGIT = re.compile(r"[?!\d]")


def _surely_not_authors(text: str) -> bool:
    """A cheap sufficient test that ``author_score(text) < 2.5`` for stripped ``text``: no et-al.
    ending (see _ET_AL_LAST) and a digit, ``?`` or ``!`` (which _typo_initials keeps), so the score is
    at most 3.0 + 6 * 0.3 (the largest bonus) - 3.0 = 1.8; affiliation marks (``Liu1,2``) do not count. Keep in
    step with author_score."""
    return not text.endswith(_ET_AL_LAST) and _MARK_OR_DIGIT.search(text) is not None and \
        _MARK_OR_DIGIT.search(_MARKERS.sub("", text)) is not None


#: Every match of _AUTHOR_SEP holds one of these (matches do not overlap, so there are at most as many
#: matches as non-overlapping occurrences of them, which ``str.count`` gives).
_SEPARATOR_MARKS = (";", "；", "，", "、", ",", "and", "&", "和", "·", "•")


def _mostly_not_names(text: str) -> bool:
    """A sufficient test that ``author_score(text) < 2.5``: no et-al. ending and more than a fifth of
    the names :func:`split_authors` gives not name-shaped, so the score is at most -6 times their
    count (below 0). Keep in step with author_score and split_authors.

    Splits lazily: the names are at most ``1 +`` the separator marks in ``text``
    (:data:`_SEPARATOR_MARKS`), so once more than a fifth of that bound are not name-shaped the
    answer is True without splitting the rest of a long abstract. False means "not decided here"."""
    text = text.strip()
    m = _ET_AL.search(text) if text.endswith(_ET_AL_LAST) else None
    if m and m.start() > 0:
        return False  # an et-al. ending: author_score adds 4.0, decide there
    limit = 0.2 * (1 + sum(text.count(mark) for mark in _SEPARATOR_MARKS))
    names = bad = start = 0
    for sep in _AUTHOR_SEP.finditer(text):
        piece, start = text[start:sep.start()].strip(), sep.end()
        if piece:
            names += 1
            bad += name_shape(_without_affiliation(piece)) == 0.0
            if bad > limit:
                return True
    piece = text[start:].strip()
    if piece:
        names += 1
        bad += name_shape(_without_affiliation(piece)) == 0.0
    return names == 0 or bad > 0.2 * names


@functools.lru_cache(maxsize=65536)
def capital_ratio(text: str) -> float | None:
    """Share of words of four or more letters that start with a capital (Title Case ≈ 1), None when too few."""
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", text) if len(w) >= 4]
    if len(words) < 3:
        return None
    return sum(w[0].isupper() for w in words) / len(words)


@functools.lru_cache(maxsize=65536)
def title_score(text: str) -> float:
    """Log-odds-like evidence that ``text`` is a paper title (positive: title)."""
    tokens = split_words(text)
    score = 1.0
    ratio = capital_ratio(text)
    if ratio is not None:
        score += 2.0 if ratio >= 0.6 else -2.0 if ratio < 0.3 else 0.0
    if any(t.lower().strip(",.:;?!()") in FUNCTION_WORDS for t in tokens):
        score += 2.0
    if re.search(r"[:?]", text):
        score += 1.5
    if SENTENCE_END.search(text) and not text.endswith("?"):
        score -= 4.0  # titles rarely end in a full stop; one-sentence paragraphs do
    if len(text) > 220:
        score -= 4.0
    if len(tokens) <= 1:
        score -= 1.0
    names, et_al = split_authors(text)
    if et_al:
        score -= 5.0
    if len(names) == 1 and 2 <= len(tokens) <= 4 and name_shaped(text):
        score -= 1.5  # a person's name, not a title
    if len(names) >= 3 and all(name_shaped(n) for n in names):
        score -= 3.0
    elif len(names) == 2 and all(name_shaped(n) and 2 <= len(split_words(n)) <= 4 for n in names):
        score -= 3.0  # two full names ("Alice Smith, Bob Jones"): an author line, hardly a title
    return score


@functools.lru_cache(maxsize=65536)
def track_score(text: str, repeats: int) -> float:
    """Evidence that a single-area line (no separator) is a track; ``repeats`` is how often it recurs in the file."""
    score = 3.0 if repeats >= 2 else -1.5
    if len(text) > 80:
        score -= 5.0
    if SENTENCE_END.search(text) or re.search(r"[:?]", text):
        score -= 3.0
    if split_authors(text)[1]:
        score -= 5.0
    return score


@functools.cache
def _connectives() -> re.Pattern[str]:
    """An opening that ties a line to a sentence before it (for :func:`prose_score`), compiled on first use."""
    return re.compile(r"^(?:furthermore|moreover|in particular|additionally|in addition|finally|"
                      r"specifically|to this end|to address|to tackle|to overcome|to do so|to that end|"
                      r"our (?:first|second|third|main|key|results|code|experiments|contributions?|findings)|"
                      r"project (?:page|website)|code|the code|we (?:further|also|then|evaluate|validate|conduct|"
                      r"complement|empirically|release)|trigger warning|extensive|experiments?|experimental|"
                      r"empirically|based on|building on|then|thus|hence|therefore|consequently|these|such|"
                      r"second|third|lastly|overall|concretely|notably|importantly|further|"
                      r"\(\d|\(?[ivx]+\)|\d+[.)]|[-*•])(?:\b|\s|$)", re.I)


@functools.lru_cache(maxsize=65536)
def prose_score(text: str) -> float:
    """Evidence that a short line is an abstract paragraph rather than a header (positive: prose)."""
    score = -2.0
    ratio = capital_ratio(text)
    if ratio is not None:
        score += -2.0 if ratio >= 0.6 else 1.5 if ratio < 0.3 else 0.0
    if SENTENCE_END.search(text) or text.endswith(":"):
        score += 2.5
    if re.match(r"^[a-z(\[]", text):
        score += 2.0
    if re.search(r"https?://|www\.", text):
        score += 3.0
    if _connectives().match(text):
        score += 2.0
    if len(text) < 40:
        score -= 1.5
    if _STOP_CHAR.search(text) and _sentence_break().search(text):
        score += 2.0
    return score


_STOP_CHAR = re.compile(r"[.!?。！？]")  # every _sentence_break() match holds one: a cheap test before it


@functools.cache
def _sentence_break() -> re.Pattern[str]:
    """The end of a sentence followed by another (for :func:`prose_score` and :func:`is_prose`; every match
    holds a :data:`_STOP_CHAR`), compiled on first use."""
    return re.compile(r"(?:[^\W\d_]{2,}|[\d)\]$%])(?<!\bvs)(?<!\bal)(?<!\betc)(?<!\bcf)(?<!\bFig)(?<!\bEq)"
                      r"(?<!\bSec)(?<!\bNo)(?<!\bSt)(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bJr)[.!?]['\"”’)]*\s+[(\[A-Z\d]|[。！？]\s*\S")


@functools.lru_cache(maxsize=65536)
def is_prose(text: str) -> bool:
    """True when a line is clearly abstract text: long, or several sentences, or a URL sentence.

    A line shaped like an author list (two or more name-shaped pieces) is never prose.
    """
    text = clean(text)
    if len(text) > 200 and (_surely_not_authors(text) or _mostly_not_names(text)):
        return True  # what the two checks below give, without scoring a whole abstract as names
    if author_score(text) >= 2.5:
        return False
    if len(text) > 200:
        return True
    if re.search(r"https?://|www\.", text) and len(text) > 60 and " " in text:
        return True
    sentences = len(_sentence_break().findall(text)) if _STOP_CHAR.search(text) else 0
    return (sentences >= 2 and len(text) > 120) or (sentences >= 1 and SENTENCE_END.search(text) is not None and len(text) > 150)
