"""Beyond one process (issue 23): corpus parsing and parameter-mixing training on a local Dask cluster.

    python bench/bench_cluster.py parse --model EN_EWT_MODEL [--data ../shared/data] [--copies 5]
    python bench/bench_cluster.py train [--data ../shared/data] [--beam 64] [--iterations 15] [--seeds 1] [--workers 2]

parse: en-ewt train repeated ``--copies`` times (about 1M words for 5) parsed by whole ``hetdep
parse`` processes in four layouts in turn (one process of 1 and of 2 threads, 2 local Dask workers
of 1 thread, 1 of 2 threads); prints words/second, the speed ratios the issue asks for, whether
the outputs are byte-identical, and each Dask run's worker memory and where its time went
(cluster reached, models loaded, first and last chunk, output written: the overhead).

train: the arc-standard parser on fr-sequoia UD (gold tags), serial then by parameter mixing over
``--workers`` shards, whole ``hetdep train`` processes; prints seconds per epoch (median over the
epochs, dev scoring included, as each training reports it), the best dev UAS and its iteration,
and test UAS/LAS of each model; with ``--seeds N``, for seeds 1..N and the mean differences.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data"


def hetdep(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hetdep", *args], check=True, capture_output=True, text=True)


LAYOUTS = (  # name, the options of `hetdep parse`
    ("one process, 1 thread", ()),
    ("one process, 2 threads", ("--threads", "2")),
    ("2 Dask workers of 1 thread", ("--workers", "2")),
    ("1 Dask worker of 2 threads", ("--workers", "1", "--threads", "2")),
)


def bench_parse(args) -> None:
    source = (args.data / "en-ewt" / "train.ud.conllu").read_text(encoding="utf-8")
    words = sum(1 for line in source.splitlines() if line and line.split("\t", 1)[0].isdigit()) * args.copies
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "corpus.conllu"
        corpus.write_text(source * args.copies, encoding="utf-8")
        seconds, outputs = {}, {}
        for name, extra in LAYOUTS:
            out = Path(folder) / f"{len(outputs)}.conllu"
            start = time.perf_counter()
            result = hetdep("parse", "--model", str(args.model), "--input", str(corpus), "--output", str(out), *extra)
            seconds[name] = time.perf_counter() - start
            outputs[name] = out.read_bytes()
            reported = [line for line in result.stderr.splitlines() if "peak memory" in line or "Dask timing" in line]
            print(f"{name}: {seconds[name]:.1f} s, {words / seconds[name]:,.0f} words/s"
                  + "".join(f"\n  {line}" for line in reported), flush=True)
        one, two_threads, two_workers, threaded_worker = (seconds[name] for name, _ in LAYOUTS)
        print(f"corpus: en-ewt train x {args.copies} = {words:,} words; outputs "
              + ("byte-identical" if len(set(outputs.values())) == 1 else "DIFFERENT"))
        print(f"2 workers of 1 thread against one process of 1 thread: {one / two_workers:.2f}x")
        print(f"1 worker of 2 threads against one process of 2 threads: {two_threads / threaded_worker:.2f}x")


def bench_train(args) -> None:
    folder = args.data / "fr-sequoia"
    gaps = []
    with tempfile.TemporaryDirectory() as work:
        for seed in range(1, args.seeds + 1):
            rows = []
            for name, extra in (("serial", ()), (f"mixing, {args.workers} shards", ("--workers", str(args.workers)))):
                model = Path(work) / f"{name.split(',')[0]}-{seed}"
                start = time.perf_counter()
                hetdep("train", "--train", str(folder / "train.ud.conllu"), "--dev", str(folder / "dev.ud.conllu"),
                       "--model", str(model), "--beam", str(args.beam), "--iterations", str(args.iterations),
                       "--seed", str(seed), "--gold-tags", "--no-tokenizer", *extra)
                seconds = time.perf_counter() - start
                config = json.loads((model / "config.json").read_text(encoding="utf-8"))
                history = config["history"]
                best = next(r for r in history if r["iteration"] == config["best_iteration"])
                parsed = Path(work) / f"{model.name}.test.conllu"
                hetdep("parse", "--model", str(model), "--input", str(folder / "test.ud.conllu"), "--output", str(parsed))
                test = json.loads(hetdep("eval", str(folder / "test.ud.conllu"), str(parsed), "--json").stdout)
                epoch = statistics.median(r["seconds"] for r in history)
                rows.append((epoch, best["dev_uas"], test["UAS"]))
                print(f"seed {seed}, {name}: {epoch:.1f} s an epoch (median of {len(history)}), best dev UAS "
                      f"{best['dev_uas']:.2f} at iteration {best['iteration']}, test UAS {test['UAS']:.2f} LAS "
                      f"{test['LAS']:.2f}; whole run {seconds:.0f} s", flush=True)
            (serial, mixed) = rows
            gaps.append((serial[0] / mixed[0], mixed[1] - serial[1], mixed[2] - serial[2]))
            print(f"seed {seed}: per epoch {gaps[-1][0]:.2f}x faster; best dev UAS {gaps[-1][1]:+.2f}, test UAS "
                  f"{gaps[-1][2]:+.2f} against serial training", flush=True)
    speed, dev, test = (statistics.mean(column) for column in zip(*gaps))
    print(f"mean over {len(gaps)} seed(s): per epoch {speed:.2f}x faster; best dev UAS {dev:+.2f}, test UAS {test:+.2f} "
          "against serial training")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="task", required=True)
    parse = sub.add_parser("parse")
    parse.add_argument("--model", type=Path, required=True)
    parse.add_argument("--copies", type=int, default=5)
    train = sub.add_parser("train")
    train.add_argument("--beam", type=int, default=64)
    train.add_argument("--iterations", type=int, default=15)
    train.add_argument("--seeds", type=int, default=1, help="train with seeds 1..N and average the differences")
    train.add_argument("--workers", type=int, default=2)
    for each in (parse, train):
        each.add_argument("--data", type=Path, default=DEFAULT)
    args = parser.parse_args()
    bench_parse(args) if args.task == "parse" else bench_train(args)


if __name__ == "__main__":
    main()
