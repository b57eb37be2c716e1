"""Beam search over a POS-tag lattice for the constituency parser (mi-huang2015 section 4).

Each word comes with up to K candidate tags (tag ids, best first). A beam item carries its own
tag for every word its features have seen, up to q3: the start items fix the first four words'
tags (combinations in order of their candidates' ranks), and a shift, which brings word
nxt + 4 into the window, is split once per candidate tag of that word (mi-huang2015's Figure 3,
with their look-ahead of four words). The tagger's log-probability of each chosen candidate is
added times a weight (0: the parser's features alone choose). Otherwise this is
:func:`hetdep.constituency._search.search` (same modes), and it also returns the chosen tags.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.constituency._search import (
    N_ATOMS,
    NO_UNARY,
    SHIFT,
    apply,
    new_items,
    new_pool,
    new_queue_sums,
    score_state,
    top_nodes,
    valid_actions,
)
from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition._core import add_gold_score, copy_row, new_trail, record, sort_survivors
from hetdep.transition._lattice import (
    close_lattice_step,
    entering_cost,
    gold_tag_cost,
    lattice_candidate,
    lattice_finish,
    offer_choices,
    take_tags,
)

WINDOW = 4  # words whose tags the features read before they are shifted (q0..q3)


@njit(cache=True)
def start_items(candidates, counts, logp, weight, n, beam, itags, score, is_gold, train, gold_tags):
    """The start items: combinations of the first four words' candidates, those of lower rank sums
    first (then in the order of the first word's rank, the second's, ...); returns how many."""
    known = min(n, WINDOW)
    kinds = candidates.shape[1]
    size = 0
    total = 1
    for k in range(1, known + 1):
        total *= counts[k]
    for rank in range(WINDOW * (kinds - 1) + 1):
        for code in range(total):
            rest = code
            ranks = 0
            for k in range(known, 0, -1):  # the last word's choice varies fastest
                ranks += rest % counts[k]
                rest //= counts[k]
            if ranks != rank or size >= beam:
                continue
            rest = code
            score[size] = 0.0
            gold_start = True
            for k in range(known, 0, -1):
                c = rest % counts[k]
                rest //= counts[k]
                itags[size, k] = candidates[k, c]
                score[size] += weight * logp[k, c]
                gold_start = gold_start and itags[size, k] == gold_tags[k]
            is_gold[size] = train and gold_start
            size += 1
    return size


@njit(cache=True, nogil=True)
def search(words, candidates, counts, logp, weight, n, beam, templates, table, rows, n_labels, n_unaries, gold, gold_tags,
           mode):
    """Returns (actions, length, score, tags): as :func:`hetdep.constituency._search.search`, and the
    tag ids (index k for word k) of the item returned.

    ``candidates[k, :counts[k]]``: word k's candidate tag ids, ``logp`` their log-probabilities
    under the tagger, added times ``weight`` when a candidate is chosen; ``gold_tags``: the tags
    of the gold path (each one of the word's candidates) when training.
    """
    n_actions = 3 + 4 * n_labels + n_unaries
    steps = 4 * n - 1
    nodes, cells, used = new_pool((steps + 1) * (beam + 1))
    trail = new_trail(steps, beam)
    best_tags = np.zeros(n + 2, dtype=np.int64)
    worst_tags = np.zeros(n + 2, dtype=np.int64)
    stopped, length, best = _steps(words, candidates, counts, logp, weight, n, beam, templates, table, rows, n_labels,
                                   n_unaries, gold, gold_tags, mode, nodes, cells, used, new_items(beam, n_actions),
                                   new_items(beam, n_actions), np.zeros((beam, n + 2), dtype=np.int64),
                                   np.zeros((beam, n + 2), dtype=np.int64), np.zeros(beam, dtype=np.float64), trail,
                                   np.zeros(N_ATOMS, dtype=np.int64), np.zeros(templates.shape[0], dtype=np.uint64),
                                   np.zeros(n_actions, dtype=np.float32), new_queue_sums(templates, n, n_actions),
                                   np.zeros(4, dtype=np.int64), np.zeros(n_actions, dtype=np.int64), best_tags, worst_tags)
    if stopped:
        return trail.actions, length, best, best_tags
    return lattice_finish(mode, trail, gold, best, gold_tags, worst_tags, best_tags)


@njit(cache=True, _nrt=False, nogil=True)
def _steps(words, candidates, counts, logp, weight, n, beam, templates, table, rows, n_labels, n_unaries, gold, gold_tags,
           mode, nodes, cells, used, cur, new, itags, nitags, score, trail, atoms, keys, acc, queue, four, valid, best_tags,
           worst_tags):
    """The steps of :func:`search`, without reference counting as :func:`hetdep.constituency._search._steps`
    (each item's tags in ``itags``, beside ``cur``): returns (whether early update stopped them,
    the length, the best item's score), its tags in ``best_tags``."""
    kinds = candidates.shape[1]
    n_actions = 3 + 4 * n_labels + n_unaries
    first_unary = 3 + 4 * n_labels
    width = n_actions * kinds
    steps = 4 * n - 1
    hs, ho = trail.heap_score, trail.heap_order
    train = mode != DECODE
    size = start_items(candidates, counts, logp, weight, n, beam, itags, score, cur.is_gold, train, gold_tags)
    gold_top, gold_nxt, gold_depth = 0, 1, 0
    if mode == MAX_VIOLATION:
        for k in range(1, min(n, WINDOW) + 1):
            add_gold_score(trail, gold_tag_cost(candidates, counts, logp, weight, k, gold_tags))
    for step in range(steps):
        if mode == MAX_VIOLATION:
            entering = gold_nxt + WINDOW
            if gold[step] == SHIFT and entering <= n:
                add_gold_score(trail, entering_cost(candidates, counts, logp, weight, entering, gold_tags))
            if step == 0 or gold[step - 1] != NO_UNARY:  # else acc holds the same state's scores
                top_nodes(cells, gold_top, four)
                score_state(nodes, four, gold_nxt, n, words, gold_tags, templates, table, rows, atoms, keys, acc, queue,
                            True)
            add_gold_score(trail, np.float64(acc[gold[step]]))
            gold_top, gold_nxt, gold_depth = apply(nodes, cells, used, gold_top, gold_nxt, gold_depth, gold[step], gold_tags,
                                                   n_labels)
        filled = 0
        for b in range(size):
            top_nodes(cells, cur.top[b], four)
            item = cur.scores[b]
            if cur.same_as[b] >= 0:
                copy_row(new.scores[cur.same_as[b]], item)  # ``new`` holds the step before's items
            else:
                score_state(nodes, four, cur.nxt[b], n, words, itags[b], templates, table, rows, atoms, keys, item, queue, True)
            count = valid_actions(nodes, four, cur.nxt[b] > n, cur.depth[b], step, steps, first_unary, n_actions, valid)
            base = score[b]
            entering = cur.nxt[b] + WINDOW  # the word a shift brings into the window
            for i in range(count):
                a = valid[i]
                choices = counts[entering] if a == SHIFT and entering <= n else 1
                filled = offer_choices(hs, ho, filled, beam, base + np.float64(item[a]), b * width + a * kinds, choices, weight,
                                       logp, entering)
        sort_survivors(hs, ho, filled)
        any_gold = False
        for j in range(filled):
            parent, action, choice = lattice_candidate(ho[j], width, kinds)
            entering = cur.nxt[parent] + WINDOW
            right_tag = take_tags(itags, nitags, j, parent, entering, choice, candidates, action == SHIFT and entering <= n,
                                  gold_tags)
            new.top[j], new.nxt[j], new.depth[j] = apply(nodes, cells, used, cur.top[parent], cur.nxt[parent],
                                                         cur.depth[parent], action, nitags[j], n_labels)
            new.same_as[j] = parent if action == NO_UNARY else -1
            new.is_gold[j] = train and cur.is_gold[parent] and action == gold[step] and right_tag
            any_gold = any_gold or new.is_gold[j]
            record(trail, step, j, parent, action)
        cur, new = new, cur
        itags, nitags = nitags, itags
        for j in range(filled):
            score[j] = hs[j]
        size = filled
        if close_lattice_step(mode, trail, step, any_gold, score[0], cur.is_gold[0], itags[0], worst_tags):
            copy_row(itags[0], best_tags)
            return True, step + 1, score[0]
    copy_row(itags[0], best_tags)
    return False, 0, score[0]
