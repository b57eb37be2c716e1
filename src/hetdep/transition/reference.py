"""Pure-Python reference of the parser's hot path: scoring, beam search, perceptron update.

Slow and plain on purpose: it reads the state through :mod:`hetdep.transition.system` and the
features through :mod:`hetdep.transition.features`, and keeps weights in a dict from feature key to a
row of action scores. Tests check that the compiled twin (:mod:`hetdep.transition._beam`) gives the
same scores, the same parses and the same weights after training.

Beam order: candidates are ranked by score (higher first), then by the parent's position
in the beam, then by action id; the first ``beam`` survive.
"""

from __future__ import annotations

import numpy as np

from hetdep.learn.weights import TrainedWeights
from hetdep.transition.features import TEMPLATE_GROUPS, features
from hetdep.transition.system import Moves, State, apply, is_valid


class DictWeights:
    """Feature key -> float32 row of action scores, plus the averaging sums."""

    def __init__(self, n_actions: int):
        self.n_actions = n_actions
        self.W: dict[int, np.ndarray] = {}
        self.U: dict[int, np.ndarray] = {}

    @classmethod
    def from_trained(cls, weights: TrainedWeights, n_actions: int) -> "DictWeights":
        result = cls(n_actions)
        result.W = weights.dense_rows(n_actions)
        return result

    def row(self, key: int) -> np.ndarray | None:
        return self.W.get(key)

    def add(self, key: int, action: int, delta: float, counter: int) -> None:
        if key not in self.W:
            self.W[key] = np.zeros(self.n_actions, dtype=np.float32)
            self.U[key] = np.zeros(self.n_actions, dtype=np.float32)
        self.W[key][action] += np.float32(delta)
        self.U[key][action] += np.float32(delta) * np.float32(counter)


def action_scores(state: State, words, tags, weights: DictWeights) -> np.ndarray:
    """Scores of all actions in a state: the sum over template groups (``TEMPLATE_GROUPS``) of the
    sum of each group's feature rows, in template order."""
    keys = features(state, words, tags)
    acc = np.zeros(weights.n_actions, dtype=np.float32)
    for group in TEMPLATE_GROUPS:
        partial = np.zeros(weights.n_actions, dtype=np.float32)
        for t in group:
            row = weights.row(keys[t])
            if row is not None:
                partial += row
        acc += partial
    return acc


def beam_search(words, tags, n: int, beam: int, moves: Moves, root_label: int, weights: DictWeights,
                gold: list[int] | None = None) -> tuple[list[int], int, float]:
    """Best action sequence; with ``gold``, stop at the first step the gold item falls out."""
    items = [(0.0, State(n), [], True)]  # (score, state, actions, is gold)
    for step in range(2 * n):
        candidates = []
        for position, (score, state, actions, on_gold) in enumerate(items):
            scores = action_scores(state, words, tags, weights)
            for action in range(moves.n_actions):
                if is_valid(state, action, moves):
                    candidates.append((score + float(scores[action]), position, action))
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        next_items = []
        for score, position, action in candidates[:beam]:
            _, state, actions, on_gold = items[position]
            state = state.copy()
            apply(state, action, moves, root_label)
            next_items.append((score, state, actions + [action], on_gold and gold is not None and action == gold[step]))
        items = next_items
        if gold is not None and not any(item[3] for item in items):
            return items[0][2], step + 1, items[0][0]
    return items[0][2], 2 * n, items[0][0]


def update(words, tags, n: int, gold: list[int], pred: list[int], length: int, moves: Moves, root_label: int,
           weights: DictWeights, counter: int) -> None:
    """+1 to gold's features and -1 to the prediction's, step by step over ``length`` actions."""
    gold_state, pred_state = State(n), State(n)
    for k in range(length):
        if gold[: k + 1] == pred[: k + 1]:
            apply(gold_state, gold[k], moves, root_label)
            apply(pred_state, pred[k], moves, root_label)
            continue
        for state, action, delta in ((gold_state, gold[k], 1.0), (pred_state, pred[k], -1.0)):
            for key in features(state, words, tags):
                weights.add(key, action, delta, counter)
            apply(state, action, moves, root_label)


def train_epoch(encoded, order, beam: int, moves: Moves, root_label: int, weights: DictWeights, counter: int) -> int:
    """One pass of global training with early update; returns the counter after it."""
    for index in order:
        words, tags, gold = encoded[index]
        words, tags, gold = words.tolist(), tags.tolist(), gold.tolist()
        n = len(words) - 1
        actions, length, _ = beam_search(words, tags, n, beam, moves, root_label, weights, gold)
        if actions != gold[:length] or length < len(gold):
            update(words, tags, n, gold, actions, length, moves, root_label, weights, counter)
        counter += 1
    return counter
