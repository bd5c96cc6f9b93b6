"""Derive a readable title from an abstract when a list gives none.

``introduced_name`` finds the method name an abstract introduces (``HASS``,
``GraphGPT``); ``derive_title`` turns the abstract into a short Title Case
title, ``"NAME: What It Is"`` when there is a name, else the stated
contribution (``we propose …``, ``this paper studies …``), else the first
sentence, shortened.

Sources of the heuristics:

* acronym/long-form matching: Schwartz & Hearst, "A simple algorithm for
  identifying abbreviation definitions in biomedical text", PSB 2003;
* small words kept lower case: John Gruber's ``titlecase`` list (Daring
  Fireball, 2008), extended with the prepositions that the real titles of
  ``../shared/corpus/papers.jsonl`` (10,448 papers) mostly write lower case;
* introduction patterns, the verbs that may follow "to", and the stop list of
  merely used acronyms: read off that corpus (``scripts/title_metric.py``) and
  the 58 seed abstracts.

* the topic added to a title: RAKE's candidate phrases (Rose et al.,
  "Automatic keyword extraction from individual documents", 2010), weighted
  by repetition and word frequency (issue 23; yake was tried and costs 50
  times the budget, see TITLES.md).

Everything is regular expressions, string tests and counting over one abstract:
deterministic and linear in its length. The last 2 analyses are cached, so
``introduced_name`` then ``derive_title`` on one abstract do the work once (a
larger cache was slower: its ~25 kB an analysis no longer fit the processor's
cache, and every new analysis wrote to memory that had left it).
Measured with ``scripts/title_metric.py`` on the held-out half of the corpus: a
name for 45% of the abstracts, always contained in the derived title; 41% of a
real title's content words on average; see TITLES.md.
"""

from __future__ import annotations

import bisect
import functools
import operator
import re
from collections import Counter
from itertools import compress, filterfalse, repeat

MAX_WORDS = 12


# ------------------------------------------------------------ public functions
def introduced_name(abstract: str) -> str | None:
    """Return the method name the abstract introduces (``"HASS"``, ``"GraphGPT"``), or None.

    ``abstract`` is raw list text (Markdown and TeX allowed); the name comes back
    without marks (``"**GET**"`` → ``"GET"``, ``"$\\partial$-CROWN"`` → ``"∂-CROWN"``).
    Only introduction patterns count, earliest sentence first: "called / dubbed
    / named / termed / namely / denoted X", "our method, X,", and in the object
    of "we / this paper / by … propose / introduce / present / develop …" the
    first name-like word or a ``Long Form (ABC)`` whose initials match
    (Schwartz & Hearst 2003). Name-like: a capital after the first letter or a
    digit (HASS, LoRM, M2PDE, Q-resafe); common acronyms (LLMs, CNN, AI, …) and
    words an earlier sentence already used do not count. Never raises.
    """
    try:
        found = _analyse(abstract if isinstance(abstract, str) else "")[3]
    except Exception:  # defensive: a heuristic must never break a build
        return None
    return found[0] if found else None


def derive_title(abstract: str) -> str:
    """Return a Title Case title (at most 16 words, never empty) for ``abstract``.

    Order: the introduced name (see ``introduced_name``) with what it is:
    ``"HASS: Harmonized Speculative Sampling"`` from the long form of ``Long
    Form (ABC)``, an appositive ``X, a …``, ``a … called X`` or ``X, which
    adopts …``; else the earliest contribution, the object of "we propose /
    introduce / study …" (study verbs as gerunds: "we revisit X" → "Revisiting
    X"), else a "we show that …" clause; else the first sentence. Phrases are
    cut at their first natural boundary ("that", "which", a comma, "to" + verb)
    once they hold two content words, one not generic, then before a preposition
    by word 12 (``MAX_WORDS``); "NAME: " may come on top. Then (issue 23)
    "this/these/such" become "the", the abstract's topic phrase (two or three
    repeated words the title lacks) is added as "for Topic" ("in Topic" after a
    "for"), and acronyms the abstract defines are spelled out (see
    ``abbreviations``; never the name nor a word of it: an acronym inside the
    name gets its long form as the tail instead of the topic), all within 16
    words (``MAX_TOTAL``): the topic gives way first, then the title is cut
    before a preposition; a title still without a specific word is made from
    the first sentence. Title Case keeps small words
    (Gruber's list) lower case and acronyms as written. Markdown and TeX marks
    are dropped with their content kept; parentheses stay balanced; no trailing
    punctuation. Returns ``"Untitled"`` for an empty abstract; never raises
    (any internal error falls back to the first words of the abstract).
    """
    try:
        return _derive(abstract if isinstance(abstract, str) else "") or "Untitled"
    except Exception:  # defensive: a heuristic must never break a build
        words = re.sub(r"[$*()\[\]{}]", "", str(abstract)).split()
        return " ".join(words[:MAX_WORDS]) or "Untitled"


def abbreviations(abstract: str) -> dict[str, str]:
    """Return the abbreviations the abstract defines, ``{"NPLL": "noisy partial label learning", …}``.

    A definition is ``Long Form (ACR)``: an acronym in parentheses (2 to 12
    characters, at least two capitals, optional plural "s") whose initials the
    words before it spell (Schwartz & Hearst, PSB 2003, as ``_initials_match``);
    the first definition of an acronym wins; the long form is as written, marks
    dropped. Raw list text (Markdown, TeX) is accepted; never raises.
    """
    try:
        return dict(_defined(_analyse(abstract if isinstance(abstract, str) else "")[0]))
    except Exception:  # defensive: a heuristic must never break a build
        return {}


@functools.lru_cache(maxsize=2)
def _analyse(abstract: str) -> tuple[str, list[int], list, tuple | None, tuple[str, list[str], Counter]]:
    """Clean text, sentence starts, contribution scans, the introduced name, and the lower-case words
    with their counts (``_topic_tokens``; the counts also tell which cue words occur at all, so the
    scans for absent ones are skipped); cached per abstract."""
    text = _clean(abstract)
    low = text.lower()
    toks = _topic_tokens(low)
    vocab = Counter(toks)
    starts = _sentences(text)
    scans = _scan(text, starts, vocab)
    return text, starts, scans, _find(text, starts, scans, vocab), (low, toks, vocab)


def _derive(abstract: str) -> str:
    """The title of ``derive_title``, or "" for an empty abstract; may raise on a bug."""
    text, starts, scans, found, words = _analyse(abstract)
    if not text:
        return ""
    if not found:
        title = _contribution(scans) or _first(text, starts)
    else:
        title = _named_title(*found, text, starts, scans)
    name = found[0] if found else ""
    title = _polish(title, name, text, words)
    if not found and not _specific(title.split()):  # "A New Model": the first sentence says more
        title = _polish(_first(text, starts), name, text, words)
    return title


