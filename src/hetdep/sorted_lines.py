"""Sorted UTF-8 lines looked up by binary search where they lie, instead of a dict made at every
start: a neural model's pretrained forms (:mod:`hetdep.neural.pretrained`), the kept lemma
dictionary's forms and lemmas (:mod:`hetdep.tagger.dictionary`) and the shipped lexicons' tables
(:mod:`hetdep.tagger.inflections`, :mod:`hetdep.tagger.lexicon_lemmas`); and 64-bit keys with their
values, as a short run reads a tagger's weights and a tokenizer's word clusters (:class:`SortedKeys`)."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Sequence

import numpy as np


def find(lines: Sequence[bytes], key: bytes) -> int | None:
    """The position of ``key`` among the sorted ``lines``, or None if it is not one of them."""
    k = bisect.bisect_left(lines, key)
    return k if k < len(lines) and lines[k] == key else None


# The mask of a big-endian 64-bit number's first n bytes, for n from 0 to 8.
_FIRST_BYTES = np.array([(1 << 64) - (1 << (64 - 8 * n)) for n in range(9)], dtype=np.uint64)


class Lines(Sequence[bytes]):
    """The lines of a blob, each cut out when read (no list of them made: 200,000 short lines as
    bytes objects took 10 MB, their starts take 0.8). The starts are an ``array`` rather than NumPy's:
    binary search reads a few of them per lookup, and NumPy's scalars made it 3.4x slower; they are
    found by NumPy and copied in as bytes (through a list of ints they took 8 ms of every start)."""

    def __init__(self, blob: bytes):
        self._blob = blob
        self._starts = array("I" if len(blob) < 2**32 - 1 else "Q")  # each line's start, then the end + 1
        breaks = np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == ord("\n"))
        starts = np.concatenate([[0], breaks + 1, [len(blob) + 1]]).astype(f"u{self._starts.itemsize}")
        self._starts.frombytes(starts.tobytes())

    def in_order(self) -> bool:
        """Whether every line sorts at or after the one before it, as bytes. The lines are compared
        by their first 16 bytes at once, as two big-endian numbers each (read where the line starts,
        the bytes past its end made zeros: a line's never pass a greater line's), and one pair at a
        time only where those are equal: the shipped model's 200,000 pretrained forms in 4 ms
        (578 pairs left), against 20 ms one pair at a time."""
        if len(self) < 2:
            return True
        padded = self._blob + bytes(16)
        eight_bytes = np.ndarray((len(padded) - 7,), dtype=">u8", buffer=padded, strides=(1,))  # at every byte
        starts = np.frombuffer(self._starts, dtype=f"u{self._starts.itemsize}").astype(np.int64)
        firsts, lengths = starts[:-1], np.diff(starts) - 1
        high = eight_bytes[firsts] & _FIRST_BYTES[np.minimum(lengths, 8)]
        low = eight_bytes[firsts + 8] & _FIRST_BYTES[np.clip(lengths - 8, 0, 8)]
        same_high = high[:-1] == high[1:]
        descending = (high[:-1] > high[1:]) | (same_high & (low[:-1] > low[1:]))
        tied = np.flatnonzero(same_high & (low[:-1] == low[1:]))
        return not descending.any() and all(self[k] <= self[k + 1] for k in tied.tolist())

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, k: int) -> bytes:
        if k < 0:
            k += len(self)
            if k < 0:
                raise IndexError("line index out of range")
        return self._blob[self._starts[k]:self._starts[k + 1] - 1]  # past the last line: IndexError


class SortedStrings:
    """Strings kept as sorted UTF-8 lines, a set of them asked by binary search where they lie:
    a frozenset of the French dictionary's lemmas took 21 MB and 0.04 s to make at every start."""

    def __init__(self, blob: bytes):
        self._lines = Lines(blob) if blob else ()

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and find(self._lines, text.encode("utf-8", "surrogatepass")) is not None

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self):
        return (line.decode("utf-8", "surrogatepass") for line in self._lines)


def table_blob(entries: dict[str, str]) -> bytes:
    """A table's file content (before gzip): its keys sorted as UTF-8 bytes, a line each, a blank
    line, and each key's value, a line each."""
    keys = sorted(key.encode("utf-8") for key in entries)
    if any(b"\n" in key or b"\t" in key or not key for key in keys):
        raise ValueError("a key that is empty or holds a line break or a tab")
    values = [entries[key.decode("utf-8")].encode("utf-8") for key in keys]
    if any(b"\n" in value for value in values):
        raise ValueError("a value that holds a line break")
    return b"\n".join(keys) + b"\n\n" + b"\n".join(values)


class Table:
    """A table_blob's keys and values, each value found by its key."""

    def __init__(self, blob: bytes, name: str):
        keys, _, values = blob.partition(b"\n\n")
        self._keys, self._values = (Lines(keys), Lines(values)) if keys else ((), ())  # keys are never empty lines
        if len(self._keys) != len(self._values):
            raise ValueError(f"{name}: as many values as keys expected")

    def __len__(self) -> int:
        return len(self._keys)

    def get(self, key: str) -> str | None:
        k = find(self._keys, key.encode("utf-8"))
        return None if k is None else self._values[k].decode("utf-8")


def positions(ordered: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of ``wanted`` is among the sorted, non-empty ``ordered`` (the last position for one
    past them all), and whether it is there."""
    at = np.minimum(np.searchsorted(ordered, wanted), len(ordered) - 1)
    return at, ordered[at] == wanted


class SortedKeys:
    """Unsigned 64-bit keys and a value each, found by binary search in the keys sorted (stably: of
    equal keys the first given): what a short run reads a few hundred of, where a dict of them
    all took longer to make than the run's lookups (a tagger's 100,000 features, a tokenizer's
    99,017 clustered words: 0.01-0.06 s and 3-11 MB each)."""

    def __init__(self, keys: np.ndarray, values: np.ndarray):
        order = np.argsort(keys, kind="stable") if len(keys) > 1 and (keys[1:] < keys[:-1]).any() else slice(None)
        self.keys, self.values = keys[order], values[order]

    def get_all(self, keys: Sequence[int], default: int = 0) -> list[int]:
        """Each key's value (``default`` for a key not there)."""
        if not len(self.keys):
            return [default] * len(keys)
        at, found = positions(self.keys, np.array(keys, dtype=np.uint64))
        return np.where(found, self.values[at], default).tolist()

    def get(self, key: int, default: int = 0, /) -> int:
        return self.get_all([key], default)[0]
