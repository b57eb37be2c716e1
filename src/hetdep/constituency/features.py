"""Feature atoms and templates: the 43 of Zhu et al. (2013), as mi-huang2015's Table 1 lists them,
and the 59 of ZPar's implementation (the default), with the reference extraction from a
:class:`hetdep.constituency.system.State`.

Atoms (32): for stack nodes s0..s3 the head word ``w``, head tag ``t`` and constituent ``c``; for
queue words q0..q3 the word and tag; for s0 and s1 the left and right child (``l``, ``r``) of a
binary node and the child ``u`` of a unary node, each with its head word and constituent. A
constituent is a code telling a word's tag, a phrase label (with its temporary mark) and a
unary chain apart; 0 means "absent". A template's feature is the 64-bit hash of its id and its
atoms (:mod:`hetdep.learn.keys`), conjoined with the action by the model's rows of scores.

The compiled twin (:mod:`hetdep.constituency._search`) fills the same atoms from its node pool;
tests check both agree key by key on real sentences.
"""

from __future__ import annotations

from hetdep.constituency.system import StackNode, State
from hetdep.learn.keys import feature_hash

ATOMS = (
    "s0w", "s0t", "s0c", "s1w", "s1t", "s1c", "s2w", "s2t", "s2c", "s3w", "s3t", "s3c",
    "q0w", "q0t", "q1w", "q1t", "q2w", "q2t", "q3w", "q3t",
    "s0lw", "s0lc", "s0rw", "s0rc", "s0uw", "s0uc", "s1lw", "s1lc", "s1rw", "s1rc", "s1uw", "s1uc",
)
A = {name: i for i, name in enumerate(ATOMS)}
QUEUE_FIRST, QUEUE_STOP = A["q0w"], A["q3t"] + 1  # the queue's atoms, q0w..q3t, side by side
QUEUE_ATOMS = frozenset(range(QUEUE_FIRST, QUEUE_STOP))

# Zhu et al. (2013), Table 1 of mi-huang2015: 43 templates.
_ZHU_2013 = """
s0t+s0c s0w+s0c s1t+s1c s1w+s1c s2t+s2c s2w+s2c s3t+s3c
q0w+q0t q1w+q1t q2w+q2t q3w+q3t
s0lw+s0lc s0rw+s0rc s0uw+s0uc s1lw+s1lc s1rw+s1rc s1uw+s1uc
s0w+s1w s0w+s1c s0c+s1w s0c+s1c
s0w+q0w s0w+q0t s0c+q0w s0c+q0t
q0w+q1w q0w+q1t q0t+q1w q0t+q1t
s1w+q0w s1w+q0t s1c+q0w s1c+q0t
s0c+s0lc+s1c s0c+s0rc+s1c
s0c+s1c+s2c s0w+s1c+s2c s0c+s1w+s2c s0c+s1c+s2w
s0c+s1c+q0t s0w+s1c+q0t s0c+s1w+q0t s0c+s1c+q0w
"""
# As ZPar's conparser conjoins them (59): each bigram and trigram feature with both nodes'
# constituents or tags (``s0w+s0c+q0t`` where the paper has ``s0w+q0t``), s0 with the next two
# words, the stack tops' three tags, s3's word, s0 with s1's right child.
_ZPAR = """
s0t+s0c s0w+s0c s0w+s0t s0c s1t+s1c s1w+s1c s1w+s1t s1c s2t+s2c s2w+s2c s3t+s3c s3w+s3c
q0w+q0t q1w+q1t q2w+q2t q3w+q3t
s0lw+s0lc s0rw+s0rc s0uw+s0uc s1lw+s1lc s1rw+s1rc s1uw+s1uc
s0w+s0c+s1w+s1c s1w+s0c+s1c s0w+s0c+s1c s0c+s1c
s0w+s0c+q0w+q0t q0w+s0c+q0t s0w+s0c+q0t s0c+q0t
s1w+s1c+q0w+q0t q0w+s1c+q0t s1w+s1c+q0t s1c+q0t
q0w+q0t+q1w+q1t q1w+q0t+q1t q0w+q0t+q1t q0t+q1t
s0w+s0c+s1c+q0t s1w+s0c+s1c+q0t q0w+s0c+s1c+q0t s0c+s1c+q0t s0t+s1t+q0t
s0w+s0c+q0t+q1t q0w+s0c+q0t+q1t q1w+s0c+q0t+q1t s0c+q0t+q1t s0t+q0t+q1t
s0w+s0c+s1c+s2c s1w+s0c+s1c+s2c s2w+s0c+s1c+s2c s0c+s1c+s2c s0t+s1t+s2t
s0c+s0rc+q0t s0c+s0rc+q0w s0c+s0lc+s1c s0c+s0lc+s1w s0c+s1c+s1rc s0w+s1c+s1rc
"""
# The template sets a model can be trained with, by name; a model records its set's name.
TEMPLATE_SETS = {name: tuple(text.split()) for name, text in (("zhu2013", _ZHU_2013), ("zpar", _ZPAR))}
DEFAULT_TEMPLATES = "zpar"  # dev +1.0 F1, test +1.2 F1 with Collins' head table (docs/archive.md)


def recorded_template_set(config: dict) -> str:
    """The template set a model's config.json names; models of before the choice name none and had Zhu et al.'s."""
    return str(config.get("template_set", "zhu2013"))


def templates_of(name: str) -> tuple[tuple[int, ...], ...]:
    """The atom ids of each template of a named set."""
    return tuple(tuple(A[atom] for atom in template.split("+")) for template in TEMPLATE_SETS[name])


TEMPLATES = templates_of(DEFAULT_TEMPLATES)
MAX_ATOMS_PER_TEMPLATE = max(len(template.split("+")) for names in TEMPLATE_SETS.values() for template in names)

# Constituent codes: which kind of node, in the bits above KIND_SHIFT.
KIND_SHIFT = 20
WORD_KIND, PHRASE_KIND, UNARY_KIND = 1, 2, 3


def constituent(node: StackNode) -> int:
    """The ``c`` atom of a node."""
    if node.tag >= 0:
        return (WORD_KIND << KIND_SHIFT) + node.tag
    if node.child is not None:
        return (UNARY_KIND << KIND_SHIFT) + node.unary
    return (PHRASE_KIND << KIND_SHIFT) + 2 * node.base + node.temporary


def atoms(state: State, words, tags) -> list[int]:
    """The 32 atoms of a state, in the order of ``ATOMS`` (``words``/``tags``: ids, index k for word k)."""
    out = [0] * len(ATOMS)
    stack = state.stack
    for i in range(4):
        if len(stack) > i:
            node = stack[-1 - i]
            out[3 * i: 3 * i + 3] = [int(words[node.head]), int(tags[node.head]), constituent(node)]
    for j in range(4):
        k = state.next + j
        if k <= state.n:
            out[12 + 2 * j: 14 + 2 * j] = [int(words[k]), int(tags[k])]
    for i in range(2):
        if len(stack) > i:
            node = stack[-1 - i]
            for c, child in enumerate((node.left, node.right, node.child)):
                if child is not None:
                    at = 20 + 6 * i + 2 * c
                    out[at: at + 2] = [int(words[child.head]), constituent(child)]
    return out


def feature_keys(values: list[int], templates=TEMPLATES) -> list[int]:
    """The keys of every template's feature over these atoms, in template order."""
    return [feature_hash(t, [values[a] for a in template]) for t, template in enumerate(templates)]
