"""The boundary classifier in plain Python: the specification the compiled loop is tested against.

Reads the text itself rather than arrays: each template is written out as what it looks at.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from hetdep.learn.clusters import COARSE_SHIFT
from hetdep.learn.keys import MASK64, MULTIPLIER, SEED
from hetdep.tokenizer import templates
from hetdep.tokenizer.boundary_weights import BoundaryWeights
from hetdep.tokenizer.characters import CASELESS, DIGIT, LOWER, OUTSIDE, SPACE_CODE, UPPER, char_class
from hetdep.tokenizer.templates import CHUNK_SPAN, LEFT_SPAN, LOOK_AHEAD, RIGHT_SPAN, SHAPE_SPAN, WORD_KEY

WORD_CLASSES = (LOWER, UPPER, DIGIT, CASELESS)


class Clusters(Protocol):
    """Word key -> cluster code: :func:`word_table`'s dict, or a loaded tokenizer's
    (:class:`hetdep.sorted_lines.SortedKeys`)."""

    def get(self, key: int, default: int = 0, /) -> int: ...


def _key(template: int, *values: int) -> int:
    h = ((template + 1) * SEED) & MASK64
    for value in values:
        h = ((h ^ value) * MULTIPLIER) & MASK64
        h ^= h >> 29
    return h


def _code(text: str, j: int, lower: bool = False) -> int:
    if not 0 <= j < len(text):
        return 0
    char = text[j]
    if char.isspace():
        return SPACE_CODE
    if lower and len(char.lower()) == 1:
        return ord(char.lower())
    return ord(char)


def _class(text: str, j: int) -> int:
    return char_class(text[j]) if 0 <= j < len(text) else OUTSIDE


def _chunk(text: str, i: int) -> tuple[int, int]:
    start = i
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = i + 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return start, end


def _shape(text: str, first: int, end: int) -> list[int]:
    """The classes of ``text[first:end]`` (its first SHAPE_SPAN characters), runs of one class as one."""
    classes = [_class(text, j) for j in range(first, min(end, first + SHAPE_SPAN))]
    return [c for k, c in enumerate(classes) if k == 0 or classes[k - 1] != c]


def _word(text: str, i: int) -> str:
    """The word of the chunk around ``text[i]``: from its first letter or digit to its last,
    lower-cased character by character ("" for none)."""
    start, end = _chunk(text, i)
    word = [j for j in range(start, end) if _class(text, j) in WORD_CLASSES]
    return "".join(chr(_code(text, j, lower=True)) for j in range(word[0], word[-1] + 1)) if word else ""


def word_key(word: str) -> int:
    """The key of a chunk's word (:func:`_word`): its characters hashed; 0 for none."""
    return _key(WORD_KEY, *(ord(char) for char in word)) | 1 if word else 0


def word_table(clusters: dict[str, int]) -> dict[int, int]:
    """Each clustered word's key (of its word as :func:`_word` reads a chunk) -> its cluster, the
    first of equals kept: what a tokenizer keeps of its clusters."""
    table: dict[int, int] = {}
    for word, code in clusters.items():
        if word and not any(char.isspace() for char in word):
            table.setdefault(word_key(_word(word, 0)), code)
    table.pop(0, None)
    return table


def _word_cluster(text: str, i: int | None, table: Clusters) -> int:
    return 0 if i is None else table.get(word_key(_word(text, i)), 0)


