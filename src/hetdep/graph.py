"""Graph-based parsers: first order (dep1, McDonald et al. 2005: arc-factored scores, Eisner's
algorithm) and second order (dep2, McDonald & Pereira 2006: arcs plus adjacent siblings).

Training is the averaged perceptron over whole trees (Collins 2002): parse each training
sentence with the current weights, and where the tree or a label differs from the gold one,
add the gold arcs' features and subtract the predicted arcs'. Trees are made projective first
(pseudo-projective transform, as for the transition parsers) and deprojectivized on output.
The compiled features and decoders are :mod:`hetdep._eisner` and :mod:`hetdep._sibling`; labels
come from the arc features in both (dep2's sibling features are unlabeled).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from . import _eisner, _sibling
from .conllu import Sentence
from .errors import HetdepError
from .model import ModelFileError, TrainedWeights, Weights, load_model, save_model
from .parser import TAG_COLUMNS, ParseStats
from .projectivity import deprojectivize, projectivize
from .training import TrainOptions, TrainResult, _label_inventory, dev_scores, perceptron_loop, vocabularies
from .vocab import Vocab

KINDS = {"dep1": 1, "dep2": 2}


def sibling_column(n_labels: int) -> int:
    """dep2's weight column for the (unlabeled) sibling features, after the label columns."""
    return n_labels + 2


def weight_width(n_labels: int, order: int) -> int:
    """Weight columns: 2 unused, one per label, and for dep2 one for the sibling features."""
    return sibling_column(n_labels) + (order == 2)


