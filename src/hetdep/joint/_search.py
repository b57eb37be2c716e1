"""Compiled hot path of the joint model (zhang2014 section 3): two arc-standard states in one beam item.

Each item holds scheme a's and scheme b's compact stacks (as in :mod:`hetdep.transition._beam`) and, for
the guided features, both partial trees: ``hd[b, s, w]`` the head of word w in scheme s so
far (-1: none yet) and ``lb[b, s, w]`` its label + 1, kept for the words scheme s has shifted
(an item copied to another beam slot copies no more). Which scheme acts at each step is fixed
by the interleaving schedule ``who`` (see :func:`hetdep.joint.schedule`), the same for every
item, so actions are scheme-local ids and the scheme is ``who[step]``.

Features of the acting scheme: the 70 baseline templates over its own stack, and (when
``templates`` has them) the 18 guided templates over atoms 40-42: h_guide (how S0 and S1
relate in the other scheme's partial tree: 0 one of them has no head there, 1 S0 heads S1,
2 S1 heads S0, 3 neither) and l_guide of S0 and of S1 (their labels + 1 there, 0 none).
The rich guide (``rich``, and its templates, see ``features.GUIDES``) adds atoms 43-46 and
their templates, and fires its guided templates only where the other scheme has shifted S0
or S1 (so not at all in the first pass of t = +-inf, where they could say nothing).
Scheme b's feature keys are hashed with template ids after scheme a's, so each scheme has
its own weights in the one table.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from hetdep.learn import _weights
from hetdep.learn._keys import feature_keys
from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition._beam import FIELDS, GROUPS, N_GROUPS, PR, SH, WORD, apply, copy_stack, fill_atoms, valid_actions
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
from hetdep.transition._memos import add_group_scores, add_item_scores, forget, group_memo_capacity, new_group_memo, new_memo
from hetdep.transition.features import GUIDES, TEMPLATES

# A beam of joint items: per scheme its compact stacks (as in hetdep.transition._beam), their lengths
# and queue positions; hd[b, s, w] / lb[b, s, w] the head and label + 1 of word w in scheme s (see
# the module's docstring).
JointItems = namedtuple("JointItems", ["stk_a", "slen_a", "nxt_a", "stk_b", "slen_b", "nxt_b", "hd", "lb"])
N_JOINT_ATOMS = 47
H_GUIDE, L0_GUIDE, L1_GUIDE, G_GUIDE, P0_GUIDE, P1_GUIDE, C_GUIDE = range(40, 47)
N_BASELINE_TEMPLATES = len(TEMPLATES)
# The atoms the guided templates read, sorted, so the paper guide's (baseline and 40-42) come first:
# its memo keys on that prefix alone, the rich guide's on all of them.
GUIDE_SEEN = np.array(sorted({atom for template in GUIDES["rich"] for atom in template}), dtype=np.int64)
N_PAPER_SEEN = len({atom for template in GUIDES["paper"] for atom in template})
assert sorted({atom for template in GUIDES["paper"] for atom in template}) == GUIDE_SEEN[:N_PAPER_SEEN].tolist()


@njit(cache=True)
def joint_atoms(stk, slen, nxt, other_nxt, hd, lb, b, s, words, tags, n, rich, out):
    """Atoms of scheme s in item b: the baseline 40, then h_guide, l_guide(S0), l_guide(S1) and,
    if ``rich``, the rich guide's g, p0, p1 and c (else 0). Returns whether the other scheme has
    shifted S0 or S1 (where the rich guide fires).

    ``other_nxt``: the other scheme's queue positions; a word it has not shifted yet has no
    head there (and its entries in ``hd`` and ``lb`` are not kept, see :func:`copy_item`).
    """
    fill_atoms(stk, slen, nxt, b, words, tags, n, out)
    other = 1 - s
    depth = slen[b]
    shifted = other_nxt[b]
    s0 = stk[b, depth - 1, WORD] if depth >= 1 else 0
    s1 = stk[b, depth - 2, WORD] if depth >= 2 else 0
    k0 = s0 if s0 < shifted else 0
    k1 = s1 if s1 < shifted else 0
    h0 = hd[b, other, k0] if k0 else -1
    h1 = hd[b, other, k1] if k1 else -1
    out[L0_GUIDE] = lb[b, other, k0] if k0 else 0
    out[L1_GUIDE] = lb[b, other, k1] if k1 else 0
    if h0 >= 0 and h1 >= 0:  # (fill_atoms left every atom 0)
        out[H_GUIDE] = 1 if h1 == s0 else 2 if h0 == s1 else 3
    if not rich:
        return k0 > 0 or k1 > 0
    if h0 >= 0 and h1 >= 0:
        if out[H_GUIDE] < 3:
            out[G_GUIDE] = out[H_GUIDE]
        elif h0 == h1:
            out[G_GUIDE] = 3  # siblings
        elif h1 > 0 and hd[b, other, h1] == s0:
            out[G_GUIDE] = 4  # S0 is S1's grandparent
        elif h0 > 0 and hd[b, other, h0] == s1:
            out[G_GUIDE] = 5  # S1 is S0's grandparent
        else:
            out[G_GUIDE] = 6
    q = nxt[b]
    out[P0_GUIDE] = _head_place(h0, s1 if s1 else s0, s0, q, s1)
    out[P1_GUIDE] = _head_place(h1, s1, s0, q, s0)
    if shifted > q:
        pending = 1
        for w in range(q, shifted):
            if k0 and hd[b, other, w] == k0:
                pending |= 2
            elif k1 and hd[b, other, w] == k1:
                pending |= 4
        out[C_GUIDE] = pending
    return k0 > 0 or k1 > 0


@njit(cache=True, inline="always")
def _head_place(head, left, right, q, partner):
    """Where a stack word's head lies in the other tree: 0 unknown, 1 the root, 2 the partner
    (S0 for S1, S1 for S0), 3 left of ``left``, 4 between ``left`` and ``right``, 5 between
    ``right`` and the queue, 6 the queue's front, 7 deeper in the queue."""
    if head < 0:
        return 0
    if head == 0:
        return 1
    if head == partner:
        return 2
    if head < left:
        return 3
    if head < right:
        return 4
    if head < q:
        return 5
    return 6 if head == q else 7


