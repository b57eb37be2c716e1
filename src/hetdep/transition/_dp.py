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
best first until ``beam`` distinct nodes are kept. The search modes and the returned best
action sequence are those of :func:`hetdep.transition._beam.search`, so training and decoding use either.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.learn.perceptron import DECODE, EARLY, MAX_VIOLATION
from hetdep.transition._beam import FIELDS, N_ATOMS, PR, SH, WORD, apply, gold_step, score_item
from hetdep.transition._core import add_gold_score, beats, new_trail, note_violation, offer, sort_survivors
from hetdep.transition._memos import group_memo_capacity, new_group_memo

START, SHIFTED, STEPPED, REDUCED = 0, 1, 2, 3  # the kinds of DP nodes (see derivation)
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


@njit(cache=True, inline="always")
def union_predecessors(pred_head, pool_node, pool_next, pool_used, node, target):
    """Merging ``node`` into ``target``: node's predecessors that target lacks are prepended to
    target's list (immutable linked lists in one pool, shared between nodes); returns the pool's fill."""
    entry = pred_head[node]
    while entry >= 0:
        q = pool_node[entry]
        seen = False
        other_entry = pred_head[target]
        while other_entry >= 0:
            if pool_node[other_entry] == q:
                seen = True
                break
            other_entry = pool_next[other_entry]
        if not seen and pool_used < pool_node.shape[0]:
            pool_node[pool_used] = q
            pool_next[pool_used] = pred_head[target]
            pred_head[target] = pool_used
            pool_used += 1
        entry = pool_next[entry]
    return pool_used


@njit(cache=True, inline="always")
def best_is_gold(trail, best, gold_node, best_prefix):
    """Whether the best node's best derivation is the gold sequence's prefix. The gold node is a
    merged state: another derivation with the same kernel (another tree below the stack's top)
    can reach it with a higher prefix score than the gold one, and that is a violation to learn
    from even though the gold kernel leads the beam. Scores are compared with a tolerance for
    the different order in which a node's prefix and the gold prefix add the same steps."""
    gold_score = trail.violation[0]
    return best == gold_node and best_prefix <= gold_score + 1e-9 * max(1.0, abs(gold_score))


@njit(cache=True)
def derivation(kind, full_q, full_p, full_a, in_q, in_p, in_a, node, out, shift):
    """The best action sequence reaching ``node``, written into ``out`` (returns its length); every
    DP search's nodes are of the four kinds, ``shift`` being its shift action's id.

    Collected backwards: a SHIFTED node is full(q) + [shift] (inside: [shift]); a STEPPED node, made
    by an action on its s0 alone (pop-root, a unary step), full(p) + [a] (inside(p) + [a]); a
    REDUCED node full(q) + inside(p) + [a] (inside(q') + inside(p') + [a']).
    """
    work_node = np.zeros(4 * out.shape[0] + 8, dtype=np.int64)
    work_full = np.zeros(4 * out.shape[0] + 8, dtype=np.bool_)
    backwards = np.zeros(out.shape[0], dtype=np.int32)
    count = 0
    top = 1
    work_node[0], work_full[0] = node, True
    while top > 0:
        top -= 1
        v, whole = work_node[top], work_full[top]
        k = kind[v]
        if k == START:
            continue
        if k == SHIFTED:
            backwards[count] = shift
            count += 1
            if whole:
                work_node[top], work_full[top] = full_q[v], True
                top += 1
        elif k == STEPPED:
            backwards[count] = full_a[v] if whole else in_a[v]
            count += 1
            work_node[top], work_full[top] = (full_p[v] if whole else in_p[v]), whole
            top += 1
        elif whole:
            backwards[count] = full_a[v]
            count += 1
            work_node[top], work_full[top] = full_q[v], True
            work_node[top + 1], work_full[top + 1] = full_p[v], False
            top += 2
        else:
            backwards[count] = in_a[v]
            count += 1
            work_node[top], work_full[top] = in_q[v], False
            work_node[top + 1], work_full[top + 1] = in_p[v], False
            top += 2
    for i in range(count):
        out[i] = backwards[count - 1 - i]
    return count


