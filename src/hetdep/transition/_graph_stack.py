"""The graph-structured stack (numba) every beam search with dynamic programming shares: the
arc-standard one (:mod:`hetdep.transition._dp`) and the constituency one
(:mod:`hetdep.constituency._dp`). What their nodes hold beyond it (stack records, tree nodes)
and what makes two nodes' kernels equal is their own.

A node is made from a node p of the step before by one of three kinds of action, with the
candidate's prefix score (the best of any action sequence reaching it):

- SHIFTED: a shift from p; inside score 0, predecessors {p};
- STEPPED: an action on s0 alone (pop-root, a unary reduce): inside(p) + its score, p's predecessors;
- REDUCED: p's s0 reduced with the s0 of one of p's predecessors q: inside(q) + q's shift score +
  inside(p) + its score, q's predecessors. The shift score is added back from q because nodes
  merged after a shift may come from predecessors that scored it differently.

Nodes whose kernels are equal merge (``settle``): the kept node keeps the best prefix (it came
first), the best inside score with its back-pointers, and the union of both predecessor lists
(immutable linked lists in one pool, shared between nodes).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from hetdep.learn.perceptron import DECODE, EARLY, MAX_VIOLATION
from hetdep.transition._core import beats, copy_row, note_violation, offer

START, SHIFTED, STEPPED, REDUCED = 0, 1, 2, 3  # the kinds of nodes (see derivation)

# full_*: the best whole derivation's back-pointers (q, p, action), in_*: the best inside one's;
# pred_head: each node's predecessor list in the pool (pool_node, pool_next; -1 ends a list);
# fill: [nodes made, pool entries used].
GraphStack = namedtuple("GraphStack", ["prefix", "inside", "shift_score", "kind", "full_q", "full_p", "full_a", "in_q",
                                       "in_p", "in_a", "pred_head", "pool_node", "pool_next", "fill"])
# The gold prefix's node and how deep its stack is, and the nodes its stack's words were shifted from.
GoldPath = namedtuple("GoldPath", ["at", "preds"])


@njit(cache=True)
def new_graph_stack(capacity):
    """Room for ``capacity`` nodes, node 0 the start (an empty stack)."""
    pool = capacity * 8
    fill = np.zeros(2, dtype=np.int64)
    fill[0] = 1
    ints = [np.zeros(capacity, dtype=np.int64) for _ in range(6)]
    return GraphStack(np.zeros(capacity, dtype=np.float64), np.zeros(capacity, dtype=np.float64),
                      np.zeros(capacity, dtype=np.float64), np.zeros(capacity, dtype=np.int8), ints[0], ints[1], ints[2],
                      ints[3], ints[4], ints[5], np.full(capacity, -1, dtype=np.int64), np.zeros(pool, dtype=np.int64),
                      np.zeros(pool, dtype=np.int64), fill)


@njit(cache=True)
def new_gold_path(steps):
    return GoldPath(np.zeros(2, dtype=np.int64), np.zeros(steps + 1, dtype=np.int64))


@njit(cache=True, inline="always")
def new_node(g, prefix):
    """A new node with this prefix score; its kind is set by ``shifted``, ``stepped`` or ``reduced``."""
    node = g.fill[0]
    g.fill[0] = node + 1
    g.prefix[node] = prefix
    return node


@njit(cache=True, inline="always")
def shifted(g, node, p):
    g.inside[node] = 0.0
    g.kind[node] = SHIFTED
    g.full_q[node] = p
    used = g.fill[1]
    if used < g.pool_node.shape[0]:
        g.pool_node[used] = p
        g.pool_next[used] = -1
        g.pred_head[node] = used
        g.fill[1] = used + 1


@njit(cache=True, inline="always")
def stepped(g, node, p, action, score):
    g.inside[node] = g.inside[p] + score
    g.kind[node] = STEPPED
    g.full_p[node], g.full_a[node] = p, action
    g.in_p[node], g.in_a[node] = p, action
    g.pred_head[node] = g.pred_head[p]


@njit(cache=True, inline="always")
def reduced(g, node, q, p, action, score):
    g.inside[node] = g.inside[q] + g.shift_score[q] + g.inside[p] + score
    g.kind[node] = REDUCED
    g.full_q[node], g.full_p[node], g.full_a[node] = q, p, action
    g.in_q[node], g.in_p[node], g.in_a[node] = q, p, action
    g.pred_head[node] = g.pred_head[q]


@njit(cache=True, inline="always")
def offer_reductions(g, hs, ho, filled, wide, p, bi, stride, n_actions, acc, binary, n_binary, best):
    """Offer the heap node p's reductions with each of its predecessors: ``binary[:n_binary]`` the
    valid reduce actions, ``best`` their highest score in ``acc`` (a predecessor none of whose
    reductions can enter is passed over). Order: (bi * stride + entry + 1) * n_actions + action,
    entry the predecessor's place in the pool. Returns the heap's fill."""
    entry = g.pred_head[p]
    while entry >= 0:
        q = g.pool_node[entry]
        base = g.prefix[q] + g.shift_score[q] + g.inside[p]
        order = (bi * stride + entry + 1) * n_actions
        if beats(hs, ho, filled, wide, base + best, order):
            for i in range(n_binary):
                a = binary[i]
                value = base + np.float64(acc[a])
                if beats(hs, ho, filled, wide, value, order + a):
                    filled = offer(hs, ho, filled, wide, value, order + a)
        entry = g.pool_next[entry]
    return filled


@njit(cache=True, inline="always")
def candidate(order, n_actions, stride):
    """(action, the predecessor's pool entry or -1, the parent's place in the beam) of a
    candidate's order (see ``offer_reductions``)."""
    rest = order // n_actions
    return order % n_actions, rest % stride - 1, rest // stride


