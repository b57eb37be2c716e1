"""Remembered scores (numba): what a search computed once and reads again.

Two memos. The *group memo* keeps, for a whole search, each template group's summed scores by
the atoms the group reads (``new_group_memo``; the groups are the parser's, ``template_groups``):
the arc-standard and joint searches score their baseline templates through it, the
constituency searches all their templates. The *step memo* keeps whole items' scores for one step, by every
atom their templates read (``new_memo``): the joint model's guided templates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.learn import _weights
from hetdep.learn._keys import KEY_MULTIPLIER, KEY_SEED, feature_key, feature_keys, mix
from hetdep.transition._clock import HASHING, MEMO, WEIGHTS, lap, start


@njit(cache=True, inline="always")
def add_group_scores(scheme, atoms, templates, table, rows, keys, acc, memo, clock):
    """``acc`` = the sum of the template groups' sums over ``atoms`` (every action's), each group's
    sum recalled from ``memo`` (``new_group_memo``) or computed there (``group_scores``)."""
    entries = memo[3][2 * memo[4].shape[0]:]
    group_entries(scheme, atoms, templates, table, rows, keys, memo, entries, clock)
    sum_entries(memo, entries, acc, clock)


@njit(cache=True, inline="always")
def group_entries(scheme, atoms, templates, table, rows, keys, memo, entries, clock):
    """Each template group's memo entry for ``atoms`` in ``entries`` (computed where new), and a
    bound no action's summed score exceeds: the sum of the groups' row maxima, added in the
    order ``sum_entries`` adds the rows (float32 rounding is monotone, so the bound holds exactly)."""
    scores = memo[2]
    width = scores.shape[2] - 1
    bound = np.float32(0.0)
    for g in range(memo[4].shape[0]):
        e = group_scores(g, scheme, atoms, templates, table, rows, keys, memo, clock)
        entries[g] = e
        bound += scores[g, e, width]
    return bound


@njit(cache=True, inline="always")
def sum_entries(memo, entries, acc, clock):
    """``acc`` = the sum of the groups' rows at ``entries`` (``group_entries``), every action's."""
    t = start(clock)
    acc[:] = 0.0
    add_rows(memo, entries, 0, entries.shape[0], acc)
    lap(clock, MEMO, t)


@njit(cache=True, inline="always")
def add_rows(memo, entries, first, stop, acc):
    """Add the rows of groups first..stop-1 at ``entries`` to ``acc``, in group order."""
    scores = memo[2]
    for g in range(first, stop):
        e = entries[g]
        for a in range(acc.shape[0]):
            acc[a] += scores[g, e, a]


def template_groups(groups, templates) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A parser's template groups (lists of template ids) for the group memo: each group's template
    ids and the atoms they read (``templates``: each template's atoms), as rows padded with -1,
    and the fixed odd factors a group's signature multiplies its atoms by, position by position."""
    atoms = [sorted({a for t in group for a in templates[t]}) for group in groups]
    templates_of = np.full((len(groups), max(map(len, groups))), -1, dtype=np.int64)
    atoms_of = np.full((len(groups), max(map(len, atoms))), -1, dtype=np.int64)
    for g, (group, read) in enumerate(zip(groups, atoms)):
        templates_of[g, :len(group)] = group
        atoms_of[g, :len(read)] = read
    factors = np.random.default_rng(7).integers(1 << 62, size=atoms_of.shape[1], dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    return templates_of, atoms_of, factors


MEMO_BYTES = 8 << 20  # the group memo's score rows, at most: they stay in the last-level cache


@njit(cache=True)
def group_memo_capacity(steps, beam, width, n_groups):
    """Entries a group's memo keeps for one search: every item of every step if that fits in
    ``MEMO_BYTES``, else as many as fit (at least one step's)."""
    return max(beam + 1, min(steps * (beam + 1), MEMO_BYTES // (4 * n_groups * width)))


@njit(cache=True)
def new_group_memo(capacity, width, groups):
    """Room for the scores of ``capacity`` (at least 1) distinct atom vectors per template group
    (``groups``: see ``template_groups``), for one search.

    The weights do not change during a search, so a group's sum is the same whenever its atoms
    recur: within a beam step (items of one parent) and across steps (a stack element back in
    the same place after a reduce, a word shifted at different steps by different items). Over
    en-ewt dev at beam 64, remembering for the whole sentence instead of for one step computes a
    third fewer group sums.

    Returns (slots, seen, scores, counts, and the groups' three arrays): per group an
    open-addressing table of atom-vector signatures, ``slots[g, i] = (stamp, signature, entry)`` (in use when its stamp is the
    group's), the entries' atoms and score rows (each row's maximum in one more column), and
    ``counts``: each group's entries, then each group's stamp, then room for one item's entries
    (``group_entries``). A group whose entries fill ``capacity`` forgets them all (a new stamp)
    and starts again. Few arrays, because numba counts a reference to each one every time it
    is passed on.
    """
    size = _weights.half_full_size(capacity)
    templates_of, atoms_of, factors = groups
    n_groups = templates_of.shape[0]
    counts = np.zeros(3 * n_groups, dtype=np.int64)
    counts[n_groups:2 * n_groups] = 1
    return (np.zeros((n_groups, size, 3), dtype=np.int64), np.empty((n_groups, capacity, atoms_of.shape[1]), dtype=np.int64),
            np.empty((n_groups, capacity, width + 1), dtype=np.float32), counts, templates_of, atoms_of, factors)


@njit(cache=True, inline="always")
def group_scores(g, scheme, atoms, templates, table, rows, keys, memo, clock):
    """The entry of group g's sum for these atoms in the memo (``new_group_memo``), computed if not
    there; ``scheme``: see ``feature_keys``."""
    slots, seen, scores, counts, group_templates, group_atoms, factors = memo
    n_groups = group_templates.shape[0]
    stamp = counts[n_groups + g]
    t = start(clock)
    h = np.uint64(g + 1 + n_groups * scheme) * KEY_SEED
    for j in range(group_atoms.shape[1]):  # products side by side, not one long chain of mixes
        a = group_atoms[g, j]
        if a < 0:
            break
        h += np.uint64(atoms[a]) * factors[j]
    h = mix(h, 0)
    signature = np.int64(h >> np.uint64(1))
    mask = slots.shape[1] - 1
    i = np.int64(h & np.uint64(mask))
    while slots[g, i, 0] == stamp:
        if slots[g, i, 1] == signature:
            e = slots[g, i, 2]
            same = True
            for j in range(group_atoms.shape[1]):
                a = group_atoms[g, j]
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
        counts[n_groups + g] = stamp
        i = np.int64(h & np.uint64(mask))
    counts[g] = e + 1
    slots[g, i, 0] = stamp
    slots[g, i, 1] = signature
    slots[g, i, 2] = e
    for j in range(group_atoms.shape[1]):
        a = group_atoms[g, j]
        if a >= 0:
            seen[g, e, j] = atoms[a]
    t = lap(clock, MEMO, t)
    for j in range(group_templates.shape[1]):
        k = group_templates[g, j]
        if k < 0:
            break
        keys[k] = feature_key(atoms, templates, k, scheme)
    t = lap(clock, HASHING, t)
    for j in range(group_templates.shape[1]):
        k = group_templates[g, j]
        if k < 0:
            break
        _weights.prefetch(table, keys[k])
    entries = rows[0]
    for j in range(group_templates.shape[1]):  # the keys give way to their payloads
        k = group_templates[g, j]
        if k < 0:
            break
        keys[k] = _weights.lookup(table, keys[k])
        _weights.prefetch_entries(keys[k], entries)
    width = scores.shape[2] - 1
    row = scores[g, e, :width]
    row[:] = 0.0
    for j in range(group_templates.shape[1]):
        k = group_templates[g, j]
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
    h = (KEY_SEED ^ np.uint64(extra + 2)) * KEY_MULTIPLIER
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
