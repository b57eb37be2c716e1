"""A tokenizer's boundary weights as its weights file keeps them: the used rows of the hashed
table, sorted, and their values, found through an open-addressing table of the rows by the
compiled classifier and by binary search by the reference. The dense table of 2**21 rows, about 1%
of them used, took 25 MB of a parse's memory, and as much again for each treebank whose
sentence-end bias moved it."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hetdep.sorted_lines import positions
from hetdep.tokenizer.templates import N_LABELS, SENTENCE_END, constant_row


@dataclass(frozen=True, eq=False)
class BoundaryWeights:
    rows: np.ndarray  # (n,) int64: the used rows of the hashed table, increasing
    values: np.ndarray  # (n, N_LABELS) float32: each row's weight of each label
    buckets: int  # the hashed table's rows (a power of 2): what a feature's hash is taken modulo

    @classmethod
    def of_table(cls, table: np.ndarray) -> "BoundaryWeights":
        """The rows of a dense table (as training keeps it) that are not all zero."""
        rows = np.flatnonzero(np.any(table != 0, axis=1))
        return cls(rows.astype(np.int64), table[rows].astype(np.float32), table.shape[0])

    @functools.cached_property
    def slots(self) -> np.ndarray:
        """The compiled classifier's open-addressing table of the rows (:func:`hetdep.tokenizer._boundaries.row_slots`)."""
        from hetdep.tokenizer._boundaries import row_slots  # brings numba, which a short run does without

        return row_slots(self.rows)

    def lookup(self, rows: Sequence[int]) -> np.ndarray:
        """(len(rows), N_LABELS): each row's weights (zeros for a row not used), as the reference reads them."""
        wanted = np.asarray(rows, dtype=np.int64)
        out = np.zeros((len(wanted), N_LABELS), np.float32)
        if len(self.rows):
            at, found = positions(self.rows, wanted)
            out[found] = self.values[at[found]]
        return out

    def with_bias(self, bias: float) -> "BoundaryWeights":
        """A copy with the sentence-end label's bias (the weight of template 0, the feature every
        boundary has) moved by ``bias``."""
        row = int(constant_row(self.buckets))
        k = int(np.searchsorted(self.rows, row))
        rows, values = self.rows, self.values.copy()
        if k == len(rows) or rows[k] != row:
            rows, values = np.insert(rows, k, row), np.insert(values, k, np.float32(0.0), axis=0)
        values[k, SENTENCE_END] += np.float32(bias)
        return BoundaryWeights(rows, values, self.buckets)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, BoundaryWeights) and self.buckets == other.buckets
                and np.array_equal(self.rows, other.rows) and np.array_equal(self.values, other.values))
