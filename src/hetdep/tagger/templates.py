"""The tagger's feature templates and atoms: what its compiled search (:mod:`hetdep.tagger._search`)
and its plain-Python reference (:mod:`hetdep.tagger.reference`) both read, kept apart from either
so that a model loads without numba.

Each word has ``N_ATOMS`` integer atoms (word, lower-cased word, prefixes, suffixes, shape,
ambiguity class, the tag another tagger gave it; see :mod:`hetdep.tagger.tagger`). Static
templates read atoms at offsets -2..+2 and are scored once per word; the tag templates add the
previous one or two tags, scored per beam item. Tag k is weight column k + 2.
"""

from __future__ import annotations

import numpy as np

N_ATOMS = 26
W, L, P1, P2, P3, S1, S2, S3, S4, SHAPE, CLASS, P4, S5, GIVEN, CASING = range(15)
# The tree's atoms (hetdep.tagger.tree_context, in its TREE_PREFIXES order): the word's relation,
# its head's lower-cased form, tag and ending, its subject, nearest left dependent and determiner,
# its head's subject and determiner. Empty for a tagger that does not read the tree.
REL, HEAD, HEAD_TAG, HEAD_END, SUBJ, LEFT, DET, HEAD_SUBJ, HEAD_DET = range(15, 24)
# The inflection lexicon's atoms (hetdep.tagger.inflections): the form's nominal and verbal
# readings. Empty for a tagger that reads no lexicon.
NOMINAL, VERBAL = range(24, N_ATOMS)
FIRST_TAG_COLUMN = 2
NO_TAG = 0  # the "tag" before the sentence's first word; real tags are 1..n_tags

# Static templates: up to three (offset, atom) pairs, read at offsets -2..+2 from the word.
_STATIC = (
    (),  # bias
    ((0, W),),
    ((0, L),),
    ((0, P1),),
    ((0, P2),),
    ((0, P3),),
    ((0, S1),),
    ((0, S2),),
    ((0, S3),),
    ((0, S4),),
    ((0, SHAPE),),
    ((-1, L),),
    ((1, L),),
    ((-2, L),),
    ((2, L),),
    ((-1, S3),),
    ((1, S3),),
    ((-1, L), (0, L)),
    ((0, L), (1, L)),
    ((-1, SHAPE), (0, SHAPE), (1, SHAPE)),
    ((0, S3), (1, L)),
    ((-1, L), (0, S3)),
    ((0, CLASS),),
    ((1, CLASS),),
    ((2, CLASS),),
    ((0, CLASS), (1, CLASS)),
    ((0, L), (1, CLASS)),
    ((1, CLASS), (2, CLASS)),
    ((-1, L), (0, CLASS)),
    ((0, L), (2, L)),
    ((-2, L), (0, L)),
    ((1, L), (2, L)),
    ((-1, SHAPE), (0, SHAPE)),
    ((0, P4),),
    ((0, S5),),
    ((0, GIVEN),),  # the tag a tagger run before gave (a FEATS or LEMMA tagger reads UPOS); constant otherwise
    ((0, GIVEN), (0, L)),
    ((0, GIVEN), (0, S3)),
    ((0, GIVEN), (0, S5)),
    ((-1, GIVEN), (0, GIVEN)),
    ((0, GIVEN), (1, GIVEN)),
    # Appended later: a model keeps the templates it was trained with, these up to FIRST_TEMPLATES or more.
    ((0, CASING), (0, GIVEN)),  # the whole word's casing; SHAPE stops at 8 kinds (a URL's capitals)
)
FIRST_TEMPLATES = 41  # the templates of the first tagger models
UNUSED = 9  # the offset of a padding pair
# A tagger reading the tree (a FEATS tagger after the parser) has these after the static ones: each
# tree atom with the word's tag (UPOS), and a few with its form.
_TREE = (
    ((0, REL), (0, GIVEN)),
    ((0, REL), (0, L)),
    ((0, HEAD), (0, GIVEN)),
    ((0, HEAD_TAG), (0, REL), (0, GIVEN)),
    ((0, HEAD_END), (0, GIVEN)),
    ((0, SUBJ), (0, GIVEN)),
    ((0, SUBJ), (0, L)),
    ((0, LEFT), (0, GIVEN)),
    ((0, DET), (0, GIVEN)),
    ((0, DET), (0, S2)),
    ((0, HEAD_SUBJ), (0, GIVEN)),
    ((0, HEAD_DET), (0, GIVEN)),
    ((0, HEAD_DET), (0, HEAD_END), (0, GIVEN)),
)
# A tagger reading an inflection lexicon has these last: each reading with the word's tag, and with
# its ending (a reading the lexicon gives many endings).
_INFLECTIONS = (
    ((0, NOMINAL), (0, GIVEN)),
    ((0, VERBAL), (0, GIVEN)),
    ((0, NOMINAL), (0, GIVEN), (0, S2)),
    ((0, VERBAL), (0, GIVEN), (0, S2)),
)


def _array(templates: tuple) -> np.ndarray:
    return np.array([list(t) + [(UNUSED, 0)] * (3 - len(t)) for t in templates], dtype=np.int64)


STATIC_TEMPLATES = _array(_STATIC)
TREE_TEMPLATES = _array(_STATIC + _TREE)  # the static ones, then the tree's


def templates_for(reads_tree: bool, inflections: bool) -> np.ndarray:
    """A tagger's full template set: the static ones, the tree's if it reads the tree, the
    inflection lexicon's if it reads one."""
    return _array(_STATIC + (_TREE if reads_tree else ()) + (_INFLECTIONS if inflections else ()))


# Tag templates: previous tag; two previous tags; previous tag with the word; with its suffix;
# with the next word's ambiguity class.
N_TAG_TEMPLATES = 6
