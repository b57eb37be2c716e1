"""What a tokenizer's boundary features read of words beyond the text: their clusters, looked up
by each chunk's key, and the compiled classifier that reads them."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from hetdep.learn.clusters import WordClusters
from hetdep.sorted_lines import SortedKeys
from hetdep.tokenizer.boundary_weights import BoundaryWeights
from hetdep.tokenizer.characters import CharArrays, char_arrays
from hetdep.tokenizer.templates import N_CLUSTER_TEMPLATES, N_TEMPLATES


def compiled():
    """The compiled boundary classifier (:mod:`hetdep.tokenizer._boundaries`), imported when first
    needed: it brings numba, which a short run does without (:mod:`hetdep.short_runs`)."""
    from hetdep.tokenizer import _boundaries

    return _boundaries


class WordFeatures:
    """What the boundary features read of words beyond the text: the clusters of words (none, or
    each word's key, :func:`hetdep.tokenizer._boundaries.word_hash`, with its cluster code), and so
    how many templates there are."""

    def __init__(self, keys: np.ndarray | None = None, codes: np.ndarray | None = None):
        self.keys, self.codes = keys, codes
        self.templates = N_TEMPLATES + (N_CLUSTER_TEMPLATES if keys is not None else 0)

    @functools.cached_property
    def table(self) -> SortedKeys | None:
        """The clusters by word key, found by binary search (by the compiled loop and the reference alike)."""
        return SortedKeys(self.keys, self.codes) if self.keys is not None else None

    @classmethod
    def of_clusters(cls, clusters: WordClusters | None) -> "WordFeatures":
        """The keys of the clustered words (the first of those with equal keys; none of a word
        without a letter or digit) with their codes."""
        if clusters is None:
            return cls()
        listed = [(word, code) for word, code in clusters.codes.items() if word and not any(c.isspace() for c in word)]
        words = char_arrays(" ".join(word for word, _ in listed))  # a chunk a word
        _, keys = compiled().chunk_keys(words.lower, words.classes, words.chunk_end)
        _, first = np.unique(keys, return_index=True)
        kept = np.sort(first[keys[first] != 0])
        return cls(keys[kept], np.array([code for _, code in listed], dtype=np.int64)[kept])

    def arrays(self, text: str) -> CharArrays:
        """The text's character arrays, with each chunk's word cluster."""
        arrays = char_arrays(text)
        if self.table is None:
            return arrays
        return replace(arrays, clusters=compiled().chunk_clusters(arrays.lower, arrays.classes, arrays.chunk_end,
                                                                   self.table.keys, self.table.values))

    def classify(self, arrays: CharArrays, weights: BoundaryWeights) -> tuple[np.ndarray, np.ndarray]:
        return compiled().classify(arrays.codes, arrays.lower, arrays.classes, arrays.chunk_start, arrays.chunk_end,
                                    arrays.clusters, weights.rows, weights.values, weights.slots, weights.buckets, self.templates)

