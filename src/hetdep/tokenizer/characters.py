"""The text as arrays the boundary classifier reads: character codes, their classes, and chunks.

A chunk is a maximal run of characters that are not white space (what a space-separated
language calls a word, a whole sentence in Chinese). Every white-space character reads as one
code (a space), so a newline or a tab in the input looks like the spaces the training text had.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

OUTSIDE, SPACE, LOWER, UPPER, DIGIT, PUNCT, CASELESS, OTHER = range(8)  # character classes
SPACE_CODE = 32


@lru_cache(maxsize=65536)
def char_class(char: str) -> int:
    if char.isspace():
        return SPACE
    category = unicodedata.category(char)
    if category == "Ll":
        return LOWER
    if category in ("Lu", "Lt"):
        return UPPER
    if category[0] == "L":
        return CASELESS  # Chinese, Japanese, Arabic script... and modifier letters
    if category[0] == "N":
        return DIGIT
    if category[0] == "P":
        return PUNCT
    return OTHER


@lru_cache(maxsize=65536)
def _codes(char: str) -> tuple[int, int, int]:
    if char.isspace():
        return SPACE_CODE, SPACE_CODE, SPACE
    lower = char.lower()
    return ord(char), ord(lower) if len(lower) == 1 else ord(char), char_class(char)


@dataclass(frozen=True)
class CharArrays:
    """``codes``, ``lower`` and ``classes`` per character; ``chunk_start``/``chunk_end`` the chunk
    around each character (for white space: an empty chunk at itself); ``clusters`` its chunk's
    word cluster (all 0 until a tokenizer with word clusters fills them)."""

    codes: np.ndarray
    lower: np.ndarray
    classes: np.ndarray
    chunk_start: np.ndarray
    chunk_end: np.ndarray
    clusters: np.ndarray

    def __len__(self) -> int:
        return len(self.codes)


def char_arrays(text: str) -> CharArrays:
    raw = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    distinct, inverse = np.unique(raw, return_inverse=True)  # each distinct character looked up once
    table = np.array([_codes(chr(c)) for c in distinct], dtype=np.int64).reshape(len(distinct), 3)
    codes, lower, classes = (table[inverse, k] for k in range(3))
    n = len(text)
    index = np.arange(n, dtype=np.int64)
    space = classes == SPACE
    chunk_start = np.maximum.accumulate(np.where(space, index + 1, 0)) if n else index
    chunk_start[space] = index[space]
    chunk_end = np.minimum.accumulate(np.where(space, index, n)[::-1])[::-1].copy() if n else index
    return CharArrays(codes, lower, classes, chunk_start, chunk_end, np.zeros(n, dtype=np.int64))
