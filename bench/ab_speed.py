"""Two versions of hetdep timed in turns, in one run: training and parsing as whole processes.

    python bench/ab_speed.py --a /path/to/old/checkout/src [--b src] [--rounds 3] [--iterations 3]

Each version first trains its own models (untimed; this also warms numba's caches): the
arc-standard parser on en-ewt train (``--iterations``, beam 64, XPOS, gold tags, dev: the first
50 dev sentences), a UD parser and the joint model (t = +inf, paper guide) on fr-sequoia. Then
each round times, with version A and with version B in turn (the order alternates by round, so
drift in the machine's load falls on both): one training iteration on en-ewt train (the default
max-violation update); parsing en-ewt dev; parsing it with ``--threads 2`` (B only: A runs its
one thread, so the ratio is what the threads add to everything else); parsing fr-sequoia dev
with the UD parser and with the joint model. Prints each run's seconds; per task the median of
each version and the ratio B / A in speed; the joint model's speed against the UD parser's;
and whether B's parses equal A's (both from each version's own model, and B's from A's model).
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

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--a", required=True, help="src folder of version A (the baseline)")
    options.add_argument("--b", default=str(Path(__file__).resolve().parents[1] / "src"), help="src folder of version B")
    options.add_argument("--rounds", type=int, default=3)
    options.add_argument("--iterations", type=int, default=3, help="training iterations of the parsed en-ewt models")
    args = options.parse_args()
    versions = {"A": Path(args.a).resolve(), "B": Path(args.b).resolve()}
    ewt, sequoia = DATA / "en-ewt", DATA / "fr-sequoia"

    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        small_dev = work / "dev50.conllu"
        small_dev.write_text("\n\n".join(ewt.joinpath("dev.ud.conllu").read_text(encoding="utf-8").split("\n\n")[:50]) + "\n\n",
                             encoding="utf-8")

        def run(version: str, *words) -> float:
            env = dict(os.environ, PYTHONPATH=str(versions[version]), NUMBA_NUM_THREADS="1")
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "hetdep", *map(str, words)], env=env, cwd=work, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return time.perf_counter() - start

        plain = ("--beam", "64", "--gold-tags", "--no-tokenizer", "--seed", "1")
        train = ("train", "--train", ewt / "train.ud.conllu", "--dev", small_dev, "--tag-column", "xpos", *plain)
        ud_train = ("train", "--train", sequoia / "train.ud.conllu", "--dev", sequoia / "dev.ud.conllu", "--iterations", "2",
                    *plain)
        joint_train = ("train", "--train", sequoia / "train.sud.conllu", "--train-b", sequoia / "train.ud.conllu",
                       "--dev", sequoia / "dev.sud.conllu", "--dev-b", sequoia / "dev.ud.conllu", "--iterations", "2",
                       "--t", "inf", "--guide", "paper", *plain)

        def parse_ewt(v: str, *more) -> float:
            return run(v, "parse", "--model", work / f"arc-{v}", "--input", ewt / "dev.ud.conllu", "--output",
                       work / f"out-{v}{len(more)}.conllu", *more)

        tasks = {
            "train en-ewt, 1 iteration": lambda v: run(v, *train, "--iterations", "1", "--model", work / f"timed-{v}"),
            "parse en-ewt dev": lambda v: parse_ewt(v),
            "parse en-ewt dev, B: 2 threads": lambda v: parse_ewt(v, "--threads", "2") if v == "B" else parse_ewt(v),
            "parse fr-sequoia dev, UD": lambda v: run(v, "parse", "--model", work / f"ud-{v}", "--input",
                                                      sequoia / "dev.ud.conllu", "--output", work / f"ud-{v}.conllu"),
            "parse fr-sequoia dev, joint": lambda v: run(v, "parse", "--model", work / f"joint-{v}", "--input",
                                                         sequoia / "dev.sud.conllu", "--output", work / f"a-{v}.conllu",
                                                         "--output-b", work / f"b-{v}.conllu"),
        }
        for version in versions:
            run(version, *train, "--iterations", str(args.iterations), "--model", work / f"arc-{version}")
            run(version, *ud_train, "--model", work / f"ud-{version}")
            run(version, *joint_train, "--model", work / f"joint-{version}")
        print(f"A = {versions['A']}\nB = {versions['B']}", flush=True)
        times: dict[str, dict[str, list[float]]] = {task: {"A": [], "B": []} for task in tasks}
        for round_ in range(args.rounds):
            order = ("A", "B") if round_ % 2 == 0 else ("B", "A")
            for task, timed in tasks.items():
                for version in order:
                    seconds = timed(version)
                    times[task][version].append(seconds)
                    print(f"round {round_ + 1} {task:32} {version}: {seconds:6.2f} s", flush=True)
        run("B", "parse", "--model", work / "arc-A", "--input", ewt / "dev.ud.conllu", "--output", work / "B-of-A.conllu")

        def same(*names: str) -> bool:
            return len({(work / name).read_bytes() for name in names}) == 1

        print(f"\nparses of en-ewt dev: B's (1 and 2 threads) equal: {same('out-B0.conllu', 'out-B2.conllu')}; "
              f"B's of A's model equal A's: {same('B-of-A.conllu', 'out-A0.conllu')}; "
              f"each version's of its own model equal: {same('out-A0.conllu', 'out-B0.conllu')}")
        medians = {task: {v: statistics.median(by_version[v]) for v in versions} for task, by_version in times.items()}
        for task, median in medians.items():
            print(f"{task:32} median A {median['A']:6.2f} s, B {median['B']:6.2f} s; speed B / A {median['A'] / median['B']:.3f}")
        for version in versions:
            ratio = medians["parse fr-sequoia dev, UD"][version] / medians["parse fr-sequoia dev, joint"][version]
            print(f"{version}: the joint model parses at {ratio:.2f} of the UD parser's speed (whole processes)")


if __name__ == "__main__":
    main()
