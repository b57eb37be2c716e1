"""Compiled hot path of the POS tagger: feature keys, beam search over tag sequences, update.

The templates and atoms are in :mod:`hetdep.tagger.templates`; tag k is weight column k + 2 (so
that :func:`hetdep.learn._weights.add_scores` with ``arcs`` adds exactly the tag columns).
:mod:`hetdep.tagger.reference` is the same search in plain Python; the tests hold the two equal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.learn import _weights
from hetdep.learn._keys import KEY_SEED, mix, nonzero
from hetdep.tagger.templates import CLASS, FIRST_TAG_COLUMN, N_TAG_TEMPLATES, NO_TAG, S3, UNUSED, L


@njit(cache=True)
def static_keys(atoms, n, i, templates, out):
    """Keys of the static templates at word i (0-based) of an n-word sentence."""
    for t in range(templates.shape[0]):
        h = np.uint64(1000 + t) * KEY_SEED
        for j in range(templates.shape[1]):
            offset = templates[t, j, 0]
            if offset == UNUSED:
                continue
            k = i + offset
            value = atoms[k, templates[t, j, 1]] if 0 <= k < n else 0
            h = mix(mix(h, offset + 3), value)
        out[t] = nonzero(h)


@njit(cache=True, inline="always")
def tag_keys(atoms, n, i, prev, prev2, out):
    out[0] = nonzero(mix(np.uint64(2000) * KEY_SEED, prev))
    out[1] = nonzero(mix(mix(np.uint64(2001) * KEY_SEED, prev2), prev))
    out[2] = nonzero(mix(mix(np.uint64(2002) * KEY_SEED, prev), atoms[i, L]))
    out[3] = nonzero(mix(mix(np.uint64(2003) * KEY_SEED, prev), atoms[i, S3]))
    out[4] = nonzero(mix(mix(np.uint64(2004) * KEY_SEED, prev), atoms[i + 1, CLASS] if i + 1 < n else 0))
    out[5] = nonzero(mix(mix(np.uint64(2005) * KEY_SEED, prev), atoms[i + 1, L] if i + 1 < n else 0))


@njit(cache=True)
def static_scores(atoms, n, templates, table, rows, n_columns):
    """Scores of every tag at every word from the static templates: (n, n_columns)."""
    scores = np.zeros((n, n_columns), dtype=np.float32)
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    acc = np.zeros(n_columns, dtype=np.float32)
    for i in range(n):
        static_keys(atoms, n, i, templates, keys)
        acc[:] = 0.0
        for t in range(keys.shape[0]):
            _weights.add_scores(_weights.lookup(table, keys[t]), rows, acc, True, -1)
        scores[i, :] = acc
    return scores


@njit(cache=True, inline="always")
def _tag_scores(atoms, n, i, prev, prev2, table, rows, keys, static_row, acc):
    tag_keys(atoms, n, i, prev, prev2, keys)
    acc[:] = static_row
    for t in range(N_TAG_TEMPLATES):
        _weights.add_scores(_weights.lookup(table, keys[t]), rows, acc, True, -1)


@njit(cache=True, nogil=True)
def top(values, count, k, order):
    """The indices of the ``k`` largest of ``values[:count]`` into ``order``, largest first, ties in
    index order (``np.argsort(-values[:count], kind="stable")[:k]``, without sorting them all: a
    beam keeps 2 to 8 of hundreds); returns how many, min(k, count)."""
    best = np.empty(k, dtype=values.dtype)
    size = 0
    for c in range(count):
        v = values[c]
        if size == k and not v > best[k - 1]:
            continue
        p = size if size < k else k - 1
        while p > 0 and best[p - 1] < v:  # after those equal to it: they came first
            best[p], order[p] = best[p - 1], order[p - 1]
            p -= 1
        best[p], order[p] = v, c
        if size < k:
            size += 1
    return size


@njit(cache=True, nogil=True)
def search(atoms, n, beam, templates, table, rows, n_tags, gold, early, extra):
    """Beam search for the best tag sequence (tags 1..n_tags), ``extra[i, k]`` added to tag k + 1 at word i.

    Returns (tags, length, scores): the best sequence, how much of it is decided (n, or with
    ``early`` the position + 1 where the gold sequence fell out of the beam), and each word's
    scores of every tag given the best sequence's previous tags, ``extra`` included (for k-best output).
    """
    n_columns = n_tags + FIRST_TAG_COLUMN
    static = static_scores(atoms, n, templates, table, rows, n_columns)
    keys = np.zeros(N_TAG_TEMPLATES, dtype=np.uint64)
    acc = np.zeros(n_columns, dtype=np.float32)
    score = np.zeros(beam, dtype=np.float64)
    prev = np.zeros(beam, dtype=np.int64)
    prev2 = np.zeros(beam, dtype=np.int64)
    is_gold = np.zeros(beam, dtype=np.bool_)
    back = np.zeros((n, beam), dtype=np.int64)
    chosen = np.zeros((n, beam), dtype=np.int64)
    candidates = np.zeros(beam * n_tags, dtype=np.float64)
    order = np.zeros(beam, dtype=np.int64)
    size = 1
    is_gold[0] = True
    length = n
    for i in range(n):
        for b in range(size):
            _tag_scores(atoms, n, i, prev[b], prev2[b], table, rows, keys, static[i], acc)
            for k in range(n_tags):
                candidates[b * n_tags + k] = score[b] + acc[k + FIRST_TAG_COLUMN] + extra[i, k]
        count = size * n_tags
        new_size = top(candidates, count, beam, order)
        new_score = np.zeros(beam, dtype=np.float64)
        new_prev = np.zeros(beam, dtype=np.int64)
        new_prev2 = np.zeros(beam, dtype=np.int64)
        new_gold = np.zeros(beam, dtype=np.bool_)
        any_gold = False
        for j in range(new_size):
            c = order[j]
            b, k = c // n_tags, c % n_tags
            new_score[j] = candidates[c]
            new_prev[j] = k + 1
            new_prev2[j] = prev[b]
            new_gold[j] = early and is_gold[b] and gold[i] == k + 1
            any_gold = any_gold or new_gold[j]
            back[i, j] = b
            chosen[i, j] = k + 1
        score, prev, prev2, is_gold, size = new_score, new_prev, new_prev2, new_gold, new_size
        if early and not any_gold:
            length = i + 1
            break
    tags = np.zeros(length, dtype=np.int64)
    b = 0
    for i in range(length - 1, -1, -1):
        tags[i] = chosen[i, b]
        b = back[i, b]
    scores = np.zeros((length, n_tags), dtype=np.float32)
    for i in range(length):
        p1 = tags[i - 1] if i >= 1 else NO_TAG
        p2 = tags[i - 2] if i >= 2 else NO_TAG
        _tag_scores(atoms, n, i, p1, p2, table, rows, keys, static[i], acc)
        scores[i, :] = acc[FIRST_TAG_COLUMN:] + extra[i]
    return tags, length, scores


@njit(cache=True)
def update(atoms, n, gold, pred, length, templates, table, n_used, rows, sums, counts, counter):
    """Perceptron update on the first ``length`` words: gold features +1, predicted -1."""
    static = np.zeros(templates.shape[0], dtype=np.uint64)
    keys = np.zeros(N_TAG_TEMPLATES, dtype=np.uint64)
    c = np.float32(counter)
    changed = 0
    for i in range(length):
        g_prev = gold[i - 1] if i >= 1 else NO_TAG
        g_prev2 = gold[i - 2] if i >= 2 else NO_TAG
        p_prev = pred[i - 1] if i >= 1 else NO_TAG
        p_prev2 = pred[i - 2] if i >= 2 else NO_TAG
        if gold[i] == pred[i] and g_prev == p_prev and g_prev2 == p_prev2:
            continue
        changed += 1
        static_keys(atoms, n, i, templates, static)
        for side in range(2):
            tag = gold[i] if side == 0 else pred[i]
            delta = np.float32(1.0) if side == 0 else np.float32(-1.0)
            column = tag - 1 + FIRST_TAG_COLUMN
            if side == 0:
                tag_keys(atoms, n, i, g_prev, g_prev2, keys)
            else:
                tag_keys(atoms, n, i, p_prev, p_prev2, keys)
            if gold[i] != pred[i]:
                for t in range(static.shape[0]):
                    slot = _weights.insert(table, n_used, static[t])
                    _weights.add(table, slot, rows, sums, counts, column, delta, c)
            for t in range(N_TAG_TEMPLATES):
                slot = _weights.insert(table, n_used, keys[t])
                _weights.add(table, slot, rows, sums, counts, column, delta, c)
    return changed
