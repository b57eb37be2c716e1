"""mi-huang2015's experiment on the WSJ sample: the shift-reduce constituency parser with and
without dynamic programming (Figure 4: dev F1 by iteration), with gold and predicted tags, its
speed, and "parse phrase structure, then Penn2Malt" against the arc-standard parser trained on the
Penn2Malt conversion of the same training trees.

Splits (the sample has files wsj_0001..wsj_0199): 0001-0159 train, 0160-0179 dev, 0180-0199 test.
Models are kept under ``OUT/models`` and reused by a rerun with the same options.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Callable, Sequence

from hetdep.constituency.parser import ConstituencyParser
from hetdep.constituency.training import TaggedTree, dev_f1, read_treebank, train
from hetdep.convert.headrules import convert_trees, load_table, tree_sentence
from hetdep.errors import HetdepError
from hetdep.evaluation.attachment import evaluate
from hetdep.evaluation.brackets import BracketScores, score
from hetdep.experiments.common import cached_model
from hetdep.learn.model_files import read_kind
from hetdep.learn.perceptron import TrainOptions
from hetdep.models import NEURAL_CONSTITUENCY
from hetdep.transition.parser import ArcStandardParser
from hetdep.treebank.conllu import XPOS
from hetdep.treebank.ptb import Tree
from hetdep.treebank.tags import lattice_candidates

SPLITS = {"train": (1, 159), "dev": (160, 179), "test": (180, 199)}


def wsj_splits(data: Path) -> dict[str, list[TaggedTree]]:
    """The sample's trees by split, from ``treebank.zip`` in ``data`` (or ``data`` itself, a zip or folder)."""
    source = data / "treebank.zip" if (data / "treebank.zip").is_file() else data
    splits: dict[str, list[TaggedTree]] = {name: [] for name in SPLITS}
    for item in read_treebank(source):
        found = re.search(r"wsj_(\d{4})", item.tree.path)
        if not found:
            raise HetdepError(f"{item.tree.path}: not a WSJ file name (wsj_NNNN.mrg): the splits go by file number")
        number = int(found.group(1))
        for name, (low, high) in SPLITS.items():
            if low <= number <= high:
                splits[name].append(item)
    return splits


def _scores(parser: ConstituencyParser, items: Sequence[TaggedTree], tags: Sequence[list[str]]) -> tuple[BracketScores, float]:
    """EVALB's scores of a parse of ``items`` with ``tags`` (candidates for a lattice parser), and the words per second of that parse (in process)."""
    started = time.perf_counter()
    parse = parser.parse_candidates if parser.lattice else parser.parse_tokens
    parsed = [Tree(parse(item.forms, listed), item.tree.path, item.tree.line) for item, listed in zip(items, tags)]
    seconds = time.perf_counter() - started
    words = sum(len(item.forms) for item in items)
    return score([Tree(item.root, item.tree.path, item.tree.line) for item in items], parsed), words / seconds


def _row(name: str, result: BracketScores, speed: float | None = None) -> str:
    return (f"| {name} | {result.precision:.2f} | {result.recall:.2f} | {result.f1:.2f} | {result.complete_match:.2f} "
            f"| {result.tagging_accuracy:.2f} |" + (f" {speed:,.0f} |" if speed is not None else " |"))


LATTICE_WEIGHTS = (0.0, 0.5, 1.0, 2.0, 5.0, 10.0)  # the lattice parser's tagger weight is chosen among these on dev


def dependency_options(options: TrainOptions, iterations: int) -> TrainOptions:
    """The arc-standard parser compared with: beam 64, gold XPOS tags, the experiment's seed."""
    return TrainOptions(beam=64, iterations=iterations, tag_column="xpos", seed=options.seed)


