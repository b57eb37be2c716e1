"""zhou-zhao2013's experiment (Tables 1 and 4, and our Table 5): two graph-based parsers trained on
different treebanks, joint inference between them, learned agreement features, concatenation baselines."""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from hetdep.evaluation.attachment import evaluate
from hetdep.evaluation.significance import compare
from hetdep.experiments.common import cached_model
from hetdep.learn.perceptron import TrainOptions


@dataclass
class Treebank:
    """One side of the joint-inference setting: a name and its train, dev (tuning) and test sentences."""

    name: str
    train: list
    dev: list
    test: list


def consensus_setting(name: str, data: Path) -> tuple[Treebank, Treebank]:
    """The two treebanks of a zhou-zhao2013 setting, from ``data`` (``../shared/data``).

    ``fr``: fr-sequoia UD (train/dev/test) with fr-gsd SUD, whose dev file is split into its first
    1276 sentences for training and the last 200 for tuning, its test file for testing.
    ``en``: en-ewt UD with NLTK's WSJ sample converted by our Penn2Malt rules (unlabeled: one label,
    ``dep``), split by file number: wsj_0001-0159 train, 0160-0179 dev, 0180-0199 test.
    """
    from hetdep.treebank.conllu import read_conllu

    if name == "fr":
        sequoia = data / "fr-sequoia"
        gsd = list(read_conllu(data / "fr-gsd" / "dev.sud.conllu"))
        return (Treebank("fr-sequoia (UD)", *(list(read_conllu(sequoia / f"{split}.ud.conllu")) for split in ("train", "dev", "test"))),
                Treebank("fr-gsd (SUD)", gsd[:1276], gsd[1276:], list(read_conllu(data / "fr-gsd" / "test.sud.conllu"))))
    if name == "en":
        from hetdep.convert.headrules import convert_trees, load_table
        from hetdep.treebank.ptb import read_trees

        ewt = data / "en-ewt"
        parts: dict[str, list] = {"train": [], "dev": [], "test": []}
        for sentence in convert_trees(read_trees(data / "en-wsj-sample" / "treebank.zip"), load_table("penn2malt")):
            number = int(sentence.sent_id.split("wsj_")[1][:4])
            split = "train" if number <= 159 else "dev" if number <= 179 else "test"
            parts[split].append(sentence.with_tree(sentence.heads, ["dep"] * len(sentence)))
        return (Treebank("en-ewt (UD)", *(list(read_conllu(ewt / f"{split}.ud.conllu")) for split in ("train", "dev", "test"))),
                Treebank("WSJ sample (Penn2Malt)", parts["train"], parts["dev"], parts["test"]))
    raise ValueError(f"unknown setting {name!r}: fr or en")


CONSENSUS_SYSTEMS = {"+edge": ("edge",), "+root": ("root",), "+sib": ("sibling",), "+gp": ("grand",),
                     "+all": ("edge", "root", "sibling", "grand")}


