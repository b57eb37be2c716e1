"""Compiled storage of the perceptron's weights: feature key -> the scores of its actions.

One open-addressing table, ``table[slot] = (key, payload)``, two 64-bit words in one cache
line, so a feature costs one probe. Most features are updated for one or two actions
(against 100-200 actions), so a feature's scores are sparse: the payload points to a chain
of entries (``payload - 1`` is the first entry; ``enext[e]`` the next, -1 ends it;
``eact[e]`` the action; ``ew[e]`` the weight). A frequent feature collects many actions:
past ``DENSE_AFTER`` entries it moves to a dense row (payload ``DENSE | d``, row ``dense[d]``)
scored with one vector add. Payload 0: no weights.

Training keeps the sums for averaging beside the weights (``eu``, ``dense_u``: averaged =
w - u / c, Daume's trick), so no per-weight timestamps are needed. A trained model keeps only
the averaged non-zero weights, each sparse feature's entries contiguous.

The scorer reads the tuple ``rows = (enext, eact, ew, dense)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

DENSE_AFTER = 8
DENSE = np.uint64(1 << 63)
_INDEX = np.uint64((1 << 63) - 1)


@njit(cache=True, inline="always")
def lookup(table, key):
    """Payload of ``key`` (0 if absent)."""
    mask = table.shape[0] - 1
    i = np.int64(key & np.uint64(mask))
    while True:
        k = table[i, 0]
        if k == key:
            return table[i, 1]
        if k == 0:
            return np.uint64(0)
        i = (i + 1) & mask


@njit(cache=True)
def insert(table, n_used, key):
    """Slot of ``key``, claiming an empty one if the key is new (the caller keeps the table half empty)."""
    mask = table.shape[0] - 1
    i = np.int64(key & np.uint64(mask))
    while True:
        k = table[i, 0]
        if k == key:
            return i
        if k == 0:
            table[i, 0] = key
            table[i, 1] = 0
            n_used[0] += 1
            return i
        i = (i + 1) & mask


@njit(cache=True)
def rehash(table, new_size):
    grown = np.zeros((new_size, 2), dtype=np.uint64)
    mask = new_size - 1
    for i in range(table.shape[0]):
        key = table[i, 0]
        if key != 0:
            j = np.int64(key & np.uint64(mask))
            while grown[j, 0] != 0:
                j = (j + 1) & mask
            grown[j, 0] = key
            grown[j, 1] = table[i, 1]
    return grown


@njit(cache=True, inline="always")
def add_scores(payload, rows, acc, arcs, extra):
    """Add a feature's scores to ``acc``: all arc actions (2..) if ``arcs``, and ``extra`` (-1: none).

    Dense rows add only those columns; sparse entries add wherever they are (only the valid
    actions' sums are read afterwards). Inlined, and the dense loop starts at the constant 2,
    so that LLVM vectorizes it (a start it cannot prove non-negative blocks that: 5-10x slower).
    """
    enext, eact, ew, dense = rows
    if payload == 0:
        return
    if payload & DENSE:
        row = dense[np.int64(payload & _INDEX)]
        if arcs:
            for a in range(2, acc.shape[0]):
                acc[a] += row[a]
        if extra >= 0:
            acc[extra] += row[extra]
        return
    e = np.int64(payload) - 1
    while e >= 0:
        acc[eact[e]] += ew[e]
        e = enext[e]


@njit(cache=True)
def add(table, slot, rows, sums, counts, action, delta, c):
    """Add ``delta`` to (feature at ``slot``, action) and ``delta * c`` to its averaging sum.

    A new action is prepended to the feature's chain; a chain longer than ``DENSE_AFTER``
    moves to a new dense row (the caller keeps room for entries and dense rows).
    """
    enext, eact, ew, dense = rows
    eu, dense_u = sums
    n_entries, n_dense = counts
    payload = table[slot, 1]
    if payload & DENSE:
        d = np.int64(payload & _INDEX)
        dense[d, action] += delta
        dense_u[d, action] += delta * c
        return
    first = np.int64(payload) - 1
    e = first
    length = 0
    while e >= 0:
        if eact[e] == action:
            ew[e] += delta
            eu[e] += delta * c
            return
        length += 1
        e = enext[e]
    if length < DENSE_AFTER:
        e = n_entries[0]
        n_entries[0] += 1
        eact[e] = action
        ew[e] = delta
        eu[e] = delta * c
        enext[e] = first
        table[slot, 1] = np.uint64(e + 1)
        return
    d = n_dense[0]
    n_dense[0] += 1
    dense[d, :] = 0.0
    dense_u[d, :] = 0.0
    e = first
    while e >= 0:
        dense[d, eact[e]] = ew[e]
        dense_u[d, eact[e]] = eu[e]
        e = enext[e]
    dense[d, action] += delta
    dense_u[d, action] += delta * c
    table[slot, 1] = DENSE | np.uint64(d)


@njit(cache=True)
def _averaged(payload, rows, sums, c, out):
    enext, eact, ew, dense = rows
    eu, dense_u = sums
    out[:] = 0.0
    if payload & DENSE:
        d = np.int64(payload & _INDEX)
        for a in range(out.shape[0]):
            out[a] = dense[d, a] - dense_u[d, a] / c
        return
    e = np.int64(payload) - 1
    while e >= 0:
        out[eact[e]] = ew[e] - eu[e] / c
        e = enext[e]


@njit(cache=True)
def compact(table, rows, sums, counter, n_actions):
    """Averaged weights (w - u / c) for decoding: zeros dropped, each sparse feature's entries
    contiguous, features with more than ``DENSE_AFTER`` non-zero weights dense.

    Returns (table, enext, eact, ew, dense) for the trained model.
    """
    c = np.float32(counter)
    averaged = np.zeros(n_actions, dtype=np.float32)
    total = 0
    n_dense = 0
    for i in range(table.shape[0]):
        if table[i, 0] != 0:
            _averaged(table[i, 1], rows, sums, c, averaged)
            count = np.count_nonzero(averaged)
            if count > DENSE_AFTER:
                n_dense += 1
            else:
                total += count
    out = table.copy()
    enext = np.full(total, -1, dtype=np.int64)
    eact = np.zeros(total, dtype=np.int32)
    ew = np.zeros(total, dtype=np.float32)
    dense = np.zeros((n_dense, n_actions), dtype=np.float32)
    k = 0
    nd = 0
    for i in range(table.shape[0]):
        if table[i, 0] == 0:
            continue
        _averaged(table[i, 1], rows, sums, c, averaged)
        if np.count_nonzero(averaged) > DENSE_AFTER:
            dense[nd, :] = averaged
            out[i, 1] = DENSE | np.uint64(nd)
            nd += 1
            continue
        start = k
        for a in range(n_actions):
            if averaged[a] != 0.0:
                eact[k] = a
                ew[k] = averaged[a]
                if k > start:
                    enext[k - 1] = k
                k += 1
        out[i, 1] = np.uint64(start + 1) if k > start else np.uint64(0)
    return out, enext, eact, ew, dense
