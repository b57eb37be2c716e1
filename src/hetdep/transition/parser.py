"""The arc-standard beam-search parser: encoding sentences, parsing, saving and loading.

Training lives in :mod:`hetdep.transition.training`; the compiled search and update in
:mod:`hetdep.transition._beam`; the readable reference of both in :mod:`hetdep.transition.reference`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from hetdep.learn.keys import template_rows
from hetdep.learn.model_files import ModelFileError, SavedModel, check_width, label_id
from hetdep.learn.perceptron import DECODE
from hetdep.learn.vocab import ParseStats, Vocab
from hetdep.learn.weights import TrainedWeights
from hetdep.transition import _beam, _dp, _lattice
from hetdep.transition.features import MAX_ATOMS_PER_TEMPLATE, TEMPLATES
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.projectivity import deprojectivize
from hetdep.treebank.tags import TAG_COLUMNS, lattice_candidates


def encode_lattice(tags: Vocab, options: list[list[tuple[str, float]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """candidates[k, :counts[k]]: word k's candidate tag ids (rows 0 and n + 1 empty), and their log-probabilities."""
    n = len(options)
    width = max((len(o) for o in options), default=1)
    candidates = np.zeros((n + 2, width), dtype=np.int64)
    logp = np.zeros((n + 2, width), dtype=np.float64)
    counts = np.zeros(n + 2, dtype=np.int64)
    for k, listed in enumerate(options, 1):
        ids = tags.encode([tag for tag, _ in listed])[1:]
        candidates[k, :len(ids)] = ids
        logp[k, :len(ids)] = np.log(np.maximum([p for _, p in listed], 1e-6))
        counts[k] = len(ids)
    counts[n + 1] = 1
    return candidates, counts, logp


def no_gold_tags(n: int) -> np.ndarray:
    """The gold tags argument of a lattice search that is not training."""
    return np.zeros(n + 2, dtype=np.int64)