@njit(cache=True)
def joint_apply(stk, slen, nxt, hd, lb, b, s, action, n_labels):
    """Apply a scheme-s action to item b: its stack, and the arc it makes in scheme s's tree.

    A shifted word gets its entries (no head yet): item b's ``hd`` and ``lb`` hold only the
    words each scheme has shifted (see :func:`copy_item`).
    """
    depth = slen[b]
    if action == SH:
        hd[b, s, nxt[b]] = -1
        lb[b, s, nxt[b]] = 0
    elif action == PR:
        hd[b, s, stk[b, depth - 1, WORD]] = 0
    else:
        s0 = stk[b, depth - 1, WORD]
        s1 = stk[b, depth - 2, WORD]
        if action < 2 + n_labels:
            hd[b, s, s1] = s0
            lb[b, s, s1] = action - 2 + 1
        else:
            hd[b, s, s0] = s1
            lb[b, s, s0] = action - 2 - n_labels + 1
    apply(stk, slen, nxt, b, action, n_labels)


@njit(cache=True, inline="always")
def joint_score(stk, slen, nxt, other_nxt, hd, lb, b, s, n, words, tags, templates, rich, table, rows, atoms, keys, acc, guided,
                memo):
    """Scores of the valid actions of scheme s in item b; returns (first, last, extra) as in _beam.score_item.

    ``acc`` and ``guided`` hold exactly scheme s's actions (see :func:`scheme_scores`); ``memo``
    is a :func:`joint_memo`. The baseline and the guided templates are memoized apart: the
    baseline templates by groups, for the whole search (``_memos.group_scores``: items that differ
    only in the other scheme's tree share them all), and items with the same S0 and S1 (all of them,
    before the other tree has any arc) share the guided scores.
    """
    baseline_memo, guided_memo, seen = memo
    stop = templates.shape[0]
    known = joint_atoms(stk, slen, nxt, other_nxt, hd, lb, b, s, words, tags, n, rich, atoms)
    first, last, extra = valid_actions(slen, nxt, b, n, acc.shape[0])
    arcs = last > first
    add_group_scores(s, atoms, templates, table, rows, keys, acc, baseline_memo, None)  # as _beam.score_item
    if guided_templates_fire(stop, rich, known):
        for i in range(seen.shape[0]):  # the guide's own atoms, see joint_memo
            seen[i] = atoms[GUIDE_SEEN[i]]
        add_item_scores(atoms, seen, templates, N_BASELINE_TEMPLATES, stop, s, table, rows, keys, guided,
                        arcs, extra, guided_memo)
        for a in range(acc.shape[0]):
            acc[a] += guided[a]
    return first, last, extra


