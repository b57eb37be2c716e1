"""Compiled beam search and perceptron update of the constituency parser (numba).

Items share one pool of nodes and stack cells, so no item copies its stack: a node is a row
of ``nodes`` (head word, tag, phrase or unary label, temporary, head side, children, and its
constituent code); a stack is a linked list of ``cells`` (node, cell below). Shift, binary and
unary reduce each add one node and one cell; the other actions change nothing. Node and cell 0
stand for "absent" and the empty stack.

Everything here mirrors :mod:`hetdep.constituency.system` (validity, actions) and
:mod:`hetdep.constituency.features` (atoms, keys): tests check the twins agree; ties among
candidates break by (parent position, action id), as in the reference search.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from hetdep.constituency.features import KIND_SHIFT, PHRASE_KIND, QUEUE_FIRST, QUEUE_STOP, UNARY_KIND, WORD_KIND
from hetdep.learn import _weights
from hetdep.learn._keys import feature_key
from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition._core import (
    add_gold_score,
    beats,
    copy_row,
    finish,
    first_difference,
    new_trail,
    note_violation,
    offer,
    record,
    sort_survivors,
    stops_early,
)

SHIFT, NO_UNARY, FINISH = 0, 1, 2
# Node fields.
HEAD, TAG, BASE, UNARY, TEMP, HEAD_LEFT, LEFT, RIGHT, CHILD, CODE = range(10)
FIELDS = 10
N_ATOMS = 32


@njit(cache=True)
def new_pool(size):
    """Nodes and cells for ``size`` new ones, with row 0 the absent node and the empty stack."""
    nodes = np.zeros((size + 1, FIELDS), dtype=np.int64)
    nodes[0, TAG] = -1
    nodes[0, BASE] = -1
    nodes[0, UNARY] = -1
    return nodes, np.zeros((size + 1, 2), dtype=np.int64), np.ones(2, dtype=np.int64)  # used: nodes, cells


@njit(cache=True, inline="always")
def _new_node(nodes, used, head, tag, base, unary, temp, head_left, left, right, child):
    i = used[0]
    used[0] = i + 1
    nodes[i, HEAD] = head
    nodes[i, TAG] = tag
    nodes[i, BASE] = base
    nodes[i, UNARY] = unary
    nodes[i, TEMP] = temp
    nodes[i, HEAD_LEFT] = head_left
    nodes[i, LEFT] = left
    nodes[i, RIGHT] = right
    nodes[i, CHILD] = child
    if tag >= 0:
        nodes[i, CODE] = (WORD_KIND << KIND_SHIFT) + tag
    elif child > 0:
        nodes[i, CODE] = (UNARY_KIND << KIND_SHIFT) + unary
    else:
        nodes[i, CODE] = (PHRASE_KIND << KIND_SHIFT) + 2 * base + temp
    return i


@njit(cache=True, inline="always")
def _push(cells, used, node, below):
    c = used[1]
    used[1] = c + 1
    cells[c, 0] = node
    cells[c, 1] = below
    return c


@njit(cache=True, inline="always")
def new_word(nodes, used, k, tags):
    """The node of word k, as a shift makes it."""
    return _new_node(nodes, used, k, tags[k], -1, -1, 0, 1, 0, 0, 0)


@njit(cache=True, inline="always")
def new_unary(nodes, used, s0, action, n_labels):
    """The node a unary reduce makes over s0."""
    return _new_node(nodes, used, nodes[s0, HEAD], -1, -1, action - 3 - 4 * n_labels, 0, 1, 0, 0, s0)


@njit(cache=True, inline="always")
def new_binary(nodes, used, s1, s0, action):
    """The node a binary reduce makes over s1 (left) and s0 (right)."""
    code = action - 3
    label, head_left, temp = code // 4, code % 2 == 0, code % 4 >= 2
    head = nodes[s1, HEAD] if head_left else nodes[s0, HEAD]
    return _new_node(nodes, used, head, -1, label, -1, 1 if temp else 0, 1 if head_left else 0, s1, s0, 0)


@njit(cache=True)
def apply(nodes, cells, used, top, nxt, depth, action, tags, n_labels):
    """(top cell, next word, depth) after a valid action (see ``system.apply``)."""
    if action == NO_UNARY or action == FINISH:
        return top, nxt, depth
    if action == SHIFT:
        return _push(cells, used, new_word(nodes, used, nxt, tags), top), nxt + 1, depth + 1
    s0 = cells[top, 0]
    if action >= 3 + 4 * n_labels:
        return _push(cells, used, new_unary(nodes, used, s0, action, n_labels), cells[top, 1]), nxt, depth
    below = cells[top, 1]
    node = new_binary(nodes, used, cells[below, 0], s0, action)
    return _push(cells, used, node, cells[below, 1]), nxt, depth - 1


@njit(cache=True, inline="always")
def binary_valid(nodes, s0, s1, s2, queue_empty, action):
    """A binary reduce's validity (``system.valid``) in a main step, over stack nodes s0, s1 and s2
    (0: no third node)."""
    code = action - 3
    label, head_left, temp = code // 4, code % 2 == 0, code % 4 >= 2
    left_temp = nodes[s1, TEMP] == 1
    right_temp = nodes[s0, TEMP] == 1
    if left_temp and right_temp:
        return False
    if left_temp and not (head_left and label == nodes[s1, BASE]):
        return False
    if right_temp and not ((not head_left) and label == nodes[s0, BASE]):
        return False
    if temp and (s2 == 0 or nodes[s2, TEMP] == 1):
        return head_left and not queue_empty
    return True


@njit(cache=True, inline="always")
def shift_valid(nodes, s0, queue_empty):
    """Shift's validity in a main step: words left, and s0 (0: none) no temporary node headed on its right."""
    return not queue_empty and not (nodes[s0, TEMP] == 1 and nodes[s0, HEAD_LEFT] == 0)