def best_tree(words: np.ndarray, tags: np.ndarray, table: np.ndarray, rows: tuple, n_labels: int,
              order: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Heads and label ids (index 1..n) of the best projective tree under these weights, and its score."""
    n = len(words) - 1
    scores, labels = _eisner.arc_scores(words, tags, n, table, rows, n_labels, weight_width(n_labels, order))
    if order == 2:
        siblings = _sibling.sibling_scores(words, tags, n, table, rows, sibling_column(n_labels))
        heads, total = _sibling.decode(scores, siblings, n)
    else:
        heads, total = _eisner.eisner(scores, n)
    return heads, labels[heads, np.arange(n + 1)], total


def posteriors(totals: np.ndarray, temperature: float) -> np.ndarray:
    """Softmax of k-best scores divided by ``temperature``."""
    weights = np.exp((totals - totals.max()) / temperature)
    return weights / weights.sum()


class GraphParser:
    """A trained graph-based parser of order 1 or 2: vocabularies, labels and averaged weights."""

    def __init__(self, words: Vocab, tags: Vocab, labels: list[str], weights: TrainedWeights, *, order: int = 1,
                 tag_column: str = "upos", projective_encoding: str = "head"):
        self.order = order
        self.words = words
        self.tags = tags
        self.labels = labels
        self.weights = weights
        self.tag_column = tag_column
        self.projective_encoding = projective_encoding
        self.stats = ParseStats()

    def encode(self, sentence: Sentence) -> tuple[np.ndarray, np.ndarray]:
        return self.words.encode(sentence.forms), self.tags.encode(sentence.column(TAG_COLUMNS[self.tag_column]))

    def parse_arrays(self, words: np.ndarray, tags: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """Heads and label ids (index 1..n) of the best projective tree, and its score."""
        return best_tree(words, tags, self.weights.table, self.weights.rows, len(self.labels), self.order)

    @property
    def width(self) -> int:
        return weight_width(len(self.labels), self.order)

    def arc_scores(self, words: np.ndarray, tags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every arc's best label score and that label: (n+1, n+1) each."""
        return _eisner.arc_scores(words, tags, len(words) - 1, self.weights.table, self.weights.rows, len(self.labels),
                                  self.width)

    def with_tree(self, sentence: Sentence, heads: np.ndarray, label_ids: np.ndarray) -> Sentence:
        """The sentence with these heads and label ids (index 1..n), non-projective arcs restored."""
        heads, labels = deprojectivize([int(h) for h in heads[1:]], [self.labels[i] for i in label_ids[1:]])
        return sentence.with_tree(heads, labels)

    def parse_sentence(self, sentence: Sentence, beam: int | None = None) -> Sentence:
        """The sentence with this parser's tree in HEAD and DEPREL (``beam`` is ignored: decoding is exact)."""
        words, tags = self.encode(sentence)
        self.stats.record(words, tags, sentence.column(TAG_COLUMNS[self.tag_column]))
        heads, label_ids, _ = self.parse_arrays(words, tags)
        return self.with_tree(sentence, heads, label_ids)

    def kbest(self, sentence: Sentence, k: int = 16, temperature: float = 1.0) -> list[tuple[Sentence, float]]:
        """The k best trees (each arc with its best label), best first, with posteriors (dep1 only).

        A tree's posterior is the softmax of the k trees' scores divided by ``temperature``
        (perceptron scores are not probabilities; the temperature sets how peaked the
        distribution over the list is, 1.0 by default).
        """
        if self.order != 1:
            raise HetdepError("k-best trees are available from dep1 models only")
        words, tags = self.encode(sentence)
        scores, labels = self.arc_scores(words, tags)
        all_heads, totals = _eisner.eisner_kbest(scores, len(words) - 1, k)
        columns = np.arange(len(words))
        return [(self.with_tree(sentence, heads, labels[heads, columns]), float(p))
                for heads, p in zip(all_heads, posteriors(totals, temperature))]

    def parse(self, sentences: Iterable[Sentence], beam: int | None = None) -> Iterator[Sentence]:
        """One output sentence per input sentence, in order."""
        for sentence in sentences:
            yield self.parse_sentence(sentence)

    def config(self) -> dict:
        return {"kind": f"dep{self.order}", "tag_column": self.tag_column, "projective_encoding": self.projective_encoding,
                "labels": self.labels, "words": self.words.to_list(), "tags": self.tags.to_list()}

    def save(self, directory: str | Path, **training_record) -> None:
        save_model(Path(directory), {**self.config(), **training_record}, self.weights)

    @classmethod
    def load(cls, directory: str | Path, kind: str = "dep1") -> "GraphParser":
        config, weights = load_model(Path(directory), kind)
        try:
            labels = list(config["labels"])
            parser = cls(Vocab.from_list(config["words"]), Vocab.from_list(config["tags"]), labels, weights,
                         order=KINDS[kind], tag_column=config["tag_column"], projective_encoding=config["projective_encoding"])
            if (weights.act.size and weights.act.max() >= parser.width) or weights.dense.shape[1] != parser.width:
                raise ModelFileError(f"{directory}: weights do not match the label set")
            return parser
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{directory}/config.json: incomplete or invalid model configuration ({error!r})") from None


def train_graph(train_sentences: Sequence[Sentence], dev_sentences: Sequence[Sentence],
                options: TrainOptions = TrainOptions(), progress: Callable | None = None, order: int = 1) -> TrainResult:
    """Train dep1 (``order`` 1) or dep2 (2), choosing the iteration by dev UAS (``options.beam`` is unused)."""
    if not train_sentences:
        raise HetdepError("no training sentences")
    trees = []
    for sentence in train_sentences:
        if any(h < 0 for h in sentence.heads):
            raise HetdepError(f"{sentence.describe()}: training sentence has no tree (HEAD is '_')")
        trees.append(projectivize(sentence.heads, sentence.deprels, options.projective_encoding))
    labels, rare = _label_inventory(trees, options.min_lifted_label)
    label_index = {label: i for i, label in enumerate(labels)}
    words, tags = vocabularies(train_sentences, options)
    column = TAG_COLUMNS[options.tag_column]
    encoded = [(words.encode(s.forms), tags.encode(s.column(column)), np.array([0] + heads, dtype=np.int64),
                np.array([0] + [label_index[rare.get(label, label)] for label in tree_labels], dtype=np.int64))
               for s, (heads, tree_labels) in zip(train_sentences, trees)]
    weights = Weights(weight_width(len(labels), order))

    def learn(index: int) -> bool:
        w, t, gold_heads, gold_labels = encoded[index]
        n = len(w) - 1
        weights.reserve(2 * n * (_eisner.MAX_KEYS + _sibling.N_SIBLING_KEYS))
        heads, predicted_labels, _ = best_tree(w, t, weights.table, weights.rows, len(labels), order)
        changed = _eisner.update(w, t, n, gold_heads, gold_labels, heads, predicted_labels, weights.table, weights.n_used,
                                 weights.rows, weights.sums, weights.counts, weights.counter)
        if order == 2:
            _sibling.update(w, t, n, gold_heads, heads, weights.table, weights.n_used, weights.rows, weights.sums,
                            weights.counts, weights.counter, sibling_column(len(labels)))
        return changed > 0 or not np.array_equal(heads, gold_heads)

    def evaluate_model(averaged):
        return dev_scores(GraphParser(words, tags, labels, averaged, order=order, tag_column=options.tag_column,
                                      projective_encoding=options.projective_encoding), dev_sentences)

    parser, best_iteration, history = perceptron_loop(len(encoded), learn, evaluate_model, weights, options, progress)
    return TrainResult(parser, best_iteration, history)