@njit(cache=True, inline="always")
def guided_templates_fire(n_templates, rich, known):
    """Whether an item's guided templates fire: the paper's always; the rich guide's only where
    the other scheme has shifted S0 or S1 (``known``, from :func:`joint_atoms`)."""
    return n_templates > N_BASELINE_TEMPLATES and (known or not rich)


@njit(cache=True)
def joint_memo(steps, beam, width, rich):
    """Memos for :func:`joint_score`: baseline scores by template groups (for the whole search,
    ``_memos.new_group_memo``), guided scores by the atoms the guide's templates read (all of
    GUIDE_SEEN for the rich guide, the paper's prefix otherwise; per step), and room to gather those."""
    n_seen = GUIDE_SEEN.shape[0] if rich else N_PAPER_SEEN
    return (new_group_memo(group_memo_capacity(steps, beam, width, N_GROUPS), width, GROUPS), new_memo(beam + 1, n_seen, width),
            np.zeros(n_seen, dtype=np.int64))


@njit(cache=True, inline="always")
def forget_joint(memo):
    """A new step: the guided scores are forgotten (the group sums are kept for the whole search)."""
    forget(memo[1])


@njit(cache=True)
def scheme_scores(n_labels_a, n_labels_b):
    """One score buffer per scheme, each as wide as its actions: with a single buffer as wide as
    the wider scheme, the compiled search ran 1.6x slower (measured on fr-sequoia, beam 64)."""
    return np.zeros(2 + 2 * n_labels_a, dtype=np.float32), np.zeros(2 + 2 * n_labels_b, dtype=np.float32)


@njit(cache=True, inline="always")
def scheme_state(items, s):
    """Scheme s's stacks, stack lengths and queue positions in ``items`` (see :func:`new_items`),
    and the other scheme's queue positions, which its guided atoms read."""
    if s == 0:
        return items.stk_a, items.slen_a, items.nxt_a, items.nxt_b
    return items.stk_b, items.slen_b, items.nxt_b, items.nxt_a


@njit(cache=True)
def copy_item(src, dst, j, parent):
    """Item ``parent`` of ``src`` into slot j of ``dst``: what each scheme's stack and tree hold."""
    stk_a, slen_a, nxt_a, stk_b, slen_b, nxt_b, hd, lb = src
    nstk_a, nslen_a, nnxt_a, nstk_b, nslen_b, nnxt_b, nhd, nlb = dst
    copy_stack(stk_a, parent, nstk_a, j, slen_a[parent])
    copy_stack(stk_b, parent, nstk_b, j, slen_b[parent])
    nslen_a[j] = slen_a[parent]
    nslen_b[j] = slen_b[parent]
    nnxt_a[j] = nxt_a[parent]
    nnxt_b[j] = nxt_b[parent]
    # Only the words each scheme has shifted can have a head in it (see joint_atoms).
    for w in range(nxt_a[parent]):
        nhd[j, 0, w] = hd[parent, 0, w]
        nlb[j, 0, w] = lb[parent, 0, w]
    for w in range(nxt_b[parent]):
        nhd[j, 1, w] = hd[parent, 1, w]
        nlb[j, 1, w] = lb[parent, 1, w]


