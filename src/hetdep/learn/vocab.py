"""Vocabularies: strings to dense integer ids, with fixed ids for "absent" and "unknown"."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from hetdep.learn.perceptron import TrainOptions
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.tags import TAG_COLUMNS, lattice_candidates

ABSENT, UNKNOWN = 0, 1


class Vocab:
    """Ids for words or tags: 0 is "absent" (no word at that position), 1 is "unknown"."""

    def __init__(self, items: Iterable[str] = ()):
        self.items: list[str] = ["<absent>", "<unknown>"]
        self.index: dict[str, int] = {}
        for item in items:
            self.add(item)

    def add(self, item: str) -> int:
        if item not in self.index:
            self.index[item] = len(self.items)
            self.items.append(item)
        return self.index[item]

    def __len__(self) -> int:
        return len(self.items)

    def encode(self, items: list[str]) -> np.ndarray:
        """Ids of a sentence's items, with position 0 the absent id (so word k is at index k)."""
        get = self.index.get
        return np.array([ABSENT] + [get(item, UNKNOWN) for item in items], dtype=np.int64)

    @classmethod
    def from_counts(cls, counts: Counter, min_count: int = 1) -> "Vocab":
        """Items seen at least ``min_count`` times, most frequent first (ties by string: deterministic)."""
        return cls(item for item, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if count >= min_count)

    def to_list(self) -> list[str]:
        return self.items[2:]

    @classmethod
    def from_list(cls, items: list[str]) -> "Vocab":
        """A saved vocabulary: one dict made at once (a model's 140,000 strings in a fifth of the
        time one ``add`` each takes), or item by item where a damaged file repeats one."""
        vocab = cls()
        vocab.index = dict(zip(items, range(len(vocab.items), len(vocab.items) + len(items))))
        vocab.items += items
        return vocab if len(vocab.index) == len(items) else cls(items)


@dataclass
class ParseStats:
    """What parsing met that the model had not seen: counted, never fatal."""

    sentences: int = 0
    words: int = 0
    unknown_words: int = 0
    unknown_tags: int = 0
    unknown_labels: int = 0  # words of a given tree whose label the model did not know
    unknown_tag_examples: set = field(default_factory=set)
    first_order_only: int = 0  # dep2: sentences too long for the second-order decoder
    lattice_words: int = 0  # tag lattices: words with more than one candidate tag
    # Words of sentences that look like another language than the model's, by that language (hetdep.models.language).
    foreign: Counter = field(default_factory=Counter)

    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record(self, words: np.ndarray, tags: np.ndarray, tag_strings: list[str]) -> None:
        """Count one encoded sentence (id 1 is "unknown" in both vocabularies)."""
        unknown = tags[1:] == 1
        with self._lock:  # sentences may be parsed on several threads (hetdep.threads)
            self.sentences += 1
            self.words += len(words) - 1
            self.unknown_words += int((words[1:] == 1).sum())
            if unknown.any():
                self.unknown_tags += int(unknown.sum())
                self.unknown_tag_examples.update(tag for tag, flag in zip(tag_strings, unknown) if flag)

    def count(self, **increments: int) -> None:
        """Add to the other counters (``lattice_words=3``), safely from any thread."""
        with self._lock:
            for name, increment in increments.items():
                setattr(self, name, getattr(self, name) + increment)

    def count_foreign(self, language: str, words: int) -> None:
        """Count a sentence of ``words`` words that looks like ``language``, safely from any thread."""
        with self._lock:
            self.foreign[language] += words

    @property
    def foreign_words(self) -> int:
        return sum(self.foreign.values())

    def add(self, other: "ParseStats") -> None:
        """Add another run's counts (a chunk parsed elsewhere)."""
        self.count(**{name: getattr(other, name) for name in COUNTERS})
        with self._lock:
            self.unknown_tag_examples.update(other.unknown_tag_examples)
            self.foreign.update(other.foreign)

    def __getstate__(self) -> dict:  # the lock stays behind when the counts travel to another process
        return {name: getattr(self, name) for name in (*COUNTERS, "unknown_tag_examples", "foreign")}

    def __setstate__(self, state: dict) -> None:
        self.__init__(**state)


COUNTERS = ("sentences", "words", "unknown_words", "unknown_tags", "unknown_labels", "first_order_only", "lattice_words")


def vocabularies(sentences: Sequence[Sentence], options: TrainOptions) -> tuple[Vocab, Vocab]:
    column = TAG_COLUMNS[options.tag_column]
    words = Vocab.from_counts(Counter(form for s in sentences for form in s.forms))
    tags = Counter(tag for s in sentences for tag in s.column(column))
    if options.lattice:  # the tagger's other candidates are tags to know too
        tags.update(tag for s in sentences for listed in lattice_candidates(s, column) for tag, _ in listed[1:])
    return words, Vocab.from_counts(tags)
