"""Sorted UTF-8 lines looked up by binary search where they lie, instead of a dict made at every
start: a neural model's pretrained forms (:mod:`hetdep.neural.pretrained`) and the kept lemma
dictionary's forms (:mod:`hetdep.tagger.dictionary`)."""

from __future__ import annotations

import bisect
from typing import Sequence

import numpy as np


def find(lines: Sequence[bytes], key: bytes) -> int | None:
    """The position of ``key`` among the sorted ``lines``, or None if it is not one of them."""
    k = bisect.bisect_left(lines, key)
    return k if k < len(lines) and lines[k] == key else None


class Lines(Sequence[bytes]):
    """The lines of a blob, each cut out when read (no list of them made)."""

    def __init__(self, blob: bytes):
        self._blob = blob
        ends = np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == ord("\n"))
        self._starts, self._ends = np.concatenate(([0], ends + 1)), np.append(ends, len(blob))

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, k):
        return self._blob[self._starts[k]:self._ends[k]]
