"""Joint model parsing speed against the single-scheme parsers, measured in one run.

    python bench/bench_joint.py [--treebank DIR] [--a sud] [--b ud] [--beam 64] [--trained MODELS] [--guides paper,rich]

Without --trained, trains one iteration of each (a baseline per scheme, a joint model with
t = +inf per guide of --guides). With --trained, loads the models of ``hetdep experiment joint``
runs instead (MODELS/baseline-A, MODELS/baseline-B, MODELS/joint-t+inf for the paper's guide,
MODELS/joint-t+inf-rich for the rich one): fully trained models hold more features than one
iteration's, so their weight tables are larger.

Then parses the dev file with each, in process (models loaded, code compiled), the parsers
taking turns so that a noisy machine slows them alike, and prints words/second (best of
--repeats), the ratio joint / single for each scheme's parser (the joint model builds both
trees), and as a diagnostic the joint model's speed with its guided templates skipped.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hetdep.experiments.common import joint_model_name
from hetdep.joint.parser import JointParser
from hetdep.joint.schedule import INFINITE
from hetdep.joint.training import train_joint
from hetdep.learn.perceptron import TrainOptions
from hetdep.transition.features import TEMPLATES
from hetdep.transition.parser import ArcStandardParser
from hetdep.transition.training import train
from hetdep.treebank.pairs import read_pairs

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "fr-sequoia"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebank", type=Path, default=DEFAULT)
    parser.add_argument("--a", default="sud")
    parser.add_argument("--b", default="ud")
    parser.add_argument("--beam", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trained", type=Path, help="models folder of an 'hetdep experiment joint' run")
    parser.add_argument("--guides", default="paper", help="comma-separated guides of the joint models timed (paper, rich)")
    args = parser.parse_args()
    guides = args.guides.split(",")
    dev = read_pairs(args.treebank / f"dev.{args.a}.conllu", args.treebank / f"dev.{args.b}.conllu")
    if args.trained:
        single_a = ArcStandardParser.load(args.trained / f"baseline-{args.a}")
        single_b = ArcStandardParser.load(args.trained / f"baseline-{args.b}")
        joints = {guide: JointParser.load(args.trained / joint_model_name(INFINITE, guide)) for guide in guides}
        print(f"trained models from {args.trained}")
    else:
        pairs = read_pairs(args.treebank / f"train.{args.a}.conllu", args.treebank / f"train.{args.b}.conllu")
        options = TrainOptions(beam=args.beam, iterations=1, update="early")  # as the figures this bench has given
        single_a = train([p.a for p in pairs], [], options).parser
        single_b = train([p.b for p in pairs], [], options).parser
        joints = {guide: train_joint(pairs, [], options, t=INFINITE, guide=guide).parser for guide in guides}
        print("models trained for one iteration")
    inputs = {"a": [p.a for p in dev], "b": [p.b for p in dev]}
    words = sum(len(s) for s in inputs["a"])

    def seconds(model, scheme: str) -> float:
        start = time.perf_counter()
        for _ in model.parse(inputs[scheme], args.beam):
            pass
        return time.perf_counter() - start

    def best_speeds(runs: dict) -> dict:
        for name, (model, scheme) in runs.items():  # compile and warm up
            model.parse(inputs[scheme][:2], args.beam)
        best = {name: float("inf") for name in runs}
        for _ in range(args.repeats):
            for name, (model, scheme) in runs.items():
                best[name] = min(best[name], seconds(model, scheme))
        return {name: words / value for name, value in best.items()}

    speed = best_speeds({"single a": (single_a, "a"), "single b": (single_b, "b"),
                         **{f"joint {guide}": (joint, "a") for guide, joint in joints.items()}})
    print(f"treebank {args.treebank.name}, beam {args.beam}, dev {words} words, best of {args.repeats}")
    print(f"single-scheme parser, {args.a}: {speed['single a']:8,.0f} words/s (one tree)")
    print(f"single-scheme parser, {args.b}: {speed['single b']:8,.0f} words/s (one tree)")
    for guide, joint in joints.items():
        print(f"joint model, {guide} guide: {speed[f'joint {guide}']:8,.0f} words/s (both trees)")
        for scheme in ("a", "b"):
            ratio = speed[f"joint {guide}"] / speed[f"single {scheme}"]
            print(f"  ratio joint / single {getattr(args, scheme)}: {ratio:.2f} (per tree produced: {2 * ratio:.2f})")
        # Diagnostic: the same joint model scoring only the 70 baseline templates (its output differs):
        # how much of the joint model's time the guided templates take.
        full = joint.templates
        joint.templates = full[:len(TEMPLATES)]
        unguided = best_speeds({"unguided": (joint, "a")})["unguided"]
        joint.templates = full
        print(f"  guided templates skipped (diagnostic): {unguided:8,.0f} words/s; "
              f"the guided templates take {1 - speed[f'joint {guide}'] / unguided:.0%} of the joint model's time")


if __name__ == "__main__":
    main()
