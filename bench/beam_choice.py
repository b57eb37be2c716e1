"""Accuracy and speed of trained models decoded at several beam sizes: the evidence for the default parsing beam.

    python bench/beam_choice.py --model MODEL --gold DEV [--gold-b DEV_B] [--beams 4 8 16 32 64]

Parses the gold file(s) in process at each beam (after one untimed parse of a few sentences, so
that numba's compiled code is loaded) and prints dev UAS / LAS (per scheme for a joint model), the
speed in words/second and its ratio to the model's own beam, measured in this run.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hetdep.evaluation.attachment import evaluate
from hetdep.models.opening import open_models
from hetdep.models.parsing import ParseChoice
from hetdep.treebank.conllu import read_conllu


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--model", type=Path, required=True)
    options.add_argument("--gold", type=Path, required=True, help="gold trees (scheme a's for a joint model)")
    options.add_argument("--gold-b", type=Path, help="a joint model: the same sentences' gold trees in scheme b")
    options.add_argument("--beams", type=int, nargs="+", default=[4, 8, 16, 32, 64])
    args = options.parse_args()
    gold = list(read_conllu(args.gold))
    gold_b = list(read_conllu(args.gold_b)) if args.gold_b else None
    words = sum(len(sentence) for sentence in gold)
    list(open_models(args.model).parse(gold[:5]))  # load the compiled code before timing
    rows = {}
    for beam in args.beams:
        models = open_models(args.model, ParseChoice(beam=beam), tag_input=False)
        start = time.perf_counter()
        parsed = list(models.parse(gold))
        seconds = time.perf_counter() - start
        if models.pairs:
            scores = [evaluate(gold, [a for a, _ in parsed]), evaluate(gold_b, [b for _, b in parsed])]
        else:
            scores = [evaluate(gold, parsed)]
        rows[beam] = (scores, words / seconds)
    own = open_models(args.model, tag_input=False).parser.beam
    reference_speed = rows[own][1] if own in rows else None
    print(f"{args.model} (trained at beam {own}) on {args.gold} ({words:,} words)")
    for beam, (scores, speed) in rows.items():
        accuracy = "  ".join(f"UAS {s.uas:6.2f} LAS {s.las:6.2f}" for s in scores)
        ratio = f"  {speed / reference_speed:5.2f}x beam {own}" if reference_speed else ""
        print(f"beam {beam:3d}: {accuracy}  {speed:8,.0f} words/s{ratio}")


if __name__ == "__main__":
    main()
