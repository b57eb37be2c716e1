"""Reader speed: hetdep's CoNLL-U reader against the `conllu` package, on one file, same run.

    python bench/bench_conllu.py [FILE] [--repeats N]

Prints words/second for each and the ratio (best of N runs each, to damp the machine's noise).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hetdep.treebank.conllu import read_conllu

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "en-ewt" / "train.ud.conllu"


def best_time(function, repeats: int) -> tuple[float, int]:
    best, result = float("inf"), 0
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def ours(path: Path) -> int:
    return sum(len(sentence) for sentence in read_conllu(path))


def theirs(path: Path) -> int:
    import conllu

    with open(path, encoding="utf-8") as handle:
        return sum(sum(isinstance(t["id"], int) for t in sentence) for sentence in conllu.parse_incr(handle))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    t_ours, words = best_time(lambda: ours(args.file), args.repeats)
    t_theirs, words_theirs = best_time(lambda: theirs(args.file), args.repeats)
    assert words == words_theirs, (words, words_theirs)
    print(f"file: {args.file} ({words} words)")
    print(f"hetdep reader : {t_ours:7.3f} s  {words / t_ours:12,.0f} words/s")
    print(f"conllu package: {t_theirs:7.3f} s  {words / t_theirs:12,.0f} words/s")
    print(f"ratio hetdep/conllu: {t_theirs / t_ours:.1f}x faster")


if __name__ == "__main__":
    main()
