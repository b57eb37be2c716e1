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
    new_pool,
    new_queue_sums,
    score_state,
    top_nodes,
    valid_actions,
)
from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition._core import add_gold_score, new_trail, record, sort_survivors
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
    kinds = candidates.shape[1]
    n_actions = 3 + 4 * n_labels + n_unaries
    first_unary = 3 + 4 * n_labels
    width = n_actions * kinds
    steps = 4 * n - 1
    nodes, cells, used = new_pool((steps + 1) * (beam + 1))
    top = np.zeros(beam, dtype=np.int64)
    ntop = np.zeros(beam, dtype=np.int64)
    nxt = np.ones(beam, dtype=np.int64)
    nnxt = np.ones(beam, dtype=np.int64)
    depth = np.zeros(beam, dtype=np.int64)
    ndepth = np.zeros(beam, dtype=np.int64)
    itags = np.zeros((beam, n + 2), dtype=np.int64)
    nitags = np.zeros((beam, n + 2), dtype=np.int64)
    score = np.zeros(beam, dtype=np.float64)
    is_gold = np.zeros(beam, dtype=np.bool_)
    nis_gold = np.zeros(beam, dtype=np.bool_)
    atoms = np.zeros(N_ATOMS, dtype=np.int64)
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    acc = np.zeros(n_actions, dtype=np.float32)
    queue = new_queue_sums(templates, n, n_actions)
    # Each item's action scores, this step's and the last one's: an item that declined a unary
    # reduce has its parent's state (and tags), so its parent's scores.
    scores = np.zeros((beam, n_actions), dtype=np.float32)
    last_scores = np.zeros((beam, n_actions), dtype=np.float32)
    same_as = np.full(beam, -1, dtype=np.int64)  # the parent whose scores an item takes (-1: none)
    nsame_as = np.full(beam, -1, dtype=np.int64)
    four = np.zeros(4, dtype=np.int64)
    valid = np.zeros(n_actions, dtype=np.int64)
    trail = new_trail(steps, beam)
    hs, ho = trail.heap_score, trail.heap_order
    train = mode != DECODE
    size = start_items(candidates, counts, logp, weight, n, beam, itags, score, is_gold, train, gold_tags)
    gold_top, gold_nxt, gold_depth = 0, 1, 0
    if mode == MAX_VIOLATION:
        for k in range(1, min(n, WINDOW) + 1):
            add_gold_score(trail, gold_tag_cost(candidates, counts, logp, weight, k, gold_tags))
    worst_tags = np.zeros(n + 2, dtype=np.int64)
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
            top_nodes(cells, top[b], four)
            item = scores[b]
            if same_as[b] >= 0:
                item[:] = last_scores[same_as[b]]
            else:
                score_state(nodes, four, nxt[b], n, words, itags[b], templates, table, rows, atoms, keys, item, queue, True)
            count = valid_actions(nodes, four, nxt[b] > n, depth[b], step, steps, first_unary, n_actions, valid)
            base = score[b]
            entering = nxt[b] + WINDOW  # the word a shift brings into the window
            for i in range(count):
                a = valid[i]
                choices = counts[entering] if a == SHIFT and entering <= n else 1
                filled = offer_choices(hs, ho, filled, beam, base + np.float64(item[a]), b * width + a * kinds, choices, weight,
                                       logp, entering)
        sort_survivors(hs, ho, filled)
        any_gold = False
        for j in range(filled):
            parent, action, choice = lattice_candidate(ho[j], width, kinds)
            entering = nxt[parent] + WINDOW
            right_tag = take_tags(itags, nitags, j, parent, entering, choice, candidates, action == SHIFT and entering <= n,
                                  gold_tags)
            ntop[j], nnxt[j], ndepth[j] = apply(nodes, cells, used, top[parent], nxt[parent], depth[parent], action, nitags[j],
                                                n_labels)
            nsame_as[j] = parent if action == NO_UNARY else -1
            nis_gold[j] = train and is_gold[parent] and action == gold[step] and right_tag
            any_gold = any_gold or nis_gold[j]
            record(trail, step, j, parent, action)
        top, ntop = ntop, top
        nxt, nnxt = nnxt, nxt
        depth, ndepth = ndepth, depth
        itags, nitags = nitags, itags
        is_gold, nis_gold = nis_gold, is_gold
        same_as, nsame_as = nsame_as, same_as
        scores, last_scores = last_scores, scores
        for j in range(filled):
            score[j] = hs[j]
        size = filled
        if close_lattice_step(mode, trail, step, any_gold, score[0], is_gold[0], itags[0], worst_tags):
            return trail.actions, step + 1, score[0], itags[0].copy()
    return lattice_finish(mode, trail, gold, score[0], gold_tags, worst_tags, itags[0])
