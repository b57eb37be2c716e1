"""Tag columns, the word columns a tagger can predict, and the k-best tags a tagger leaves in MISC
(``TagKBest=NOUN:0.912,PROPN:0.071``).

The parsers read one tag column; a tag lattice reads each word's candidate tags from MISC. Both
the tagger (which writes them) and the parsers (which read them) take these names from here.
Taggers predict a word column as classes: the column's values, except LEMMA, whose classes are
edit scripts of the form (:mod:`hetdep.treebank.lemma_scripts`).
"""

from __future__ import annotations

import re
from typing import Sequence

from hetdep.treebank.conllu import FEATS, FORM, LEMMA, MISC, UPOS, XPOS, Sentence
from hetdep.treebank.lemma_scripts import apply_script, edit_script

TAG_COLUMNS = {"upos": UPOS, "xpos": XPOS}
WORD_COLUMNS = {**TAG_COLUMNS, "feats": FEATS, "lemma": LEMMA}  # what a tagger can fill, in training order
KBEST_KEY = "TagKBest"
UNANNOTATED = "_"
_FEATURES = re.compile(r"[A-Za-z0-9\[\]]+=[A-Za-z0-9,]+(\|[A-Za-z0-9\[\]]+=[A-Za-z0-9,]+)*")  # UD's FEATS syntax


def word_classes(sentence: Sentence, column: str) -> list[str | None]:
    """Each word's class in a word column (None where the treebank leaves it empty). FEATS "_" is
    a class (no features) once the treebank annotates features at all, which the caller decides
    with :func:`annotated`; a LEMMA "_" is empty unless the form is "_" too."""
    values = sentence.column(WORD_COLUMNS[column])
    if column == "lemma":
        return [None if lemma == UNANNOTATED and form != UNANNOTATED else edit_script(form, lemma)
                for form, lemma in zip(sentence.column(FORM), values)]
    if column == "feats":
        return values
    return [None if value == UNANNOTATED else value for value in values]


def with_word_classes(sentence: Sentence, column: str, classes: Sequence[str]) -> Sentence:
    """The sentence with a word column written from predicted classes."""
    if column == "lemma":
        classes = [lemma_of(form, script) for form, script in zip(sentence.column(FORM), classes)]
    return sentence.with_column(WORD_COLUMNS[column], classes)


def lemma_of(form: str, script: str) -> str:
    """The lemma a LEMMA class gives ("_": a perceptron tagger's class for words the treebank left
    without a lemma)."""
    return UNANNOTATED if script == UNANNOTATED else apply_script(form, script)


def annotated(sentences: Sequence[Sentence], column: str) -> bool:
    """Whether a treebank fills a word column (one value other than "_" is enough)."""
    index = WORD_COLUMNS[column]
    return any(value != UNANNOTATED for sentence in sentences for value in sentence.column(index))


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


def malformed(sentences: Sequence[Sentence], column: str) -> str | None:
    """Where a treebank's FEATS first breaks UD's syntax (``Name=Value|Name=Value``), as
    ``FILE:LINE: ...``; None when every value is well formed (other columns take any value)."""
    if column != "feats":
        return None
    for sentence in sentences:
        for k, value in enumerate(sentence.column(WORD_COLUMNS[column])):
            if value != UNANNOTATED and not _FEATURES.fullmatch(value):
                return f"{sentence.path}:{sentence.word_line(k)}: FEATS {value!r} is not Name=Value pairs joined by '|'"
    return None
