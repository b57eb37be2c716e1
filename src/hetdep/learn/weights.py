"""The averaged perceptron's weights, as numpy arrays for the compiled code (:mod:`hetdep.learn._weights`).

:class:`Weights` is being trained: arrays grow by doubling when a training sentence could
overflow them, and the key table is rehashed to stay at most half full.
:class:`TrainedWeights` keeps only the non-zero averaged weights, laid out for parsing, as on disk.
"""

from __future__ import annotations

import functools
import threading
from typing import NamedTuple

import numpy as np

from hetdep.learn.small_weights import SmallPlainWeights, from_small
from hetdep.learn.weight_layout import DENSE, PlainWeights, packed_up_to, sparse_summary


def _compiled():
    """The compiled table code (:mod:`hetdep.learn._weights`), imported when first needed: it
    brings numba, which a short run does without (:mod:`hetdep.short_runs`)."""
    from hetdep.learn import _weights

    return _weights


class TrainedWeights:
    """Averaged weights laid out for reading: the features' (key, payload) rows, the packed sparse
    entries and the dense rows (:mod:`hetdep.learn.weight_layout`). The compiled scorer's hash
    table of the rows is built when it is first read; a short run reads the rows through
    :class:`PlainWeights` instead and never builds it (:mod:`hetdep.short_runs`). Weights read from
    a small form (a shipped model's) keep it until something asks for the reading layout: a short
    run's plain search reads the small form where it lies."""

    def __init__(self, used: np.ndarray | None, packed: np.ndarray | None, dense: np.ndarray, table: np.ndarray | None = None,
                 small: dict[str, np.ndarray] | None = None):
        self._used = used  # uint64 (features, 2): key, payload; None where the table holds them
        self._packed = packed  # int64 entries of features with 2..packed_up_to(actions) weights: action << 32 | float bits
        self._dense = dense  # float32 (dense rows, actions)
        self._table = table
        self._small = small  # the small form (hetdep.learn.small_weights) until the reading layout is made of it
        self._plain: PlainWeights | None = None
        self._building = threading.RLock()  # parsing threads may ask for the table at once

    @classmethod
    def from_table(cls, table: np.ndarray, packed: np.ndarray, dense: np.ndarray) -> "TrainedWeights":
        """The weights of a compiled table (``table[slot] = (key, payload)``, empty slots key 0)."""
        return cls(None, packed, dense, table)

    @classmethod
    def from_chains(cls, table: np.ndarray, enext: np.ndarray, act: np.ndarray, w: np.ndarray,
                    dense: np.ndarray) -> "TrainedWeights":
        """The same weights from chained entries (a training table's, or a model file of format 1)."""
        n_actions = dense.shape[1]
        no_sums = np.zeros_like(w), np.zeros((len(dense), n_actions), dtype=np.float32)
        return cls.from_table(*_compiled().compact(table, (enext, act, w, dense), no_sums, 1, n_actions,
                                                   packed_up_to(n_actions)))

    @classmethod
    def from_small(cls, small: dict[str, np.ndarray]) -> "TrainedWeights":
        """The weights of a small form (:func:`hetdep.learn.small_weights.checked_small`'s), their
        reading layout made when first asked for."""
        return cls(None, None, small["dense"], small=small)

    def _laid_out(self) -> None:
        """The reading layout made of the small form, if it is not yet."""
        if self._small is not None:
            with self._building:
                if self._small is not None:
                    self._used, self._packed, self._dense = packed_narrow_rows(*from_small(self._small))
                    self._small = None

    @property
    def packed(self) -> np.ndarray:
        self._laid_out()
        return self._packed

    @property
    def dense(self) -> np.ndarray:
        self._laid_out()
        return self._dense

    @property
    def width(self) -> int:
        """The action columns of the dense rows (labels or tags)."""
        return self._dense.shape[1]

    @classmethod
    def from_stored(cls, features: np.ndarray, packed: np.ndarray, dense: np.ndarray) -> "TrainedWeights":
        """The weights from a model file: its features' (key, payload) rows, in today's layout
        (:func:`packed_narrow_rows`); the hash table comes back when first read."""
        return cls(*packed_narrow_rows(features, packed, dense))

    @property
    def table(self) -> np.ndarray:
        """The compiled scorer's open-addressing table of the rows, at most half full."""
        if self._table is None:
            with self._building:
                if self._table is None:
                    self._laid_out()
                    self._table = _compiled().spread(self._used)
                    self._used = None  # the table holds them: not twice in memory
        return self._table

    @property
    def used(self) -> np.ndarray:
        """The features' (key, payload) rows."""
        self._laid_out()
        used = self._used
        return used if used is not None else self._table[self._table[:, 0] != 0]

    @property
    def plain(self) -> PlainWeights:
        """The weights as the plain-Python scorer reads them."""
        if self._plain is None:
            with self._building:
                if self._plain is None:
                    small = self._small
                    self._plain = SmallPlainWeights(small) if small is not None else PlainWeights(self.used, self.packed, self.dense)
        return self._plain

    def stored(self) -> dict[str, np.ndarray]:
        """What a model file keeps: the features' rows (the table's half left empty for probing is
        rebuilt on reading), the packed entries and the dense rows."""
        return {"features": self.used, "packed": self.packed, "dense": self.dense}

    @property
    def rows(self) -> tuple:
        """What the compiled scorer reads."""
        return _compiled().packed_rows(self.packed, self.dense)

    @property
    def features(self) -> int:
        self._laid_out()
        return len(self._used) if self._used is not None else int(np.count_nonzero(self._table[:, 0]))

    @functools.cached_property
    def _sparse_summary(self) -> tuple[int, bool]:
        """One pass for both of a model file's checks (:func:`sparse_summary`)."""
        return sparse_summary(self.used, self.packed)

    def widest_action(self) -> int:
        """The highest action id of a sparse weight (-1: none): a model file's check against its labels."""
        small = self._small
        if small is not None:
            return int(small["actions"].max()) if len(small["actions"]) else -1
        return self._sparse_summary[0]

    def finite(self) -> bool:
        """No weight is NaN or infinite."""
        small = self._small
        if small is not None:  # every value of its table is some weight's
            return bool(np.isfinite(small["values"]).all() and np.isfinite(small["dense"]).all())
        return self._sparse_summary[1] and bool(np.isfinite(self.dense).all())

    def dense_rows(self, n_actions: int) -> dict[int, np.ndarray]:
        """Feature key -> full row of action scores (for the reference and for tests)."""
        keys, full = _compiled().unpack(self.table, self.rows, n_actions)
        return dict(zip(keys.tolist(), full))

    @property
    def nbytes(self) -> int:
        """The bytes a parse holds: the table (twice the rows), the packed entries, the dense rows."""
        return 32 * self.features + self.packed.nbytes + self.dense.nbytes

    def pruned(self, share: float) -> "TrainedWeights":
        """The same weights without the ``share`` of them smallest in magnitude (a feature left
        with none is dropped): a shipped model's perceptron parts, smaller (hetdep.models.compact)."""
        n_actions = self.dense.shape[1]
        keys, full = _compiled().unpack(self.table, self.rows, n_actions)
        magnitudes = np.abs(full[full != 0])
        if not magnitudes.size or share <= 0:
            return self
        cut = np.quantile(magnitudes, share)
        rows, actions = np.nonzero(np.abs(full) > cut)
        return Weights.trained(n_actions, keys[rows], actions, full[rows, actions])