def run_constituency_experiment(data: Path, out: Path, options: TrainOptions, folds: int = 10, lattice_k: int = 3,
                                dependency_iterations: int = 10, log: Callable[[str], None] = print,
                                tagger_model: Path | None = None, neural_model: Path | None = None) -> Path:
    """The experiment's models (trained or reused) and its report; ``tagger_model``: a model that
    tags XPOS (a neural model trained on the Penn2Malt conversion of the training trees), whose
    test tags the predicted-tags parser reads in one more row; ``neural_model``: a neural
    phrase-structure model trained on the same split, one more row (and its dependencies' row)."""
    from hetdep.tagger.training import TaggerOptions, jackknife, tag_accuracy, train_tagger

    if neural_model is not None and read_kind(neural_model) != NEURAL_CONSTITUENCY:  # said before hours of training
        raise HetdepError(f"--neural {neural_model}: a '{read_kind(neural_model)}' model, not a neural phrase-structure "
                          f"one (train it with --parser {NEURAL_CONSTITUENCY})")
    splits = wsj_splits(data)
    train_items, dev_items, test_items = splits["train"], splits["dev"], splits["test"]
    log(f"WSJ sample: {len(train_items)} training, {len(dev_items)} dev, {len(test_items)} test trees")
    models = out / "models"
    models.mkdir(parents=True, exist_ok=True)
    gold = {name: [item.gold_tags for item in items] for name, items in splits.items()}

    def constituency(name: str, train_options: TrainOptions, **tags) -> ConstituencyParser:
        return cached_model(models / name, train_options, ConstituencyParser.load, log, f"training {name}",
                            lambda: train(train_items, dev_items, train_options, **tags))

    plain = constituency("plain-gold-tags", options)
    dp_options = TrainOptions(**{**vars(options), "dp": True})
    dp = constituency("dp-gold-tags", dp_options)
    # Predicted tags: the parser learns from jackknifed tags and reads a tagger's.
    table = load_table("penn2malt")
    sentences = {name: list(convert_trees([item.tree for item in items], table)) for name, items in splits.items()}
    log(f"training the XPOS tagger and jackknifing train ({folds} folds)")
    tagger = train_tagger(sentences["train"], sentences["dev"], TaggerOptions(column="xpos", seed=options.seed)).parser
    kbest = {name: list(tagger.tag(sentences[name], k=lattice_k)) for name in ("dev", "test")}
    predicted = {name: [s.column(XPOS) for s in kbest[name]] for name in ("dev", "test")}
    jackknife_options = TaggerOptions(iterations=10, seed=options.seed)
    jackknifed = jackknife(sentences["train"], folds, ["xpos"], jackknife_options)
    predicted["train"] = [s.column(XPOS) for s in jackknifed]
    tagged = constituency("plain-predicted-tags", options, train_tags=predicted["train"], dev_tags=predicted["dev"])
    lattices = {name: [lattice_candidates(s, XPOS) for s in kbest[name]] for name in ("dev", "test")}
    log(f"jackknifing train for the lattice parser ({lattice_k} best tags a word)")
    lattices["train"] = [lattice_candidates(s, XPOS) for s in jackknife(sentences["train"], folds, ["xpos"], jackknife_options,
                                                                          k=lattice_k)]
    lattice_parser = constituency("lattice-predicted-tags", TrainOptions(**{**vars(options), "lattice": True}),
                                  train_lattices=lattices["train"], dev_lattices=lattices["dev"])
    weights = {}
    for weight in LATTICE_WEIGHTS:
        lattice_parser.lattice_weight = weight
        weights[weight] = dev_f1(lattice_parser, dev_items, lattices["dev"])[0]
    lattice_parser.lattice_weight = max(LATTICE_WEIGHTS, key=lambda weight: (weights[weight], -weight))
    if tagger_model is not None:
        from hetdep.constituency.pipeline import given_tagger

        log(f"tagging test with {tagger_model}")
        predicted["given"] = [s.column(XPOS) for s in given_tagger(tagger_model).tag(sentences["test"])]
        sentences["given"] = sentences["test"]
    tag_scores = {name: tag_accuracy(sentences[name], [s.with_column(XPOS, tags) for s, tags in zip(sentences[name], predicted[name])],
                                     "xpos") for name in predicted}
    # Dependencies: the arc-standard parser on the Penn2Malt conversion of the same trees (gold XPOS).
    dep_options = dependency_options(options, dependency_iterations)
    from hetdep.transition.training import train as train_arc_standard

    arc_standard = cached_model(models / "arc-standard-penn2malt", dep_options, ArcStandardParser.load, log,
                                "training the arc-standard parser on the Penn2Malt conversion",
                                lambda: train_arc_standard(sentences["train"], sentences["dev"], dep_options))
    lines = _report(out, options, plain, dp, tagged, arc_standard, splits, gold, predicted, tag_scores, sentences, table,
                    lattice_parser, lattices, weights, folds, lattice_k, tagger_model, neural_model)
    report = out / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report


