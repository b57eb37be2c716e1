"""The bit layout of a trained weight table (:mod:`hetdep.learn._weights` describes it), and a
plain-Python reader of it: what a short run scores with instead of the compiled table
(:mod:`hetdep.short_runs`), and what model files are checked with, both without numba.

A payload is 0 (no weights), ``DENSE | d`` (dense row d), ``INLINE | action << 32 | bits`` (one
weight) or ``count << 40 | first`` (``count`` packed entries from ``first``, each
``action << 32 | bits``); ``bits`` are a float32's.
"""

from __future__ import annotations

import numpy as np

from hetdep.sorted_lines import SortedKeys

DENSE_AFTER = 8  # a training table's chain longer than this moves to a dense row
DENSE = np.uint64(1 << 63)
INLINE = np.uint64(1 << 62)
INDEX = np.uint64((1 << 63) - 1)
COUNT_SHIFT = np.uint64(40)
START = np.uint64((1 << 40) - 1)
ACTION = np.uint64((1 << 30) - 1)
THIRTY_TWO = np.uint64(32)


def packed_up_to(n_actions: int) -> int:
    """The most weights a trained feature keeps as packed entries, more making a dense row: a
    quarter of the actions (entries are twice a float's size, and added one by one), at least
    ``DENSE_AFTER``."""
    return max(DENSE_AFTER, n_actions // 4)


def entry_actions(words: np.ndarray) -> np.ndarray:
    """The actions of inline payloads or packed entries (64-bit words)."""
    return ((words.astype(np.uint64) >> THIRTY_TWO) & ACTION).astype(np.int64)


def entry_weights(words: np.ndarray) -> np.ndarray:
    """The float32 weights of inline payloads or packed entries (their low 32 bits)."""
    return (words.astype(np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)


def sparse_summary(features: np.ndarray, packed: np.ndarray) -> tuple[int, bool]:
    """(the highest action of a sparse weight, -1 if none; whether every sparse weight is a finite
    number) of a table's (key, payload) rows and its packed entries: a model file's checks."""
    payloads = features[:, 1]
    inline = payloads[(payloads & INLINE != 0) & (payloads & DENSE == 0)]
    words = np.concatenate((inline, packed.view(np.uint64)))
    if not len(words):
        return -1, True
    return int(entry_actions(words).max()), bool(np.isfinite(entry_weights(words)).all())


class PlainWeights:
    """A trained table's weights read by key, each feature's decoded once, in the order the
    compiled scorer adds them (so the sums round alike). The keys are found by binary search in
    the sorted rows, as stored: a dict of every feature took the shipped fr's four taggers 0.08 s
    and 40 MB to make, for the few hundred features a short text reads."""

    def __init__(self, features: np.ndarray, packed: np.ndarray, dense: np.ndarray):
        self.payloads = SortedKeys(features[:, 0], features[:, 1])  # 0: a feature without weights
        self.packed, self.dense = packed, dense
        self._decoded: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def entries(self, key: int, first: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """A feature's (actions, weights) in the order :func:`hetdep.learn._weights.add_scores`
        adds them: its sparse weights as stored, or its dense row from column ``first`` on."""
        self.read([key], first)
        return self._decoded[key, first]

    def read(self, keys: list[int], first: int = 0) -> None:
        """Decode the features of ``keys`` not decoded yet, their sparse weights all at once: a
        search asks for a sentence's static features first (one feature at a time, the shipped fr's
        four taggers took 40 ms to decode one sentence's 5,000)."""
        unread = [key for key in dict.fromkeys(keys) if (key, first) not in self._decoded]
        if unread:
            self._decoded.update(zip(((key, first) for key in unread), self._entries(unread, first)))

    def _entries(self, keys: list[int], first: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """The (actions, weights) of each of ``keys``, from the packed layout."""
        payloads = np.array(self.payloads.get_all(keys), dtype=np.uint64)
        dense = (payloads & DENSE) != 0
        inline = ~dense & ((payloads & INLINE) != 0)
        counts = np.where(dense, 0, np.where(inline, 1, payloads >> COUNT_SHIFT)).astype(np.int64)
        starts = np.where(inline, len(self.packed) + np.arange(len(payloads)), (payloads & START).astype(np.int64))
        at = entry_spans(starts, counts)  # each entry's word in ``words``
        words = np.concatenate((self.packed.view(np.uint64), payloads))[at]
        rows = [self.dense[payload & int(INDEX)] if is_dense else None for payload, is_dense in zip(payloads.tolist(), dense.tolist())]
        return sliced_entries(entry_actions(words), entry_weights(words), counts, rows, first)

    def add_scores(self, keys: list[int], acc: np.ndarray, first: int = 0) -> np.ndarray:
        """``acc`` (float32) with the features' weights added, one at a time in the scorer's order."""
        self.read(keys, first)
        decoded = self._decoded
        pairs = [decoded[key, first] for key in keys]
        np.add.at(acc, np.concatenate([actions for actions, _ in pairs]), np.concatenate([weights for _, weights in pairs]))
        return acc


def entry_spans(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The positions of ``counts[k]`` entries from ``starts[k]``, for each k in turn."""
    ends = np.cumsum(counts)
    return np.repeat(starts - (ends - counts), counts) + np.arange(int(ends[-1]) if len(ends) else 0)


def sliced_entries(actions: np.ndarray, weights: np.ndarray, counts: np.ndarray, dense_rows: list, first: int) -> list[tuple]:
    """Each feature's (actions, weights): its dense row from column ``first`` on where it has one,
    else its ``counts[k]`` entries of ``actions`` and ``weights``, which hold them in turn."""
    ends = np.cumsum(counts).tolist()
    return [(np.arange(first, len(row)), row[first:]) if row is not None else (actions[end - count:end], weights[end - count:end])
            for row, count, end in zip(dense_rows, counts.tolist(), ends)]
