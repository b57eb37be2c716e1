"""The neural phrase-structure model (``hetdep train --parser constituency-neural``): the network of
:mod:`hetdep.neural` with a span head, trained on bracketed trees, tagging its own words (an XPOS
head: no tagger to train, no gold tags needed to parse). With ``dependency`` head rules the same
encoder also learns the dependency trees those rules derive from the training trees, and the model
gives both trees of each sentence, phrase structure first (``--output``) and dependencies second
(``--output-b``). Dependency treebanks of other sentences (``--treebank``) may train the encoder
beside the bracketed trees, each with its own scheme heads and treebank embedding; the model
parses as the bracketed treebank, named ``bracketed`` among them.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from hetdep.constituency.training import TaggedTree, read_treebank
from hetdep.convert.headrules import load_table, tree_sentence
from hetdep.learn import checkpoint
from hetdep.learn.model_files import file_sha256
from hetdep.learn.perceptron import TrainResult
from hetdep.models.language import training_language
from hetdep.models.pipeline import TreebankFiles, read_treebanks
from hetdep.models.training import treebanks_record
from hetdep.models.vectors import DEFAULT_VECTORS, NO_VECTORS, default_vectors, read_vectors
from hetdep.progress import RunDisplay, Stage
from hetdep.treebank.conllu import Sentence

PHRASE_STRUCTURE = "phrase-structure"  # the name of its first output, as ``info`` shows it
BRACKETED = "bracketed"  # the bracketed trees' name among several treebanks


def treebank_of(train: list[TaggedTree], dev: list[TaggedTree], dependency: str | None, name: str = ""):
    """The training and dev trees as a :class:`hetdep.neural.treebanks.Treebank` (unnamed, but
    among several): the sentences (words and tags, and their dependency trees by the head rules
    ``dependency``: scheme ``dependency``) with their phrase-structure trees."""
    from hetdep.neural.treebanks import Treebank

    table = load_table(dependency or "penn2malt")  # without dependency, the sentences' trees are not learned from

    def sentences(items: list[TaggedTree]) -> list[Sentence]:
        return [tree_sentence(item.root, table, [], item.tree.path, item.tree.line) for item in items]

    return Treebank(name, (dependency,) if dependency else (), [sentences(train)], [sentences(dev)],
                    phrases=[item.root for item in train], dev_phrases=[item.root for item in dev])


def train_neural_constituency(model_dir: str | Path, train_path: str | Path, dev_path: str | Path, options,
                              dependency: str | None = None, embeddings: str | None = DEFAULT_VECTORS,
                              stream: TextIO | None = None, interactive: bool | None = None,
                              beside: Sequence[TreebankFiles] = ()) -> TrainResult:
    """Train on bracketed treebank files (a ``.mrg`` file, a folder, a ``.zip``) and write the model;
    ``options``: :class:`hetdep.neural.training.NeuralOptions`; ``embeddings``: pretrained vectors
    as ``hetdep train --embeddings`` takes them (by default the shipped model's of the trees' language);
    ``beside``: dependency treebanks the encoder learns from too (``--treebank``).
    Progress and each epoch's dev score go to ``stream`` (standard error), redrawn on a terminal
    (``interactive``), a line each elsewhere."""
    from hetdep.neural.training import train_treebanks

    if dependency:
        load_table(dependency)  # an unknown table refused before reading anything
    train, dev = read_treebank(train_path), read_treebank(dev_path)
    others = read_treebanks(beside)
    treebank = treebank_of(train, dev, dependency, BRACKETED if others else "")
    language = training_language(treebank.train[0])
    epochs = options.epochs + options.final_epochs  # at most
    passes = len(train) + sum(len(other.train[0]) for other in others)
    display = RunDisplay([Stage("parser", epochs * passes, "sentence passes", stops_early=True)], stream, interactive)
    if embeddings == DEFAULT_VECTORS:
        embeddings = default_vectors(language)
        if embeddings:
            display.log(f"pretrained vectors: the shipped model's, {embeddings} (--embeddings none trains without them)")
    vectors = read_vectors(embeddings) if embeddings and embeddings != NO_VECTORS else None
    state = Path(model_dir) / checkpoint.STATE
    display.start("parser")
    with checkpoint.kept_in(state / "parser"):  # each finished epoch kept there, for --resume
        result = train_treebanks([treebank, *others], replace(options, embeddings=embeddings if vectors else None),
                                 progress=display.perceptron_progress("parser", score="mean of F1 and LAS" if dependency else "F1",
                                                                      shown="dev_LAS"),
                                 vectors=vectors)
    display.finish("parser", f"epoch {result.best_iteration} kept"
                   + (", the best finished one, written for now" if result.interrupted else ""), interrupted=result.interrupted)
    files = [{"role": role, "path": str(Path(path).resolve()), "sentences": len(items),
              **({"sha256": file_sha256(Path(path))} if Path(path).is_file() else {})}  # a folder: its files, unhashed
             for role, path, items in (("train", train_path, train), ("dev", dev_path, dev))]
    files += treebanks_record(beside)["training_files"] if beside else []
    result.parser.save(model_dir, schemes=[PHRASE_STRUCTURE] + ([dependency] if dependency else []),
                       training_files=files, history=[vars(report) for report in result.history],
                       best_iteration=result.best_iteration, language=language)
    if not result.interrupted:
        shutil.rmtree(state, ignore_errors=True)
    return result
