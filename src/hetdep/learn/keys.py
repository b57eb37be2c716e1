"""Feature keys: a 64-bit hash of a template id and the values of its atoms, shared by every model.

The compiled feature code of each parser and the tagger hashes with the same constants; key 0 marks
an empty slot of the weight table, so no feature hashes to it.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
SEED = 0x9E3779B97F4A7C15
MULTIPLIER = 0xBF58476D1CE4E5B9
TEMPLATE_ID_SPAN = 128  # template ids of one scheme: the joint model hashes scheme s's template t as s * 128 + t


def feature_hash(template: int, values) -> int:
    """The 64-bit key of one feature (never 0, which marks an empty slot in the weight table)."""
    h = ((template + 1) * SEED) & MASK64
    for value in values:
        h = ((h ^ value) * MULTIPLIER) & MASK64
        h ^= h >> 29
    return h or 1


def template_rows(templates, width: int):
    """Templates (tuples of atom ids) as an int64 array of rows padded with -1 to ``width``, for the
    compiled feature code. (numpy is imported here: the command line's option lists import this
    module, and ``hetdep --help`` should not wait for numpy.)"""
    import numpy as np

    out = np.full((len(templates), width), -1, dtype=np.int64)
    for t, atoms in enumerate(templates):
        out[t, : len(atoms)] = atoms
    return out
