"""Tokens written with a space inside: French treebanks write large numbers as one token, "20 000"
(fr-sequoia and fr-gsd: 96 such tokens in their training and dev files), where the boundary
classifier, which ends a token at every space, makes two.

What may be joined is learned from the treebank, not written per language: the shapes (digits as
``9``, letters as ``a`` or ``A``) of its tokens made of pieces one space apart, each kept when training
shows it at least MIN_TOKENS times and as one token at least PRECISION of the times its pieces
stand side by side (Vietnamese, whose words are syllables with spaces between, would otherwise
join every pair of syllables of one shape). Tokens side by side with one space between whose
joined shape is kept become one token, the longest run first (at most MAX_PIECES pieces)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

import numpy as np

MIN_TOKENS = 2  # training tokens of a shape before it is joined
PRECISION = 0.9  # share of a shape's training occurrences that are one token
MAX_PIECES = 4  # pieces a joined token is made of, at most ("1 000 000 000")

_SHAPE = (re.compile(r"[0-9]"), re.compile(r"[^\W\d_]"))


def shape(text: str) -> str:
    """Digits as 9, letters as A (upper case) or a, everything else as it is."""
    text = _SHAPE[0].sub("9", text)
    return "".join(("A" if char.isupper() else "a") if _SHAPE[1].match(char) else char for char in text)


class SpacedTokens:
    def __init__(self, shapes: Sequence[str] = ()):
        self.shapes = frozenset(shapes)
        self._firsts = frozenset(s[0] for s in self.shapes)  # a token starting otherwise starts no join

    @classmethod
    def train(cls, sentences: Sequence[Sequence[tuple[str, object]]]) -> "SpacedTokens":
        """The shapes of training tokens with one space inside (``sentences``: each sentence's
        (token, words) pairs), kept by MIN_TOKENS and PRECISION against the same shapes made by
        separate tokens side by side."""
        whole, apart = Counter(), Counter()
        for tokens in sentences:
            forms = [form for form, _ in tokens]
            for k, form in enumerate(forms):
                pieces = form.split(" ")
                if 2 <= len(pieces) <= MAX_PIECES and all(pieces):
                    whole[shape(form)] += 1
                for count in range(2, min(MAX_PIECES, len(forms) - k) + 1):
                    apart[shape(" ".join(forms[k:k + count]))] += 1
        kept = {s for s, count in whole.items() if count >= MIN_TOKENS and count >= PRECISION * (count + apart[s])}
        return cls(sorted(kept))

    def join(self, text: str, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A sentence's token spans with the runs of tokens that make a kept shape, one space apart,
        as one token each."""
        if not self.shapes or len(starts) < 2:
            return starts, ends
        new_starts, new_ends, k, n = [], [], 0, len(starts)
        while k < n:
            last = k
            for j in range(min(n - 1, k + MAX_PIECES - 1), k, -1) if shape(text[starts[k]]) in self._firsts else ():
                if all(text[ends[i]:starts[i + 1]] == " " for i in range(k, j)) and \
                        shape(text[starts[k]:ends[j]]) in self.shapes:
                    last = j
                    break
            new_starts.append(starts[k])
            new_ends.append(ends[last])
            k = last + 1
        if len(new_starts) == n:
            return starts, ends
        return np.array(new_starts, dtype=starts.dtype), np.array(new_ends, dtype=ends.dtype)

    def config(self) -> list[str]:
        return sorted(self.shapes)

    @classmethod
    def from_config(cls, shapes) -> "SpacedTokens":
        if not isinstance(shapes, list) or not all(isinstance(s, str) and " " in s for s in shapes):
            raise ValueError("the shapes of tokens with a space inside are not a list of strings with a space")
        return cls(shapes)