def _named_title(name: str, long: str | None, i: int, text: str, starts: list[int], scans: list) -> str:
    """A title holding ``name``, introduced in sentence ``i``: its description, else a phrase around it."""
    sent = text[starts[i]: starts[i + 1] if i + 1 < len(starts) else len(text)]
    title = _describe(name, long, sent)
    if title.startswith(f"{name}: ") and _content(title[len(name) + 2:].split()) < 2:  # "X: An Algorithm"
        contrib = _contribution(scans)
        if _content(contrib.split()) >= 3 and name.lower() not in contrib.lower():
            title = f"{name}: {contrib}"
    if not title:
        own = [_finish(_shorten(obj)) for k, _, kind, _, obj in scans if k == i and kind == "intro" and name in obj]
        contrib = _contribution(scans) or _first(text, starts)
        title = next((t for t in own + [contrib] if name.lower() in t.lower()), f"{name}: {contrib}")
    at = title.lower().find(name.lower())  # keep the name's own spelling: IVW-DR-learner, Q-resafe
    title = title[:at] + name + title[at + len(name):] if at >= 0 else title
    return title if title.count("(") == title.count(")") else title.replace("(", "").replace(")", "")


# ------------------------------------------------- 1. plain text and sentences
_TEX_SYMBOLS = {
    "partial": "∂", "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "Delta": "Δ",
    "epsilon": "ε", "varepsilon": "ε", "eta": "η", "theta": "θ", "Theta": "Θ", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
    "phi": "φ", "varphi": "φ", "psi": "ψ", "omega": "ω", "Omega": "Ω", "ell": "ℓ",
    "infty": "∞", "approx": "≈", "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
    "in": "∈", "cdot": "·", "sqrt": "√", "nabla": "∇", "to": "→", "rightarrow": "→",
    "sim": "~", "pm": "±", "star": "⋆", "log": "log", "exp": "exp", "min": "min", "max": "max",
}
_SUPERSCRIPT = re.compile(r"(?<=\w)\$\^\{?([0-9])\}?\$(?=\w)")
_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_MATH = re.compile(r"\$\$?([^$]*)\$\$?")
_TEX_WRAP = re.compile(r"\\(?:math[a-z]*|text[a-z]*|operatorname|boldsymbol|bm|emph|widetilde|tilde|hat|bar|overline)"
                       r"\s*\{([^{}]*)\}")
_TEX_CMD = re.compile(r"\\([A-Za-z]+)\s*")
_TEX_ESCAPE = re.compile(r"\\(.)")
_MATH_MARKS = re.compile(r"[{}^_]")
_FOOTNOTE = re.compile(r"^\s*\^\s*\{?[\d*†‡,\s]+\}?\s*$")
_UNDERSCORE = re.compile(r"(?<![\w_])_+([^_\s](?:[^_]{0,80}?[^_\s])?)_+(?![\w_])")
_URL = re.compile(r"(?:https?://|www\.|github\.com/)\S*")
# A sentence ends at ". " before a capital, but not after "e.g.", "et al." and the like.
_SPLIT = re.compile(r"[.!?](?=\s+[A-Z0-9(\"“∂])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bet al\.)(?<!\bvs\.)(?<!\bcf\.)(?<!\bFig\.)(?<!\bEq\.)"
                    r"(?<!\bapprox\.)(?<!\betc\.)(?<!\bresp\.)(?<!\bSec\.)(?<!\bNo\.)\s+")


def _clean(text: str) -> str:
    """Abstract → plain text: TeX math to its content, Markdown marks, quotes and URLs dropped."""
    if "$" in text:
        text = _SUPERSCRIPT.sub(lambda m: _SUPERSCRIPTS[int(m[1])], text)  # D$^3$Fields → D³Fields
        text = _MATH.sub(_math_text, text.replace("\\$", "USD ")).replace("$", "")
    if "\\" in text:
        text = re.sub(r"\\([%&#_])", r"\1", _TEX_WRAP.sub(r"\1", text))
        text = re.sub(r"\\(?:hyperlink|href)\{[^{}]*\}", "", text)
        text = _TEX_CMD.sub(lambda c: _TEX_SYMBOLS.get(c.group(1), ""), text).replace("\\", "")
    if "{" in text or "}" in text:
        text = text.replace("{", "").replace("}", "")
    if "--" in text:
        text = text.replace("---", " — ").replace("--", " – ")
    if "—" in text:
        text = text.replace("—", " — ")
    for mark in ("*", "`", "''"):
        if mark[0] in text and mark in text:  # one letter is a fast test
            text = text.replace(mark, "")
    if "_" in text:
        text = _UNDERSCORE.sub(r"\1", text)
    if "/" in text and ("//" in text or ".com/" in text):
        text = _URL.sub("", text)
    return " ".join(text.split()) if "\n" in text or "\t" in text or "  " in text else text.strip()


def _math_text(m: re.Match) -> str:
    """``$\\mathcal{O}(k)$`` → ``O(k)``, ``$\\partial$`` → ``∂``; a lone footnote mark ``$^1$`` → nothing."""
    body = m.group(1)
    if _FOOTNOTE.match(body):
        return ""
    if "\\" not in body and "{" not in body:
        return _MATH_MARKS.sub("", body).strip()
    body = _TEX_WRAP.sub(r"\1", _TEX_WRAP.sub(r"\1", body))
    body = _TEX_CMD.sub(lambda c: _TEX_SYMBOLS.get(c.group(1), ""), body)
    return _MATH_MARKS.sub("", _TEX_ESCAPE.sub(r"\1", body)).strip()


_MATCH_END = re.Match.end


def _sentences(text: str) -> list[int]:
    """Start offsets of the sentences of plain ``text``."""
    return [0, *map(_MATCH_END, _SPLIT.finditer(text))]


# ------------------ 2. contribution phrases: "we / this paper + verb + object"
# Verbs of a contribution: "intro" ones may introduce a name; "claim" ones only give a "that" clause.
_STEMS = {"intro": "propose introduce present develop design devise construct create build release offer "
                   "contribute formulate establish curate collect launch validate",
          "study": "study investigate analyze analyse explore examine revisit characterize understand "
                   "address tackle benchmark evaluate rethink consider",
          "claim": "show prove demonstrate find argue observe"}


