"""What ``train``, ``parse`` and ``eval`` do for phrase structure: ``--parser constituency``, a
constituency model's parse (brackets, or dependencies by head rules), and ``eval --const``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Iterable, Iterator

import click

from hetdep.errors import HetdepError, InputError
from hetdep.treebank.conllu import XPOS, Sentence
from hetdep.treebank.outputs import output_files


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


def require_xpos(sentences: Iterable[Sentence], model_dir: str) -> Iterator[Sentence]:
    """The sentences, refusing a word without an XPOS tag (a model without a tagger reads them)."""
    for sentence in sentences:
        for k, tag in enumerate(sentence.column(XPOS)):
            if tag == "_":
                raise InputError(sentence.path, sentence.line,
                                 f"word {k + 1} ({sentence.forms[k]!r}) of the sentence starting here has no XPOS tag, "
                                 f"and {model_dir} has no tagger to give it one: tag the input first, or train the model "
                                 "with its tagger (the default, without --gold-tags)")
        yield sentence


def parse_constituency(model_dir: str, sentences: Iterable[Sentence], output_path: str, to_dependency: str | None,
                       beam: int | None, threads: int, lattice_k: int = 3, lattice_weight: float | None = None) -> tuple[int, object]:
    """Parse with a constituency model; write brackets (one tree a line) or CoNLL-U dependencies.
    Returns the sentence count and the parser's statistics."""
    from tqdm import tqdm

    from hetdep.constituency.parser import ConstituencyParser, bracketed
    from hetdep.constituency.pipeline import bundled_tagging
    from hetdep.convert.headrules import load_table, tree_sentence
    from hetdep.threads import ordered_map

    parser = ConstituencyParser.load(model_dir)
    if lattice_weight is not None:
        if not parser.lattice:
            raise HetdepError(f"--lattice-weight is for a model trained with --lattice; {model_dir} was not")
        parser.lattice_weight = lattice_weight
    table = load_table(to_dependency) if to_dependency else None
    tagger_dir = Path(model_dir) / "tagger"
    sentences = tqdm(sentences, unit="sent", mininterval=1.0, disable=None)
    if tagger_dir.is_dir():
        sentences = bundled_tagging(tagger_dir, k=lattice_k if parser.lattice else 0)(sentences)
    elif not parser.lattice:
        sentences = require_xpos(sentences, model_dir)

    def one(sentence: Sentence):
        return sentence, parser.parse_sentence(sentence, beam)

    count = 0
    with output_files(output_path) as (out,):
        for sentence, root in ordered_map(one, sentences, threads):
            if table is None:
                out.write(bracketed(root) + "\n")
            else:
                out.write(tree_sentence(root, table, sentence.comments, sentence.path, sentence.line).to_text())
            count += 1
    return count, parser.stats


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
