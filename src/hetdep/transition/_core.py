"""The beam core (numba): what every compiled beam search shares, whatever its items hold.

A search of ``steps`` steps keeps a :class:`Trail` beside its items: the candidate heap of the
step (the best ``beam`` candidates, worst at the root), the parent and action of every survivor
of every step (to backtrack the returned sequence), and the max-violation record. Its step loop
is, for any transition system:

    score each item's valid actions; offer (score, order) to the heap if it ``beats`` the worst;
    sort_survivors; build each survivor from its parent, and ``record`` it;
    if stops_early(...): return the backtracked prefix
    note_violation(...)
    ... and at the end, ``finish``.

Candidates compare by score, then by order (parent position and action, packed by the caller),
so ties break exactly as in the pure-Python references. The arc-standard searches (plain, DP,
tag lattices) and the joint ones use this core; a new transition system plugs in the same way.

Modes (``hetdep.learn.perceptron``): DECODE runs to the end; EARLY (early update, Collins & Roark
2004) stops at the first step the gold item falls out of the beam; MAX_VIOLATION (Huang et al.
2012) runs to the end beside the gold prefix and returns the prefix of the step where the best
item beats the gold prefix by most.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from hetdep.learn.perceptron import EARLY, MAX_VIOLATION

# violation: [the gold prefix's score, the worst violation so far, its step (-1: none yet)]
Trail = namedtuple("Trail", ["parent", "action", "actions", "heap_score", "heap_order", "violation"])


@njit(cache=True)
def new_trail(steps, beam):
    """The trail of a search of ``steps`` steps whose heap keeps ``beam`` candidates."""
    violation = np.zeros(3, dtype=np.float64)
    violation[2] = -1.0
    return Trail(np.zeros((steps, beam), dtype=np.int32), np.zeros((steps, beam), dtype=np.int32),
                 np.zeros(steps, dtype=np.int32), np.zeros(beam, dtype=np.float64), np.zeros(beam, dtype=np.int64), violation)


@njit(cache=True, inline="always")
def record(trail, step, j, parent, action):
    """Survivor j of this step came from item ``parent`` by ``action``."""
    trail.parent[step, j] = parent
    trail.action[step, j] = action


@njit(cache=True, inline="always")
def add_gold_score(trail, value):
    """Max-violation: the gold prefix's next action scored ``value``."""
    trail.violation[0] += value


@njit(cache=True, inline="always")
def stops_early(mode, trail, step, any_gold):
    """Early update: no survivor is on the gold path, so the search stops here with the best
    item's actions in ``trail.actions`` (length step + 1)."""
    if mode == EARLY and not any_gold:
        backtrack(trail.parent, trail.action, step, trail.actions)
        return True
    return False


@njit(cache=True, inline="always")
def note_violation(mode, trail, step, best_score, best_is_gold):
    """Max-violation: keep this step if the best item beats the gold prefix by most so far;
    returns whether it was kept (a search that keeps more of the item, tags say, copies it then)."""
    violation = trail.violation
    if mode == MAX_VIOLATION and not best_is_gold and best_score - violation[0] >= violation[1]:
        violation[1] = best_score - violation[0]
        violation[2] = step
        return True
    return False


@njit(cache=True)
def finish(mode, trail, gold, best_score):
    """The result of a search that ran to the end: the sequence in ``trail.actions``, and (length,
    score). Max-violation gives the gold sequence and its score when the gold item ended best,
    else the prefix of the worst step, with the final best score (the update reads only actions)."""
    steps = trail.actions.shape[0]
    worst_step = int(trail.violation[2])
    if mode == MAX_VIOLATION:
        if worst_step < 0:
            for k in range(steps):
                trail.actions[k] = gold[k]
            return steps, trail.violation[0]
        backtrack(trail.parent, trail.action, worst_step, trail.actions)
        return worst_step + 1, best_score
    backtrack(trail.parent, trail.action, steps - 1, trail.actions)
    return steps, best_score


@njit(cache=True, inline="always")
def copy_row(source, target):
    """``target[:] = source``, as a loop: some searches' steps are compiled without reference
    counting, and numba's slice copy may make a temporary array."""
    for a in range(target.shape[0]):
        target[a] = source[a]


@njit(cache=True, inline="always")
def first_difference(gold, pred, length, tags, pred_tags, n):
    """Where a perceptron update over ``length`` steps starts: steps before the sequences' first
    difference have the same state and action on both sides and cancel, unless the prediction
    chose other tags (over a tag lattice), whose features may differ from the start."""
    first = 0
    while first < length and gold[first] == pred[first]:
        first += 1
    for w in range(1, n + 1):
        if tags[w] != pred_tags[w]:
            return 0
    return first


@njit(cache=True)
def backtrack(hist_parent, hist_action, last, out):
    """The actions of the best item of step ``last`` (slot 0), into ``out[:last + 1]``."""
    j = 0
    for step in range(last, -1, -1):
        out[step] = hist_action[step, j]
        j = hist_parent[step, j]


@njit(cache=True)
def _worse(s1, o1, s2, o2):
    """Is candidate 1 ranked below candidate 2? (lower score, or equal score and later order)"""
    return s1 < s2 or (s1 == s2 and o1 > o2)


@njit(cache=True)
def _sift_down(hs, ho, size, i):
    while True:
        left = 2 * i + 1
        worst = i
        if left < size and _worse(hs[left], ho[left], hs[worst], ho[worst]):
            worst = left
        right = left + 1
        if right < size and _worse(hs[right], ho[right], hs[worst], ho[worst]):
            worst = right
        if worst == i:
            return
        hs[i], hs[worst] = hs[worst], hs[i]
        ho[i], ho[worst] = ho[worst], ho[i]
        i = worst


@njit(cache=True)
def _sift_up(hs, ho, i):
    while i > 0:
        parent = (i - 1) // 2
        if _worse(hs[i], ho[i], hs[parent], ho[parent]):
            hs[i], hs[parent] = hs[parent], hs[i]
            ho[i], ho[parent] = ho[parent], ho[i]
            i = parent
        else:
            return


@njit(cache=True)
def offer(hs, ho, filled, beam, value, order):
    """Offer a candidate to the top-``beam`` heap (worst at the root); returns the new fill.

    Callers test ``beats(...)`` first: most candidates fail it, and that test is cheaper inline.
    """
    if filled < beam:
        hs[filled] = value
        ho[filled] = order
        _sift_up(hs, ho, filled)
        return filled + 1
    if value > hs[0] or (value == hs[0] and order < ho[0]):
        hs[0] = value
        ho[0] = order
        _sift_down(hs, ho, filled, 0)
    return filled


@njit(cache=True, inline="always")
def beats(hs, ho, filled, beam, value, order):
    """Would the candidate enter the heap (room left, or better than its worst)?"""
    return filled < beam or value > hs[0] or (value == hs[0] and order < ho[0])


@njit(cache=True)
def sort_survivors(hs, ho, filled):
    """Order the heap's candidates best first (insertion sort: the beam is small)."""
    for i in range(1, filled):
        value, order = hs[i], ho[i]
        j = i - 1
        while j >= 0 and _worse(hs[j], ho[j], value, order):
            hs[j + 1] = hs[j]
            ho[j + 1] = ho[j]
            j -= 1
        hs[j + 1] = value
        ho[j + 1] = order


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
