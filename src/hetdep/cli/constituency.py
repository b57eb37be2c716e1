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

    for path in (train_path, dev_path):
        if Path(path).is_file() and Path(path).suffix in (".conllu", ".conll", ".conllx"):
            raise HetdepError(f"{path}: --parser constituency trains from bracketed trees (.mrg: a file, a folder of "
                              "them or a .zip), not CoNLL-U")
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
