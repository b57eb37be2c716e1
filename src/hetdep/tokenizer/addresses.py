"""Web and e-mail addresses kept whole: one token each, as UD treebanks write them (en-ewt's test
text holds 71, 69 of them one token in the gold file). The boundary classifier learns boundaries
from the characters around each one and cuts a rare address at its slashes and dots (en-ewt dev:
``http://www.4gamer.net / news/ image/...``), so after it an address's characters take no
boundary and its last character ends a token; punctuation at its end (a full stop, a closing
bracket it did not open) stays outside, as the treebanks write it. Written once for every
language: an address has the same shape in any text."""

from __future__ import annotations

import re

import numpy as np

from hetdep.tokenizer.templates import INSIDE, TOKEN_END

_ADDRESS = re.compile(r"(?:(?:https?|ftp)://|www\d{0,3}\.)[^\s<>\"]+"  # a web address, from its scheme or www.
                      # an e-mail address, from the start of its run of name characters: tried at every
                      # character of a run, the name's greedy match made a long word quadratic (100,000
                      # letters: 17 s)
                      r"|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_TRAILING = ".,;:!?'\")]}»"  # characters an address rarely ends with: the sentence's, not the address's
_OPENS = {")": "(", "]": "[", "}": "{"}


def address_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each address in ``text``, its trailing punctuation left out."""
    spans = []
    for match in _ADDRESS.finditer(text):
        start, end = match.span()
        while end > start and text[end - 1] in _TRAILING:
            closing = text[end - 1]
            if closing in _OPENS and text.count(_OPENS[closing], start, end) >= text.count(closing, start, end):
                break  # a bracket the address opened (a Wikipedia page's "(disambiguation)") is its own
            end -= 1
        if end - start > len("www."):  # more than a scheme's or www's start, cut short by its punctuation
            spans.append((start, end))
    return spans


def keep_addresses_whole(text: str, labels: np.ndarray) -> None:
    """Set the boundary labels of ``text``'s characters (:mod:`hetdep.tokenizer.templates`; -1 for
    white space) so that each address is one token: no boundary inside, a token end at its last
    character and at the character before it."""
    for start, end in address_spans(text):
        labels[start:end - 1] = INSIDE
        labels[end - 1] = max(labels[end - 1], TOKEN_END)
        if start > 0 and labels[start - 1] == INSIDE:
            labels[start - 1] = TOKEN_END
