"""Fingerprints of a fixed set of short trainings: proof that a refactoring changed no behaviour.

Trains, through the command line only (so the same script runs against any version of the code),
the arc-standard parser (early update, max-violation, DP beam, tag lattices), the joint model
(t = 2 and t = +inf, paper and rich guides), the graph-based parsers (dep1, dep2, dep2 with a
helper) and the tagger, on the shipped 200-sentence sample, and prints for each model the sha256
of the arrays in its ``weights.npz`` (names and bytes: the zip file itself carries timestamps) and
of its output on fr-sequoia dev (the full dev file when ``../shared/data`` is present, else the
sample's). Every option a default could change is given explicitly, so that a change of default
does not show here as a change of behaviour.

    python bench/check_unchanged.py > new.txt
    python bench/check_unchanged.py --src /path/to/old/checkout/src > old.txt
    diff old.txt new.txt
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "src" / "hetdep" / "samples" / "fr-sequoia"
FULL_DEV = ROOT.parent / "shared" / "data" / "fr-sequoia"
SHORT = ["--iterations", "2", "--seed", "3"]
BEAM = ["--beam", "8"]  # the transition-based parsers only: graph-based parsers decode exactly


def array_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with np.load(path, allow_pickle=False) as arrays:
        for name in sorted(arrays.files):
            array = arrays[name]
            digest.update(f"{name}:{array.dtype}:{array.shape}".encode())
            digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:16]


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--src", help="Source folder of the hetdep to run (default: this checkout's src/).")
    args = options.parse_args()
    env = dict(os.environ, PYTHONPATH=str(Path(args.src or ROOT / "src").resolve()))
    dev = {scheme: (FULL_DEV if (FULL_DEV / f"dev.{scheme}.conllu").exists() else SAMPLE) / f"dev.{scheme}.conllu"
           for scheme in ("ud", "sud")}
    train = {scheme: SAMPLE / f"train.{scheme}.conllu" for scheme in ("ud", "sud")}
    small_dev = {scheme: SAMPLE / f"dev.{scheme}.conllu" for scheme in ("ud", "sud")}
    print(f"# parsed: {dev['ud']}", flush=True)

    with tempfile.TemporaryDirectory() as work:
        out = Path(work)

        def hetdep(*words) -> None:
            done = subprocess.run([sys.executable, "-m", "hetdep", *map(str, words)], env=env, cwd=work,
                                  capture_output=True, text=True)
            if done.returncode:
                sys.exit(f"hetdep {' '.join(map(str, words))} failed:\n{done.stderr}")

        def report(name: str, outputs: list[Path]) -> None:
            weights = [array_hash(path) for path in sorted((out / name).rglob("weights.npz"))]
            print(f"{name:22} weights {' '.join(weights)}  output {' '.join(file_hash(p) for p in outputs)}", flush=True)

        single = {"arc-early": [*BEAM, "--update", "early"], "arc-max-violation": [*BEAM, "--update", "max-violation"],
                  "arc-dp": [*BEAM, "--update", "early", "--dp"],
                  "dep1": ["--parser", "dep1"], "dep2": ["--parser", "dep2"]}
        for name, extra in single.items():
            hetdep("train", "--train", train["ud"], "--dev", small_dev["ud"], "--model", out / name, *SHORT, *extra)
            hetdep("parse", "--model", out / name, "--input", dev["ud"], "--output", out / f"{name}.conllu")
            report(name, [out / f"{name}.conllu"])

        hetdep("train", "--parser", "dep1", "--train", train["sud"], "--dev", small_dev["sud"], "--model", out / "helper", *SHORT)
        hetdep("train", "--parser", "dep2", "--helper", out / "helper", "--train", train["ud"], "--dev", small_dev["ud"],
               "--model", out / "dep2-helped", *SHORT)
        hetdep("parse", "--model", out / "dep2-helped", "--with", out / "helper", "--input", dev["ud"],
               "--output", out / "dep2-helped.conllu", "--output-b", out / "helper.conllu")
        report("dep2-helped", [out / "dep2-helped.conllu", out / "helper.conllu"])

        hetdep("train-tagger", "--train", train["ud"], "--dev", small_dev["ud"], "--model", out / "tagger",
               "--iterations", "2", "--seed", "3")
        hetdep("tag", "--model", out / "tagger", "--input", dev["ud"], "--output", out / "tagged.conllu", "--k", "3")
        report("tagger", [out / "tagged.conllu"])

        hetdep("jackknife", "--train", train["ud"], "--output", out / "train.kbest.conllu", "--folds", "2",
               "--iterations", "2", "--k", "3")
        hetdep("train", "--lattice", "--train", out / "train.kbest.conllu", "--dev", small_dev["ud"],
               "--model", out / "arc-lattice", *BEAM, "--update", "early", *SHORT)
        hetdep("parse", "--model", out / "arc-lattice", "--input", out / "tagged.conllu", "--output", out / "arc-lattice.conllu")
        report("arc-lattice", [out / "arc-lattice.conllu"])

        for t in ("2", "inf"):
            for guide in ("paper", "rich"):
                for update in ("early", "max-violation"):
                    if update == "early" and (t, guide) != ("inf", "paper"):
                        continue
                    name = f"joint-t{t}-{guide}-{update}"
                    hetdep("train", "--train", train["sud"], "--train-b", train["ud"], "--dev", small_dev["sud"],
                           "--dev-b", small_dev["ud"], "--model", out / name, "--t", t, "--guide", guide,
                           "--update", update, *BEAM, *SHORT)
                    hetdep("parse", "--model", out / name, "--input", dev["sud"], "--output", out / f"{name}.a.conllu",
                           "--output-b", out / f"{name}.b.conllu")
                    report(name, [out / f"{name}.a.conllu", out / f"{name}.b.conllu"])


if __name__ == "__main__":
    main()
