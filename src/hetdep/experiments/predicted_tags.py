"""The papers' real setting: parsers trained on jackknifed tags and tested on predicted ones, 1-best and over tag lattices."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Callable, Sequence

from hetdep.evaluation.attachment import evaluate
from hetdep.experiments.common import (
    PairModels,
    Scores,
    cached_model,
    joint_model_name,
    score_trees,
    scores_header,
    scores_row,
    significance_table,
)
from hetdep.joint.parser import JointParser
from hetdep.joint.schedule import INFINITE, t_label
from hetdep.joint.training import train_joint
from hetdep.learn.perceptron import TrainOptions
from hetdep.transition.parser import ArcStandardParser
from hetdep.transition.training import train
from hetdep.treebank.pairs import read_pairs

LATTICE_WEIGHTS = (0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)  # weights of the tagger's log-probabilities tried on dev


def run_predicted_tags_experiment(treebank: Path, out: Path, *, scheme_a: str = "sud", scheme_b: str = "ud",
                                  ts: Sequence[int] = (INFINITE,), options: TrainOptions = TrainOptions(), folds: int = 10,
                                  tagger_iterations: int = 10, lattice_k: int = 3, lattice_reference: str = "gold",
                                  lattice_weight: float = 0.0, log: Callable[[str], None] = print,
                                  train_only: bool = False) -> Path | None:
    """Baseline and joint parsers with predicted tags, as the papers parse (issue 7), and
    arc-standard parsers over tag lattices of the ``lattice_k`` best tags (0: none).

    A joint model is trained for each t of ``ts``; the one with the best mean UAS on tagged dev is
    tested (and used over lattices), as t is chosen in 'experiment joint'. ``train_only`` trains
    the 1-best models OUT lacks and stops, so several processes can share one OUT.

    Lattice parsers learn to reach a reference path of tags: the gold tag where the tagger offered
    it (``lattice_reference`` "gold") or the tagger's best, as the 1-best parsers read
    ("predicted"), adding the tagger's log-probabilities times ``lattice_weight`` as they search;
    the weight they parse with is then chosen on dev.

    UPOS of train is jackknifed (``folds`` taggers, each never seeing its fold); a tagger trained
    on all of train tags dev and test. Both schemes share the words, so one tagging serves both
    files. The parsers train on the jackknifed train, pick their iteration on tagged dev, and
    are scored on tagged test against the gold trees (punctuation by gold UPOS). Lattice
    parsers train on the gold tags with the jackknifed candidates beside them. Tagged files
    (OUT/tagged) and models (OUT/models) are reused by a rerun with the same options.
    """
    from dataclasses import replace

    from hetdep.tagger.training import TaggerOptions, jackknife, tag_accuracy, train_tagger
    from hetdep.treebank.conllu import MISC, UPOS, write_conllu
    from hetdep.treebank.tags import parse_kbest

    if lattice_reference not in ("gold", "predicted"):
        raise ValueError(f"lattice_reference is 'gold' or 'predicted', not {lattice_reference!r}")
    start = time.perf_counter()
    tagged_dir, models_dir = out / "tagged", out / "models"
    tagged_dir.mkdir(parents=True, exist_ok=True)
    split = lambda name, scheme: treebank / f"{name}.{scheme}.conllu"  # noqa: E731
    gold = {name: read_pairs(split(name, scheme_a), split(name, scheme_b), require_heads=True) for name in ("train", "dev", "test")}
    tagger_options = TaggerOptions(column="upos", iterations=tagger_iterations, seed=options.seed)
    record = tagged_dir / "options.json"
    k = max(lattice_k, 1)
    wanted = {"folds": folds, "tagger_iterations": tagger_iterations, "seed": options.seed, "k": k}
    if not (record.exists() and json.loads(record.read_text(encoding="utf-8")) == wanted):
        log(f"jackknifing train in {folds} folds")
        candidates = jackknife([p.a for p in gold["train"]], folds, ["upos"], tagger_options, k=k,
                               progress=lambda message: log(f"  {message}"))
        tagged = {"train-lattice": candidates,  # gold tags, candidates in MISC
                  "train": [s.with_column(UPOS, [parse_kbest(misc)[0][0] for misc in s.column(MISC)]) for s in candidates]}
        log("training the tagger on all of train")
        tagger = train_tagger([p.a for p in gold["train"]], [p.a for p in gold["dev"]], tagger_options).parser
        for name in ("dev", "test"):
            tagged[name] = list(tagger.tag((p.a for p in gold[name]), k=k))
        for name, sentences in tagged.items():
            for side, scheme in (("a", scheme_a), ("b", scheme_b)):
                write_conllu((getattr(p, side).with_column(UPOS, s.column(UPOS)).with_column(MISC, s.column(MISC))
                              for p, s in zip(gold[name.split("-")[0]], sentences)), tagged_dir / f"{name}.{scheme}.conllu")
        record.write_text(json.dumps(wanted), encoding="utf-8")
    pairs = {name: read_pairs(tagged_dir / f"{name}.{scheme_a}.conllu", tagged_dir / f"{name}.{scheme_b}.conllu",
                              require_heads=True) for name in ("train", "train-lattice", "dev", "test")}
    accuracy = {name: tag_accuracy([p.a for p in gold[name]], [p.a for p in pairs[name]]) for name in ("train", "dev", "test")}

    models = PairModels(models_dir, (scheme_a, scheme_b), pairs["train"], pairs["dev"], options, log, ", on predicted tags")

    def score_joint(parser: JointParser, name: str) -> Scores:
        parsed = list(parser.parse(p.a for p in pairs[name]))
        return score_trees(gold[name], [x for x, _ in parsed], [y for _, y in parsed])

    if train_only:
        models.baseline(0), models.baseline(1)
        for t in ts:
            models.joint(t, "paper")
        return None
    baselines = models.baseline(0), models.baseline(1)

    def score_baselines(name: str) -> Scores:
        return score_trees(gold[name], *(parser.parse(p[side] for p in pairs[name]) for side, parser in enumerate(baselines)))

    header = scores_header(scheme_a, scheme_b)
    dev_joint = {value: score_joint(models.joint(value, "paper"), "dev") for value in ts}  # one model in memory at a time
    t = max(ts, key=lambda value: dev_joint[value].a.uas + dev_joint[value].b.uas)
    dev_lines = ["## Development set: choosing t", "", header, scores_row("baseline", score_baselines("dev"))]
    dev_lines += [scores_row(f"joint t = {t_label(value)}", dev_joint[value]) for value in ts]
    dev_lines += ["", f"Best t on tagged dev (mean UAS): **{t_label(t)}**.", ""]
    gold_a, gold_b = [p.a for p in gold["test"]], [p.b for p in gold["test"]]
    test_in = [p.a for p in pairs["test"]]
    base = score_baselines("test")
    joined = score_joint(models.joint(t, "paper"), "test")
    rows, significance = significance_table(((scheme_a, joined.a, base.a), (scheme_b, joined.b, base.b)))
    lattice_lines: list[str] = []
    if lattice_k:
        lattice_options = replace(options, lattice=True, lattice_weight=lattice_weight)
        lattice_train = pairs["train-lattice" if lattice_reference == "gold" else "train"]

        def lattice_parser(side: str, scheme: str) -> ArcStandardParser:
            return cached_model(models_dir / f"lattice-{lattice_reference}-{scheme}", lattice_options, ArcStandardParser.load, log,
                                f"training the lattice parser of scheme {scheme}",
                                lambda: train([getattr(p, side) for p in lattice_train],
                                              [getattr(p, side) for p in pairs["dev"]], lattice_options))

        weights_chosen = {}

        def tuned(parser, scheme: str, dev_uas: Callable[[object], float]):
            """The parser with the weight of the tagger's log-probabilities that parses dev best."""
            scores = {}
            for weight in LATTICE_WEIGHTS:
                parser.lattice_weight = weight
                scores[weight] = dev_uas(parser)
            parser.lattice_weight = weights_chosen[scheme] = max(LATTICE_WEIGHTS, key=lambda w: scores[w])
            log(f"lattice weight of {scheme}: {parser.lattice_weight:g} (dev UAS {scores[parser.lattice_weight]:.2f})")
            return parser

        outputs = {}
        for side, scheme in (("a", scheme_a), ("b", scheme_b)):
            parser = tuned(lattice_parser(side, scheme), scheme, lambda p: evaluate(
                [getattr(g, side) for g in gold["dev"]], p.parse(getattr(x, side) for x in pairs["dev"])).uas)
            outputs[side] = list(parser.parse(getattr(p, side) for p in pairs["test"]))
        lattice = Scores(evaluate(gold_a, outputs["a"]), evaluate(gold_b, outputs["b"]))
        joint_lattice = cached_model(models_dir / f"{joint_model_name(t, 'paper')}-lattice-{lattice_reference}", lattice_options,
                                     JointParser.load, log, f"training the joint model, t = {t_label(t)}, over tag lattices",
                                     lambda: train_joint(lattice_train, pairs["dev"], lattice_options, t=t))

        def joint_dev_uas(parser) -> float:
            scores = score_joint(parser, "dev")
            return (scores.a.uas + scores.b.uas) / 2

        joint_lattice = tuned(joint_lattice, "joint", joint_dev_uas)
        parsed_lattice = list(joint_lattice.parse(test_in))
        joined_lattice = Scores(evaluate(gold_a, [x for x, _ in parsed_lattice]), evaluate(gold_b, [y for _, y in parsed_lattice]))
        lattice_rows, lattice_significance = significance_table(((scheme_a, lattice.a, base.a), (scheme_b, lattice.b, base.b)),
                                                           "lattice")
        joint_rows, joint_significance = significance_table(((scheme_a, joined_lattice.a, joined.a),
                                                        (scheme_b, joined_lattice.b, joined.b)), "joint lattice", "joint 1-best")
        significance.update({f"lattice {key}": value for key, value in lattice_significance.items()})
        significance.update({f"joint lattice {key}": value for key, value in joint_significance.items()})
        chosen = tag_accuracy(gold_a, outputs["a"])
        reference_text = ("the gold tags (where the tagger offered them, else its best)" if lattice_reference == "gold"
                          else "the tagger's best tags, as the 1-best parsers are")
        chosen_joint = tag_accuracy(gold_a, [x for x, _ in parsed_lattice])
        lattice_lines = ["## Test set, tag lattices", "",
                         f"Each word's {lattice_k} best tags; the lattice parsers choose among them with the tree. They "
                         f"were trained toward {reference_text} (--lattice-reference {lattice_reference}), adding the "
                         f"tagger's log-probability of each choice times {lattice_weight:g} while training, and parse "
                         f"adding it times a weight chosen on dev from "
                         f"{list(LATTICE_WEIGHTS)} (chosen: " + ", ".join(f"{k} {v:g}" for k, v in weights_chosen.items())
                         + f"). UPOS accuracy of the tags chosen on test: {chosen:.2f}% "
                         f"({scheme_a} arc-standard parser), {chosen_joint:.2f}% (joint model), against "
                         f"{accuracy['test']:.2f}% for the tagger's best.", "",
                         header, scores_row("baseline (1-best tags)", base), scores_row(f"baseline, lattice k = {lattice_k}", lattice),
                         scores_row(f"joint t = {t_label(t)} (1-best tags)", joined), scores_row(f"joint t = {t_label(t)}, lattice k = {lattice_k}",
                                                                               joined_lattice), ""]
        lattice_lines += joint_rows
        lattice_lines += lattice_rows
    lines = [f"# Parsing with predicted tags on {treebank.name} (scheme a = {scheme_a}, scheme b = {scheme_b})", "",
             f"Produced by `hetdep experiment predicted-tags --treebank {treebank} --out {out} --scheme-a {scheme_a} "
             f"--scheme-b {scheme_b} --t {','.join(map(t_label, ts))} --beam {options.beam} --iterations {options.iterations} --update {options.update} "
             f"--folds {folds} --tagger-iterations {tagger_iterations} --lattice-k {lattice_k} "
             f"--lattice-reference {lattice_reference} --lattice-weight {lattice_weight:g}`.", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; beam {options.beam}, "
             f"at most {options.iterations} iterations (patience {options.patience}), {options.update} update; "
             f"punctuation (gold UPOS PUNCT) excluded.", "",
             "UPOS accuracy of the tags the parsers read (every word): "
             f"train (jackknifed, {folds} folds) {accuracy['train']:.2f}%, dev {accuracy['dev']:.2f}%, "
             f"test {accuracy['test']:.2f}%.", "",
             *dev_lines, "## Test set, predicted tags", "", header, scores_row("baseline", base), scores_row(f"joint t = {t_label(t)}", joined), ""]
    lines += rows + lattice_lines
    lines += [f"Wall time of this run: {time.perf_counter() - start:.0f} s (tagged files and models of earlier runs reused).", ""]
    report = out / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    (out / "significance.json").write_text(json.dumps(significance, indent=1))
    return report
