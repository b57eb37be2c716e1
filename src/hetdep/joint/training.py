"""Training the joint model: both schemes' oracle sequences interleaved by t, one global perceptron."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.evaluation.attachment import evaluate
from hetdep.joint import _lattice, _search
from hetdep.joint.parser import JointParser, guided_templates, is_rich
from hetdep.joint.schedule import INFINITE, interleave, schedule
from hetdep.learn.perceptron import Learner, TrainOptions, TrainResult, perceptron_loop, update_mode
from hetdep.learn.vocab import vocabularies
from hetdep.learn.weights import Weights
from hetdep.transition.training import lattice_example, scheme_oracles
from hetdep.treebank.pairs import Pair, check_same_words
from hetdep.treebank.tags import TAG_COLUMNS


def train_joint(
    train_pairs: Sequence[Pair],
    dev_pairs: Sequence[Pair],
    options: TrainOptions = TrainOptions(),
    *,
    t: int = INFINITE,
    guide: str = "rich",
    progress: Callable | None = None,
) -> TrainResult:
    """Train the joint model; the best iteration is the one with the best mean dev UAS of the two schemes."""
    prepared = joint_learner(train_pairs, dev_pairs, options, t=t, guide=guide)
    return perceptron_loop(prepared.examples, prepared.learn, prepared.evaluate_model, prepared.weights, options, progress)


def joint_learner(train_pairs: Sequence[Pair], dev_pairs: Sequence[Pair], options: TrainOptions = TrainOptions(), *,
                  t: int = INFINITE, guide: str = "rich") -> Learner:
    """The joint model's training, ready for a loop (see ``hetdep.transition.training.learner``)."""
    if not train_pairs:
        raise HetdepError("no training sentences")
    templates = guided_templates(guide)  # an unknown guide is refused before any work
    rich = is_rich(guide)
    if options.dp:
        raise HetdepError("the joint model has no dynamic-programming beam yet (dp is for the arc-standard parser)")
    for pair in list(train_pairs) + list(dev_pairs):
        check_same_words(pair.a, pair.b)
    mode = update_mode(options)
    labels_a, root_a, golds_a = scheme_oracles([p.a for p in train_pairs], options)
    labels_b, root_b, golds_b = scheme_oracles([p.b for p in train_pairs], options)
    words, tags = vocabularies([p.a for p in train_pairs], options)
    column = TAG_COLUMNS[options.tag_column]
    encoded = []
    for pair, gold_a, gold_b in zip(train_pairs, golds_a, golds_b):
        who = schedule(len(pair.a), t)
        encoded.append((words.encode(pair.a.forms), tags.encode(pair.a.column(column)), interleave(gold_a, gold_b, who), who))
    n_labels = (len(labels_a), len(labels_b))
    weights = Weights(max(2 + 2 * n_labels[0], 2 + 2 * n_labels[1]))
    free = np.full(4 * max(len(p.a) for p in train_pairs), -1, dtype=np.int32)
    lattices = [lattice_example(pair.a, tags, options) for pair in train_pairs] if options.lattice else []

    def learn(index: int) -> bool:
        w, tg, gold, who = encoded[index]
        n = len(w) - 1
        weights.reserve(2 * len(gold) * len(templates))
        if options.lattice:
            candidates, counts, logp, tg = lattices[index]
            actions, length, _, predicted_tags = _lattice.joint_search(w, candidates, counts, logp, options.lattice_weight, n,
                                                                       options.beam, templates, rich,
                                                                       weights.table, weights.rows, n_labels[0],
                                                                       n_labels[1], who, gold, tg, mode)
        else:
            actions, length, _ = _search.joint_search(w, tg, n, options.beam, templates, rich, weights.table, weights.rows,
                                                     n_labels[0], n_labels[1], who, gold, mode, free[: len(gold)])
            predicted_tags = tg
        if length < len(gold) or not np.array_equal(actions, gold) or not np.array_equal(predicted_tags[:n + 1], tg[:n + 1]):
            _search.joint_update(w, tg, n, gold, actions, length, templates, rich, weights.table, weights.n_used, weights.rows,
                                weights.sums, weights.counts, weights.counter, n_labels[0], n_labels[1], who,
                                predicted_tags)
            return True
        return False

    def evaluate_model(averaged):
        parser = JointParser(words, tags, (labels_a, labels_b), (root_a, root_b), averaged, t=t, guide=guide,
                             beam=options.beam, tag_column=options.tag_column,
                             projective_encoding=options.projective_encoding, lattice=options.lattice,
                             lattice_weight=options.lattice_weight)
        if not dev_pairs:
            return parser, None, None, {}
        parsed = list(parser.parse(p.a for p in dev_pairs))
        a = evaluate([p.a for p in dev_pairs], [x for x, _ in parsed])
        b = evaluate([p.b for p in dev_pairs], [y for _, y in parsed])
        detail = {"UAS_a": a.uas, "LAS_a": a.las, "UAS_b": b.uas, "LAS_b": b.las}
        return parser, (a.uas + b.uas) / 2, (a.las + b.las) / 2, detail

    return Learner([len(w) - 1 for w, *_ in encoded], learn, evaluate_model, weights)