def _forms(verb: str) -> list[str]:
    """propose → propose proposes proposed proposing; study → studies studied studying; build → built."""
    if verb.endswith("y"):
        return [verb, verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"]
    stem = verb[:-1] if verb.endswith("e") else verb
    forms = [verb, verb + ("es" if verb.endswith("ss") else "s"), stem + "ed", stem + "ing"]
    return forms + ["built"] if verb == "build" else forms


def _prefix_tree(words: list[str] | dict) -> str:
    """A regular expression alternation of ``words`` as a prefix tree, longest match first:
    ``["study", "studies", "studied"]`` → ``stud(?:i(?:ed|es)|y)``. It matches what ``"|".join(words sorted
    longest first)`` matches, but a failing position costs one test a letter instead of one a word (the
    regular expression engine tries alternatives one after another)."""
    tree: dict = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _tree_pattern(tree)


def _tree_pattern(node: dict) -> str:
    """The pattern of one node of ``_prefix_tree``: its branches in letter order, optional where a word ends."""
    alts = [re.escape(ch) + _tree_pattern(child) for ch, child in sorted(node.items()) if ch]
    if not alts:
        return ""
    body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
    return f"(?:{body})?" if "" in node else body


_KIND = {f: kind for kind, verbs in _STEMS.items() for v in verbs.split() for f in _forms(v)}
_VERB_AT = re.compile(r"(?:(?:\w+ly|also|further|first|then|here|now|thus|hence|therefore|instead|finally|"
                      r"additionally)[\s,]+){0,3}(?P<verb>" + _prefix_tree(_KIND)
                      + r")\b,?\s*(?P<obj>[^.;]*)")
_SUBJECTS = ("we ", "We ", "paper ", "work ", "study ", "article ", "by ", "and ")
# One search a subject: its literal prefix lets the engine skip to each occurrence, and the verb is tried
# there without a return to Python (a ``str.find`` loop calling ``_VERB_AT`` for each cost ~10 % more).
_SUBJECT_VERB = [(word, word[:-1].lower(), re.compile(re.escape(word) + "(?=" + _VERB_AT.pattern + ")"))
                 for word in _SUBJECTS]
_WE = re.compile(r"\b(?:[Ww]e|[Tt]his (?:paper|work|study|article))\b")
_THIS = re.compile(r"\b(?:[Tt]his|[Oo]ur|[Pp]resent|[Cc]urrent) $")


def _scan(text: str, starts: list[int], vocab: Counter) -> list[tuple[int, int, str, str, str]]:
    """Each "we / this paper / by / and + propose/study … + object" of ``text``, in text order:
    (sentence index, offset, verb kind, verb, object). ``vocab``: the lower-case words of ``text``
    (``_topic_tokens``); a subject that is not one of them is not searched for."""
    out = []
    if vocab.keys().isdisjoint(_KIND):
        return out
    for word, low, subject_verb in _SUBJECT_VERB:
        if low not in vocab:
            continue
        for m in subject_verb.finditer(text):
            pos = m.start()
            if pos == 0 or not text[pos - 1].isalnum():
                i = bisect.bisect_right(starts, pos) - 1
                if word in ("we ", "We ") or _THIS.search(text, max(0, pos - 9), pos) or (
                        word in ("by ", "and ") and _WE.search(text, starts[i], pos)):
                    out.append((i, pos, _KIND[m["verb"]], m["verb"], m["obj"]))
    return sorted(out)


# --------------------------------------------------------- 3. introduced names
# Acronyms abstracts use rather than introduce (frequent in the corpus, rarely in its titles).
_COMMON = set("""
AI ML DL RL NLP CV LLM LLMs LM LMs VLM VLMs MLLM MLLMs LVLM LVLMs CNN CNNs RNN RNNs GNN GNNs
DNN DNNs GAN GANs VAE VAEs MLP MLPs GPU GPUs CPU TPU SOTA SGD GD ODE ODEs PDE PDEs SDE SDEs
KL MSE MAP MLE EM PCA SVM KV API APIs QA VQA NER MT NMT ASR TTS IR KG KGs GPT BERT ViT ViTs
CLIP LoRA RLHF DPO PPO MDP MDPs POMDP ICL CoT RAG SSM SSMs NTK PAC IID OOD DP DRO ERM HMM
ImageNet CIFAR MNIST COCO SQuAD GLUE US UK EU USA PhD II III IV SE URL LSTM Transformer
LLaMA Llama ChatGPT GPT-2 GPT-3 GPT-4 GPT-4o T5 1D 2D 3D 4D 6D 6DoF FL NLI DA MPC MAB VLN UDA DC GP GPs
FedAvg Adam NeRF NeRFs GCN GCNs HDR MPI SLAM CRF RGB RGBD RGB-D LiDAR IoU mAP FID BLEU ROUGE AUC ROC OCR
""".split())
# "QR-based", "LLM-free": a hyphenated word ending so describes, it does not name.
_SUFFIXES = set("based like aware free guided driven specific level style wise enhanced augmented "
                "conditioned only generated friendly scale shot agnostic invariant learning means norm "
                "reweighting zero".split())
_BAD_CHARS = re.compile(r"[,\[\]{}<>|()]")
_STRONG = re.compile(r"[A-Z].*[A-Z0-9]|∂")
_NOT_NAME = re.compile(r"\d+[A-Za-z]?|[IVX]+")
_TERM = re.compile(r"\b(?:problem|task|setting|phenomenon|issue|effect)s?,? (?:is |are |often |commonly |also )*$")
_NAMING_KEYS = frozenset(("called", "dubbed", "named", "termed", "coined", "namely", "denoted", "referred", "call"))
_NAMING = re.compile(r"(?:called|dubbed|named|termed|coined|namely|denoted(?: by| as)?|referred to as|"
                     r"[Ww]e call (?:it|this|them|our [\w-]+|these [\w-]+(?: [\w-]+)?)|which we call)"
                     r"[,:]?\s+(?:as\s+)?(?:the\s+)?(?P<name>[^.;,:]*)")
_OUR = re.compile(r"ur (?:proposed |new |novel )?(?:method|approach|framework|model|algorithm|system|benchmark|"
                  r"dataset|technique|architecture|tool|pipeline|library|agent|solution)s?,\s+"
                  r"(?:called |named |dubbed )?"
                  r"(?P<name>[^\s,]+),")
_PAREN = re.compile(r"\((?P<acr>[^()]{2,24})\)")
_HEAD_END = re.compile(r"\s(?:that|which|who|whose|using|based on|such as|like|than|via|by|aimed at|aiming|"
                       r"designed to|"
                       r"e\.g\.|i\.e\.)\s|\s[—–]\s")
_TOKEN_END = re.compile(r"\s(?:to|on|with|over|against|from|across|in|into|under|for|of)\s")
_PROBLEM = re.compile(r"(?:an? |the )?(?:[\w-]+ ){0,4}(?:problem|task|setting|phenomenon)s?"
                      r"(?=,| \(| called| named| termed| dubbed| coined| that| which| of|$)")
_WORD = re.compile(r"(?<!\S)\S*[A-Z∂]\S*")  # a word with a capital or ∂: only such a word is name-like
_CAPITAL_APPOSITIVE = re.compile(r"([A-Z][a-z]{2,}[\w-]*)(?:,| [—–]) (?:a|an|the) ")


def _find(text: str, starts: list[int], scans: list, vocab: Counter) -> tuple[str, str | None, int] | None:
    """The introduced name, its long form if any, and the index of its sentence; ``vocab`` as ``_scan``'s."""
    found = []
    keys = [at for key in vocab.keys() & _NAMING_KEYS if (at := text.find(key)) >= 0]
    if keys:  # no match starts more than 9 characters ("which we call") before the first naming word
        for m in _NAMING.finditer(text, max(0, min(keys) - 9)):
            i = bisect.bisect_right(starts, m.start()) - 1
            if m.group().startswith("namely") and not any(
                    s[0] == i and s[1] < m.start() and s[2] == "intro" for s in scans):
                continue  # "namely X" names only after "we propose …"
            if _TERM.search(text, max(0, m.start() - 30), m.start()) or text[m.start() - 3: m.start()] == "so-":
                continue  # "this problem is called …": a task or a phenomenon, not a method
            if hit := _named(m["name"], text[: starts[i]]):
                found.append((i, 0, hit))
                break
    for m in _OUR.finditer(text) if "our" in vocab else ():
        i = bisect.bisect_right(starts, m.start()) - 1
        if text[m.start() - 1] in "Oo" and _namelike(m["name"]) and m["name"] not in text[: starts[i]]:
            found.append((i, 1, (m["name"], None)))
            break
    for i, _, kind, _, obj in scans:
        if kind == "intro" and (hit := _object_name(obj, text[: starts[i]])):
            found.append((i, 2, hit))
            break
    if not found:
        return None
    i, _, (name, long) = min(found)
    return _strip(name), long, i


def _named(phrase: str, prior: str) -> tuple[str, str | None] | None:
    """The name after "called/named/dubbed …": ``Long Form (ABC)``, a name-like word or a capitalised run."""
    if phrase.lower().startswith(("entit", "after", "by ", "for ")):
        return None
    acr = _acronym(phrase[:90], prior) if "(" in phrase[:90] else None
    if acr and acr[0] <= 3:
        return acr[1], acr[2]
    run = []
    for w in phrase.split()[:6]:
        if not (w[:1].isupper() or w[:1] == "∂" or _namelike(_strip(w)) or (run and w.lower() in _SMALL)):
            break
        run.append(w)
    if run and _namelike(_strip(run[0])):
        return _strip(run[0]), None
    run = run[:4]
    while run and run[-1].lower() in _SMALL:
        run.pop()
    return (_strip(" ".join(run)), None) if run and not run[0].endswith(",") else None


def _object_name(obj: str, prior: str) -> tuple[str, str | None] | None:
    """The first name in the object of "we propose …": a name-like word or ``Long Form (ABC)``."""
    if obj.startswith(("upon ", "on ", "the study of ", "the problem of ", "the task of ")) or _PROBLEM.match(obj):
        return None  # "we build on X", "we introduce a new research problem called X": not a method
    if (m := _CAPITAL_APPOSITIVE.match(obj)) and m[1] not in prior and m[1].lower() not in _SMALL:
        return m[1], None  # "we propose Manticore, a framework …"
    head = obj[: m.start()] if (m := _HEAD_END.search(obj)) else obj
    acr = _acronym(head, prior) if "(" in head else None
    short = head[: m.start()] if (m := _TOKEN_END.search(head)) else head
    if short.islower() and "∂" not in short:  # no capital, so no name-like word (``_namelike``)
        return (acr[1], acr[2]) if acr else None
    for t in _WORD.finditer(short):
        if acr and acr[0] <= t.start():
            break
        if _namelike(tok := _strip(t.group())) and tok not in prior:
            return tok, None
    return (acr[1], acr[2]) if acr else None


def _acronym(text: str, prior: str) -> tuple[int, str, str] | None:
    """First ``Long Form (ACR)`` in ``text`` whose initials match and that ``prior`` did not use:
    (offset of the long form, ACR, long form). "the lower case words (ACR)" defines a term, not a name."""
    for m in _PAREN.finditer(text):
        acr = m["acr"].strip()
        if _namelike(acr) and acr not in prior:
            words = text[: m.start()].split()[-12:]
            if n := _initials_match(acr, words):
                long = " ".join(words[-n:])
                start = text.rfind(words[-n], 0, m.start())
                if not (long.islower() and text[max(0, start - 4): start] in ("the ", "The ")):
                    return start, acr, long
    return None


_DEFINED = re.compile(r"\((?P<acr>[A-Za-z0-9-]{0,10}[A-Z][A-Za-z0-9-]{0,10})\)")


def _defined(text: str) -> tuple[tuple[str, str], ...]:
    """Each ``Long Form (ACR)`` of plain ``text``, first definition of an acronym first: ((ACR, long form), …)."""
    out: dict[str, str] = {}
    for m in _DEFINED.finditer(text) if "(" in text else ():
        acr = m["acr"]
        if acr in out or sum(map(str.isupper, acr)) < 2:
            continue
        words = text[max(0, m.start() - 160): m.start()].split()[-12:]
        if n := _initials_match(acr, words):
            out[acr] = " ".join(_strip(w) for w in words[-n:])
    return tuple(out.items())


_ACRONYM_SHAPE = re.compile(r"[A-Za-z0-9-]{0,10}[A-Z][A-Za-z0-9-]{0,10}")


def _long_form(text: str, acr: str) -> str | None:
    """The long form ``text`` defines for ``acr``, as ``_defined`` finds it (its first ``Long Form (ACR)``
    whose initials match), or None; a search for ``(ACR)`` alone is cheaper than finding every definition."""
    if not (_ACRONYM_SHAPE.fullmatch(acr) and sum(map(str.isupper, acr)) >= 2):
        return None
    key = f"({acr})"
    at = text.find(key)
    while at >= 0:
        words = text[max(0, at - 160): at].split()[-12:]
        if n := _initials_match(acr, words):
            return " ".join(_strip(w) for w in words[-n:])
        at = text.find(key, at + 1)
    return None


_DOUBLED = re.compile(r"([a-z])([23])")
_NOT_LETTER = re.compile(r"[^a-z]")


def _initials_match(acr: str, words: list[str]) -> int:
    """Schwartz & Hearst (2003): how many trailing ``words`` spell ``acr`` (0 when they do not)."""
    letters = acr.lower()
    if "2" in letters or "3" in letters:  # "S2" → "ss"
        letters = _DOUBLED.sub(lambda m: m[1] * int(m[2]), letters)
    if not (letters.isascii() and letters.isalpha()):
        letters = _NOT_LETTER.sub("", letters)
    letters = letters[:-1] if acr.endswith("s") and len(letters) > 2 else letters
    text = " ".join(words).lower()
    i, j = len(letters) - 1, len(text) - 1
    while i >= 0:
        while j >= 0 and (text[j] != letters[i] or (i == 0 and j > 0 and text[j - 1].isalnum())):
            j -= 1
        if j < 0:
            return 0
        i, j = i - 1, j - 1
    used = len(words) - (text[: j + 1].count(" ") + 1 if j >= 0 else 1) + 1
    return used if used <= min(len(letters) + 2, len(letters) * 2) else 0


def _namelike(tok: str) -> bool:
    """True for HASS, GraphGPT, M2PDE, Q-resafe, ∂-CROWN; False for In, LLMs, Self-Play, QR-based."""
    rest = tok[1:]
    if rest == rest.lower() and "-" not in rest[:2] and "∂" not in tok:
        return False
    if tok in _COMMON or tok[0] in "([" or _BAD_CHARS.search(tok):
        return False
    parts = [p for p in tok.replace("/", "-").split("-") if p]
    if len(parts) > 1 and parts[-1].lower() in _SUFFIXES:
        return False
    common = [p in _COMMON for p in parts]
    if len(parts) > 1 and any(common) and any(p[:1].isupper() and not c for p, c in zip(parts, common)):
        return True  # Meta-LoRA, Graph-BERT
    for p in parts:
        if p in _COMMON:
            continue
        if _STRONG.search(p) and not _NOT_NAME.fullmatch(p) or len(parts) > 1 and len(p) == 1 and p.isupper():
            return True
    return False


def _strip(tok: str) -> str:
    """A word without surrounding punctuation or an unbalanced parenthesis: ``HashEE)`` → ``HashEE``."""
    tok = tok.strip(".,;:'’\"“”").lstrip("-")
    if tok.count("(") != tok.count(")"):
        tok = tok.split("(")[0] if "(" in tok else tok.replace(")", "")
    return tok.strip(".,;:'’\"“”")


# ------------------------------------------------------ 4. what the title says
_HEADS = set("framework method approach model benchmark dataset algorithm system scheme technique architecture "
             "network paradigm metric measure loss estimator tool toolkit library pipeline module mechanism "
             "strategy suite protocol family agent policy objective corpus attack defense language platform "
             "environment simulator solver optimizer learner layer block procedure formulation solution".split())
_CUE = r"(?:called|dubbed|named|termed|coined|namely|denoted(?: by| as)?|referred to as)"
_BEFORE = re.compile(r".*\b(?P<d>(?:a|an|the)\s[^,;()]*?)\s*(?:,\s*|\s+)(?:" + _CUE + r"\s*,?\s*)?$")
_ACRONYM_LETTERS = re.compile(r"[a-z]+[A-Z][a-zA-Z]*|[A-Z][a-z]+[A-Z]")  # enhAnced, haShing, RolE
_LAST_NP = re.compile(r".*\b((?:a|an|the)\s[^,;()]*)$")
_EXPANSION = re.compile(r"\s*\(([^()]{5,90})\)")
_RELATIVE = re.compile(r",?\s+(?:which|that)\s+([a-z]+s)\s+(.*)")
_DASH = re.compile(r"\s*[:—–]\s+(?P<d>\S.*)")
_AFTER = re.compile(r"\s*(?:\([^()]*\)\s*)?(?:,|:|—|–| -+| is| as)\s+(?:which is |that is )?"
                    r"(?P<d>(?:a|an|the)\s.*)")
_GERUND = {"study": "Studying", "investigate": "Investigating", "analyze": "Analyzing", "analyse": "Analyzing",
           "explore": "Exploring", "examine": "Examining", "revisit": "Revisiting", "characterize": "Characterizing",
           "understand": "Understanding", "address": "Addressing", "tackle": "Tackling",
           "benchmark": "Benchmarking", "evaluate": "Evaluating", "rethink": "Rethinking"}
_BASE = {f: v for v in _GERUND for f in _forms(v)}
_ANAPHORA = re.compile(r"(?:this|these|those|it|its|them|their|such|that|the (?:above|aforementioned|same|following)|"
                       r"both)\b", re.I)
_WEAK_CLAIM = re.compile(r"(?:our|we|the proposed|they|there|in|for|on|when|if|under|with|by|as)\b", re.I)
_THAT_CLAUSE = re.compile(r"[^,]{0,80}?\b(?:show|shown|shows|showed|demonstrated?|known|found|proven|proved|"
                          r"argued?|observed|suggests?|suggested|noted|established|believed)\s+that\s+(.{20,})")
_SUBORDINATE = re.compile(r"(?:While|Although|Though|As|With|Despite|Since|Because|Given|Due to|Unlike|Whereas|"
                          r"Owing to|Thanks to|Following|Inspired by|Motivated by|In|For|Within|Across|Over|At|"
                          r"On|Among|Beyond|To)\b[^,]{3,150}, (.+)")
_WE_VERB = re.compile(r"(?:We|This paper|This work) [a-z]+ (.{20,})")
_OPENER = re.compile(r"^(?:(?:\w+ly|However|Recently|Moreover|Nowadays|Today), "
                     r"|In this (?:paper|work|study|article),? )")


_NEXT_WORD = re.compile(r"\)?\s+(\w+)")
_PREPOSITION_PHRASE = re.compile(r",?\s*((?:for|of|on|in|with)\s[^,;]*)")


def _before(text: str) -> re.Match | None:
    """``_BEFORE.search(text)``. The pattern starts with ``.*``, so without a line end in ``text`` a match
    starting further on would also start at 0: trying 0 alone (``match``) gives the same, in linear
    rather than quadratic time."""
    return _BEFORE.match(text) if "\n" not in text else _BEFORE.search(text)


def _describe(name: str, long: str | None, sent: str) -> str:
    """``NAME: What It Is`` from the long form, an appositive (``X, a …``), ``a … called NAME``, ``a NAME
    layer`` or ``X, which adopts Y`` (→ ``X: Adopting Y``); the first with two content words wins."""
    at = sent.find(name)
    after = sent[at + len(name):] if at >= 0 else ""
    if not long and (m := _EXPANSION.match(after)) and _initials_match(name, m[1].split()) == len(m[1].split()):
        long, after = m[1], after[m.end():]
    if long:
        head = m[1] if (m := _NEXT_WORD.match(after)) and m[1].lower().rstrip("s") in _HEADS else ""
        long = " ".join(w.capitalize() if _ACRONYM_LETTERS.fullmatch(w) else w for w in long.split())
        return f"{name}: {_finish(_shorten(long + ' ' + head))}"  # "enhAnced" (letters of the acronym) → "Enhanced"
    if at < 0:
        return ""
    found = []
    if m := _AFTER.match(after) or _DASH.match(after):
        found.append(_shorten(m["d"]))
    if (m := _before(sent[:at])) and m["d"].split()[-1].lower().rstrip("s") in _HEADS:
        more = f" {p[1]}" if (p := _PREPOSITION_PHRASE.match(after)) else ""
        found.append(_shorten(m["d"] + more))
    if (m := _NEXT_WORD.match(after)) and m[0][:1] != ")" and m[1].lower().rstrip("s") in _HEADS:
        np = n[1] if (n := _LAST_NP.match(sent[:at])) else ""
        return _finish(_shorten(np + name + m[0]))
    if (m := _RELATIVE.match(after)) and m[1] not in ("is", "has", "was", "does"):
        found.append(_shorten(_gerund(_base(m[1])) + " " + m[2]))  # "X, which adopts Y" → "X: Adopting Y"
    best = next((words for words in found if _content(words) >= 2), found[0] if found else None)
    return f"{name}: {_finish(best)}" if best else ""


def _contribution(scans: list) -> str:
    """A title from the first "we propose / introduce / study …" object with some content, else from
    the first "we show that …" clause, or ""."""
    for kinds in (("intro", "study"), ("claim",)):
        for _, _, kind, verb, obj in scans:
            if kind not in kinds or not obj or _ANAPHORA.match(obj):
                continue
            if kind == "claim":
                if not obj.startswith("that ") or _ANAPHORA.match(obj[5:]) or _WEAK_CLAIM.match(obj[5:]):
                    continue
                obj = obj[5:]
            words = _shorten(obj)
            if not words:
                continue
            if verb in _BASE and not obj.startswith("on "):
                words = [_GERUND[_BASE[verb]]] + words
            elif words[0] == "to" and len(words) > 2 and words[1].isalpha():
                words = [_gerund(words[1])] + words[2:]  # "we propose to exploit X" → "Exploiting X"
            if _content(words) >= 2:
                return _finish(words)
    return ""


def _first(text: str, starts: list[int]) -> str:
    """The first sentence as a title, without an opening "Recently," or "While …," clause, and after
    "it is known that" / "recent work has shown that"."""
    first = _OPENER.sub("", text[: starts[1]] if len(starts) > 1 else text)
    if m := _THAT_CLAUSE.match(first):
        first = m[1]
    elif (m := _SUBORDINATE.match(first)) and _content(m[1].split()) >= 3:
        first = m[1]
    if m := _WE_VERB.match(first):
        first = m[1]
    return _finish(_shorten(first, 3))


def _base(verb: str) -> str:
    """adopts → adopt, applies → apply, addresses → address (third person singular → base form)."""
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("sses", "shes", "ches", "xes")):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb


