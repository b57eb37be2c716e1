"""Where the arc-standard parser's time goes: parsing and training at beam 64, as shares.

    python bench/profile_parser.py [--model DIR] [--treebank DIR] [--tag-column xpos]
                                   [--beam 64] [--train-sentences 2000]

Prints three tables, each measured in this run:
- start-up of a parsing process (fresh interpreter): imports, reading the model, loading the
  compiled search from numba's cache;
- parsing the dev file: each stage of the compiled search (the CPU's cycle counter read
  inside the loops, :mod:`hetdep.transition._clock`) and the Python work around it per sentence
  (encoding, tree building, non-projective arcs restored);
- one training iteration over the first ``--train-sentences`` training sentences (max-violation
  update): the search's stages, the update's, and Python per sentence.

Without ``--model`` a parser is trained for one iteration on the training file first. Reading
the counter costs some 30 cycles per lap (some 15 laps per beam item): the dev file is also
parsed without the clock, and the difference printed; most of it lands in "rest", the time
between laps.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from hetdep.learn.perceptron import TrainOptions
from hetdep.transition import _clock
from hetdep.transition.parser import ArcStandardParser
from hetdep.transition.training import train
from hetdep.treebank.conllu import read_conllu

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "en-ewt"

START_UP = """
import sys, time
t0 = time.perf_counter()
import numpy as np
from hetdep.cli import main  # what every command imports
t1 = time.perf_counter()
from hetdep.models.opening import open_models
from hetdep.treebank.conllu import read_conllu
t2 = time.perf_counter()
models = open_models(sys.argv[1])
t3 = time.perf_counter()
sentence = next(iter(read_conllu(sys.argv[2])))
list(models.parser.parse([sentence]))
t4 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3)
"""


def cycles_per_second() -> float:
    """The cycle counter's rate, against the wall clock over 0.3 s."""
    _clock.cycles()  # compiled (or loaded) before timing
    c0, t0 = _clock.cycles(), time.perf_counter()
    time.sleep(0.3)
    return (_clock.cycles() - c0) / (time.perf_counter() - t0)


def table(title: str, rows: list[tuple[str, float]]) -> None:
    total = sum(seconds for _, seconds in rows)
    print(f"\n{title}: {total:.2f} s")
    width = max(len("part"), *(len(name) for name, _ in rows))
    print(f"| {'part':<{width}} | {'seconds':>8} | {'share':>6} |")
    print(f"|{'-' * (width + 2)}|{'-' * 10}|{'-' * 8}|")
    for name, seconds in rows:
        print(f"| {name:<{width}} | {seconds:8.2f} | {100 * seconds / total:5.1f}% |")


def compiled_rows(clock: np.ndarray, rate: float, inside: float, stages: range) -> list[tuple[str, float]]:
    """The clock's stages in seconds, and what the compiled calls spent outside them."""
    rows = [(_clock.STAGES[s], clock[s] / rate) for s in stages]
    rows.append(("search: rest (trail, arrays, calls)", max(inside - sum(seconds for _, seconds in rows), 0.0)))
    return rows


def profile_start_up(model: Path, dev: Path) -> None:
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", START_UP, str(model), str(dev)], check=True, capture_output=True,
                             text=True).stdout.split()
        runs.append([float(x) for x in out])
    best = np.min(np.array(runs), axis=0)  # least disturbed of three
    table("start-up of a parsing process (best of 3)", [
        ("imports: the command line", best[0]), ("imports: parsing, CoNLL-U", best[1]), ("reading the model", best[2]),
        ("first sentence (numba cache load)", best[3])])


def profile_parsing(model: ArcStandardParser, sentences, rate: float, beam: int) -> float:
    list(model.parse(sentences[:2], beam))  # loads the search, untimed
    start = time.perf_counter()
    for _ in model.parse(sentences, beam):
        pass
    plain = time.perf_counter() - start
    clock = np.zeros(len(_clock.STAGES), dtype=np.int64)
    model.clock = clock
    list(model.parse(sentences[:2], beam))  # compiles (or loads) the search with a clock, untimed
    clock[:] = 0
    inside = 0.0
    search = model.search

    def timed_search(*args, **kwargs):
        nonlocal inside
        t = time.perf_counter()
        result = search(*args, **kwargs)
        inside += time.perf_counter() - t
        return result

    model.search = timed_search
    start = time.perf_counter()
    for _ in model.parse(sentences, beam):
        pass
    total = time.perf_counter() - start
    words = sum(len(s) for s in sentences)
    rows = compiled_rows(clock, rate, inside, range(_clock.UPDATE_FEATURES))
    rows.append(("Python per sentence", total - inside))
    table(f"parsing {len(sentences)} sentences, {words} words, beam {beam} ({words / total:,.0f} words/s, profiled)", rows)
    print(f"without the clock: {plain:.2f} s ({words / plain:,.0f} words/s); the difference, {total - plain:.2f} s, is "
          "the counter's own cost, mostly between laps, so mostly in 'rest'")
    return total


def profile_training(train_sentences, options: TrainOptions, rate: float) -> None:
    clock = np.zeros(len(_clock.STAGES), dtype=np.int64)
    import hetdep.transition.training as training  # the compiled calls, timed from Python

    inside = 0.0
    originals = training._beam.search, training._beam.update

    def timed(function):
        def call(*args):
            nonlocal inside
            t = time.perf_counter()
            result = function(*args)
            inside += time.perf_counter() - t
            return result
        return call

    train(train_sentences[:5], [], options, clock=clock)  # compiles (or loads) the training search with a clock, untimed
    clock[:] = 0
    training._beam.search, training._beam.update = timed(originals[0]), timed(originals[1])
    try:
        start = time.perf_counter()
        train(train_sentences, [], options, clock=clock)
        total = time.perf_counter() - start
    finally:
        training._beam.search, training._beam.update = originals
    words = sum(len(s) for s in train_sentences)
    rows = compiled_rows(clock, rate, inside, range(len(_clock.STAGES)))
    rows.append(("Python: oracles, per sentence", total - inside))
    table(f"one training iteration, {len(train_sentences)} sentences, {words} words, beam {options.beam}, "
          f"{options.update} ({words / total:,.0f} words/s, profiled)", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, help="an arc-standard model (default: train one, 1 iteration)")
    parser.add_argument("--treebank", type=Path, default=DEFAULT, help="folder with train/dev .conllu files")
    parser.add_argument("--scheme", default="ud")
    parser.add_argument("--tag-column", default="xpos")
    parser.add_argument("--beam", type=int, default=64)
    parser.add_argument("--train-sentences", type=int, default=2000)
    args = parser.parse_args()

    train_sentences = list(read_conllu(args.treebank / f"train.{args.scheme}.conllu"))
    dev_file = args.treebank / f"dev.{args.scheme}.conllu"
    dev_sentences = list(read_conllu(dev_file))
    rate = cycles_per_second()
    print(f"cycle counter: {rate / 1e9:.2f} GHz")
    options = TrainOptions(beam=args.beam, iterations=1, tag_column=args.tag_column)
    with tempfile.TemporaryDirectory() as scratch:
        model_dir = args.model
        if model_dir is None:
            model_dir = Path(scratch) / "model"
            print(f"training a parser on {len(train_sentences)} sentences, 1 iteration ...", flush=True)
            train(train_sentences, [], options).parser.save(model_dir)
        profile_start_up(model_dir, dev_file)
        profile_parsing(ArcStandardParser.load(model_dir), dev_sentences, rate, args.beam)
    profile_training(train_sentences[:args.train_sentences], options, rate)


if __name__ == "__main__":
    main()
