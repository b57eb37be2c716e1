"""Parsing speed of the constituency parser on the WSJ sample's test files: whole process, start-up,
parsing alone (issues 22 and 38).

    python bench/bench_constituency.py --models OUT/models [--data ../shared/data/en-wsj-sample] [--runs 3] [--also DIR ...] [--threads 2]

OUT is the folder of ``hetdep experiment constituency`` (the models found there of
plain-gold-tags, dp-gold-tags, arc-standard-penn2malt are measured); ``--also``: other models
measured beside them (neural phrase-structure models, ``--parser constituency-neural``, e.g.
bench/neural_constituency.py's, which tag the words themselves; the shipped ``en`` model as a
neural baseline of the same encoder). Every model, in turns,
``--runs`` times:

- *whole process*: ``hetdep parse`` of the test split (wsj_0180-0199) in its own process, as a
  user runs it;
- *start-up*: the same command on the split's first sentence alone (Python, the model, numba's
  cached code), as ZPar's start-up was measured for issue 38;
- *parse only*: whole process minus start-up, as ZPar's was estimated;
- *in process*: the model loaded and warmed up on one sentence, the test split parsed through
  the Python API (no reading or writing).

Medians; words/second, and each model's ratio against the arc-standard parser (beam 64, the
experiment's Penn2Malt model) measured in the same run, where that model is there. ZPar's
figures for the same split (issue 38, measured once on another machine: 945-965 words/s whole
process, 4.0 s start-up, so about 2,580-2,740 words/s parsing alone) are printed beside them for
reference; they were not measured in this run. Gold-tag models read the gold XPOS tags (CoNLL-U).
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
BASELINE = "arc-standard-penn2malt"
ZPAR = "ZPar conparser (issue 38, another machine): 945-965 words/s whole process, 4.0 s start-up, ~2,580-2,740 words/s parse only"


def run_parse(model: Path, source: Path, output: Path, threads: int) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hetdep", "parse", "--model", str(model), "--input", str(source), "--output",
                    str(output), "--threads", str(threads)], check=True, capture_output=True)
    return time.perf_counter() - start


def in_process(model: Path, sentences: list, runs: int, threads: int) -> float:
    """Median seconds to parse ``sentences`` with the model loaded and warmed up."""
    import hetdep
    from hetdep.constituency.parser import ConstituencyParser
    from hetdep.learn.model_files import read_kind
    from hetdep.models import CONSTITUENCY, NEURAL_CONSTITUENCY

    if read_kind(model) == CONSTITUENCY:
        parser = ConstituencyParser.load(model)

        def parse(batch):
            return [parser.parse_sentence(sentence) for sentence in batch]
    elif read_kind(model) == NEURAL_CONSTITUENCY:
        from hetdep.neural.parser import NeuralParser

        neural = NeuralParser.load(model)
        neural.threads = threads
        parse = neural.parse
    else:
        parse = hetdep.load(model, threads=threads).parse_sentences
    if threads > 1:  # as hetdep parse: each batch's products on one BLAS thread
        from hetdep.threads import limit_blas_threads

        limit_blas_threads(1)
    list(parse(sentences[:1]))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        list(parse(sentences))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--also", type=Path, nargs="*", default=[], help="other model folders to measure")
    parser.add_argument("--threads", type=int, default=1, help="hetdep parse --threads (a neural model: batches at once)")
    args = parser.parse_args()
    models = [name for name in MODELS if (args.models / name).is_dir()]
    if not models and not args.also:
        sys.exit(f"{args.models}: none of {', '.join(MODELS)} is there (and no --also)")
    paths = {name: args.models / name for name in models} | {str(path): path for path in args.also}
    models += [str(path) for path in args.also]
    test = wsj_splits(args.data)["test"]
    sentences = list(convert_trees([item.tree for item in test], load_table("penn2malt")))
    words = sum(len(s) for s in sentences)
    whole: dict[str, list[float]] = {name: [] for name in models}
    start_up: dict[str, list[float]] = {name: [] for name in models}
    with tempfile.TemporaryDirectory() as folder:
        source, first = Path(folder) / "test.conllu", Path(folder) / "first.conllu"
        write_conllu(sentences, source)
        write_conllu(sentences[:1], first)
        for _ in range(args.runs):
            for name in models:
                whole[name].append(run_parse(paths[name], source, Path(folder) / f"{Path(name).name}.out", args.threads))
                start_up[name].append(run_parse(paths[name], first, Path(folder) / f"{Path(name).name}.first", args.threads))
    inside = {name: in_process(paths[name], sentences, args.runs, args.threads) for name in models}
    print(f"WSJ sample test: {len(sentences)} sentences, {words:,} words; medians of {args.runs}; --threads {args.threads}")
    print("| model | whole process (s) | words/s | start-up (s) | parse only (s) | words/s | in process (s) | words/s |"
          + (" whole, against arc-standard | in process, against arc-standard |" if BASELINE in models else ""))
    print("|---|---|---|---|---|---|---|---|" + ("---|---|" if BASELINE in models else ""))
    for name in models:
        total, fixed = statistics.median(whole[name]), statistics.median(start_up[name])
        row = (f"| {name} | {total:.2f} | {words / total:,.0f} | {fixed:.2f} | {total - fixed:.2f} | "
               f"{words / max(total - fixed, 1e-9):,.0f} | {inside[name]:.2f} | {words / inside[name]:,.0f} |")
        if BASELINE in models:
            row += (f" {statistics.median(whole[BASELINE]) / total:.2f}x | {inside[BASELINE] / inside[name]:.2f}x |")
        print(row)
    print(ZPAR)


if __name__ == "__main__":
    main()
