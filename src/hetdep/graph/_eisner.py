"""Compiled hot path of the first-order graph-based parser (dep1): arc features, scores, Eisner.

Arc features follow McDonald, Crammer & Pereira (2005): words and tags of head and modifier
alone and combined, the tags around them, and each distinct tag between them, every one
conjoined with the arc's direction and binned length (the core ones also with the direction
alone). Words and tags are vocabulary ids with position 0 the root.

Domain copies (Daume 2007, "frustratingly easy" adaptation) for a parser trained on several
treebanks at once: with ``domain`` > 0 every key is emitted twice, once shared by all
treebanks and once mixed with the domain. The shared keys are unlabeled (weight column
``SHARED``, added to every label's score): what the schemes agree on about attachment; the
domain copies carry that treebank's labels. ``domain`` 0 emits the plain keys only, each
labeled (column ``SHARED`` then stays empty).

Labels are chosen inside the decoder: an arc's score is its best label's score (first-order
factorisation makes this exact), so Eisner's algorithm runs on one score per arc. Trees have
exactly one word on the root, as UD requires: the root's child is chosen last, over the two
complete spans it heads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.learn import _weights
from hetdep.learn.keys import MULTIPLIER, SEED

BOUNDARY = 1 << 40  # the tag before the root / after the last word
N_CORE = 17  # templates emitted with (direction, length) and with direction alone
N_AGREEMENT = 4  # templates conjoined with the other parser's agreement on the arc (learned consensus)
KEYS_PER_COPY = 2 * N_CORE + 64 + N_AGREEMENT  # + in-between tags (distinct, at most 64 kept)
MAX_KEYS = 2 * KEYS_PER_COPY  # shared keys and their domain copies
SHARED = 1  # weight column of the unlabeled shared keys of a domain-augmented model

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
def add_domain_copies(out, count, domain):
    """Append each of the first ``count`` keys mixed with ``domain`` (none for domain 0); the new count."""
    if domain == 0:
        return count
    for i in range(count):
        h = _mix(out[i], 7000 + domain)
        out[count + i] = h if h != 0 else np.uint64(1)
    return 2 * count


@njit(cache=True, inline="always")
def length_bin(distance):
    return distance if distance <= 5 else (6 if distance <= 10 else 7)


@njit(cache=True)
def arc_keys(words, tags, n, h, m, agreement, domain, out):
    """Feature keys of the arc h -> m (0 <= h <= n, 1 <= m <= n), with domain copies; returns how many.

    ``agreement`` > 0: how much another parser's candidates hold this arc (a bin, see
    :func:`hetdep.graph.parser.agreement_bins`), conjoined with the arc's direction, length and tags.
    """
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
        if k == KEYS_PER_COPY - N_AGREEMENT:
            break
        seen = False
        for earlier in range(low + 1, b):
            if tags[earlier] == tags[b]:
                seen = True
                break
        if not seen:
            out[k] = _key(18, hp, tags[b], mp, 0, full)
            k += 1
    if agreement > 0:
        out[k] = _key(60, agreement, 0, 0, 0, full)
        out[k + 1] = _key(61, agreement, hp, mp, 0, short)
        out[k + 2] = _key(62, agreement, hp, 0, 0, short)
        out[k + 3] = _key(63, agreement, mp, 0, 0, short)
        k += N_AGREEMENT
    return add_domain_copies(out, k, domain)


@njit(cache=True)
def arc_scores(words, tags, n, table, rows, first_label, end_label, width, domain, agreement):
    """Best label score and best label of every arc h -> m: (n+1, n+1) each (NEG where no arc).

    Labels are chosen among ids first_label..end_label-1 (one treebank's labels in a parser
    trained on several); ``width``: the weight rows' width (label i is column i + 2);
    ``agreement``: (n+1, n+1) bins of another parser's arc mass, or an empty array.
    """
    best = np.full((n + 1, n + 1), NEG, dtype=np.float64)
    label = np.zeros((n + 1, n + 1), dtype=np.int64)
    keys = np.zeros(MAX_KEYS, dtype=np.uint64)
    acc = np.zeros(width, dtype=np.float32)  # labels are columns 2.. (see _weights.add_scores)
    for h in range(n + 1):
        for m in range(1, n + 1):
            if h == m:
                continue
            count = arc_keys(words, tags, n, h, m, agreement[h, m] if agreement.size else 0, domain, keys)
            acc[:] = 0.0
            for t in range(count):
                _weights.add_scores(_weights.lookup(table, keys[t]), rows, acc, True, SHARED)
            top = first_label + 2
            for c in range(first_label + 3, end_label + 2):
                if acc[c] > acc[top]:
                    top = c
            best[h, m] = acc[top] + acc[SHARED]
            label[h, m] = top - 2
    return best, label


@njit(cache=True, inline="always")
def meeting(complete, s, t):
    """Best split r of two complete spans meeting between s and t: complete[s, r, 1] + complete[r + 1, t, 0]."""
    best, split = NEG, s
    for r in range(s, t):
        value = complete[s, r, 1] + complete[r + 1, t, 0]
        if value > best:
            best, split = value, r
    return best, split


@njit(cache=True, inline="always")
def fill_complete(complete, incomplete, complete_split, s, t):
    """complete[s, t, 0] (headed by t) and complete[s, t, 1] (headed by s) from the incomplete items, with splits."""
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


@njit(cache=True, inline="always")
def best_root(complete, arcs, n):
    """The one word m on the root: the best complete[1, m, 0] + complete[m, n, 1] + arcs[0, m], and that score."""
    root, total = 1, NEG
    for m in range(1, n + 1):
        value = complete[1, m, 0] + complete[m, n, 1] + arcs[0, m]
        if value > total:
            root, total = m, value
    return root, total


@njit(cache=True, inline="always")
def push(stack, top, a, b, c, d):
    """Push a four-field item onto a backtracking stack (Eisner's spans: s, t, direction, kind;
    :mod:`hetdep.graph._grandparent`'s items: kind and three indices); returns the new top."""
    stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = a, b, c, d
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
            best, split = meeting(complete, s, t)
            incomplete[s, t, 0] = best + scores[t, s]
            incomplete[s, t, 1] = best + scores[s, t]
            incomplete_split[s, t, 0] = split
            incomplete_split[s, t, 1] = split
            fill_complete(complete, incomplete, complete_split, s, t)
    heads = np.zeros(n + 1, dtype=np.int64)
    root, total = best_root(complete, scores, n)
    heads[root] = 0
    # Backtrack with an explicit stack of spans (s, t, direction, is_complete).
    stack = np.zeros((4 * n + 4, 4), dtype=np.int64)
    top = push(stack, 0, 1, root, 0, 1)
    top = push(stack, top, root, n, 1, 1)
    while top > 0:
        top -= 1
        s, t, d, is_complete = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if s == t:
            continue
        if is_complete:
            r = complete_split[s, t, d]
            if d == 0:
                top = push(stack, top, s, r, 0, 1)
                top = push(stack, top, r, t, 0, 0)
            else:
                top = push(stack, top, s, r, 1, 0)
                top = push(stack, top, r, t, 1, 1)
        else:
            r = incomplete_split[s, t, d]
            if d == 0:
                heads[s] = t
            else:
                heads[t] = s
            top = push(stack, top, s, r, 1, 1)
            top = push(stack, top, r + 1, t, 0, 1)
    return heads, total


@njit(cache=True)
def update(words, tags, n, domain, agreement, gold_heads, gold_labels, heads, labels, table, n_used, rows, sums, counts,
           counter):
    """Perceptron update: gold arcs' features +1 for their labels, predicted arcs' -1 (equal arcs cancel);
    with a domain, the shared keys' unlabeled column only where the heads differ."""
    keys = np.zeros(MAX_KEYS, dtype=np.uint64)
    c = np.float32(counter)
    changed = 0
    for m in range(1, n + 1):
        if gold_heads[m] == heads[m] and gold_labels[m] == labels[m]:
            continue
        changed += 1
        shared_too = gold_heads[m] != heads[m]
        for side in range(2):
            h = gold_heads[m] if side == 0 else heads[m]
            column = (gold_labels[m] if side == 0 else labels[m]) + 2
            delta = np.float32(1.0) if side == 0 else np.float32(-1.0)
            count = arc_keys(words, tags, n, h, m, agreement[h, m] if agreement.size else 0, domain, keys)
            shared = count // 2 if domain else 0
            for t in range(count):
                if t < shared and not shared_too:
                    continue
                slot = _weights.insert(table, n_used, keys[t])
                _weights.add(table, slot, rows, sums, counts, SHARED if t < shared else column, delta, c)
    return changed


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


INCOMPLETE, COMPLETE_LEFT, COMPLETE_RIGHT, ROOT = range(4)


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


@njit(cache=True)
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