@njit(cache=True, inline="always")
def valid_actions(nodes, four, queue_empty, depth, step, steps, first_unary, n_actions, out):
    """The valid actions (``system.valid``) of a state with top nodes ``four`` and ``depth`` nodes
    on its stack at ``step`` of ``steps``, in increasing order in ``out``; returns how many."""
    s0 = four[0]
    if step == steps - 1:
        out[0] = FINISH
        return 1
    if step % 2 == 1:  # a unary step
        out[0] = NO_UNARY
        if nodes[s0, TEMP] == 1:
            return 1
        for a in range(first_unary, n_actions):
            out[1 + a - first_unary] = a
        return 1 + n_actions - first_unary
    count = 0
    if shift_valid(nodes, s0, queue_empty):
        out[0] = SHIFT
        count = 1
    if depth >= 2:
        for a in range(3, first_unary):
            if binary_valid(nodes, s0, four[1], four[2], queue_empty, a):
                out[count] = a
                count += 1
    return count


@njit(cache=True, inline="always")
def top_nodes(cells, top, out):
    """The nodes of the stack's four top cells (0 where the stack is shallower), s0 first."""
    cell = top
    for i in range(4):
        out[i] = cells[cell, 0]
        cell = cells[cell, 1]


@njit(cache=True)
def fill_atoms(nodes, stack, nxt, n, words, tags, out):
    """The 32 atoms of a state whose top four nodes are ``stack`` (s0 first, 0: absent), in the
    order of ``features.ATOMS``."""
    out[:] = 0
    for i in range(4):
        node = stack[i]
        if node == 0:
            break
        head = nodes[node, HEAD]
        out[3 * i] = words[head]
        out[3 * i + 1] = tags[head]
        out[3 * i + 2] = nodes[node, CODE]
        if i < 2:
            for c in range(3):
                child = nodes[node, LEFT + c]
                if child > 0:
                    out[20 + 6 * i + 2 * c] = words[nodes[child, HEAD]]
                    out[21 + 6 * i + 2 * c] = nodes[child, CODE]
    for j in range(4):
        k = nxt + j
        if k <= n:
            out[12 + 2 * j] = words[k]
            out[13 + 2 * j] = tags[k]


@njit(cache=True)
def new_queue_sums(templates, n, n_actions):
    """The sums of the templates that read the queue alone (its words and tags: the same for every
    state at the same next word), by next word: (which templates, their sums, which are known)."""
    only = np.zeros(templates.shape[0], dtype=np.bool_)
    for t in range(templates.shape[0]):
        only[t] = True
        for j in range(templates.shape[1]):
            a = templates[t, j]
            if a >= 0 and not QUEUE_FIRST <= a < QUEUE_STOP:
                only[t] = False
    return only, np.zeros((n + 2, n_actions), dtype=np.float32), np.zeros(n + 2, dtype=np.bool_)


