"""Compiled hot path of the arc-standard parser (numba): atoms, feature keys, scoring, beam, update.

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
from hetdep.learn.keys import MULTIPLIER, SEED, TEMPLATE_ID_SPAN
from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition._clock import ATOMS, HASHING, ITEMS, MEMO, SELECTION, UPDATE_FEATURES, UPDATE_WEIGHTS, WEIGHTS, lap, start
from hetdep.transition._core import (
    add_gold_score,
    beats,
    finish,
    new_trail,
    note_violation,
    offer,
    record,
    sort_survivors,
    stops_early,
)
from hetdep.transition.features import LABEL_BITS, TEMPLATE_GROUPS, TEMPLATES, A

SH, PR = 0, 1
# Stack record fields.
WORD, LC1, LC1L, LC2, LC2L, RC1, RC1L, RC2, RC2L, VL, VR, SL, SR = range(13)
FIELDS = 13
N_ATOMS = 40

_SEED = np.uint64(SEED)
_MULT = np.uint64(MULTIPLIER)
_SHIFT = np.uint64(29)


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
def feature_keys(atoms, templates, start, stop, scheme, out):
    """The keys of the features of templates start..stop-1, in ``out[start:stop]``; ``scheme`` (0 for
    a single-scheme parser) keeps the joint model's two schemes apart: template t of scheme s
    hashes as s * TEMPLATE_ID_SPAN + t + 1."""
    for t in range(start, stop):
        out[t] = feature_key(atoms, templates, t, scheme)


@njit(cache=True, inline="always")
def mix(h, value):
    """One more atom into a running 64-bit hash (the arithmetic of ``hetdep.learn.keys``)."""
    h = (h ^ np.uint64(value)) * _MULT
    return h ^ (h >> _SHIFT)


@njit(cache=True, inline="always")
def feature_key(atoms, templates, t, scheme):
    """The key of template t's feature (see ``feature_keys``)."""
    h = np.uint64(scheme * TEMPLATE_ID_SPAN + t + 1) * _SEED
    for j in range(templates.shape[1]):
        a = templates[t, j]
        if a < 0:
            break
        h = mix(h, atoms[a])
    if h == 0:
        h = np.uint64(1)
    return h


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
def add_group_scores(scheme, atoms, templates, table, rows, keys, acc, memo, clock):
    """``acc`` = the sum of the template groups' sums over ``atoms`` (every action's), each group's
    sum recalled from ``memo`` (``new_group_memo``) or computed there (``group_scores``)."""
    entries = memo[3][2 * N_GROUPS:]
    group_entries(scheme, atoms, templates, table, rows, keys, memo, entries, clock)
    sum_entries(memo, entries, acc, clock)


@njit(cache=True, inline="always")
def group_entries(scheme, atoms, templates, table, rows, keys, memo, entries, clock):
    """Each template group's memo entry for ``atoms`` in ``entries`` (computed where new), and a
    bound no action's summed score exceeds: the sum of the groups' row maxima, added in the
    order ``sum_entries`` adds the rows (float32 rounding is monotone, so the bound holds exactly)."""
    slots, seen, scores, counts = memo
    width = scores.shape[2] - 1
    bound = np.float32(0.0)
    for g in range(N_GROUPS):
        e = group_scores(g, scheme, atoms, templates, table, rows, keys, slots, seen, scores, counts, clock)
        entries[g] = e
        bound += scores[g, e, width]
    return bound


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
    slots, seen, scores, counts = memo
    width = scores.shape[2] - 1
    bound = head_bound
    for g in range(N_GROUPS):
        if SHARED_BY_SIBLINGS[g]:
            e = leader_entries[g]
        else:
            e = group_scores(g, 0, atoms, templates, table, rows, keys, slots, seen, scores, counts, clock)
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
def sum_entries(memo, entries, acc, clock):
    """``acc`` = the sum of the groups' rows at ``entries`` (``group_entries``), every action's."""
    t = start(clock)
    acc[:] = 0.0
    add_rows(memo, entries, 0, N_GROUPS, acc)
    lap(clock, MEMO, t)