def feature_rows(text: str, i: int, buckets: int, table: Clusters | None = None) -> list[int]:
    """The table rows of the boundary after ``text[i]``, template by template (``table``: a tokenizer's
    word clusters, by :func:`word_table`, read where a chunk ends)."""
    low = lambda j: _code(text, j, lower=True)  # noqa: E731
    code = lambda j: _code(text, j)  # noqa: E731
    cls = lambda j: _class(text, j)  # noqa: E731
    keys = [_key(0)]
    keys += [_key(1 + k, low(i + offset)) for k, offset in enumerate(range(-3, 5))]
    keys += [_key(9 + k, cls(i + offset)) for k, offset in enumerate(range(-3, 5))]
    for k, (first, width) in enumerate(((-1, 2), (0, 2), (1, 2), (-2, 3), (0, 3), (-1, 3), (1, 3))):
        keys.append(_key(17 + k, *(code(j) for j in range(i + first, i + first + width))))
    keys.append(_key(24, *(cls(i + offset) for offset in range(-3, 5))))
    start, end = _chunk(text, i)
    left = _key(0, *(low(j) for j in range(max(start, i - LEFT_SPAN + 1), i + 1)))
    keys.append(_key(25, left))
    keys.append(_key(26, *(low(j) for j in range(i + 1, min(end, i + RIGHT_SPAN)))))
    keys.append(_key(27, *(low(j) for j in range(start, min(end, start + CHUNK_SPAN)))))
    keys.append(_key(28, min(i - start + 1, 10), cls(i + 1)))
    after = next((j for j in range(i + 1, min(len(text), i + 1 + LOOK_AHEAD)) if not text[j].isspace()), None) \
        if i + 1 < len(text) and text[i + 1].isspace() else None
    keys.append(_key(29, cls(after) if after is not None else 0, code(i)))
    keys.append(_key(30, left, code(i + 1)))
    keys.append(_key(31, code(i), low(after) if after is not None else 0))
    keys.append(_key(32, code(i), cls(i + 1), cls(i + 2)))
    next_end = _chunk(text, after)[1] if after is not None else None
    written = _key(0, *(code(j) for j in range(after, min(next_end, after + RIGHT_SPAN)))) if after is not None else _key(0)
    keys.append(_key(33, written))
    keys.append(_key(34, written, cls(i)))
    shape = _shape(text, start, i + 1) + [0] + (_shape(text, after, next_end) if after is not None else [])
    keys.append(_key(35, *shape))
    before = start - 1
    while before >= 0 and before > start - 1 - LOOK_AHEAD and text[before].isspace():
        before -= 1
    previous = []
    if before >= 0 and not text[before].isspace():
        previous = [low(j) for j in range(max(_chunk(text, before)[0], before - CHUNK_SPAN + 1), before + 1)]
    keys.append(_key(36, *previous, code(i)))
    if table is not None and (i + 1 == len(text) or text[i + 1].isspace()):  # where a chunk ends
        own, following = _word_cluster(text, i, table), _word_cluster(text, after, table)
        previous = _word_cluster(text, before, table) if before >= 0 and not text[before].isspace() else 0
        keys.append(_key(37, following, cls(i)))
        keys.append(_key(38, own >> COARSE_SHIFT, following >> COARSE_SHIFT, cls(i)))
        keys.append(_key(39, own, cls(after) if after is not None else 0))
        keys.append(_key(40, previous >> COARSE_SHIFT, own >> COARSE_SHIFT, following >> COARSE_SHIFT))
    return [key & (buckets - 1) for key in keys]


def classify(text: str, weights: BoundaryWeights, table: Clusters | None = None) -> tuple[list[int], list[list[float]]]:
    """Labels (-1 for white space) and scores, as :func:`hetdep.tokenizer._boundaries.classify` gives them."""
    labels, scores = [], []
    for i, char in enumerate(text):
        if char.isspace():
            labels.append(-1)
            scores.append([0.0] * templates.N_LABELS)
            continue
        rows = feature_rows(text, i, weights.buckets, table)
        score = np.cumsum(weights.lookup(rows), axis=0, dtype=np.float32)[-1].tolist()  # float32 sums, template by template
        first = templates.TOKEN_END if i + 1 == len(text) or text[i + 1].isspace() else templates.INSIDE  # a chunk's last character ends a token
        allowed = range(first, templates.N_LABELS)
        labels.append(max(allowed, key=lambda label: (score[label], -label)))
        scores.append(score)
    return labels, scores

