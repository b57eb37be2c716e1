"""Beam search with dynamic programming for the arc-standard parser (Huang & Sagae 2010).

Two beam items whose *kernels* are equal -- everything the features read (the records of s0
and s1, the next queue position), whether s1 exists, and where s0's span starts -- score every
future action alike, so they are merged into one node. A node no longer holds its whole
stack: it keeps a list of predecessor nodes (a graph-structured stack), the nodes it could
have been shifted from. Each node carries a prefix score (best score of any action sequence
reaching it) and an inside score (best score of the actions after the shift of s0's first
word). Shifting from p: prefix(p) + shift score, inside 0. Reducing p with a predecessor q
(p's s1 is q's s0): prefix(q) + q's shift score + inside(p) + the reduce's score, inside
inside(q) + q's shift score + inside(p) + the reduce's score; the new node's s1 and
predecessors are q's. (The shift score is added back at the reduce, from q, because nodes
merged after a shift may have been shifted from predecessors that scored the shift
differently.) A merged node keeps the best prefix and the best inside score with their
back-pointers, and the union of the predecessor lists.

The candidates of a step are ranked by prefix score; the best ``2 * beam`` are built and merged
best first until ``beam`` distinct nodes are kept. The nodes, their scores, back-pointers and
merging are the graph-structured stack the constituency DP search shares
(:mod:`hetdep.transition._graph_stack`); the stack records and kernels are this parser's own.
The search modes and the returned best action sequence are those of
:func:`hetdep.transition._beam.search`, so training and decoding use either.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition import _graph_stack as gss
from hetdep.transition._beam import FIELDS, GROUPS, N_ATOMS, N_GROUPS, PR, SH, WORD, apply, gold_step, score_item
from hetdep.transition._core import add_gold_score, beats, new_trail, offer, sort_survivors
from hetdep.transition._memos import group_memo_capacity, new_group_memo

_MULT = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def _kernel_hash(rec, clip, nxt, left, node):
    h = np.uint64(clip[node] + 1)
    for side in range(2):
        for f in range(FIELDS):
            h = (h ^ np.uint64(rec[node, side, f])) * _MULT
            h ^= h >> np.uint64(31)
    h = (h ^ np.uint64(nxt[node])) * _MULT
    h = (h ^ np.uint64(left[node])) * _MULT
    return h ^ (h >> np.uint64(29))


@njit(cache=True, inline="always")
def _same_kernel(rec, clip, nxt, left, a, b):
    if clip[a] != clip[b] or nxt[a] != nxt[b] or left[a] != left[b]:
        return False
    for side in range(2):
        for f in range(FIELDS):
            if rec[a, side, f] != rec[b, side, f]:
                return False
    return True


@njit(cache=True, nogil=True)
def search(words, tags, n, beam, templates, table, rows, n_labels, gold, mode):
    """:func:`hetdep.transition._beam.search` with merged states; same arguments, modes and result."""
    n_actions = 2 + 2 * n_labels
    steps = 2 * n
    wide = 2 * beam
    capacity = steps * wide + 1
    g = gss.new_graph_stack(capacity)
    rec = np.zeros((capacity, 2, FIELDS), dtype=np.int64)  # s0's record at [node, clip - 1], s1's at [node, 0]
    clip = np.zeros(capacity, dtype=np.int64)  # stack depth, at most 2 (what the features see)
    nxt = np.ones(capacity, dtype=np.int64)
    left = np.zeros(capacity, dtype=np.int64)  # first word of s0's span
    hashes = np.zeros(capacity, dtype=np.uint64)
    current = np.zeros(beam, dtype=np.int64)
    size = 1
    item_scores = np.zeros((beam, n_actions), dtype=np.float32)
    atoms = np.zeros(N_ATOMS, dtype=np.int64)
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    acc = np.zeros(n_actions, dtype=np.float32)
    arcs = np.arange(2, n_actions)  # the reduce actions, all valid whenever any is
    memo = new_group_memo(group_memo_capacity(steps, beam, n_actions, N_GROUPS), n_actions, GROUPS)
    trail = new_trail(steps, wide)  # heap and max-violation record (DP items backtrack through their own derivations)
    hs, ho = trail.heap_score, trail.heap_order
    built = np.zeros(wide, dtype=np.int64)  # node each survivor became (after merging)
    kept = np.zeros(beam, dtype=np.int64)
    stride = g.pool_node.shape[0] + 1
    train = mode != DECODE
    gold_path = gss.new_gold_path(steps)
    # Max-violation: the gold prefix scored beside the beam, as in _beam.search.
    gstk = np.zeros((1, n + 1, FIELDS), dtype=np.int64)
    gslen = np.zeros(1, dtype=np.int64)
    gnxt = np.ones(1, dtype=np.int64)
    hist_best = np.zeros(steps, dtype=np.int64)  # best node of each step (max-violation)
    actions = trail.actions
    for step in range(steps):
        if mode == MAX_VIOLATION:
            add_gold_score(trail, gold_step(gstk, gslen, gnxt, n, words, tags, templates, table, rows, atoms, keys, acc, memo,
                                            gold[step], n_labels))
        filled = 0
        for bi in range(size):
            p = current[bi]
            first, last, extra = score_item(rec, clip, nxt, p, n, words, tags, templates, table, rows, atoms, keys, acc, memo)
            item_scores[bi, :] = acc
            g.shift_score[p] = np.float64(acc[SH])
            if extra >= 0:
                value = g.prefix[p] + np.float64(acc[extra])
                order = (bi * stride) * n_actions + extra
                if beats(hs, ho, filled, wide, value, order):
                    filled = offer(hs, ho, filled, wide, value, order)
            if last > first:
                best_action = acc[first]
                for a in range(first + 1, last):
                    best_action = max(best_action, acc[a])
                filled = gss.offer_reductions(g, hs, ho, filled, wide, p, bi, stride, n_actions, acc, arcs, last - first,
                                          np.float64(best_action))
        sort_survivors(hs, ho, filled)
        count = 0
        next_gold = -1
        for j in range(filled):
            a, entry, bi = gss.candidate(ho[j], n_actions, stride)
            p = current[bi]
            node = gss.new_node(g, hs[j])
            if a == SH:
                rec[node, :, :] = 0
                if clip[p] >= 1:
                    rec[node, 0, :] = rec[p, clip[p] - 1, :]
                clip[node] = min(clip[p] + 1, 2)
                rec[node, clip[node] - 1, WORD] = nxt[p]
                nxt[node] = nxt[p] + 1
                left[node] = nxt[p]
                gss.shifted(g, node, p)
            elif a == PR:
                rec[node, :, :] = rec[p, :, :]
                clip[node] = 0
                nxt[node] = nxt[p]
                left[node] = left[p]
                gss.stepped(g, node, p, PR, np.float64(item_scores[bi, PR]))
            else:
                q = g.pool_node[entry]
                rec[node, :, :] = rec[p, :, :]
                clip[node] = 2
                nxt[node] = nxt[p]
                apply(rec, clip, nxt, node, a, n_labels)  # the head's record, merged, lands in [node, 0]
                clip[node] = clip[q]  # the stack below is q's
                if clip[node] == 2:
                    rec[node, 1, :] = rec[node, 0, :]
                    rec[node, 0, :] = rec[q, 0, :]
                else:
                    rec[node, 1, :] = 0
                left[node] = left[q]
                gss.reduced(g, node, q, p, a, np.float64(item_scores[bi, a]))
            hashes[node] = _kernel_hash(rec, clip, nxt, left, node)
            # Merge into a kept node with the same kernel (kept nodes have higher or equal prefix scores).
            target = -1
            for i in range(count):
                other = kept[i]
                if hashes[other] == hashes[node] and _same_kernel(rec, clip, nxt, left, other, node):
                    target = other
                    break
            built[j], count = gss.settle(g, node, target, kept, count, beam)
            if train and gss.extends_gold(g, gold_path, node, p, a, gold[step], entry):
                next_gold = built[j]
        size = count
        if gss.close_step(mode, trail, step, g, gold_path, _kind(gold[step]), next_gold, kept, count, current, hist_best):
            return actions, gss.derivation(g, kept[0], actions, SH), g.prefix[kept[0]]
    return gss.result(mode, trail, gold, g, current[0], hist_best, actions, SH)


@njit(cache=True, inline="always")
def _kind(action):
    """The kind of node an action makes (see :mod:`hetdep.transition._graph_stack`)."""
    return gss.SHIFTED if action == SH else gss.STEPPED if action == PR else gss.REDUCED
