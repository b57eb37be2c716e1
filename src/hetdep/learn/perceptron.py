"""The global averaged perceptron's training loop and options, shared by every parser and the tagger.

Each iteration visits the examples in an order shuffled with the seed, then scores the dev set
with the averaged weights; the best dev iteration is kept, and training stops when the dev score
has not improved for ``patience`` iterations. Training trees are made projective first
(pseudo-projective transform), so no sentence is dropped.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.evaluation.attachment import evaluate
from hetdep.interrupts import is_interrupt
from hetdep.learn import checkpoint
from hetdep.learn.weights import Weights
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.projectivity import LIFT, projectivize

DECODE, EARLY, MAX_VIOLATION = 0, 1, 2  # modes of every beam search: parse, or train with one update
UPDATES = {"early": EARLY, "max-violation": MAX_VIOLATION}


@dataclass
class TrainOptions:
    beam: int = 64
    iterations: int = 15
    patience: int = 4
    seed: int = 1
    tag_column: str = "upos"
    projective_encoding: str = "head"
    min_lifted_label: int = 5  # lifted labels seen fewer times fall back to their plain label
    update: str = "max-violation"  # or "early": max-violation trains better parsers (docs/archive.md, "Defaults")
    dp: bool = False  # arc-standard: beam search with merged states (Huang & Sagae 2010)
    lattice: bool = False  # arc-standard and joint: search over each word's candidate tags (MISC TagKBest)
    lattice_weight: float = 0.0  # times the tagger's log-probability of each chosen candidate


@dataclass
class Learner:
    """What a parser's training gives the loop: ``learn(i)`` searches example i and updates
    ``weights`` (returns whether it did); ``evaluate_model(averaged weights)`` returns (model, dev
    score, second dev score, details), the scores None without a dev set. ``sizes``: each
    example's words, the measure of its work (parameter mixing deals shards of equal work)."""

    sizes: list[int]
    learn: Callable[[int], bool]
    evaluate_model: Callable
    weights: Weights

    @property
    def examples(self) -> int:
        return len(self.sizes)


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
    interrupted: bool = False  # Ctrl-C cut training short: the best finished iteration is kept

    def finished(self) -> "TrainResult":
        """This result, or the interrupt again if the training was cut short: for a caller whose
        model is trained whole or not kept (a tagger's two directions, an experiment's cached
        models, which a rerun would reuse as finished)."""
        if self.interrupted:
            raise KeyboardInterrupt
        return self


def label_inventory(trees: list[tuple[list[int], list[str]]], min_lifted: int) -> tuple[list[str], dict[str, str]]:
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
                    progress: Callable | None = None) -> TrainResult:
    """The training loop every parser shares: shuffled iterations, dev evaluation, best iteration kept.

    ``learn(index)`` searches one example and updates ``weights`` (returns whether it did);
    ``evaluate_model(averaged weights)`` returns (model, dev UAS, dev LAS, details), the scores
    None without a dev set: then every iteration is run and the last one kept. Ctrl-C after an
    iteration has finished ends training with the best model so far (``interrupted``); before,
    it propagates. Inside :func:`hetdep.learn.checkpoint.kept_in`, the state after each
    iteration is kept there, and a state kept by an interrupted run is resumed.
    """
    rng = np.random.default_rng(options.seed)
    history: list[IterationReport] = []
    best = None
    first = 1
    folder = checkpoint.active()
    kept = checkpoint.restore(folder, weights) if folder is not None else None
    if kept is not None:  # resume after the last finished iteration, exactly as if never stopped
        rng.bit_generator.state = kept.rng_state
        history = [IterationReport(**entry) for entry in kept.history]
        best_averaged = kept.best_weights
        best = (next(r for r in history if r.iteration == kept.best_iteration), evaluate_model(best_averaged)[0])
        stopped = best[0].dev_uas is not None and history[-1].iteration - best[0].iteration >= options.patience
        first = options.iterations + 1 if stopped else kept.iteration + 1
    for iteration in range(first, options.iterations + 1):
        start = time.perf_counter()
        updates = 0
        order = rng.permutation(n_examples)
        bar = progress(total=len(order), desc=f"iteration {iteration}", unit="sent") if progress else None
        try:
            for index in order:
                updates += bool(learn(index))
                weights.counter += 1
                if bar:
                    bar.update(1)
            averaged = weights.averaged()
            model, uas, las, detail = evaluate_model(averaged)
            report = IterationReport(iteration, time.perf_counter() - start, updates, weights.features, uas, las, detail)
            best, stop = close_iteration(history, best, report, model, bar, options)
            if folder is not None:  # an interrupt while saving leaves the last iteration's state (checkpoint.save)
                if best[0] is report:
                    best_averaged = averaged
                checkpoint.save(folder, weights, checkpoint.LoopState(iteration, rng.bit_generator.state,
                                                                      [vars(r) for r in history], best[0].iteration,
                                                                      best_averaged))
        except BaseException as error:
            if bar:
                bar.close()
            if best is None or not is_interrupt(error):
                raise
            return TrainResult(best[1], best[0].iteration, history, interrupted=True)
        if stop:
            break
    return TrainResult(best[1], best[0].iteration, history)


def close_iteration(history: list[IterationReport], best: tuple | None, report: IterationReport, model, bar,
                    options: TrainOptions) -> tuple[tuple, bool]:
    """Record an iteration (and show its dev scores on its bar): the best (report, model) so far,
    and whether training stops (no better dev score for ``options.patience`` iterations)."""
    history.append(report)
    if bar:
        if report.dev_uas is not None:
            bar.set_postfix(dev_UAS=f"{report.dev_uas:.2f}", dev_LAS=f"{report.dev_las:.2f}")
        bar.close()
    if best is None or report.dev_uas is None or report.dev_uas > best[0].dev_uas:
        return (report, model), False
    return best, report.iteration - best[0].iteration >= options.patience
