"""A language's inflection lexicon: what each form can be, for a FEATS tagger's unseen words.

A treebank of 50,000 words meets most nouns once or never, and a noun's gender is in the word,
not its ending or its context (``les troupes``, ``la voix``): the FEATS tagger guessed it from the
suffix. A lexicon of the language's forms says it: each lower-cased form's genders and numbers as
a noun, adjective or participle (``NOM:f:p``) and its moods, tenses and persons as a verb
(``ind:pre:3s``), two atoms of the word (with the word's UPOS in the tagger's templates), so the
tagger learns how far to trust them beside its other features. French ships one, made from
Lexique 3.83 by bench/lexicons_from_lexique.py (samples/lexicons/fr/README.md).

The file is a gzip of the sorted forms, a line each, a blank line, and each form's two readings
(``nominal<TAB>verbal``), a line each: looked up by binary search where they lie
(hetdep.sorted_lines), no dict of French's 123,395 forms at each start.
"""

from __future__ import annotations

import functools
from pathlib import Path

from hetdep.sorted_lines import Table, table_blob
from hetdep.user_cache import gunzipped

LEXICONS = Path(__file__).resolve().parents[1] / "samples" / "lexicons"
FILE = "inflections.gz"
PREFIXES = ("in", "iv")  # the atoms' strings: nominal readings, verbal readings
NO_INFLECTIONS = tuple(f"{prefix}:" for prefix in PREFIXES)
UNLISTED = tuple(f"{prefix}:?" for prefix in PREFIXES)


def inflections_blob(entries: dict[str, tuple[str, str]]) -> bytes:
    """The file's content (before gzip) for form -> (nominal readings, verbal readings)."""
    return table_blob({form: "\t".join(readings) for form, readings in entries.items()})


class InflectionLexicon:
    """One language's forms and their readings, from the file's content (inflated) ``blob``."""

    def __init__(self, blob: bytes, name: str):
        self._table = Table(blob, name)

    def __len__(self) -> int:
        return len(self._table)

    def strings(self, form: str) -> tuple[str, str]:
        """The word's two atom strings: its readings, or ``?`` where the lexicon lacks the form."""
        readings = self._table.get(form.lower())
        if readings is None:
            return UNLISTED
        nominal, _, verbal = readings.partition("\t")
        return f"in:{nominal}", f"iv:{verbal}"


def has_inflections(language: str | None) -> bool:
    """Whether hetdep ships an inflection lexicon for ``language`` (a two-letter code)."""
    return bool(language) and (LEXICONS / str(language) / FILE).is_file()


@functools.cache
def inflection_lexicon(language: str) -> InflectionLexicon:
    """The shipped lexicon of ``language`` (read once per process, inflated once per user)."""
    path = LEXICONS / language / FILE
    return InflectionLexicon(gunzipped(path), str(path))
