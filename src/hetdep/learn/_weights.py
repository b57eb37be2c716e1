"""Compiled storage of the perceptron's weights: feature key -> the scores of its actions.

(Over 450 lines: one table's layout and every compiled operation on it, which numba inlines
into each other and into the searches; apart, the layout's bit fields would be read in two places.)

One open-addressing table, ``table[slot] = (key, payload)``, two 64-bit words in one cache
line, so a feature costs one probe. Most features are updated for one or two actions
(against 100-200 actions), so a feature's scores are sparse; a frequent feature collects many
actions and past ``DENSE_AFTER`` of them moves to a dense row (payload ``DENSE | d``, row
``dense[d]``) scored with one vector add. Payload 0: no weights.

While training, a sparse feature's payload points to a chain of entries (``payload - 1`` is
the first entry; ``enext[e]`` the next, -1 ends it; ``eact[e]`` the action; ``ew[e]`` the
weight), so a new action is one more link. Training keeps the sums for averaging beside the
weights (``eu``, ``dense_u``: averaged = w - u / c, Daume's trick), so no per-weight
timestamps are needed.

A trained model keeps only the averaged non-zero weights, laid out for reading: the table
holds the features with a weight and no others (at most half full), a feature with one weight
holds it in its payload (``INLINE | action << 32 | the float's bits``: nearly half of all
features, read with no second memory access), and the entries of a feature with two to
``packed_up_to(actions)`` weights lie side by side in ``packed``, one 64-bit word each (action
<< 32 | the float's bits; payload ``count << 40 | first``), so they share a cache line. Against
the chains (en-ewt, 1M features) this holds 68 MB instead of 122 MB and parses en-ewt dev some
5% faster (bench/profile_parser.py: weight lookups 4.4 s against 4.6 s of 6.5 s). Only a
feature with more weights than that bound, a quarter of the actions, is a dense row: a dense
row of the constituency parser's 130 actions held 9 to 22 weights in most cases, and reading
them as packed entries parses the WSJ sample a few percent faster (2-7% in alternating runs;
docs/archive.md).

The scorer reads ``rows``: ``(enext, eact, ew, dense)`` while training, ``packed_rows(packed, dense)`` after.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from hetdep.learn.weight_layout import ACTION as _ACTION
from hetdep.learn.weight_layout import COUNT_SHIFT as _COUNT_SHIFT
from hetdep.learn.weight_layout import DENSE, DENSE_AFTER, INLINE
from hetdep.learn.weight_layout import INDEX as _INDEX
from hetdep.learn.weight_layout import START as _START
from hetdep.learn.weight_layout import THIRTY_TWO as _THIRTY_TWO


@intrinsic
def _float_of_bits(typingctx, word):
    """The float32 whose bits are the low 32 bits of a 64-bit word."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(builder.trunc(args[0], ir.IntType(32)), ir.FloatType())

    return types.float32(word), codegen


@intrinsic
def _bits_of_float(typingctx, value):
    """The bits of a float32, as the low 32 bits of a uint64."""

    def codegen(context, builder, signature, args):
        return builder.zext(builder.bitcast(args[0], ir.IntType(32)), ir.IntType(64))

    return types.uint64(value), codegen


@njit(cache=True, inline="always")
def _entry_action(word):
    return np.int64((np.uint64(word) >> _THIRTY_TWO) & _ACTION)


@njit(cache=True, inline="always")
def _entry_weight(word):
    return _float_of_bits(word)


@njit(cache=True, inline="always")
def _entry(action, weight):
    return np.int64((np.uint64(action) << _THIRTY_TWO) | _bits_of_float(np.float32(weight)))


@intrinsic
def _prefetch(typingctx, array, offset):
    """Start fetching the cache line ``offset`` bytes into an array's data (no wait, no fault)."""

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte_pointer = ir.IntType(8).as_pointer()
        address = builder.gep(builder.bitcast(data, byte_pointer), [args[1]])
        prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer] + [ir.IntType(32)] * 3), "llvm.prefetch.p0i8")
        read, keep, data_cache = (ir.Constant(ir.IntType(32), v) for v in (0, 3, 1))
        builder.call(prefetch, [address, read, keep, data_cache])
        return context.get_dummy_value()

    return types.void(array, types.int64), codegen


