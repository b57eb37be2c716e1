"""The dynamic-programming beam against the plain beam at equal beam size (issue 7, mi-huang2015 Figure 4).

    python bench/bench_dp.py [--treebank ../shared/data/fr-sequoia] [--scheme ud] [--beams 8,16]
                             [--iterations 12] [--update early] [--out docs/experiments/dp-beam]

For each beam size, trains the arc-standard parser twice on train, plain and with --dp,
running every iteration (no early stop), and records dev UAS after each; then parses dev with
each best model (best of 3, in process) for tokens/second, and test for UAS/LAS. Speed ratios
are against the plain beam of the same size, measured in the same run. Writes OUT/report.md
and OUT/dp-iterations.png (dev UAS by training iteration).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

from hetdep.evaluation.attachment import evaluate
from hetdep.learn.perceptron import TrainOptions
from hetdep.transition.training import train
from hetdep.treebank.conllu import read_conllu

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "fr-sequoia"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebank", type=Path, default=DEFAULT)
    parser.add_argument("--scheme", default="ud")
    parser.add_argument("--beams", default="8,16")
    parser.add_argument("--iterations", type=int, default=12)
    parser.add_argument("--update", default="early", choices=["early", "max-violation"])
    parser.add_argument("--out", type=Path, default=Path("docs/experiments/dp-beam"))
    args = parser.parse_args()
    read = lambda split: list(read_conllu(args.treebank / f"{split}.{args.scheme}.conllu"))  # noqa: E731
    train_set, dev, test = read("train"), read("dev"), read("test")
    beams = [int(b) for b in args.beams.split(",")]
    results = {}
    for beam in beams:
        for dp in (False, True):
            options = TrainOptions(beam=beam, iterations=args.iterations, patience=args.iterations, update=args.update, dp=dp)
            start = time.perf_counter()
            results[beam, dp] = (train(train_set, dev, options), time.perf_counter() - start)
            print(f"beam {beam} {'dp' if dp else 'plain'}: trained in {results[beam, dp][1]:.0f} s, dev UAS by iteration "
                  + " ".join(f"{r.dev_uas:.2f}" for r in results[beam, dp][0].history), flush=True)

    def speed(model) -> float:
        words = sum(len(s) for s in dev)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            list(model.parse(dev))
            best = min(best, time.perf_counter() - start)
        return words / best

    rows = []
    for (beam, dp), (result, seconds) in results.items():
        scores = evaluate(test, list(result.parser.parse(test)))
        best = result.history[result.best_iteration - 1]
        rows.append((beam, "DP beam" if dp else "plain beam", result.best_iteration, best.dev_uas, scores.uas, scores.las,
                     speed(result.parser), seconds))
    plain_speed = {beam: tokens for beam, name, *_, tokens, _ in rows if name == "plain beam"}
    args.out.mkdir(parents=True, exist_ok=True)
    _plot(results, args.out / "dp-iterations.png", f"{args.treebank.name} {args.scheme}")
    lines = [f"# Dynamic-programming beam vs plain beam ({args.treebank.name}, {args.scheme})", "",
             f"Produced by `python bench/bench_dp.py --treebank {args.treebank} --scheme {args.scheme} --beams {args.beams} "
             f"--iterations {args.iterations} --update {args.update} --out {args.out}`.", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; arc-standard parser, "
             f"{args.update} update, every iteration run; speed: dev parsed in process, best of 3.", "",
             "| beam | search | best iteration | dev UAS | test UAS | test LAS | dev tokens/s | speed ratio | training s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for beam, name, iteration, dev_uas, uas, las, tokens, seconds in rows:
        lines.append(f"| {beam} | {name} | {iteration} | {dev_uas:.2f} | {uas:.2f} | {las:.2f} | {tokens:,.0f} | "
                     f"{tokens / plain_speed[beam]:.2f} | {seconds:.0f} |")
    lines += ["", "Dev UAS after each training iteration:", "", "![dev UAS by iteration](dp-iterations.png)", ""]
    (args.out / "report.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


def _plot(results, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5, 3.5))
    for (beam, dp), (result, _) in results.items():
        history = result.history
        axis.plot([r.iteration for r in history], [r.dev_uas for r in history], "s-" if dp else "o--",
                  label=f"{'DP' if dp else 'plain'} beam {beam}")
    axis.set_xlabel("training iteration")
    axis.set_ylabel("dev UAS (%)")
    axis.set_title(title)
    axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


if __name__ == "__main__":
    main()