@njit(cache=True, inline="always")
def add_rows(memo, entries, first, stop, acc):
    """Add the rows of groups first..stop-1 at ``entries`` to ``acc``, in group order."""
    scores = memo[2]
    for g in range(first, stop):
        e = entries[g]
        for a in range(acc.shape[0]):
            acc[a] += scores[g, e, a]


def _group_arrays(groups) -> tuple[np.ndarray, np.ndarray]:
    """Each group's template ids and the atoms they read, as rows padded with -1."""
    atoms = [sorted({a for t in group for a in TEMPLATES[t]}) for group in groups]
    templates_of = np.full((len(groups), max(map(len, groups))), -1, dtype=np.int64)
    atoms_of = np.full((len(groups), max(map(len, atoms))), -1, dtype=np.int64)
    for g, (group, read) in enumerate(zip(groups, atoms)):
        templates_of[g, :len(group)] = group
        atoms_of[g, :len(read)] = read
    return templates_of, atoms_of


GROUP_TEMPLATES, GROUP_ATOMS = _group_arrays(TEMPLATE_GROUPS)
N_GROUPS = len(TEMPLATE_GROUPS)
# A group's memo signature is a sum of its atoms times these (odd, fixed) factors, then mixed.
POSITION_FACTORS = (np.random.default_rng(7).integers(1 << 62, size=GROUP_ATOMS.shape[1], dtype=np.uint64) * np.uint64(2)
                    + np.uint64(1))


def _shared_by_siblings() -> tuple[np.ndarray, int]:
    """Which groups label siblings share, and how many groups lead the group order before the
    first they do not.

    Label siblings: the items one arc action makes from one parent under different labels.
    They differ only in S0's newest child's label and S0's label set on that side, so every
    group that reads none of those atoms has the same sum for all of them (``sibling_entries``).
    """
    differ = {A[name] for name in ("S0ll", "S0rl", "S0sl", "S0sr")}
    shared = np.array([not differ.intersection(row[row >= 0].tolist()) for row in GROUP_ATOMS])
    return shared, int(np.argmin(shared)) if not shared.all() else len(shared)


SHARED_BY_SIBLINGS, SHARED_PREFIX = _shared_by_siblings()
MEMO_BYTES = 8 << 20  # the group memo's score rows, at most: they stay in the last-level cache