@njit(cache=True, inline="always")
def settle(g, node, target, kept, count, beam):
    """Merge ``node`` into ``target`` (a kept node of the same kernel; -1: none), else keep it if the
    beam has room. Returns (the node it became, -1 if dropped; the number kept)."""
    if target >= 0:
        if g.inside[node] > g.inside[target]:
            g.inside[target] = g.inside[node]
            g.in_q[target], g.in_p[target], g.in_a[target] = g.in_q[node], g.in_p[node], g.in_a[node]
        union_predecessors(g, node, target)
        return target, count
    if count < beam:
        kept[count] = node
        return node, count + 1
    return -1, count


@njit(cache=True, inline="always")
def union_predecessors(g, node, target):
    """Merging ``node`` into ``target``: node's predecessors that target lacks are prepended to
    target's list (a full pool drops them: the search stays exact for what it keeps)."""
    entry = g.pred_head[node]
    while entry >= 0:
        q = g.pool_node[entry]
        seen = False
        other_entry = g.pred_head[target]
        while other_entry >= 0:
            if g.pool_node[other_entry] == q:
                seen = True
                break
            other_entry = g.pool_next[other_entry]
        used = g.fill[1]
        if not seen and used < g.pool_node.shape[0]:
            g.pool_node[used] = q
            g.pool_next[used] = g.pred_head[target]
            g.pred_head[target] = used
            g.fill[1] = used + 1
        entry = g.pool_next[entry]


@njit(cache=True, inline="always")
def extends_gold(g, gold, node, p, action, gold_action, entry):
    """Whether ``node``, made from p by ``action`` (a reduction with the predecessor at pool
    ``entry``), holds the gold prefix one step further."""
    if p != gold.at[0] or action != gold_action:
        return False
    if g.kind[node] != REDUCED:
        return True
    depth = gold.at[1]
    return depth > 0 and g.pool_node[entry] == gold.preds[depth - 1]


@njit(cache=True, inline="always")
def follow_gold(gold, gold_kind, next_gold):
    """The gold prefix took a step of ``gold_kind`` and is held by ``next_gold`` (-1: it fell out)."""
    depth = gold.at[1]
    if gold_kind == SHIFTED:
        gold.preds[depth] = gold.at[0]
        gold.at[1] = depth + 1
    elif gold_kind == REDUCED:
        gold.at[1] = depth - 1
    gold.at[0] = next_gold


@njit(cache=True, inline="always")
def close_step(mode, trail, step, g, gold, gold_kind, next_gold, kept, count, current, hist_best):
    """The step's ``count`` kept nodes become the beam, the gold path follows its step (under
    training: ``gold_kind``, ``next_gold`` as ``follow_gold`` takes them), max-violation notes
    the step. Returns whether early update stops here (the gold prefix fell out)."""
    if mode != DECODE:
        follow_gold(gold, gold_kind, next_gold)
    copy_row(kept[:count], current[:count])
    best = kept[0]
    hist_best[step] = best
    if mode == EARLY and gold.at[0] < 0:
        return True
    note_violation(mode, trail, step, g.prefix[best], best_is_gold(trail, best, gold.at[0], g.prefix[best]))
    return False


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
def result(mode, trail, gold, g, best, hist_best, out, shift):
    """What a DP search returns once it ran to the end: (actions, length, score) of node ``best``'s
    derivation, or under max-violation of the best node of the step of the worst violation
    (``hist_best``: each step's best node), or the gold sequence and its score when no step violated."""
    if mode == MAX_VIOLATION:
        worst_step = int(trail.violation[2])
        if worst_step < 0:
            out[:] = gold
            return out, out.shape[0], trail.violation[0]
        best = hist_best[worst_step]
    return out, derivation(g, best, out, shift), g.prefix[best]


@njit(cache=True)
def derivation(g, node, out, shift):
    """The best action sequence reaching ``node``, written into ``out`` (returns its length);
    ``shift``: the search's shift action.

    Collected backwards: a SHIFTED node is full(q) + [shift] (inside: [shift]); a STEPPED node
    full(p) + [a] (inside(p) + [a]); a REDUCED node full(q) + inside(p) + [a] (inside(q') +
    inside(p') + [a']).
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
        k = g.kind[v]
        if k == START:
            continue
        if k == SHIFTED:
            backwards[count] = shift
            count += 1
            if whole:
                work_node[top], work_full[top] = g.full_q[v], True
                top += 1
        elif k == STEPPED:
            backwards[count] = g.full_a[v] if whole else g.in_a[v]
            count += 1
            work_node[top], work_full[top] = (g.full_p[v] if whole else g.in_p[v]), whole
            top += 1
        elif whole:
            backwards[count] = g.full_a[v]
            count += 1
            work_node[top], work_full[top] = g.full_q[v], True
            work_node[top + 1], work_full[top + 1] = g.full_p[v], False
            top += 2
        else:
            backwards[count] = g.in_a[v]
            count += 1
            work_node[top], work_full[top] = g.in_q[v], False
            work_node[top + 1], work_full[top + 1] = g.in_p[v], False
            top += 2
    for i in range(count):
        out[i] = backwards[count - 1 - i]
    return count
