"""Short runs without numba: whether the compiled loops or their plain-Python references run.

numba costs about a second before its first result (its import and SciPy's, its registries, the
machine code read back from its cache), while one sentence takes the references milliseconds. So
a command whose input is short asks for the references (:func:`prefer_references`), and the
tokenizer, the taggers and the tree decoder use them for as long as numba is not loaded anyway;
each reference gives what its compiled twin gives (the tests hold every pair equal), so the
choice moves no output.
"""

from __future__ import annotations

import os
import sys

# bytes: up to this many, a command's input is parsed by the references. On fr-sequoia test text, a whole
# `hetdep parse` took about as long either way at 1,200 bytes, the references 1.2x longer at 2,000.
SHORT_INPUT = 1_000

_preferred = False
_arrays = False


def prefer_references(short: bool) -> None:
    """Ask for the plain-Python references (a short input) or the compiled loops (the default)."""
    global _preferred
    _preferred = short


def use_references() -> bool:
    """Whether to run a reference now: asked for, and numba not loaded already (once it is, the
    compiled loops cost nothing more to start)."""
    return _preferred and "numba" not in sys.modules


def is_short_file(path: str) -> bool:
    """Whether a command's input file is short enough for the references."""
    try:
        return os.path.getsize(path) <= SHORT_INPUT
    except OSError:
        return False  # the reading that follows names the file in its error


def prefer_arrays(wanted: bool) -> None:
    """Let a command that parses one input and ends (``hetdep parse``) decode a small input's
    trees by whole-array loops (:mod:`hetdep.graph.eisner_arrays`): no numba to load for them,
    about a second, at about a millisecond a sentence; a service, which parses on, keeps numba's."""
    global _arrays
    _arrays = wanted


def use_arrays() -> bool:
    """Whether a small input may be decoded by the array loops now: asked for, numba not loaded."""
    return _arrays and "numba" not in sys.modules
