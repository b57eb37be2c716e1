"""Trained weights in their small stored form, for shipped models: the same numbers, compressed
into a quarter to a third fewer bytes for a whole tagger (a fifth for one pruned at 0.8).

The reading layout (:mod:`hetdep.learn.weight_layout`) packs each feature's key with a payload and
each sparse weight's action with its float's bits into 64-bit words, which deflate poorly: keys are
hashes, and a payload's offset or a float's bits look random. Stored small, the features are
sorted by key and the keys kept as the byte planes of their differences (the high bytes are then
nearly all zero); each feature keeps only its count of sparse weights (or :data:`DENSE_ROW`); the
actions are narrow integers; and the weights are indices into the table of their distinct values
(an averaged perceptron's weights repeat: a FEATS tagger's 280,000 hold 34,000 values). Nothing is
rounded: the weights read back are the same floats, so a tagger tags the same.
"""

from __future__ import annotations

import numpy as np

from hetdep.learn.weight_layout import (
    COUNT_SHIFT,
    DENSE,
    INDEX,
    INLINE,
    START,
    THIRTY_TWO,
    PlainWeights,
    entry_actions,
    entry_spans,
    packed_up_to,
    sliced_entries,
)

SMALL_FIELDS = ("key_planes", "counts", "actions", "values", "value_index", "dense")
DENSE_ROW = np.uint32(0xFFFFFFFF)  # a feature's count when its weights are a dense row


def _narrow(array: np.ndarray) -> np.ndarray:
    """Non-negative integers in the narrowest unsigned type that holds them."""
    top = int(array.max()) if array.size else 0
    return array.astype(np.uint8 if top < 1 << 8 else np.uint16 if top < 1 << 16 else np.uint32)


def to_small(features: np.ndarray, packed: np.ndarray, dense: np.ndarray) -> dict[str, np.ndarray]:
    """The small form of a reading layout's (features, packed, dense)."""
    order = np.argsort(features[:, 0], kind="stable")
    keys, payloads = features[order, 0], features[order, 1]
    is_dense = (payloads & DENSE) != 0
    inline = ~is_dense & ((payloads & INLINE) != 0)
    spans = ~is_dense & ~inline
    counts = np.zeros(len(keys), dtype=np.uint32)
    counts[is_dense] = DENSE_ROW
    counts[inline] = 1
    counts[spans] = (payloads[spans] >> COUNT_SHIFT).astype(np.uint32)
    words = np.empty(int(counts[~is_dense].sum()), dtype=np.uint64)
    ends = np.cumsum(np.where(is_dense, 0, counts).astype(np.int64))
    words[ends[inline] - 1] = payloads[inline]
    span_counts = counts[spans].astype(np.int64)
    within = np.arange(span_counts.sum()) - np.repeat(np.cumsum(span_counts) - span_counts, span_counts)
    firsts = (payloads[spans] & START).astype(np.int64)  # each span's entries, to where its feature's run of words lies
    runs = np.repeat(ends[spans] - span_counts, span_counts) + within
    words[runs] = packed.view(np.uint64)[np.repeat(firsts, span_counts) + within]
    bits, value_index = np.unique((words & np.uint64(0xFFFFFFFF)).astype(np.uint32), return_inverse=True)
    differences = np.diff(keys, prepend=np.uint64(0)).astype("<u8")
    return {"key_planes": np.ascontiguousarray(differences.view(np.uint8).reshape(-1, 8).T),
            "counts": counts, "actions": _narrow(entry_actions(words)), "values": bits.view(np.float32),
            "value_index": _narrow(value_index.reshape(-1)), "dense": dense[(payloads[is_dense] & INDEX).astype(np.int64)]}