@njit(cache=True, inline="always")
def score_state(nodes, stack, nxt, n, words, tags, templates, table, rows, atoms, keys, acc, queue, tags_vary):
    """``acc`` = every action's score in a state (top nodes ``stack``, next word ``nxt``): the sum of
    the queue-only templates' rows (``new_queue_sums``; recalled by next word unless the queue's
    tags vary from item to item, over a tag lattice), then of the others' rows, in template order."""
    fill_atoms(nodes, stack, nxt, n, words, tags, atoms)
    only, sums, known = queue
    if tags_vary or not known[nxt]:
        row = sums[nxt]
        row[:] = 0.0
        for t in range(templates.shape[0]):
            if only[t]:
                _weights.add_row(_weights.lookup(table, feature_key(atoms, templates, t, 0)), rows, row)
        known[nxt] = not tags_vary
    for t in range(templates.shape[0]):
        if not only[t]:
            keys[t] = feature_key(atoms, templates, t, 0)
            _weights.prefetch(table, keys[t])
    entries = rows[0]
    for t in range(templates.shape[0]):  # the keys give way to their payloads
        if not only[t]:
            keys[t] = _weights.lookup(table, keys[t])
            _weights.prefetch_entries(keys[t], entries)
    copy_row(sums[nxt], acc)
    for t in range(templates.shape[0]):
        if not only[t]:
            _weights.add_row(keys[t], rows, acc)


# One side of a step's items (the beam's, or the next one's being filled): each item's top stack
# cell, next word, stack depth, whether it is the gold prefix, the parent whose scores it takes
# (-1: none; an item that declined a unary reduce has its parent's state), and its action scores.
Items = namedtuple("Items", ["top", "nxt", "depth", "is_gold", "same_as", "scores"])


@njit(cache=True)
def new_items(beam, n_actions):
    """Room for ``beam`` items (:data:`Items`)."""
    return Items(np.zeros(beam, dtype=np.int64), np.ones(beam, dtype=np.int64), np.zeros(beam, dtype=np.int64),
                 np.zeros(beam, dtype=np.bool_), np.full(beam, -1, dtype=np.int64),
                 np.zeros((beam, n_actions), dtype=np.float32))


@njit(cache=True, nogil=True)
def search(words, tags, n, beam, templates, table, rows, n_labels, n_unaries, gold, mode):
    """Beam search over one sentence of n words (``tags``: the POS tag ids the words are shifted with).

    Returns (actions, length, score) as the arc-standard search does (``hetdep.transition._beam``):
    DECODE gives all 4n - 1 actions of the best item; EARLY and MAX_VIOLATION give the prefix to
    update from.
    """
    n_actions = 3 + 4 * n_labels + n_unaries
    steps = 4 * n - 1
    nodes, cells, used = new_pool((steps + 1) * (beam + 1))
    trail = new_trail(steps, beam)
    length, best = _steps(words, tags, n, beam, templates, table, rows, n_labels, n_unaries, gold, mode, nodes, cells, used,
                          new_items(beam, n_actions), new_items(beam, n_actions), np.zeros(beam, dtype=np.float64), trail,
                          np.zeros(N_ATOMS, dtype=np.int64), np.zeros(templates.shape[0], dtype=np.uint64),
                          np.zeros(n_actions, dtype=np.float32), new_queue_sums(templates, n, n_actions),
                          np.zeros(4, dtype=np.int64), np.zeros(n_actions, dtype=np.int64))
    return trail.actions, length, best


