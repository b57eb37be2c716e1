"""Beam search with dynamic programming for the constituency parser (mi-huang2015, after Huang &
Sagae 2010), unary steps included.

Two beam states whose *kernels* are equal -- everything the features and the validity rules read
(the stack atoms of s0..s3 and the children of s0 and s1 that the model's templates read: all
but s3's head word for Zhu et al.'s; s0's head side), the next word, and where s0's span starts -- score every future action
alike, so they merge into one node of a graph-structured stack: it keeps the union of its
predecessors (the nodes its s0's first word was shifted from), the best prefix score (of any
action sequence reaching it) and the best inside score (of the actions since that shift), each
with a back-pointer.

- shift from p: prefix(p) + shift score, inside 0, predecessors {p};
- a unary step (a unary reduce, none, or finish) from p changes s0 alone: prefix(p) + score and
  inside(p) + score, p's predecessors;
- a binary reduce of p with each predecessor q (p's s1 is q's s0): prefix(q) + q's shift score +
  inside(p) + the reduce's score, inside(q) + q's shift score + inside(p) + the reduce's score,
  q's predecessors. The shift score is added back from q because nodes merged after a shift
  may come from predecessors that scored it differently.

As in the dependency DP (:mod:`hetdep.transition._dp`), whose graph-structured stack it shares
(:mod:`hetdep.transition._graph_stack`), the best ``2 * beam`` candidates of a
step are built best first and merged until ``beam`` distinct nodes are kept; modes and results
are those of :func:`hetdep.constituency._search.search`, whose scoring and validity it shares.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from hetdep.constituency._search import (
    HEAD_LEFT,
    N_ATOMS,
    NO_UNARY,
    SHIFT,
    apply,
    fill_atoms,
    new_binary,
    new_pool,
    new_queue_sums,
    new_unary,
    new_word,
    score_state,
    top_nodes,
    valid_actions,
)
from hetdep.constituency.features import QUEUE_FIRST, QUEUE_STOP
from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition import _graph_stack as gss
from hetdep.transition._core import add_gold_score, beats, copy_row, new_trail, offer, sort_survivors

_MULT = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def kernel_atoms(templates):
    """The stack atoms some template reads, in increasing order: with s0's head side, the next
    word and s0's first word, a state's kernel (Zhu et al.'s templates read all but s3's word)."""
    read = np.zeros(N_ATOMS, dtype=np.bool_)
    for t in range(templates.shape[0]):
        for j in range(templates.shape[1]):
            if templates[t, j] >= 0:
                read[templates[t, j]] = True
    count = 0
    out = np.zeros(N_ATOMS, dtype=np.int64)
    for a in range(N_ATOMS):
        if read[a] and not QUEUE_FIRST <= a < QUEUE_STOP:  # the queue's follow from the next word
            out[count] = a
            count += 1
    return out[:count]


@njit(cache=True, inline="always")
def _kernel(atoms, read, nodes, s0, nxt, left, out):
    for i in range(read.shape[0]):
        out[i] = atoms[read[i]]
    size = read.shape[0]
    out[size] = nodes[s0, HEAD_LEFT]
    out[size + 1] = nxt
    out[size + 2] = left
    h = np.uint64(1)
    for i in range(size + 3):
        h = (h ^ np.uint64(out[i])) * _MULT
        h ^= h >> np.uint64(31)
    return h


@njit(cache=True, inline="always")
def _same(kernels, a, b):
    for i in range(kernels.shape[1]):
        if kernels[a, i] != kernels[b, i]:
            return False
    return True


# What the search keeps of each node of its graph-structured stack, beside the stack's own arrays
# (:mod:`hetdep.transition._graph_stack`): its top four tree nodes (s0 first), stack depth, next
# word, first word of s0's span, kernel and the kernel's hash, and the item of the step before
# whose scores it takes (-1: none; a node that declined a unary reduce has its parent's state).
Nodes = namedtuple("Nodes", ["stack", "depth", "nxt", "left", "kernels", "hashes", "same_as"])


@njit(cache=True, nogil=True)
def search(words, tags, n, beam, templates, table, rows, n_labels, n_unaries, gold, mode):
    """:func:`hetdep.constituency._search.search` with merged states; same arguments, modes and result."""
    n_actions = 3 + 4 * n_labels + n_unaries
    steps = 4 * n - 1
    wide = 2 * beam
    capacity = steps * wide + 1
    g = gss.new_graph_stack(capacity)
    tree_nodes, cells, used = new_pool(capacity + 4 * n + 4)  # the cells serve the gold path alone
    read = kernel_atoms(templates)
    nodes = Nodes(np.zeros((capacity, 4), dtype=np.int64), np.zeros(capacity, dtype=np.int64), np.ones(capacity, dtype=np.int64),
                  np.zeros(capacity, dtype=np.int64), np.zeros((capacity, read.shape[0] + 3), dtype=np.int64),
                  np.zeros(capacity, dtype=np.uint64), np.full(capacity, -1, dtype=np.int64))
    current = np.zeros(beam, dtype=np.int64)
    kept = np.zeros(beam, dtype=np.int64)
    trail = new_trail(steps, wide)
    hist_best = np.zeros(steps, dtype=np.int64)
    stopped = _steps(words, tags, n, beam, templates, table, rows, n_labels, n_unaries, gold, mode, g, tree_nodes, cells, used,
                     read, nodes, current, kept, trail, hist_best, gss.new_gold_path(steps),
                     np.zeros((beam, n_actions), dtype=np.float32), np.zeros((beam, n_actions), dtype=np.float32),
                     np.zeros(N_ATOMS, dtype=np.int64), np.zeros(templates.shape[0], dtype=np.uint64),
                     np.zeros(n_actions, dtype=np.float32), np.zeros(n_actions, dtype=np.float32),
                     new_queue_sums(templates, n, n_actions), np.zeros(4, dtype=np.int64), np.zeros(wide, dtype=np.int64),
                     np.zeros(n_actions, dtype=np.int64), np.zeros(n_actions, dtype=np.int64))
    if stopped:
        return trail.actions, gss.derivation(g, kept[0], trail.actions, SHIFT), g.prefix[kept[0]]
    return gss.result(mode, trail, gold, g, current[0], hist_best, trail.actions, SHIFT)


@njit(cache=True, _nrt=False, nogil=True)
def _steps(words, tags, n, beam, templates, table, rows, n_labels, n_unaries, gold, mode, g, tree_nodes, cells, used, read,
           nodes, current, kept, trail, hist_best, gold_path, item_scores, last_item_scores, atoms, keys, acc, gold_acc, queue,
           four, built, valid, binary):
    """The steps of :func:`search`, without reference counting as :func:`hetdep.constituency._search._steps`
    (``item_scores``: this step's items' action scores, ``last_item_scores`` the step before's;
    ``gold_acc``: the gold prefix's state's, under max-violation): returns whether early update
    stopped them (then the best node is ``kept[0]``)."""
    n_actions = 3 + 4 * n_labels + n_unaries
    first_unary = 3 + 4 * n_labels
    steps = 4 * n - 1
    wide = 2 * beam
    stack, depth, nxt, left, kernels, hashes, same_as = nodes
    size = 1
    hs, ho = trail.heap_score, trail.heap_order
    stride = g.pool_node.shape[0] + 1
    train = mode != DECODE
    gold_top, gold_nxt, gold_stack_depth = 0, 1, 0
    for step in range(steps):
        if mode == MAX_VIOLATION:
            if step == 0 or gold[step - 1] != NO_UNARY:  # else gold_acc holds the same state's scores
                top_nodes(cells, gold_top, four)
                score_state(tree_nodes, four, gold_nxt, n, words, tags, templates, table, rows, atoms, keys, gold_acc, queue,
                            False)
            add_gold_score(trail, np.float64(gold_acc[gold[step]]))
            gold_top, gold_nxt, gold_stack_depth = apply(tree_nodes, cells, used, gold_top, gold_nxt, gold_stack_depth,
                                                         gold[step], tags, n_labels)
        filled = 0
        for bi in range(size):
            p = current[bi]
            if same_as[p] >= 0:
                copy_row(last_item_scores[same_as[p]], acc)
            else:
                score_state(tree_nodes, stack[p], nxt[p], n, words, tags, templates, table, rows, atoms, keys, acc, queue, False)
            copy_row(acc, item_scores[bi])
            g.shift_score[p] = np.float64(acc[SHIFT])
            count = valid_actions(tree_nodes, stack[p], nxt[p] > n, depth[p], step, steps, first_unary, n_actions, valid)
            base = g.prefix[p]
            order = (bi * stride) * n_actions
            best_binary = -np.inf
            n_binary = 0
            for i in range(count):
                a = valid[i]
                if _kind(a, first_unary) == gss.REDUCED:  # with each predecessor, below
                    best_binary = max(best_binary, np.float64(acc[a]))
                    binary[n_binary] = a
                    n_binary += 1
                    continue
                value = base + np.float64(acc[a])
                if beats(hs, ho, filled, wide, value, order + a):
                    filled = offer(hs, ho, filled, wide, value, order + a)
            if n_binary:
                filled = gss.offer_reductions(g, hs, ho, filled, wide, p, bi, stride, n_actions, acc, binary, n_binary,
                                              best_binary)
        sort_survivors(hs, ho, filled)
        count = 0
        next_gold = -1
        for j in range(filled):
            a, entry, bi = gss.candidate(ho[j], n_actions, stride)
            p = current[bi]
            node = gss.new_node(g, hs[j])
            kind = _kind(a, first_unary)
            if kind == gss.SHIFTED:
                stack[node, 0] = new_word(tree_nodes, used, nxt[p], tags)
                copy_row(stack[p, :3], stack[node, 1:])
                depth[node] = depth[p] + 1
                nxt[node] = nxt[p] + 1
                left[node] = nxt[p]
                gss.shifted(g, node, p)
            elif kind == gss.STEPPED:  # s0 alone changes
                copy_row(stack[p], stack[node])
                if a >= first_unary:
                    stack[node, 0] = new_unary(tree_nodes, used, stack[p, 0], a, n_labels)
                depth[node] = depth[p]
                nxt[node] = nxt[p]
                left[node] = left[p]
                gss.stepped(g, node, p, a, np.float64(item_scores[bi, a]))
                if a == NO_UNARY:
                    same_as[node] = bi
            else:
                q = g.pool_node[entry]
                stack[node, 0] = new_binary(tree_nodes, used, stack[q, 0], stack[p, 0], a)
                copy_row(stack[q, 1:], stack[node, 1:])
                depth[node] = depth[q]
                nxt[node] = nxt[p]
                left[node] = left[q]
                gss.reduced(g, node, q, p, a, np.float64(item_scores[bi, a]))
            fill_atoms(tree_nodes, stack[node], nxt[node], n, words, tags, atoms)
            hashes[node] = _kernel(atoms, read, tree_nodes, stack[node, 0], nxt[node], left[node], kernels[node])
            target = -1
            for i in range(count):
                other = kept[i]
                if hashes[other] == hashes[node] and _same(kernels, other, node):
                    target = other
                    break
            built[j], count = gss.settle(g, node, target, kept, count, beam)
            if train and gss.extends_gold(g, gold_path, node, p, a, gold[step], entry):
                next_gold = built[j]
        item_scores, last_item_scores = last_item_scores, item_scores
        size = count
        gold_kind = _kind(gold[step], first_unary)
        if gss.close_step(mode, trail, step, g, gold_path, gold_kind, next_gold, kept, count, current, hist_best):
            return True
    return False




@njit(cache=True, inline="always")
def _kind(action, first_unary):
    """The kind of node an action makes: a shift, a step on s0 alone (finishing, idling, a unary
    reduce) or a binary reduce (see :mod:`hetdep.transition._graph_stack`)."""
    if action == SHIFT:
        return gss.SHIFTED
    return gss.STEPPED if action < 3 or action >= first_unary else gss.REDUCED
