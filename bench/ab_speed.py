"""Two versions of hetdep timed in turns, in one run: training and parsing as whole processes.

    python bench/ab_speed.py --a /path/to/old/checkout/src [--b src] [--rounds 3]

Each round trains the arc-standard parser for one iteration on en-ewt train (beam 64, XPOS,
dev: its first 50 sentences) and parses en-ewt dev with that model, once with version A and
once with version B (the order alternates by round, so drift in the machine's load falls on
both), then the joint model (t = +inf, paper guide) is timed parsing fr-sequoia dev the same
way. Both versions load the same model files (this also checks that they read each other's).
Prints each run's seconds and, per task, the median of each version and the ratio B / A in
speed. Numba's caches are warmed by one untimed run of each version first.
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

        train = ("train", "--train", ewt / "train.ud.conllu", "--dev", small_dev, "--iterations", "1", "--beam", "64",
                 "--tag-column", "xpos", "--update", "early")
        joint_train = ("train", "--train", sequoia / "train.sud.conllu", "--train-b", sequoia / "train.ud.conllu",
                       "--dev", sequoia / "dev.sud.conllu", "--dev-b", sequoia / "dev.ud.conllu", "--iterations", "1",
                       "--beam", "64", "--t", "inf", "--guide", "paper", "--update", "early")
        tasks = {
            "train en-ewt, 1 iteration": lambda v: run(v, *train, "--model", work / f"arc-{v}"),
            "parse en-ewt dev": lambda v: run(v, "parse", "--model", work / "arc-A", "--input", ewt / "dev.ud.conllu",
                                              "--output", work / f"out-{v}.conllu"),
            "parse fr-sequoia dev, joint": lambda v: run(v, "parse", "--model", work / "joint-A", "--input",
                                                         sequoia / "dev.sud.conllu", "--output", work / f"a-{v}.conllu",
                                                         "--output-b", work / f"b-{v}.conllu"),
        }
        for version in versions:  # warm numba's caches; the models of A are the ones parsed
            run(version, *train, "--model", work / f"arc-{version}")
            run(version, *joint_train, "--model", work / f"joint-{version}")
        print(f"A = {versions['A']}\nB = {versions['B']}", flush=True)
        times: dict[str, dict[str, list[float]]] = {task: {"A": [], "B": []} for task in tasks}
        for round_ in range(args.rounds):
            order = ("A", "B") if round_ % 2 == 0 else ("B", "A")
            for task, timed in tasks.items():
                for version in order:
                    seconds = timed(version)
                    times[task][version].append(seconds)
                    print(f"round {round_ + 1} {task:30} {version}: {seconds:6.2f} s", flush=True)
        same = (work / "out-A.conllu").read_bytes() == (work / "out-B.conllu").read_bytes()
        print(f"\nparses of en-ewt dev identical: {same}")
        for task, by_version in times.items():
            a, b = statistics.median(by_version["A"]), statistics.median(by_version["B"])
            print(f"{task:30} median A {a:6.2f} s, B {b:6.2f} s; speed B / A {a / b:.3f}")


if __name__ == "__main__":
    main()
