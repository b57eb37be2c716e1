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


def static_keys(atoms: np.ndarray, templates: np.ndarray) -> np.ndarray:
    """Keys of the static templates at every word of a sentence (``atoms``: a row of atom ids a
    word): (words, templates), every word and template at once in NumPy's wrapping 64-bit
    arithmetic, one pair of each template at a time (a word at a time in Python, they took 17 ms of
    a one-sentence parse's 55 ms of tagging)."""
    n = len(atoms)
    offsets, columns = templates[:, :, 0].astype(np.int64), templates[:, :, 1].astype(np.int64)
    keys = np.array([_start(1000 + t) for t in range(len(templates))], dtype=np.uint64)[None, :].repeat(n, 0)
    words = np.arange(n)[:, None]
    for pair in range(templates.shape[1]):
        used = offsets[:, pair] != UNUSED
        at = words + offsets[:, pair]  # (words, templates): the word each template reads
        inside = (at >= 0) & (at < n)
        values = np.where(inside, atoms[np.clip(at, 0, max(n - 1, 0)), columns[:, pair]], 0)  # (no word: empty, read nowhere)
        mixed = _mixed(_mixed(keys, (offsets[:, pair] + 3).astype(np.uint64)), values.astype(np.uint64))
        keys = np.where(used, mixed, keys)
    return np.where(keys == 0, np.uint64(1), keys)


def _mixed(h: np.ndarray, value: np.ndarray) -> np.ndarray:
    """:func:`_mix` of arrays (uint64: their products wrap as ``& MASK64`` does)."""
    h = (h ^ value) * np.uint64(MULTIPLIER)
    return h ^ (h >> np.uint64(29))


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
    static_rows = static_keys(atoms, templates).tolist()
    weights.read([key for keys in static_rows for key in keys], FIRST_TAG_COLUMN)
    static = [weights.add_scores(keys, np.zeros(n_columns, dtype=np.float32), FIRST_TAG_COLUMN) for keys in static_rows]

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