def run_consensus_experiment(setting: str, data: Path, out: Path, *, kinds: tuple[str, ...] = ("dep1", "dep2"),
                             options: TrainOptions = TrainOptions(iterations=10, patience=3), k: int = 16, iterations: int = 4,
                             grid: tuple[float, ...] = (0.0, 1.0, 2.0, 5.0, 10.0), log: Callable[[str], None] = print,
                             treebanks: tuple[Treebank, Treebank] | None = None) -> Path:
    """zhou-zhao2013 Tables 1 and 4 for each parser kind: baselines, consensus features (each alone
    and all together, weights tuned on each treebank's dev set), concatenation baselines, and
    sentence-level sign tests. ``treebanks`` replaces the setting's own (tests run it small)."""
    from hetdep.graph.consensus import SUPPORT, ConsensusOptions, error_support, joint_parse, start, tune
    from hetdep.graph.parser import KINDS, GraphParser, train_concatenated, train_graph

    began = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    a, b = treebanks or consensus_setting(setting, data)
    models = out / "models"

    def trained(name: str, kind: str, train: Callable[[], object]) -> GraphParser:
        def train_afresh():
            for key in [key for key in tuned_cache if key.startswith(f"{kind} ") and name in ("a", "b")]:
                del tuned_cache[key]  # weights tuned for the older baselines no longer apply
            return train()

        return cached_model(models / f"{kind}-{name}", options, lambda directory: GraphParser.load(directory, kind), log,
                            f"training {kind}: {name}", train_afresh)

    base = ConsensusOptions(k=k, iterations=iterations)
    tuned_file = out / "tuned.json"  # tuned weights, reused by a rerun with the same models
    tuned_cache = json.loads(tuned_file.read_text(encoding="utf-8")) if tuned_file.exists() else {}
    rows: dict[tuple[str, str], tuple] = {}  # (kind, system) -> UAS a, UAS b, options a, options b
    evaluations: dict[tuple[str, str], tuple] = {}
    concatenation_rows: dict[tuple[str, str], tuple[float, float]] = {}
    supports: dict[str, tuple[dict[str, int], dict[str, int]]] = {}  # kind -> each baseline's wrong dev heads by support

    def write_report() -> Path:
        """The report of the kinds done so far (written after each, so a long run leaves one behind)."""
        def weights(system: str, chosen: ConsensusOptions) -> str:
            if system not in CONSENSUS_SYSTEMS:
                return "-"
            return ", ".join(f"{name} {getattr(chosen, name):g}" for name in ("edge", "root", "sibling", "grand")
                             if name in CONSENSUS_SYSTEMS[system]) or "-"

        lines = [f"# Joint inference across treebanks, setting {setting}: {a.name} and {b.name}", "",
                 f"Produced by `hetdep experiment consensus --setting {setting} --data {data} --out {out} --parsers {','.join(kinds)} "
                 f"--iterations {options.iterations} --k {k} --rounds {iterations}`.", "",
                 f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
                 f"at most {options.iterations} training iterations (patience {options.patience}), tags from {options.tag_column}; "
                 f"k-best lists of {k}, {iterations} rounds of exchange; consensus weights tuned on each treebank's dev set "
                 f"over {list(grid)}, one weight at a time (see `hetdep.graph.consensus.tune`); punctuation (gold UPOS PUNCT) excluded.", "",
                 f"Sentences train / dev / test: {a.name} {len(a.train)} / {len(a.dev)} / {len(a.test)}; "
                 f"{b.name} {len(b.train)} / {len(b.dev)} / {len(b.test)}.", "",
                 "## Table 1: test UAS", "", f"| system | {a.name} | {b.name} | weights ({a.name}) | weights ({b.name}) |",
                 "|---|---|---|---|---|"]
        for (kind, system), (uas_a, uas_b, options_a, options_b) in rows.items():
            lines.append(f"| {kind} {system} | {uas_a:.2f} | {uas_b:.2f} | {weights(system, options_a)} | {weights(system, options_b)} |")
        lines += [f"| {kind} {system} | {uas_a:.2f} | {uas_b:.2f} | - | - |" for (kind, system), (uas_a, uas_b) in concatenation_rows.items()]
        lines += ["", "+learned: each parser retrained with agreement features (the other baseline's k-best arc mass, binned, "
                  "with whether the other mostly has the reverse arc, the head as grandparent, or the two words as "
                  "siblings, conjoined with arc direction, length and tags; `hetdep train --helper`), parsing with the other baseline's "
                  "list (one exchange; no weight tuned).", "",
                  "Concatenation: one parser trained on both training sets, labels kept apart (`a:nsubj`, `b:subj`), "
                  "the iteration chosen by the mean dev UAS. Every arc feature of these parsers is labeled, so parsed as its "
                  "treebank the concatenated parser shares only its vocabulary and (dep2) its unlabeled sibling and grandparent "
                  "weights between the schemes; the feature copies add unlabeled arc weights shared by both.", "",
                  "## Table 4: sentences better / unchanged / worse than the baseline (test, UAS), sign test", "",
                  "Correct heads: the system's minus the baseline's, over all scored words.", "",
                  "| system | treebank | better | unchanged | worse | sign test p | correct heads |", "|---|---|---|---|---|---|---|"]
        for kind, system in rows:
            if system == "baseline":
                continue
            for side, treebank in ((0, a), (1, b)):
                system_eval, baseline_eval = evaluations[kind, system][side], evaluations[kind, "baseline"][side]
                sign = compare(system_eval, baseline_eval)["sign_test"]
                gained = int(system_eval.counts.heads.sum() - baseline_eval.counts.heads.sum())
                lines.append(f"| {kind} {system} | {treebank.name} | {sign['better']} | {sign['ties']} | {sign['worse']} | "
                             f"{sign['p']:.4f} | {gained:+d} of {system_eval.words} |")
        lines += ["", "## Table 5: the baselines' wrong heads on dev, by what the other baseline's trees relate the word to", "",
                  f"Related: the arc, its reverse, the head as grandparent or the two words as siblings holds half the mass of "
                  f"the other baseline's {k}-best trees (what the agreement features see; `hetdep.graph.consensus.error_support`). "
                  "The first column is what agreement features could mend, the second what following the other parser would "
                  "break further: a parser learns to follow it only in contexts (tags, direction, length) where the first "
                  "outweighs the second.", "",
                  f"| parser | treebank | wrong heads | {' | '.join(SUPPORT)} |", "|---|---|---|" + "---|" * len(SUPPORT)]
        for kind, sides in supports.items():
            for treebank, counts in zip((a, b), sides):
                lines.append(f"| {kind} | {treebank.name} | {sum(counts.values())} | "
                             + " | ".join(str(counts[name]) for name in SUPPORT) + " |")
        lines += ["", f"Wall time of this run: {time.perf_counter() - began:.0f} s (models in {models} are reused by a rerun).", ""]
        report = out / "report.md"
        report.write_text("\n".join(lines), encoding="utf-8")
        return report

    for kind in kinds:
        order = KINDS[kind]
        parser_a = trained("a", kind, lambda: train_graph(a.train, a.dev, options, order=order))
        parser_b = trained("b", kind, lambda: train_graph(b.train, b.dev, options, order=order))
        starts = {side: [start(first, second, sentence, base, base) for sentence in treebank.test]
                  for side, first, second, treebank in (("a", parser_a, parser_b, a), ("b", parser_b, parser_a, b))}

        def score(system: str, options_a: ConsensusOptions, options_b: ConsensusOptions, first=parser_a, second=parser_b) -> None:
            known = first is parser_a and second is parser_b  # the cached starts hold the baselines' lists
            eval_a = evaluate(a.test, [x for x, _ in joint_parse(first, parser_b, a.test, options_a, base,
                                                                  starts["a"] if known else None)])
            eval_b = evaluate(b.test, [x for x, _ in joint_parse(second, parser_a, b.test, options_b, base,
                                                                  starts["b"] if known else None)])
            rows[kind, system] = (eval_a.uas, eval_b.uas, options_a, options_b)
            evaluations[kind, system] = (eval_a, eval_b)
            log(f"test, {kind} {system}: {a.name} UAS {eval_a.uas:.2f}, {b.name} UAS {eval_b.uas:.2f}")

        score("baseline", base, base)
        supports[kind] = (error_support(parser_a, parser_b, a.dev, k), error_support(parser_b, parser_a, b.dev, k))
        for system, names in CONSENSUS_SYSTEMS.items():
            grids = {name: grid for name in names}
            key = f"{kind} {system} grid={list(grid)} k={k} rounds={iterations}"
            if key not in tuned_cache:
                tuned_cache[key] = [asdict(tune(first, second, treebank.dev, grids, base)[0])
                                    for first, second, treebank in ((parser_a, parser_b, a), (parser_b, parser_a, b))]
                tuned_file.write_text(json.dumps(tuned_cache, indent=1), encoding="utf-8")
            score(system, *(ConsensusOptions(**chosen) for chosen in tuned_cache[key]))
        helped_a = trained("a-helped", kind, lambda: train_graph(a.train, a.dev, options, order=order, helper=parser_b, helper_k=k))
        helped_b = trained("b-helped", kind, lambda: train_graph(b.train, b.dev, options, order=order, helper=parser_a, helper_k=k))
        score("+learned", base, base, helped_a, helped_b)
        both = {"a": (a.train, a.dev), "b": (b.train, b.dev)}
        concatenated = trained("concatenated", kind, lambda: train_concatenated(both, options, order=order))
        augmented = trained("concatenated-augmented", kind, lambda: train_concatenated(both, options, order=order, augmented=True))
        for system, (first, second) in {
            "concatenation, scheme unknown at parse time (the paper's)": (concatenated, concatenated),
            "concatenation, parsed as its treebank (its labels only)": (concatenated.for_treebank("a"), concatenated.for_treebank("b")),
            "concatenation with per-treebank feature copies (Daume 2007)": (augmented.for_treebank("a"), augmented.for_treebank("b")),
        }.items():
            concatenation_rows[kind, system] = (evaluate(a.test, list(first.parse(a.test))).uas,
                                                evaluate(b.test, list(second.parse(b.test))).uas)
            log(f"test, {kind} {system}: {a.name} UAS {concatenation_rows[kind, system][0]:.2f}, "
                f"{b.name} UAS {concatenation_rows[kind, system][1]:.2f}")
        report = write_report()
    return report
