"""A neural model's pretrained forms as its weights file keeps them, looked up where they lie.

The forms are UTF-8 lines in sorted order beside their rows of the frozen vector table (the
shipped model: 200,000 forms). Made into a dict they took 0.25 s of every start, a good part of
a one-sentence parse that asks for a few of them; read as sorted bytes they are found by binary
search. Forms saved unsorted (a model of the first days of stored forms) go into a dict.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from hetdep.sorted_lines import Lines, find

MEMO_FORMS = 50_000  # forms whose rows a model keeps, started afresh past it
_UNASKED = object()


def pretrained_forms(blob: bytes, rows: np.ndarray) -> Mapping[str, int]:
    """Form -> row, from the stored lines and rows; ValueError if they do not decode or do not pair up."""
    text = blob.decode("utf-8")
    lines = Lines(blob)
    if len(lines) != len(rows):
        raise ValueError("the pretrained forms and their rows do not fit the vector table")
    if lines.in_order():  # UTF-8 bytes sort as their strings do
        return SortedForms(lines, rows)
    return dict(zip(text.split("\n"), rows.tolist()))


class SortedForms(Mapping):
    """Sorted UTF-8 forms and their rows, read by binary search, each form's answer kept (a text
    repeats its forms: fr-sequoia test's 10,000 words asked 11,479 times, 3,500 forms)."""

    def __init__(self, lines: Sequence[bytes], rows: np.ndarray):
        self.lines, self.rows = lines, rows
        self._memo: dict[str, int | None] = {}  # form -> row, None: not a pretrained form

    def get(self, form: str, default=None):
        row = self._memo.get(form, _UNASKED)
        if row is _UNASKED:
            k = find(self.lines, form.encode("utf-8", "surrogatepass"))
            row = None if k is None else int(self.rows[k])
            if len(self._memo) >= MEMO_FORMS:
                self._memo.clear()
            self._memo[form] = row  # threads may find a form twice: the same row
        return default if row is None else row

    def __getitem__(self, form: str) -> int:
        row = self.get(form)
        if row is None:
            raise KeyError(form)
        return row

    def __iter__(self) -> Iterator[str]:
        return (line.decode("utf-8") for line in self.lines)

    def __len__(self) -> int:
        return len(self.lines)