def _neural_parses(model_dir: Path, items: Sequence[TaggedTree], sentences: list) -> tuple[BracketScores, float, list]:
    """A neural phrase-structure model's EVALB scores on ``items``, its words per second (in process,
    warmed up) and its dependency trees of ``sentences`` (the same words; empty without a dependency head)."""
    from hetdep.neural.parser import NeuralParser

    parser = NeuralParser.load(model_dir)
    list(parser.parse(sentences[:5]))
    started = time.perf_counter()
    parsed = [trees if isinstance(trees, tuple) else (trees,) for trees in parser.parse(sentences)]
    speed = sum(len(item.forms) for item in items) / (time.perf_counter() - started)
    result = score([Tree(item.root, item.tree.path, item.tree.line) for item in items],
                   [Tree(trees[0].root, item.tree.path, item.tree.line) for item, trees in zip(items, parsed)])
    return result, speed, [trees[1] for trees in parsed if len(trees) > 1]


def _history(model_dir: Path) -> list[dict]:
    return json.loads((model_dir / "config.json").read_text(encoding="utf-8")).get("history") or []


def _report(out, options, plain, dp, tagged, arc_standard, splits, gold, predicted, tag_scores, sentences, table,
            lattice_parser, lattices, weights, folds, lattice_k, tagger_model, neural_model) -> list[str]:
    models = out / "models"
    test_items = splits["test"]
    test_words = sum(len(item.forms) for item in test_items)
    import os
    import platform

    lines = ["# Shift-reduce constituency parsing on the WSJ sample (mi-huang2015)", "",
             f"`hetdep experiment constituency --out OUT --beam {options.beam} --iterations {options.iterations} --patience "
             f"{options.patience}{f' --tagger {tagger_model}' if tagger_model is not None else ''}` on {platform.machine()} Linux, {os.cpu_count()} cores, Python {platform.python_version()}.", "",
             f"Training {len(splits['train'])} trees (wsj_0001-0159), dev {len(splits['dev'])} (wsj_0160-0179), test "
             f"{len(test_items)} (wsj_0180-0199, {test_words:,} words). Beam {options.beam}, {options.update} update, at most "
             f"{options.iterations} iterations (patience {options.patience}), the iteration kept by dev F1; training trees "
             f"binarized by the {plain.head_table} head table, the {plain.template_set} feature templates "
             f"({len(plain.templates)}). Scores as EVALB with COLLINS.prm (`hetdep eval --const`).", "",
             "## Dev F1 by iteration (Figure 4)", "", "| iteration | plain beam | DP beam |", "|---|---|---|"]
    plain_history, dp_history = _history(models / "plain-gold-tags"), _history(models / "dp-gold-tags")
    for i in range(max(len(plain_history), len(dp_history))):
        cells = [f"{h[i]['dev_uas']:.2f}" if i < len(h) else "" for h in (plain_history, dp_history)]
        lines.append(f"| {i + 1} | {cells[0]} | {cells[1]} |")
    best = [max(h, key=lambda r: r["dev_uas"]) for h in (plain_history, dp_history)]
    lines += ["", f"Best dev F1: plain {best[0]['dev_uas']:.2f} at iteration {best[0]['iteration']}, DP "
              f"{best[1]['dev_uas']:.2f} at iteration {best[1]['iteration']} (the paper, full WSJ: 89.5 at 15 against 89.8 at 11).",
              "", _plot(out, plain_history, dp_history), "",
              "## Test", "", "| system | LP | LR | F1 | complete match | tagging accuracy | words/s (in process) |",
              "|---|---|---|---|---|---|---|"]
    given = [(f"plain beam, predicted tags of {tagger_model} (1-best, {tag_scores['given']:.2f}% right)", tagged,
              predicted["given"])] if tagger_model is not None else []
    for name, parser, tags in (("plain beam, gold tags", plain, gold["test"]), ("DP beam, gold tags", dp, gold["test"]),
                               ("plain beam, predicted tags (1-best)", tagged, predicted["test"]), *given,
                               (f"plain beam, tag lattice ({lattice_k} best tags)", lattice_parser,
                                lattices["test"])):
        _scores(parser, test_items[:5], tags[:5])  # warm: the compiled code is loaded
        result, speed = _scores(parser, test_items, tags)
        lines.append(_row(name, result, speed))
    neural = _neural_parses(neural_model, test_items, sentences["test"]) if neural_model is not None else None
    if neural is not None:
        lines.append(_row(f"neural span parser {neural_model.name}, its own tags", *neural[:2]))
    chosen = lattice_parser.lattice_weight
    lines += ["", f"Predicted tags: an XPOS tagger trained on train (test accuracy {tag_scores['test']:.2f}%, dev "
              f"{tag_scores['dev']:.2f}%); the 1-best parser trained on {folds}-fold jackknifed tags "
              f"({tag_scores['train']:.2f}% as in the gold). The lattice parser learned from the jackknifed taggers' k best "
              "tags (choosing the gold tag where offered) and parses over the tagger's k best; the weight of the tagger's "
              "log-probabilities was chosen on dev: " + ", ".join(f"{w:g}: F1 {f:.2f}" for w, f in weights.items())
              + f" (kept: {chosen:g}).", "",
              "## Dependencies: constituency parse then Penn2Malt, against the arc-standard parser", "",
              "Both read gold XPOS tags; the gold dependency trees are the Penn2Malt conversion of the gold test trees "
              "(labels from `convert --from ptb`); punctuation excluded. UAS is the comparison: Penn2Malt's labels come partly "
              "from function tags (SBJ, PRD) that the constituency parser does not predict, so its LAS is lower by design.", "",
              "| system | UAS | LAS | CM |", "|---|---|---|---|"]
    gold_deps = sentences["test"]
    converted = [tree_sentence(plain.parse_tokens(item.forms, item.gold_tags), table, s.comments, s.path, s.line)
                 for item, s in zip(test_items, gold_deps)]
    neural_deps = [(f"neural span parser {neural_model.name}'s own dependency head (its own tags)", neural[2])] if neural and neural[2] else []
    for name, trees in (("constituency (plain beam, gold tags), then Penn2Malt", converted),
                        ("arc-standard, beam 64, trained on the Penn2Malt conversion", list(arc_standard.parse(gold_deps))),
                        *neural_deps):
        result = evaluate(gold_deps, trees)
        lines.append(f"| {name} | {result.uas:.2f} | {result.las:.2f} | {result.cm:.2f} |")
    lines += ["", "## Models", "", "| model | iterations | best iteration | training wall time (s) |", "|---|---|---|---|"]
    for directory in sorted(models.iterdir()):
        history = _history(directory)
        best = json.loads((directory / "config.json").read_text(encoding="utf-8")).get("best_iteration")
        lines.append(f"| {directory.name} | {len(history)} | {best} | {sum(r['seconds'] for r in history):.0f} |")
    return lines


def _plot(out: Path, plain: list[dict], dp: list[dict]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5, 3.5))
    for history, name in ((plain, "plain beam"), (dp, "DP beam")):
        axes.plot([r["iteration"] for r in history], [r["dev_uas"] for r in history], marker="o", label=name)
    axes.set_xlabel("iteration")
    axes.set_ylabel("dev F1")
    axes.legend()
    figure.tight_layout()
    figure.savefig(out / "dev-f1.png", dpi=120)
    plt.close(figure)
    return "![dev F1 by iteration](dev-f1.png)"
