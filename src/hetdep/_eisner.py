"""Compiled hot path of the first-order graph-based parser (dep1): arc features, scores, Eisner.

Arc features follow McDonald, Crammer & Pereira (2005): words and tags of head and modifier
alone and combined, the tags around them, and each distinct tag between them, every one
conjoined with the arc's direction and binned length (the core ones also with the direction
alone). Words and tags are vocabulary ids with position 0 the root.

Labels are chosen inside the decoder: an arc's score is its best label's score (first-order
factorisation makes this exact), so Eisner's algorithm runs on one score per arc. Trees have
exactly one word on the root, as UD requires: the root's child is chosen last, over the two
complete spans it heads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _weights
from .features import MULTIPLIER, SEED

BOUNDARY = 1 << 40  # the tag before the root / after the last word
N_CORE = 17  # templates emitted with (direction, length) and with direction alone
MAX_KEYS = 2 * N_CORE + 64  # + in-between tags (distinct, at most 64 kept)

_SEED = np.uint64(SEED)
_MULT = np.uint64(MULTIPLIER)
_SHIFT = np.uint64(29)
NEG = -1e30


@njit(cache=True, inline="always")
def _mix(h, value):
    h = (h ^ np.uint64(value)) * _MULT
    return h ^ (h >> _SHIFT)


@njit(cache=True, inline="always")
def _key(template, a, b, c, d, context):
    h = np.uint64(3000 + template) * _SEED
    h = _mix(_mix(_mix(_mix(_mix(h, a), b), c), d), context)
    return h if h != 0 else np.uint64(1)


@njit(cache=True, inline="always")
def length_bin(distance):
    return distance if distance <= 5 else (6 if distance <= 10 else 7)


@njit(cache=True)
def arc_keys(words, tags, n, h, m, out):
    """Feature keys of the arc h -> m (0 <= h <= n, 1 <= m <= n); returns how many."""
    direction = 1 if h < m else 0
    full = direction * 8 + length_bin(abs(h - m)) + 1
    short = 100 + direction
    hw, hp, mw, mp = words[h], tags[h], words[m], tags[m]
    hp_prev = tags[h - 1] if h >= 1 else BOUNDARY
    hp_next = tags[h + 1] if h + 1 <= n else BOUNDARY
    mp_prev = tags[m - 1] if m - 1 >= 0 else BOUNDARY
    mp_next = tags[m + 1] if m + 1 <= n else BOUNDARY
    k = 0
    for context in (full, short):
        out[k] = _key(1, hw, hp, 0, 0, context)
        out[k + 1] = _key(2, hw, 0, 0, 0, context)
        out[k + 2] = _key(3, hp, 0, 0, 0, context)
        out[k + 3] = _key(4, mw, mp, 0, 0, context)
        out[k + 4] = _key(5, mw, 0, 0, 0, context)
        out[k + 5] = _key(6, mp, 0, 0, 0, context)
        out[k + 6] = _key(7, hw, hp, mw, mp, context)
        out[k + 7] = _key(8, hp, mw, mp, 0, context)
        out[k + 8] = _key(9, hw, mw, mp, 0, context)
        out[k + 9] = _key(10, hw, hp, mp, 0, context)
        out[k + 10] = _key(11, hw, hp, mw, 0, context)
        out[k + 11] = _key(12, hw, mw, 0, 0, context)
        out[k + 12] = _key(13, hp, mp, 0, 0, context)
        out[k + 13] = _key(14, hp, hp_next, mp_prev, mp, context)
        out[k + 14] = _key(15, hp_prev, hp, mp_prev, mp, context)
        out[k + 15] = _key(16, hp, hp_next, mp, mp_next, context)
        out[k + 16] = _key(17, hp_prev, hp, mp, mp_next, context)
        k += N_CORE
    low, high = min(h, m), max(h, m)
    for b in range(low + 1, high):
        if k == MAX_KEYS:
            break
        seen = False
        for earlier in range(low + 1, b):
            if tags[earlier] == tags[b]:
                seen = True
                break
        if not seen:
            out[k] = _key(18, hp, tags[b], mp, 0, full)
            k += 1
    return k


@njit(cache=True)
def arc_scores(words, tags, n, table, rows, n_labels):
    """Best label score and best label of every arc h -> m: (n+1, n+1) each (NEG where no arc)."""
    best = np.full((n + 1, n + 1), NEG, dtype=np.float64)
    label = np.zeros((n + 1, n + 1), dtype=np.int64)
    keys = np.zeros(MAX_KEYS, dtype=np.uint64)
    acc = np.zeros(n_labels + 2, dtype=np.float32)  # labels are columns 2.. (see _weights.add_scores)
    for h in range(n + 1):
        for m in range(1, n + 1):
            if h == m:
                continue
            count = arc_keys(words, tags, n, h, m, keys)
            acc[:] = 0.0
            for t in range(count):
                _weights.add_scores(_weights.lookup(table, keys[t]), rows, acc, True, -1)
            top = 2
            for c in range(3, n_labels + 2):
                if acc[c] > acc[top]:
                    top = c
            best[h, m] = acc[top]
            label[h, m] = top - 2
    return best, label


@njit(cache=True, inline="always")
def _push(stack, top, s, t, direction, is_complete):
    stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = s, t, direction, is_complete
    return top + 1


@njit(cache=True)
def eisner(scores, n):
    """Heads (index 1..n; 0 = root) of the best projective tree with one word on the root, and its score."""
    # complete[s, t, 0]: span s..t headed by t; complete[s, t, 1]: headed by s; same for incomplete.
    complete = np.zeros((n + 2, n + 2, 2), dtype=np.float64)
    incomplete = np.full((n + 2, n + 2, 2), NEG, dtype=np.float64)
    complete_split = np.zeros((n + 2, n + 2, 2), dtype=np.int64)
    incomplete_split = np.zeros((n + 2, n + 2, 2), dtype=np.int64)
    for length in range(1, n):
        for s in range(1, n - length + 1):
            t = s + length
            best, split = NEG, s
            for r in range(s, t):
                value = complete[s, r, 1] + complete[r + 1, t, 0]
                if value > best:
                    best, split = value, r
            incomplete[s, t, 0] = best + scores[t, s]
            incomplete[s, t, 1] = best + scores[s, t]
            incomplete_split[s, t, 0] = split
            incomplete_split[s, t, 1] = split
            best, split = NEG, s
            for r in range(s, t):
                value = complete[s, r, 0] + incomplete[r, t, 0]
                if value > best:
                    best, split = value, r
            complete[s, t, 0] = best
            complete_split[s, t, 0] = split
            best, split = NEG, s + 1
            for r in range(s + 1, t + 1):
                value = incomplete[s, r, 1] + complete[r, t, 1]
                if value > best:
                    best, split = value, r
            complete[s, t, 1] = best
            complete_split[s, t, 1] = split
    heads = np.zeros(n + 1, dtype=np.int64)
    root, total = 1, NEG
    for m in range(1, n + 1):
        value = complete[1, m, 0] + complete[m, n, 1] + scores[0, m]
        if value > total:
            root, total = m, value
    heads[root] = 0
    # Backtrack with an explicit stack of spans (s, t, direction, is_complete).
    stack = np.zeros((4 * n + 4, 4), dtype=np.int64)
    top = _push(stack, 0, 1, root, 0, 1)
    top = _push(stack, top, root, n, 1, 1)
    while top > 0:
        top -= 1
        s, t, d, is_complete = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if s == t:
            continue
        if is_complete:
            r = complete_split[s, t, d]
            if d == 0:
                top = _push(stack, top, s, r, 0, 1)
                top = _push(stack, top, r, t, 0, 0)
            else:
                top = _push(stack, top, s, r, 1, 0)
                top = _push(stack, top, r, t, 1, 1)
        else:
            r = incomplete_split[s, t, d]
            if d == 0:
                heads[s] = t
            else:
                heads[t] = s
            top = _push(stack, top, s, r, 1, 1)
            top = _push(stack, top, r + 1, t, 0, 1)
    return heads, total


@njit(cache=True)
def update(words, tags, n, gold_heads, gold_labels, heads, labels, table, n_used, rows, sums, counts, counter):
    """Perceptron update: gold arcs' features +1 for their labels, predicted arcs' -1 (equal arcs cancel)."""
    keys = np.zeros(MAX_KEYS, dtype=np.uint64)
    c = np.float32(counter)
    changed = 0
    for m in range(1, n + 1):
        if gold_heads[m] == heads[m] and gold_labels[m] == labels[m]:
            continue
        changed += 1
        for side in range(2):
            h = gold_heads[m] if side == 0 else heads[m]
            column = (gold_labels[m] if side == 0 else labels[m]) + 2
            delta = np.float32(1.0) if side == 0 else np.float32(-1.0)
            count = arc_keys(words, tags, n, h, m, keys)
            for t in range(count):
                slot = _weights.insert(table, n_used, keys[t])
                _weights.add(table, slot, rows, sums, counts, column, delta, c)
    return changed
