"""Compiled CKY over span scores: :func:`hetdep.neural.phrases.best_spans`, its plain-Python
reference, tested equal (the same spans, labels, ties and score)."""

from __future__ import annotations

import numpy as np
from numba import njit

NEG = -1e30


@njit(cache=True)
def best_spans(scores: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    value = np.full((n + 1, n + 1), NEG)
    label = np.zeros((n + 1, n + 1), dtype=np.int64)
    labels = scores.shape[2]
    for i in range(n):
        for j in range(i + 1, n + 1):
            first = 1 if i == 0 and j == n else 0
            best, chosen = scores[i, j, first], first
            for k in range(first + 1, labels):
                if scores[i, j, k] > best:
                    best, chosen = scores[i, j, k], k
            value[i, j], label[i, j] = best, chosen
    chart = np.full((n + 1, n + 1), NEG)
    split = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(n):
        chart[i, i + 1] = value[i, i + 1]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length
            best, chosen = chart[i, i + 1] + chart[i + 1, j], i + 1
            for k in range(i + 2, j):
                total = chart[i, k] + chart[k, j]
                if total > best:
                    best, chosen = total, k
            chart[i, j], split[i, j] = value[i, j] + best, chosen
    return split, label, chart[0, n]
