"""Where a compiled search spends its time: the CPU's cycle counter, read inside the loops.

A search takes an optional ``clock`` (an int64 array with one cell per stage of ``STAGES``).
Without it (``None``, the default) numba compiles the timing away: ``start`` and ``lap`` are
pruned at compile time, so parsing and training pay nothing. With it, every ``lap`` adds the
cycles since the last one to its stage, which ``bench/profile_parser.py`` prints as shares.
Reading the counter costs some 20-40 cycles, against thousands per beam item.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

STAGES = (
    "feature atoms",  # reading an item's stack and queue into its atom vector
    "memo",  # the memo of equal atom vectors (group sums): signature, recall, remember
    "hashing",  # feature keys from atoms
    "weight lookups",  # table probes and adding each feature's action scores
    "beam selection",  # offering candidates to the heap, sorting survivors
    "copying items",  # building each survivor from its parent (stack copy, action)
    "update: features",  # perceptron update: replaying both sequences, feature keys
    "update: weights",  # perceptron update: table inserts and weight changes
)
ATOMS, MEMO, HASHING, WEIGHTS, SELECTION, ITEMS, UPDATE_FEATURES, UPDATE_WEIGHTS = range(len(STAGES))


@intrinsic
def _cycles(typingctx):
    """The CPU's cycle (time-stamp) counter: LLVM's readcyclecounter."""

    def codegen(context, builder, signature, args):
        counter = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                                 "llvm.readcyclecounter")
        return builder.call(counter, [])

    return types.int64(), codegen


@njit(cache=True)
def cycles():
    """The cycle counter, from Python (to calibrate cycles against seconds)."""
    return _cycles()


@njit(cache=True, inline="always")
def start(clock):
    """The counter now (0 and no read without a clock)."""
    if clock is None:
        return 0
    return _cycles()


@njit(cache=True, inline="always")
def lap(clock, stage, since):
    """Charge the cycles since ``since`` to ``stage``; returns the counter now (the next lap's start)."""
    if clock is None:
        return 0
    now = _cycles()
    clock[stage] += now - since
    return now