@njit(cache=True, inline="always")
def prefetch(table, key):
    """Start fetching ``key``'s slot. A scorer asks for all its features' slots before it reads
    the first, then for their entries (``prefetch_entries``) before it adds the first: the memory
    accesses overlap instead of waiting one after the other."""
    _prefetch(table, np.int64(key & np.uint64(table.shape[0] - 1)) * 16)


@njit(cache=True, inline="always")
def prefetch_entries(payload, entries):
    """Start fetching the packed entries of this payload, if it has any (``entries``: rows[0]; for
    a training table's chain, the line of its first link). Dense rows are not fetched ahead: the
    frequent ones stay in cache, and fetching them made parsing twice as slow."""
    if payload != 0 and not payload & (DENSE | INLINE):
        _prefetch(entries, np.int64(payload & _START) * 8)


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
def half_full_size(n):
    """The size of an open-addressing table for ``n`` keys: a power of two, at most half full."""
    size = 16
    while size < 2 * n:
        size *= 2
    return size


@njit(cache=True)
def spread(features):
    """A table at most half full holding these (key, payload) rows."""
    table = np.zeros((half_full_size(features.shape[0]), 2), dtype=np.uint64)
    n_used = np.zeros(1, dtype=np.int64)
    for r in range(features.shape[0]):
        table[insert(table, n_used, features[r, 0]), 1] = features[r, 1]
    return table


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
    actions' sums are read afterwards). ``rows`` is a training table's chains or a trained
    model's packed entries (``packed_rows``); both have the same types, so one compiled search
    serves both. Inlined, and the dense loop starts at the constant 2, so that LLVM vectorizes
    it (a start it cannot prove non-negative blocks that: 5-10x slower).
    """
    if payload == 0:
        return
    if payload & DENSE:
        row = rows[3][np.int64(payload & _INDEX)]
        if arcs:
            for a in range(2, acc.shape[0]):
                acc[a] += row[a]
        if extra >= 0:
            acc[extra] += row[extra]
        return
    _add_sparse(payload, rows, acc)


@njit(cache=True, inline="always")
def add_row(payload, rows, acc):
    """Add a feature's scores to ``acc``, every action's."""
    if payload == 0:
        return
    if payload & DENSE:
        row = rows[3][np.int64(payload & _INDEX)]
        for a in range(acc.shape[0]):
            acc[a] += row[a]
        return
    _add_sparse(payload, rows, acc)


@njit(cache=True, inline="always")
def _add_sparse(payload, rows, acc):
    """A sparse feature's weights: inline, packed side by side, or (training) chained."""
    enext, eact, ew, _ = rows
    if payload & INLINE:
        acc[_entry_action(payload)] += _entry_weight(payload)
        return
    if eact.shape[0] == 0:  # packed entries, side by side, in ``enext``
        begin = np.int64(payload & _START)
        for e in range(begin, begin + np.int64(payload >> _COUNT_SHIFT)):
            acc[_entry_action(enext[e])] += _entry_weight(enext[e])
        return
    e = np.int64(payload) - 1
    while e >= 0:
        acc[eact[e]] += ew[e]
        e = enext[e]


_NO_ACTIONS = np.zeros(0, dtype=np.int32)
_NO_WEIGHTS = np.zeros(0, dtype=np.float32)


def packed_rows(packed, dense):
    """What the scorer reads of a trained model: its packed entries where a training table has
    its chains' links, and no chained actions or weights (which marks the entries as packed)."""
    return packed, _NO_ACTIONS, _NO_WEIGHTS, dense


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
def _sparse_averaged(payload, rows, sums, c, acts, values):
    """A chained feature's non-zero averaged weights into ``acts``/``values`` (room for
    ``DENSE_AFTER`` or more), by ascending action; returns how many (no pass over all actions)."""
    enext, eact, ew, _ = rows
    eu, _ = sums
    count = 0
    e = np.int64(payload) - 1
    while e >= 0:
        value = ew[e] - eu[e] / c
        if value != 0.0:
            i = count
            while i > 0 and acts[i - 1] > eact[e]:
                acts[i] = acts[i - 1]
                values[i] = values[i - 1]
                i -= 1
            acts[i] = eact[e]
            values[i] = value
            count += 1
        e = enext[e]
    return count


