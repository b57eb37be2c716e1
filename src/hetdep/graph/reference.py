"""Eisner's algorithm in plain Python and NumPy: the specification :func:`hetdep.graph._eisner.eisner`
and :func:`hetdep.graph.eisner_arrays.eisner` (what a short or small run decodes by instead of
the compiled loop, :mod:`hetdep.short_runs`) are tested against, and their shared backtracking.

The same spans, the same order and the same ties (the first best split wins) as the compiled
loop, so the two give the same heads and the same score.
"""

from __future__ import annotations

import numpy as np

NEG = np.float64(-1e30)  # as hetdep.graph._eisner.NEG: a span nothing reaches (float64: sums stay float64)


def _first_best(values: np.ndarray, first: int) -> tuple[np.float64, int]:
    """The best value and its split (``first`` + its index; the first of equals), or NEG and
    ``first`` when none beats NEG, as the compiled loop's strict comparison leaves them."""
    k = int(np.argmax(values))
    return (values[k], first + k) if values[k] > NEG else (NEG, first)


def eisner(scores: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """Heads (index 1..n; 0 = root) of the best projective tree with one word on the root, and its
    score (``scores[h, m]``: the arc from h to m)."""
    complete = np.zeros((n + 2, n + 2, 2))
    incomplete = np.full((n + 2, n + 2, 2), NEG)
    complete_split = np.zeros((n + 2, n + 2, 2), dtype=np.int64)
    incomplete_split = np.zeros((n + 2, n + 2, 2), dtype=np.int64)
    for length in range(1, n):
        for s in range(1, n - length + 1):
            t = s + length
            best, split = _first_best(complete[s, s:t, 1] + complete[s + 1:t + 1, t, 0], s)
            incomplete[s, t, 0] = best + scores[t, s]
            incomplete[s, t, 1] = best + scores[s, t]
            incomplete_split[s, t] = split
            complete[s, t, 0], complete_split[s, t, 0] = _first_best(complete[s, s:t, 0] + incomplete[s:t, t, 0], s)
            complete[s, t, 1], complete_split[s, t, 1] = _first_best(
                incomplete[s, s + 1:t + 1, 1] + complete[s + 1:t + 1, t, 1], s + 1)
    totals = complete[1, 1:n + 1, 0] + complete[1:n + 1, n, 1] + scores[0, 1:n + 1]
    total, root = _first_best(totals, 1)
    return backtrack(complete_split, incomplete_split, root, n), float(total)


def backtrack(complete_split: np.ndarray, incomplete_split: np.ndarray, root: int, n: int) -> np.ndarray:
    """The heads of Eisner's best tree, from its splits (``[s, t, direction]``) and the word on the root."""
    heads = np.zeros(n + 1, dtype=np.int64)
    stack = [(1, root, 0, 1), (root, n, 1, 1)]  # (s, t, direction, complete), the last first
    while stack:
        s, t, d, is_complete = stack.pop()
        if s == t:
            continue
        if is_complete:
            r = int(complete_split[s, t, d])
            stack += [(s, r, 0, 1), (r, t, 0, 0)] if d == 0 else [(s, r, 1, 0), (r, t, 1, 1)]
        else:
            r = int(incomplete_split[s, t, d])
            if d == 0:
                heads[s] = t
            else:
                heads[t] = s
            stack += [(s, r, 1, 1), (r + 1, t, 0, 1)]
    return heads
