"""Feature atoms and the 70 templates of zhang2014 Table 1, with the reference extraction.

Atoms are small integers read off a state (word ids, tag ids, label ids + 1, valencies,
label-set bit masks; 0 means "absent"). A template is a tuple of atoms; its feature is a
64-bit hash of the template id and the atoms' values. Every feature is conjoined with the
action by the model, which keeps one row of scores (one per action) per feature.

The compiled twin (:mod:`hetdep.transition._beam`) fills the same atoms from a compact state and hashes
them with the same arithmetic; tests check both agree atom by atom and hash by hash.
"""

from __future__ import annotations

from hetdep.learn.keys import feature_hash
from hetdep.transition.system import State

ATOMS = (
    "S0w", "S0t", "S1w", "S1t", "N0w", "N0t", "N1w", "N1t",
    "S0lw", "S0lt", "S0ll", "S0rw", "S0rt", "S0rl", "S0l2w", "S0l2t", "S0l2l", "S0r2w", "S0r2t", "S0r2l",
    "S1lw", "S1lt", "S1ll", "S1rw", "S1rt", "S1rl", "S1l2w", "S1l2t", "S1l2l", "S1r2w", "S1r2t", "S1r2l",
    "S0vl", "S0vr", "S1vl", "S1vr", "S0sl", "S0sr", "S1sl", "S1sr",
)
A = {name: i for i, name in enumerate(ATOMS)}

_TEMPLATES_TEXT = """
S0w S0t S0w+S0t S1w S1t S1w+S1t N0w N0t N0w+N0t N1w N1t N1w+N1t
S0w+S1w S0w+S1t S0t+S1w S0t+S1t S0w+N0w S0w+N0t S0t+N0w S0t+N0t
S0lw S0rw S0lt S0rt S0ll S0rl S1lw S1rw S1lt S1rt S1ll S1rl
S0l2w S0r2w S0l2t S0r2t S0l2l S0r2l S1l2w S1r2w S1l2t S1r2t S1l2l S1r2l
S0t+S0lt+S0l2t S0t+S0rt+S0r2t S1t+S1lt+S1l2t S1t+S1rt+S1r2t
S0t+S1t+S0lt S0t+S1t+S0l2t S0t+S1t+S0rt S0t+S1t+S0r2t S0t+S1t+S1lt S0t+S1t+S1l2t S0t+S1t+S1rt S0t+S1t+S1r2t
S0w+S0vl S0t+S0vl S0w+S0vr S0t+S0vr S1w+S1vl S1t+S1vl S1w+S1vr S1t+S1vr
S0w+S0sr S0t+S0sr S0w+S0sl S0t+S0sl S1w+S1sl S1t+S1sl
"""
TEMPLATE_NAMES = tuple(_TEMPLATES_TEXT.split())
TEMPLATES = tuple(tuple(A[atom] for atom in name.split("+")) for name in TEMPLATE_NAMES)


_LABEL_ATOMS = frozenset(A[name] for name in ATOMS if name[2:] in ("ll", "rl", "l2l", "r2l", "sl", "sr"))


def _group_of(template: tuple[int, ...]) -> tuple[str, ...]:
    """Which of S0, S1 and the queue (N0, N1 alike) a template reads, and whether it reads arc labels."""
    elements = sorted({"N" if ATOMS[a].startswith("N") else ATOMS[a][:2] for a in template})
    return tuple(elements) + (("labels",) if _LABEL_ATOMS.intersection(template) else ())


def template_groups(templates: tuple = TEMPLATES) -> tuple[tuple[int, ...], ...]:
    """Template ids grouped by the elements they read (S0 alone, S1 alone, the queue, S0 with
    S1, S0 with the queue) and, apart, those of S0 or S1 that read arc labels; groups in order
    of first appearance, template order within each.

    An item's score is the sum of its groups' scores, each the sum of its templates' rows. The
    items of one beam step share much of their state, so the compiled search computes each
    distinct group's sum once per search (``hetdep.transition._memos``), and the reference sums
    the same way, so that both give the same float32 scores. The labels have groups of their
    own because an arc's label is what most items of a step differ in (the same arc under
    each label): over en-ewt dev at beam 64, S0's 25 templates in one group were computed for
    41% of the items, its 17 without labels for 4.5%, and the search made 16.6M weight
    lookups instead of 39.6M.
    """
    groups: dict[tuple[str, ...], list[int]] = {}
    for t, template in enumerate(templates):
        groups.setdefault(_group_of(template), []).append(t)
    return tuple(tuple(ids) for ids in groups.values())


