"""POS tagger accuracy and speed (issue 7 targets: UPOS 95.5% en-ewt, 97.5% fr-sequoia; 20,000 tokens/s).

    python bench/bench_tagger.py [--treebank ../shared/data/en-ewt] [--column upos] [--beam 8]

Trains on train (best iteration by dev), then tags test: accuracy overall and on words unseen
in training, and tokens/second in process (best of 3, compiled), for the chosen beam and for
greedy decoding (beam 1, the same model) as the baseline of the ratio.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hetdep.tagger.tagger import COLUMNS
from hetdep.tagger.training import TaggerOptions, tag_accuracy, train_tagger
from hetdep.treebank.conllu import read_conllu

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "en-ewt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebank", type=Path, default=DEFAULT)
    parser.add_argument("--column", default="upos", choices=sorted(COLUMNS))
    parser.add_argument("--beam", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    read = lambda split: list(read_conllu(args.treebank / f"{split}.ud.conllu"))  # noqa: E731
    train, dev, test = read("train"), read("dev"), read("test")
    start = time.perf_counter()
    result = train_tagger(train, dev, TaggerOptions(column=args.column, beam=args.beam, iterations=args.iterations))
    seconds = time.perf_counter() - start
    tagger = result.parser
    column = COLUMNS[args.column]
    known = {form for s in train for form in s.forms}
    words = sum(len(s) for s in test)

    def speed(beam: int) -> tuple[float, list]:
        best, out = float("inf"), []
        for _ in range(3):
            start = time.perf_counter()
            out = list(tagger.tag(test, beam))
            best = min(best, time.perf_counter() - start)
        return words / best, out

    fast, tagged = speed(args.beam)
    greedy, greedy_tagged = speed(1)
    unseen = [(g == p) for gs, ps in zip(test, tagged) for f, g, p in zip(gs.forms, gs.column(column), ps.column(column))
              if f not in known]
    print(f"{args.treebank.name} {args.column}: training {seconds:.0f} s, best iteration {result.best_iteration} "
          f"(left-to-right tagger alone: dev {result.history[result.best_iteration - 1].dev_uas:.2f}%)")
    print(f"test accuracy, beam {args.beam}: {tag_accuracy(test, tagged, args.column):.2f}% "
          f"(unseen words {100 * sum(unseen) / max(1, len(unseen)):.2f}% of {len(unseen)}); "
          f"greedy: {tag_accuracy(test, greedy_tagged, args.column):.2f}%")
    print(f"speed: beam {args.beam} {fast:,.0f} tokens/s, greedy {greedy:,.0f} tokens/s, ratio {fast / greedy:.2f}")


if __name__ == "__main__":
    main()
