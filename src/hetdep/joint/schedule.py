"""The interleaving t of the joint model: which scheme acts at each step.

``t`` is parsed once, at the edge (:func:`parse_t`), and travels as an int; :func:`schedule` gives
the scheme of every step of an n-word sentence (both schemes take 2n steps).
"""

from __future__ import annotations

import numpy as np

from hetdep.errors import HetdepError

INFINITE = 10**9  # t = +inf / -inf: one scheme finishes before the other starts


def parse_t(text: str | int) -> int:
    """The interleaving parameter from a user: a non-zero integer, 'inf', '+inf' or '-inf'."""
    value = str(text).strip().lower()
    if value in ("inf", "+inf"):
        return INFINITE
    if value == "-inf":
        return -INFINITE
    try:
        t = int(value)
    except ValueError:
        raise HetdepError(f"t must be a non-zero integer, 'inf' or '-inf', not {text!r}") from None
    if t == 0:
        raise HetdepError("t must not be 0 (t > 0: scheme a leads by t actions; t < 0: scheme b leads)")
    return max(-INFINITE, min(INFINITE, t))


def t_text(t: int) -> str:
    """t in model files, folder names and messages: '+inf', '-inf' or the integer (:func:`parse_t` reads it back)."""
    return "+inf" if t >= INFINITE else "-inf" if t <= -INFINITE else str(t)


def t_label(t: int) -> str:
    """t in experiment reports and their commands, as the option's default writes it: 'inf' for +inf."""
    return "inf" if t >= INFINITE else t_text(t)


def schedule(n: int, t: int) -> np.ndarray:
    """Which scheme acts (0 = a, 1 = b) at each of the 4n joint steps.

    t > 0: b may act only when a is t actions ahead (t = 1: a b a b ...); t < 0: the mirror
    image; once one scheme has its 2n actions, the other finishes.
    """
    who = np.zeros(4 * n, dtype=np.int64)
    done_a = done_b = 0
    for step in range(4 * n):
        if done_a == 2 * n:
            b_acts = True
        elif done_b == 2 * n:
            b_acts = False
        elif t > 0:
            b_acts = done_a - done_b >= t
        else:
            b_acts = done_b - done_a < -t
        who[step] = int(b_acts)
        done_b += b_acts
        done_a += not b_acts
    return who


def interleave(gold_a: np.ndarray, gold_b: np.ndarray, who: np.ndarray) -> np.ndarray:
    """The joint action sequence: the two schemes' sequences merged by the schedule."""
    joint = np.empty(len(who), dtype=np.int32)
    joint[who == 0] = gold_a
    joint[who == 1] = gold_b
    return joint
