"""Significance of the difference between two systems scored on the same gold sentences.

All tests work on per-sentence counts of correct attachments (see ``Evaluation.counts``):

- sign test: sentences where a beats b against sentences where b beats a (ties dropped),
  two-sided exact binomial test (zhou-zhao2013);
- paired t-test on per-sentence differences in correct attachments (zhang2014);
- paired approximate randomization (Noreen 1989): swap the two systems' outputs of each
  sentence with probability 1/2 and see how often the corpus-level difference is at least
  as large as observed;
- paired bootstrap (Koehn 2004; Berg-Kirkpatrick et al. 2012): resample sentences and see
  how often the resampled difference exceeds twice the observed one (one-sided).

Randomized tests take a seed and give the same p-value for the same seed.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from hetdep.evaluation.attachment import Evaluation


def _correct(evaluation: Evaluation, labeled: bool) -> np.ndarray:
    return (evaluation.counts.labeled if labeled else evaluation.counts.heads).astype(np.float64)


def compare(a: Evaluation, b: Evaluation, *, labeled: bool = False, samples: int = 10_000, seed: int = 1) -> dict:
    """Every test at once, for UAS (``labeled=False``) or LAS.

        p-values are two-sided except the bootstrap's, which is one-sided in the observed direction."""
    if a.sentences != b.sentences or not np.array_equal(a.counts.words, b.counts.words):
        raise ValueError("the two systems were not scored on the same gold words")
    ca, cb = _correct(a, labeled), _correct(b, labeled)
    words = a.counts.words.astype(np.float64)
    diff = ca - cb
    total = words.sum()
    return {
        "metric": "LAS" if labeled else "UAS",
        "a": round(100.0 * ca.sum() / total, 4) if total else 0.0,
        "b": round(100.0 * cb.sum() / total, 4) if total else 0.0,
        "sign_test": sign_test(diff),
        "paired_t_test": paired_t_test(diff),
        "approximate_randomization": approximate_randomization(diff, samples=samples, seed=seed),
        "paired_bootstrap": paired_bootstrap(diff, words, samples=samples, seed=seed),
    }


def sign_test(diff: np.ndarray) -> dict:
    better = int((diff > 0).sum())
    worse = int((diff < 0).sum())
    p = stats.binomtest(better, better + worse, 0.5).pvalue if better + worse else 1.0
    return {"better": better, "worse": worse, "ties": int((diff == 0).sum()), "p": float(p)}


def paired_t_test(diff: np.ndarray) -> dict:
    n = len(diff)
    if n < 2 or not np.any(diff != diff[0]):
        # No variance: identical systems give p = 1; a constant non-zero shift is certain.
        return {"t": 0.0, "p": 1.0 if n == 0 or diff[0] == 0 else 0.0, "n": n}
    result = stats.ttest_1samp(diff, 0.0)
    return {"t": float(result.statistic), "p": float(result.pvalue), "n": n}


def approximate_randomization(diff: np.ndarray, *, samples: int = 10_000, seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    observed = abs(diff.sum())
    at_least = 0
    for start in range(0, samples, 1000):
        size = min(1000, samples - start)
        signs = rng.integers(0, 2, size=(size, len(diff)), dtype=np.int8) * 2 - 1
        at_least += int((np.abs(signs @ diff) >= observed - 1e-9).sum())
    return {"samples": samples, "p": (at_least + 1) / (samples + 1)}


def paired_bootstrap(diff: np.ndarray, words: np.ndarray, *, samples: int = 10_000, seed: int = 1) -> dict:
    n = len(diff)
    if n == 0 or words.sum() == 0:
        return {"samples": samples, "p": 1.0}
    rng = np.random.default_rng(seed)
    observed = diff.sum() / words.sum()
    exceed = 0
    for start in range(0, samples, 1000):
        size = min(1000, samples - start)
        picks = rng.integers(0, n, size=(size, n))
        resampled = diff[picks].sum(axis=1) / np.maximum(words[picks].sum(axis=1), 1)
        # Berg-Kirkpatrick et al. (2012): the resampled gain, in the observed direction,
        # exceeds twice the observed one (the samples' mean gain is the observed gain).
        exceed += int((np.sign(observed) * resampled >= 2 * abs(observed)).sum()) if observed else size
    return {"samples": samples, "p": min(1.0, (exceed + 1) / (samples + 1))}
