"""Word vectors read from a text file (word2vec's or fastText's format): the neural parser's
pretrained embeddings and the perceptron parsers' word clusters start from them."""

from __future__ import annotations

import numpy as np

from hetdep.errors import InputError


def read_embeddings(path: str) -> tuple[list[str], np.ndarray]:
    """Word vectors from a word2vec or fastText text file (an optional "COUNT DIMENSION" first line,
    then a word and its numbers a line): the lower-cased words (the first vector of each kept) and
    their vectors, one float32 row each; a line of another length or a value that is not a finite
    number is an error naming the line."""
    vectors: dict[str, np.ndarray] = {}  # lower-cased word -> its first vector, in the file's order
    dimension = None
    try:
        handle = open(path, encoding="utf-8")
    except OSError as error:
        raise InputError(path, None, f"cannot open: {error.strerror}") from None
    with handle:
        try:
            for number, line in enumerate(handle, 1):
                fields = line.rstrip("\n").rstrip(" ").split(" ")
                if number == 1 and len(fields) == 2 and all(f.isdigit() for f in fields):
                    continue  # word2vec's header
                if len(fields) < 2 or (dimension is not None and len(fields) - 1 != dimension):
                    raise InputError(path, number, f"expected a word and {dimension or 'its'} numbers, found {len(fields)} fields")
                try:
                    values = np.array(fields[1:], dtype=np.float32)
                except ValueError:
                    raise InputError(path, number, "a vector value is not a number") from None
                if not np.isfinite(values).all():
                    raise InputError(path, number, "a vector value is not a finite number")
                dimension = len(values)
                vectors.setdefault(fields[0].lower(), values)
        except UnicodeDecodeError:
            raise InputError(path, None, "not UTF-8") from None
    if not vectors:
        raise InputError(path, None, "no word vectors")
    return list(vectors), np.stack(list(vectors.values()))
