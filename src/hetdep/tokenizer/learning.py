"""Learning a tokenizer's boundary weights: the averaged perceptron's passes over the training
text (some passes with sentences stripped of their final punctuation), the dev scores that choose
among them, and the sentence-end bias fitted on dev (:class:`hetdep.tokenizer.tokenizer.Tokenizer`
trains through these)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from hetdep.tokenizer.boundary_weights import BoundaryWeights
from hetdep.tokenizer.templates import N_LABELS, SENTENCE_END, TOKEN_END
from hetdep.tokenizer.text import GoldText, gold_text, without_final_punctuation
from hetdep.tokenizer.word_features import WordFeatures, compiled
from hetdep.treebank.conllu import Sentence


@dataclass(frozen=True)
class TokenizerOptions:
    iterations: int = 10
    buckets_log2: int = 21  # rows of the hashed weight table: 2**21 (24 MB as float32)
    seed: int = 1
    # Shares of the training sentences that lose their final punctuation each iteration (so
    # sentence ends without a full stop, headings and captions, are learned); with dev text each
    # share trains a tokenizer and the best on dev is kept, without it the first share is used.
    unpunctuated: tuple[float, ...] = (0.0, 0.3)

    @property
    def passes_with_dev(self) -> int:
        """Iterations over the training text when dev text is given (one run a share)."""
        return self.iterations * len(self.unpunctuated)


def sentence_spans(labels: np.ndarray) -> set[tuple[int, int]]:
    """Each sentence's first and past-last character, as :meth:`Tokenizer.tokenize` would cut
    them from these labels (the last character that is not white space always ends one)."""
    visible = np.flatnonzero(labels >= 0)
    if not len(visible):
        return set()
    ends = np.flatnonzero(labels == SENTENCE_END)
    if not len(ends) or ends[-1] != visible[-1]:
        ends = np.append(ends, visible[-1])
    starts = visible[np.searchsorted(visible, np.concatenate(([0], ends[:-1] + 1)))]
    return set(zip(starts.tolist(), (ends + 1).tolist()))


def boundary_f1(gold: np.ndarray, guess: np.ndarray) -> dict[str, float]:
    """F1 of token ends and of sentence ends (characters), and of sentences (both ends right, as
    the CoNLL 2018 shared task counts them)."""
    scores = {}
    for name, at_least in (("token_ends", TOKEN_END), ("sentence_ends", SENTENCE_END)):
        g, s = gold >= at_least, guess >= at_least
        both = int(np.sum(g & s))
        total = int(g.sum() + s.sum())
        scores[name] = round(200.0 * both / total, 2) if total else 100.0
    g, s = sentence_spans(gold), sentence_spans(guess)
    scores["sentences"] = round(200.0 * len(g & s) / (len(g) + len(s)), 2) if g or s else 100.0
    return scores


def dev_score(scores: dict[str, float]) -> float:
    """What the tokenizer's choices on dev maximize: tokens and sentences alike."""
    return scores["token_ends"] + scores["sentences"]


SENTENCE_END_BIASES = tuple(float(b) for b in range(-10, 31, 2))  # grid fitted on dev, in perceptron-score units


def dev_scores(weights: BoundaryWeights, arrays, gold: GoldText, words: WordFeatures) -> dict[str, float]:
    """:func:`boundary_f1` of these weights on dev text whose paragraph breaks end sentences, as
    blank lines do in :meth:`Tokenizer.tokenize`."""
    labels = words.classify(arrays, weights)[0]
    labels[gold.paragraph_ends] = SENTENCE_END
    return boundary_f1(gold.labels, labels)


def fit_sentence_end_bias(weights: BoundaryWeights, arrays, gold: GoldText,
                           words: WordFeatures) -> tuple[BoundaryWeights, float, dict[str, float]]:
    """The weights with the bias of the sentence-end label (the weight of the feature every
    boundary has, template 0) moved by the grid value that gives the best dev F1 of sentences
    (the smallest move on ties), the move and the dev scores with it. The perceptron leaves that label, rare next
    to token ends and characters inside tokens, too shy or too eager for a treebank's sentence F1."""
    scores = {bias: dev_scores(weights.with_bias(bias), arrays, gold, words) for bias in SENTENCE_END_BIASES}
    bias = max(SENTENCE_END_BIASES, key=lambda b: (scores[b]["sentences"], -abs(b)))
    return weights.with_bias(bias), bias, scores[bias]


def train_weights(train: Sequence[Sentence], gold: GoldText, share: float, options: TokenizerOptions,
                   dev_gold: GoldText | None, dev_arrays, log: Callable[[str], None],
                   step: Callable[[], None], words: WordFeatures) -> tuple[BoundaryWeights, list[dict]]:
    """The averaged weights of the last iteration and every iteration's record (with dev, its dev
    scores). With ``share``, each iteration reads a text of its own in which that share of the
    sentences, drawn anew, have lost their final punctuation.

    The last iteration, not the best on dev: dev's few hundred sentences choose an iteration by
    chance as much as by merit (fr-sequoia test Sentences F1, five seeds, with word clusters read at
    every boundary: 88.53, from 87.96 to 88.99, against dev's choice 88.05, from 87.49 to 88.40;
    without clusters 86.61 against 86.49; en-ewt 88.88 against 89.16; docs/archive.md)."""
    weights = np.zeros((1 << options.buckets_log2, N_LABELS), np.float64)
    sums = np.zeros_like(weights)
    clock = np.zeros(1, np.int64)
    rng = np.random.default_rng(options.seed)
    averaged, history = None, []
    arrays = None if share else words.arrays(gold.text)  # with a share, each iteration's text is its own
    for iteration in range(1, options.iterations + 1):
        started = time.perf_counter()
        if share:
            gold = gold_text([(without_final_punctuation(s) if draw < share else None) or s
                              for s, draw in zip(train, rng.random(len(train)))])
            arrays = words.arrays(gold.text)
        blocks = [np.flatnonzero(gold.labels[start:end] >= 0) + start for start, end in gold.sentence_spans]
        order = np.concatenate([blocks[k] for k in rng.permutation(len(blocks))])
        mistakes = compiled().train_epoch(arrays.codes, arrays.lower, arrays.classes, arrays.chunk_start,
                                           arrays.chunk_end, arrays.clusters, gold.labels.astype(np.int64), order, weights,
                                           sums, clock, words.templates)
        averaged = BoundaryWeights.of_table((weights - sums / clock[0]).astype(np.float32))
        entry = {"iteration": iteration, "mistakes": int(mistakes), "seconds": round(time.perf_counter() - started, 2)}
        if dev_arrays is not None:
            entry["dev"] = dev_scores(averaged, dev_arrays, dev_gold, words)
        history.append(entry)
        log(f"tokenizer iteration {iteration}" + (f" ({share:g} without final punctuation)" if share else "") +
            f": {mistakes} mistakes" +
            (f", dev F1 token ends {entry['dev']['token_ends']:.2f}, sentences {entry['dev']['sentences']:.2f}"
             if "dev" in entry else ""))
        step()
    return averaged, history