def _gerund(verb: str) -> str:
    """exploit → Exploiting, leverage → Leveraging, tie → Tying (no consonant doubling)."""
    verb = verb.lower()
    if verb.endswith("ie"):
        return verb[:-2].capitalize() + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        verb = verb[:-1]
    return verb.capitalize() + "ing"


# ------------------------------------------ 5. phrase → title: cut, Title Case
# Gruber's titlecase small words plus the prepositions the corpus titles mostly write lower case.
_SMALL = set("a an and as at but by en for from if in into nor of on onto or over per than the to "
             "through under upon v vs via with within without".split())
# Verbs that follow "to" in the corpus abstracts ("to identify"); "to" + one of them ends a title phrase.
_TO_VERBS = set("""learn generate improve achieve address train perform enhance capture obtain solve predict
identify evaluate provide make reduce use produce find extract estimate understand handle guide construct
mitigate facilitate enable ensure select leverage adapt build represent tackle create generalize detect explore
optimize assess alleviate develop design compute measure maximize infer align support determine exploit
incorporate demonstrate have show minimize avoid encode study recover apply distinguish reconstruct analyze
integrate overcome match transfer approximate recognize maintain quantify answer collect bridge synthesize scale
implement refine explain consider verify form increase combine validate encourage discover focus utilize
investigate derive acquire define retrieve establish take augment characterize balance conduct complete get
promote deal propose simulate outperform compare interpret update reach follow account introduce prove extend
guarantee remove do adjust choose resolve describe allow realize enforce fuse correct translate transform
include modify regularize compress uncover aggregate advance assign keep examine filter enrich bring reveal
eliminate deploy formulate manipulate accomplish retain automate express exhibit disentangle distill teach
separate illustrate highlight expand embed share calibrate engage give calculate strengthen annotate employ
decompose run offer unify imitate replace rely complement decouple summarize carry ask convert emphasize adopt
respond manage associate rank circumvent supervise go set probe constrain render showcase be""".split())
_AND_VERBS = set("prove proves show shows demonstrate demonstrates derive derives propose proposes introduce "
                 "introduces develop develops establish establishes provide provides achieve achieves obtain obtains "
                 "apply applies evaluate evaluates analyze analyzes conduct conducts identify identifies present "
                 "presents extend extends validate validates verify verifies".split())
