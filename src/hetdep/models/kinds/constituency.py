"""The shift-reduce constituency parser (mi-huang2015): phrase-structure trees, or, with head rules
(``--to-dependency``), the dependency trees derived from them; its bundled tagger gives the XPOS
tags it reads (a neural model's network, or a perceptron tagger with candidates for a lattice model)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from hetdep.errors import HetdepError
from hetdep.learn.model_config import ModelFileError
from hetdep.models import CONSTITUENCY
from hetdep.models.parsing import OpenModels, ParseChoice, set_lattice_weight
from hetdep.threads import ordered_map
from hetdep.treebank.conllu import Sentence

if TYPE_CHECKING:
    from hetdep.learn.perceptron import TrainResult
    from hetdep.models.training import TrainingRun


@dataclass
class ConstituencyModels(OpenModels):
    """A constituency parser with its bundled tagging and, with ``choice.to_dependency``, its head rules."""

    tagging: Callable[[Iterable[Sentence]], Iterator[Sentence]] | None = None  # the bundled tagger's, if any
    table: object = None  # the head rules' table (hetdep.convert.headrules) for dependency output

    TAKES = {CONSTITUENCY: frozenset({"lattice_weight", "to_dependency"})}

    @classmethod
    def open(cls, model_dir: Path, config: dict, choice: ParseChoice, tag_input: bool) -> "ConstituencyModels":
        from hetdep.constituency.parser import ConstituencyParser
        from hetdep.convert.headrules import load_table

        parser = ConstituencyParser.load(model_dir)
        set_lattice_weight(parser, choice.lattice_weight, model_dir)
        opened = cls(model_dir, CONSTITUENCY, parser, choice, config=config,
                     table=load_table(choice.to_dependency) if choice.to_dependency else None)
        tagger_dir = Path(model_dir) / "tagger"
        if config.get("tagger", "gold") != "gold" and not tagger_dir.is_dir():  # its training's record: "gold", or the tagger bundled
            raise ModelFileError(f"{tagger_dir}: the tagger the model was trained with is missing (a damaged model directory)")
        if tag_input and tagger_dir.is_dir():
            opened.tagging = _bundled_tagging(tagger_dir, choice.lattice_k if parser.lattice else 0)
        return opened

    @property
    def schemes(self) -> tuple[str, ...]:
        """Phrase structure, or the head rules' dependency trees."""
        return (self.choice.to_dependency or "phrase-structure",)

    @property
    def has_tagger(self) -> bool:
        return self.tagging is not None

    @property
    def dependency_trees(self) -> bool:
        return self.table is not None

    def tag(self, sentences: Iterable[Sentence]) -> Iterable[Sentence]:
        return self.tagging(sentences) if self.tagging is not None else sentences

    def parse_trees(self, sentences: Iterable[Sentence]) -> Iterator:
        """One tree per sentence: a :class:`hetdep.treebank.phrase_trees.PhraseTree`, or its dependency
        tree by the head rules; the input tagged by the bundled tagger, or its XPOS tags required
        (a lattice model's candidates will do)."""
        from hetdep.convert.headrules import tree_sentence
        from hetdep.treebank.phrase_trees import PhraseTree

        sentences = self.tag(sentences) if self.tagging is not None else self.require_tags(sentences)

        def one(sentence: Sentence):
            root = self.parser.parse_sentence(sentence, self.choice.beam)
            if self.table is None:
                return PhraseTree(sentence, root)
            return tree_sentence(root, self.table, sentence.comments, sentence.path, sentence.line)

        return ordered_map(one, sentences, self.choice.threads)


def _bundled_tagging(tagger_dir: Path, k: int) -> Callable[[Iterable[Sentence]], Iterator[Sentence]]:
    """How the tagger bundled in ``tagger_dir`` tags sentences (``k``: each word's k best tags in
    MISC too, for a lattice parser; a perceptron tagger's only)."""
    from hetdep.constituency.pipeline import NETWORK
    from hetdep.tagger.tagger import load_taggers

    if (tagger_dir / NETWORK).is_dir():
        from hetdep.learn.model_files import read_config
        from hetdep.models.kinds.neural import NeuralModels

        network = tagger_dir / NETWORK  # a neural model: its helpers mixed in as its training fitted
        return NeuralModels.open(network, read_config(network), ParseChoice(), True).parser.tag
    taggers = load_taggers(tagger_dir)

    def tag(sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        for tagger in taggers:
            sentences = tagger.tag(sentences, k=k)
        return iter(sentences)
    return tag


def train_phrases(run: TrainingRun) -> Callable[[], TrainResult]:
    """The shift-reduce parser from bracketed trees (``--parser constituency``), with its tagger
    unless ``--gold-tags`` or ``--tagger``."""
    from hetdep.constituency.features import DEFAULT_TEMPLATES
    from hetdep.constituency.pipeline import train_constituency_model
    from hetdep.learn.perceptron import TrainOptions

    refuse_conllu(run)
    options = TrainOptions(iterations=run.iterations, patience=run.patience, seed=run.seed, beam=run.beam or 16, dp=run.dp,
                           lattice=run.lattice, lattice_weight=run.lattice_weight,
                           **({"update": run.update} if run.update else {}))
    return lambda: train_constituency_model(run.model_dir, run.train_path, run.dev_path, options, run.rules or "collins",
                                            run.gold_tags, run.folds, run.threads or 1,
                                            templates=run.template_set or DEFAULT_TEMPLATES, tagger_model=run.tagger_dir)


def refuse_conllu(run: TrainingRun) -> None:
    """A phrase-structure kind's training files must hold bracketed trees: CoNLL-U ones are refused by name."""
    for path in (run.train_path, run.dev_path):
        if path and Path(path).is_file() and Path(path).suffix in (".conllu", ".conll", ".conllx"):
            raise HetdepError(f"{path}: --parser {run.parser_kind} trains from bracketed trees (.mrg: a file, a folder "
                              "of them or a .zip), not CoNLL-U")
