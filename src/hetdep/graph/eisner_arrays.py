"""Eisner's algorithm in whole-array steps, one per span length: :func:`hetdep.graph.reference.eisner`
(and its compiled twin :func:`hetdep.graph._eisner.eisner`) bit for bit, tested equal: the same
additions in the same order, the first of equal splits. A sentence takes about a millisecond where
the compiled loop takes microseconds, but it needs no numba, whose import and first call cost
about a second: the neural parser decodes a short run and a small whole input of ``hetdep parse``
this way while numba is not loaded (:func:`hetdep.neural.parser._decoder`).

Each table is kept twice, by the first word of its spans and by the last, with the span length
as the second index, so that every split of every span of one length is one slice of each.
"""

from __future__ import annotations

import numpy as np

from hetdep.graph.reference import NEG, backtrack


def _first_best(values: np.ndarray, first: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the best value and ``first`` + its index (the first of equals), or NEG and ``first``
    where none beats NEG, as the compiled loop's strict comparison leaves them."""
    k, best = values.argmax(1), values.max(1)
    beats = best > NEG
    if beats.all():  # always, for finite scores
        return best, first + k
    return np.where(beats, best, NEG), np.where(beats, first + k, first)


def eisner(scores: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """Heads (index 1..n; 0 = root) of the best projective tree with one word on the root, and its
    score (``scores[h, m]``: the arc from h to m)."""
    size = n + 1
    # [d][s, length] by first word s, [d][t, length] by last word t; d = 0: headed by the last word, 1: by the first
    complete = [np.zeros((size, size)) for _ in range(2)], [np.zeros((size, size)) for _ in range(2)]
    incomplete = [np.full((size, size), NEG) for _ in range(2)], [np.full((size, size), NEG) for _ in range(2)]
    incomplete_split = np.zeros((size, size), dtype=np.int64)  # by first word and length
    complete_split = [np.zeros((size, size), dtype=np.int64) for _ in range(2)]
    by_start, by_end = 0, 1
    for length in range(1, n):
        starts = np.arange(1, n - length + 1)
        s, t = slice(1, n - length + 1), slice(1 + length, n + 1)
        best, split = _first_best(complete[by_start][1][s, :length] + complete[by_end][0][t, length - 1::-1], starts)
        left, right = best + scores[starts + length, starts], best + scores[starts, starts + length]
        for d, value in ((0, left), (1, right)):
            incomplete[by_start][d][s, length] = incomplete[by_end][d][t, length] = value
        incomplete_split[s, length] = split
        best, split = _first_best(complete[by_start][0][s, :length] + incomplete[by_end][0][t, length:0:-1], starts)
        complete[by_start][0][s, length] = complete[by_end][0][t, length] = best
        complete_split[0][s, length] = split
        best, split = _first_best(incomplete[by_start][1][s, 1:length + 1] + complete[by_end][1][t, length - 1::-1],
                                  starts + 1)
        complete[by_start][1][s, length] = complete[by_end][1][t, length] = best
        complete_split[1][s, length] = split
    totals = complete[by_start][0][1, :n] + complete[by_end][1][n, n - 1::-1] + scores[0, 1:n + 1]
    total, root = _first_best(totals[None, :], 1)
    spans = np.nonzero(np.add.outer(np.arange(size), np.arange(size)) <= n)  # (first word, length) of every span
    spans = tuple(k[(spans[0] >= 1) & (spans[1] >= 1)] for k in spans)
    ends = spans[0] + spans[1]
    splits = np.zeros((n + 2, n + 2, 2), dtype=np.int64), np.zeros((n + 2, n + 2, 2), dtype=np.int64)
    for d in range(2):
        splits[0][spans[0], ends, d] = complete_split[d][spans]
        splits[1][spans[0], ends, d] = incomplete_split[spans]
    return backtrack(splits[0], splits[1], int(root[0]), n), float(total[0])
