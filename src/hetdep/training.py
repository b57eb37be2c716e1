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

from . import _beam, _dp, _lattice
from .conllu import Sentence
from .errors import HetdepError
from .evaluation import evaluate
from .features import TEMPLATES
from .model import Weights
from .parser import TAG_COLUMNS, ArcStandardParser, encode_lattice, lattice_candidates, template_array
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
    dp: bool = False  # arc-standard: beam search with merged states (Huang & Sagae 2010)
    lattice: bool = False  # arc-standard and joint: search over each word's candidate tags (MISC TagKBest)
    lattice_weight: float = 0.0  # times the tagger's log-probability of each chosen candidate


@dataclass
class IterationReport:
    iteration: int
    seconds: float
    updates: int
    features: int
    dev_uas: float | None  # None: no dev set
    dev_las: float | None
    dev_detail: dict = field(default_factory=dict)  # per-scheme scores of a joint model


@dataclass
class TrainResult:
    parser: object  # ArcStandardParser or JointParser
    best_iteration: int
    history: list[IterationReport] = field(default_factory=list)


def _label_inventory(trees: list[tuple[list[int], list[str]]], min_lifted: int) -> tuple[list[str], dict[str, str]]:
    """Labels to predict, and the replacement for rare lifted labels (by their plain label)."""
    counts = Counter(label for _, labels in trees for label in labels)
    rare = {label: label.split(LIFT, 1)[0] + ("~" if label.endswith("~") and LIFT in label else "")
            for label, count in counts.items() if LIFT in label and count < min_lifted}
    kept = sorted({rare.get(label, label) for label in counts})
    return kept, rare


def projective_trees(sentences: Sequence[Sentence], options: TrainOptions) -> list[tuple[list[int], list[str]]]:
    """Each training sentence's tree made projective (heads, labels); a sentence without a tree is refused."""
    trees = []
    for sentence in sentences:
        if any(h < 0 for h in sentence.heads):
            raise HetdepError(f"{sentence.describe()}: training sentence has no tree (HEAD is '_')")
        trees.append(projectivize(sentence.heads, sentence.deprels, options.projective_encoding))
    return trees


def scheme_oracles(sentences: Sequence[Sentence], options: TrainOptions) -> tuple[list[str], int, list[np.ndarray]]:
    """Labels, the root label, and the oracle action sequence of each projectivized training tree."""
    trees = projective_trees(sentences, options)
    labels, rare = _label_inventory(trees, options.min_lifted_label)
    moves = Moves(labels)
    roots = Counter(rare.get(tree_labels[heads.index(0)], tree_labels[heads.index(0)]) for heads, tree_labels in trees)
    root_label = moves.index[roots.most_common(1)[0][0]]
    golds = [np.array(oracle(heads, [moves.index[rare.get(label, label)] for label in tree_labels], moves), dtype=np.int32)
             for heads, tree_labels in trees]
    return labels, root_label, golds


def vocabularies(sentences: Sequence[Sentence], options: TrainOptions) -> tuple[Vocab, Vocab]:
    column = TAG_COLUMNS[options.tag_column]
    words = Vocab.from_counts(Counter(form for s in sentences for form in s.forms))
    tags = Counter(tag for s in sentences for tag in s.column(column))
    if options.lattice:  # the tagger's other candidates are tags to know too
        tags.update(tag for s in sentences for listed in lattice_candidates(s, column) for tag, _ in listed[1:])
    return words, Vocab.from_counts(tags)


def prepare(sentences: Sequence[Sentence], options: TrainOptions):
    """Vocabularies, labels and oracle action sequences of projectivized training trees."""
    labels, root_label, golds = scheme_oracles(sentences, options)
    words, tags = vocabularies(sentences, options)
    column = TAG_COLUMNS[options.tag_column]
    encoded = [(words.encode(s.forms), tags.encode(s.column(column)), gold) for s, gold in zip(sentences, golds)]
    return words, tags, labels, root_label, encoded


def update_mode(options: TrainOptions) -> int:
    if options.update not in UPDATES:
        raise HetdepError(f"unknown update {options.update!r}; choose from {sorted(UPDATES)}")
    return UPDATES[options.update]


def dev_scores(parser, dev_sentences: Sequence[Sentence]) -> tuple[object, float, float, dict]:
    """What a single-scheme parser's ``evaluate_model`` returns: the parser, its dev UAS and LAS (None without dev)."""
    if not dev_sentences:
        return parser, None, None, {}
    result = evaluate(dev_sentences, parser.parse(dev_sentences))
    return parser, result.uas, result.las, {}


def perceptron_loop(n_examples: int, learn: Callable, evaluate_model: Callable, weights: Weights, options: TrainOptions,
                    progress: Callable | None = None) -> tuple[object, int, list[IterationReport]]:
    """The training loop every parser shares: shuffled iterations, dev evaluation, best iteration kept.

    ``learn(index)`` searches one example and updates ``weights`` (returns whether it did);
    ``evaluate_model(averaged weights)`` returns (model, dev UAS, dev LAS, details), the scores
    None without a dev set: then every iteration is run and the last one kept.
    """
    rng = np.random.default_rng(options.seed)
    history: list[IterationReport] = []
    best = None
    for iteration in range(1, options.iterations + 1):
        start = time.perf_counter()
        updates = 0
        order = rng.permutation(n_examples)
        bar = progress(total=len(order), desc=f"iteration {iteration}", unit="sent") if progress else None
        for index in order:
            updates += bool(learn(index))
            weights.counter += 1
            if bar:
                bar.update(1)
        model, uas, las, detail = evaluate_model(weights.averaged())
        report = IterationReport(iteration, time.perf_counter() - start, updates, weights.features, uas, las, detail)
        history.append(report)
        if bar:
            if uas is not None:
                bar.set_postfix(dev_UAS=f"{uas:.2f}", dev_LAS=f"{las:.2f}")
            bar.close()
        if best is None or uas is None or uas > best[0].dev_uas:
            best = (report, model)
        elif iteration - best[0].iteration >= options.patience:
            break
    return best[1], best[0].iteration, history


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
) -> TrainResult:
    """Train on ``train_sentences``, choosing the iteration by dev UAS."""
    if not train_sentences:
        raise HetdepError("no training sentences")
    mode = update_mode(options)
    words, tags, labels, root_label, encoded = prepare(train_sentences, options)
    n_labels = len(labels)
    weights = Weights(2 + 2 * n_labels)
    templates = template_array()
    if options.lattice and options.dp:
        raise HetdepError("tag lattices and the dynamic-programming beam do not combine yet: choose one")
    search = _dp.search if options.dp else _beam.search
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
        else:
            actions, length, _ = search(w, t, n, options.beam, templates, weights.table, weights.rows, n_labels, gold, mode)
            predicted_tags = t
        if length < len(gold) or not np.array_equal(actions, gold) or not np.array_equal(predicted_tags[:n + 1], t[:n + 1]):
            _beam.update(w, t, n, gold, actions, length, templates, weights.table, weights.n_used,
                         weights.rows, weights.sums, weights.counts, weights.counter, n_labels, predicted_tags)
            return True
        return False

    def evaluate_model(averaged):
        return dev_scores(ArcStandardParser(words, tags, labels, root_label, averaged, beam=options.beam, dp=options.dp,
                                            lattice=options.lattice, lattice_weight=options.lattice_weight,
                                            tag_column=options.tag_column,
                                            projective_encoding=options.projective_encoding),
                          dev_sentences)

    parser, best_iteration, history = perceptron_loop(len(encoded), learn, evaluate_model, weights, options, progress)
    return TrainResult(parser, best_iteration, history)
