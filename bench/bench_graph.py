"""Graph-based parsers' accuracy and speed (issue 6: dep1 >= 2,000 and dep2 >= 400 tokens/s on en-ewt dev).

    python bench/bench_graph.py [--treebank ../shared/data/en-ewt] [--iterations 10] [--tag-column xpos]

Trains dep1 and dep2 on train (best iteration by dev UAS), then parses dev and test in process
(compiled): UAS/LAS and tokens/second, best of 3, with the arc-standard parser at beam 8
trained for the same number of iterations as the speed baseline of the ratios; and each
parser's 16-best decoding speed against its 1-best (issue 6: at most 3x slower).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hetdep.evaluation.attachment import evaluate
from hetdep.graph.parser import train_graph
from hetdep.learn.perceptron import TrainOptions
from hetdep.transition.training import train
from hetdep.treebank.conllu import read_conllu

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
    models = {}
    for order in (1, 2):
        start = time.perf_counter()
        models[f"dep{order}"] = train_graph(train_set, dev, options, order=order)
        print(f"dep{order} training: {time.perf_counter() - start:.0f} s, best iteration {models[f'dep{order}'].best_iteration}")
    baseline = train(train_set, dev, TrainOptions(beam=8, iterations=args.iterations, patience=3, tag_column=args.tag_column,
                                                  update="early"))

    def measure(parse, sentences) -> tuple[float, list]:
        words = sum(len(s) for s in sentences)
        best, out = float("inf"), []
        for _ in range(3):
            start = time.perf_counter()
            out = [parse(s) for s in sentences]
            best = min(best, time.perf_counter() - start)
        return words / best, out

    for name, sentences in (("dev", dev), ("test", test)):
        base_speed, base_out = measure(baseline.parser.parse_sentence, sentences)
        base = evaluate(sentences, base_out)
        print(f"{name}: arc-standard beam 8 UAS {base.uas:.2f} LAS {base.las:.2f}, {base_speed:,.0f} tokens/s")
        for kind, result in models.items():
            speed, out = measure(result.parser.parse_sentence, sentences)
            scores = evaluate(sentences, out)
            print(f"{name}: {kind} UAS {scores.uas:.2f} LAS {scores.las:.2f}, {speed:,.0f} tokens/s "
                  f"(ratio to arc-standard beam 8: {speed / base_speed:.2f})")
    for kind, result in models.items():
        one_best, _ = measure(result.parser.parse_sentence, dev)
        k_best, _ = measure(lambda s: result.parser.kbest(s, 16), dev)
        print(f"dev: {kind} 16-best {k_best:,.0f} tokens/s against 1-best {one_best:,.0f}: {one_best / k_best:.2f}x slower")


if __name__ == "__main__":
    main()
