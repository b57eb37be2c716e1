"""Sorted UTF-8 lines looked up by binary search where they lie, instead of a dict made at every
start: a neural model's pretrained forms (:mod:`hetdep.neural.pretrained`) and the kept lemma
dictionary's forms (:mod:`hetdep.tagger.dictionary`)."""

from __future__ import annotations

import bisect
from array import array
from typing import Sequence

import numpy as np


def find(lines: Sequence[bytes], key: bytes) -> int | None:
    """The position of ``key`` among the sorted ``lines``, or None if it is not one of them."""
    k = bisect.bisect_left(lines, key)
    return k if k < len(lines) and lines[k] == key else None


class Lines(Sequence[bytes]):
    """The lines of a blob, each cut out when read (no list of them made: 200,000 short lines as
    bytes objects took 10 MB, their starts take 0.8). The starts are an ``array`` rather than NumPy's:
    binary search reads a few of them per lookup, and NumPy's scalars made it 3.4x slower."""

    def __init__(self, blob: bytes):
        self._blob = blob
        breaks = np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == ord("\n"))
        self._starts = array("I" if len(blob) < 2**32 - 1 else "Q", [0])  # each line's start, then the end + 1
        self._starts.extend((breaks + 1).tolist())
        self._starts.append(len(blob) + 1)

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, k: int) -> bytes:
        if k < 0:
            k += len(self)
            if k < 0:
                raise IndexError("line index out of range")
        return self._blob[self._starts[k]:self._starts[k + 1] - 1]  # past the last line: IndexError