@njit(cache=True)
def new_items(beam, n):
    """Room for ``beam`` items of an n-word sentence (see :class:`JointItems`)."""
    depth = n + 1
    return JointItems(np.zeros((beam, depth, FIELDS), dtype=np.int64), np.zeros(beam, dtype=np.int64), np.ones(beam, dtype=np.int64),
            np.zeros((beam, depth, FIELDS), dtype=np.int64), np.zeros(beam, dtype=np.int64), np.ones(beam, dtype=np.int64),
            np.full((beam, 2, depth), -1, dtype=np.int32), np.zeros((beam, 2, depth), dtype=np.int32))


@njit(cache=True, nogil=True)
def joint_search(words, tags, n, beam, templates, rich, table, rows, n_labels_a, n_labels_b, who, gold, mode, forced):
    """Beam search over the joint action sequence (4n actions); modes as in ``_beam.search``.

    ``forced[k] >= 0`` fixes the action of step k (one scheme's tree given, the other parsed).
    Returns (actions, length, score): scheme-local action ids, the scheme of step k is who[k].
    """
    steps = 4 * n
    width = max(2 + 2 * n_labels_a, 2 + 2 * n_labels_b)
    cur = new_items(beam, n)
    nxt_items = new_items(beam, n)
    gold_item = new_items(1, n)
    score = np.zeros(beam, dtype=np.float64)
    nscore = np.zeros(beam, dtype=np.float64)
    is_gold = np.zeros(beam, dtype=np.bool_)
    nis_gold = np.zeros(beam, dtype=np.bool_)
    atoms = np.zeros(N_JOINT_ATOMS, dtype=np.int64)
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    acc_a, acc_b = scheme_scores(n_labels_a, n_labels_b)
    guided_a, guided_b = scheme_scores(n_labels_a, n_labels_b)
    memo = joint_memo(steps, beam, width, rich)
    trail = new_trail(steps, beam)
    is_gold[0] = True
    length, best = _joint_steps(words, tags, n, beam, templates, rich, table, rows, n_labels_a, n_labels_b, who, gold, mode, forced,
                                steps, width, cur, nxt_items, gold_item, score, nscore, is_gold, nis_gold, trail,
                                atoms, keys, acc_a, acc_b, guided_a, guided_b, memo)
    return trail.actions, length, best


