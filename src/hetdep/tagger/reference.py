"""The tagger's beam search in plain Python: the specification :func:`hetdep.tagger._search.search`
is tested against, and what a short run tags with (:mod:`hetdep.short_runs`).

The same keys, the same float32 sums in the same order and the same ties as the compiled search
(the beam keeps the best candidates, the first of equals first), so the two give the same tags
and the same scores.
"""

from __future__ import annotations

import numpy as np

from hetdep.learn.keys import MASK64, MULTIPLIER, SEED
from hetdep.learn.weight_layout import PlainWeights
from hetdep.tagger.templates import CLASS, FIRST_TAG_COLUMN, NO_TAG, S3, UNUSED, L


def _mix(h: int, value: int) -> int:
    h = ((h ^ (value & MASK64)) * MULTIPLIER) & MASK64
    return h ^ (h >> 29)


def _start(template: int) -> int:
    return (template * SEED) & MASK64


def static_keys(atoms: list[list[int]], n: int, i: int, templates: np.ndarray) -> list[int]:
    """Keys of the static templates at word i (0-based) of an n-word sentence."""
    keys = []
    for t, pairs in enumerate(templates.tolist()):
        h = _start(1000 + t)
        for offset, atom in pairs:
            if offset == UNUSED:
                continue
            k = i + offset
            h = _mix(_mix(h, offset + 3), atoms[k][atom] if 0 <= k < n else 0)
        keys.append(h or 1)
    return keys


def tag_keys(atoms: list[list[int]], n: int, i: int, prev: int, prev2: int) -> list[int]:
    """Keys of the ``N_TAG_TEMPLATES`` tag templates at word i, after the tags ``prev2``, ``prev``."""
    following = atoms[i + 1] if i + 1 < n else None
    keys = [_mix(_start(2000), prev), _mix(_mix(_start(2001), prev2), prev), _mix(_mix(_start(2002), prev), atoms[i][L]),
            _mix(_mix(_start(2003), prev), atoms[i][S3]),
            _mix(_mix(_start(2004), prev), following[CLASS] if following else 0),
            _mix(_mix(_start(2005), prev), following[L] if following else 0)]
    return [key or 1 for key in keys]


def search(atoms: np.ndarray, beam: int, templates: np.ndarray, weights: PlainWeights, n_tags: int,
           extra: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The best tag sequence (tags 1..n_tags) and each word's scores of every tag given its
    previous tags, ``extra[i, k]`` added to tag k + 1 at word i."""
    n = len(atoms)
    rows = atoms.tolist()
    n_columns = n_tags + FIRST_TAG_COLUMN
    static = [weights.add_scores(static_keys(rows, n, i, templates), np.zeros(n_columns, dtype=np.float32), FIRST_TAG_COLUMN)
              for i in range(n)]

    def tag_scores(i: int, prev: int, prev2: int) -> np.ndarray:
        return weights.add_scores(tag_keys(rows, n, i, prev, prev2), static[i].copy(), FIRST_TAG_COLUMN)[FIRST_TAG_COLUMN:]

    items = [(np.float64(0.0), NO_TAG, NO_TAG, ())]  # (score, previous tag, the one before, tags so far)
    for i in range(n):
        candidates = np.concatenate([score + tag_scores(i, prev, prev2).astype(np.float64) + extra[i]
                                     for score, prev, prev2, _ in items])
        chosen = np.argsort(-candidates, kind="stable")[:beam]
        items = [(candidates[c], c % n_tags + 1, items[c // n_tags][1], items[c // n_tags][3] + (c % n_tags + 1,))
                 for c in chosen.tolist()]
    best = items[0][3]
    scores = np.zeros((n, n_tags), dtype=np.float32)
    for i in range(n):
        scores[i] = tag_scores(i, best[i - 1] if i >= 1 else NO_TAG, best[i - 2] if i >= 2 else NO_TAG) + extra[i]
    return np.array(best, dtype=np.int64), scores
