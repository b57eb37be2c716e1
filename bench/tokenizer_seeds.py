"""The tokenizer alone on a treebank's dev and test text, over several seeds (its Sentences F1
moves by a point or more from one seed to the next, so one run decides nothing), for each choice
of ``--shares`` (the shares of training sentences that lose their final punctuation; several
shares at once let dev choose, as ``hetdep train`` does).

    python bench/tokenizer_seeds.py --train TRAIN [--text OTHER ...] --dev DEV --test TEST \\
        [--seeds 5] [--shares 0 --shares 0,0.3] [--embeddings VECTORS]

The text given to the tokenizer is what ``bench/raw_text.py`` gives a model (each sentence's
``# text``, a blank line at ``# newpar``/``# newdoc``); scores are the CoNLL 2018 Tokens and
Sentences F1 (``hetdep.evaluation.conll18``), mean and range over the seeds. ``--embeddings``:
the tokenizer reads the clusters of these word vectors (``hetdep.learn.clusters``, seed 1).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from hetdep.evaluation.conll18 import evaluate_conll18
from hetdep.learn.clusters import WordClusters
from hetdep.tokenizer.learning import TokenizerOptions
from hetdep.tokenizer.text import document_text
from hetdep.tokenizer.tokenizer import Tokenizer
from hetdep.treebank.conllu import read_conllu, write_conllu


def scores(tokenizer: Tokenizer, gold: Path, folder: Path) -> tuple[float, float]:
    system = folder / f"{gold.stem}.tokenized.conllu"
    write_conllu(tokenizer.tokenize(document_text(read_conllu(gold))), system)
    figures = evaluate_conll18(gold, system)
    return figures["Tokens"].f1, figures["Sentences"].f1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", required=True, type=Path)
    parser.add_argument("--text", action="append", default=[], type=Path, help="another treebank's text to learn too")
    parser.add_argument("--dev", required=True, type=Path)
    parser.add_argument("--test", required=True, type=Path)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--shares", action="append", help="comma-separated shares, e.g. 0,0.3 (repeat to compare)")
    parser.add_argument("--embeddings", help="word vectors whose clusters the tokenizer reads")
    args = parser.parse_args()
    clusters = WordClusters.read(args.embeddings) if args.embeddings else None
    train = [s for path in [args.train, *args.text] for s in read_conllu(path)]
    dev = list(read_conllu(args.dev))
    print("| shares | dev Sentences | test Sentences | test Tokens | shares chosen | seconds a seed |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for shares in args.shares or [",".join(f"{s:g}" for s in TokenizerOptions().unpunctuated)]:
            options = [float(share) for share in shares.split(",")]
            rows, chosen, started = [], [], time.perf_counter()
            for seed in range(1, args.seeds + 1):
                tokenizer = Tokenizer.train(train, dev, TokenizerOptions(seed=seed, unpunctuated=tuple(options)),
                                           clusters=clusters)
                _, dev_sentences = scores(tokenizer, args.dev, Path(folder))
                test_tokens, test_sentences = scores(tokenizer, args.test, Path(folder))
                rows.append((dev_sentences, test_tokens, test_sentences))
                print(f"  seed {seed}: dev Sentences {dev_sentences:.2f}, test Sentences {test_sentences:.2f}, "
                      f"test Tokens {test_tokens:.2f}", flush=True)
                chosen.append(f"{tokenizer.record['unpunctuated']:g}")
            a = np.array(rows)
            span = lambda k: f"{a[:, k].mean():.2f} ({a[:, k].min():.2f}-{a[:, k].max():.2f})"  # noqa: E731
            print(f"| {shares} | {span(0)} | {span(2)} | {span(1)} | {' '.join(chosen)} | "
                  f"{(time.perf_counter() - started) / args.seeds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
