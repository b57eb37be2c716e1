"""Head-driven binarization of bracketed trees, and its inverse.

A shift-reduce constituency parser builds binary trees with unaries of one step each, so a
treebank tree is first rewritten (Zhang & Clark 2009):

- **unary chains collapse**: a phrase with one child, and that child's own chain of one-child
  phrases, become one unary node whose label joins theirs top-down (``S+VP``);
- **wider phrases binarize around their head child** (the head table's choice, as for
  dependency conversion): the siblings right of the head attach first, one at a time, with the
  head on the left; then those left of it, with the head on the right. The intermediate nodes
  are *temporary* (written ``NP*``); the topmost keeps the phrase's label.

:func:`debinarize` splices temporary nodes back into their parents and expands collapsed
chains, giving back the tree :func:`hetdep.treebank.ptb.clean` made: empty elements (``-NONE-``)
and the phrases left empty by them removed, function tags and co-indices stripped (``NP-SBJ-1``
is ``NP``). These are normalizations EVALB applies too, so scores are unchanged by them.
"""

from __future__ import annotations

from dataclasses import dataclass

from hetdep.convert.headrules import HeadTable
from hetdep.errors import HetdepError
from hetdep.treebank.ptb import Node

CHAIN = "+"  # joins the labels of a collapsed unary chain
TEMPORARY = "*"  # marks an intermediate node's label when written out


@dataclass(frozen=True)
class BNode:
    """A node of a binarized tree: a word (``word`` set, ``label`` its POS tag), a unary node (one
    child, ``label`` a collapsed chain) or a binary node (two children, ``head_left`` tells whose
    head it takes; ``temporary`` for an intermediate node of a wider phrase)."""

    label: str
    children: tuple["BNode", ...] = ()
    head_left: bool = True
    temporary: bool = False
    word: str | None = None

    @property
    def is_word(self) -> bool:
        return self.word is not None

    def words(self) -> list["BNode"]:
        if self.is_word:
            return [self]
        return [word for child in self.children for word in child.words()]

    def to_text(self) -> str:
        """Brackets, temporary labels with ``*`` and the head side of binary nodes as ``<`` / ``>``."""
        if self.is_word:
            return f"({self.label} {self.word})"
        mark = (TEMPORARY if self.temporary else "") + ("" if len(self.children) == 1 else "<" if self.head_left else ">")
        return f"({self.label}{mark} " + " ".join(child.to_text() for child in self.children) + ")"


def binarize(root: Node, table: HeadTable) -> BNode:
    """The binarized form of a cleaned tree (see the module docstring)."""
    if root.is_leaf:
        return BNode(root.label, word=root.word)
    chain = []
    node = root
    while not node.is_leaf and len(node.children) == 1:
        chain.append(_checked(node.label))
        node = node.children[0]
    if chain:
        return BNode(CHAIN.join(chain), (binarize(node, table),))
    label = _checked(node.label)
    children = [binarize(child, table) for child in node.children]
    head = table.head_child(node)
    current = children[head]
    right = children[head + 1:]
    left = children[:head]
    steps = [(child, True) for child in right] + [(child, False) for child in reversed(left)]
    for i, (child, head_left) in enumerate(steps):
        pair = (current, child) if head_left else (child, current)
        current = BNode(label, pair, head_left=head_left, temporary=i < len(steps) - 1)
    return current


def _checked(label: str) -> str:
    if CHAIN in label or label.endswith(TEMPORARY) or not label:
        raise HetdepError(f"phrase label {label!r} cannot be binarized: labels must be non-empty and hold no "
                          f"'{CHAIN}' nor end with '{TEMPORARY}' (they mark collapsed unaries and temporary nodes)")
    return label


def debinarize(node: BNode) -> Node:
    """The tree a binarized tree stands for: temporary nodes spliced out, unary chains expanded."""
    if node.is_word:
        return Node(node.label, word=node.word)
    if len(node.children) == 1:
        labels = node.label.split(CHAIN)
        result = debinarize(node.children[0])
        for label in reversed(labels):
            result = Node(label, [result])
        return result
    return Node(node.label, _spliced(node))


def _spliced(node: BNode) -> list[Node]:
    """The children of a binary node, those of its temporary children in their place."""
    children = []
    for child in node.children:
        if child.temporary:
            children.extend(_spliced(child))
        else:
            children.append(debinarize(child))
    return children