# "learn to solve", "how to train": here "to" + verb continues the phrase.
_CATENATIVE = set("learn learns learned how able need needs tend tends fail fails try tries seek seeks want wants "
                  "ability aim aims".split())
_VERB_ENDS = ("ize", "ise", "ate", "ify", "cile")
_BOUNDARY = re.compile(  # the look-ahead fails fast where no boundary can start
    r"(?=[\s,;:!?.-])\s*(?:[,;:!?]|\.(?:\s|$)|\s[—–]\s|\s--?\s|-{2,}|\sas an?\s"
    r"|\s(?:that|which|who|whose|where|whereby|while|thereby|so that|such that|in order to|based on|as well as"
    r"|leveraging|utilizing|exploiting|enabling|allowing|capable of|tailored|grounded in|i\.e\.|e\.g\.)\b"
    r"|\s(?:by|via|through) \w+ing\b|\sto (?:\w+ly|(?P<verb>[a-z]+))\b|\sand (?P<and>[a-z]+)\b)")
_LEAD = re.compile(r"^(?:(?:also|further|first|then|here|now|both|thoroughly|carefully|extensively|systematically|"
                   r"empirically|theoretically|comprehensively|rigorously|formally|on|that)\s+)+", re.I)
_TRAILING = _SMALL | set("our its their new given both some is are was were be been has have can will designed "
                         "developed trained built intended used proposed aimed specifically tailored able due "
                         "resulting using including leveraging allowing enabling called named termed dubbed".split())
