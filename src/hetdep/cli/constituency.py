"""What ``train`` and ``eval`` do for phrase structure: ``--parser constituency`` and ``eval --const``
(a constituency model parses through the one door, :mod:`hetdep.models.opening`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from hetdep.errors import HetdepError


def train_constituency(model_dir: str, train_path: str, dev_path: str, options, rules: str, gold_tags: bool, folds: int,
                       threads: int, templates: str, tagger_dir: str | None = None) -> None:
    from hetdep.constituency.pipeline import train_constituency_model

    _refuse_conllu(train_path, dev_path, "constituency")
    result = train_constituency_model(model_dir, train_path, dev_path, options, rules, gold_tags, folds, threads,
                                      templates=templates, tagger_model=tagger_dir)
    for report in result.history:
        detail = report.dev_detail
        dev = f", dev LP {detail['LP']:.2f} LR {detail['LR']:.2f} F1 {detail['F1']:.2f}" if detail else ""
        click.echo(f"iteration {report.iteration:2d}: {report.seconds:7.1f} s, {report.updates} updates, "
                   f"{report.features} features{dev}", err=True)
    click.echo(f"best iteration {result.best_iteration}; model written to {model_dir}"
               + ("" if gold_tags else " with its tagger"), err=True)
    if result.interrupted:
        click.echo(f"hetdep: interrupted during iteration {len(result.history) + 1}: the model of iteration "
                   f"{result.best_iteration}, the best finished one, was written; go on with: hetdep train --resume "
                   f"{model_dir}", err=True)
        sys.exit(130)


def train_neural_constituency(model_dir: str, train_path: str, dev_path: str, iterations: int, patience: int, seed: int,
                              threads: int | None, final_epochs: int | None, embeddings: str | None,
                              dependency: str | None) -> None:
    from hetdep.constituency.neural_pipeline import train_neural_constituency as train
    from hetdep.models.vectors import DEFAULT_VECTORS
    from hetdep.neural.training import NeuralOptions

    _refuse_conllu(train_path, dev_path, "constituency-neural")
    default = NeuralOptions()
    options = NeuralOptions(epochs=iterations, patience=patience, seed=seed, threads=threads or default.threads,
                            final_epochs=default.final_epochs if final_epochs is None else final_epochs)
    result = train(model_dir, train_path, dev_path, options, dependency, embeddings or DEFAULT_VECTORS)
    for report in result.history:
        detail = "  ".join(f"{key} {value:.2f}" for key, value in report.dev_detail.items())
        click.echo(f"epoch {report.iteration:2d}: {report.seconds:7.1f} s ({detail})", err=True)
    click.echo(f"best epoch {result.best_iteration}; model written to {model_dir}", err=True)
    if result.interrupted:
        click.echo(f"hetdep: interrupted during epoch {len(result.history) + 1}: the model of epoch "
                   f"{result.best_iteration}, the best finished one, was written; go on with: hetdep train --resume "
                   f"{model_dir}", err=True)
        sys.exit(130)


def _refuse_conllu(train_path: str, dev_path: str, kind: str) -> None:
    for path in (train_path, dev_path):
        if Path(path).is_file() and Path(path).suffix in (".conllu", ".conll", ".conllx"):
            raise HetdepError(f"{path}: --parser {kind} trains from bracketed trees (.mrg: a file, a folder of "
                              "them or a .zip), not CoNLL-U")


def eval_constituency(gold: str, pred: str, as_json: bool, max_length: int | None) -> None:
    from hetdep.evaluation.brackets import score
    from hetdep.treebank.ptb import read_trees

    result = score(read_trees(gold), read_trees(pred), max_length)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    limit = f", sentences of at most {max_length} words" if max_length else ""
    click.echo(f"sentences {result.sentences}  brackets gold {result.gold_brackets} test {result.test_brackets} "
               f"matched {result.matched}  (EVALB COLLINS.prm{limit})")
    click.echo(f"LP {result.precision:6.2f}  LR {result.recall:6.2f}  F1 {result.f1:6.2f}  "
               f"complete match {result.complete_match:6.2f}  tagging accuracy {result.tagging_accuracy:6.2f}")
