"""Beam search over a POS-tag lattice for the arc-standard parser (mi-huang2015, SPEC section 5).

Each word comes with up to K candidate tags (tag ids, best first). A beam item carries its own
tag for each word its features can see, the words up to q1: the start items fix the first
two words' tags (one item per combination), and a shift, which brings word nxt + 2 into the
window, is split once per candidate tag of that word. The parser's features choose among the
candidates, with the tagger's log-probability of each added times a weight (0: the features
alone; ties keep the tagger's order). Otherwise the search is
:func:`hetdep.transition._beam.search` (same modes), and it also returns the chosen tags;
:func:`joint_search` does the same for the joint model, whose two schemes share the tags.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition._beam import FIELDS, GROUPS, N_ATOMS, N_GROUPS, SH, apply, gold_step, score_item
from hetdep.transition._core import (
    add_gold_score,
    beats,
    copy_row,
    finish,
    new_trail,
    note_violation,
    offer,
    record,
    sort_survivors,
    stops_early,
)
from hetdep.transition._memos import group_memo_capacity, new_group_memo


@njit(cache=True)
def start_items(candidates, counts, logp, weight, n, beam, itags, score, is_gold, train, gold_tags):
    """The start items: every combination of the first two words' candidates, better-ranked first; returns how many."""
    size = 0
    second = counts[2] if n >= 2 else 1
    for rank in range(counts[1] + second - 1):
        for c1 in range(counts[1]):
            c2 = rank - c1
            if 0 <= c2 < second and size < beam:
                itags[size, 1] = candidates[1, c1]
                score[size] = weight * logp[1, c1]
                if n >= 2:
                    itags[size, 2] = candidates[2, c2]
                    score[size] += weight * logp[2, c2]
                is_gold[size] = train and itags[size, 1] == gold_tags[1] and (n < 2 or itags[size, 2] == gold_tags[2])
                size += 1
    return size


@njit(cache=True)
def gold_tag_cost(candidates, counts, logp, weight, k, gold_tags):
    """What the search adds when word k enters the window with its gold-path tag (as for any
    candidate: the weight times the tagger's log-probability), so that max-violation compares
    the gold prefix and the beam on the same footing."""
    for c in range(counts[k]):
        if candidates[k, c] == gold_tags[k]:
            return weight * logp[k, c]
    return 0.0


@njit(cache=True)
def gold_start_cost(candidates, counts, logp, weight, n, gold_tags):
    """:func:`gold_tag_cost` of the first two words, as :func:`start_items` adds theirs."""
    cost = gold_tag_cost(candidates, counts, logp, weight, 1, gold_tags)
    if n >= 2:
        cost += gold_tag_cost(candidates, counts, logp, weight, 2, gold_tags)
    return cost


@njit(cache=True, inline="always")
def entering_cost(candidates, counts, logp, weight, k, gold_tags):
    """:func:`gold_tag_cost` of word k brought into the window by a shift: as the search adds it,
    only where the word has several candidates (``offer_choices``)."""
    return gold_tag_cost(candidates, counts, logp, weight, k, gold_tags) if counts[k] > 1 else 0.0


@njit(cache=True, inline="always")
def offer_choices(hs, ho, filled, beam, value, order, choices, weight, logp, entering):
    """Offer an action of score ``value`` once (``choices`` 1) or, for a shift that brings word
    ``entering`` of several candidates into the window, once per candidate (order + its rank),
    with the tagger's cost of each added. Returns the heap's fill."""
    for c in range(choices):
        chosen = value + weight * logp[entering, c] if choices > 1 else value
        if beats(hs, ho, filled, beam, chosen, order + c):
            filled = offer(hs, ho, filled, beam, chosen, order + c)
    return filled


@njit(cache=True, inline="always")
def lattice_candidate(order, span, kinds):
    """(parent, action, candidate rank) of a candidate's order: parent * span + action * kinds + rank."""
    return order // span, (order % span) // kinds, order % kinds


@njit(cache=True, inline="always")
def take_tags(itags, nitags, j, parent, entering, choice, candidates, chooses, gold_tags):
    """Survivor j's tags: its parent's and, if its action ``chooses`` word ``entering``'s tag, the
    candidate of rank ``choice``. Returns whether that tag (if any) is the gold path's."""
    copy_row(itags[parent], nitags[j])
    if not chooses:
        return True
    nitags[j, entering] = candidates[entering, choice]
    return nitags[j, entering] == gold_tags[entering]


@njit(cache=True, inline="always")
def close_lattice_step(mode, trail, step, any_gold, best_score, best_is_gold, best_tags, worst_tags):
    """The end of a step: whether early update stops here; max-violation keeps the tags of the
    step's best item when the step is the worst violation so far."""
    if stops_early(mode, trail, step, any_gold):
        return True
    if note_violation(mode, trail, step, best_score, best_is_gold):
        copy_row(best_tags, worst_tags)
    return False