def checked_small(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A small form's arrays, found to fit together as a model file's must (so that neither the
    compiled scorer nor the plain one reads astray); ValueError for a damaged file's."""
    planes, counts, actions = arrays["key_planes"], arrays["counts"], arrays["actions"]
    values, value_index, dense = arrays["values"], arrays["value_index"], arrays["dense"]
    if (planes.dtype != np.uint8 or planes.ndim != 2 or planes.shape[0] != 8 or counts.dtype != np.uint32
            or counts.shape != (planes.shape[1],) or actions.dtype.kind != "u" or value_index.dtype.kind != "u"
            or actions.ndim != 1 or actions.shape != value_index.shape or values.dtype != np.float32 or values.ndim != 1
            or dense.dtype != np.float32 or dense.ndim != 2):
        raise ValueError("the small form's arrays have the wrong types or shapes")
    is_dense, sparse_counts = _split_counts(counts)
    if int(is_dense.sum()) != len(dense) or int(sparse_counts.sum()) != len(actions) \
            or (len(value_index) and int(value_index.max()) >= len(values)) or (len(actions) and int(actions.max()) >= 1 << 30) \
            or (len(counts) and int(sparse_counts.max()) > packed_up_to(dense.shape[1])):
        raise ValueError("the small form's counts do not fit its weights")
    if len(counts) and not small_keys(planes).all():  # key 0 marks an empty slot of the compiled table
        raise ValueError("the small form holds a feature of key 0")
    return arrays


def _split_counts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which features' weights are a dense row, and each feature's count of sparse weights (0 for those)."""
    is_dense = counts == DENSE_ROW
    return is_dense, np.where(is_dense, 0, counts).astype(np.int64)


def small_keys(planes: np.ndarray) -> np.ndarray:
    """The features' keys, in order, from the byte planes of their differences."""
    return np.cumsum(np.ascontiguousarray(planes.T).view("<u8").reshape(-1).astype(np.uint64), dtype=np.uint64)


def from_small(arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reading layout's (features, packed, dense) of a small form (:func:`checked_small`'s)."""
    counts, actions = arrays["counts"], arrays["actions"]
    values, value_index, dense = arrays["values"], arrays["value_index"], arrays["dense"]
    is_dense, sparse_counts = _split_counts(counts)
    keys = small_keys(arrays["key_planes"])
    words = (actions.astype(np.uint64) << THIRTY_TWO) | values[value_index.astype(np.int64)].view(np.uint32).astype(np.uint64)
    ends = np.cumsum(sparse_counts)
    payloads = np.zeros(len(keys), dtype=np.uint64)
    payloads[is_dense] = DENSE | np.arange(len(dense), dtype=np.uint64)
    inline = sparse_counts == 1
    payloads[inline] = INLINE | words[ends[inline] - 1]
    spans = sparse_counts >= 2
    span_counts = sparse_counts[spans]
    firsts = np.cumsum(span_counts) - span_counts
    payloads[spans] = (span_counts.astype(np.uint64) << COUNT_SHIFT) | firsts.astype(np.uint64)
    in_spans = np.repeat(spans, sparse_counts)
    packed = words[in_spans].view(np.int64)
    return np.stack([keys, payloads], axis=1), packed, dense


class SmallPlainWeights(PlainWeights):
    """:class:`PlainWeights` reading a small form where it lies: a short run's plain search asks
    for a few hundred features, where the reading layout of them all (:func:`from_small`) took the
    shipped fr's four taggers 45 ms to make (its dense rows stay dense: they add zeros where the
    reading layout's narrowed ones add nothing, the same sums)."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        counts = arrays["counts"]
        is_dense, self._counts = _split_counts(counts)
        self._starts = np.cumsum(self._counts) - self._counts
        self._dense_rows = np.where(is_dense, np.cumsum(is_dense) - 1, -1)
        self._actions, self._values, self._value_index = arrays["actions"], arrays["values"], arrays["value_index"]
        features = np.stack([small_keys(arrays["key_planes"]), np.arange(1, len(counts) + 1, dtype=np.uint64)], axis=1)
        super().__init__(features, np.zeros(0, dtype=np.int64), arrays["dense"])  # a key's payload: its feature's number, 0 none

    def _entries(self, keys: list[int], first: int) -> list[tuple[np.ndarray, np.ndarray]]:
        index = np.array(self.payloads.get_all(keys), dtype=np.int64) - 1  # -1: no such feature
        found = index >= 0
        index = np.where(found, index, 0)
        counts = np.where(found, self._counts[index], 0)
        at = entry_spans(self._starts[index], counts)
        rows = np.where(found, self._dense_rows[index], -1).tolist()
        return sliced_entries(self._actions[at].astype(np.int64), self._values[self._value_index[at].astype(np.int64)], counts,
                              [self.dense[row] if row >= 0 else None for row in rows], first)
