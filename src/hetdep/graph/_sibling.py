"""Compiled hot path of the second-order graph-based parser (dep2): adjacent-sibling parts.

McDonald & Pereira (2006): a tree's score adds, to its arcs' scores (the first-order
features of :mod:`hetdep.graph._eisner`, which also choose the labels), a score for each head h
and pair of adjacent modifiers on the same side, the closer s and the next one out m (s is
"none" for the closest). Sibling features are unlabeled: weight column ``sibling_column``.
The decoder, which also scores grandparents, is :func:`hetdep.graph._grandparent.decode`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.graph._eisner import BOUNDARY, _key, add_domain_copies
from hetdep.learn import _weights

N_SIBLING_KEYS = 6
MAX_SIBLING_KEYS = 2 * N_SIBLING_KEYS  # with domain copies (see hetdep.graph._eisner)


@njit(cache=True, inline="always")
def sibling_keys(words, tags, h, s, m, domain, out):
    """Keys of head h with adjacent modifiers s (closer; 0 = none) and m on the same side; returns how many."""
    direction = 1 if h < m else 0
    sp = tags[s] if s else BOUNDARY
    sw = words[s] if s else BOUNDARY
    hp, mp, mw = tags[h], tags[m], words[m]
    out[0] = _key(40, hp, sp, mp, 0, direction)
    out[1] = _key(41, sp, mp, 0, 0, direction)
    out[2] = _key(42, sw, mw, 0, 0, direction)
    out[3] = _key(43, sw, mp, 0, 0, direction)
    out[4] = _key(44, sp, mw, 0, 0, direction)
    out[5] = _key(45, hp, sp, mp, 0, direction * 8 + min(abs(h - m), 7))
    return add_domain_copies(out, N_SIBLING_KEYS, domain)


@njit(cache=True, nogil=True)
def sibling_scores(words, tags, n, table, rows, column, domain):
    """score[h, s, m] for every head h, modifier m and closer sibling s (0: none) on m's side."""
    scores = np.zeros((n + 1, n + 1, n + 1), dtype=np.float64)
    keys = np.zeros(MAX_SIBLING_KEYS, dtype=np.uint64)
    acc = np.zeros(column + 1, dtype=np.float32)
    for h in range(1, n + 1):
        for m in range(1, n + 1):
            if m == h:
                continue
            low, high = (h + 1, m) if h < m else (m + 1, h)
            for index in range(low - 1, high):  # low - 1 stands for "no closer sibling"
                s = 0 if index == low - 1 else index
                count = sibling_keys(words, tags, h, s, m, domain, keys)
                acc[column] = 0.0
                for t in range(count):
                    payload = _weights.lookup(table, keys[t])
                    if payload:
                        _weights.add_scores(payload, rows, acc, True, -1)
                scores[h, s, m] = acc[column]
    return scores


@njit(cache=True)
def siblings_of(heads, n, out):
    """For each word m, its closer adjacent sibling on the same side of its head (0: none; root's child: 0)."""
    for m in range(1, n + 1):
        out[m] = 0
        h = heads[m]
        if h == 0:
            continue
        step = -1 if m > h else 1  # walk from m back towards h
        r = m + step
        while r != h:
            if heads[r] == h:
                out[m] = r
                break
            r += step


@njit(cache=True)
def update(words, tags, n, domain, gold_heads, heads, table, n_used, rows, sums, counts, counter, column):
    """Perceptron update of the sibling parts: gold +1, predicted -1 (equal parts cancel)."""
    gold_siblings = np.zeros(n + 1, dtype=np.int64)
    siblings = np.zeros(n + 1, dtype=np.int64)
    siblings_of(gold_heads, n, gold_siblings)
    siblings_of(heads, n, siblings)
    keys = np.zeros(MAX_SIBLING_KEYS, dtype=np.uint64)
    c = np.float32(counter)
    for m in range(1, n + 1):
        if gold_heads[m] == heads[m] and gold_siblings[m] == siblings[m]:
            continue
        for side in range(2):
            h = gold_heads[m] if side == 0 else heads[m]
            if h == 0:
                continue
            s = gold_siblings[m] if side == 0 else siblings[m]
            count = sibling_keys(words, tags, h, s, m, domain, keys)
            delta = np.float32(1.0) if side == 0 else np.float32(-1.0)
            for t in range(count):
                slot = _weights.insert(table, n_used, keys[t])
                _weights.add(table, slot, rows, sums, counts, column, delta, c)
