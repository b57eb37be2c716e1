"""The averaged perceptron's weights, as numpy arrays for the compiled code (:mod:`hetdep.learn._weights`).

:class:`Weights` is being trained: arrays grow by doubling when a training sentence could
overflow them, and the key table is rehashed to stay at most half full.
:class:`TrainedWeights` keeps only the non-zero averaged weights, for parsing and on disk.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hetdep.learn import _weights


class TrainedWeights(NamedTuple):
    """Averaged weights: key table with payloads, contiguous sparse entries, dense rows."""

    table: np.ndarray  # uint64 (slots, 2): key (0 = empty), payload (see hetdep.learn._weights)
    enext: np.ndarray  # int64 next entry of the same feature, -1 at the end
    act: np.ndarray  # int32 action of each entry
    w: np.ndarray  # float32 weight of each entry
    dense: np.ndarray  # float32 (dense rows, actions)

    @property
    def rows(self) -> tuple:
        """What the compiled scorer reads."""
        return self.enext, self.act, self.w, self.dense

    @property
    def features(self) -> int:
        return int(np.count_nonzero(self.table[:, 0]))

    def dense_rows(self, n_actions: int) -> dict[int, np.ndarray]:
        """Feature key -> full row of action scores (for the reference and for tests)."""
        rows = {}
        for key, payload in self.table.tolist():
            if key:
                full = np.zeros(n_actions, dtype=np.float32)
                if payload & (1 << 63):
                    full[:] = self.dense[payload - (1 << 63)]
                e = payload - 1 if payload and not payload & (1 << 63) else -1
                while e >= 0:
                    full[self.act[e]] = self.w[e]
                    e = self.enext[e]
                rows[key] = full
        return rows

    @property
    def nbytes(self) -> int:
        return sum(array.nbytes for array in self)


class Weights:
    """Weights being trained: key table, entry chains or dense rows, with their averaging sums."""

    def __init__(self, n_actions: int, entries: int = 1 << 16, table: int = 1 << 17, dense: int = 1 << 10):
        self.n_actions = n_actions
        self.table = np.zeros((table, 2), dtype=np.uint64)
        self.n_used = np.zeros(1, dtype=np.int64)
        self.n_entries = np.zeros(1, dtype=np.int64)
        self.enext = np.zeros(entries, dtype=np.int64)
        self.eact = np.zeros(entries, dtype=np.int32)
        self.ew = np.zeros(entries, dtype=np.float32)
        self.eu = np.zeros(entries, dtype=np.float32)
        self.n_dense = np.zeros(1, dtype=np.int64)
        self.dense = np.zeros((dense, n_actions), dtype=np.float32)
        self.dense_u = np.zeros((dense, n_actions), dtype=np.float32)
        self.counter = 1

    @property
    def features(self) -> int:
        return int(self.n_used[0])

    @property
    def rows(self) -> tuple:
        """What the compiled scorer reads."""
        return self.enext, self.eact, self.ew, self.dense

    @property
    def sums(self) -> tuple:
        return self.eu, self.dense_u

    @property
    def counts(self) -> tuple:
        return self.n_entries, self.n_dense

    def reserve(self, new: int) -> None:
        """Make room for ``new`` more features, entries and dense rows before a compiled update."""
        for name in ("enext", "eact", "ew", "eu"):
            setattr(self, name, _grown(getattr(self, name), int(self.n_entries[0]) + new))
        dense_needed = int(self.n_dense[0]) + min(new, self.features + new)
        self.dense = _grown(self.dense, dense_needed)
        self.dense_u = _grown(self.dense_u, dense_needed)
        if 2 * (self.features + new) > self.table.shape[0]:
            size = self.table.shape[0]
            while 2 * (self.features + new) > size:
                size *= 2
            self.table = _weights.rehash(self.table, size)

    def averaged(self) -> TrainedWeights:
        """The averaged weights, non-zero ones only (new arrays)."""
        return TrainedWeights(*_weights.compact(self.table, self.rows, self.sums, self.counter, self.n_actions))


def _grown(array: np.ndarray, needed: int) -> np.ndarray:
    """The array, or a zero-padded copy at least twice as long with room for ``needed`` rows."""
    if needed <= array.shape[0]:
        return array
    size = array.shape[0]
    while size < needed:
        size *= 2
    grown = np.zeros((size, *array.shape[1:]), dtype=array.dtype)
    grown[: array.shape[0]] = array
    return grown
