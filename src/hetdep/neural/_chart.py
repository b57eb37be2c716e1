"""CKY over span scores in whole-array steps, one per span length: :func:`hetdep.neural.phrases.best_spans`,
its plain-Python reference, tested equal (the same spans, labels, ties and score, bit for bit: the
same additions in the same order). NumPy rather than a compiled loop: a sentence of 25 words takes
about a millisecond (a tenth of the network's time for it) where the loop took microseconds, and a
phrase-structure parse then never loads numba, which costs about a second at a process's first
compiled call."""

from __future__ import annotations

import numpy as np

NEG = -1e30


def best_spans(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """As :func:`hetdep.neural.phrases.best_spans`: each span's split and label, and the tree's score."""
    starts, ends = np.triu_indices(n + 1, 1)
    cells = scores[starts, ends]
    label = np.zeros((n + 1, n + 1), dtype=np.int64)
    label[starts, ends] = cells.argmax(-1)
    value = np.full((n + 1, n + 1), NEG)
    value[starts, ends] = cells.max(-1)
    label[0, n] = int(np.argmax(scores[0, n, 1:])) + 1  # the whole sentence is a phrase, never empty
    value[0, n] = scores[0, n, label[0, n]]
    # by_start[i, m], by_end[j, m]: the best score of the span of length m from fencepost i, to fencepost j
    by_start, by_end = np.full((n + 1, n + 1), NEG), np.full((n + 1, n + 1), NEG)
    by_start[:n, 1] = by_end[1:, 1] = np.diagonal(value, 1)
    left_length = np.zeros((n + 1, n + 1), dtype=np.int64)  # of the best split, by start and length
    for length in range(2, n + 1):
        spans = n - length + 1
        sums = by_start[:spans, 1:length] + by_end[length:, length - 1:0:-1]  # left part of length 1, 2, ...
        k = sums.argmax(1)
        by_start[:spans, length] = by_end[length:, length] = np.diagonal(value, length) + sums.max(1)
        left_length[:spans, length] = k + 1
    starts, lengths = np.nonzero(left_length)
    split = np.zeros((n + 1, n + 1), dtype=np.int64)
    split[starts, starts + lengths] = starts + left_length[starts, lengths]
    return split, label, float(by_start[0, n])
