"""The shift-reduce constituency transition system (Zhu et al. 2013, with mi-huang2015's
alternation), in plain Python: the reference of the compiled search.

Steps alternate: a *main* step (shift or binary reduce) is always followed by a *unary* step
(one unary reduce or none), and a last step finishes. Every action sequence of an n-word
sentence thus has 2(2n - 1) + 1 = 4n - 1 actions (n shifts, n - 1 binary reduces, one unary
step after each, finish), so the items of a beam always stand at the same step and compare
fairly. Actions, as integers, for phrase labels 0..L-1 and collapsed unary labels 0..U-1:

- ``SHIFT`` = 0. Validity: a main step; the queue is not empty; the stack top is not a
  temporary node whose head is on its right (it must reduce with its left neighbour first).
  Action: push the next word as a node labeled with its POS tag.
- ``NO_UNARY`` = 1. Validity: a unary step. Action: none.
- ``FINISH`` = 2. Validity: the last step; one node on the stack, not temporary, queue empty.
- ``binary(x, head_left, temporary)`` = 3 + 4x + 2 temporary + (not head_left). Validity: a main
  step, two nodes on the stack, and the rules that keep every state completable: the two nodes
  are not both temporary; a temporary child is the head and the new node carries its label; a
  temporary result takes its head from the left when it would sit on the stack's bottom or on a
  temporary node, and is not made at all once the queue is empty in those places. Action: pop
  S1 and S0, push a node labeled x over them, headed by S1's head (head left) or S0's.
- ``unary(u)`` = 3 + 4L + u. Validity: a unary step; the stack top is not temporary. Action:
  the stack top gets a parent labeled u (a collapsed chain such as ``S+VP``).

:func:`oracle` gives the one action sequence that builds a binarized tree
(:mod:`hetdep.constituency.binarize`).
"""

from __future__ import annotations

from dataclasses import dataclass

from hetdep.constituency.binarize import BNode

SHIFT, NO_UNARY, FINISH = 0, 1, 2


class Actions:
    """Action ids and names for phrase labels and unary (chain) labels."""

    def __init__(self, labels: list[str], unaries: list[str]):
        self.labels = list(labels)
        self.unaries = list(unaries)
        self.label_index = {label: i for i, label in enumerate(self.labels)}
        self.unary_index = {label: i for i, label in enumerate(self.unaries)}

    @property
    def n_actions(self) -> int:
        return 3 + 4 * len(self.labels) + len(self.unaries)

    @property
    def first_unary(self) -> int:
        return 3 + 4 * len(self.labels)

    def binary(self, label: int, head_left: bool, temporary: bool) -> int:
        return 3 + 4 * label + 2 * temporary + (not head_left)

    def unary(self, label: int) -> int:
        return self.first_unary + label

    def decode_binary(self, action: int) -> tuple[int, bool, bool]:
        """(label, head_left, temporary) of a binary action."""
        code = action - 3
        return code // 4, code % 2 == 0, code % 4 >= 2

    def name(self, action: int) -> str:
        if action < 3:
            return ("SHIFT", "NO_UNARY", "FINISH")[action]
        if action >= self.first_unary:
            return f"UNARY({self.unaries[action - self.first_unary]})"
        label, head_left, temporary = self.decode_binary(action)
        return f"REDUCE-{'L' if head_left else 'R'}({self.labels[label]}{'*' if temporary else ''})"


@dataclass(frozen=True)
class StackNode:
    """A node built so far: a word (``base`` -1), a binary node or a unary node. ``head`` is
    its head word (1-based); ``left``/``right``/``child`` its children, for features."""

    head: int
    tag: int  # POS tag id of a word; -1 for a phrase
    base: int = -1  # phrase label id (binary node); -1 for a word or a unary node
    unary: int = -1  # unary label id (unary node)
    temporary: bool = False
    head_left: bool = True
    left: "StackNode | None" = None
    right: "StackNode | None" = None
    child: "StackNode | None" = None


