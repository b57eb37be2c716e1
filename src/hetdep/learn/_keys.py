"""Feature keys (numba): the compiled twin of :func:`hetdep.learn.keys.feature_hash`, the 64-bit
hash of a template's id and the atoms it reads, for every compiled search and the tagger."""

from __future__ import annotations

import numpy as np
from numba import njit

from hetdep.learn.keys import MULTIPLIER, SEED, TEMPLATE_ID_SPAN

KEY_SEED = np.uint64(SEED)
KEY_MULTIPLIER = np.uint64(MULTIPLIER)
_SHIFT = np.uint64(29)


@njit(cache=True, inline="always")
def mix(h, value):
    """One more atom into a running 64-bit hash."""
    h = (h ^ np.uint64(value)) * KEY_MULTIPLIER
    return h ^ (h >> _SHIFT)


@njit(cache=True, inline="always")
def nonzero(h):
    """A finished hash as a key: never 0, which marks an empty slot of the weight table."""
    return h if h != 0 else np.uint64(1)


@njit(cache=True, inline="always")
def feature_key(atoms, templates, t, scheme):
    """The key of template t's feature over ``atoms``; ``scheme`` (0 for a single-scheme parser)
    keeps the joint model's two schemes apart: template t of scheme s hashes as
    s * TEMPLATE_ID_SPAN + t + 1."""
    h = np.uint64(scheme * TEMPLATE_ID_SPAN + t + 1) * KEY_SEED
    for j in range(templates.shape[1]):
        a = templates[t, j]
        if a < 0:
            break
        h = mix(h, atoms[a])
    return nonzero(h)


@njit(cache=True)
def feature_keys(atoms, templates, start, stop, scheme, out):
    """The keys of templates start..stop-1 (``feature_key``), in ``out[start:stop]``."""
    for t in range(start, stop):
        out[t] = feature_key(atoms, templates, t, scheme)
