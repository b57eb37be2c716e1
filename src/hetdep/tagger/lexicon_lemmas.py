"""A language's lemmas by part of speech, for the lemma tagger's unseen words.

simplemma's dictionary (:mod:`hetdep.tagger.dictionary`) gives each form one lemma whatever its
part of speech, so the dictionary is only asked when the tagger makes no real lemma. On an unseen
form the tagger may make a real one of another part of speech (``pleut`` -> ``pleur``, the noun,
on a word it tagged VERB), and nothing corrected it. A lexicon that gives each form's lemmas as a
noun, verb, adjective or adverb does: an unseen word whose lemma is not among the lexicon's for
its UPOS takes the lexicon's likeliest (the most frequent in the lexicon's corpora). French ships
one, made from Lexique 3.83 by bench/lexicons_from_lexique.py (samples/lexicons/fr/README.md).

Measured with the model shipped before it (``python bench/lemma_dictionary.py --model M --gold
FILE``, gold tokens, the model's UPOS), unseen words' lemmas: fr-sequoia dev 92.29% -> 93.16%,
test 93.31% -> 93.87%; fr-parisstories dev 93.78% -> 93.99%, test 91.79% -> 93.47%; fr-gsd test
91.42% -> 91.98%. Asked of seen words too it lost 0.1 on them (fr-sequoia dev 99.48% -> 99.34%):
the tagger knows its treebank's conventions better than the lexicon.
"""

from __future__ import annotations

import functools

from hetdep.sorted_lines import Table, table_blob
from hetdep.tagger.inflections import LEXICONS
from hetdep.user_cache import gunzipped

FILE = "lemmas.gz"
ASKED = {"VERB": ("VERB",), "AUX": ("AUX", "VERB"), "NOUN": ("NOUN",), "ADJ": ("ADJ",), "ADV": ("ADV",)}
"""Per UPOS, the lexicon's parts of speech asked, in turn (an auxiliary of the treebank, such as
``pourrait``, may be a verb only in the lexicon)."""


def lemmas_blob(entries: dict[str, dict[str, list[str]]]) -> bytes:
    """The file's content (before gzip) for form -> UPOS -> its lemmas, likeliest first."""
    if any(not lemma or set(lemma) & set("|\t:\n") for by_upos in entries.values() for lemmas in by_upos.values()
           for lemma in lemmas):
        raise ValueError("a lemma that is empty or holds '|', ':', a tab or a line break")
    return table_blob({form: "\t".join(f"{upos}:{'|'.join(lemmas)}" for upos, lemmas in sorted(by_upos.items()))
                       for form, by_upos in entries.items()})


class LexiconLemmas:
    """One language's forms and their lemmas by part of speech, from a lemmas_blob."""

    def __init__(self, blob: bytes, name: str):
        self._table = Table(blob, name)

    def __len__(self) -> int:
        return len(self._table)

    def lemmas(self, form: str, upos: str) -> tuple[str, ...]:
        """The lexicon's lemmas of the lower-cased form as ``upos`` (likeliest first), or none."""
        value = self._table.get(form.lower())
        if value is None:
            return ()
        by_upos = dict(field.split(":", 1) for field in value.split("\t"))
        for asked in ASKED.get(upos, ()):
            if asked in by_upos:
                return tuple(by_upos[asked].split("|"))
        return ()

    def chosen(self, form: str, upos: str, lemma: str) -> str | None:
        """Where the lexicon knows the form as ``upos``: the tagger's ``lemma`` if it is one of its
        lemmas (whatever its case), else the lexicon's likeliest; None where it does not know it."""
        known = self.lemmas(form, upos)
        if not known:
            return None
        return lemma if lemma in known or lemma.lower() in known else known[0]


@functools.cache
def lexicon_lemmas(language: str | None) -> LexiconLemmas | None:
    """The shipped lemmas of ``language`` (a two-letter code; read once per process, inflated once
    per user), or None."""
    if not language or not (path := LEXICONS / language / FILE).is_file():
        return None
    return LexiconLemmas(gunzipped(path), str(path))
