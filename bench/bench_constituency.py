"""Whole-process parsing speed of the constituency parser on the WSJ sample's test files (issue 22).

    python bench/bench_constituency.py --models OUT/models [--data ../shared/data/en-wsj-sample] [--runs 3]

OUT is the folder of ``hetdep experiment constituency``. Each model parses the test split
(wsj_0180-0199) in its own ``hetdep parse`` process, as a user runs it, in turns, ``--runs``
times; the table gives the median wall time, words/second, and the ratio against the
arc-standard parser (beam 64, the experiment's Penn2Malt model) measured in the same run.
Gold-tag models read gold XPOS tags (CoNLL-U); the predicted-tags and lattice models read
the words alone and tag them with their own tagger only if bundled (experiment models are
not, so they get the gold tags' file too, lattice models over one candidate a word).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hetdep.convert.headrules import convert_trees, load_table
from hetdep.experiments.constituency import wsj_splits
from hetdep.treebank.conllu import write_conllu

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "en-wsj-sample"
MODELS = ("plain-gold-tags", "dp-gold-tags", "arc-standard-penn2malt")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    test = wsj_splits(args.data)["test"]
    sentences = list(convert_trees([item.tree for item in test], load_table("penn2malt")))
    words = sum(len(s) for s in sentences)
    times: dict[str, list[float]] = {name: [] for name in MODELS}
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "test.conllu"
        write_conllu(sentences, source)
        for _ in range(args.runs):
            for name in MODELS:
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "hetdep", "parse", "--model", str(args.models / name), "--input",
                                str(source), "--output", str(Path(folder) / f"{name}.out")], check=True, capture_output=True)
                times[name].append(time.perf_counter() - start)
    baseline = statistics.median(times["arc-standard-penn2malt"])
    print(f"WSJ sample test: {len(sentences)} sentences, {words:,} words; whole processes, median of {args.runs}")
    print("| model | wall time (s) | words/s | speed against arc-standard (beam 64) |")
    print("|---|---|---|---|")
    for name in MODELS:
        median = statistics.median(times[name])
        print(f"| {name} | {median:.2f} | {words / median:,.0f} | {baseline / median:.2f}x |")


if __name__ == "__main__":
    main()
