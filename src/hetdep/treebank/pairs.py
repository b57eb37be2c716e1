"""Scheme pairs: two files that annotate the same sentences in two schemes, read as one list."""

from __future__ import annotations

from itertools import zip_longest
from pathlib import Path
from typing import Iterator, NamedTuple, Sequence

from hetdep.errors import MismatchError
from hetdep.treebank.conllu import Sentence, read_conllu


class Pair(NamedTuple):
    """The same sentence in scheme a and in scheme b (same words, same forms)."""

    a: Sentence
    b: Sentence


def check_same_words(a: Sentence, b: Sentence) -> None:
    """Refuse two sentences that are not the same words, naming the first mismatch in ``b``."""
    if len(a) != len(b):
        raise MismatchError(b.path, b.line, f"sentence has {len(b)} words but its pair in {a.describe()} has {len(a)}")
    for k, (form_a, form_b) in enumerate(zip(a.forms, b.forms)):
        if form_a != form_b:
            raise MismatchError(b.path, b.word_line(k), f"word {k + 1} is {form_b!r} but {form_a!r} in {a.path}:{a.word_line(k)}")


def iter_pairs(path_a: str | Path, path_b: str | Path, **read_options) -> Iterator[Pair]:
    """Stream aligned sentence pairs; raise :class:`MismatchError` at the first mismatch."""
    for a, b in zip_longest(read_conllu(path_a, **read_options), read_conllu(path_b, **read_options)):
        if a is None:
            raise MismatchError(str(path_b), b.line, f"has more sentences than {path_a}; the first extra one starts here")
        if b is None:
            raise MismatchError(str(path_a), a.line, f"has more sentences than {path_b}; the first extra one starts here")
        check_same_words(a, b)
        yield Pair(a, b)


def read_pairs(path_a: str | Path, path_b: str | Path, **read_options) -> list[Pair]:
    """All pairs of two scheme files (see :func:`iter_pairs`)."""
    return list(iter_pairs(path_a, path_b, **read_options))


def pairs_of(a: Sequence[Sentence], b: Sequence[Sentence]) -> list[Pair]:
    """Pairs of two lists of sentences in two schemes, refused as :func:`iter_pairs` refuses files."""
    if len(a) != len(b):
        longer = a if len(a) > len(b) else b
        raise MismatchError(longer[min(len(a), len(b))].path, longer[min(len(a), len(b))].line,
                            f"{len(a)} sentences in scheme a against {len(b)} in scheme b; the first unmatched one starts here")
    for x, y in zip(a, b):
        check_same_words(x, y)
    return [Pair(x, y) for x, y in zip(a, b)]