_ASIDE = re.compile(r"\s\([^()]*\)(?=[\s,.;:]|$)")
_HYPHEN = re.compile(r"([-/])")
_QUOTES = re.compile(r"[\"“”‘\[\]{}]|(?<!\w)['’]|['’](?!\w)")
_QUOTE_MARK = re.compile(r"[\"“”‘\[\]{}'’]")  # a fast test (a character class) whether ``_QUOTES`` may match
_SHOUTED = re.compile(r"[A-Z]{2,}[a-z]{2,}")


def _shorten(phrase: str, need: int = 2) -> list[str]:
    """Cut a phrase at its first natural boundary keeping ``need`` content words, then to MAX_WORDS words."""
    phrase = phrase[:400]
    phrase = _LEAD.sub("", (_ASIDE.sub("", phrase) if "(" in phrase else phrase).replace("novel ", "").strip())
    for m in _BOUNDARY.finditer(phrase):
        if m["and"] and m["and"] not in _AND_VERBS:
            continue
        head = phrase[: m.start()].split()
        verb = m["verb"]
        catenative = head[-1:] and head[-1].lower() in _CATENATIVE
        if verb and (verb not in _TO_VERBS and not verb.endswith(_VERB_ENDS) or catenative):
            continue  # "applied to graphs", "learn to solve": not a boundary
        while len(head) > 1 and head[-1].lower() in _TRAILING:  # "a system designed": "designed" goes later
            head.pop()
        if _content(head) >= need and _specific(head):
            phrase = phrase[: m.start()]
            break
    words = phrase.split()
    if len(words) > MAX_WORDS:
        small = [w.lower() in _SMALL for w in words[: MAX_WORDS + 1]]
        cut = [i for i in range(4, MAX_WORDS + 1) if small[i] and not small[i - 1]]  # before a preposition
        words = words[: cut[-1]] if cut else words[:MAX_WORDS]
    while len(words) > 1 and words[-1].lower() in _TRAILING:
        words.pop()
    return words


