"""A constituency model that parses untagged words: the parser and its own XPOS tagger.

As for dependency models (:mod:`hetdep.models.pipeline`), the default trains a tagger on the
training trees' tags, bundles it (``tagger/xpos``), and trains the parser on jackknifed tags
(each training sentence tagged by a tagger that never saw it), tuned on dev tagged by that
tagger; ``gold_tags`` trains on the trees' own tags and bundles no tagger (input must then be tagged).
A lattice parser (``options.lattice``) learns from each word's ``lattice_k`` best jackknifed tags
and is tuned on dev's k best from the bundled tagger, as it will parse.

``tagger_model`` bundles a trained model instead of the perceptron tagger: a neural model
(``tagger/network``: its network's XPOS with its helpers, as it tags for its own parser) or an
XPOS tagger (``tagger/xpos``). The parser still learns from jackknifed perceptron tags (a
network is too slow to train ten times) and is tuned on dev tagged by the bundled model. On the
WSJ sample a neural model trained on the Penn2Malt conversion of the training trees tags 97.20%
of the test words right against the perceptron's 96.48%, and the parser's test F1 is 85.71
against 84.41 (gold tags: 87.51).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, TextIO

from hetdep.constituency.features import DEFAULT_TEMPLATES
from hetdep.constituency.training import read_treebank, train
from hetdep.convert.headrules import convert_trees, load_table
from hetdep.errors import HetdepError
from hetdep.learn import checkpoint
from hetdep.learn.perceptron import TrainOptions, TrainResult
from hetdep.progress import RunDisplay, Stage
from hetdep.treebank.conllu import XPOS, Sentence
from hetdep.treebank.tags import lattice_candidates

NETWORK = "network"  # tagger/network: a bundled neural model that tags


class GivenTagger(NamedTuple):
    """A trained model bundled as the parser's tagger: where in ``tagger/`` it goes, the folder
    copied there, and its tagging (the model loaded once)."""

    place: str
    source: Path
    tag: Callable[[Iterable[Sentence]], Iterator[Sentence]]


def given_tagger(directory: Path) -> GivenTagger:
    """A neural model whose network tags XPOS, or an XPOS tagger (the folder itself or its ``xpos/``)."""
    from hetdep.learn.model_files import read_config
    from hetdep.models import NEURAL
    from hetdep.models.kinds.neural import NeuralModels
    from hetdep.models.parsing import ParseChoice
    from hetdep.tagger.tagger import load_taggers

    config = read_config(directory) if (directory / "config.json").is_file() else {}
    if config.get("kind") == NEURAL:
        parser = NeuralModels.open(directory, config, ParseChoice(), True).parser  # its helpers mixed in
        if "xpos" not in parser.vocabularies.tag_columns:
            raise HetdepError(f"{directory}: this neural model predicts no XPOS tags (its training file had none)")
        return GivenTagger(NETWORK, directory, parser.tag)
    taggers = {tagger.column: tagger for tagger in load_taggers(directory)}
    if "xpos" not in taggers:
        raise HetdepError(f"{directory}: no XPOS tagger here ({', '.join(taggers).upper()} only); a constituency parser "
                          "reads XPOS tags")
    source = directory if (directory / "config.json").is_file() else directory / "xpos"
    return GivenTagger("xpos", source, taggers["xpos"].tag)


def train_constituency_model(model_dir: str | Path, train_path: str | Path, dev_path: str | Path, options: TrainOptions,
                             head_table: str = "collins", gold_tags: bool = False, folds: int = 10, threads: int = 1,
                             lattice_k: int = 3, stream: TextIO | None = None, interactive: bool | None = None,
                             templates: str = DEFAULT_TEMPLATES, tagger_model: str | Path | None = None) -> TrainResult:
    """Train (the tagger, jackknifing and) the parser on bracketed treebank files, and write the model."""
    from hetdep.tagger.training import TaggerOptions, jackknife, tag_accuracy, train_tagger

    table = load_table(head_table)  # refuse an unknown table before reading anything
    train_trees, dev_trees = read_treebank(train_path), read_treebank(dev_path)
    if gold_tags and options.lattice:
        raise HetdepError("a lattice parser learns from a tagger's candidates: it needs its tagger (drop --gold-tags)")
    if tagger_model is not None and (gold_tags or options.lattice):
        raise HetdepError(f"--tagger bundles a tagger for one tag a word: not with {'--gold-tags' if gold_tags else '--lattice'}")
    given = given_tagger(Path(tagger_model)) if tagger_model is not None else None
    if not gold_tags and len(train_trees) < folds:
        raise HetdepError(f"{train_path}: {len(train_trees)} trees are too few for {folds}-fold jackknifing "
                          "(train with --gold-tags)")
    stages = [] if gold_tags or given else [Stage("tagger (xpos)", 2 * TaggerOptions().iterations * len(train_trees),
                                                  "sentence passes", stops_early=True)]
    if not gold_tags:
        stages.append(Stage("jackknifing", folds, "folds", fine=False))
    stages.append(Stage("parser", options.iterations * len(train_trees), "sentence passes", stops_early=True))
    display = RunDisplay(stages, stream, interactive)
    train_tags = dev_tags = train_lattices = dev_lattices = None
    tagger = None
    if not gold_tags:
        train_sentences = list(convert_trees([item.tree for item in train_trees], table))
        dev_sentences = list(convert_trees([item.tree for item in dev_trees], table))
        if given:
            tagged_dev = list(given.tag(dev_sentences))
        else:
            display.start("tagger (xpos)")
            tagger = train_tagger(train_sentences, dev_sentences, TaggerOptions(column="xpos", seed=options.seed),
                                  progress=display.perceptron_progress("tagger (xpos)", score="accuracy", log_iterations=False))
            tagged_dev = list(tagger.parser.tag(dev_sentences, k=lattice_k if options.lattice else 0))
            display.finish("tagger (xpos)", f"dev accuracy {tag_accuracy(dev_sentences, tagged_dev, 'xpos'):.2f}%")
        display.start("jackknifing")
        jackknifed = jackknife(train_sentences, folds, ["xpos"], TaggerOptions(iterations=10, seed=options.seed),
                               progress=lambda _: display.advance("jackknifing"), threads=threads,
                               k=lattice_k if options.lattice else 0)
        if options.lattice:
            train_lattices = [lattice_candidates(sentence, XPOS) for sentence in jackknifed]
            dev_lattices = [lattice_candidates(sentence, XPOS) for sentence in tagged_dev]
            display.finish("jackknifing", f"{lattice_k} candidate tags a word")
        else:
            display.finish("jackknifing", f"{tag_accuracy(train_sentences, jackknifed, 'xpos'):.2f}% of the training tags as in "
                           "the gold")
        train_tags = [sentence.column(XPOS) for sentence in jackknifed]
        dev_tags = [sentence.column(XPOS) for sentence in tagged_dev]
    display.start("parser")
    with checkpoint.kept_in(Path(model_dir) / checkpoint.STATE / "parser"):
        result = train(train_trees, dev_trees, options, head_table, None if options.lattice else train_tags,
                       None if options.lattice else dev_tags, progress=display.perceptron_progress("parser", score="F1"),
                       train_lattices=train_lattices, dev_lattices=dev_lattices, templates=templates)
    display.finish("parser", f"iteration {result.best_iteration} kept"
                   + (", the best finished one, written for now" if result.interrupted else ""), interrupted=result.interrupted)
    model_dir = Path(model_dir)
    tagger_record = "gold" if gold_tags else str(Path(tagger_model).resolve()) if given else "train"
    result.parser.save(model_dir, history=[vars(r) for r in result.history], best_iteration=result.best_iteration,
                       training_options=vars(options), tagger=tagger_record, lattice_k=lattice_k,
                       trained_on={"train": str(Path(train_path).resolve()), "dev": str(Path(dev_path).resolve())})
    if (model_dir / "tagger").is_dir():  # left by an earlier training in this directory
        shutil.rmtree(model_dir / "tagger")
    if tagger is not None:
        tagger.parser.save(model_dir / "tagger" / "xpos", history=[vars(r) for r in tagger.history],
                           best_iteration=tagger.best_iteration)
    if given:
        shutil.copytree(given.source, model_dir / "tagger" / given.place)
    if not result.interrupted:  # an interrupted run keeps its state for --resume (the tagger is trained again, the same)
        shutil.rmtree(model_dir / checkpoint.STATE, ignore_errors=True)
    return result
