"""Write N papers of the shared corpus as text lists in the seed layouts: its first N, or for N above the
corpus's size the whole corpus and then distinct copies of it (:func:`distinct_copies`).

Input: ``papers.jsonl`` (one JSON object a line: ``venue``, ``year``,
``authors``, ``abstract``, optional ``track``/``primary_area``, ``status``).
Output: one ``*.txt`` list per venue-year in a seeds folder, plus a
``site.toml`` that names the venue and year of the lists whose heading names none.

Layouts, alternating by venue-year (sorted), copied from ``seeds/``:

- ``seeds/000…``/``002…``: heading ``VENUE YEAR Papers``, then the
  abstracts, one paragraph each, separated by blank lines;
- ``seeds/003…``: heading ``论文检索`` (names no venue; the venue comes from
  ``site.toml``), then per paper a track line ``Area · Subarea``
  (the corpus ``track`` or ``primary_area``, else ``Papers``, with the ``status`` as sub-area),
  an author line (comma-separated, only for two or more authors, as in the
  seed) and the abstract.

For N above the corpus's size (10,448 papers; issue 25 asks for 100,000), copy ``k`` (1, 2, …) of every
paper gets the years shifted ``k`` times the corpus's span of years back (so each copy's venue-years are its
own lists), its abstract's common wording and frequent topic words varied (:data:`SYNONYMS`: "propose" →
"present", "method" → "approach"; :data:`TOPICS`: "graph" → "tree", "image" → "video"; drawn per paper and copy) until the abstract and the title the build derives from it differ
from every paper's before, and its authors renamed (the same given name with another author's surname), so
no copy is merged with another as a duplicate and the author pages grow with the site as they would.

Abstracts are written on one line (runs of whitespace become one space) so
a paragraph break inside an abstract never splits a paper.
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import re
from pathlib import Path

from site_builder.corpus import DEFAULT_CORPUS as CORPUS, require_corpus
from site_builder.read.duplicates import identity_key
from site_builder.text.titles import derive_title

#: Common words of abstracts and the words a copy may use instead (lower case; a capitalised word keeps
#: its capital). Only wording that keeps the sentence's sense and grammar.
SYNONYMS = {
    "propose": ["present", "introduce", "develop"], "proposes": ["presents", "introduces", "develops"],
    "proposed": ["presented", "introduced", "developed"], "novel": ["new", "fresh"],
    "method": ["approach", "technique"], "methods": ["approaches", "techniques"],
    "approach": ["method", "technique"], "approaches": ["methods", "techniques"],
    "framework": ["approach", "architecture"], "algorithm": ["procedure", "method"],
    "algorithms": ["procedures", "methods"], "show": ["demonstrate", "find"], "shows": ["demonstrates", "finds"],
    "demonstrate": ["show", "establish"], "improve": ["enhance", "boost"], "improves": ["enhances", "boosts"],
    "significantly": ["substantially", "considerably"], "outperforms": ["surpasses", "beats"],
    "efficient": ["scalable", "economical"], "effective": ["successful", "powerful"],
    "challenging": ["difficult", "demanding"], "various": ["diverse", "several"], "existing": ["prior", "current"],
    "achieve": ["attain", "obtain"], "achieves": ["attains", "obtains"], "leverage": ["exploit", "use"],
    "utilize": ["use", "employ"], "however": ["yet", "still"], "address": ["tackle", "handle"],
    "problem": ["task", "question"], "problems": ["tasks", "questions"], "task": ["problem", "setting"],
    "tasks": ["problems", "settings"], "analysis": ["study", "examination"], "study": ["analyse", "examine"],
    "robust": ["reliable", "resilient"], "large": ["big", "vast"], "small": ["little", "modest"],
    "results": ["findings", "outcomes"], "accurate": ["precise", "exact"], "simple": ["plain", "basic"],
    "important": ["key", "crucial"], "recent": ["new", "latest"], "many": ["numerous", "most"],
    "data": ["observations", "samples"], "paper": ["work", "article"], "work": ["paper", "study"],
    "model": ["network", "system"], "models": ["networks", "systems"], "new": ["novel", "fresh"],
    "first": ["initial", "earliest"], "learn": ["acquire", "infer"], "via": ["through", "by"],
}
#: Frequent words of the derived titles and neighbouring topics a copy's paper may be about instead: the copies
#: of a paper then get titles of their own (the derived title is made of the abstract's words).
TOPICS = {
    "graph": ["tree", "hypergraph"], "image": ["video", "scene"], "images": ["videos", "scenes"],
    "detection": ["recognition", "localization"], "text": ["document", "speech"], "generation": ["synthesis", "prediction"],
    "dataset": ["benchmark", "corpus"], "neural": ["deep", "learned"], "network": ["architecture", "model"],
    "networks": ["architectures", "models"], "knowledge": ["information", "expertise"], "information": ["knowledge", "signals"],
    "human": ["user", "expert"], "reasoning": ["inference", "planning"], "transformer": ["encoder", "decoder"],
    "domain": ["environment", "modality"], "optimization": ["search", "planning"], "object": ["instance", "entity"],
    "objects": ["instances", "entities"], "attention": ["gating", "memory"], "estimation": ["inference", "prediction"],
    "representation": ["embedding", "encoding"], "representations": ["embeddings", "encodings"],
    "semantic": ["structural", "contextual"], "visual": ["spatial", "perceptual"], "benchmark": ["dataset", "testbed"],
    "evaluation": ["assessment", "analysis"], "policy": ["controller", "strategy"], "adversarial": ["perturbed", "worst-case"],
    "distribution": ["density", "population"], "feature": ["attribute", "signal"], "features": ["attributes", "signals"],
    "temporal": ["sequential", "dynamic"], "video": ["image", "clip"], "linear": ["convex", "quadratic"],
    "dynamic": ["adaptive", "temporal"], "adaptive": ["dynamic", "flexible"], "contrastive": ["discriminative", "generative"],
    "segmentation": ["detection", "parsing"], "robot": ["agent", "manipulator"], "classification": ["recognition", "categorization"],
    "prediction": ["forecasting", "estimation"], "online": ["offline", "streaming"], "retrieval": ["search", "ranking"],
    "generative": ["discriminative", "probabilistic"], "stochastic": ["random", "noisy"], "recognition": ["identification", "classification"],
    "agent": ["robot", "policy"], "agents": ["robots", "policies"], "local": ["global", "regional"], "modeling": ["estimation", "analysis"],
    "motion": ["trajectory", "movement"], "uncertainty": ["confidence", "risk"], "sampling": ["selection", "search"],
    "transfer": ["adaptation", "sharing"], "decision": ["choice", "planning"], "alignment": ["matching", "calibration"],
    "inference": ["estimation", "prediction"], "latent": ["hidden", "implicit"], "control": ["planning", "steering"],
    "multimodal": ["cross-modal", "multi-view"], "translation": ["summarization", "transcription"],
    "causal": ["counterfactual", "structural"], "diffusion": ["flow", "score-based"], "hierarchical": ["nested", "multi-level"],
    "bayesian": ["probabilistic", "variational"], "planning": ["control", "search"], "reward": ["return", "utility"],
    "scene": ["environment", "layout"], "regression": ["classification", "estimation"], "prompt": ["instruction", "query"],
    "memory": ["cache", "buffer"], "sparse": ["compact", "low-rank"], "entity": ["concept", "object"],
    "dialogue": ["conversation", "chat"], "speech": ["audio", "voice"], "federated": ["distributed", "decentralized"],
    "clustering": ["partitioning", "grouping"], "code": ["program", "software"], "matching": ["alignment", "pairing"],
    "language": ["text", "speech"], "training": ["pretraining", "fitting"], "learning": ["training", "fitting"],
    "efficient": ["scalable", "lightweight"], "depth": ["shape", "geometry"], "pose": ["shape", "layout"],
    "label": ["annotation", "tag"], "loss": ["objective", "criterion"], "quality": ["fidelity", "accuracy"],
    "generalization": ["robustness", "transfer"], "unsupervised": ["self-supervised", "weakly supervised"],
}
VARIANTS = {**SYNONYMS, **TOPICS}
_WORD = re.compile(r"[A-Za-z]+")


def load_corpus(path: Path, n: int) -> list[dict]:
    """The first ``n`` records of the JSON-lines file at ``path`` (fewer when it holds fewer)."""
    records: list[dict] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if len(records) >= n:
                break
            if line.strip():
                records.append(json.loads(line))
    return records


def vary(text: str, rng: random.Random, share: float) -> str:
    """``text`` with each word of :data:`VARIANTS` replaced, with probability ``share``, by one of its
    alternatives drawn from ``rng`` (a capitalised word keeps its capital; other text unchanged)."""
    def swap(match: re.Match) -> str:
        word = match[0]
        options = VARIANTS.get(word.lower())
        if not options or rng.random() >= share:
            return word
        choice = rng.choice(options)
        return choice[0].upper() + choice[1:] if word[0].isupper() else choice
    return _WORD.sub(swap, text)


def renamed(author: str, k: int, surnames: list[str]) -> str:
    """``author`` in copy ``k``: the same given names, the surname of another author of the corpus
    (``surnames``, sorted, distinct), chosen by ``k`` and the name (``"Ada Lovelace"`` → ``"Ada Turing"``)."""
    given, _, surname = author.rpartition(" ")
    if not given or not surnames:
        return author
    position = bisect.bisect_left(surnames, surname)
    return f"{given} {surnames[(position + 7919 * k + len(given)) % len(surnames)]}"


def _copy(record: dict, k: int, span: int, surnames: list[str], taken: set[str]) -> dict:
    """Copy ``k`` of ``record``: years ``k * span`` back, authors :func:`renamed`, abstract :func:`vary`-ed
    (more of it on each retry) until neither its identity key nor its derived title is in ``taken``, to which
    both are added (after 6 tries the last variant is kept: its title may then repeat another's, and an abstract
    that still repeats one gets the sentence "This is release k of the work.")."""
    abstract = one_line(record["abstract"])
    rng = random.Random(f"{k}:{abstract}")
    for attempt in range(6):
        text = vary(abstract, rng, min(1.0, 0.4 + 0.12 * attempt))
        key, title = identity_key(text, None), "title:" + derive_title(text)
        if key not in taken and title not in taken:
            break
    if key in taken:  # no word to vary: a sentence of its own keeps it a paper of its own
        text += f" This is release {k} of the work."
        key = identity_key(text, None)
    taken.update((key, title))
    return {**record, "abstract": text, "year": int(record["year"]) - k * span,
            "authors": [renamed(one_line(a), k, surnames) for a in record.get("authors") or []]}


def distinct_copies(records: list[dict], n: int) -> list[dict]:
    """``n`` papers: ``records`` (those with an abstract), then copies 1, 2, … of them (:func:`_copy`) until
    there are ``n``. Deterministic. Raises ValueError when no record has an abstract."""
    base = [r for r in records if one_line(r.get("abstract") or "")]
    if not base:
        raise ValueError("no record with an abstract to copy")
    if n <= len(base):
        return base[:n]
    years = [int(r["year"]) for r in base]
    span = max(years) - min(years) + 1
    surnames = sorted({one_line(a).rpartition(" ")[2] for r in base for a in r.get("authors") or []} - {""})
    taken = {identity_key(one_line(r["abstract"]), None) for r in base}
    taken |= {"title:" + derive_title(one_line(r["abstract"])) for r in base}
    out = list(base)
    for i in range(n - len(base)):
        out.append(_copy(base[i % len(base)], 1 + i // len(base), span, surnames, taken))
    return out


def one_line(text: str) -> str:
    """``text`` with every run of whitespace made one space, stripped."""
    return re.sub(r"\s+", " ", text).strip()


def list_name(index: int, venue: str, year: int) -> str:
    """File name of the ``index``-th list, e.g. ``001_aistats-2023.txt``."""
    return f"{index:03d}_{re.sub(r'[^a-z0-9]+', '-', venue.lower())}-{year}.txt"


def track_line(record: dict) -> str:
    """The ``Area · Subarea`` line of ``record`` (area ``Papers`` when the corpus gives none).

    Every paper of the track/author layout gets one: a paper with no header
    line at all (no track, fewer than two authors) is read as the
    continuation of the abstract above it in such a list.
    """
    area = record.get("track") or record.get("primary_area") or "Papers"
    return f"{one_line(area)} · {one_line(record.get('status') or 'Papers')}"


def render_list(venue: str, year: int, records: list[dict], tracked: bool) -> str:
    """The text of one list: heading layout (``tracked`` False) or track/author/abstract layout."""
    if not tracked:
        return f"{venue} {year} Papers\n\n" + "".join(f"{one_line(r['abstract'])}\n\n" for r in records)
    blocks = []
    for record in records:
        lines = [track_line(record)]
        authors = [one_line(a) for a in record.get("authors") or [] if one_line(a)]
        if len(authors) >= 2:
            lines.append(", ".join(authors))
        lines.append(one_line(record["abstract"]))
        blocks.append("\n\n".join(lines))
    return "论文检索\n\n" + "".join(f"{b}\n\n" for b in blocks)


def write_lists(records: list[dict], seeds: Path, config: Path) -> list[Path]:
    """Write ``records`` as one list per venue-year into ``seeds`` and the config to ``config``.

    Returns the written list paths. Records keep their corpus order within a list.
    """
    seeds.mkdir(parents=True, exist_ok=True)
    for old in seeds.glob("*.txt"):
        old.unlink()
    groups: dict[tuple[str, int], list[dict]] = {}
    for record in records:
        if one_line(record.get("abstract") or ""):
            groups.setdefault((record["venue"], int(record["year"])), []).append(record)
    written: list[Path] = []
    toml = ['title = "Benchmark reading list"', 'description = "Papers of the shared corpus."', ""]
    for i, ((venue, year), group) in enumerate(sorted(groups.items())):
        tracked = i % 2 == 1
        path = seeds / list_name(i, venue, year)
        path.write_text(render_list(venue, year, group, tracked), encoding="utf-8")
        written.append(path)
        if tracked:  # its heading (论文检索) names no venue: the config does, as for seeds/003
            toml += [f'[lists."{path.name}"]', f'venue = "{venue}"', f"year = {year}", ""]
    config.write_text("\n".join(toml), encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    """``python bench/lists.py N OUTDIR``: write ``OUTDIR/seeds/*.txt`` and ``OUTDIR/site.toml``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="number of papers (the first N of the corpus; above its size, "
                                            "the corpus and distinct copies of it)")
    parser.add_argument("out", type=Path, help="folder to write seeds/ and site.toml into")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    records = distinct_copies(load_corpus(require_corpus(args.corpus), args.n), args.n)
    paths = write_lists(records, args.out / "seeds", args.out / "site.toml")
    print(f"wrote {len(paths)} lists into {args.out / 'seeds'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
