"""What the tokenizer's boundary classifier and its plain-Python reference share: the labels, the
number of templates, the spans the features read, and the row of the feature every boundary
has; apart from the compiled loop (:mod:`hetdep.tokenizer._boundaries`), so that a tokenizer
loads without numba.
"""

from __future__ import annotations

from hetdep.learn.keys import SEED

INSIDE, TOKEN_END, SENTENCE_END = range(3)
N_LABELS = 3
N_TEMPLATES = 37  # a tokenizer without word clusters
N_CLUSTER_TEMPLATES = 4  # appended when it has them (hetdep.learn.clusters)
WORD_KEY = 99  # where a word's key starts, as a template number (word_hash)
LEFT_SPAN, RIGHT_SPAN, CHUNK_SPAN, LOOK_AHEAD, SHAPE_SPAN = 16, 17, 32, 8, 16


def constant_row(buckets: int) -> int:
    """The table row of template 0, the feature every boundary has: its weights are the labels' biases."""
    return SEED & (buckets - 1)  # template 0's key: (0 + 1) * SEED, with no value mixed in
