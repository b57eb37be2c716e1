"""Dev F1 by training iteration of the constituency parser, plain beam against DP beam, over
several seeds (mi-huang2015 Figure 4, with the spread a single run hides).

    python bench/constituency_curves.py [--variants plain,dp] [--seeds 1,2,3] [--beam 16] [--iterations 20]
                                        [--rules penn2malt] [--update max-violation]
                                        [--templates zpar]

WSJ sample split as ``hetdep experiment constituency`` splits it, gold tags; the training trees
binarized by ``--rules`` (a head table), updates by ``--update``.
For every variant and seed: dev F1 and the number of updates per iteration, the best iteration,
and test F1 at it; then, per variant, the mean dev F1 by iteration over the seeds and the first
iteration at which that mean reaches the other variants' best mean.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from hetdep.constituency.features import DEFAULT_TEMPLATES
from hetdep.constituency.training import dev_f1, train
from hetdep.experiments.constituency import wsj_splits
from hetdep.learn.perceptron import TrainOptions

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "en-wsj-sample"


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--variants", default="plain,dp", help="comma-separated: plain, dp")
    options.add_argument("--seeds", default="1,2,3")
    options.add_argument("--beam", type=int, default=16)
    options.add_argument("--iterations", type=int, default=20)
    options.add_argument("--rules", default="penn2malt", help="head table that binarizes the training trees")
    options.add_argument("--update", default="max-violation", help="max-violation or early")
    options.add_argument("--templates", default=DEFAULT_TEMPLATES, help="feature template set (features.TEMPLATE_SETS)")
    args = options.parse_args()
    splits = wsj_splits(DATA)
    curves: dict[str, list[list[float]]] = {}
    for variant in args.variants.split(","):
        for seed in map(int, args.seeds.split(",")):
            started = time.perf_counter()
            result = train(splits["train"], splits["dev"],
                           TrainOptions(beam=args.beam, iterations=args.iterations, patience=args.iterations, seed=seed,
                                        dp=variant == "dp", update=args.update), head_table=args.rules,
                           templates=args.templates)
            curve = [report.dev_uas for report in result.history]
            curves.setdefault(variant, []).append(curve)
            test, _ = dev_f1(result.parser, splits["test"], [item.gold_tags for item in splits["test"]])
            print(f"{variant} seed {seed}: {time.perf_counter() - started:.0f} s; best dev {max(curve):.2f} at iteration "
                  f"{result.best_iteration}, test F1 there {test:.2f}", flush=True)
            print("  dev F1:  " + " ".join(f"{value:.2f}" for value in curve), flush=True)
            print("  updates: " + " ".join(str(report.updates) for report in result.history), flush=True)
    means = {variant: [statistics.mean(values) for values in zip(*runs)] for variant, runs in curves.items()}
    for variant, mean in means.items():
        print(f"{variant} mean dev F1 by iteration: " + " ".join(f"{value:.2f}" for value in mean))
        for other, other_mean in means.items():
            if other != variant:
                reached = next((k + 1 for k, value in enumerate(mean) if value >= max(other_mean)), None)
                print(f"  best mean {max(mean):.2f} at iteration {mean.index(max(mean)) + 1}; reaches {other}'s best mean "
                      f"{max(other_mean):.2f} at iteration {reached if reached else '-- (never)'}")


if __name__ == "__main__":
    main()
