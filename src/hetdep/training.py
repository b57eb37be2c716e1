"""Training the arc-standard parser: global averaged perceptron with beam search and early update
(or max-violation update, Huang et al. 2012, as an option).

Every training tree is made projective first (pseudo-projective transform), so no sentence
is dropped. Each iteration visits the sentences in an order shuffled with the seed, then
parses the dev file with the averaged weights; the best dev iteration's weights are kept,
and training stops early when the dev score has not improved for ``patience`` iterations.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from . import _beam
from .conllu import Sentence
from .errors import HetdepError
from .evaluation import evaluate
from .features import TEMPLATES
from .model import Weights
from .parser import TAG_COLUMNS, ArcStandardParser, template_array
from .projectivity import LIFT, projectivize
from .transition import Moves, oracle
from .vocab import Vocab


UPDATES = {"early": _beam.EARLY, "max-violation": _beam.MAX_VIOLATION}


@dataclass
class TrainOptions:
    beam: int = 64
    iterations: int = 15
    patience: int = 4
    seed: int = 1
    tag_column: str = "upos"
    projective_encoding: str = "head"
    min_lifted_label: int = 5  # lifted labels seen fewer times fall back to their plain label
    update: str = "early"  # or "max-violation"


@dataclass
class IterationReport:
    iteration: int
    seconds: float
    updates: int
    features: int
    dev_uas: float
    dev_las: float


@dataclass
class TrainResult:
    parser: ArcStandardParser
    best_iteration: int
    history: list[IterationReport] = field(default_factory=list)


def _label_inventory(trees: list[tuple[list[int], list[str]]], min_lifted: int) -> tuple[list[str], dict[str, str]]:
    """Labels to predict, and the replacement for rare lifted labels (by their plain label)."""
    counts = Counter(label for _, labels in trees for label in labels)
    rare = {label: label.split(LIFT, 1)[0] + ("~" if label.endswith("~") and LIFT in label else "")
            for label, count in counts.items() if LIFT in label and count < min_lifted}
    kept = sorted({rare.get(label, label) for label in counts})
    return kept, rare


def prepare(sentences: Sequence[Sentence], options: TrainOptions):
    """Vocabularies, labels and oracle action sequences of projectivized training trees."""
    column = TAG_COLUMNS[options.tag_column]
    trees = []
    for sentence in sentences:
        if any(h < 0 for h in sentence.heads):
            raise HetdepError(f"{sentence.describe()}: training sentence has no tree (HEAD is '_')")
        trees.append(projectivize(sentence.heads, sentence.deprels, options.projective_encoding))
    labels, rare = _label_inventory(trees, options.min_lifted_label)
    moves = Moves(labels)
    roots = Counter(labels_[heads.index(0)] for heads, labels_ in trees)
    root_label = moves.index[rare.get(roots.most_common(1)[0][0], roots.most_common(1)[0][0])]
    words = Vocab.from_counts(Counter(form for s in sentences for form in s.forms))
    tags = Vocab.from_counts(Counter(tag for s in sentences for tag in s.column(column)))
    encoded = []
    for sentence, (heads, tree_labels) in zip(sentences, trees):
        label_ids = [moves.index[rare.get(label, label)] for label in tree_labels]
        gold = np.array(oracle(heads, label_ids, moves), dtype=np.int32)
        encoded.append((words.encode(sentence.forms), tags.encode(sentence.column(column)), gold))
    return words, tags, labels, root_label, encoded


def train(
    train_sentences: Sequence[Sentence],
    dev_sentences: Sequence[Sentence],
    options: TrainOptions = TrainOptions(),
    progress: Callable | None = None,
) -> TrainResult:
    """Train on ``train_sentences``, choosing the iteration by dev UAS."""
    if not train_sentences:
        raise HetdepError("no training sentences")
    words, tags, labels, root_label, encoded = prepare(train_sentences, options)
    n_labels = len(labels)
    weights = Weights(2 + 2 * n_labels)
    templates = template_array()
    if options.update not in UPDATES:
        raise HetdepError(f"unknown update {options.update!r}; choose from {sorted(UPDATES)}")
    mode = UPDATES[options.update]
    rng = np.random.default_rng(options.seed)
    history: list[IterationReport] = []
    best = None
    for iteration in range(1, options.iterations + 1):
        start = time.perf_counter()
        updates = 0
        order = rng.permutation(len(encoded))
        bar = progress(total=len(order), desc=f"iteration {iteration}", unit="sent") if progress else None
        for index in order:
            w, t, gold = encoded[index]
            n = len(w) - 1
            weights.reserve(2 * len(gold) * len(TEMPLATES))
            actions, length, _ = _beam.search(w, t, n, options.beam, templates, weights.table, weights.rows,
                                              n_labels, gold, mode)
            if length < len(gold) or not np.array_equal(actions, gold):
                _beam.update(w, t, n, gold, actions, length, templates, weights.table, weights.n_used,
                             weights.rows, weights.sums, weights.counts, weights.counter, n_labels)
                updates += 1
            weights.counter += 1
            if bar:
                bar.update(1)
        parser = ArcStandardParser(words, tags, labels, root_label, weights.averaged(),
                                   beam=options.beam, tag_column=options.tag_column,
                                   projective_encoding=options.projective_encoding)
        result = evaluate(dev_sentences, parser.parse(dev_sentences)) if dev_sentences else None
        report = IterationReport(iteration, time.perf_counter() - start, updates, weights.features,
                                 result.uas if result else 0.0, result.las if result else 0.0)
        history.append(report)
        if bar:
            bar.set_postfix(dev_UAS=f"{report.dev_uas:.2f}", dev_LAS=f"{report.dev_las:.2f}")
            bar.close()
        if best is None or report.dev_uas > best[0].dev_uas:
            best = (report, parser)
        elif iteration - best[0].iteration >= options.patience:
            break
    return TrainResult(best[1], best[0].iteration, history)
