"""A language's inflection lexicon: what each form can be, for a FEATS tagger's unseen words.

A treebank of 50,000 words meets most nouns once or never, and a noun's gender is in the word,
not its ending or its context (``les troupes``, ``la voix``): the FEATS tagger guessed it from the
suffix. A lexicon of the language's forms says it: each lower-cased form's genders and numbers as
a noun, adjective or participle (``NOM:f:p``) and its moods, tenses and persons as a verb
(``ind:pre:3s``), two atoms of the word (with the word's UPOS in the tagger's templates), so the
tagger learns how far to trust them beside its other features. French ships one, made from
Lexique 3.83 by bench/inflections_from_lexique.py (samples/lexicons/fr/README.md).

The file is a gzip of the sorted forms, a line each, a blank line, and each form's two readings
(``nominal<TAB>verbal``), a line each: looked up by binary search where they lie
(hetdep.sorted_lines), no dict of French's 123,395 forms at each start.
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path

from hetdep.sorted_lines import Lines, find

LEXICONS = Path(__file__).resolve().parents[1] / "samples" / "lexicons"
FILE = "inflections.gz"
PREFIXES = ("in", "iv")  # the atoms' strings: nominal readings, verbal readings
NO_INFLECTIONS = tuple(f"{prefix}:" for prefix in PREFIXES)
UNLISTED = tuple(f"{prefix}:?" for prefix in PREFIXES)


def inflections_blob(entries: dict[str, tuple[str, str]]) -> bytes:
    """The file's content (before gzip) for form -> (nominal readings, verbal readings)."""
    forms = sorted(word.encode("utf-8") for word in entries)
    if any(b"\n" in form or b"\t" in form or not form for form in forms):
        raise ValueError("a form that is empty or holds a line break or a tab")
    readings = [("\t".join(entries[form.decode("utf-8")])).encode("utf-8") for form in forms]
    return b"\n".join(forms) + b"\n\n" + b"\n".join(readings)


class InflectionLexicon:
    """One language's forms and their readings, read from ``path``."""

    def __init__(self, path: Path):
        blob = gzip.decompress(path.read_bytes())
        forms, _, readings = blob.partition(b"\n\n")
        self._forms, self._readings = Lines(forms), Lines(readings)
        if len(self._forms) != len(self._readings):
            raise ValueError(f"{path}: as many readings as forms expected")

    def __len__(self) -> int:
        return len(self._forms)

    def strings(self, form: str) -> tuple[str, str]:
        """The word's two atom strings: its readings, or ``?`` where the lexicon lacks the form."""
        k = find(self._forms, form.lower().encode("utf-8"))
        if k is None:
            return UNLISTED
        nominal, _, verbal = self._readings[k].decode("utf-8").partition("\t")
        return f"in:{nominal}", f"iv:{verbal}"


def has_inflections(language: str | None) -> bool:
    """Whether hetdep ships an inflection lexicon for ``language`` (a two-letter code)."""
    return bool(language) and (LEXICONS / str(language) / FILE).is_file()


@functools.cache
def inflection_lexicon(language: str) -> InflectionLexicon:
    """The shipped lexicon of ``language`` (read once per process)."""
    return InflectionLexicon(LEXICONS / language / FILE)
