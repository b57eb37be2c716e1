"""The constituency beam search and perceptron update in plain Python: the readable reference
that the compiled twins (:mod:`hetdep.constituency._search`) are tested against.

Weights are a dict from feature key to a float32 row of action scores. Scores add up in the
same order as the compiled code (the templates that read the queue alone, then the others, each
in template order, float32; then the item's float64 score), so both give the same numbers and,
ties broken by (parent position, action id), the same parse.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from hetdep.constituency import features
from hetdep.constituency.system import Actions, State, apply, valid

_QUEUE_ONLY = [all(a in features.QUEUE_ATOMS for a in template) for template in features.TEMPLATES]


def action_scores(state: State, words, tags, weights: dict, n_actions: int) -> np.ndarray:
    keys = features.feature_keys(features.atoms(state, words, tags))
    acc = np.zeros(n_actions, dtype=np.float32)
    for first in (True, False):
        for key, only in zip(keys, _QUEUE_ONLY):
            row = weights.get(key)
            if only == first and row is not None:
                acc += row
    return acc


def search(words, tags, n: int, beam: int, weights: dict, actions: Actions) -> tuple[list[int], float]:
    """The best action sequence by beam search (decoding), and its score."""
    items = [(0.0, State(n), [])]
    for _ in range(4 * n - 1):
        candidates = []
        for position, (score, state, history) in enumerate(items):
            acc = action_scores(state, words, tags, weights, actions.n_actions)
            for action in range(actions.n_actions):
                if valid(state, action, actions):
                    candidates.append((score + float(acc[action]), position * actions.n_actions + action, action))
        candidates.sort(key=lambda c: (-c[0], c[1]))
        items = [(value, apply(items[order // actions.n_actions][1], action, actions, tags),
                  items[order // actions.n_actions][2] + [action])
                 for value, order, action in candidates[:beam]]
    return items[0][2], items[0][0]


def update_counts(words, tags, n: int, gold: list[int], pred: list[int], actions: Actions, pred_tags=None) -> dict:
    """(feature key, action) -> the update's change: +1 per gold step's feature, -1 per predicted
    one (``pred_tags``: the prediction's tags, from a tag lattice; by default ``tags``)."""
    changes: dict = defaultdict(float)
    sides = [State(n), State(n)]
    side_tags = (tags, tags if pred_tags is None else pred_tags)
    for k in range(len(pred)):
        for side, (sequence, delta) in enumerate(((gold, 1.0), (pred, -1.0))):
            for key in features.feature_keys(features.atoms(sides[side], words, side_tags[side])):
                changes[key, sequence[k]] += delta
            sides[side] = apply(sides[side], sequence[k], actions, side_tags[side])
    return {feature: change for feature, change in changes.items() if change}
