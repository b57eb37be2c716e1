"""Evaluation of predicted trees against gold trees, with the papers' analyses.

Scores are over syntactic words. Punctuation is excluded by default, decided on the gold
side: ``upos`` (gold UPOS is PUNCT), ``form`` (the CoNLL-X convention: the form is made of
punctuation characters only) or ``none`` (score every word).

All counts are kept per sentence, so that sentence-level comparisons and significance tests
(see :mod:`hetdep.evaluation.significance`) work from the same numbers as the corpus scores.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from hetdep.errors import InputError, MismatchError
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.pairs import check_same_words

PUNCT_POLICIES = ("upos", "form", "none")
DISTANCE_BUCKETS = ("root", "1", "2", "3", "4", "5", "6", "7+")


def is_punct_form(form: str) -> bool:
    """The CoNLL-X eval.pl convention: every character is a Unicode punctuation character."""
    return bool(form) and all(unicodedata.category(ch).startswith("P") for ch in form)


def scored_mask(gold: Sentence, punct: str) -> list[bool]:
    """Which words count, under a punctuation policy."""
    if punct == "none":
        return [True] * len(gold)
    if punct == "upos":
        return [tag != "PUNCT" for tag in gold.upos]
    if punct == "form":
        return [not is_punct_form(form) for form in gold.forms]
    raise ValueError(f"unknown punctuation policy {punct!r}; choose from {PUNCT_POLICIES}")


def base_label(label: str) -> str:
    """The universal part of a relation, before any colon (``obl:mod`` -> ``obl``)."""
    return label.split(":", 1)[0]


def distance_bucket(head: int, dependent: int) -> str:
    if head == 0:
        return "root"
    distance = abs(head - dependent)
    return str(distance) if distance < 7 else "7+"


@dataclass
class SentenceCounts:
    """Per-sentence counts: scored words, correct heads, correct heads and labels."""

    words: np.ndarray
    heads: np.ndarray
    labeled: np.ndarray


@dataclass
class Evaluation:
    """The result of scoring one prediction file against one gold file."""

    punct: str
    base_labels: bool
    counts: SentenceCounts
    label_gold: Counter = field(default_factory=Counter)
    label_pred: Counter = field(default_factory=Counter)
    label_correct: Counter = field(default_factory=Counter)
    distance_gold: Counter = field(default_factory=Counter)
    distance_pred: Counter = field(default_factory=Counter)
    distance_correct: Counter = field(default_factory=Counter)
    shared: dict | None = None

    @property
    def words(self) -> int:
        return int(self.counts.words.sum())

    @property
    def sentences(self) -> int:
        return len(self.counts.words)

    def _pct(self, value) -> float:
        return 100.0 * float(value) / self.words if self.words else 0.0

    @property
    def uas(self) -> float:
        return self._pct(self.counts.heads.sum())

    @property
    def las(self) -> float:
        return self._pct(self.counts.labeled.sum())

    @property
    def cm(self) -> float:
        """Unlabeled complete match: sentences whose every scored word has the right head."""
        c = self.counts
        return 100.0 * float(np.mean(c.heads == c.words)) if self.sentences else 0.0

    @property
    def lcm(self) -> float:
        c = self.counts
        return 100.0 * float(np.mean(c.labeled == c.words)) if self.sentences else 0.0

    def per_label(self) -> dict[str, dict[str, float]]:
        """Precision, recall and F1 (labeled attachment) for each gold or predicted label."""
        return {
            label: _prf(self.label_correct[label], self.label_pred[label], self.label_gold[label])
            for label in sorted(set(self.label_gold) | set(self.label_pred))
        }

    def by_distance(self) -> dict[str, dict[str, float]]:
        """Unlabeled precision, recall and F1 by arc length (zhang2014 Figure 3)."""
        return {
            bucket: _prf(self.distance_correct[bucket], self.distance_pred[bucket], self.distance_gold[bucket])
            for bucket in DISTANCE_BUCKETS
        }

    def summary(self) -> dict:
        result = {
            "UAS": round(self.uas, 4),
            "LAS": round(self.las, 4),
            "CM": round(self.cm, 4),
            "LCM": round(self.lcm, 4),
            "words": self.words,
            "sentences": self.sentences,
            "punct": self.punct,
            "base_labels": self.base_labels,
        }
        return result


def _prf(correct: int, predicted: int, gold: int) -> dict[str, float]:
    precision = 100.0 * correct / predicted if predicted else 0.0
    recall = 100.0 * correct / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4), "gold": gold, "predicted": predicted}


def evaluate(
    gold: Iterable[Sentence],
    pred: Iterable[Sentence],
    *,
    punct: str = "upos",
    base_labels: bool = False,
    other_gold: Iterable[Sentence] | None = None,
) -> Evaluation:
    """Score ``pred`` against ``gold`` (same sentences, same forms, same order).

    ``other_gold``, the same sentences in another scheme, adds the zhang2014 Table 5 split:
    accuracy on words whose gold head is the same in both schemes and on the others.
    """
    if punct not in PUNCT_POLICIES:
        raise ValueError(f"unknown punctuation policy {punct!r}; choose from {PUNCT_POLICIES}")
    label = base_label if base_labels else (lambda value: value)
    counts: tuple[list[int], list[int], list[int]] = ([], [], [])  # per sentence: words, correct heads, correct labeled
    result = Evaluation(punct, base_labels, SentenceCounts(*(np.zeros(0, dtype=np.int64) for _ in range(3))))
    shared = {True: [0, 0, 0], False: [0, 0, 0]}  # words, correct heads, correct labeled
    with_other = other_gold is not None
    for g, p, o in _aligned(gold, pred, other_gold):
        if any(h < 0 for h in p.heads):
            k = next(k for k, h in enumerate(p.heads) if h < 0)
            raise InputError(p.path, p.word_line(k), "prediction has no HEAD ('_') for this word")
        mask = scored_mask(g, punct)
        g_labels = [label(x) for x in g.deprels]
        p_labels = [label(x) for x in p.deprels]
        o_heads = o.heads if with_other else None
        words = heads_ok = labeled_ok = 0
        for k, scored in enumerate(mask):
            if not scored:
                continue
            gh, ph, gl, pl = g.heads[k], p.heads[k], g_labels[k], p_labels[k]
            head_ok = gh == ph
            both_ok = head_ok and gl == pl
            words += 1
            heads_ok += head_ok
            labeled_ok += both_ok
            result.label_gold[gl] += 1
            result.label_pred[pl] += 1
            result.label_correct[gl] += both_ok
            result.distance_gold[distance_bucket(gh, k + 1)] += 1
            result.distance_pred[distance_bucket(ph, k + 1)] += 1
            result.distance_correct[distance_bucket(gh, k + 1)] += head_ok
            if o_heads is not None:
                cell = shared[o_heads[k] == gh]
                cell[0] += 1
                cell[1] += head_ok
                cell[2] += both_ok
        for column, value in zip(counts, (words, heads_ok, labeled_ok)):
            column.append(value)
    result.counts = SentenceCounts(*(np.array(column, dtype=np.int64) for column in counts))
    if with_other:
        result.shared = {
            name: {
                "words": cell[0],
                "UAS": round(100.0 * cell[1] / cell[0], 4) if cell[0] else 0.0,
                "LAS": round(100.0 * cell[2] / cell[0], 4) if cell[0] else 0.0,
            }
            for name, cell in (("shared", shared[True]), ("different", shared[False]))
        }
    return result


def _aligned(gold: Iterable[Sentence], pred: Iterable[Sentence], other: Iterable[Sentence] | None):
    """(gold, predicted, other-scheme gold or None) triples, streamed, so that no file is held whole;
    files that are not the same sentences are refused, naming the first difference."""
    gold, pred = iter(gold), iter(pred)
    other = iter(other) if other is not None else None
    count = 0
    for g in gold:
        p = next(pred, None)
        o = next(other, None) if other is not None else None
        for name, partner in (("predicted", p), ("other-scheme", o if other is not None else g)):
            if partner is None:  # the gold file is longer
                total = count + 1 + sum(1 for _ in gold)
                raise MismatchError(g.path, g.line, f"{count} {name} sentences for {total} gold sentences; "
                                 "the first unmatched one starts here")
        check_same_words(g, p)
        if other is not None:
            check_same_words(g, o)
        count += 1
        yield g, p, o
    for name, stream in (("predicted", pred), ("other-scheme", other)):
        extra = next(stream, None) if stream is not None else None
        if extra is not None:  # this file is longer than the gold file
            total = count + 1 + sum(1 for _ in stream)
            raise MismatchError(extra.path, extra.line, f"{total} {name} sentences for {count} gold sentences; "
                             "the first unmatched one starts here")


def compare_sentences(a: Evaluation, b: Evaluation) -> dict[str, int]:
    """Sentences where system a has more, as many, or fewer correct heads than b (zhou-zhao2013 Table 4)."""
    if a.sentences != b.sentences:
        raise ValueError("the two evaluations cover different numbers of sentences")
    diff = a.counts.heads - b.counts.heads
    return {"better": int((diff > 0).sum()), "unchanged": int((diff == 0).sum()), "worse": int((diff < 0).sum())}
