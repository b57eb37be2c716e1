"""Compiled hot loop of the tokenizer: the features, scores and perceptron update of the boundary after each character.

After every character that is not white space the classifier chooses ``INSIDE`` (the token goes
on), ``TOKEN_END`` or ``SENTENCE_END`` (which ends the token too); before white space or the
end of the text only the two ends are allowed. A feature is hashed straight into a row of a dense
table ``weights[bucket, label]`` (the hashing trick: three labels and a few hundred thousand
features do not need the parsers' sparse store). A tokenizer trained with word vectors has four
more templates, which read the clusters (:mod:`hetdep.learn.clusters`) of the words before,
at and after the boundary: each chunk's word looked up by its key in a table the tokenizer keeps.
:mod:`hetdep.tokenizer.reference` computes the same in plain Python; the tests hold the two equal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.learn.clusters import COARSE_SHIFT
from hetdep.learn.keys import MULTIPLIER, SEED
from hetdep.tokenizer.characters import CASELESS, DIGIT, LOWER, SPACE, UPPER
from hetdep.tokenizer.templates import (
    CHUNK_SPAN,
    INSIDE,
    LEFT_SPAN,
    LOOK_AHEAD,
    N_LABELS,
    RIGHT_SPAN,
    SHAPE_SPAN,
    TOKEN_END,
    WORD_KEY,
)

_SEED = np.uint64(SEED)
_MULTIPLIER = np.uint64(MULTIPLIER)
_SHIFT = np.uint64(29)


@njit(cache=True, inline="always")
def _start(template):
    return np.uint64(template + 1) * _SEED


@njit(cache=True, inline="always")
def _mix(h, value):
    h = (h ^ np.uint64(value)) * _MULTIPLIER
    return h ^ (h >> _SHIFT)


@njit(cache=True, inline="always")
def _at(array, j):
    """``array[j]``, or 0 (no character; also the class OUTSIDE) beyond the text."""
    if j < 0 or j >= array.shape[0]:
        return 0
    return array[j]


@njit(cache=True, inline="always")
def _is_word_character(c):
    return c == LOWER or c == UPPER or c == DIGIT or c == CASELESS


@njit(cache=True)
def word_hash(lower, classes, first, end):
    """The key of a chunk's word: its lower-cased characters from its first letter or digit to its
    last (``l'ex-chef`` whole, ``Milosevic,`` as ``milosevic``); 0 for a chunk without one."""
    while first < end and not _is_word_character(classes[first]):
        first += 1
    while end > first and not _is_word_character(classes[end - 1]):
        end -= 1
    if first == end:
        return np.uint64(0)
    h = _start(WORD_KEY)
    for j in range(first, end):
        h = _mix(h, lower[j])
    return h | np.uint64(1)


@njit(cache=True)
def chunk_keys(lower, classes, chunk_end):
    """The first character of each chunk, in order, and its word's key (:func:`word_hash`)."""
    n = lower.shape[0]
    starts = np.zeros(n, dtype=np.int64)
    keys = np.zeros(n, dtype=np.uint64)
    count = 0
    i = 0
    while i < n:
        if classes[i] == SPACE:
            i += 1
            continue
        starts[count] = i
        keys[count] = word_hash(lower, classes, i, chunk_end[i])
        count += 1
        i = chunk_end[i]
    return starts[:count], keys[:count]


@njit(cache=True)
def chunk_clusters(lower, classes, chunk_end, sorted_keys, codes):
    """Each character's chunk's word cluster (0: none), its word's key found by binary search in
    the sorted keys of the clustered words (:class:`hetdep.sorted_lines.SortedKeys`): a lookup a
    chunk, where an open-addressing table of 99,017 words took 23 MB."""
    out = np.zeros(lower.shape[0], dtype=np.int64)
    starts, keys = chunk_keys(lower, classes, chunk_end)
    found = np.searchsorted(sorted_keys, keys)
    for c in range(starts.shape[0]):
        k = found[c]
        if keys[c] != 0 and k < sorted_keys.shape[0] and sorted_keys[k] == keys[c]:
            out[starts[c]:chunk_end[starts[c]]] = codes[k]
    return out


@njit(cache=True)
def features(codes, lower, classes, chunk_start, chunk_end, clusters, i, mask, out):
    """Fill ``out`` with the table rows of the boundary after character ``i`` (with word clusters'
    templates where a chunk ends, when ``out`` has room for them); returns how many."""
    n = codes.shape[0]
    t = 0
    out[t] = np.int64(_start(t) & mask)
    t += 1
    for offset in range(-3, 5):  # 1-8: lower-cased characters around the boundary
        out[t] = np.int64(_mix(_start(t), _at(lower, i + offset)) & mask)
        t += 1
    for offset in range(-3, 5):  # 9-16: their classes
        out[t] = np.int64(_mix(_start(t), _at(classes, i + offset)) & mask)
        t += 1
    for first, width in ((-1, 2), (0, 2), (1, 2), (-2, 3), (0, 3), (-1, 3), (1, 3)):  # 17-23: character n-grams
        h = _start(t)
        for j in range(i + first, i + first + width):
            h = _mix(h, _at(codes, j))
        out[t] = np.int64(h & mask)
        t += 1
    h = _start(t)  # 24: the class pattern of the whole window
    for offset in range(-3, 5):
        h = _mix(h, _at(classes, i + offset))
    out[t] = np.int64(h & mask)
    t += 1
    start = chunk_start[i]
    left = _start(0)  # the chunk up to the boundary (its last LEFT_SPAN characters)
    for j in range(max(start, i - LEFT_SPAN + 1), i + 1):
        left = _mix(left, lower[j])
    out[t] = np.int64(_mix(_start(t), left) & mask)
    t += 1
    h = _start(t)  # 26: the rest of the chunk after the boundary
    for j in range(i + 1, min(chunk_end[i], i + RIGHT_SPAN)):
        h = _mix(h, lower[j])
    out[t] = np.int64(h & mask)
    t += 1
    h = _start(t)  # 27: the whole chunk
    for j in range(start, min(chunk_end[i], start + CHUNK_SPAN)):
        h = _mix(h, lower[j])
    out[t] = np.int64(h & mask)
    t += 1
    out[t] = np.int64(_mix(_mix(_start(t), min(i - start + 1, 10)), _at(classes, i + 1)) & mask)  # 28
    t += 1
    after = 0  # the next chunk's first character, when white space follows
    if i + 1 < n and classes[i + 1] == SPACE:
        for j in range(i + 1, min(n, i + 1 + LOOK_AHEAD)):
            if classes[j] != SPACE:
                after = j
                break
    next_class = classes[after] if after else 0
    next_lower = lower[after] if after else 0
    out[t] = np.int64(_mix(_mix(_start(t), next_class), codes[i]) & mask)  # 29
    t += 1
    out[t] = np.int64(_mix(_mix(_start(t), left), _at(codes, i + 1)) & mask)  # 30
    t += 1
    out[t] = np.int64(_mix(_mix(_start(t), codes[i]), next_lower) & mask)  # 31
    t += 1
    out[t] = np.int64(_mix(_mix(_mix(_start(t), codes[i]), _at(classes, i + 1)), _at(classes, i + 2)) & mask)  # 32
    t += 1
    # 33-36, the words around a sentence end: the next chunk as written (a capital "Les" after a
    # heading), with the boundary's character class; the shapes of this chunk and the next ("X."
    # before "Xx": an initial); the chunk before this one (a title before a name)
    written = _start(0)
    if after:
        for j in range(after, min(chunk_end[after], after + RIGHT_SPAN)):
            written = _mix(written, codes[j])
    out[t] = np.int64(_mix(_start(t), written) & mask)
    t += 1
    out[t] = np.int64(_mix(_mix(_start(t), written), classes[i]) & mask)
    t += 1
    h = _mix(_shape(classes, start, i + 1, _start(t)), 0)
    if after:
        h = _shape(classes, after, chunk_end[after], h)
    out[t] = np.int64(h & mask)
    t += 1
    h = _start(t)
    before = start - 1
    while before >= 0 and before > start - 1 - LOOK_AHEAD and classes[before] == SPACE:
        before -= 1
    if before >= 0 and classes[before] != SPACE:
        for j in range(max(chunk_start[before], before - CHUNK_SPAN + 1), before + 1):
            h = _mix(h, lower[j])
    out[t] = np.int64(_mix(h, codes[i]) & mask)
    t += 1
    if out.shape[0] == t or not _ends_chunk(classes, i):
        return t
    # 37-40, word clusters, where a chunk ends (the boundaries that may end sentences): the next
    # chunk's (a name after a noun), with the boundary's class; this chunk's group and the next's;
    # this chunk's, with the next's class; the groups of the chunk before, this one and the next
    own = clusters[i]
    following = clusters[after] if after else 0
    previous = clusters[before] if before >= 0 and classes[before] != SPACE else 0
    out[t] = np.int64(_mix(_mix(_start(t), following), classes[i]) & mask)
    t += 1
    out[t] = np.int64(_mix(_mix(_mix(_start(t), own >> COARSE_SHIFT), following >> COARSE_SHIFT), classes[i]) & mask)
    t += 1
    out[t] = np.int64(_mix(_mix(_start(t), own), next_class) & mask)
    t += 1
    out[t] = np.int64(_mix(_mix(_mix(_start(t), previous >> COARSE_SHIFT), own >> COARSE_SHIFT),
                           following >> COARSE_SHIFT) & mask)
    return t + 1


@njit(cache=True, inline="always")
def _shape(classes, first, end, h):
    """``h`` mixed with the classes of ``first:end`` (at most SHAPE_SPAN), runs of one class as one."""
    last = -1
    for j in range(first, min(end, first + SHAPE_SPAN)):
        if classes[j] != last:
            h = _mix(h, classes[j])
            last = classes[j]
    return h


@njit(cache=True, inline="always")
def _ends_chunk(classes, i):
    return i + 1 >= classes.shape[0] or classes[i + 1] == SPACE


@njit(cache=True, inline="always")
def _choose(scores, forced_end):
    best = TOKEN_END if forced_end else INSIDE
    for label in range(best + 1, N_LABELS):
        if scores[label] > scores[best]:
            best = label
    return best


@njit(cache=True)
def row_slots(used_rows):
    """An open-addressing table of a hashed table's used rows (each row's index + 1 in its slot, 0
    for none): the rows are hashes already, so their low bits place them. Twice as many slots as
    rows; binary search among the rows instead took 0.12 s where this takes 0.02 (fr-sequoia test)."""
    size = 1
    while size < 2 * used_rows.shape[0] + 2:
        size *= 2
    slots = np.zeros(size, dtype=np.int32)
    for k in range(used_rows.shape[0]):
        slot = used_rows[k] & (size - 1)
        while slots[slot] != 0:
            slot = (slot + 1) & (size - 1)
        slots[slot] = k + 1
    return slots


@njit(cache=True)
def classify(codes, lower, classes, chunk_start, chunk_end, clusters, used_rows, values, slots, buckets, n_templates):
    """Labels (-1 for white space) and scores of every character's boundary, each feature's row of
    the hashed table found among its ``used_rows`` by their :func:`row_slots`
    (:class:`hetdep.tokenizer.boundary_weights.BoundaryWeights`)."""
    n = codes.shape[0]
    mask = np.uint64(buckets - 1)
    slot_mask = slots.shape[0] - 1
    labels = np.full(n, -1, dtype=np.int8)
    scores = np.zeros((n, N_LABELS), dtype=np.float32)
    rows = np.empty(n_templates, dtype=np.int64)
    for i in range(n):
        if classes[i] == SPACE:
            continue
        count = features(codes, lower, classes, chunk_start, chunk_end, clusters, i, mask, rows)
        for t in range(count):
            slot = rows[t] & slot_mask
            while slots[slot] != 0:
                k = slots[slot] - 1
                if used_rows[k] == rows[t]:
                    for label in range(N_LABELS):
                        scores[i, label] += values[k, label]
                    break
                slot = (slot + 1) & slot_mask
        labels[i] = _choose(scores[i], _ends_chunk(classes, i))
    return labels, scores


@njit(cache=True)
def train_epoch(codes, lower, classes, chunk_start, chunk_end, clusters, gold, order, weights, sums, clock, n_templates):
    """One perceptron pass over the characters in ``order``; ``sums`` and ``clock[0]`` keep the
    averaging (averaged = weights - sums / clock). Returns the number of mistakes."""
    mask = np.uint64(weights.shape[0] - 1)
    rows = np.empty(n_templates, dtype=np.int64)
    scores = np.empty(N_LABELS, dtype=np.float64)
    mistakes = 0
    for i in order:
        count = features(codes, lower, classes, chunk_start, chunk_end, clusters, i, mask, rows)
        scores[:] = 0.0
        for t in range(count):
            for label in range(N_LABELS):
                scores[label] += weights[rows[t], label]
        guess = _choose(scores, _ends_chunk(classes, i))
        clock[0] += 1
        if guess != gold[i]:
            mistakes += 1
            for t in range(count):
                weights[rows[t], gold[i]] += 1.0
                weights[rows[t], guess] -= 1.0
                sums[rows[t], gold[i]] += clock[0]
                sums[rows[t], guess] -= clock[0]
    return mistakes
