"""The shift-reduce constituency parser: encoding sentences, parsing, saving and loading.

It reads words and their POS tags (XPOS: the treebank's own tags) and gives phrase-structure
trees, written one per line in brackets (``(TOP (S (NP ...) ...))``), or, by head rules,
dependency trees in CoNLL-U. Training lives in :mod:`hetdep.constituency.training`; the compiled
search in :mod:`hetdep.constituency._search`; its reference in :mod:`hetdep.constituency.reference`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from hetdep.constituency import _dp, _lattice, _search
from hetdep.constituency.binarize import debinarize
from hetdep.constituency.features import (
    DEFAULT_TEMPLATES,
    MAX_ATOMS_PER_TEMPLATE,
    TEMPLATE_SETS,
    recorded_template_set,
    templates_of,
)
from hetdep.constituency.system import Actions, to_tree
from hetdep.errors import HetdepError
from hetdep.learn.keys import template_rows
from hetdep.learn.model_files import ModelFileError, SavedModel, check_width
from hetdep.learn.perceptron import DECODE
from hetdep.learn.vocab import ParseStats, Vocab
from hetdep.learn.weights import TrainedWeights
from hetdep.transition.parser import encode_lattice, no_gold_tags
from hetdep.treebank.conllu import XPOS, Sentence
from hetdep.treebank.ptb import Node
from hetdep.treebank.tags import lattice_candidates

KIND = "constituency"


def template_array(name: str = DEFAULT_TEMPLATES) -> np.ndarray:
    """A template set as rows of atom ids, padded with -1, for the compiled feature code."""
    return template_rows(templates_of(name), MAX_ATOMS_PER_TEMPLATE)


class ConstituencyParser(SavedModel):
    """A trained shift-reduce constituency parser: vocabularies, actions, options and averaged weights."""

    KIND = KIND
    WHAT = "constituency model"
    tag_column = "xpos"

    def __init__(self, words: Vocab, tags: Vocab, actions: Actions, weights: TrainedWeights, *, beam: int = 16,
                 head_table: str = "collins", dp: bool = False, lattice: bool = False, lattice_weight: float = 0.0,
                 template_set: str = DEFAULT_TEMPLATES):
        self.words = words
        self.tags = tags
        self.actions = actions
        self.weights = weights
        self.beam = beam
        self.dp = dp  # merge equivalent states (hetdep.constituency._dp)
        self.lattice = lattice  # parse over each word's candidate tags (parse_lattice)
        self.lattice_weight = lattice_weight  # times the tagger's log-probability of a chosen candidate
        self.head_table = head_table  # binarized the training trees; the default for --to-dependency
        self.template_set = template_set  # features.TEMPLATE_SETS
        self.templates = template_array(template_set)
        self.stats = ParseStats()

    def parse_tokens(self, forms: list[str], tags: list[str], beam: int | None = None) -> Node:
        """The phrase-structure tree of tagged words."""
        if not forms:
            raise HetdepError("a sentence without words has no tree")
        words, tag_ids = self.words.encode(forms), self.tags.encode(tags)
        self.stats.record(words, tag_ids, tags)
        n = len(forms)
        search = _dp.search if self.dp else _search.search
        actions, _, _ = search(words, tag_ids, n, beam or self.beam, self.templates, self.weights.table,
                                       self.weights.rows, len(self.actions.labels), len(self.actions.unaries),
                                       np.zeros(4 * n - 1, dtype=np.int32), DECODE)
        return debinarize(to_tree(actions.tolist(), self.actions, forms, tags))

    def parse_candidates(self, forms: list[str], options: list[list[tuple[str, float]]], beam: int | None = None) -> Node:
        """The phrase-structure tree of words each with candidate tags (best first, with their
        probabilities); the tags chosen with the tree are its words' tags."""
        if not forms:
            raise HetdepError("a sentence without words has no tree")
        n = len(forms)
        words = self.words.encode(forms)
        candidates, counts, logp = encode_lattice(self.tags, options)
        self.stats.record(words, candidates[:n + 1, 0], [listed[0][0] for listed in options])
        self.stats.count(lattice_words=sum(len(listed) > 1 for listed in options))
        actions, _, _, chosen = _lattice.search(words, candidates, counts, logp, self.lattice_weight, n, beam or self.beam,
                                                self.templates, self.weights.table, self.weights.rows,
                                                len(self.actions.labels), len(self.actions.unaries),
                                                np.zeros(4 * n - 1, dtype=np.int32), no_gold_tags(n), DECODE)
        picked = [next(tag for (tag, _), tag_id in zip(listed, candidates[k + 1]) if tag_id == chosen[k + 1])
                  for k, listed in enumerate(options)]
        return debinarize(to_tree(actions.tolist(), self.actions, forms, picked))

    def parse_sentence(self, sentence: Sentence, beam: int | None = None) -> Node:
        """A sentence's tree, from its XPOS tags (a lattice model: its candidates, MISC TagKBest)."""
        if self.lattice:
            return self.parse_candidates(sentence.forms, lattice_candidates(sentence, XPOS), beam)
        return self.parse_tokens(sentence.forms, sentence.column(XPOS), beam)

    def parse(self, sentences: Iterable[Sentence], beam: int | None = None) -> Iterator[Node]:
        """One tree per input sentence, in order."""
        for sentence in sentences:
            yield self.parse_sentence(sentence, beam)

    def config(self) -> dict:
        return {"kind": KIND, "beam": self.beam, "dp": self.dp, "lattice": self.lattice, "lattice_weight": self.lattice_weight,
                "head_table": self.head_table, "templates": len(self.templates), "template_set": self.template_set,
                "labels": self.actions.labels, "unaries": self.actions.unaries, "words": self.words.to_list(),
                "tags": self.tags.to_list()}

    @classmethod
    def from_config(cls, config: dict, weights: TrainedWeights, directory: Path) -> "ConstituencyParser":
        actions = Actions(list(config["labels"]), list(config["unaries"]))
        if not actions.labels:
            raise ModelFileError(f"{directory}/config.json: no phrase label: the model could parse no sentence of two words")
        what = "the phrase labels or the feature templates"
        check_width(weights, actions.n_actions, what)
        template_set = recorded_template_set(config)
        if template_set not in TEMPLATE_SETS or config["templates"] != len(TEMPLATE_SETS[template_set]):
            raise ModelFileError(f"{directory}: weights do not match {what}")
        return cls(Vocab.from_list(config["words"]), Vocab.from_list(config["tags"]), actions, weights,
                   beam=config["beam"], head_table=str(config["head_table"]), dp=bool(config.get("dp", False)),
                   lattice=bool(config.get("lattice", False)), lattice_weight=float(config.get("lattice_weight", 0.0)),
                   template_set=template_set)
