"""Each treebank's own sentence-end bias in a tokenizer shared by several (what `hetdep train
--treebank` fits): for each treebank, the bias fitted on its dev file and its test Sentences F1
before and after (the tokenizer's own boundary scorer, paragraph breaks ending sentences).

    python bench/sentence_end_bias.py --model MODEL NAME=DEV:TEST [NAME=DEV:TEST ...]

The shipped model (`fr`): fr-sequoia, fr-gsd (its tuning tenth of the dev file) and fr-parisstories.
"""

from __future__ import annotations

import argparse

from hetdep.models.names import find_model
from hetdep.tokenizer.learning import dev_scores, fit_sentence_end_bias
from hetdep.tokenizer.text import gold_text
from hetdep.tokenizer.tokenizer import Tokenizer
from hetdep.treebank.conllu import read_conllu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="a model with a tokenizer (default: the shipped one)")
    parser.add_argument("sets", nargs="+", help="NAME=DEV.conllu:TEST.conllu")
    args = parser.parse_args()
    tokenizer = Tokenizer.load(find_model(args.model) / "tokenizer")
    for item in args.sets:
        name, _, files = item.partition("=")
        dev, _, test = files.partition(":")
        dev_gold, test_gold = gold_text(list(read_conllu(dev))), gold_text(list(read_conllu(test)))
        dev_arrays, test_arrays = tokenizer.words.arrays(dev_gold.text), tokenizer.words.arrays(test_gold.text)
        before = dev_scores(tokenizer.weights, test_arrays, test_gold, tokenizer.words)["sentences"]
        moved, bias, fitted = fit_sentence_end_bias(tokenizer.weights, dev_arrays, dev_gold, tokenizer.words)
        after = dev_scores(moved, test_arrays, test_gold, tokenizer.words)["sentences"]
        print(f"{name}: bias {bias:+g} (dev Sentences F1 {fitted['sentences']:.2f}); test Sentences F1 "
              f"{before:.2f} -> {after:.2f}")


if __name__ == "__main__":
    main()