@njit(cache=True)
def _nonzero_averaged(payload, rows, sums, c, averaged, acts, values):
    """How many of a feature's averaged weights are non-zero: as many as ``acts``/``values`` hold
    are there by ascending action; a dense row's are all in ``averaged`` as well."""
    if not payload & DENSE:
        return _sparse_averaged(payload, rows, sums, c, acts, values)
    _averaged(payload, rows, sums, c, averaged)
    count = 0
    for a in range(averaged.shape[0]):
        if averaged[a] != 0.0:
            if count < acts.shape[0]:
                acts[count] = a
                values[count] = averaged[a]
            count += 1
    return count


@njit(cache=True)
def compact(table, rows, sums, counter, n_actions, most):
    """Averaged weights (w - u / c) laid out for reading (see the module's docstring): zeros and
    features without weights dropped, one weight inline, two to ``most`` (``packed_up_to``) packed
    side by side, more dense. Returns (table, packed, dense) for the trained model.
    """
    c = np.float32(counter)
    averaged = np.zeros(n_actions, dtype=np.float32)
    acts = np.zeros(most, dtype=np.int64)
    values = np.zeros(most, dtype=np.float32)
    features = 0
    total = 0
    n_dense = 0
    for i in range(table.shape[0]):
        payload = table[i, 1]
        if table[i, 0] == 0 or payload == 0:
            continue
        count = _nonzero_averaged(payload, rows, sums, c, averaged, acts, values)
        if count > 0:
            features += 1
        if count > most:
            n_dense += 1
        elif count > 1:
            total += count
    kept = np.zeros((features, 2), dtype=np.uint64)  # (key, payload) of each feature with a weight
    packed = np.zeros(total, dtype=np.int64)
    dense = np.zeros((n_dense, n_actions), dtype=np.float32)
    f = 0
    k = 0
    nd = 0
    for i in range(table.shape[0]):
        payload = table[i, 1]
        if table[i, 0] == 0 or payload == 0:
            continue
        count = _nonzero_averaged(payload, rows, sums, c, averaged, acts, values)
        if count == 0:
            continue
        kept[f, 0] = table[i, 0]
        if count > most:
            dense[nd, :] = averaged
            kept[f, 1] = DENSE | np.uint64(nd)
            nd += 1
        elif count == 1:
            kept[f, 1] = INLINE | np.uint64(_entry(acts[0], values[0]))
        else:
            kept[f, 1] = (np.uint64(count) << _COUNT_SHIFT) | np.uint64(k)
            for j in range(count):
                packed[k] = _entry(acts[j], values[j])
                k += 1
        f += 1
    return spread(kept), packed, dense


@njit(cache=True)
def unpack(table, rows, n_actions):
    """Each stored key's full row of action scores, as (keys, rows): for references and tests."""
    slots = np.flatnonzero(table[:, 0])
    keys = table[slots, 0].copy()
    full = np.zeros((slots.shape[0], n_actions), dtype=np.float32)
    for r in range(slots.shape[0]):
        add_row(table[slots[r], 1], rows, full[r])
    return keys, full


@njit(cache=True)
def entries(table, rows, sums, c, keys, actions, w, averaged):
    """Every (feature, action) weight of a training table (its weight or its averaging sum non-zero),
    with its averaged value (w - u / c), into the arrays, in slot order, as far as they reach;
    returns how many there are (so arrays of length 0 count them)."""
    enext, eact, ew, dense = rows
    eu, dense_u = sums
    i = 0
    for slot in range(table.shape[0]):
        payload = table[slot, 1]
        if table[slot, 0] == 0 or payload == 0:
            continue
        if payload & DENSE:
            d = np.int64(payload & _INDEX)
            for a in range(dense.shape[1]):
                if dense[d, a] != 0.0 or dense_u[d, a] != 0.0:
                    if i < keys.shape[0]:
                        keys[i], actions[i], w[i], averaged[i] = table[slot, 0], a, dense[d, a], dense[d, a] - dense_u[d, a] / c
                    i += 1
            continue
        e = np.int64(payload) - 1
        while e >= 0:
            if i < keys.shape[0]:
                keys[i], actions[i], w[i], averaged[i] = table[slot, 0], eact[e], ew[e], ew[e] - eu[e] / c
            i += 1
            e = enext[e]
    return i


@njit(cache=True)
def load(table, n_used, rows, sums, counts, keys, actions, values):
    """Set the weights of (keys[i], actions[i]) to values[i] in a table being trained (no averaging sum)."""
    for i in range(keys.shape[0]):
        slot = insert(table, n_used, keys[i])
        add(table, slot, rows, sums, counts, actions[i], values[i], np.float32(0.0))
