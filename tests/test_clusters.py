"""Word clusters from word vectors (hetdep.learn.clusters)."""

from __future__ import annotations

import numpy as np

from hetdep.learn.clusters import COARSE, COARSE_SHIFT, FINE, WordClusters, spherical_kmeans


def _directions(rng, count: int, groups: int, dimension: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Points around ``groups`` far-apart directions, and which direction each came from."""
    centres = np.eye(dimension)[:groups] * 10
    which = rng.integers(0, groups, count)
    return centres[which] + rng.normal(0, 0.5, (count, dimension)), which


def test_spherical_kmeans_finds_well_separated_groups_and_is_deterministic():
    points, which = _directions(np.random.default_rng(0), 300, 4)
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    found = spherical_kmeans(points, 4, np.random.default_rng(5))
    assert np.array_equal(found, spherical_kmeans(points, 4, np.random.default_rng(5)))
    pairs = set(zip(which.tolist(), found.tolist()))
    assert len(pairs) == 4 and len({f for _, f in pairs}) == 4  # each group one cluster of its own
    assert spherical_kmeans(points[:3], 4, np.random.default_rng(5)).tolist() == [0, 1, 2]  # fewer rows than clusters


def test_clusters_have_groups_as_prefixes_and_are_deterministic():
    rng = np.random.default_rng(1)
    vectors, which = _directions(rng, 3000, 8, dimension=16)
    words = [f"w{i}" for i in range(len(vectors))]
    clusters = WordClusters.from_vectors(words, vectors.astype(np.float32), seed=3)
    codes = np.array([clusters.codes[word] for word in words])
    groups = codes >> COARSE_SHIFT
    assert groups.min() >= 1 and groups.max() <= COARSE and (codes & (FINE - 1)).max() < FINE
    # words of one direction share a group far more often than chance (1 in 32)
    same_direction = which[:, None] == which[None, :]
    assert (groups[:, None] == groups[None, :])[same_direction].mean() > 0.1
    assert WordClusters.from_vectors(words, vectors.astype(np.float32), seed=3).codes == clusters.codes
    assert len(clusters) == len(words) and clusters.codes["w0"] == codes[0]
