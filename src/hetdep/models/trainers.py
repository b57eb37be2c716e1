"""``hetdep train``'s one door: a :class:`TrainingRun` holds the files and every option as given;
:func:`prepare` refuses what its kind does not take, before anything is written, and gives the
kind's trainer (TRAINERS) ready to start, so the command line maps options and asks no kind's
name. A new kind is its trainer, in its room of :mod:`hetdep.models.kinds`, and one line in TRAINERS.
A trainer checks the run and returns the training to start: what it refuses leaves the model
folder as it was (an interrupted training's kept state too)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from hetdep.errors import HetdepError
from hetdep.learn.perceptron import IterationReport, TrainResult
from hetdep.models import CONSTITUENCY, NEURAL_CONSTITUENCY, PARSER_KINDS
from hetdep.models.kinds.constituency import train_phrases
from hetdep.models.kinds.neural import train_neural_phrases
from hetdep.models.training import (
    TRAINING_KINDS,
    ModelChoice,
    TrainingKind,
    TrainingRun,
    check,
    check_schemes,
    check_training_options,
)
from hetdep.progress import figure


def prepare(run: TrainingRun) -> tuple[TrainingKind, Callable[[], TrainResult]]:
    """The kind's training record, and the training that writes the model of ``run`` to its folder."""
    if run.tagger_dir and run.gold_tags:
        raise HetdepError("--tagger and --gold-tags exclude each other: bundle a tagger, or train on gold tags without one")
    trained = check_training_options(run.parser_kind, given_options(run))
    if trained.gradient:
        from hetdep.neural import torch_module

        torch_module()  # without PyTorch, said now rather than after the tokenizer and taggers have trained
    if run.fine_tune and not run.encoder:
        raise HetdepError("--fine-tune trains the pretrained transformer of --encoder: give --encoder")
    if run.encoder:  # a damaged or unfit encoder folder refused before any work
        from hetdep.neural.transformer import TransformerEncoder

        TransformerEncoder.load(run.encoder)
    run = replace(run, iterations=run.iterations or trained.iterations, patience=run.patience or trained.patience)
    return trained, TRAINERS[run.parser_kind](run)


def given_options(run: TrainingRun) -> dict[str, object]:
    """Each option a kind may refuse, by its command-line name, and whether it was given."""
    return {"--treebank": run.treebanks, "--embeddings": run.embeddings, "--decoder": run.decoder,
            "--final-epochs": run.final_epochs is not None, "--feats-head": run.feats_head, "--encoder": run.encoder,
            "--fine-tune": run.fine_tune, "--enhanced": run.enhanced,
            "--rules": run.rules,
            "--dependency": run.dependency_rules, "--templates": run.template_set, "--tagger": run.tagger_dir,
            "--folds": run.folds != 10, "--gold-tags": run.gold_tags, "--lattice": run.lattice, "--dp": run.dp,
            "--t": run.t != "inf", "--guide": run.guide != "rich", "--no-guided": run.no_guided,
            "--tag-column": run.tag_column != "upos", "--projective-encoding": run.projective_encoding != "head",
            "--train-b": run.train_b_path, "--dev-b": run.dev_b_path, "--helper": run.helper_dir,
            "--concatenate": run.concatenate, "--feature-copies": run.feature_copies, "--schemes": run.schemes,
            "--workers": run.workers, "--scheduler": run.scheduler, "--shards": run.shards,
            "--tokenizer-treebank": run.tokenizer_treebanks}


def check_tokenizer_treebanks(run: TrainingRun) -> None:
    """``--tokenizer-treebank NAME TRAIN DEV``: each for one treebank of ``--treebank``, once, and a tokenizer to train."""
    if not run.tokenizer_treebanks:
        return
    if not run.treebanks:
        raise HetdepError("--tokenizer-treebank gives a treebank of --treebank other text for the tokenizer: give --treebank")
    if run.no_tokenizer:
        raise HetdepError("--tokenizer-treebank is for the tokenizer that --no-tokenizer leaves out")
    names, seen = {given[0] for given in run.treebanks}, set()
    for name, _, _ in run.tokenizer_treebanks:
        if name not in names:
            raise HetdepError(f"--tokenizer-treebank {name}: no --treebank of that name ({', '.join(sorted(names))})")
        if name in seen:
            raise HetdepError(f"--tokenizer-treebank {name} is given twice")
        seen.add(name)


