"""Tag columns and the k-best tags a tagger leaves in MISC (``TagKBest=NOUN:0.912,PROPN:0.071``).

The parsers read one tag column; a tag lattice reads each word's candidate tags from MISC. Both
the tagger (which writes them) and the parsers (which read them) take these names from here.
"""

from __future__ import annotations

from hetdep.treebank.conllu import MISC, UPOS, XPOS, Sentence

TAG_COLUMNS = {"upos": UPOS, "xpos": XPOS}
KBEST_KEY = "TagKBest"


def parse_kbest(misc: str) -> list[tuple[str, float]]:
    """The (tag, probability) pairs that :meth:`Tagger.tag` wrote to a MISC field ([] if none)."""
    for item in misc.split("|"):
        if item.startswith(KBEST_KEY + "="):
            pairs = [part.rsplit(":", 1) for part in item[len(KBEST_KEY) + 1:].split(",") if part]
            return [(tag, float(p)) for tag, p in pairs]
    return []


def lattice_candidates(sentence: Sentence, column: int) -> list[list[tuple[str, float]]]:
    """Each word's candidate tags with their probabilities, best first: MISC ``TagKBest`` if the
    word has it, else its tag column (probability 1)."""
    out = []
    for tag, misc in zip(sentence.column(column), sentence.column(MISC)):
        listed: dict[str, float] = {}
        for candidate, probability in (parse_kbest(misc) if KBEST_KEY in misc else []):
            listed.setdefault(candidate, probability)
        out.append(list(listed.items()) or [(tag, 1.0)])
    return out
