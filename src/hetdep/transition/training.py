"""Training the arc-standard parser: global averaged perceptron with beam search and early update
(or max-violation update, Huang et al. 2012, as an option).

Every training tree is made projective first (pseudo-projective transform), so no sentence
is dropped. Each iteration visits the sentences in an order shuffled with the seed, then
parses the dev file with the averaged weights; the best dev iteration's weights are kept,
and training stops early when the dev score has not improved for ``patience`` iterations.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.learn.perceptron import (
    Learner,
    TrainOptions,
    TrainResult,
    dev_scores,
    label_inventory,
    perceptron_loop,
    projective_trees,
    update_mode,
)
from hetdep.learn.vocab import Vocab, vocabularies
from hetdep.learn.weights import Weights
from hetdep.transition import _beam, _dp, _lattice
from hetdep.transition.features import TEMPLATES
from hetdep.transition.parser import ArcStandardParser, encode_lattice, template_array
from hetdep.transition.system import Moves, oracle
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.tags import TAG_COLUMNS, lattice_candidates


def scheme_oracles(sentences: Sequence[Sentence], options: TrainOptions) -> tuple[list[str], int, list[np.ndarray]]:
    """Labels, the root label, and the oracle action sequence of each projectivized training tree."""
    trees = projective_trees(sentences, options)
    labels, rare = label_inventory(trees, options.min_lifted_label)
    moves = Moves(labels)
    roots = Counter(rare.get(tree_labels[heads.index(0)], tree_labels[heads.index(0)]) for heads, tree_labels in trees)
    root_label = moves.index[roots.most_common(1)[0][0]]
    golds = [np.array(oracle(heads, [moves.index[rare.get(label, label)] for label in tree_labels], moves), dtype=np.int32)
             for heads, tree_labels in trees]
    return labels, root_label, golds


def prepare(sentences: Sequence[Sentence], options: TrainOptions):
    """Vocabularies, labels and oracle action sequences of projectivized training trees."""
    labels, root_label, golds = scheme_oracles(sentences, options)
    words, tags = vocabularies(sentences, options)
    column = TAG_COLUMNS[options.tag_column]
    encoded = [(words.encode(s.forms), tags.encode(s.column(column)), gold) for s, gold in zip(sentences, golds)]
    return words, tags, labels, root_label, encoded


def lattice_example(sentence: Sentence, tags: Vocab, options: TrainOptions) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                                       np.ndarray]:
    """A training sentence's lattice (candidates from MISC TagKBest, as ``hetdep jackknife --k`` writes
    them) and its gold path's tags: the gold tag (the tag column) where it is a candidate, else the
    best candidate (the parser cannot choose a tag the tagger did not offer)."""
    column = TAG_COLUMNS[options.tag_column]
    options_of_words = lattice_candidates(sentence, column)
    candidates, counts, logp = encode_lattice(tags, options_of_words)
    gold = np.zeros(len(sentence) + 2, dtype=np.int64)
    for k, (tag, listed) in enumerate(zip(sentence.column(column), options_of_words), 1):
        offered = [candidate for candidate, _ in listed]
        gold[k] = candidates[k, offered.index(tag)] if tag in offered else candidates[k, 0]
    return candidates, counts, logp, gold


def train(
    train_sentences: Sequence[Sentence],
    dev_sentences: Sequence[Sentence],
    options: TrainOptions = TrainOptions(),
    progress: Callable | None = None,
    clock: np.ndarray | None = None,
) -> TrainResult:
    """Train on ``train_sentences``, choosing the iteration by dev UAS; ``clock`` profiles the plain
    beam's search and updates (see :mod:`hetdep.transition._clock`)."""
    prepared = learner(train_sentences, dev_sentences, options, clock)
    return perceptron_loop(prepared.examples, prepared.learn, prepared.evaluate_model, prepared.weights, options, progress)


def learner(train_sentences: Sequence[Sentence], dev_sentences: Sequence[Sentence], options: TrainOptions = TrainOptions(),
            clock: np.ndarray | None = None) -> Learner:
    """The arc-standard parser's training, ready for a loop (:func:`perceptron_loop`, or parameter
    mixing across processes: :mod:`hetdep.cluster.mixing`)."""
    if not train_sentences:
        raise HetdepError("no training sentences")
    mode = update_mode(options)
    words, tags, labels, root_label, encoded = prepare(train_sentences, options)
    n_labels = len(labels)
    weights = Weights(2 + 2 * n_labels)
    templates = template_array()
    if options.lattice and options.dp:
        raise HetdepError("tag lattices and the dynamic-programming beam do not combine yet: choose one")
    lattices = [lattice_example(sentence, tags, options) for sentence in train_sentences] if options.lattice else []

    def learn(index: int) -> bool:
        w, t, gold = encoded[index]
        n = len(w) - 1
        weights.reserve(2 * len(gold) * len(TEMPLATES))
        if options.lattice:
            candidates, counts, logp, t = lattices[index]  # the gold path's tags: the gold tag where a candidate
            actions, length, _, predicted_tags = _lattice.search(w, candidates, counts, logp, options.lattice_weight, n,
                                                                 options.beam, templates, weights.table, weights.rows,
                                                                 n_labels, gold, t, mode)
        elif options.dp:
            actions, length, _ = _dp.search(w, t, n, options.beam, templates, weights.table, weights.rows, n_labels, gold, mode)
            predicted_tags = t
        else:
            actions, length, _ = _beam.search(w, t, n, options.beam, templates, weights.table, weights.rows, n_labels, gold,
                                              mode, clock)
            predicted_tags = t
        if length < len(gold) or not np.array_equal(actions, gold) or not np.array_equal(predicted_tags[:n + 1], t[:n + 1]):
            _beam.update(w, t, n, gold, actions, length, templates, weights.table, weights.n_used,
                         weights.rows, weights.sums, weights.counts, weights.counter, n_labels, predicted_tags, clock)
            return True
        return False

    def evaluate_model(averaged):
        return dev_scores(ArcStandardParser(words, tags, labels, root_label, averaged, beam=options.beam, dp=options.dp,
                                            lattice=options.lattice, lattice_weight=options.lattice_weight,
                                            tag_column=options.tag_column,
                                            projective_encoding=options.projective_encoding),
                          dev_sentences)

    return Learner([len(w) - 1 for w, *_ in encoded], learn, evaluate_model, weights)