def _finish(words: list[str] | str) -> str:
    """Title Case with small words lower case, balanced parentheses, no quotes or trailing punctuation."""
    text = words if isinstance(words, str) else " ".join(words)
    if ("(" in text or ")" in text) and text.count("(") != text.count(")"):
        text = re.sub(r"\s?\([^()]*$", "", text).replace("(", "").replace(")", "")
    text = text.lstrip(" ,;:")  # "we introduce \\dataset, a benchmark": the macro went, the comma stays
    words = (_QUOTES.sub("", text) if _QUOTE_MARK.search(text) else text).split()
    out: list[str] = []
    for i, w in enumerate(words):
        low = w.lower()
        if low in _SMALL:
            if (low == "a" or low == "an") and i + 1 < len(words):
                w = _article(words[i + 1])
                low = w.lower()
            if out and not out[-1].endswith(":"):
                out.append(low)
                continue
        if w.islower() and w.isascii() and w.isalpha():
            w = w[0].upper() + w[1:]
        elif not w.istitle() or "-" in w or "/" in w:  # "Large", "3D": as ``_cap`` would give them
            w = _cap(w)
        out.append(w)
    return " ".join(out).strip(" ,;:.-–—")


def _article(word: str) -> str:
    """``a`` or ``an`` before ``word`` (by its first sound, acronyms by their first letter's name)."""
    if word[:2].isupper():
        return "An" if word[0] in "AEFHILMNORSX" else "A"
    vowel = word[:1].lower() in "aeiou" and not word.lower().startswith(("uni", "use", "usu", "one", "eu"))
    return "An" if vowel else "A"


def _cap(word: str, first: bool = True) -> str:
    """Title-case one word: ``self-supervised`` → ``Self-Supervised``, ``text-to-audio`` → ``Text-to-Audio``;
    keeps HASS, GraphGPT, LoRA, O(k); ``HArmonized`` → ``Harmonized``."""
    if word.isalpha() and word.islower():
        return word if not first and word in _SMALL else word[0].upper() + word[1:] if word[0].isascii() else word
    if "-" in word or "/" in word:
        parts = _HYPHEN.split(word)
        return "".join(_cap(p, first and i == 0) if i % 2 == 0 else p for i, p in enumerate(parts))
    if not first and word in _SMALL:
        return word
    if _SHOUTED.fullmatch(word):
        return word.capitalize()
    if not word[:1].isascii() or not word[:1].isalpha() or word[1:] != word[1:].lower():
        return word
    return word[:1].upper() + word[1:]


def _content(words: list[str]) -> int:
    """How many of ``words`` are not small words (``_SMALL``)."""
    return len(words) - sum(map(_SMALL.__contains__, map(str.lower, words)))


def _specific(words: list[str]) -> bool:
    """Whether a word of ``words`` sets a paper apart (is not in ``_GENERIC``: new, method, potential, AI, …)."""
    return not _GENERIC.issuperset(map(str.strip, map(str.lower, words), repeat(":,")))



# ------------------------------- 6. specific and closer: expand, de-anaphorise, add the topic
MAX_TOTAL = 16
_GENERIC = _SMALL | set("""new novel method model framework approach algorithm problem setting potential ai this these
those such it efficient effective simple general unified global improved better first solution system technique
strategy scheme architecture paradigm procedure case class result way study studying analysis analyzing exploring
investigating understanding task one two several some many various different based towards toward""".split())
_ANAPHORIC = {"this": "the", "these": "the", "those": "the", "such": "the", "its": "the", "their": "the"}
_ANAPHOR = re.compile(r"(?<!\S)(?:" + "|".join(_ANAPHORIC) + r"),?(?!\S)", re.I)  # one of them as a word
_TOPIC_STOP = _GENERIC | _TRAILING | set("""and or is are can do does how what when why which who that we our us
they them be been being was were has have had not no more most less much very well between among use used using
propose proposed proposes present presents introduce introduces paper show shows work results experiments
experimental demonstrate demonstrates performance methods models approaches algorithms frameworks existing state art
outperforms significantly achieves achieve achieving extensive across large able previous prior recent recently
further significant improve improves also both each other than then there thus however while where only al et e g
i ie eg learning data three four tasks problems settings three-dimensional | – — - & +""".split()) - {"model"}
_TWO_CAPITALS = re.compile(r"[A-Z]\S*[A-Z]")  # a word that may be an acronym of ``_long_form``
_TOPIC_BREAKS = tuple(",.;:()[]!?\"“”/")  # a pair never spans one


def _polish(title: str, name: str, text: str, words: tuple[str, list[str], Counter]) -> str:
    """Title-level repairs: anaphora (``This Setting`` → ``the Setting``), the abstract's topic (``_topic``)
    added as ``… for Topic`` when the title lacks most of its words, and acronyms the abstract expands
    spelled out (``_spelled_out``); at most MAX_TOTAL words. ``words``: the abstract's lower-case text,
    words and their counts (``_analyse``)."""
    low, toks, vocab = words
    words = title.split()
    if _ANAPHOR.search(title):
        words = [_ANAPHORIC.get(w.lower().rstrip(","), w.rstrip(",")) + w[len(w.rstrip(",")):] if i else w
                 for i, w in enumerate(words)]
        if words[0].lower() in _ANAPHORIC:
            words = [_cap(words[1])] + words[2:] if len(words) > 2 else ["The"] + words[1:]
    topic = _topic(text, low, toks, vocab, {w.strip(":,").rstrip("s") for w in " ".join(words).lower().split()})
    link = next((w for w in ("for", "in", "on") if w not in words), "with")  # never "… for X for Y"
    tail = [link] + [_cap(w) for w in topic] if topic and link != "on" and link != "with" else []
    if "(" in text and (_TWO_CAPITALS.search(title) or _TWO_CAPITALS.search(" ".join(topic))):  # an acronym?
        return " ".join(_spelled_out(words, tail, link, name, text))
    return " ".join(words + tail if len(words) + len(tail) <= MAX_TOTAL else words)


def _spelled_out(words: list[str], tail: list[str], link: str, name: str, text: str) -> list[str]:
    """``words`` and the topic ``tail`` with each acronym the abstract defines spelled out (``_units``), within
    MAX_TOTAL words: the tail goes first, then the title is cut before a preposition. An acronym inside the
    name (``Clustered IRM``, kept as written) that the title still does not spell out gets its long form
    as the tail instead of the topic when it fits (``… in Invariant Risk Minimization``)."""
    body, keep = _units(words, name, text)
    end = _units(tail, name, text)[0]
    flat = [w for unit in body + end for w in unit]
    if len(flat) <= MAX_TOTAL:
        long = _name_long_form(name, text, flat)
        size = len(flat) - sum(map(len, end))
        return flat[:size] + [link] + long if long and size + 1 + len(long) <= MAX_TOTAL else flat
    return _cut(body, MAX_TOTAL, keep)


