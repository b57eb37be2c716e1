"""Arc-standard parser accuracy on the real treebanks: dev score per iteration, test score at the best one.

    python bench/accuracy_parser.py fr-sequoia ud upos [--beam 64] [--iterations 15] [--out DIR]

Trains with the defaults of `hetdep train` (unless overridden), prints the dev UAS/LAS of each
iteration and the test UAS/LAS/CM of the best iteration's model, punctuation excluded.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from hetdep.evaluation.attachment import evaluate
from hetdep.learn.perceptron import TrainOptions
from hetdep.transition.training import train
from hetdep.treebank.conllu import read_conllu

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("treebank")
    parser.add_argument("scheme")
    parser.add_argument("tag_column", choices=["upos", "xpos"])
    parser.add_argument("--beam", type=int, default=TrainOptions.beam)
    parser.add_argument("--iterations", type=int, default=TrainOptions.iterations)
    parser.add_argument("--patience", type=int, default=TrainOptions.patience)
    parser.add_argument("--update", default=TrainOptions.update, choices=["early", "max-violation"])
    parser.add_argument("--out", type=Path, help="save the model here")
    args = parser.parse_args()
    folder = DATA / args.treebank
    read = lambda split: list(read_conllu(folder / f"{split}.{args.scheme}.conllu"))
    train_set, dev_set = read("train"), read("dev")
    options = TrainOptions(beam=args.beam, iterations=args.iterations, patience=args.patience, tag_column=args.tag_column,
                           update=args.update)
    start = time.perf_counter()
    result = train(train_set, dev_set, options)
    elapsed = time.perf_counter() - start
    for r in result.history:
        print(f"iteration {r.iteration:2d}: {r.seconds:6.1f} s  dev UAS {r.dev_uas:.2f} LAS {r.dev_las:.2f}", flush=True)
    report = {"treebank": args.treebank, "scheme": args.scheme, "tags": args.tag_column, "beam": args.beam, "update": args.update,
              "best_iteration": result.best_iteration, "train_seconds": round(elapsed, 1),
              "peak_memory_MiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
    test_file = folder / f"test.{args.scheme}.conllu"
    if test_file.exists():
        test_set = list(read_conllu(test_file))
        score = evaluate(test_set, result.parser.parse(test_set))
        report.update(test_UAS=round(score.uas, 2), test_LAS=round(score.las, 2), test_CM=round(score.cm, 2))
    print(json.dumps(report))
    if args.out:
        result.parser.save(args.out, history=[vars(r) for r in result.history], best_iteration=result.best_iteration)


if __name__ == "__main__":
    main()
