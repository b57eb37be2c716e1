"""Graph-based parser (dep1) accuracy and speed (issue 6 target: dep1 >= 2,000 tokens/s on en-ewt dev).

    python bench/bench_graph.py [--treebank ../shared/data/en-ewt] [--iterations 10] [--tag-column xpos]

Trains on train (best iteration by dev UAS), then parses dev and test in process (compiled):
UAS/LAS and tokens/second, best of 3, with the arc-standard parser at beam 8 trained for the
same number of iterations as the speed baseline of the ratio.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hetdep.conllu import read_conllu
from hetdep.evaluation import evaluate
from hetdep.graph import train_graph
from hetdep.training import TrainOptions, train

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "en-ewt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebank", type=Path, default=DEFAULT)
    parser.add_argument("--scheme", default="ud")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--tag-column", default="upos")
    args = parser.parse_args()
    read = lambda split: list(read_conllu(args.treebank / f"{split}.{args.scheme}.conllu"))  # noqa: E731
    train_set, dev, test = read("train"), read("dev"), read("test")
    options = TrainOptions(iterations=args.iterations, patience=3, tag_column=args.tag_column)
    start = time.perf_counter()
    dep1 = train_graph(train_set, dev, options)
    print(f"dep1 training: {time.perf_counter() - start:.0f} s, best iteration {dep1.best_iteration}")
    baseline = train(train_set, dev, TrainOptions(beam=8, iterations=args.iterations, patience=3, tag_column=args.tag_column))

    def measure(model, sentences) -> tuple[float, object]:
        words = sum(len(s) for s in sentences)
        best, out = float("inf"), []
        for _ in range(3):
            start = time.perf_counter()
            out = list(model.parse(sentences))
            best = min(best, time.perf_counter() - start)
        return words / best, evaluate(sentences, out)

    for name, sentences in (("dev", dev), ("test", test)):
        speed, result = measure(dep1.parser, sentences)
        base_speed, base_result = measure(baseline.parser, sentences)
        print(f"{name}: dep1 UAS {result.uas:.2f} LAS {result.las:.2f}, {speed:,.0f} tokens/s; arc-standard beam 8 "
              f"UAS {base_result.uas:.2f} LAS {base_result.las:.2f}, {base_speed:,.0f} tokens/s; ratio {speed / base_speed:.2f}")


if __name__ == "__main__":
    main()
