"""The FEATS tagger with and without the inflection lexicon (hetdep.tagger.inflections), as a
neural model's pipeline trains it (reading UPOS and the tree, gold in training), scored on a
treebank's dev and test files with their gold UPOS and trees: FEATS accuracy of all words and of
the words the training file never had.

    python bench/inflection_lexicon.py --treebank ../shared/data/fr-sequoia --scheme sud [--language fr]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hetdep.models.pipeline import MORPHOLOGY_BEAM
from hetdep.tagger.tagger import Tagger
from hetdep.tagger.training import TaggerOptions, train_tagger
from hetdep.treebank.conllu import FEATS, Sentence, read_conllu


def accuracy(tagger: Tagger, gold: list[Sentence]) -> tuple[float, float, int]:
    """FEATS accuracy (%) of all words and of those the tagger never saw, and how many those were."""
    right = total = unseen_right = unseen = 0
    for g, p in zip(gold, tagger.tag(gold), strict=True):
        for form, a, b in zip(g.forms, g.column(FEATS), p.column(FEATS)):
            total += 1
            right += a == b
            if not tagger.has_seen(form):
                unseen += 1
                unseen_right += a == b
    return 100 * right / total, 100 * unseen_right / max(unseen, 1), unseen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--treebank", type=Path, required=True, help="a folder with train, dev and test files")
    parser.add_argument("--scheme", default="ud", help="which files: train.SCHEME.conllu, ...")
    parser.add_argument("--train-file", type=Path, help="another training file (default: the folder's)")
    parser.add_argument("--dev-file", type=Path, help="another dev file (default: the folder's)")
    parser.add_argument("--language", default="fr")
    args = parser.parse_args()
    train = list(read_conllu(args.train_file or args.treebank / f"train.{args.scheme}.conllu"))
    dev = list(read_conllu(args.dev_file or args.treebank / f"dev.{args.scheme}.conllu"))
    test = list(read_conllu(args.treebank / f"test.{args.scheme}.conllu"))
    print(f"| {args.treebank.name} {args.scheme} | dev FEATS | dev unseen | test FEATS | test unseen | training |")
    print("|---|---|---|---|---|---|")
    for inflections in (None, args.language):
        start = time.perf_counter()
        tagger = train_tagger(train, dev, TaggerOptions(column="feats", reads="upos", reads_tree=True,
                                                        inflections=inflections)).parser
        tagger.set_beam(MORPHOLOGY_BEAM)
        minutes = (time.perf_counter() - start) / 60
        dev_all, dev_unseen, dev_n = accuracy(tagger, dev)
        test_all, test_unseen, test_n = accuracy(tagger, test)
        print(f"| {'with the ' + inflections + ' lexicon' if inflections else 'without'} | {dev_all:.2f} | "
              f"{dev_unseen:.2f} ({dev_n}) | {test_all:.2f} | {test_unseen:.2f} ({test_n}) | {minutes:.1f} min |", flush=True)


if __name__ == "__main__":
    main()
