"""The joint model's beam search over tag lattices: both schemes' stacks and one tag per word, chosen together
(:mod:`hetdep.transition._lattice` is the single-scheme search it extends)."""

import numpy as np
from numba import njit

from hetdep.joint._search import (
    N_JOINT_ATOMS,
    copy_item,
    forget_joint,
    joint_apply,
    joint_memo,
    joint_score,
    new_items,
    scheme_scores,
    scheme_state,
)
from hetdep.learn.perceptron import DECODE, MAX_VIOLATION
from hetdep.transition._beam import SH
from hetdep.transition._core import (
    add_gold_score,
    new_trail,
    record,
    sort_survivors,
)
from hetdep.transition._lattice import (
    close_lattice_step,
    entering_cost,
    gold_start_cost,
    lattice_candidate,
    lattice_finish,
    offer_choices,
    start_items,
    take_tags,
)


@njit(cache=True, nogil=True)
def joint_search(words, candidates, counts, logp, weight, n, beam, templates, rich, table, rows, n_labels_a, n_labels_b, who,
                 gold, gold_tags, mode):
    """:func:`hetdep.joint._search.joint_search` over a tag lattice (no forced actions): one tag per word
    for both schemes, chosen when the word first enters either scheme's window. Returns
    (actions, length, score, tags) as :func:`search`."""
    kinds = candidates.shape[1]
    steps = 4 * n
    width = max(2 + 2 * n_labels_a, 2 + 2 * n_labels_b)
    span = width * kinds
    cur = new_items(beam, n)
    nxt_items = new_items(beam, n)
    gold_item = new_items(1, n)
    itags = np.zeros((beam, n + 2), dtype=np.int64)
    nitags = np.zeros((beam, n + 2), dtype=np.int64)
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
    hs, ho = trail.heap_score, trail.heap_order
    train = mode != DECODE
    size = start_items(candidates, counts, logp, weight, n, beam, itags, score, is_gold, train, gold_tags)
    if mode == MAX_VIOLATION:
        add_gold_score(trail, gold_start_cost(candidates, counts, logp, weight, n, gold_tags))
    worst_tags = np.zeros(n + 2, dtype=np.int64)
    for step in range(steps):
        s = who[step]
        n_labels = n_labels_a if s == 0 else n_labels_b
        acc, guided = (acc_a, guided_a) if s == 0 else (acc_b, guided_b)
        forget_joint(memo)
        if mode == MAX_VIOLATION:
            g_stk, g_slen, g_nxt, g_other = scheme_state(gold_item, s)
            entering = g_nxt[0] + 2
            if gold[step] == SH and entering <= n and entering > max(gold_item.nxt_a[0], gold_item.nxt_b[0]) + 1:
                add_gold_score(trail, entering_cost(candidates, counts, logp, weight, entering, gold_tags))
            joint_score(g_stk, g_slen, g_nxt, g_other, gold_item.hd, gold_item.lb, 0, s, n, words, gold_tags, templates, rich,
                        table, rows, atoms, keys, acc, guided, memo)
            add_gold_score(trail, np.float64(acc[gold[step]]))
            joint_apply(g_stk, g_slen, g_nxt, gold_item.hd, gold_item.lb, 0, s, gold[step], n_labels)
        stk, slen, nxt, other_nxt = scheme_state(cur, s)
        filled = 0
        for b in range(size):
            first, last, extra = joint_score(stk, slen, nxt, other_nxt, cur.hd, cur.lb, b, s, n, words, itags[b], templates,
                                             rich, table, rows, atoms, keys, acc, guided, memo)
            base = score[b]
            entering = nxt[b] + 2
            new_word = entering <= n and entering > max(cur.nxt_a[b], cur.nxt_b[b]) + 1
            for i in range(-1 if extra >= 0 else 0, last - first):
                a = extra if i < 0 else first + i
                choices = counts[entering] if a == SH and new_word else 1
                filled = offer_choices(hs, ho, filled, beam, base + np.float64(acc[a]), b * span + a * kinds, choices, weight,
                                       logp, entering)
        sort_survivors(hs, ho, filled)
        any_gold = False
        for j in range(filled):
            parent, action, choice = lattice_candidate(ho[j], span, kinds)
            entering = nxt[parent] + 2
            new_word = action == SH and entering <= n and entering > max(cur.nxt_a[parent], cur.nxt_b[parent]) + 1
            copy_item(cur, nxt_items, j, parent)
            right_tag = take_tags(itags, nitags, j, parent, entering, choice, candidates, new_word, gold_tags)
            n_stk, n_slen, n_nxt, _ = scheme_state(nxt_items, s)
            joint_apply(n_stk, n_slen, n_nxt, nxt_items.hd, nxt_items.lb, j, s, action, n_labels)
            nscore[j] = hs[j]
            nis_gold[j] = train and is_gold[parent] and action == gold[step] and right_tag
            any_gold = any_gold or nis_gold[j]
            record(trail, step, j, parent, action)
        cur, nxt_items = nxt_items, cur
        itags, nitags = nitags, itags
        score, nscore = nscore, score
        is_gold, nis_gold = nis_gold, is_gold
        size = filled
        if close_lattice_step(mode, trail, step, any_gold, score[0], is_gold[0], itags[0], worst_tags):
            return trail.actions, step + 1, score[0], itags[0].copy()
    return lattice_finish(mode, trail, gold, score[0], gold_tags, worst_tags, itags[0])