TEMPLATE_GROUPS = template_groups()

# The joint model's guided atoms (zhang2014 section 3): h_guide, and l_guide of S0 and of S1,
# read off the other scheme's partial tree (see hetdep.joint._search), and their 18 templates.
# Beyond the paper, the "rich" guide adds four atoms, for schemes whose heads move between
# function and content words (UD and SUD): g, how S0 and S1 relate there (also as siblings or
# as grandparent and grandchild); p0 and p1, where S0's and S1's heads are there, relative to
# S1, S0 and the queue; c, whether S0 or S1 has a dependent there still in this scheme's queue.
JOINT_ATOMS = ATOMS + ("h", "l0", "l1", "g", "p0", "p1", "c")
_JA = {name: i for i, name in enumerate(JOINT_ATOMS)}
GUIDED_TEMPLATE_NAMES = tuple("""
S0w+h S0t+h S0w+S0t+h S1w+h S1t+h h
S0w+l0 S0t+l0 S0w+S0t+l0 S1w+l0 S1t+l0 l0
S0w+l1 S0t+l1 S0w+S0t+l1 S1w+l1 S1t+l1 l1
""".split())
RICH_GUIDED_TEMPLATE_NAMES = tuple("""
g S0t+g S1t+g S0t+S1t+g l0+g l1+g
p0 S0t+p0 S0w+p0 l0+p0 p1 S1t+p1 S1w+p1 l1+p1 p0+p1 g+p0+p1
c S0t+c S1t+c g+c c+p0+p1
""".split())
GUIDED_TEMPLATES = tuple(tuple(_JA[atom] for atom in name.split("+")) for name in GUIDED_TEMPLATE_NAMES)
RICH_GUIDED_TEMPLATES = tuple(tuple(_JA[atom] for atom in name.split("+")) for name in RICH_GUIDED_TEMPLATE_NAMES)
# The joint model's guides: which guided templates follow the 70 baseline ones.
GUIDES = {"none": (), "paper": GUIDED_TEMPLATES, "rich": GUIDED_TEMPLATES + RICH_GUIDED_TEMPLATES}
MAX_ATOMS_PER_TEMPLATE = 3

LABEL_BITS = 63  # label sets are bit masks over label id mod 63 (fits a signed 64-bit integer)


def label_bit(label: int) -> int:
    return 1 << (label % LABEL_BITS)


def atoms(state: State, words: list[int], tags: list[int]) -> list[int]:
    """Every atom of a state, computed from its arcs (not from any incremental bookkeeping).

    ``words`` and ``tags`` are id lists indexed by word position, with index 0 the "absent" id 0.
    """
    values = [0] * len(ATOMS)
    s0, s1, n0, n1 = state.S(0), state.S(1), state.N(0), state.N(1)
    for prefix, word in (("S0", s0), ("S1", s1), ("N0", n0), ("N1", n1)):
        values[A[prefix + "w"]] = words[word]
        values[A[prefix + "t"]] = tags[word]
    for prefix, word in (("S0", s0), ("S1", s1)):
        if not word:
            continue
        left, right = state.children(word, left=True), state.children(word, left=False)
        for side, kids in (("l", left), ("r", right)):
            for rank, suffix in ((0, ""), (1, "2")):
                if rank < len(kids):
                    kid = kids[rank]
                    values[A[f"{prefix}{side}{suffix}w"]] = words[kid]
                    values[A[f"{prefix}{side}{suffix}t"]] = tags[kid]
                    values[A[f"{prefix}{side}{suffix}l"]] = state.labels[kid] + 1
            mask = 0
            for kid in kids:
                mask |= label_bit(state.labels[kid])
            values[A[f"{prefix}s{side}"]] = mask
        values[A[prefix + "vl"]] = len(left)
        values[A[prefix + "vr"]] = len(right)
    return values


def features(state: State, words: list[int], tags: list[int]) -> list[int]:
    """The 70 feature keys of a state, in template order."""
    values = atoms(state, words, tags)
    return [feature_hash(t, [values[a] for a in template]) for t, template in enumerate(TEMPLATES)]
