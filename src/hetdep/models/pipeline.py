"""One model from raw text to trees: a tokenizer, a tagger and the parser trained on jackknifed tags.

This is what ``hetdep train`` builds by default, the papers' setting: the parser learns from
tags as noisy as the ones its own tagger will give it at parsing time (each training sentence
tagged by a tagger that never saw it), picks its iteration on dev tagged by that tagger, and
the model directory holds all three parts (``tokenizer/``, ``tagger/``, the parser's files), so
``hetdep parse`` can start from raw text.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence

from hetdep.errors import HetdepError
from hetdep.learn.perceptron import TrainOptions, TrainResult
from hetdep.models.training import ModelChoice, train_model, training_record
from hetdep.treebank.conllu import Sentence, read_conllu
from hetdep.treebank.pairs import pairs_of
from hetdep.treebank.tags import TAG_COLUMNS

TAGGER_CHOICES = ("train", "gold")  # or a directory holding a trained tagger


@dataclass(frozen=True)
class PipelineChoice:
    """Which parts to train beside the parser.

    ``tokenizer``: train one when the training file has ``# text`` comments. ``tagger``: "train"
    (a tagger for the parser's tag column, UPOS and also XPOS when the parser reads XPOS, and the
    parser trained on ``folds``-fold jackknifed tags), "gold" (the parser learns from the file's
    tags and the model has no tagger: its input must carry tags), or the directory of a trained
    tagger to bundle (the training file's tags are then used as they are).
    """

    tokenizer: bool = True
    tagger: str = "train"
    folds: int = 10
    fold_iterations: int = 10


@dataclass
class TrainingFiles:
    train: str | Path
    dev: str | Path
    train_b: str | Path | None = None
    dev_b: str | Path | None = None


def _read(path: str | Path | None) -> list[Sentence] | None:
    return list(read_conllu(path, require_heads=True)) if path is not None else None


def _copy_tags(tagged: Sequence[Sentence], into: Sequence[Sentence], columns: Sequence[str]) -> list[Sentence]:
    """Scheme b's sentences with scheme a's predicted tags (the same words, so the same tagging)."""
    out = []
    for source, target in zip(tagged, into, strict=True):
        for column in columns:
            target = target.with_column(TAG_COLUMNS[column], source.column(TAG_COLUMNS[column]))
        out.append(target)
    return out


def train_pipeline(model_dir: str | Path, choice: ModelChoice, pipeline: PipelineChoice, options: TrainOptions,
                   files: TrainingFiles, schemes: tuple[str, ...] | None = None, log: Callable[[str], None] = print,
                   progress: Callable | None = None) -> TrainResult:
    """Train the parts ``pipeline`` asks for and the parser, and write them all to ``model_dir``."""
    from hetdep.tagger.tagger import TaggerOptions, jackknife, load_taggers, tag_accuracy, train_tagger
    from hetdep.tokenizer.tokenizer import Tokenizer, TokenizerOptions, sentence_text

    given_tagger = pipeline.tagger not in TAGGER_CHOICES
    if given_tagger:
        load_taggers(pipeline.tagger)  # refuse a wrong directory before any training
    if (files.train_b is None) != (files.dev_b is None) or choice.second_treebank != (files.train_b is not None):
        raise HetdepError("a second treebank needs both --train-b and --dev-b")
    separate_treebanks = choice.concatenate
    train, dev = _read(files.train), _read(files.dev)
    train_b, dev_b = _read(files.train_b), _read(files.dev_b)
    if choice.joint:  # refuse files that are not the same sentences before training anything
        pairs_of(train, train_b)
        pairs_of(dev, dev_b)
    record: dict = {"tokenizer": None, "tagger": pipeline.tagger if not given_tagger else "given"}
    tokenizer = None
    if pipeline.tokenizer and not separate_treebanks:
        if any(sentence_text(s) for s in train):
            log("tokenizer: training on the sentences' '# text'")
            tokenizer = Tokenizer.train(train, dev, TokenizerOptions(seed=options.seed), log=log)
            record["tokenizer"] = {"best_iteration": tokenizer.record["best_iteration"],
                                   "dev": tokenizer.record["history"][tokenizer.record["best_iteration"] - 1].get("dev")}
        else:
            log(f"tokenizer: none ({files.train} has no '# text' comments); the model parses tokenized input only")
    taggers = []
    if pipeline.tagger == "train" and not separate_treebanks:
        columns = ["upos"] + (["xpos"] if options.tag_column == "xpos" else [])
        if len(train) < pipeline.folds:
            raise HetdepError(f"{files.train}: {len(train)} sentences are too few for {pipeline.folds}-fold jackknifing "
                              "(train with --gold-tags)")
        for column in columns:
            result = train_tagger(train, dev, TaggerOptions(column=column, seed=options.seed), progress=progress)
            taggers.append(result)
            log(f"tagger ({column}): dev accuracy {tag_accuracy(dev, result.parser.tag(dev), column):.2f}%")
        log(f"jackknifing the training tags in {pipeline.folds} folds")
        gold_train = train
        train = jackknife(train, pipeline.folds, columns, TaggerOptions(iterations=pipeline.fold_iterations, seed=options.seed),
                          progress=log)
        for tagger in taggers:
            dev = list(tagger.parser.tag(dev))
        record.update(columns=columns, jackknife_folds=pipeline.folds,
                      jackknifed_tags_kept={c: round(tag_accuracy(gold_train, train, c), 2) for c in columns})
        if train_b is not None:
            train_b, dev_b = _copy_tags(train, train_b, columns), _copy_tags(dev, dev_b, columns)
    result = train_model(choice, options, train, dev, train_b, dev_b, progress=progress)
    facts = training_record(choice, files.train, files.dev, files.train_b, files.dev_b, schemes)
    model_dir = Path(model_dir)
    result.parser.save(model_dir, history=[vars(r) for r in result.history], best_iteration=result.best_iteration,
                       training_options=vars(options), pipeline={**record, "choice": asdict(pipeline)}, **facts)
    if tokenizer is not None:
        tokenizer.save(model_dir / "tokenizer")
    for tagger in taggers:
        tagger.parser.save(model_dir / "tagger" / tagger.parser.column, history=[vars(r) for r in tagger.history],
                           best_iteration=tagger.best_iteration)
    if given_tagger:
        import shutil

        shutil.copytree(pipeline.tagger, model_dir / "tagger", dirs_exist_ok=True)
    return result