@njit(cache=True, _nrt=False, nogil=True)
def _steps(words, tags, n, beam, templates, table, rows, n_labels, n_unaries, gold, mode, nodes, cells, used, cur, new, score,
           trail, atoms, keys, acc, queue, four, valid):
    """The steps of :func:`search`, compiled without numba's reference counting (``_nrt``, as the
    joint search's steps: nothing here may allocate; the caller makes every buffer). Scoring a
    state passes the weights' arrays through inlined helpers, and numba counted a reference to
    each, per feature: without those counts the WSJ sample parses about 2x faster
    (docs/archive.md)."""
    n_actions = 3 + 4 * n_labels + n_unaries
    first_unary = 3 + 4 * n_labels
    steps = 4 * n - 1
    hs, ho = trail.heap_score, trail.heap_order
    gold_top, gold_nxt, gold_depth = 0, 1, 0
    size = 1
    cur.is_gold[0] = True
    train = mode != DECODE
    for step in range(steps):
        if mode == MAX_VIOLATION:
            if step == 0 or gold[step - 1] != NO_UNARY:  # else acc holds the same state's scores
                top_nodes(cells, gold_top, four)
                score_state(nodes, four, gold_nxt, n, words, tags, templates, table, rows, atoms, keys, acc, queue, False)
            add_gold_score(trail, np.float64(acc[gold[step]]))
            gold_top, gold_nxt, gold_depth = apply(nodes, cells, used, gold_top, gold_nxt, gold_depth, gold[step], tags, n_labels)
        filled = 0
        for b in range(size):
            top_nodes(cells, cur.top[b], four)
            item = cur.scores[b]
            if cur.same_as[b] >= 0:
                copy_row(new.scores[cur.same_as[b]], item)  # ``new`` holds the step before's items
            else:
                score_state(nodes, four, cur.nxt[b], n, words, tags, templates, table, rows, atoms, keys, item, queue, False)
            count = valid_actions(nodes, four, cur.nxt[b] > n, cur.depth[b], step, steps, first_unary, n_actions, valid)
            base = score[b]
            for i in range(count):
                a = valid[i]
                value = base + np.float64(item[a])
                if beats(hs, ho, filled, beam, value, b * n_actions + a):
                    filled = offer(hs, ho, filled, beam, value, b * n_actions + a)
        sort_survivors(hs, ho, filled)
        any_gold = False
        for j in range(filled):
            parent = ho[j] // n_actions
            action = ho[j] % n_actions
            new.top[j], new.nxt[j], new.depth[j] = apply(nodes, cells, used, cur.top[parent], cur.nxt[parent],
                                                         cur.depth[parent], action, tags, n_labels)
            new.same_as[j] = parent if action == NO_UNARY else -1
            new.is_gold[j] = train and cur.is_gold[parent] and action == gold[step]
            any_gold = any_gold or new.is_gold[j]
            record(trail, step, j, parent, action)
        cur, new = new, cur
        for j in range(filled):
            score[j] = hs[j]
        size = filled
        if stops_early(mode, trail, step, any_gold):
            return step + 1, score[0]
        note_violation(mode, trail, step, score[0], cur.is_gold[0])
    return finish(mode, trail, gold, score[0])


@njit(cache=True)
def update(words, tags, n, gold, pred, length, templates, table, n_used, rows, sums, counts, counter, n_labels, pred_tags):
    """Perceptron update: +1 for the gold sequence's features, -1 for the prediction's, over
    ``length`` steps. ``tags`` are the gold path's tags, ``pred_tags`` the prediction's (equal but
    for a tag lattice); with equal tags, steps before the first difference cancel and are skipped.
    Returns the number of steps updated."""
    first = first_difference(gold, pred, length, tags, pred_tags, n)
    if first == length:
        return 0
    nodes, cells, used = new_pool(2 * length + 2)
    tops = np.zeros(2, dtype=np.int64)
    nxts = np.ones(2, dtype=np.int64)
    depths = np.zeros(2, dtype=np.int64)
    atoms = np.zeros(N_ATOMS, dtype=np.int64)
    four = np.zeros(4, dtype=np.int64)
    c = np.float32(counter)
    for k in range(length):
        for side in range(2):
            action = gold[k] if side == 0 else pred[k]
            side_tags = tags if side == 0 else pred_tags
            if k >= first:
                top_nodes(cells, tops[side], four)
                fill_atoms(nodes, four, nxts[side], n, words, side_tags, atoms)
                delta = np.float32(1.0) if side == 0 else np.float32(-1.0)
                for t in range(templates.shape[0]):
                    slot = _weights.insert(table, n_used, feature_key(atoms, templates, t, 0))
                    _weights.add(table, slot, rows, sums, counts, action, delta, c)
            tops[side], nxts[side], depths[side] = apply(nodes, cells, used, tops[side], nxts[side], depths[side], action,
                                                         side_tags, n_labels)
    return length - first
