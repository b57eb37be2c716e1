"""Projectivity: detection, and pseudo-projective transformation (Nivre & Nilsson 2005).

Projective parsers cannot build crossing arcs. ``projectivize`` lifts each non-projective
arc to the head's head until the tree is projective, and encodes what it did in the labels,
so that ``deprojectivize`` can move the lifted words back after parsing.

Encodings (Nivre & Nilsson 2005, section 3):

- ``head``: a lifted arc ``d`` becomes ``d^h``, where ``h`` is the label of the word's
  original head. Deprojectivizing searches below the new head, breadth first and left to
  right, for a word labelled ``h``.
- ``head+path`` (default): as ``head``, and every arc on the lifting path also gets a ``~``
  mark (``p~``), so the search follows only marked arcs, which is more exact.

Heads are 1-based word indices with 0 for the root; lists are indexed by word - 1.
"""

from __future__ import annotations

from collections import deque

LIFT = "^"
PATH = "~"
ENCODINGS = ("head", "head+path")


def _dominates(heads: list[int], ancestor: int, node: int) -> bool:
    while node != 0:
        if node == ancestor:
            return True
        node = heads[node - 1]
    return ancestor == 0


def is_projective_arc(heads: list[int], dependent: int) -> bool:
    """True when the head of ``dependent`` dominates every word strictly between them."""
    head = heads[dependent - 1]
    low, high = (head, dependent) if head < dependent else (dependent, head)
    return all(_dominates(heads, head, k) for k in range(low + 1, high))


def non_projective_arcs(heads: list[int]) -> list[int]:
    """Dependents (1-based) whose arc crosses another, in order."""
    return [d for d in range(1, len(heads) + 1) if not is_projective_arc(heads, d)]


def is_projective(heads: list[int]) -> bool:
    """True when no two arcs cross (the root counts as a word at position 0)."""
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads, 1)]
    # Two arcs cross when exactly one end of one lies strictly inside the other.
    arcs.sort()
    for i, (l1, r1) in enumerate(arcs):
        for l2, r2 in arcs[i + 1:]:
            if l2 >= r1:
                break
            if l1 < l2 < r1 < r2:
                return False
    return True


def projectivize(heads: list[int], labels: list[str], encoding: str = "head+path") -> tuple[list[int], list[str]]:
    """Lift non-projective arcs (shortest first) until the tree is projective; encode lifts in labels."""
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; choose from {ENCODINGS}")
    for label in labels:
        if LIFT in label or PATH in label:
            raise ValueError(f"label {label!r} already holds {LIFT!r} or {PATH!r}, which mark lifted arcs")
    heads = list(heads)
    labels = list(labels)
    original_head_label: dict[int, str] = {}
    path_marked: set[int] = set()
    while True:
        crossing = non_projective_arcs(heads)
        if not crossing:
            break
        # Lift the shortest non-projective arc (leftmost on ties), as Nivre & Nilsson do.
        dependent = min(crossing, key=lambda d: (abs(heads[d - 1] - d), d))
        head = heads[dependent - 1]
        if dependent not in original_head_label:
            original_head_label[dependent] = labels[head - 1]
        path_marked.add(head)
        heads[dependent - 1] = heads[head - 1]
    for dependent, head_label in original_head_label.items():
        labels[dependent - 1] = f"{labels[dependent - 1]}{LIFT}{head_label}"
    if encoding == "head+path":
        for node in path_marked:
            labels[node - 1] += PATH
    return heads, labels


def _split(label: str) -> tuple[str, str | None, bool]:
    """A transformed label as (original label, head label of a lifted arc or None, on a path)."""
    on_path = label.endswith(PATH)
    if on_path:
        label = label[: -len(PATH)]
    base, lift, head_label = label.partition(LIFT)
    return base, (head_label if lift else None), on_path


def deprojectivize(heads: list[int], labels: list[str]) -> tuple[list[int], list[str]]:
    """Undo :func:`projectivize` as well as the labels allow; works on parser output too.

    Lifted arcs are processed top-down (shallowest first). For each, the new head is searched
    breadth first, left to right, below the current head, not inside the lifted word's own
    subtree: first among words on a marked path (``head+path``), then among all words
    (``head``). Where nothing fits, the arc stays where it is. All marks are removed.
    """
    if not any(LIFT in label or PATH in label for label in labels):
        return list(heads), list(labels)  # nothing was lifted (most trees)
    n = len(heads)
    heads = list(heads)
    parts = [_split(label) for label in labels]
    children: list[list[int]] = [[] for _ in range(n + 1)]
    for d, h in enumerate(heads, 1):
        children[h].append(d)

    def depth(node: int) -> int:
        steps = 0
        while node != 0 and steps <= n:
            node = heads[node - 1]
            steps += 1
        return steps

    lifted = sorted((d for d in range(1, n + 1) if parts[d - 1][1] is not None), key=lambda d: (depth(d), d))
    for dependent in lifted:
        wanted = parts[dependent - 1][1]
        start = heads[dependent - 1]
        target = _search(children, parts, start, dependent, wanted, marked_only=True)
        if target is None:
            target = _search(children, parts, start, dependent, wanted, marked_only=False)
        if target is not None:
            children[heads[dependent - 1]].remove(dependent)
            heads[dependent - 1] = target
            children[target].append(dependent)
            children[target].sort()
    return heads, [base for base, _, _ in parts]


def _search(children, parts, start, dependent, wanted, marked_only):
    queue = deque(c for c in children[start] if c != dependent)
    while queue:
        node = queue.popleft()
        base, _, on_path = parts[node - 1]
        if marked_only and not on_path:
            continue
        if base == wanted:
            return node
        queue.extend(c for c in children[node] if c != dependent)
    return None
