"""One sentence parsed as a whole process, warm: what a user waits for a short text (start-up,
model loading, parsing), against a baseline version of hetdep timed in turns in the same run.

    python bench/startup.py [--model MODEL] [--a OLD/src] [--runs 5] [--text-of en-ewt/test.ud.conllu]
        [--precisions int8 float32]

Each run is ``python -m hetdep parse --input one.txt --output out.conllu`` on one sentence
of fr-sequoia test (``--text-of``: of that file of ../shared/data, for a model of another
language; a new sentence each run, its ``# text``); the first run of each version is not
timed (it fills numba's and the user cache's files). Prints each version's least and median
seconds and peak memory, and, with ``--a``, the ratio of the medians. ``--precisions`` times
each version in each arithmetic of a neural model (``hetdep parse --precision``), in turns.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hetdep.tokenizer.text import sentence_text
from hetdep.treebank.conllu import read_conllu

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SOURCE = Path(__file__).resolve().parents[1] / "src"


def timed(src: Path, model: str | None, text: str, work: Path, precision: str | None = None) -> tuple[float, float]:
    """Seconds and peak memory (MB) of one parse of ``text`` by the hetdep in ``src``."""
    (work / "one.txt").write_text(text, encoding="utf-8")
    words = [sys.executable, "-m", "hetdep", "parse", "--input", "one.txt", "--output", "out.conllu"]
    words += (["--model", model] if model else []) + (["--precision", precision] if precision else [])
    start = time.perf_counter()
    child = subprocess.Popen(words, env=dict(os.environ, PYTHONPATH=str(src)), cwd=work, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak memory
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    if child.returncode:
        raise SystemExit(f"{src}: hetdep parse failed (exit {child.returncode})")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--model", help="model name or folder (default: the shipped one)")
    options.add_argument("--a", help="src folder of a baseline version, timed in turns with this one")
    options.add_argument("--runs", type=int, default=5)
    options.add_argument("--data", type=Path, default=DATA)
    options.add_argument("--text-of", default="fr-sequoia/test.ud.conllu", help="the file under --data whose sentences are parsed")
    options.add_argument("--precisions", nargs="+", choices=["int8", "float32"], default=[None],
                         help="time each version in each of these arithmetics (default: the model's own)")
    args = options.parse_args()
    sources = {"this": SOURCE} | ({"baseline": Path(args.a).resolve()} if args.a else {})
    versions = {" ".join(filter(None, (name, precision))): (src, precision)
                for name, src in sources.items() for precision in args.precisions}
    texts = [text for text in map(sentence_text, read_conllu(args.data / args.text_of)) if text]
    texts = texts[:args.runs + 1]
    seconds: dict[str, list[float]] = {name: [] for name in versions}
    peaks: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as work:
        for run, text in enumerate(texts):
            names = list(versions) if run % 2 == 0 else list(reversed(versions))  # turns, so drift falls on both
            for name in names:
                src, precision = versions[name]
                spent, peak = timed(src, args.model, text, Path(work), precision)
                if run:  # the first run fills the caches
                    seconds[name].append(spent)
                    peaks[name] = max(peaks.get(name, 0.0), peak)
    for name, values in seconds.items():
        print(f"{name}: least {min(values):.2f} s, median {statistics.median(values):.2f} s over {len(values)} runs "
              f"({', '.join(f'{v:.2f}' for v in values)}); peak memory {peaks[name]:.0f} MB")
    if args.a and args.precisions == [None]:
        ratio = statistics.median(seconds["baseline"]) / statistics.median(seconds["this"])
        print(f"this version is {ratio:.2f}x as fast as the baseline (median against median)")


if __name__ == "__main__":
    main()