@njit(cache=True, _nrt=False, nogil=True)
def _joint_steps(words, tags, n, beam, templates, rich, table, rows, n_labels_a, n_labels_b, who, gold, mode, forced, steps, width,
                 cur, nxt_items, gold_item, score, nscore, is_gold, nis_gold, trail, atoms, keys, acc_a, acc_b,
                 guided_a, guided_b, memo):
    """The steps of :func:`joint_search`, compiled without numba's reference counting (``_nrt``,
    an underscored numba option: so nothing here may allocate; the caller makes every buffer).

    Scoring an item passes some 40 arrays through inlined helpers, and numba counted a reference
    to each of them, per item, with an atomic add and subtract: ``perf`` put about 40% of the
    joint search's samples in those counts. Without them the joint search runs about 1.2x faster
    (fr-sequoia dev, beam 64, bench/bench_search.py). The arc-standard search counts half as many
    arrays per item; split the same way it did not get faster, so it keeps the runtime.
    """
    size = 1
    train = mode != DECODE
    hs, ho = trail.heap_score, trail.heap_order
    for step in range(steps):
        s = who[step]
        n_labels = n_labels_a if s == 0 else n_labels_b
        acc, guided = (acc_a, guided_a) if s == 0 else (acc_b, guided_b)
        forget_joint(memo)
        if mode == MAX_VIOLATION:
            g_stk, g_slen, g_nxt, g_other = scheme_state(gold_item, s)
            joint_score(g_stk, g_slen, g_nxt, g_other, gold_item.hd, gold_item.lb, 0, s, n, words, tags, templates, rich, table, rows,
                        atoms, keys, acc, guided, memo)
            add_gold_score(trail, np.float64(acc[gold[step]]))
            joint_apply(g_stk, g_slen, g_nxt, gold_item.hd, gold_item.lb, 0, s, gold[step], n_labels)
        stk, slen, nxt, other_nxt = scheme_state(cur, s)
        filled = 0
        for b in range(size):
            first, last, extra = joint_score(stk, slen, nxt, other_nxt, cur.hd, cur.lb, b, s, n, words, tags, templates, rich, table, rows,
                                             atoms, keys, acc, guided, memo)
            base = score[b]
            if offers_none(hs, filled, beam, base, acc, first, last, extra):
                continue
            for i in range(-1 if extra >= 0 else 0, last - first):
                a = extra if i < 0 else first + i
                value = base + np.float64(acc[a])
                if (forced[step] < 0 or a == forced[step]) and beats(hs, ho, filled, beam, value, b * width + a):
                    filled = offer(hs, ho, filled, beam, value, b * width + a)
        sort_survivors(hs, ho, filled)
        any_gold = False
        for j in range(filled):
            parent = ho[j] // width
            action = ho[j] % width
            copy_item(cur, nxt_items, j, parent)
            n_stk, n_slen, n_nxt, _ = scheme_state(nxt_items, s)
            joint_apply(n_stk, n_slen, n_nxt, nxt_items.hd, nxt_items.lb, j, s, action, n_labels)
            nscore[j] = hs[j]
            nis_gold[j] = train and is_gold[parent] and action == gold[step]
            any_gold = any_gold or nis_gold[j]
            record(trail, step, j, parent, action)
        cur, nxt_items = nxt_items, cur
        score, nscore = nscore, score
        is_gold, nis_gold = nis_gold, is_gold
        size = filled
        if stops_early(mode, trail, step, any_gold):
            return step + 1, score[0]
        note_violation(mode, trail, step, score[0], is_gold[0])
    return finish(mode, trail, gold, score[0])


@njit(cache=True)
def joint_update(words, tags, n, gold, pred, length, templates, rich, table, n_used, rows, sums, counts, counter,
                 n_labels_a, n_labels_b, who, pred_tags):
    """Perceptron update over the joint sequences (see ``_beam.update``; ``pred_tags``: the
    prediction's tags, which differ from ``tags`` over a tag lattice)."""
    first = first_difference(gold, pred, length, tags, pred_tags, n)
    if first == length:
        return 0
    sides = new_items(2, n)
    hd, lb = sides.hd, sides.lb
    for k in range(first):
        s = who[k]
        stk, slen, nxt, _ = scheme_state(sides, s)
        joint_apply(stk, slen, nxt, hd, lb, 0, s, gold[k], n_labels_a if s == 0 else n_labels_b)
    copy_item(sides, sides, 1, 0)
    atoms = np.zeros(N_JOINT_ATOMS, dtype=np.int64)
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    c = np.float32(counter)
    for k in range(first, length):
        s = who[k]
        n_labels = n_labels_a if s == 0 else n_labels_b
        stk, slen, nxt, other_nxt = scheme_state(sides, s)
        for side in range(2):
            action = gold[k] if side == 0 else pred[k]
            delta = np.float32(1.0) if side == 0 else np.float32(-1.0)
            known = joint_atoms(stk, slen, nxt, other_nxt, hd, lb, side, s, words, tags if side == 0 else pred_tags, n,
                                rich, atoms)
            stop = templates.shape[0] if guided_templates_fire(templates.shape[0], rich, known) else N_BASELINE_TEMPLATES
            feature_keys(atoms, templates, 0, stop, s, keys)
            for t in range(stop):
                slot = _weights.insert(table, n_used, keys[t])
                _weights.add(table, slot, rows, sums, counts, action, delta, c)
            joint_apply(stk, slen, nxt, hd, lb, side, s, action, n_labels)
    return length - first
