"""Labeled bracket scoring of constituency trees, as EVALB does with its ``COLLINS.prm``.

Per sentence, both trees are cleaned (``hetdep.treebank.ptb.clean``: empty elements and function
tags removed); then words whose *gold* tag is a punctuation tag (``, : `` '' .``) are deleted
from both, and every phrase (not the words' tags, not ``TOP``) gives one bracket: its label and
the span of remaining words it covers. ``PRT`` counts as ``ADVP``. A bracket that covers no
remaining word is dropped. Brackets match one to one (a multiset intersection), so a unary
``NP`` over an ``NP`` needs both. Scores: labeled precision, recall and F1 over all brackets of
the corpus, complete match (a sentence whose brackets all match, both ways), and tagging accuracy
over the remaining words. ``max_length`` keeps only sentences of at most that many words
(counted before deleting punctuation, as EVALB's ``CUTOFF_LEN``).

The two files must hold the same words in the same order: a difference is an error naming both
trees' lines (EVALB skips such a sentence; here nothing is silently left out).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from hetdep.errors import InputError, MismatchError
from hetdep.treebank.ptb import Node, Tree, clean

DELETED_TAGS = frozenset({",", ":", "``", "''", "."})
EQUAL_LABELS = {"PRT": "ADVP"}
IGNORED_LABELS = frozenset({"TOP", "ROOT", ""})


@dataclass
class BracketScores:
    sentences: int
    gold_brackets: int
    test_brackets: int
    matched: int
    complete: int
    tagged: int
    tags_right: int

    @property
    def precision(self) -> float:
        return 100.0 * self.matched / self.test_brackets if self.test_brackets else 0.0

    @property
    def recall(self) -> float:
        return 100.0 * self.matched / self.gold_brackets if self.gold_brackets else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def complete_match(self) -> float:
        return 100.0 * self.complete / self.sentences if self.sentences else 0.0

    @property
    def tagging_accuracy(self) -> float:
        return 100.0 * self.tags_right / self.tagged if self.tagged else 0.0

    def as_dict(self) -> dict:
        return {"sentences": self.sentences, "LP": round(self.precision, 2), "LR": round(self.recall, 2),
                "F1": round(self.f1, 2), "complete_match": round(self.complete_match, 2),
                "tagging_accuracy": round(self.tagging_accuracy, 2), "gold_brackets": self.gold_brackets,
                "test_brackets": self.test_brackets, "matched_brackets": self.matched}


def brackets(root: Node, deleted: list[bool]) -> Counter:
    """The multiset of (label, start, end) brackets of a cleaned tree, words flagged in
    ``deleted`` left out of the spans."""
    found: Counter = Counter()
    position = [0, 0]  # [words seen, words kept]

    def visit(node: Node) -> tuple[int, int]:
        if node.is_leaf:
            kept = not deleted[position[0]]
            position[0] += 1
            position[1] += kept
            return position[1] - kept, position[1]
        spans = [visit(child) for child in node.children]
        start, end = spans[0][0], spans[-1][1]
        if end > start and node.label not in IGNORED_LABELS:
            found[EQUAL_LABELS.get(node.label, node.label), start, end] += 1
        return start, end

    visit(root)
    return found


def _cleaned(tree: Tree) -> Node:
    root = clean(tree.root)
    if root is None:
        raise InputError(tree.path, tree.line, "tree has no words once empty elements (-NONE-) are removed")
    return root


def score(gold_trees: Iterable[Tree], test_trees: Iterable[Tree], max_length: int | None = None) -> BracketScores:
    """EVALB's scores of ``test_trees`` against ``gold_trees`` (see the module docstring)."""
    totals = BracketScores(0, 0, 0, 0, 0, 0, 0)
    gold_iter, test_iter = iter(gold_trees), iter(test_trees)
    while True:
        gold, test = next(gold_iter, None), next(test_iter, None)
        if gold is None or test is None:
            if gold is not test:
                extra = gold or test
                raise MismatchError(extra.path, extra.line, "the other file has no tree for this one: the two files "
                                    "hold different numbers of trees")
            return totals
        gold_root, test_root = _cleaned(gold), _cleaned(test)
        gold_words, test_words = gold_root.leaves(), test_root.leaves()
        if [w.word for w in gold_words] != [w.word for w in test_words]:
            raise MismatchError(test.path, test.line, f"this tree's words differ from the gold tree's at "
                                f"{gold.describe()}: {_first_difference(gold_words, test_words)}")
        if max_length is not None and len(gold_words) > max_length:
            continue
        deleted = [word.label in DELETED_TAGS for word in gold_words]
        gold_brackets, test_brackets = brackets(gold_root, deleted), brackets(test_root, deleted)
        matched = sum((gold_brackets & test_brackets).values())
        totals.sentences += 1
        totals.gold_brackets += sum(gold_brackets.values())
        totals.test_brackets += sum(test_brackets.values())
        totals.matched += matched
        totals.complete += gold_brackets == test_brackets
        kept = [(g.label, t.label) for g, t, gone in zip(gold_words, test_words, deleted) if not gone]
        totals.tagged += len(kept)
        totals.tags_right += sum(g == t for g, t in kept)


def _first_difference(gold: list[Node], test: list[Node]) -> str:
    for k, (g, t) in enumerate(zip(gold, test), 1):
        if g.word != t.word:
            return f"word {k} is {t.word!r} here, {g.word!r} there"
    return f"{len(test)} words here, {len(gold)} there"
