"""Pure-Python reference of the joint search (:func:`hetdep.joint._search.joint_search`).

Slow and plain on purpose, as :mod:`hetdep.transition.reference` is for the single parser: each
item holds two :class:`~hetdep.transition.system.State` objects, one per scheme; the acting
scheme's features are the 70 baseline templates over its own state (template ids shifted by
``TEMPLATE_ID_SPAN`` for scheme b) and the guided templates over atoms read from the other
scheme's partial tree, computed from its arcs. Weights are a dict from feature key to a row of
action scores. Tests check that the compiled twin gives the same actions, lengths and scores
in every mode (decoding, early update, max-violation) and with a given tree.

Beam order, as in the single reference: candidates ranked by score (higher first), then by the
parent's position in the beam, then by action id.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hetdep.joint.parser import is_rich
from hetdep.learn.keys import TEMPLATE_ID_SPAN, feature_hash
from hetdep.transition.features import GUIDES, TEMPLATE_GROUPS, TEMPLATES, atoms
from hetdep.transition.reference import DictWeights
from hetdep.transition.system import Moves, State, apply, is_valid


def _head(state: State, word: int) -> int:
    """Word's head in a partial tree (-1: none yet)."""
    return state.heads.get(word, -1)


def _guide_label(state: State, word: int) -> int:
    """Word's label + 1 in a partial tree, 0 without an arc (the root attachment carries none)."""
    return state.labels[word] + 1 if _head(state, word) > 0 else 0


def _head_place(head: int, left: int, right: int, queue: int, partner: int) -> int:
    """Where a stack word's head lies in the other tree: 0 unknown, 1 the root, 2 the partner,
    3 left of ``left``, 4 between ``left`` and ``right``, 5 between ``right`` and the queue, 6 the
    queue's front, 7 deeper in the queue."""
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
    if head < queue:
        return 5
    return 6 if head == queue else 7


def guided_atoms(acting: State, other: State, rich: bool) -> tuple[list[int], bool]:
    """Atoms 40-46 (h_guide, l_guide of S0 and S1, and the rich guide's g, p0, p1, c; 0 when not
    ``rich``) of the acting scheme, and whether the other scheme has shifted S0 or S1.

    A word the other scheme has not shifted yet has no head there."""
    shifted = other.next
    s0, s1 = acting.S(0), acting.S(1)
    k0 = s0 if s0 < shifted else 0
    k1 = s1 if s1 < shifted else 0
    h0 = _head(other, k0) if k0 else -1
    h1 = _head(other, k1) if k1 else -1
    h = g = c = 0
    if h0 >= 0 and h1 >= 0:
        h = 1 if h1 == s0 else 2 if h0 == s1 else 3
    known = k0 > 0 or k1 > 0
    labels = [_guide_label(other, k0) if k0 else 0, _guide_label(other, k1) if k1 else 0]
    if not rich:
        return [h, *labels, 0, 0, 0, 0], known
    if h0 >= 0 and h1 >= 0:
        if h < 3:
            g = h
        elif h0 == h1:
            g = 3  # siblings
        elif h1 > 0 and _head(other, h1) == s0:
            g = 4  # S0 is S1's grandparent
        elif h0 > 0 and _head(other, h0) == s1:
            g = 5  # S1 is S0's grandparent
        else:
            g = 6
    queue = acting.next
    p0 = _head_place(h0, s1 if s1 else s0, s0, queue, s1)
    p1 = _head_place(h1, s1, s0, queue, s0)
    if shifted > queue:
        c = 1
        for word in range(queue, shifted):
            if k0 and _head(other, word) == k0:
                c |= 2
            elif k1 and _head(other, word) == k1:
                c |= 4
    return [h, *labels, g, p0, p1, c], known


def scheme_scores(states: Sequence[State], s: int, words, tags, guide: str, n_actions: int, weights: DictWeights) -> np.ndarray:
    """Scheme s's action scores: the baseline templates' rows summed in float32 by template groups
    (each group's sum, then the groups': ``TEMPLATE_GROUPS``), plus (where the guide fires) the
    guided templates' rows, summed apart and then added, as the compiled code does."""
    templates = TEMPLATES + GUIDES[guide]
    rich = is_rich(guide)
    guide_atoms, known = guided_atoms(states[s], states[1 - s], rich)
    values = atoms(states[s], words, tags) + guide_atoms

    def rows(ids) -> np.ndarray:
        total = np.zeros(weights.n_actions, dtype=np.float32)
        for t in ids:
            row = weights.row(feature_hash(s * TEMPLATE_ID_SPAN + t, [values[a] for a in templates[t]]))
            if row is not None:
                total += row
        return total

    scores = np.zeros(weights.n_actions, dtype=np.float32)
    for group in TEMPLATE_GROUPS:
        scores += rows(group)
    if len(templates) > len(TEMPLATES) and (known or not rich):
        scores += rows(range(len(TEMPLATES), len(templates)))
    return scores[:n_actions]


def joint_search(words, tags, n: int, beam: int, guide: str, moves: tuple[Moves, Moves],
                 root_labels: tuple[int, int], who: Sequence[int], weights: DictWeights, gold: Sequence[int] | None = None,
                 update: str | None = None, forced: Sequence[int] | None = None) -> tuple[list[int], int, float]:
    """Best joint action sequence (scheme-local ids; step k belongs to scheme ``who[k]``), its length and score.

    ``update`` None decodes; 'early' stops at the first step the gold item falls out of the beam;
    'max-violation' runs to the end beside the gold prefix and returns the prefix of the step
    where the best item beats it by most, with the final best item's score (the gold sequence and
    its score if the gold item ends best; the update reads only the actions).
    ``forced[k] >= 0`` fixes step k's action (a given tree of one scheme)."""
    steps = 4 * n
    items = [(0.0, (State(n), State(n)), [], True)]  # (score, states, actions, on the gold path)
    gold_states, gold_score = (State(n), State(n)), 0.0
    worst_violation, worst = 0.0, None
    for step in range(steps):
        s = who[step]
        if update == "max-violation":
            scores = scheme_scores(gold_states, s, words, tags, guide, moves[s].n_actions, weights)
            gold_score += float(scores[gold[step]])
            apply(gold_states[s], gold[step], moves[s], root_labels[s])
        candidates = []
        for position, (score, states, _, _) in enumerate(items):
            scores = scheme_scores(states, s, words, tags, guide, moves[s].n_actions, weights)
            for action in range(moves[s].n_actions):
                if is_valid(states[s], action, moves[s]) and (forced is None or forced[step] < 0 or action == forced[step]):
                    candidates.append((score + float(scores[action]), position, action))
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        next_items = []
        for score, position, action in candidates[:beam]:
            _, states, actions, on_gold = items[position]
            states = (states[0].copy(), states[1].copy())
            apply(states[s], action, moves[s], root_labels[s])
            next_items.append((score, states, actions + [action], on_gold and update is not None and action == gold[step]))
        items = next_items
        if update == "early" and not any(item[3] for item in items):
            return items[0][2], step + 1, items[0][0]
        if update == "max-violation" and not items[0][3] and items[0][0] - gold_score >= worst_violation:
            worst_violation, worst = items[0][0] - gold_score, (items[0][2], step + 1)
    if update == "max-violation":
        return (*worst, items[0][0]) if worst is not None else (list(gold), steps, gold_score)
    return items[0][2], steps, items[0][0]
