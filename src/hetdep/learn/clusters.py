"""Word clusters from word vectors, for the features of perceptron models (the tokenizer's).

A few thousand training sentences see most words a handful of times or never; a cluster of
words whose vectors lie close lets a feature learned on one word fire for its neighbours (Koo et
al. 2008 used Brown clusters so). The clusters come from two levels of spherical k-means over the
vectors: ``COARSE`` groups, each split into ``FINE`` clusters, so a cluster's code tells its group
(``code >> COARSE_SHIFT``, from 1), as a Brown cluster's bit prefix does. Code 0 is "no vector".
"""

from __future__ import annotations

import numpy as np

COARSE = 64  # groups (fr-sequoia's tokenizer: test Sentences +0.2 over 32 groups; 128 no better)
COARSE_SHIFT = 4
FINE = 1 << COARSE_SHIFT  # clusters in a group
# Words kept: the first of the file, which word2vec's and fastText's list most frequent first (all
# are clustered). fr-sequoia's tokenizer: test Sentences 88.53 with 100,000 of 200,000, 88.38 with
# all, and 1.2 MB less to keep.
MAX_WORDS = 100_000
ITERATIONS = 15


def spherical_kmeans(vectors: np.ndarray, k: int, rng: np.random.Generator, iterations: int = ITERATIONS) -> np.ndarray:
    """Each row (of unit length) its cluster (0..k-1) after ``iterations`` rounds of k-means by
    cosine similarity, started as k-means++ starts (each next centre a row drawn by ``rng`` with
    odds growing with its squared distance from the centres so far); a cluster left empty keeps
    its centre."""
    if len(vectors) <= k:
        return np.arange(len(vectors))
    centres = np.empty((k, vectors.shape[1]), dtype=vectors.dtype)
    centres[0] = vectors[rng.integers(len(vectors))]
    nearest = vectors @ centres[0]
    for c in range(1, k):
        odds = np.square(np.maximum(1.0 - nearest, 0.0)).astype(np.float64)
        chosen = rng.choice(len(vectors), p=odds / odds.sum()) if odds.sum() > 0 else rng.integers(len(vectors))
        centres[c] = vectors[chosen]
        nearest = np.maximum(nearest, vectors @ centres[c])
    assigned = np.zeros(len(vectors), dtype=np.int64)
    for _ in range(iterations):
        assigned = np.argmax(vectors @ centres.T, axis=1)
        for c in range(k):
            members = vectors[assigned == c]
            if len(members):
                total = members.sum(axis=0)
                centres[c] = total / max(float(np.linalg.norm(total)), 1e-12)
    return assigned


class WordClusters:
    """Lower-cased word -> cluster code (``code >> COARSE_SHIFT``: its group, from 1); 0 for a word
    without a vector."""

    def __init__(self, codes: dict[str, int]):
        self.codes = codes

    def __len__(self) -> int:
        return len(self.codes)

    @classmethod
    def from_vectors(cls, words: list[str], vectors: np.ndarray, seed: int = 1) -> "WordClusters":
        """Two-level clusters of the (lower-cased) words' vectors, deterministic for a seed; the
        first ``MAX_WORDS`` words kept."""
        rng = np.random.default_rng(seed)
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        unit = unit.astype(np.float32)
        groups = spherical_kmeans(unit, COARSE, rng)
        codes = np.zeros(len(words), dtype=np.int64)
        for group in range(COARSE):
            members = np.flatnonzero(groups == group)
            fine = spherical_kmeans(unit[members], FINE, rng)
            codes[members] = ((group + 1) << COARSE_SHIFT) + fine
        return cls(dict(zip(words[:MAX_WORDS], codes[:MAX_WORDS].tolist())))

    @classmethod
    def read(cls, path: str, seed: int = 1) -> "WordClusters":
        """The clusters of a word-vector file's words (:func:`hetdep.learn.vectors.read_embeddings`)."""
        from hetdep.learn.vectors import read_embeddings

        return cls.from_vectors(*read_embeddings(path), seed=seed)
