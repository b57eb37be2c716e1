"""What the experiments share: models trained once and reused, score rows, significance tables."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from hetdep.evaluation.attachment import Evaluation
from hetdep.evaluation.significance import compare
from hetdep.joint.schedule import t_text
from hetdep.learn.model_files import ModelFileError
from hetdep.learn.perceptron import TrainOptions


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
    result = train_model()
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
