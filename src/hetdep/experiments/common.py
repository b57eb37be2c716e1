"""What the experiments share: models trained once and reused, score rows, significance tables."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

from hetdep.evaluation.attachment import Evaluation, evaluate
from hetdep.evaluation.significance import compare
from hetdep.joint.parser import JointParser
from hetdep.joint.schedule import t_label, t_text
from hetdep.joint.training import train_joint
from hetdep.learn.model_files import ModelFileError
from hetdep.learn.perceptron import TrainOptions
from hetdep.transition.parser import ArcStandardParser
from hetdep.transition.training import train
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.pairs import Pair


@dataclass
class Scores:
    """One system's evaluations on a split, for scheme a and scheme b."""

    a: Evaluation
    b: Evaluation


def scores_row(name: str, scores: Scores) -> str:
    a, b = scores.a, scores.b
    return (f"| {name} | {a.uas:.2f} | {a.las:.2f} | {a.cm:.2f} | {b.uas:.2f} | {b.las:.2f} | {b.cm:.2f} "
            f"| {(a.uas + b.uas) / 2:.2f} |")


def cached_model(directory: Path, options: TrainOptions, load: Callable[[Path], object], log: Callable[[str], None],
                 message: str, train_model: Callable[[], object]) -> object:
    """The model in ``directory`` if it was trained with these options (and this hetdep can read
    it), else trained now and saved there (with its history and options); experiments rerun with
    the same options reuse it."""
    config = directory / "config.json"
    stored = json.loads(config.read_text(encoding="utf-8")).get("training_options") if config.exists() else None
    # Options added to TrainOptions after a model was trained count as their defaults.
    if stored is not None and {**vars(TrainOptions()), **stored} == vars(options):
        try:
            return load(directory)
        except ModelFileError as error:
            log(f"retraining a cached model this hetdep cannot use: {error}")
    log(message)
    result = train_model().finished()
    result.parser.save(directory, history=[vars(r) for r in result.history], best_iteration=result.best_iteration,
                       training_options=vars(options))
    return load(directory)


def significance_table(schemes, system: str = "joint", against: str = "baseline") -> tuple[list[str], dict]:
    """Table rows and a JSON-able record of system-vs-reference tests, for (scheme, system, reference) evaluations."""
    lines = [f"Significance, {system} against {against} (per-sentence correct attachments; two-sided p-values; "
             "bootstrap one-sided):", "",
             f"| scheme | metric | {system} | {against} | sentences better/same/worse | sign test p | paired t-test p | approx. randomization p | bootstrap p |",
             "|---|---|---|---|---|---|---|---|---|"]
    significance = {}
    for scheme, j, b in schemes:
        for labeled in (False, True):
            r = compare(j, b, labeled=labeled)
            significance[f"{scheme} {r['metric']}"] = r
            sign = r["sign_test"]
            lines.append(f"| {scheme} | {r['metric']} | {r['a']:.2f} | {r['b']:.2f} | {sign['better']}/{sign['ties']}/{sign['worse']} "
                         f"| {r['sign_test']['p']:.4f} | {r['paired_t_test']['p']:.4f} | {r['approximate_randomization']['p']:.4f} "
                         f"| {r['paired_bootstrap']['p']:.4f} |")
    return lines + [""], significance


def joint_model_name(t: int, guide: str) -> str:
    """The folder of a joint model under an experiment's ``models/`` (e.g. ``joint-t+inf-rich``)."""
    return f"joint-t{t_text(t)}" + {"paper": "", "rich": "-rich", "none": "-noguide"}[guide]


def scores_header(scheme_a: str, scheme_b: str) -> str:
    """The header of a table of :func:`scores_row` rows."""
    return (f"| system | {scheme_a} UAS | {scheme_a} LAS | {scheme_a} CM | {scheme_b} UAS | {scheme_b} LAS "
            f"| {scheme_b} CM | mean UAS |\n|---|---|---|---|---|---|---|---|")


def score_trees(gold: Sequence[Pair], trees_a: Iterable[Sentence], trees_b: Iterable[Sentence],
                other_gold: bool = False) -> Scores:
    """Both schemes' evaluations of parsed trees against gold pairs (``other_gold``: with the
    analysis of arcs shared with the other scheme's gold tree, zhang2014 Table 5)."""
    gold_a, gold_b = [p.a for p in gold], [p.b for p in gold]
    return Scores(evaluate(gold_a, trees_a, other_gold=gold_b if other_gold else None),
                  evaluate(gold_b, trees_b, other_gold=gold_a if other_gold else None))


@dataclass
class PairModels:
    """An experiment's models of one treebank pair, each trained once and kept under ``folder``:
    the baseline of each scheme and the joint models by t and guide, all with ``options``."""

    folder: Path
    schemes: tuple[str, str]
    train: Sequence[Pair]
    dev: Sequence[Pair]
    options: TrainOptions
    log: Callable[[str], None] = print
    setting: str = ""  # said when training, e.g. " on predicted tags"

    def baseline(self, side: int) -> ArcStandardParser:
        scheme = self.schemes[side]
        return cached_model(self.folder / f"baseline-{scheme}", self.options, ArcStandardParser.load, self.log,
                            f"training the baseline of scheme {scheme}{self.setting}",
                            lambda: train([p[side] for p in self.train], [p[side] for p in self.dev], self.options))

    def joint(self, t: int, guide: str) -> JointParser:
        return cached_model(self.folder / joint_model_name(t, guide), self.options, JointParser.load, self.log,
                            f"training the joint model, t = {t_label(t)}, guide: {guide}{self.setting}",
                            lambda: train_joint(self.train, self.dev, self.options, t=t, guide=guide))

    def training_times(self) -> list[str]:
        """A table of every model in ``folder``: iterations, the best one, training wall time."""
        lines = ["| model | iterations | best iteration | training wall time (s) |", "|---|---|---|---|"]
        for directory in sorted(self.folder.iterdir()):
            config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
            history = config.get("history") or []
            lines.append(f"| {directory.name} | {len(history)} | {config.get('best_iteration')} "
                         f"| {sum(r['seconds'] for r in history):.0f} |")
        return lines
