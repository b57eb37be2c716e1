"""The best non-projective tree: Chu-Liu-Edmonds' maximum spanning arborescence over arc scores,
with exactly one word on the root as UD requires.

Vectorised over the score matrix with numpy (each contraction costs a few array operations), so
it needs no compiled loop: the neural parser's sentences are short enough. The one-root
constraint: when the best tree has several words on the root, each word is tried as the only one
and the best of those trees is taken (exact, and needed only for a few sentences).
"""

from __future__ import annotations

import numpy as np

NEG = -np.inf


def mst(scores: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """Heads (index 1..n; 0 = the root, heads[0] unused) of the best tree over ``scores[h, m]``
    with one word on the root, and its score."""
    scores = np.asarray(scores, dtype=np.float64)[:n + 1, :n + 1]
    heads = _arborescence(scores)
    if np.count_nonzero(heads[1:] == 0) > 1:
        best_total = NEG
        for root in range(1, n + 1):
            constrained = scores.copy()
            constrained[0, 1:] = NEG
            constrained[0, root] = scores[0, root]
            found = _arborescence(constrained)
            total = _total(scores, found)
            if total > best_total:
                heads, best_total = found, total
    heads[0] = 0
    return heads, _total(scores, heads)


def _total(scores: np.ndarray, heads: np.ndarray) -> float:
    words = np.arange(1, len(heads))
    return float(scores[heads[1:], words].sum())


def _arborescence(scores: np.ndarray) -> np.ndarray:
    """Chu-Liu-Edmonds: each word's best head; a cycle among them is contracted into one node,
    the smaller problem solved, and the cycle opened where the chosen arc enters it."""
    size = scores.shape[0]
    allowed = scores.copy()
    np.fill_diagonal(allowed, NEG)
    allowed[:, 0] = NEG
    heads = allowed.argmax(axis=0)
    heads[0] = 0
    cycle = _cycle(heads)
    if cycle is None:
        return heads
    in_cycle = np.zeros(size, dtype=bool)
    in_cycle[cycle] = True
    outside = np.flatnonzero(~in_cycle)  # the root first
    contracted = len(outside)  # the cycle's index in the smaller problem
    smaller = np.full((contracted + 1, contracted + 1), NEG)
    smaller[:contracted, :contracted] = allowed[np.ix_(outside, outside)]
    entering = allowed[np.ix_(outside, cycle)] - allowed[heads[cycle], cycle][None, :]
    enters_at = entering.argmax(axis=1)  # for each outside head: the cycle word its arc would reach
    smaller[:contracted, contracted] = entering.max(axis=1)
    leaving = allowed[np.ix_(cycle, outside)]
    leaves_from = leaving.argmax(axis=0)  # for each outside word: the cycle word that would head it
    smaller[contracted, :contracted] = leaving.max(axis=0)
    solved = _arborescence(smaller)
    result = heads.copy()
    for k, word in enumerate(outside[1:], 1):
        head = solved[k]
        result[word] = cycle[leaves_from[k]] if head == contracted else outside[head]
    head_of_cycle = solved[contracted]
    result[cycle[enters_at[head_of_cycle]]] = outside[head_of_cycle]
    return result


def _cycle(heads: np.ndarray) -> np.ndarray | None:
    """The words of a cycle in a head assignment (heads[0] is the root's, ignored), or None."""
    size = len(heads)
    state = np.zeros(size, dtype=np.int8)  # 0 unseen, 1 on the current path, 2 done
    state[0] = 2
    for start in range(1, size):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node]
        if state[node] == 1:
            return np.array(path[path.index(node):], dtype=np.int64)
        for visited in path:
            state[visited] = 2
    return None
