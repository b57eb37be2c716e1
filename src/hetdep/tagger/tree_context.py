"""What a word's tree says of its morphology: the atoms a tagger reading the parse (a FEATS tagger
run after the parser) adds to each word's.

A window of two words either side cannot see what agreement marks: a finite verb's Person and
Number come from its subject wherever that stands (``the people who live here *say*``), an
adjective's Gender from the noun it modifies and that noun's determiner (``une maison *blanche*``),
a pronoun's Case from its relation (``nsubj`` -> ``Nom``). The parse holds them: the word's
relation, its head (form, tag, ending), its subject, its nearest left dependent and its
determiner, and its head's subject and determiner. Relation names are read by their base (before
``:``), so UD (``nsubj``) and SUD (``subj``) trees both give them; a sentence without a tree gives
empty atoms (the tagger then tags from its other features, as one trained without the tree).
"""

from __future__ import annotations

from typing import Sequence

from hetdep.treebank.conllu import Sentence

# The tree atoms' prefixes, in the order hetdep.tagger.templates numbers them after the word's own.
TREE_PREFIXES = ("r", "hl", "hg", "hs", "sj", "lf", "dt", "hj", "hd")
NO_TREE = tuple(f"{prefix}:" for prefix in TREE_PREFIXES)
ROOT = "<root>"


def _base(relation: str) -> str:
    return relation.split(":", 1)[0]


def is_subject(relation: str) -> bool:
    """UD's nsubj and csubj, SUD's subj (with any subtype)."""
    return _base(relation).endswith("subj")


def is_determiner(relation: str) -> bool:
    return _base(relation) == "det"


def has_tree(sentence: Sentence) -> bool:
    """Whether every word has a head and a relation (a parsed or gold sentence, not raw tokens)."""
    return bool(sentence.heads) and all(head >= 0 for head in sentence.heads) and "_" not in sentence.deprels


def tree_strings(sentence: Sentence, given: Sequence[str]) -> list[tuple[str, ...]]:
    """Per word, the strings of its tree atoms (``given``: the words' tags in the column the tagger
    reads, UPOS for a FEATS tagger); :data:`NO_TREE` for each word of a sentence without a tree."""
    n = len(sentence.forms)
    if not has_tree(sentence):
        return [NO_TREE] * n
    lower = [form.lower() for form in sentence.forms]
    relations = sentence.deprels
    heads = [head - 1 for head in sentence.heads]  # 0-based, -1 for the root
    subject = [""] * n
    determiner = [""] * n
    nearest_left = [""] * n
    for k, head in enumerate(heads):
        if head < 0:
            continue
        if is_subject(relations[k]) and not subject[head]:
            subject[head] = lower[k]
        if is_determiner(relations[k]) and not determiner[head]:
            determiner[head] = lower[k]
        if k < head:  # the left dependents come in order: the last one seen is the nearest
            nearest_left[head] = f"{_base(relations[k])}={lower[k]}"
    out = []
    for k, head in enumerate(heads):
        inside = head >= 0
        out.append((f"r:{relations[k]}",
                    f"hl:{lower[head] if inside else ROOT}",
                    f"hg:{given[head] if inside else ROOT}",
                    f"hs:{lower[head][-3:] if inside else ROOT}",
                    f"sj:{subject[k]}",
                    f"lf:{nearest_left[k]}",
                    f"dt:{determiner[k]}",
                    f"hj:{subject[head] if inside else ROOT}",
                    f"hd:{determiner[head] if inside else ROOT}"))
    return out