def train_dependencies(run: TrainingRun) -> Callable[[], TrainResult]:
    """A dependency model of any kind from CoNLL-U, with the tokenizer and taggers it bundles
    (:func:`hetdep.models.pipeline.train_pipeline`)."""
    from hetdep.cluster.connect import ClusterChoice
    from hetdep.joint.schedule import parse_t
    from hetdep.learn.perceptron import TrainOptions
    from hetdep.models.pipeline import PipelineChoice, TrainingFiles, train_pipeline, treebank_files
    from hetdep.models.vectors import DEFAULT_VECTORS

    given = {"beam": run.beam, "update": run.update}
    options = TrainOptions(iterations=run.iterations, patience=run.patience, seed=run.seed, tag_column=run.tag_column,
                           projective_encoding=run.projective_encoding, dp=run.dp, lattice=run.lattice,
                           lattice_weight=run.lattice_weight, **{name: value for name, value in given.items() if value is not None})
    choice = ModelChoice(parser=run.parser_kind, second_treebank=run.train_b_path is not None, concatenate=run.concatenate,
                         feature_copies=run.feature_copies, names=tuple(name.strip() for name in run.names.split(",")),
                         helper=Path(run.helper_dir) if run.helper_dir else None, t=parse_t(run.t),
                         guide="none" if run.no_guided else run.guide, beam_given=run.beam is not None,
                         update_given=run.update is not None)
    names_given = tuple(name.strip() for name in run.schemes.split(",")) if run.schemes else None
    check_schemes(choice, names_given)
    check(choice, options)
    cluster = ClusterChoice(run.workers or 0, run.scheduler)
    cluster.check()
    if run.shards and not cluster.wanted:
        raise HetdepError("--shards is for training on a cluster: give --workers or --scheduler")
    if run.tokenizer_texts and run.no_tokenizer:
        raise HetdepError("--tokenizer-text is for the tokenizer that --no-tokenizer leaves out")
    check_tokenizer_treebanks(run)
    pipeline = PipelineChoice(tokenizer=not run.no_tokenizer, tokenizer_texts=run.tokenizer_texts,
                              tokenizer_treebanks=tuple(tuple(given) for given in run.tokenizer_treebanks),
                              tagger=run.tagger_dir or ("gold" if run.gold_tags or run.lattice else "train"),
                              folds=run.folds, threads=run.threads or 0, cluster=cluster if cluster.wanted else None,
                              shards=run.shards or 0, embeddings=run.embeddings or (DEFAULT_VECTORS if TRAINING_KINDS[run.parser_kind].gradient else None),
                              decoder=run.decoder, final_epochs=run.final_epochs, sharing=run.sharing, encoder=run.encoder,
                              temperature=run.temperature, feats_head=run.feats_head, enhanced=run.enhanced,
                              fine_tune=run.fine_tune)
    files = (TrainingFiles(None, None, treebanks=treebank_files(run.treebanks)) if run.treebanks
             else TrainingFiles(run.train_path, run.dev_path, run.train_b_path, run.dev_b_path))
    return lambda: train_pipeline(run.model_dir, choice, pipeline, options, files, names_given)


TRAINERS: dict[str, Callable[[TrainingRun], Callable[[], TrainResult]]] = {kind: train_dependencies for kind in PARSER_KINDS} | {
    CONSTITUENCY: train_phrases, NEURAL_CONSTITUENCY: train_neural_phrases}


def report_line(trained: TrainingKind, report: IterationReport) -> str:
    """One iteration's (epoch's) line: its time, a perceptron's updates and features, the dev scores."""
    unit = "epoch" if trained.gradient else "iteration"
    work = "" if trained.gradient else f", {report.updates} updates, {report.features} features"  # an epoch's loss is in detail
    attachment = report.dev_uas is not None and not trained.bracketed  # phrase structure's F1 is in detail
    dev = f", dev UAS {report.dev_uas:.2f} LAS {report.dev_las:.2f}" if attachment else ""
    detail = "  ".join(f"{key} {figure(value)}" for key, value in report.dev_detail.items())
    return f"{unit} {report.iteration:2d}: {report.seconds:7.1f} s{work}{dev}" + (f" ({detail})" if detail else "")
