"""Joint model parsing speed against the single-scheme parser, measured in one run.

    python bench/bench_joint.py [--treebank DIR] [--a sud] [--b ud] [--beam 64]

Trains one iteration of each (baseline on scheme a, joint with t = +inf), then parses the
dev file with both, in process (model loaded, code compiled), and prints words/second and
the ratio joint / single (the joint model builds both trees), and as a diagnostic the joint
model's speed with its guided templates skipped.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hetdep.features import TEMPLATES
from hetdep.joint import INFINITE, train_joint
from hetdep.pairs import read_pairs
from hetdep.training import TrainOptions, train

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "fr-sequoia"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebank", type=Path, default=DEFAULT)
    parser.add_argument("--a", default="sud")
    parser.add_argument("--b", default="ud")
    parser.add_argument("--beam", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    pairs = read_pairs(args.treebank / f"train.{args.a}.conllu", args.treebank / f"train.{args.b}.conllu")
    dev = read_pairs(args.treebank / f"dev.{args.a}.conllu", args.treebank / f"dev.{args.b}.conllu")
    options = TrainOptions(beam=args.beam, iterations=1)
    start = time.perf_counter()
    single = train([p.a for p in pairs], [], options).parser
    single_train = time.perf_counter() - start
    start = time.perf_counter()
    joint = train_joint(pairs, [], options, t=INFINITE).parser
    joint_train = time.perf_counter() - start
    sentences = [p.a for p in dev]
    words = sum(len(s) for s in sentences)

    def speed(model) -> float:
        best = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            for _ in model.parse(sentences, args.beam):
                pass
            best = min(best, time.perf_counter() - start)
        return words / best

    single_speed, joint_speed = speed(single), speed(joint)
    print(f"treebank {args.treebank.name}, beam {args.beam}, dev {words} words; one training iteration: "
          f"single {single_train:.1f} s, joint {joint_train:.1f} s")
    print(f"single-scheme parser: {single_speed:8,.0f} words/s (one tree)")
    print(f"joint model         : {joint_speed:8,.0f} words/s (both trees)")
    print(f"ratio joint / single: {joint_speed / single_speed:.2f} (per tree produced: {2 * joint_speed / single_speed:.2f})")
    # Diagnostic: the same joint model scoring only the 70 baseline templates (its output differs):
    # how much of the joint model's time the 18 guided templates take.
    full = joint.templates
    joint.templates = full[:len(TEMPLATES)]
    unguided = speed(joint)
    joint.templates = full
    print(f"joint model, guided templates skipped (diagnostic): {unguided:8,.0f} words/s; "
          f"the guided templates take {1 - joint_speed / unguided:.0%} of the joint model's time")


if __name__ == "__main__":
    main()