@dataclass(frozen=True)
class State:
    """Stack (bottom first), next word (1-based), and the step (0-based) the state stands at."""

    n: int
    stack: tuple[StackNode, ...] = ()
    next: int = 1
    step: int = 0

    @property
    def steps(self) -> int:
        return 4 * self.n - 1

    @property
    def unary_step(self) -> bool:
        return self.step % 2 == 1 and self.step < self.steps - 1

    @property
    def last_step(self) -> bool:
        return self.step == self.steps - 1

    @property
    def done(self) -> bool:
        return self.step == self.steps


def valid(state: State, action: int, actions: Actions) -> bool:
    """Whether ``action`` is valid in ``state`` (the rules in the module docstring)."""
    if state.done:
        return False
    stack = state.stack
    s0 = stack[-1] if stack else None
    queue_empty = state.next > state.n
    if state.last_step:
        return action == FINISH and len(stack) == 1 and queue_empty and not s0.temporary
    if state.unary_step:
        if action == NO_UNARY:
            return True
        return action >= actions.first_unary and action < actions.n_actions and not s0.temporary
    if action == SHIFT:
        return not queue_empty and not (s0 is not None and s0.temporary and not s0.head_left)
    if not 3 <= action < actions.first_unary or len(stack) < 2:
        return False
    label, head_left, temporary = actions.decode_binary(action)
    left, right = stack[-2], stack[-1]
    below_temporary = len(stack) > 2 and stack[-3].temporary
    if left.temporary and right.temporary:
        return False
    if left.temporary and not (head_left and label == left.base):
        return False
    if right.temporary and not (not head_left and label == right.base):
        return False
    if temporary and (len(stack) == 2 or below_temporary):
        return head_left and not queue_empty
    return True


def apply(state: State, action: int, actions: Actions, tags) -> State:
    """The state after a valid action (``tags[k]``: word k's tag id)."""
    stack, step = state.stack, state.step + 1
    if action in (NO_UNARY, FINISH):
        return State(state.n, stack, state.next, step)
    if action == SHIFT:
        word = StackNode(state.next, int(tags[state.next]))
        return State(state.n, stack + (word,), state.next + 1, step)
    if action >= actions.first_unary:
        top = stack[-1]
        node = StackNode(top.head, -1, unary=action - actions.first_unary, child=top)
        return State(state.n, stack[:-1] + (node,), state.next, step)
    label, head_left, temporary = actions.decode_binary(action)
    left, right = stack[-2], stack[-1]
    node = StackNode((left if head_left else right).head, -1, base=label, temporary=temporary, head_left=head_left,
                     left=left, right=right)
    return State(state.n, stack[:-2] + (node,), state.next, step)


def oracle(tree: BNode, actions: Actions) -> list[int]:
    """The action sequence that builds a binarized tree (labels must be in ``actions``)."""
    sequence: list[int] = []

    def build(node: BNode) -> None:
        """Actions that build ``node`` (not a unary node) and its main step."""
        if node.is_word:
            sequence.append(SHIFT)
            return
        left, right = node.children
        build_with_unary(left)
        build_with_unary(right)
        sequence.append(actions.binary(actions.label_index[node.label], node.head_left, node.temporary))

    def build_with_unary(node: BNode) -> None:
        if len(node.children) == 1:
            build(node.children[0])
            sequence.append(actions.unary(actions.unary_index[node.label]))
        else:
            build(node)
            sequence.append(NO_UNARY)

    build_with_unary(tree)
    sequence.append(FINISH)
    return sequence


def to_tree(sequence, actions: Actions, forms: list[str], tags: list[str]) -> BNode:
    """The binarized tree an action sequence builds over words ``forms`` tagged ``tags``."""
    stack: list[BNode] = []
    position = 0
    for action in sequence:
        if action == SHIFT:
            stack.append(BNode(tags[position], word=forms[position]))
            position += 1
        elif action in (NO_UNARY, FINISH):
            continue
        elif action >= actions.first_unary:
            stack[-1] = BNode(actions.unaries[action - actions.first_unary], (stack[-1],))
        else:
            label, head_left, temporary = actions.decode_binary(action)
            right = stack.pop()
            stack[-1] = BNode(actions.labels[label], (stack[-1], right), head_left=head_left, temporary=temporary)
    return stack[0]
