"""Compiled hot path of the arc-standard parser (numba): its states, atoms, scoring, beam search, update.

The state of one beam item is compact: the stack as records of its words (with each stack
word's two outermost children on each side, their labels, valencies and label sets) plus
the next queue position. Words off the stack are never read by a feature again, so they
need no copy; the tree is recovered from the action history at the end.

Weights are read through :mod:`hetdep.learn._weights`: one table probe per feature key (a 64-bit
hash, see :mod:`hetdep.learn.keys`) gives all of that feature's action scores.

Ties are broken exactly as the reference (:mod:`hetdep.transition.reference`): candidates are ranked
by score, then by (parent position in the beam, action id).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.learn import _weights
from hetdep.learn._keys import feature_keys
from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition._clock import ATOMS, ITEMS, MEMO, SELECTION, UPDATE_FEATURES, UPDATE_WEIGHTS, lap, start
from hetdep.transition._core import (
    add_gold_score,
    beats,
    finish,
    first_difference,
    new_trail,
    note_violation,
    offer,
    offers_none,
    record,
    sort_survivors,
    stops_early,
)
from hetdep.transition._memos import (
    add_rows,
    group_entries,
    group_memo_capacity,
    group_scores,
    new_group_memo,
    sum_entries,
    template_groups,
)
from hetdep.transition.features import LABEL_BITS, TEMPLATE_GROUPS, TEMPLATES, A

SH, PR = 0, 1
# Stack record fields.
WORD, LC1, LC1L, LC2, LC2L, RC1, RC1L, RC2, RC2L, VL, VR, SL, SR = range(13)
FIELDS = 13
N_ATOMS = 40
# The baseline templates' groups for the group memo (``features.TEMPLATE_GROUPS``), the joint model's too.
GROUPS = template_groups(TEMPLATE_GROUPS, TEMPLATES)
N_GROUPS = len(TEMPLATE_GROUPS)


def _shared_by_siblings() -> tuple[np.ndarray, int]:
    """Which groups label siblings share, and how many groups lead the group order before the
    first they do not.

    Label siblings: the items one arc action makes from one parent under different labels.
    They differ only in S0's newest child's label and S0's label set on that side, so every
    group that reads none of those atoms has the same sum for all of them (``sibling_entries``).
    """
    differ = {A[name] for name in ("S0ll", "S0rl", "S0sl", "S0sr")}
    shared = np.array([not differ.intersection(row[row >= 0].tolist()) for row in GROUPS[1]])
    return shared, int(np.argmin(shared)) if not shared.all() else len(shared)


SHARED_BY_SIBLINGS, SHARED_PREFIX = _shared_by_siblings()


@njit(cache=True)
def _child_atoms(stk, b, p, child, label, words, tags, out, at):
    kid = stk[b, p, child]
    out[at] = words[kid]
    out[at + 1] = tags[kid]
    out[at + 2] = stk[b, p, label]


@njit(cache=True)
def _element_atoms(stk, b, p, words, tags, out, w_at, child_at, v_at, s_at):
    w = stk[b, p, WORD]
    out[w_at] = words[w]
    out[w_at + 1] = tags[w]
    # Children in the order of features.ATOMS: l, r, l2, r2 (word, tag, label each).
    _child_atoms(stk, b, p, LC1, LC1L, words, tags, out, child_at)
    _child_atoms(stk, b, p, RC1, RC1L, words, tags, out, child_at + 3)
    _child_atoms(stk, b, p, LC2, LC2L, words, tags, out, child_at + 6)
    _child_atoms(stk, b, p, RC2, RC2L, words, tags, out, child_at + 9)
    out[v_at] = stk[b, p, VL]
    out[v_at + 1] = stk[b, p, VR]
    out[s_at] = stk[b, p, SL]
    out[s_at + 1] = stk[b, p, SR]


@njit(cache=True)
def fill_atoms(stk, slen, nxt, b, words, tags, n, out):
    """The 40 atoms of beam item b, in the order of ``features.ATOMS``."""
    out[:] = 0
    depth = slen[b]
    if depth >= 1:
        _element_atoms(stk, b, depth - 1, words, tags, out, 0, 8, 32, 36)
    if depth >= 2:
        _element_atoms(stk, b, depth - 2, words, tags, out, 2, 20, 34, 38)
    q = nxt[b]
    if q <= n:
        out[4] = words[q]
        out[5] = tags[q]
    if q + 1 <= n:
        out[6] = words[q + 1]
        out[7] = tags[q + 1]


@njit(cache=True)
def apply(stk, slen, nxt, b, action, n_labels):
    """Apply a valid action to beam item b, in place (see :mod:`hetdep.transition.system`)."""
    if action == SH:
        p = slen[b]
        stk[b, p, :] = 0
        stk[b, p, WORD] = nxt[b]
        slen[b] = p + 1
        nxt[b] += 1
    elif action == PR:
        slen[b] -= 1
    else:
        p0 = slen[b] - 1
        p1 = p0 - 1
        if action < 2 + n_labels:  # AL: S0 heads S1, which is left of all S0's children
            label = action - 2
            stk[b, p0, LC2] = stk[b, p0, LC1]
            stk[b, p0, LC2L] = stk[b, p0, LC1L]
            stk[b, p0, LC1] = stk[b, p1, WORD]
            stk[b, p0, LC1L] = label + 1
            stk[b, p0, VL] += 1
            stk[b, p0, SL] |= np.int64(1) << (label % LABEL_BITS)
            for f in range(FIELDS):
                stk[b, p1, f] = stk[b, p0, f]
        else:  # AR: S1 heads S0, which is right of all S1's children
            label = action - 2 - n_labels
            stk[b, p1, RC2] = stk[b, p1, RC1]
            stk[b, p1, RC2L] = stk[b, p1, RC1L]
            stk[b, p1, RC1] = stk[b, p0, WORD]
            stk[b, p1, RC1L] = label + 1
            stk[b, p1, VR] += 1
            stk[b, p1, SR] |= np.int64(1) << (label % LABEL_BITS)
        slen[b] = p0


@njit(cache=True, inline="always")
def score_item(stk, slen, nxt, b, n, words, tags, templates, table, rows, atoms, keys, acc, memo, clock=None):
    """Scores of item b's actions in ``acc``: the sum over template groups of each group's feature
    scores (``features.template_groups``), a group's sum recalled from ``memo`` when an earlier
    item of this search had the same atoms there (``new_group_memo``).

    Returns (first, last, extra): the valid actions are first..last-1 and ``extra`` (-1: none).
    Inlined into the search, so ``acc`` is known not to alias the weights.
    """
    entries = memo[3][2 * N_GROUPS:]
    first, last, extra, _ = item_entries(stk, slen, nxt, b, n, words, tags, templates, table, rows, atoms, keys, acc.shape[0],
                                         memo, entries, clock)
    sum_entries(memo, entries, acc, clock)
    return first, last, extra


@njit(cache=True, inline="always")
def item_entries(stk, slen, nxt, b, n, words, tags, templates, table, rows, atoms, keys, n_actions, memo, entries, clock):
    """``score_item`` short of the sum: item b's valid actions (first, last, extra), its groups'
    memo entries in ``entries``, and a bound on its actions' scores (``group_entries``), so the
    search can pass over an item none of whose actions can enter a full beam."""
    t = start(clock)
    fill_atoms(stk, slen, nxt, b, words, tags, n, atoms)
    first, last, extra = valid_actions(slen, nxt, b, n, n_actions)
    lap(clock, ATOMS, t)
    bound = group_entries(0, atoms, templates, table, rows, keys, memo, entries, clock)
    return first, last, extra, bound


@njit(cache=True, inline="always")
def sibling_entries(stk, slen, nxt, b, n, words, tags, templates, table, rows, atoms, keys, n_actions, memo, entries,
                    leader_entries, head_bound, clock):
    """``item_entries`` for a label sibling of an item already scored this step (its leader):
    the groups siblings share (``SHARED_BY_SIBLINGS``) are the leader's ``leader_entries``, the
    others are looked up. ``head_bound``: the leader's bound over the first ``SHARED_PREFIX``
    groups; the rest is added in the same order, so the bound is the one ``item_entries`` gives."""
    t = start(clock)
    fill_atoms(stk, slen, nxt, b, words, tags, n, atoms)
    first, last, extra = valid_actions(slen, nxt, b, n, n_actions)
    lap(clock, ATOMS, t)
    scores = memo[2]
    width = scores.shape[2] - 1
    bound = head_bound
    for g in range(N_GROUPS):
        if SHARED_BY_SIBLINGS[g]:
            e = leader_entries[g]
        else:
            e = group_scores(g, 0, atoms, templates, table, rows, keys, memo, clock)
        entries[g] = e
        if g >= SHARED_PREFIX:
            bound += scores[g, e, width]
    return first, last, extra, bound


@njit(cache=True, inline="always")
def head_bound(memo, entries):
    """The bound of the first ``SHARED_PREFIX`` groups at ``entries``, added as ``group_entries`` adds it."""
    scores = memo[2]
    width = scores.shape[2] - 1
    bound = np.float32(0.0)
    for g in range(SHARED_PREFIX):
        bound += scores[g, entries[g], width]
    return bound


@njit(cache=True, inline="always")
def valid_actions(slen, nxt, b, n, n_actions):
    """(first, last, extra) of item b: the valid actions are first..last-1 and ``extra`` (-1: none)."""
    if slen[b] >= 2:  # every arc action, and shift if the queue is not empty
        return 2, n_actions, (SH if nxt[b] <= n else -1)
    if nxt[b] <= n:  # shift is forced
        return 0, 0, SH
    return 0, 0, PR  # pop-root is forced


@njit(cache=True, inline="always")
def gold_step(gstk, gslen, gnxt, n, words, tags, templates, table, rows, atoms, keys, acc, memo, action, n_labels):
    """The score of the gold prefix's next action, which is then applied to it (max-violation
    keeps the gold prefix beside the beam, in its own one-item state)."""
    score_item(gstk, gslen, gnxt, 0, n, words, tags, templates, table, rows, atoms, keys, acc, memo)
    value = np.float64(acc[action])
    apply(gstk, gslen, gnxt, 0, action, n_labels)
    return value


@njit(cache=True, nogil=True)
def search(words, tags, n, beam, templates, table, rows, n_labels, gold, mode, clock=None):
    """Beam search over one sentence of n words.

    Returns (actions, length, score): the best item's action sequence, ``actions[:length]``.
    ``mode`` DECODE: length is 2n. EARLY (early update, Collins & Roark 2004): if the gold item
    falls out of the beam at step k, stop there: length k + 1. MAX_VIOLATION (Huang et al.
    2012): search to the end, keeping the gold prefix's score, and return the prefix of the
    step where the best item beats the gold prefix by most (length 2n and the gold sequence
    itself when the gold item ends best). ``clock``: see :mod:`hetdep.transition._clock`.
    """
    n_actions = 2 + 2 * n_labels
    steps = 2 * n
    depth = n + 1
    stk = np.zeros((beam, depth, FIELDS), dtype=np.int64)
    nstk = np.zeros((beam, depth, FIELDS), dtype=np.int64)
    slen = np.zeros(beam, dtype=np.int64)
    nslen = np.zeros(beam, dtype=np.int64)
    nxt = np.ones(beam, dtype=np.int64)
    nnxt = np.ones(beam, dtype=np.int64)
    score = np.zeros(beam, dtype=np.float64)
    nscore = np.zeros(beam, dtype=np.float64)
    is_gold = np.zeros(beam, dtype=np.bool_)
    nis_gold = np.zeros(beam, dtype=np.bool_)
    atoms = np.zeros(N_ATOMS, dtype=np.int64)
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    acc = np.zeros(n_actions, dtype=np.float32)
    memo = new_group_memo(group_memo_capacity(steps, beam, n_actions, N_GROUPS), n_actions, GROUPS)
    entries = memo[3][2 * N_GROUPS:]
    trail = new_trail(steps, beam)
    # Label siblings (``sibling_entries``): each item's leader (the first sibling of its parent
    # and arc direction, or itself); whether an item leads others; a leader's group entries, its
    # bound and its row sum over the first SHARED_PREFIX groups (made when first needed).
    leader = np.zeros(beam, dtype=np.int64)
    nleader = np.zeros(beam, dtype=np.int64)
    leads = np.zeros(beam, dtype=np.bool_)
    nleads = np.zeros(beam, dtype=np.bool_)
    first_sibling = np.zeros((beam, 2), dtype=np.int64)
    shared = np.zeros((beam, N_GROUPS), dtype=np.int64)
    shared_bound = np.zeros(beam, dtype=np.float32)
    head = np.zeros((beam, n_actions), dtype=np.float32)
    has_head = np.zeros(beam, dtype=np.bool_)
    # Max-violation: the gold prefix, scored beside the beam.
    gstk = np.zeros((1, depth, FIELDS), dtype=np.int64)
    gslen = np.zeros(1, dtype=np.int64)
    gnxt = np.ones(1, dtype=np.int64)
    hs, ho = trail.heap_score, trail.heap_order
    size = 1
    is_gold[0] = True
    train = mode != DECODE
    for step in range(steps):
        if mode == MAX_VIOLATION:
            add_gold_score(trail, gold_step(gstk, gslen, gnxt, n, words, tags, templates, table, rows, atoms, keys, acc, memo,
                                            gold[step], n_labels))
        filled = 0
        for b in range(size):
            ahead = leader[b]
            if ahead == b:
                first, last, extra, bound = item_entries(stk, slen, nxt, b, n, words, tags, templates, table, rows, atoms,
                                                         keys, n_actions, memo, entries, clock)
                if leads[b]:
                    shared[b, :] = entries
                    shared_bound[b] = head_bound(memo, entries)
                    has_head[b] = False
            else:
                first, last, extra, bound = sibling_entries(stk, slen, nxt, b, n, words, tags, templates, table, rows, atoms,
                                                            keys, n_actions, memo, entries, shared[ahead],
                                                            shared_bound[ahead], clock)
            base = score[b]
            if filled == beam and base + np.float64(bound) < hs[0]:  # no action of b can enter: skip the sum
                continue
            if ahead == b and not leads[b]:
                sum_entries(memo, entries, acc, clock)
            else:  # the head's rows once for all siblings, then each one's own
                t = start(clock)
                if not has_head[ahead]:
                    head[ahead, :] = 0.0
                    add_rows(memo, shared[ahead], 0, SHARED_PREFIX, head[ahead])
                    has_head[ahead] = True
                acc[:] = head[ahead]
                add_rows(memo, entries, SHARED_PREFIX, N_GROUPS, acc)
                lap(clock, MEMO, t)
            t = start(clock)
            if not offers_none(hs, filled, beam, base, acc, first, last, extra):
                for i in range(-1 if extra >= 0 else 0, last - first):
                    a = extra if i < 0 else first + i
                    value = base + np.float64(acc[a])
                    if beats(hs, ho, filled, beam, value, b * n_actions + a):
                        filled = offer(hs, ho, filled, beam, value, b * n_actions + a)
            lap(clock, SELECTION, t)
        t = start(clock)
        sort_survivors(hs, ho, filled)
        t = lap(clock, SELECTION, t)
        any_gold = False
        first_sibling[:size, :] = -1
        for j in range(filled):
            parent = ho[j] // n_actions
            action = ho[j] % n_actions
            nleader[j] = j
            nleads[j] = False
            if action >= 2:  # an arc: its label siblings follow the first of them
                direction = 0 if action < 2 + n_labels else 1
                if first_sibling[parent, direction] < 0:
                    first_sibling[parent, direction] = j
                else:
                    nleader[j] = first_sibling[parent, direction]
                    nleads[nleader[j]] = True
            top = slen[parent]
            copy_stack(stk, parent, nstk, j, top)
            nslen[j] = top
            nnxt[j] = nxt[parent]
            apply(nstk, nslen, nnxt, j, action, n_labels)
            nscore[j] = hs[j]
            nis_gold[j] = train and is_gold[parent] and action == gold[step]
            any_gold = any_gold or nis_gold[j]
            record(trail, step, j, parent, action)
        lap(clock, ITEMS, t)
        stk, nstk = nstk, stk
        slen, nslen = nslen, slen
        nxt, nnxt = nnxt, nxt
        score, nscore = nscore, score
        is_gold, nis_gold = nis_gold, is_gold
        leader, nleader = nleader, leader
        leads, nleads = nleads, leads
        size = filled
        if stops_early(mode, trail, step, any_gold):
            return trail.actions, step + 1, score[0]
        note_violation(mode, trail, step, score[0], is_gold[0])
    length, best = finish(mode, trail, gold, score[0])
    return trail.actions, length, best


@njit(cache=True, inline="always")
def copy_stack(src, parent, dst, j, top):
    """dst[j, :top] = src[parent, :top], as a loop: a slice assignment may allocate (for a
    possible overlap), which code compiled without the runtime cannot."""
    for p in range(top):
        for f in range(FIELDS):
            dst[j, p, f] = src[parent, p, f]


@njit(cache=True)
def update(words, tags, n, gold, pred, length, templates, table, n_used, rows, sums, counts, counter, n_labels, pred_tags,
           clock=None):
    """Perceptron update: +1 for gold's features, -1 for the prediction's, over ``length`` steps.

    ``tags`` are the gold path's tags, ``pred_tags`` the prediction's (equal, but for a tag
    lattice). Steps before the first difference have the same state and action on both sides
    and cancel, so they are skipped when the tags are equal. Returns the number of steps updated.
    """
    first = first_difference(gold, pred, length, tags, pred_tags, n)
    if first == length:
        return 0
    stk = np.zeros((2, n + 1, FIELDS), dtype=np.int64)
    slen = np.zeros(2, dtype=np.int64)
    nxt = np.ones(2, dtype=np.int64)
    for k in range(first):
        apply(stk, slen, nxt, 0, gold[k], n_labels)
    stk[1, :, :] = stk[0, :, :]
    slen[1] = slen[0]
    nxt[1] = nxt[0]
    atoms = np.zeros(N_ATOMS, dtype=np.int64)
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    c = np.float32(counter)
    t = start(clock)
    for k in range(first, length):
        for side in range(2):
            action = gold[k] if side == 0 else pred[k]
            delta = np.float32(1.0) if side == 0 else np.float32(-1.0)
            fill_atoms(stk, slen, nxt, side, words, tags if side == 0 else pred_tags, n, atoms)
            feature_keys(atoms, templates, 0, templates.shape[0], 0, keys)
            t = lap(clock, UPDATE_FEATURES, t)
            for f in range(keys.shape[0]):
                slot = _weights.insert(table, n_used, keys[f])
                _weights.add(table, slot, rows, sums, counts, action, delta, c)
            t = lap(clock, UPDATE_WEIGHTS, t)
            apply(stk, slen, nxt, side, action, n_labels)
    return length - first


@njit(cache=True)
def actions_to_tree(actions, n, n_labels, root_label):
    """Heads (1-based, 0 = root) and label ids of the tree an action sequence builds."""
    heads = np.zeros(n, dtype=np.int64)
    labels = np.zeros(n, dtype=np.int64)
    stack = np.zeros(n + 1, dtype=np.int64)
    depth = 0
    nxt = 1
    for action in actions:
        if action == SH:
            stack[depth] = nxt
            depth += 1
            nxt += 1
        elif action == PR:
            depth -= 1
            heads[stack[depth] - 1] = 0
            labels[stack[depth] - 1] = root_label
        else:
            s0 = stack[depth - 1]
            s1 = stack[depth - 2]
            if action < 2 + n_labels:
                heads[s1 - 1] = s0
                labels[s1 - 1] = action - 2
                stack[depth - 2] = s0
            else:
                heads[s0 - 1] = s1
                labels[s0 - 1] = action - 2 - n_labels
            depth -= 1
    return heads, labels