@njit(cache=True, nogil=True)
def search(words, tags, n, beam, templates, table, rows, n_labels, gold, mode):
    """:func:`hetdep.transition._beam.search` with merged states; same arguments, modes and result."""
    n_actions = 2 + 2 * n_labels
    steps = 2 * n
    wide = 2 * beam
    capacity = steps * wide + 1
    rec = np.zeros((capacity, 2, FIELDS), dtype=np.int64)  # s0's record at [node, clip - 1], s1's at [node, 0]
    clip = np.zeros(capacity, dtype=np.int64)  # stack depth, at most 2 (what the features see)
    nxt = np.ones(capacity, dtype=np.int64)
    left = np.zeros(capacity, dtype=np.int64)  # first word of s0's span
    prefix = np.zeros(capacity, dtype=np.float64)
    inside = np.zeros(capacity, dtype=np.float64)
    shift_score = np.zeros(capacity, dtype=np.float64)  # the score of shifting from this node
    kind = np.zeros(capacity, dtype=np.int8)
    hashes = np.zeros(capacity, dtype=np.uint64)
    full_q = np.zeros(capacity, dtype=np.int64)
    full_p = np.zeros(capacity, dtype=np.int64)
    full_a = np.zeros(capacity, dtype=np.int64)
    in_q = np.zeros(capacity, dtype=np.int64)
    in_p = np.zeros(capacity, dtype=np.int64)
    in_a = np.zeros(capacity, dtype=np.int64)
    # Predecessor lists: immutable linked lists in a pool, shared between nodes.
    pred_head = np.full(capacity, -1, dtype=np.int64)
    pool = capacity * 8
    pool_node = np.zeros(pool, dtype=np.int64)
    pool_next = np.zeros(pool, dtype=np.int64)
    pool_used = 0
    current = np.zeros(beam, dtype=np.int64)
    size = 1
    nodes = 1  # node 0: the start, empty stack
    item_scores = np.zeros((beam, n_actions), dtype=np.float32)
    atoms = np.zeros(N_ATOMS, dtype=np.int64)
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    acc = np.zeros(n_actions, dtype=np.float32)
    memo = new_group_memo(group_memo_capacity(steps, beam, n_actions), n_actions)
    trail = new_trail(steps, wide)  # heap and max-violation record (DP items backtrack through their own derivations)
    hs, ho = trail.heap_score, trail.heap_order
    built = np.zeros(wide, dtype=np.int64)  # node each survivor became (after merging)
    kept = np.zeros(beam, dtype=np.int64)
    stride = pool + 1
    train = mode != DECODE
    # Gold bookkeeping: the node holding the gold prefix, and its predecessors as a stack.
    gold_node = 0
    gold_preds = np.zeros(steps + 1, dtype=np.int64)
    gold_depth = 0
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
            shift_score[p] = np.float64(acc[SH])
            if extra >= 0:
                value = prefix[p] + np.float64(acc[extra])
                order = (bi * stride) * n_actions + extra
                if beats(hs, ho, filled, wide, value, order):
                    filled = offer(hs, ho, filled, wide, value, order)
            if last > first:
                best_action = acc[first]
                for a in range(first + 1, last):
                    best_action = max(best_action, acc[a])
                entry = pred_head[p]
                while entry >= 0:
                    q = pool_node[entry]
                    base = prefix[q] + shift_score[q] + inside[p]
                    if beats(hs, ho, filled, wide, base + np.float64(best_action), (bi * stride + entry + 1) * n_actions):
                        for a in range(first, last):
                            value = base + np.float64(acc[a])
                            order = (bi * stride + entry + 1) * n_actions + a
                            if beats(hs, ho, filled, wide, value, order):
                                filled = offer(hs, ho, filled, wide, value, order)
                    entry = pool_next[entry]
        sort_survivors(hs, ho, filled)
        gold_action = gold[step]
        next_gold = -1
        count = 0
        for j in range(filled):
            a = ho[j] % n_actions
            rest = ho[j] // n_actions
            entry = rest % stride - 1
            bi = rest // stride
            p = current[bi]
            node = nodes
            nodes += 1
            prefix[node] = hs[j]
            if a == SH:
                rec[node, :, :] = 0
                if clip[p] >= 1:
                    rec[node, 0, :] = rec[p, clip[p] - 1, :]
                clip[node] = min(clip[p] + 1, 2)
                rec[node, clip[node] - 1, WORD] = nxt[p]
                nxt[node] = nxt[p] + 1
                left[node] = nxt[p]
                inside[node] = 0.0
                kind[node] = SHIFTED
                full_q[node] = p
                if pool_used < pool:
                    pool_node[pool_used] = p
                    pool_next[pool_used] = -1
                    pred_head[node] = pool_used
                    pool_used += 1
            elif a == PR:
                rec[node, :, :] = rec[p, :, :]
                clip[node] = 0
                nxt[node] = nxt[p]
                left[node] = left[p]
                kind[node] = STEPPED
                full_p[node], full_a[node] = p, PR
                in_p[node], in_a[node] = p, PR
            else:
                q = pool_node[entry]
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
                inside[node] = inside[q] + shift_score[q] + inside[p] + np.float64(item_scores[bi, a])
                kind[node] = REDUCED
                full_q[node], full_p[node], full_a[node] = q, p, a
                in_q[node], in_p[node], in_a[node] = q, p, a
                pred_head[node] = pred_head[q]
            hashes[node] = _kernel_hash(rec, clip, nxt, left, node)
            # Merge into a kept node with the same kernel (kept nodes have higher or equal prefix scores).
            target = -1
            for i in range(count):
                other = kept[i]
                if hashes[other] == hashes[node] and _same_kernel(rec, clip, nxt, left, other, node):
                    target = other
                    break
            if target >= 0:
                if kind[node] == REDUCED and (kind[target] != REDUCED or inside[node] > inside[target]):
                    inside[target] = inside[node]
                    in_q[target], in_p[target], in_a[target] = in_q[node], in_p[node], in_a[node]
                pool_used = union_predecessors(pred_head, pool_node, pool_next, pool_used, node, target)
                built[j] = target
            elif count < beam:
                kept[count] = node
                count += 1
                built[j] = node
            else:
                built[j] = -1
            if train and p == gold_node and a == gold_action and (a == SH or a == PR or (
                    gold_depth > 0 and pool_node[entry] == gold_preds[gold_depth - 1])):
                next_gold = built[j]
        if train:
            if gold_action == SH:
                gold_preds[gold_depth] = gold_node
                gold_depth += 1
            elif gold_action != PR:
                gold_depth -= 1
            gold_node = next_gold
        current[:count] = kept[:count]
        size = count
        hist_best[step] = kept[0]
        if mode == EARLY and gold_node < 0:
            length = derivation(kind, full_q, full_p, full_a, in_q, in_p, in_a, kept[0], actions, SH)
            return actions, length, prefix[kept[0]]
        note_violation(mode, trail, step, prefix[kept[0]], best_is_gold(trail, kept[0], gold_node, prefix[kept[0]]))
    if mode == MAX_VIOLATION:
        worst_step = int(trail.violation[2])
        if worst_step < 0:  # the gold sequence ends best: nothing to learn
            actions[:] = gold
            return actions, steps, trail.violation[0]
        length = derivation(kind, full_q, full_p, full_a, in_q, in_p, in_a, hist_best[worst_step], actions, SH)
        return actions, length, prefix[hist_best[worst_step]]
    best = current[0] if steps else 0
    length = derivation(kind, full_q, full_p, full_a, in_q, in_p, in_a, best, actions, SH)
    return actions, length, prefix[best]
