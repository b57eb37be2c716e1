"""Arc-standard parser speed and memory, on en-ewt (the issue's figures), in one run.

    python bench/bench_parser.py [--treebank DIR] [--tag-column xpos] [--beams 64 8 1] [--out DIR]

Prints, each measured in this run:
- seconds for one training iteration over the training file at beam 64, and peak memory;
- parsing the dev file with `hetdep parse` as a whole process (model loading and start-up
  included) at each beam, in words/second, one core (NUMBA_NUM_THREADS=1);
- the pure-Python reference's words/second on a small slice, and the compiled/reference ratio.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hetdep.learn.perceptron import TrainOptions
from hetdep.models.compact import folder_bytes
from hetdep.transition import reference
from hetdep.transition.system import Moves
from hetdep.transition.training import train
from hetdep.treebank.conllu import read_conllu

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "en-ewt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebank", type=Path, default=DEFAULT, help="folder with train/dev .conllu files")
    parser.add_argument("--scheme", default="ud")
    parser.add_argument("--tag-column", default="xpos")
    parser.add_argument("--beams", type=int, nargs="+", default=[64, 8, 1])
    parser.add_argument("--reference-sentences", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None, help="keep the model here (default: a temporary folder)")
    args = parser.parse_args()

    train_file = args.treebank / f"train.{args.scheme}.conllu"
    dev_file = args.treebank / f"dev.{args.scheme}.conllu"
    train_sentences = list(read_conllu(train_file))
    dev_sentences = list(read_conllu(dev_file))
    train_words = sum(len(s) for s in train_sentences)
    dev_words = sum(len(s) for s in dev_sentences)
    print(f"machine: {os.cpu_count()} cores; train {train_file} ({train_words} words), dev {dev_file} ({dev_words} words)")

    start = time.perf_counter()
    result = train(train_sentences, [], TrainOptions(beam=64, iterations=1, tag_column=args.tag_column, update="early"))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    model = result.parser
    print(f"training, 1 iteration, beam 64, early update: {seconds:.1f} s ({train_words / seconds:,.0f} words/s), "
          f"{result.history[0].features:,} features, {len(model.weights.w) + model.weights.dense.size:,} stored weights "
          f"({len(model.weights.dense)} dense features), {2 + 2 * model.n_labels} actions; "
          f"peak memory {peak:,.0f} MiB")

    with tempfile.TemporaryDirectory() as scratch:
        model_dir = args.out or Path(scratch) / "model"
        model.save(model_dir)
        size = folder_bytes(model_dir)
        print(f"model: {model.weights.nbytes / 2**20:,.0f} MiB of weights in memory, {size / 2**20:,.1f} MiB on disk")
        env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
        speeds = {}
        for beam in args.beams:
            out = Path(scratch) / f"dev.{beam}.conllu"
            command = [sys.executable, "-m", "hetdep", "parse", "--model", str(model_dir), "--input", str(dev_file),
                       "--output", str(out), "--beam", str(beam)]
            start = time.perf_counter()
            subprocess.run(command, check=True, env=env, capture_output=True)
            elapsed = time.perf_counter() - start
            speeds[beam] = dev_words / elapsed
            score = subprocess.run([sys.executable, "-m", "hetdep", "eval", str(dev_file), str(out)],
                                   check=True, capture_output=True, text=True).stdout.splitlines()[-1]
            print(f"parse dev, beam {beam:3d}, whole process: {elapsed:6.1f} s, {speeds[beam]:8,.0f} words/s   ({score}; 1 iteration)")
        for beam in args.beams:
            if beam != 64 and 64 in speeds:
                print(f"speed ratio beam {beam} / beam 64, whole process: {speeds[beam] / speeds[64]:.1f}x")

    # Parsing alone (model loaded, code compiled), in this process.
    inner = {}
    for beam in args.beams:
        start = time.perf_counter()
        for _ in model.parse(dev_sentences, beam):
            pass
        inner[beam] = dev_words / (time.perf_counter() - start)
        print(f"parse dev, beam {beam:3d}, in process: {inner[beam]:8,.0f} words/s"
              + (f"  ({inner[beam] / inner[64]:.1f}x beam 64)" if beam != 64 and 64 in inner else ""))

    # Pure-Python reference on a slice, against the compiled search on the same slice.
    slice_ = dev_sentences[: args.reference_sentences]
    words = sum(len(s) for s in slice_)
    moves = Moves(model.labels)
    table = reference.DictWeights.from_trained(model.weights, moves.n_actions)
    encoded = [model.encode(s) for s in slice_]
    start = time.perf_counter()
    for w, t in encoded:
        reference.beam_search(w.tolist(), t.tolist(), len(w) - 1, 64, moves, model.root_label, table)
    reference_speed = words / (time.perf_counter() - start)
    start = time.perf_counter()
    for w, t in encoded:
        model.parse_arrays(w, t, 64)
    compiled_speed = words / (time.perf_counter() - start)
    print(f"beam 64 on {len(slice_)} dev sentences: reference {reference_speed:,.0f} words/s, "
          f"compiled {compiled_speed:,.0f} words/s, ratio {compiled_speed / reference_speed:,.0f}x")


if __name__ == "__main__":
    main()