@njit(cache=True)
def group_memo_capacity(steps, beam, width):
    """Entries a group's memo keeps for one search: every item of every step if that fits in
    ``MEMO_BYTES``, else as many as fit (at least one step's)."""
    return max(beam + 1, min(steps * (beam + 1), MEMO_BYTES // (4 * N_GROUPS * width)))


@njit(cache=True)
def new_group_memo(capacity, width):
    """Room for the scores of ``capacity`` (at least 1) distinct atom vectors per template group, for one search.

    The weights do not change during a search, so a group's sum is the same whenever its atoms
    recur: within a beam step (items of one parent) and across steps (a stack element back in
    the same place after a reduce, a word shifted at different steps by different items). Over
    en-ewt dev at beam 64, remembering for the whole sentence instead of for one step computes a
    third fewer group sums.

    Returns (slots, seen, scores, counts): per group an open-addressing table of atom-vector
    signatures, ``slots[g, i] = (stamp, signature, entry)`` (in use when its stamp is the
    group's), the entries' atoms and score rows (each row's maximum in one more column), and
    ``counts``: each group's entries, then each group's stamp, then room for one item's entries
    (``group_entries``). A group whose entries fill ``capacity`` forgets them all (a new stamp)
    and starts again. Few arrays, because numba counts a reference to each one every time it
    is passed on.
    """
    size = _weights.half_full_size(capacity)
    counts = np.zeros(3 * N_GROUPS, dtype=np.int64)
    counts[N_GROUPS:2 * N_GROUPS] = 1
    return (np.zeros((N_GROUPS, size, 3), dtype=np.int64), np.empty((N_GROUPS, capacity, GROUP_ATOMS.shape[1]), dtype=np.int64),
            np.empty((N_GROUPS, capacity, width + 1), dtype=np.float32), counts)


@njit(cache=True, inline="always")
def group_scores(g, scheme, atoms, templates, table, rows, keys, slots, seen, scores, counts, clock):
    """The entry of group g's sum for these atoms in the memo (``new_group_memo``), computed if not
    there; ``scheme``: see ``feature_keys``."""
    stamp = counts[N_GROUPS + g]
    t = start(clock)
    h = np.uint64(g + 1 + N_GROUPS * scheme) * _SEED
    for j in range(GROUP_ATOMS.shape[1]):  # products side by side, not one long chain of mixes
        a = GROUP_ATOMS[g, j]
        if a < 0:
            break
        h += np.uint64(atoms[a]) * POSITION_FACTORS[j]
    h = mix(h, 0)
    signature = np.int64(h >> np.uint64(1))
    mask = slots.shape[1] - 1
    i = np.int64(h & np.uint64(mask))
    while slots[g, i, 0] == stamp:
        if slots[g, i, 1] == signature:
            e = slots[g, i, 2]
            same = True
            for j in range(GROUP_ATOMS.shape[1]):
                a = GROUP_ATOMS[g, j]
                if a < 0:
                    break
                if seen[g, e, j] != atoms[a]:
                    same = False
                    break
            if same:
                lap(clock, MEMO, t)
                return e
        i = (i + 1) & mask
    e = counts[g]
    if e == seen.shape[1]:  # full: forget this group's entries (their stamps are old)
        e = 0
        stamp += 1
        counts[N_GROUPS + g] = stamp
        i = np.int64(h & np.uint64(mask))
    counts[g] = e + 1
    slots[g, i, 0] = stamp
    slots[g, i, 1] = signature
    slots[g, i, 2] = e
    for j in range(GROUP_ATOMS.shape[1]):
        a = GROUP_ATOMS[g, j]
        if a >= 0:
            seen[g, e, j] = atoms[a]
    t = lap(clock, MEMO, t)
    for j in range(GROUP_TEMPLATES.shape[1]):
        k = GROUP_TEMPLATES[g, j]
        if k < 0:
            break
        keys[k] = feature_key(atoms, templates, k, scheme)
    t = lap(clock, HASHING, t)
    for j in range(GROUP_TEMPLATES.shape[1]):
        k = GROUP_TEMPLATES[g, j]
        if k < 0:
            break
        _weights.prefetch(table, keys[k])
    entries = rows[0]
    for j in range(GROUP_TEMPLATES.shape[1]):  # the keys give way to their payloads
        k = GROUP_TEMPLATES[g, j]
        if k < 0:
            break
        keys[k] = _weights.lookup(table, keys[k])
        _weights.prefetch_entries(keys[k], entries)
    width = scores.shape[2] - 1
    row = scores[g, e, :width]
    row[:] = 0.0
    for j in range(GROUP_TEMPLATES.shape[1]):
        k = GROUP_TEMPLATES[g, j]
        if k < 0:
            break
        _weights.add_row(keys[k], rows, row)
    most = row[0]
    for a in range(1, width):  # a loop, not row.max(): the joint search is compiled without numba's reference counting
        most = max(most, row[a])
    scores[g, e, width] = most
    lap(clock, WEIGHTS, t)
    return e


@njit(cache=True, inline="always")
def best_valid(acc, first, last, extra):
    """The highest score of a valid action in ``acc``."""
    b0 = acc[extra] if extra >= 0 else np.float32(-np.inf)
    b1, b2, b3 = b0, b0, b0
    a = first
    while a + 4 <= last:  # four maxima side by side: one chain of 136 waits on each step
        b0 = max(b0, acc[a])
        b1 = max(b1, acc[a + 1])
        b2 = max(b2, acc[a + 2])
        b3 = max(b3, acc[a + 3])
        a += 4
    for a in range(a, last):
        b0 = max(b0, acc[a])
    return max(max(b0, b1), max(b2, b3))


@njit(cache=True, inline="always")
def offers_none(hs, filled, beam, base, acc, first, last, extra):
    """With a full beam, an item whose best valid action falls below the worst survivor so far
    offers none (most items, late in a step): its actions need not be offered one by one."""
    return filled == beam and base + np.float64(best_valid(acc, first, last, extra)) < hs[0]


@njit(cache=True, inline="always")
def valid_actions(slen, nxt, b, n, n_actions):
    """(first, last, extra) of item b: the valid actions are first..last-1 and ``extra`` (-1: none)."""
    if slen[b] >= 2:  # every arc action, and shift if the queue is not empty
        return 2, n_actions, (SH if nxt[b] <= n else -1)
    if nxt[b] <= n:  # shift is forced
        return 0, 0, SH
    return 0, 0, PR  # pop-root is forced


@njit(cache=True, inline="always")
def add_item_scores(atoms, seen, templates, first, stop, scheme, table, rows, keys, acc, arcs, extra, memo):
    """``acc`` = the scores of the features of templates first..stop-1 over ``atoms`` (arc actions
    if ``arcs``, and ``extra``).

    ``seen`` holds every atom those templates read: an item with the same ``seen`` as an earlier
    item of this step takes that item's scores from ``memo``. (The joint model's guided templates;
    the baseline templates are scored by groups, see ``score_item``.)
    """
    signature = atoms_signature(seen, arcs, extra)
    if recall(memo, signature, seen, acc):
        return
    feature_keys(atoms, templates, first, stop, scheme, keys)
    for k in range(first, stop):
        _weights.prefetch(table, keys[k])
    entries = rows[0]
    for k in range(first, stop):  # the keys give way to their payloads
        keys[k] = _weights.lookup(table, keys[k])
        _weights.prefetch_entries(keys[k], entries)
    acc[:] = 0.0
    for k in range(first, stop):
        _weights.add_scores(keys[k], rows, acc, arcs, extra)
    remember(memo, signature, seen, acc)


@njit(cache=True)
def new_memo(capacity, n_atoms, width):
    """Room for the scores of ``capacity`` distinct atom vectors (0: no memo).

    Items of one step often share every atom: they differ deeper in the stack or, in the
    joint model, in the other scheme's tree (about half of the items of fr-sequoia dev at
    beam 64, over two thirds in the joint model's second scheme). Their scores are equal,
    so the lookups are done once per step and atom vector.
    """
    return (np.zeros(capacity, dtype=np.uint64), np.zeros((capacity, n_atoms), dtype=np.int64),
            np.zeros((capacity, width), dtype=np.float32), np.zeros(1, dtype=np.int64))


@njit(cache=True, inline="always")
def atoms_signature(atoms, arcs, extra):
    h = (_SEED ^ np.uint64(extra + 2)) * _MULT
    if arcs:
        h ^= np.uint64(1) << np.uint64(63)
    for a in range(atoms.shape[0]):
        h = mix(h, atoms[a])
    return h


@njit(cache=True, inline="always")
def recall(memo, signature, atoms, acc):
    """Copy to ``acc`` the scores remembered this step for these atoms (and valid actions); found?"""
    signatures, seen, scores, count = memo
    for c in range(count[0]):
        if signatures[c] == signature:
            same = True
            for a in range(atoms.shape[0]):
                if seen[c, a] != atoms[a]:
                    same = False
                    break
            if same:
                for a in range(acc.shape[0]):
                    acc[a] = scores[c, a]
                return True
    return False


@njit(cache=True, inline="always")
def forget(memo):
    """Empty the memo (at each step: the items of one step only are compared)."""
    memo[3][0] = 0


@njit(cache=True, inline="always")
def remember(memo, signature, atoms, acc):
    signatures, seen, scores, count = memo
    c = count[0]
    if c < signatures.shape[0]:
        signatures[c] = signature
        for a in range(atoms.shape[0]):
            seen[c, a] = atoms[a]
        for a in range(acc.shape[0]):
            scores[c, a] = acc[a]
        count[0] = c + 1


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
    memo = new_group_memo(group_memo_capacity(steps, beam, n_actions), n_actions)
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
    first = 0
    while first < length and gold[first] == pred[first]:
        first += 1
    for w in range(1, n + 1):
        if tags[w] != pred_tags[w]:  # other tags: the two sides' features may differ from the start
            first = 0
            break
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
