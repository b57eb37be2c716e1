"""Compiled k-best Eisner (Huang & Chiang 2005): the k best projective trees of arc scores.

Every chart item keeps its k best derivations, merged lazily from its splits with a heap;
ties break on the smaller key, so the lists are deterministic. The 1-best
algorithm and the arc features are in :mod:`hetdep.graph._eisner`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.graph._eisner import COMPLETE_LEFT, COMPLETE_RIGHT, INCOMPLETE, NEG, ROOT


@njit(cache=True, inline="always")
def _before(h_score, h_key, x, y):
    """Heap order: higher score first, then smaller (split, i, j) key (deterministic ties)."""
    return h_score[x] > h_score[y] or (h_score[x] == h_score[y] and h_key[x] < h_key[y])


@njit(cache=True, inline="always")
def _swap(h_score, h_key, h_part, x, y):
    h_score[x], h_score[y] = h_score[y], h_score[x]
    h_key[x], h_key[y] = h_key[y], h_key[x]
    for c in range(3):
        h_part[x, c], h_part[y, c] = h_part[y, c], h_part[x, c]


@njit(cache=True)
def _heap_push(h_score, h_key, h_part, size, score, split, i, j, k):
    h_score[size] = score
    h_key[size] = (split * (k + 1) + i) * (k + 1) + j
    h_part[size, 0], h_part[size, 1], h_part[size, 2] = split, i, j
    x = size
    while x > 0:
        parent = (x - 1) // 2
        if _before(h_score, h_key, x, parent):
            _swap(h_score, h_key, h_part, x, parent)
            x = parent
        else:
            break
    return size + 1


@njit(cache=True)
def _heap_pop(h_score, h_key, h_part, size):
    size -= 1
    _swap(h_score, h_key, h_part, 0, size)
    x = 0
    while True:
        left, right, best = 2 * x + 1, 2 * x + 2, x
        if left < size and _before(h_score, h_key, left, best):
            best = left
        if right < size and _before(h_score, h_key, right, best):
            best = right
        if best == x:
            return size
        _swap(h_score, h_key, h_part, x, best)
        x = best


@njit(cache=True, inline="always")
def _parts(mode, s, t, r, n):
    """Coordinates (left s, left t, right s, right t) of split r of an item (see eisner_kbest)."""
    if mode == INCOMPLETE:  # complete[s, r, 1] + complete[r + 1, t, 0]
        return s, r, r + 1, t
    if mode == COMPLETE_LEFT:  # complete[s, r, 0] + incomplete[r, t, 0]
        return s, r, r, t
    if mode == COMPLETE_RIGHT:  # incomplete[s, r, 1] + complete[r, t, 1]
        return s, r, r, t
    return 1, r, r, n  # ROOT, word r: complete[1, r, 0] + complete[r, n, 1]


@njit(cache=True)
def _merge(mode, s, t, n, first, last, left_score, left_count, left_d, right_score, right_count, right_d, base, root_arcs,
           k, h_score, h_key, h_part, scores, out_split, out_left, out_right):
    """The k best sums left + right + base over the splits first..last of an item, read straight
    from the chart (lazy, Huang & Chiang 2005 Algorithm 2): a heap starts with each split's best
    pair; popping (i, j) offers (i, j + 1), and (i + 1, 0) when j = 0, so every pair is offered
    once. Returns how many were kept."""
    size = 0
    for r in range(first, last + 1):
        ls, lt, rs, rt = _parts(mode, s, t, r, n)
        if left_count[ls, lt, left_d] and right_count[rs, rt, right_d]:
            arc = root_arcs[r] if mode == ROOT else base
            size = _heap_push(h_score, h_key, h_part, size,
                              left_score[ls, lt, left_d, 0] + right_score[rs, rt, right_d, 0] + arc, r, 0, 0, k)
    kept = 0
    while size and kept < k:
        scores[kept] = h_score[0]
        r, i, j = h_part[0, 0], h_part[0, 1], h_part[0, 2]
        out_split[kept], out_left[kept], out_right[kept] = r, i, j
        kept += 1
        size = _heap_pop(h_score, h_key, h_part, size)
        ls, lt, rs, rt = _parts(mode, s, t, r, n)
        arc = root_arcs[r] if mode == ROOT else base
        if j + 1 < right_count[rs, rt, right_d]:
            size = _heap_push(h_score, h_key, h_part, size,
                              left_score[ls, lt, left_d, i] + right_score[rs, rt, right_d, j + 1] + arc, r, i, j + 1, k)
        if j == 0 and i + 1 < left_count[ls, lt, left_d]:
            size = _heap_push(h_score, h_key, h_part, size,
                              left_score[ls, lt, left_d, i + 1] + right_score[rs, rt, right_d, 0] + arc, r, i + 1, 0, k)
    return kept


@njit(cache=True, nogil=True)
def eisner_kbest(scores, n, k):
    """The k best projective trees with one word on the root (Huang & Chiang 2005, Algorithm 1 on
    Eisner's hypergraph, items merged as in their Algorithm 2): heads (k', n+1) and scores (k'), best first, k' <= k trees.

    Every chart item keeps its k best derivations, merged lazily from its splits (:func:`_merge`).
    """
    size = n + 2
    c_score = np.full((size, size, 2, k), NEG, dtype=np.float64)
    c_count = np.zeros((size, size, 2), dtype=np.int64)
    c_split = np.zeros((size, size, 2, k), dtype=np.int64)
    c_left = np.zeros((size, size, 2, k), dtype=np.int64)
    c_right = np.zeros((size, size, 2, k), dtype=np.int64)
    i_score = np.full((size, size, 2, k), NEG, dtype=np.float64)
    i_count = np.zeros((size, size, 2), dtype=np.int64)
    i_split = np.zeros((size, size, 2, k), dtype=np.int64)
    i_left = np.zeros((size, size, 2, k), dtype=np.int64)
    i_right = np.zeros((size, size, 2, k), dtype=np.int64)
    for s in range(1, n + 1):
        for d in range(2):
            c_score[s, s, d, 0] = 0.0
            c_count[s, s, d] = 1
    h_score = np.zeros(n + 2 * k + 2, dtype=np.float64)
    h_key = np.zeros(n + 2 * k + 2, dtype=np.int64)
    h_part = np.zeros((n + 2 * k + 2, 3), dtype=np.int64)
    root_arcs = scores[0].copy()
    for length in range(1, n):
        for s in range(1, n - length + 1):
            t = s + length
            for d in range(2):
                arc = scores[t, s] if d == 0 else scores[s, t]
                i_count[s, t, d] = _merge(INCOMPLETE, s, t, n, s, t - 1, c_score, c_count, 1, c_score, c_count, 0, arc,
                                          root_arcs, k, h_score, h_key, h_part,
                                          i_score[s, t, d], i_split[s, t, d], i_left[s, t, d], i_right[s, t, d])
            c_count[s, t, 0] = _merge(COMPLETE_LEFT, s, t, n, s, t - 1, c_score, c_count, 0, i_score, i_count, 0, 0.0,
                                      root_arcs, k, h_score, h_key, h_part,
                                      c_score[s, t, 0], c_split[s, t, 0], c_left[s, t, 0], c_right[s, t, 0])
            c_count[s, t, 1] = _merge(COMPLETE_RIGHT, s, t, n, s + 1, t, i_score, i_count, 1, c_score, c_count, 1, 0.0,
                                      root_arcs, k, h_score, h_key, h_part,
                                      c_score[s, t, 1], c_split[s, t, 1], c_left[s, t, 1], c_right[s, t, 1])
    top_score = np.zeros(k, dtype=np.float64)
    top_root = np.zeros(k, dtype=np.int64)
    top_left = np.zeros(k, dtype=np.int64)
    top_right = np.zeros(k, dtype=np.int64)
    found = _merge(ROOT, 1, n, n, 1, n, c_score, c_count, 0, c_score, c_count, 1, 0.0, root_arcs, k, h_score, h_key, h_part,
                   top_score, top_root, top_left, top_right)
    heads = np.zeros((found, n + 1), dtype=np.int64)
    stack = np.zeros((4 * n + 4, 5), dtype=np.int64)
    for x in range(found):
        root = top_root[x]
        top = _push5(stack, 0, 1, root, 0, 1, top_left[x])
        top = _push5(stack, top, root, n, 1, 1, top_right[x])
        while top > 0:
            top -= 1
            s, t, d, is_complete, y = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4]
            if s == t:
                continue
            if is_complete:
                r, a, b = c_split[s, t, d, y], c_left[s, t, d, y], c_right[s, t, d, y]
                if d == 0:
                    top = _push5(stack, top, s, r, 0, 1, a)
                    top = _push5(stack, top, r, t, 0, 0, b)
                else:
                    top = _push5(stack, top, s, r, 1, 0, a)
                    top = _push5(stack, top, r, t, 1, 1, b)
            else:
                r, a, b = i_split[s, t, d, y], i_left[s, t, d, y], i_right[s, t, d, y]
                if d == 0:
                    heads[x, s] = t
                else:
                    heads[x, t] = s
                top = _push5(stack, top, s, r, 1, 1, a)
                top = _push5(stack, top, r + 1, t, 0, 1, b)
    return heads, top_score[:found]


@njit(cache=True, inline="always")
def _push5(stack, top, s, t, direction, is_complete, index):
    stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4] = s, t, direction, is_complete, index
    return top + 1
