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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


INCOMPLETE, COMPLETE_LEFT, COMPLETE_RIGHT, ROOT = range(4)