def packed_narrow_rows(features: np.ndarray, packed: np.ndarray, dense: np.ndarray) -> tuple[np.ndarray, ...]:
    """A stored model's (features, packed, dense) with each dense row of at most
    ``packed_up_to`` weights turned into packed entries, as ``compact`` lays them out
    now: models saved while the bound was ``DENSE_AFTER`` read as fast as new ones, and score
    the same (a dense row adds zeros where packed entries add nothing)."""
    counts = np.count_nonzero(dense, axis=1)
    narrow = (counts >= 2) & (counts <= packed_up_to(dense.shape[1]))
    if not narrow.any():
        return features, packed, dense
    kept_rows = dense[narrow]
    rows, actions = np.nonzero(kept_rows)  # by row, then ascending action
    values = kept_rows[rows, actions]
    entries = (actions.astype(np.uint64) << np.uint64(32)) | values.view(np.uint32).astype(np.uint64)
    starts = len(packed) + np.concatenate(([0], np.cumsum(counts[narrow])[:-1]))
    new_payload = np.zeros(len(dense), dtype=np.uint64)  # of each old dense row
    new_payload[narrow] = (counts[narrow].astype(np.uint64) << np.uint64(40)) | starts.astype(np.uint64)
    new_payload[~narrow] = DENSE | np.arange(np.count_nonzero(~narrow), dtype=np.uint64)
    features = features.copy()
    payload = features[:, 1]
    is_dense = payload >= DENSE
    payload[is_dense] = new_payload[(payload[is_dense] & ~DENSE).astype(np.int64)]
    return features, np.concatenate((packed, entries.view(np.int64))), dense[~narrow]


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

    def reserve(self, new: int, entries: int | None = None) -> None:
        """Make room for ``new`` more features and dense rows, and ``entries`` more entries (as many
        as features unless given), before a compiled update."""
        for name in ("enext", "eact", "ew", "eu"):
            setattr(self, name, _grown(getattr(self, name), int(self.n_entries[0]) + (new if entries is None else entries)))
        dense_needed = int(self.n_dense[0]) + min(new, self.features + new)
        self.dense = _grown(self.dense, dense_needed)
        self.dense_u = _grown(self.dense_u, dense_needed)
        if 2 * (self.features + new) > self.table.shape[0]:
            size = self.table.shape[0]
            while 2 * (self.features + new) > size:
                size *= 2
            self.table = _compiled().rehash(self.table, size)

    def averaged(self, most_packed: int | None = None) -> TrainedWeights:
        """The averaged weights, non-zero ones only (new arrays); features of up to ``most_packed``
        weights packed (by default ``packed_up_to``, the reading layout)."""
        most = most_packed or packed_up_to(self.n_actions)
        return TrainedWeights.from_table(*_compiled().compact(self.table, self.rows, self.sums, self.counter, self.n_actions, most))

    def entries(self) -> "WeightEntries":
        """Every (feature, action) weight and its averaged value, as flat arrays (for mixing
        weights trained in several processes: :mod:`hetdep.cluster.mixing`)."""
        c = np.float32(self.counter)
        out = WeightEntries.zeros(_compiled().entries(self.table, self.rows, self.sums, c, *WeightEntries.zeros(0)))
        _compiled().entries(self.table, self.rows, self.sums, c, *out)
        return out

    def reset(self, keys: np.ndarray, actions: np.ndarray, values: np.ndarray) -> None:
        """Start again from these weights, in place (a learner's closures keep this object), with
        no averaging history: the averaged weights are then those of the training that follows."""
        self.__init__(self.n_actions)
        self.reserve(len(np.unique(keys)), entries=len(keys))  # a table sized by features, as training grows it
        _compiled().load(self.table, self.n_used, self.rows, self.sums, self.counts, keys, actions, values)

    @classmethod
    def trained(cls, n_actions: int, keys: np.ndarray, actions: np.ndarray, values: np.ndarray) -> TrainedWeights:
        """Trained weights holding exactly these values (a mixed model's)."""
        weights = cls(n_actions)
        weights.reset(keys, actions, values)
        return weights.averaged()


class WeightEntries(NamedTuple):
    """Weights as flat arrays: feature keys, actions, raw weights, averaged weights."""

    keys: np.ndarray
    actions: np.ndarray
    w: np.ndarray
    averaged: np.ndarray

    @classmethod
    def zeros(cls, count: int) -> "WeightEntries":
        return cls(np.zeros(count, dtype=np.uint64), np.zeros(count, dtype=np.int32), np.zeros(count, dtype=np.float32),
                   np.zeros(count, dtype=np.float32))


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