def _units(words: list[str], name: str, text: str, deep: bool = True) -> tuple[list[list[str]], int]:
    """``words`` as units, each a word or the long form (``_long_words``) that replaces an acronym the
    abstract defines (``_long_form``), and how many words the name spans from the start. Neither the name's
    words nor another use of the name are replaced; an ``(ACR)`` whose long form the title has is dropped.
    ``An NPLL Framework`` → ``[A] [Noisy Partial Label Learning] [Framework]``."""
    span = _name_span(words, name)
    if not _TWO_CAPITALS.search(" ".join(words)):  # no acronym (the topic, mostly)
        return [[w] for w in words], max(span, default=-1) + 1
    out: list[list[str]] = []
    for i, w in enumerate(words):
        if w.islower() or i in span or not _TWO_CAPITALS.search(w):
            out.append([w])
            continue
        core = w.rstrip(":,")
        if core.endswith(("'s", "’s", "'", "’")):  # a possessive: FTRL’s
            core = core[:-2] if core.endswith("s") else core[:-1]
        bracket = core[:1] == "(" and core[-1:] == ")"
        core = core[1:-1] if bracket else core
        long = (_long_form(text, core) or (_long_form(text, core[:-1]) if core.endswith("s") else None)
                if core != name and _TWO_CAPITALS.search(core) else None)
        if not long:
            out.append([w])
            continue
        unit = _long_words(long, text if deep else "")
        if bracket:  # "Large Language Models (LLMs)": drop it; "(RL) Based": spell it out
            if _lacks(unit, words) <= _SMALL:
                continue
            w = w.replace("(", "").replace(")", "")
        if out and out[-1][0] in ("A", "An", "a", "an"):
            out[-1] = [_article(long) if len(out) == 1 else _article(long).lower()]
        out.append(unit[:-1] + [unit[-1] + w[w.index(core) + len(core):]])
    return out, max(span, default=-1) + 1


def _long_words(long: str, text: str) -> list[str]:
    """A long form in Title Case (``mIni-baTch`` → ``Mini-Batch``); with ``text``, its own acronyms spelled
    out too (``Discrete DDPMs`` → ``Discrete Denoising Diffusion Probabilistic Models``)."""
    words = ["-".join(p.capitalize() if _ACRONYM_LETTERS.fullmatch(p) else p for p in w.split("-"))
             for w in long.split()]
    words = [_cap(x) if j == 0 or x not in _SMALL else x for j, x in enumerate(words)]
    if text and _TWO_CAPITALS.search(long):
        words = [x for unit in _units(words, "", text, False)[0] for x in unit]
    return words


def _name_span(words: list[str], name: str) -> range:
    """The indices of ``words`` that hold ``name`` (its first occurrence; else from the first to the last
    word that is a word of the name), never spelled out."""
    parts = name.split()
    if not parts:
        return range(0)
    bare = [w.rstrip(":,") for w in words]
    for i in (i for i, w in enumerate(bare) if w == parts[0]):
        if bare[i: i + len(parts)] == parts:
            return range(i, i + len(parts))
    hits = [i for i, w in enumerate(bare) if w in parts]
    return range(hits[0], hits[-1] + 1) if hits else range(0)


def _name_long_form(name: str, text: str, title: list[str]) -> list[str]:
    """The long form (``_long_words``) of an acronym inside ``name`` (not the name itself: ``IRM`` of
    ``Clustered IRM``, ``FAST`` of ``FAST+``) that the abstract defines and whose words ``title`` lacks;
    [] if none."""
    for part in _WORDS.findall(name) if name else ():
        if part != name and _TWO_CAPITALS.search(part) and (long := _long_form(text, part)):
            words = _long_words(long, text)
            if not _lacks(words, title) <= _SMALL:
                return words
    return []


_WORDS = re.compile(r"[A-Za-z0-9]+")


def _lacks(words: list[str], title: list[str]) -> set[str]:
    """The words (lower case, letters and digits, without a plural "s") of ``words`` that ``title`` lacks."""
    have = {w.lower().rstrip("s") for t in title for w in _WORDS.findall(t)}
    return {w.lower().rstrip("s") for t in words for w in _WORDS.findall(t)} - have


def _cut(units: list[list[str]], limit: int, keep: int) -> list[str]:
    """The words of ``units``, at most ``limit``: cut between units, before a preposition when there is one
    after word ``keep`` (4 at least), without trailing small words (``_TRAILING``)."""
    words: list[str] = []
    ends = []
    for unit in units:
        words += unit
        ends.append(len(words))
    if len(words) <= limit:
        return words
    small = [w.lower() in _SMALL for w in words]
    fits = [k for k in ends if max(4, keep) <= k <= limit]
    cuts = [k for k in fits if small[k] and not small[k - 1]]
    words = words[: cuts[-1] if cuts else fits[-1] if fits else limit]
    while len(words) > max(1, keep) and words[-1].lower() in _TRAILING:
        words.pop()
    return words


def _topic(text: str, low: str, toks: list[str], freq: Counter, have: set[str]) -> list[str]:
    """The abstract's topic: its most weighted phrase of two or three words, none a stop word, that occurs
    at least twice (weight: occurrences times the summed frequency of its words), as first written; []
    if none. Candidates are word runs between stop words and punctuation, as in RAKE (Rose et al.,
    "Automatic keyword extraction from individual documents", 2010). Word pairs are counted by
    ``Counter`` (C speed), only those of two repeated words; ``low`` is ``text`` in lower case, ``toks``
    and ``freq`` its words (``_topic_tokens``) and their counts. A repeated pair grows to three words when that triple weighs more."""
    repeated = set(filterfalse(_TOPIC_STOP.__contains__,  # a repeated pair's words repeat
                               compress(freq, map(operator.gt, freq.values(), repeat(1)))))
    if not repeated:
        return []
    at = compress(range(len(toks) - 1), map(repeated.__contains__, toks))  # C speed over the ~190 words
    counts = Counter([(toks[i], toks[i + 1]) for i in at if toks[i + 1] in repeated])
    repeated = [(a, b) for (a, b), c in counts.items()
                if c > 1 and (a.rstrip("s") not in have or b.rstrip("s") not in have)]
    if not repeated:
        return []
    pairs = [(counts[a, b] * (freq[a] + freq[b]), a, b) for a, b in repeated]
    score, *best = max(pairs)
    for _, a, b in pairs:  # a repeated pair that continues or precedes the best one: a triple?
        tri = best + [b] if a == best[-1] else [a] + best if b == best[0] else None
        if tri and (c := low.count(" ".join(tri))) >= 2 and sum(k.rstrip("s") in have for k in tri) < 2 and c * sum(freq[k] for k in tri) > score:
            best, score = tri, c * sum(freq[k] for k in tri)
    phrase = " ".join(best)
    at = low.find(phrase)
    return (text[at: at + len(phrase)] if at >= 0 and len(low) == len(text) else phrase).split()


def _topic_tokens(low: str) -> list[str]:
    """The words of lower-case ``low``, with a "|" token for each punctuation mark of ``_TOPIC_BREAKS`` (a
    stop word, so no pair spans it); one ``str.replace`` a mark present is about twice as fast as a regular
    expression over the text."""
    for mark in _TOPIC_BREAKS:
        if mark in low:
            low = low.replace(mark, " | ")
    return low.split()
