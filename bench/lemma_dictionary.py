"""Lemmas of seen and unseen words, with and without the language's lemma dictionary
(hetdep.tagger.dictionary): a model's lemma tagger on a gold file's words (gold tokens, the
model's own UPOS), split by whether the tagger saw the form in training.

    python bench/lemma_dictionary.py [--model MODEL] --gold test.ud.conllu [--language fr]
"""

from __future__ import annotations

import argparse

from hetdep.models.names import find_model
from hetdep.models.opening import open_models
from hetdep.treebank.conllu import LEMMA, UPOS, read_conllu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="a model with a lemma tagger (default: the shipped one)")
    parser.add_argument("--gold", required=True)
    parser.add_argument("--language", default="fr", help="the dictionary's language")
    args = parser.parse_args()
    models = open_models(find_model(args.model))
    tagger = next(tagger for tagger in models.taggers if tagger.column == "lemma")
    gold = list(read_conllu(args.gold))
    parsed = [trees[0] if isinstance(trees, tuple) else trees for trees in models.parse(gold)]
    tagged_input = [g.with_column(UPOS, p.column(UPOS)) for g, p in zip(gold, parsed)]  # the model's UPOS, as parsing gives it
    for dictionary in (None, args.language):
        tagger.dictionary = dictionary
        counts = {"seen": [0, 0], "unseen": [0, 0]}
        for sentence, tagged in zip(gold, tagger.tag(tagged_input)):
            for form, right, lemma in zip(sentence.forms, sentence.column(LEMMA), tagged.column(LEMMA)):
                count = counts["seen" if tagger.has_seen(form) else "unseen"]
                count[0] += 1
                count[1] += lemma == right
        words = sum(n for n, _ in counts.values())
        print(f"dictionary {dictionary or 'none'}: " + ", ".join(f"{name} {100 * right / n:.2f}% of {n:,}" for name, (n, right)
                                                                  in counts.items())
              + f", all {100 * sum(r for _, r in counts.values()) / words:.2f}%")


if __name__ == "__main__":
    main()
