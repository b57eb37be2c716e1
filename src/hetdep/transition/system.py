"""The arc-standard transition system (zhang2014 section 2), in plain Python: the reference.

Actions, as integers (labels are 0..L-1):

- ``SH`` = 0: shift. Validity: the queue is not empty. Action: push N0 onto the stack.
- ``PR`` = 1: pop-root. Validity: one item on the stack, queue empty. Action: that item
  becomes the root (head 0, the root label) and the stack is emptied.
- ``AL(l)`` = 2 + l: arc-left. Validity: two items on the stack. Action: S0 becomes the head
  of S1 with label l; S1 is popped.
- ``AR(l)`` = 2 + L + l: arc-right. Validity: two items on the stack. Action: S1 becomes the
  head of S0 with label l; S0 is popped.

A complete sequence for n words has exactly 2n actions (n shifts, n-1 arcs, one pop-root),
so beam items always stand at the same step. The compiled twin in :mod:`hetdep.transition._beam`
keeps a compact copy of the same state; this module is what it is tested against.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SH, PR = 0, 1


class Moves:
    """Action ids and names for a label set: ``"SH"``, ``"PR"``, ``"AL(nsubj)"``, ``"AR(obj)"``."""

    def __init__(self, labels: list[str]):
        self.labels = list(labels)
        self.index = {label: i for i, label in enumerate(self.labels)}

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    @property
    def n_actions(self) -> int:
        return 2 + 2 * len(self.labels)

    def arc_left(self, label: int) -> int:
        return 2 + label

    def arc_right(self, label: int) -> int:
        return 2 + self.n_labels + label

    def kind(self, action: int) -> str:
        if action == SH:
            return "SH"
        if action == PR:
            return "PR"
        return "AL" if action < 2 + self.n_labels else "AR"

    def label_of(self, action: int) -> int:
        return (action - 2) % self.n_labels if action >= 2 else -1

    def name(self, action: int) -> str:
        kind = self.kind(action)
        return kind if kind in ("SH", "PR") else f"{kind}({self.labels[self.label_of(action)]})"

    def parse(self, name: str) -> int:
        if name in ("SH", "PR"):
            return SH if name == "SH" else PR
        kind, _, rest = name.partition("(")
        label = self.index[rest.rstrip(")")]
        if kind == "AL":
            return self.arc_left(label)
        if kind == "AR":
            return self.arc_right(label)
        raise ValueError(f"unknown move {name!r}")


@dataclass
class State:
    """A parser state: stack, next queue word, and the arcs built so far (1-based words)."""

    n: int
    stack: list[int] = field(default_factory=list)
    next: int = 1
    heads: dict[int, int] = field(default_factory=dict)
    labels: dict[int, int] = field(default_factory=dict)

    def copy(self) -> "State":
        return State(self.n, list(self.stack), self.next, dict(self.heads), dict(self.labels))

    @property
    def done(self) -> bool:
        return not self.stack and self.next > self.n

    def S(self, i: int) -> int:
        """The i-th stack item from the top (0 if absent)."""
        return self.stack[-1 - i] if i < len(self.stack) else 0

    def N(self, i: int) -> int:
        """The i-th queue word (0 if absent)."""
        return self.next + i if self.next + i <= self.n else 0

    def children(self, word: int, left: bool) -> list[int]:
        """Dependents of ``word`` on one side, outermost first."""
        found = [d for d, h in self.heads.items() if h == word and (d < word) == left]
        return sorted(found) if left else sorted(found, reverse=True)


def is_valid(state: State, action: int, moves: Moves) -> bool:
    if action == SH:
        return state.next <= state.n
    if action == PR:
        return len(state.stack) == 1 and state.next > state.n
    return len(state.stack) >= 2


def apply(state: State, action: int, moves: Moves, root_label: int) -> None:
    """Apply a valid action in place."""
    if action == SH:
        state.stack.append(state.next)
        state.next += 1
    elif action == PR:
        word = state.stack.pop()
        state.heads[word] = 0
        state.labels[word] = root_label
    else:
        s0 = state.stack.pop()
        s1 = state.stack.pop()
        label = moves.label_of(action)
        if moves.kind(action) == "AL":
            state.heads[s1], state.labels[s1] = s0, label
            state.stack.append(s0)
        else:
            state.heads[s0], state.labels[s0] = s1, label
            state.stack.append(s1)


def oracle(heads: list[int], labels: list[int], moves: Moves) -> list[int]:
    """The static oracle: the gold action sequence of a projective tree.

    Arc-left as soon as S1's head is S0; arc-right as soon as S0's head is S1 and S0 has
    all its dependents; otherwise shift. Raises ``ValueError`` on a non-projective tree.
    """
    n = len(heads)
    missing = [0] * (n + 1)  # dependents not yet attached
    for h in heads:
        missing[h] += 1
    stack: list[int] = []
    nxt = 1
    actions: list[int] = []
    while len(actions) < 2 * n:
        if len(stack) >= 2:
            s0, s1 = stack[-1], stack[-2]
            if heads[s1 - 1] == s0:
                actions.append(moves.arc_left(labels[s1 - 1]))
                stack.pop(-2)
                missing[s0] -= 1
                continue
            if heads[s0 - 1] == s1 and missing[s0] == 0:
                actions.append(moves.arc_right(labels[s0 - 1]))
                stack.pop()
                missing[s1] -= 1
                continue
        if nxt <= n:
            actions.append(SH)
            stack.append(nxt)
            nxt += 1
            continue
        if len(stack) == 1 and heads[stack[0] - 1] == 0:
            actions.append(PR)
            stack.pop()
            continue
        raise ValueError("the tree is not projective (or has several roots): the oracle cannot build it")
    return actions