@njit(cache=True)
def lattice_finish(mode, trail, gold, best_score, gold_tags, worst_tags, last_tags):
    """:func:`hetdep.transition._core.finish`, with the tags of the sequence returned: the gold path's when
    max-violation found nothing to learn, the most violating item's, or the best final item's."""
    length, score = finish(mode, trail, gold, best_score)
    if mode == MAX_VIOLATION:
        return trail.actions, length, score, (gold_tags if trail.violation[2] < 0 else worst_tags).copy()
    return trail.actions, length, score, last_tags.copy()


@njit(cache=True, nogil=True)
def search(words, candidates, counts, logp, weight, n, beam, templates, table, rows, n_labels, gold, gold_tags, mode):
    """Returns (actions, length, score, tags): as :func:`hetdep.transition._beam.search`, and the tag ids
    (index k for word k) of the item returned.

    ``candidates[k, :counts[k]]``: word k's candidate tag ids, ``logp`` their log-probabilities
    under the tagger, added times ``weight`` when a candidate is chosen; ``gold_tags``: the tags
    of the gold path (each one of the word's candidates) when training.
    """
    kinds = candidates.shape[1]
    n_actions = 2 + 2 * n_labels
    width = n_actions * kinds
    steps = 2 * n
    stk = np.zeros((beam, n + 1, FIELDS), dtype=np.int64)
    nstk = np.zeros((beam, n + 1, FIELDS), dtype=np.int64)
    slen = np.zeros(beam, dtype=np.int64)
    nslen = np.zeros(beam, dtype=np.int64)
    nxt = np.ones(beam, dtype=np.int64)
    nnxt = np.ones(beam, dtype=np.int64)
    itags = np.zeros((beam, n + 2), dtype=np.int64)
    nitags = np.zeros((beam, n + 2), dtype=np.int64)
    score = np.zeros(beam, dtype=np.float64)
    nscore = np.zeros(beam, dtype=np.float64)
    is_gold = np.zeros(beam, dtype=np.bool_)
    nis_gold = np.zeros(beam, dtype=np.bool_)
    atoms = np.zeros(N_ATOMS, dtype=np.int64)
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    acc = np.zeros(n_actions, dtype=np.float32)
    memo = new_group_memo(group_memo_capacity(steps, beam, n_actions, N_GROUPS), n_actions, GROUPS)
    trail = new_trail(steps, beam)
    hs, ho = trail.heap_score, trail.heap_order
    train = mode != DECODE
    size = start_items(candidates, counts, logp, weight, n, beam, itags, score, is_gold, train, gold_tags)
    gstk = np.zeros((1, n + 1, FIELDS), dtype=np.int64)
    gslen = np.zeros(1, dtype=np.int64)
    gnxt = np.ones(1, dtype=np.int64)
    if mode == MAX_VIOLATION:
        add_gold_score(trail, gold_start_cost(candidates, counts, logp, weight, n, gold_tags))
    worst_tags = np.zeros(n + 2, dtype=np.int64)
    for step in range(steps):
        if mode == MAX_VIOLATION:
            entering = gnxt[0] + 2
            if gold[step] == SH and entering <= n:
                add_gold_score(trail, entering_cost(candidates, counts, logp, weight, entering, gold_tags))
            add_gold_score(trail, gold_step(gstk, gslen, gnxt, n, words, gold_tags, templates, table, rows, atoms, keys, acc,
                                            memo, gold[step], n_labels))
        filled = 0
        for b in range(size):
            first, last, extra = score_item(stk, slen, nxt, b, n, words, itags[b], templates, table, rows, atoms, keys, acc, memo)
            base = score[b]
            entering = nxt[b] + 2  # the word a shift brings into the window
            for i in range(-1 if extra >= 0 else 0, last - first):
                a = extra if i < 0 else first + i
                choices = counts[entering] if a == SH and entering <= n else 1
                filled = offer_choices(hs, ho, filled, beam, base + np.float64(acc[a]), b * width + a * kinds, choices, weight,
                                       logp, entering)
        sort_survivors(hs, ho, filled)
        any_gold = False
        for j in range(filled):
            parent, action, choice = lattice_candidate(ho[j], width, kinds)
            top = slen[parent]
            nstk[j, :top, :] = stk[parent, :top, :]
            nslen[j] = top
            nnxt[j] = nxt[parent]
            entering = nxt[parent] + 2
            right_tag = take_tags(itags, nitags, j, parent, entering, choice, candidates, action == SH and entering <= n,
                                  gold_tags)
            apply(nstk, nslen, nnxt, j, action, n_labels)
            nscore[j] = hs[j]
            nis_gold[j] = train and is_gold[parent] and action == gold[step] and right_tag
            any_gold = any_gold or nis_gold[j]
            record(trail, step, j, parent, action)
        stk, nstk = nstk, stk
        slen, nslen = nslen, slen
        nxt, nnxt = nnxt, nxt
        itags, nitags = nitags, itags
        score, nscore = nscore, score
        is_gold, nis_gold = nis_gold, is_gold
        size = filled
        if close_lattice_step(mode, trail, step, any_gold, score[0], is_gold[0], itags[0], worst_tags):
            return trail.actions, step + 1, score[0], itags[0].copy()
    return lattice_finish(mode, trail, gold, score[0], gold_tags, worst_tags, itags[0])