class ArcStandardParser(SavedModel):
    """A trained arc-standard parser: vocabularies, label set, options and averaged weights."""

    KIND = "arc-standard"
    WHAT = "model"

    def __init__(self, words: Vocab, tags: Vocab, labels: list[str], root_label: int, weights: TrainedWeights, *,
                 beam: int = 64, tag_column: str = "upos", projective_encoding: str = "head", dp: bool = False,
                 lattice: bool = False, lattice_weight: float = 0.0):
        if tag_column not in TAG_COLUMNS:
            raise ValueError(f"tag column must be one of {sorted(TAG_COLUMNS)}")
        self.words = words
        self.tags = tags
        self.labels = labels
        self.root_label = root_label
        self.weights = weights
        self.beam = beam
        self.dp = dp  # merge equivalent beam states (hetdep.transition._dp)
        self.lattice = lattice  # parse over each word's candidate tags (parse_lattice)
        self.lattice_weight = lattice_weight  # times the tagger's log-probability of a chosen candidate
        self.tag_column = tag_column
        self.projective_encoding = projective_encoding
        self.templates = template_array()
        self.stats = ParseStats()
        self.clock = None  # an int64 array of hetdep.transition._clock.STAGES cells: profile the search (bench/)

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    def encode(self, sentence: Sentence) -> tuple[np.ndarray, np.ndarray]:
        """Word and tag ids of a sentence, index k for word k, index 0 "absent"."""
        return self.words.encode(sentence.forms), self.tags.encode(sentence.column(TAG_COLUMNS[self.tag_column]))

    def search(self, words: np.ndarray, tags: np.ndarray, beam: int | None = None) -> tuple[np.ndarray, int, float]:
        """The best action sequence for encoded words and tags, its length (2n) and its score."""
        n = len(words) - 1
        gold = np.zeros(2 * n, dtype=np.int32)
        if self.dp:
            return _dp.search(words, tags, n, beam or self.beam, self.templates, self.weights.table, self.weights.rows,
                              self.n_labels, gold, DECODE)
        return _beam.search(words, tags, n, beam or self.beam, self.templates, self.weights.table, self.weights.rows,
                            self.n_labels, gold, DECODE, self.clock)

    def parse_arrays(self, words: np.ndarray, tags: np.ndarray, beam: int | None = None) -> tuple[np.ndarray, np.ndarray, float]:
        """Heads and label ids (projectivized labels) of the best tree, and its score."""
        actions, _, score = self.search(words, tags, beam)
        heads, labels = _beam.actions_to_tree(actions, len(words) - 1, self.n_labels, self.root_label)
        return heads, labels, score

    def parse_sentence(self, sentence: Sentence, beam: int | None = None) -> Sentence:
        """The sentence with this parser's tree (non-projective arcs restored) in HEAD and DEPREL."""
        words, tags = self.encode(sentence)
        self.stats.record(words, tags, sentence.column(TAG_COLUMNS[self.tag_column]))
        heads, label_ids, _ = self.parse_arrays(words, tags, beam)
        heads, labels = deprojectivize([int(h) for h in heads], [self.labels[i] for i in label_ids])
        return sentence.with_tree(heads, labels)

    def parse_lattice(self, sentence: Sentence, beam: int | None = None) -> Sentence:
        """The sentence parsed over its tag lattice: each word's candidate tags from MISC
        ``TagKBest`` (``hetdep tag --k``; a word without them has its tag column alone), the
        tags chosen with the tree written into the tag column."""
        column = TAG_COLUMNS[self.tag_column]
        words = self.words.encode(sentence.forms)
        n = len(sentence)
        if n == 0:
            return self.parse_sentence(sentence, beam)
        options = lattice_candidates(sentence, column)
        self.stats.count(lattice_words=sum(len(tags) > 1 for tags in options))
        candidates, counts, logp = encode_lattice(self.tags, options)
        self.stats.record(words, candidates[:n + 1, 0], [tags[0][0] for tags in options])
        actions, _, _, chosen = _lattice.search(words, candidates, counts, logp, self.lattice_weight, n,
                                                beam or self.beam, self.templates,
                                                self.weights.table, self.weights.rows, self.n_labels,
                                                np.zeros(2 * n, dtype=np.int32), no_gold_tags(n), DECODE)
        heads, label_ids = _beam.actions_to_tree(actions, n, self.n_labels, self.root_label)
        heads, labels = deprojectivize([int(h) for h in heads], [self.labels[i] for i in label_ids])
        picked = [next(tag for (tag, _), tag_id in zip(tags, candidates[k + 1]) if tag_id == chosen[k + 1])
                  for k, tags in enumerate(options)]
        return sentence.with_tree(heads, labels).with_column(column, picked)

    def parse(self, sentences: Iterable[Sentence], beam: int | None = None) -> Iterator[Sentence]:
        """One output sentence per input sentence, in order (over tag lattices for a lattice model)."""
        for sentence in sentences:
            yield self.parse_lattice(sentence, beam) if self.lattice else self.parse_sentence(sentence, beam)

    # Model files -------------------------------------------------------------------------

    def config(self) -> dict:
        return {
            "kind": self.KIND,
            "beam": self.beam,
            "dp": self.dp,
            "lattice": self.lattice,
            "lattice_weight": self.lattice_weight,
            "tag_column": self.tag_column,
            "projective_encoding": self.projective_encoding,
            "templates": len(TEMPLATES),
            "labels": self.labels,
            "root_label": self.root_label,
            "words": self.words.to_list(),
            "tags": self.tags.to_list(),
        }

    @classmethod
    def from_config(cls, config: dict, weights: TrainedWeights, directory: Path) -> "ArcStandardParser":
        labels = list(config["labels"])
        what = "the label set or the feature templates"
        check_width(weights, 2 + 2 * len(labels), what)
        if config["templates"] != len(TEMPLATES):
            raise ModelFileError(f"{directory}: weights do not match {what}")
        return cls(Vocab.from_list(config["words"]), Vocab.from_list(config["tags"]), labels,
                   label_id(config, "root_label", labels), weights, beam=config["beam"], dp=bool(config.get("dp", False)),
                   lattice=bool(config.get("lattice", False)),
                   lattice_weight=float(config.get("lattice_weight", 0.0)), tag_column=config["tag_column"],
                   projective_encoding=config["projective_encoding"])


def template_array(templates=TEMPLATES) -> np.ndarray:
    """Templates as rows of atom ids, padded with -1, for the compiled feature code."""
    return template_rows(templates, MAX_ATOMS_PER_TEMPLATE)
