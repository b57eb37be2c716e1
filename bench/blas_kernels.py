"""Raw text to both trees under OpenBLAS's kernel sets, whole processes in turns: what the BLAS kernels
NumPy runs make of hetdep's speed, and that the trees stay the same.

OpenBLAS picks its kernels by the processor it finds, unless ``OPENBLAS_CORETYPE`` names a set; this
project's machines set ``Haswell`` (AVX2) in their environment on processors with AVX-512, where
OpenBLAS's own choice is ``SkylakeX``. ``--kernels`` lists the sets to time (``auto``: OpenBLAS's own
choice, the variable removed); each round runs every set once, in turn.

    python bench/blas_kernels.py --gold ../shared/data/fr-sequoia/test.ud.conllu [--model fr] \
        [--kernels Haswell auto] [--threads 1] [--rounds 3]
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

from hetdep.tokenizer.text import document_text
from hetdep.treebank.conllu import read_conllu

SHOW_KERNELS = "from hetdep.threads import blas_kernels; print(blas_kernels())"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gold", type=Path, required=True, help="the test file whose # text is parsed")
    parser.add_argument("--model", default="fr")
    parser.add_argument("--kernels", nargs="+", default=["Haswell", "auto"], help="OPENBLAS_CORETYPE values; auto: unset")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    gold = list(read_conllu(args.gold))
    words = sum(len(sentence) for sentence in gold)
    seconds: dict[str, list[float]] = {kernels: [] for kernels in args.kernels}
    outputs: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as work:
        raw = Path(work) / "raw.txt"
        raw.write_text(document_text(gold), encoding="utf-8")
        environments = {}
        for kernels in args.kernels:
            environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
            if kernels != "auto":
                environment["OPENBLAS_CORETYPE"] = kernels
            environments[kernels] = environment
            found = subprocess.run([sys.executable, "-c", SHOW_KERNELS], env=environment, capture_output=True, text=True,
                                   check=True).stdout.strip()
            print(f"{kernels}: {found}")
        for _ in range(args.rounds):
            for kernels, environment in environments.items():
                out = [Path(work) / f"{kernels}.{scheme}.conllu" for scheme in "ab"]
                started = time.perf_counter()
                subprocess.run(["hetdep", "parse", "--model", args.model, "--input", str(raw), "--output", str(out[0]),
                                "--output-b", str(out[1]), "--threads", str(args.threads), "--quiet"], env=environment,
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                seconds[kernels].append(time.perf_counter() - started)
                outputs[kernels] = out[0].read_bytes() + out[1].read_bytes()
    first = args.kernels[0]
    for kernels in args.kernels:
        rates = sorted(words / s for s in seconds[kernels])
        ratio = statistics.median(seconds[first]) / statistics.median(seconds[kernels])
        same = "the same trees" if outputs[kernels] == outputs[first] else "OTHER TREES"
        print(f"{kernels:9} {rates[0]:,.0f}-{rates[-1]:,.0f} words/s (median {statistics.median(rates):,.0f}), "
              f"{ratio:.2f}x {first}'s, {same} as {first}")
    print(f"({words:,} words, --threads {args.threads}, medians of {args.rounds} rounds in turns)")


if __name__ == "__main__":
    main()
