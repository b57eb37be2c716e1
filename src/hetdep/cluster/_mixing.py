"""Compiled weighted sums of weight entries, the arithmetic of parameter mixing.

Each (feature, action) pair is found in an open-addressing table of its own (the pairs of one
part are distinct; several parts share most of them), so mixing is one pass over the entries
instead of a sort. A pair's sum starts at its first value times its part's factor and adds the
others in the order the parts come: float32 throughout, as :mod:`hetdep.cluster.reference` spells
it out. Output pairs come in the order they were first seen.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_SPREAD = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _slot(key, action, mask):
    """Feature keys are hashes already; the action only has to move a pair off its feature's slot."""
    return np.int64((key ^ (np.uint64(action) * _SPREAD)) & np.uint64(mask))


@njit(cache=True)
def accumulate(slots, n, keys, actions, sums, part_keys, part_actions, part_values, factor):
    """Add ``factor * part_values[f, i]`` to the sums of pair (part_keys[i], part_actions[i]) for
    every field f, claiming a new output row (n[0]) for a pair not seen before. ``slots`` (-1:
    empty) must stay at most half full: the caller sizes it for all parts' entries."""
    mask = slots.shape[0] - 1
    for i in range(part_keys.shape[0]):
        key = part_keys[i]
        action = part_actions[i]
        s = _slot(key, action, mask)
        while True:
            row = slots[s]
            if row < 0:
                row = n[0]
                n[0] += 1
                slots[s] = row
                keys[row] = key
                actions[row] = action
                for f in range(sums.shape[0]):
                    sums[f, row] = factor * part_values[f, i]
                break
            if keys[row] == key and actions[row] == action:
                for f in range(sums.shape[0]):
                    sums[f, row] += factor * part_values[f, i]
                break
            s = (s + 1) & mask
