"""The main paper's experiments (zhang2014 Tables 2-5, Figure 3), rerunnable with one command.

``hetdep experiment joint --treebank DIR --out DIR`` trains the baseline of each scheme and
the joint model for every t, picks t on dev, ablates the guided features, scores baseline
and joint on test with significance tests, and writes ``report.md`` with tables and PNG
plots. Each trained model is kept under ``OUT/models/``: a rerun reuses the models that are
there (delete one to retrain it), so a long run can be stopped and resumed, and several
processes (or machines sharing OUT) can each train some values of t with ``train_only``
before one last run writes the report.
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .evaluation import Evaluation, evaluate
from .joint import JointParser, parse_t, t_text, train_joint
from .pairs import read_pairs
from .parser import ArcStandardParser
from .significance import compare
from .training import TrainOptions, train

DEFAULT_TS = ("1", "2", "3", "4", "inf", "-1", "-2", "-3", "-4", "-inf")


@dataclass
class Scores:
    """One system's evaluations on a split, for scheme a and scheme b."""

    a: Evaluation
    b: Evaluation


def _row(name: str, scores: Scores) -> str:
    a, b = scores.a, scores.b
    return (f"| {name} | {a.uas:.2f} | {a.las:.2f} | {a.cm:.2f} | {b.uas:.2f} | {b.las:.2f} | {b.cm:.2f} "
            f"| {(a.uas + b.uas) / 2:.2f} |")


def run_joint_experiment(treebank: Path, out: Path, *, scheme_a: str = "sud", scheme_b: str = "ud",
                         ts: tuple[str, ...] = DEFAULT_TS, options: TrainOptions = TrainOptions(),
                         log: Callable[[str], None] = print, train_only: bool = False) -> Path | None:
    """Run every experiment of zhang2014 on one treebank pair; returns the report's path.

    ``train_only``: train the baselines and the joint models of ``ts`` that are not there yet,
    then stop (no report; returns None).
    """
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    models = out / "models"
    split = lambda name, scheme: treebank / f"{name}.{scheme}.conllu"  # noqa: E731
    train_pairs = read_pairs(split("train", scheme_a), split("train", scheme_b), require_heads=True)
    dev_pairs = read_pairs(split("dev", scheme_a), split("dev", scheme_b), require_heads=True)
    test_pairs = read_pairs(split("test", scheme_a), split("test", scheme_b), require_heads=True)

    def reusable(directory: Path) -> bool:
        """A model trained earlier with the same options (a model trained otherwise is retrained)."""
        config = directory / "config.json"
        return config.exists() and json.loads(config.read_text(encoding="utf-8")).get("training_options") == vars(options)

    def save(result, directory: Path) -> None:
        result.parser.save(directory, history=[vars(r) for r in result.history], best_iteration=result.best_iteration,
                           training_options=vars(options))

    def baseline(scheme: str) -> ArcStandardParser:
        directory = models / f"baseline-{scheme}"
        if not reusable(directory):
            log(f"training the baseline of scheme {scheme}")
            side = "a" if scheme == scheme_a else "b"
            save(train([getattr(p, side) for p in train_pairs], [getattr(p, side) for p in dev_pairs], options), directory)
        return ArcStandardParser.load(directory)

    def joint(t: str, guided: bool = True) -> JointParser:
        directory = models / f"joint-t{t_text(parse_t(t))}{'' if guided else '-noguide'}"
        if not reusable(directory):
            log(f"training the joint model, t = {t}{'' if guided else ', without guided features'}")
            save(train_joint(train_pairs, dev_pairs, options, t=parse_t(t), guided=guided), directory)
        return JointParser.load(directory)

    def score_baselines(pairs) -> Scores:
        a, b = baseline(scheme_a), baseline(scheme_b)
        return Scores(evaluate([p.a for p in pairs], a.parse(p.a for p in pairs), other_gold=[p.b for p in pairs]),
                      evaluate([p.b for p in pairs], b.parse(p.b for p in pairs), other_gold=[p.a for p in pairs]))

    def score_joint(parser: JointParser, pairs) -> Scores:
        parsed = list(parser.parse(p.a for p in pairs))
        return Scores(evaluate([p.a for p in pairs], [x for x, _ in parsed], other_gold=[p.b for p in pairs]),
                      evaluate([p.b for p in pairs], [y for _, y in parsed], other_gold=[p.a for p in pairs]))

    if train_only:
        baseline(scheme_a), baseline(scheme_b)
        for t in ts:
            joint(t)
        return None

    header = (f"| system | {scheme_a} UAS | {scheme_a} LAS | {scheme_a} CM | {scheme_b} UAS | {scheme_b} LAS "
              f"| {scheme_b} CM | mean UAS |\n|---|---|---|---|---|---|---|---|")
    lines = [f"# Joint vs separate parsing on {treebank.name} (scheme a = {scheme_a}, scheme b = {scheme_b})", ""]
    lines += [f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
              f"beam {options.beam}, at most {options.iterations} iterations (patience {options.patience}), "
              f"{options.update} update, tags from {options.tag_column}; punctuation (gold UPOS PUNCT) excluded.", ""]

    # Table 2: dev, baselines and every t.
    dev_base = score_baselines(dev_pairs)
    dev_joint = {}
    for t in ts:
        dev_joint[t] = score_joint(joint(t), dev_pairs)
        log(f"dev, t = {t}: {scheme_a} UAS {dev_joint[t].a.uas:.2f}, {scheme_b} UAS {dev_joint[t].b.uas:.2f}")
    lines += ["## Table 2: development set", "", header, _row("baseline", dev_base)]
    lines += [_row(f"joint t = {t}", dev_joint[t]) for t in ts]
    best_t = max(ts, key=lambda t: dev_joint[t].a.uas + dev_joint[t].b.uas)
    lines += ["", f"Best t on dev (mean UAS): **{best_t}**.", ""]

    # Table 3: guided features ablation, on dev.
    no_guide = score_joint(joint(best_t, guided=False), dev_pairs)
    lines += ["## Table 3: guided features (dev)", "", header, _row(f"joint t = {best_t}", dev_joint[best_t]),
              _row(f"joint t = {best_t} without guided features", no_guide), ""]

    # Table 4: test, with significance.
    test_base = score_baselines(test_pairs)
    test_joint = score_joint(joint(best_t), test_pairs)
    lines += ["## Table 4: test set", "", header, _row("baseline", test_base), _row(f"joint t = {best_t}", test_joint), ""]
    lines += ["Significance, joint against baseline (per-sentence correct attachments; two-sided p-values; "
              "bootstrap one-sided):", "",
              "| scheme | metric | joint | baseline | sentences better/same/worse | sign test p | paired t-test p | approx. randomization p | bootstrap p |",
              "|---|---|---|---|---|---|---|---|---|"]
    significance = {}
    for scheme, j, b in ((scheme_a, test_joint.a, test_base.a), (scheme_b, test_joint.b, test_base.b)):
        for labeled in (False, True):
            r = compare(j, b, labeled=labeled)
            significance[f"{scheme} {r['metric']}"] = r
            sign = r["sign_test"]
            lines.append(f"| {scheme} | {r['metric']} | {r['a']:.2f} | {r['b']:.2f} | {sign['better']}/{sign['ties']}/{sign['worse']} "
                         f"| {r['sign_test']['p']:.4f} | {r['paired_t_test']['p']:.4f} | {r['approximate_randomization']['p']:.4f} "
                         f"| {r['paired_bootstrap']['p']:.4f} |")
    lines.append("")

    # Table 5: shared vs different arcs (test).
    lines += ["## Table 5: arcs shared by the two gold trees vs arcs that differ (test, UAS)", "",
              "| scheme | arcs | words | baseline | joint |", "|---|---|---|---|---|"]
    for scheme, base_eval, joint_eval in ((scheme_a, test_base.a, test_joint.a), (scheme_b, test_base.b, test_joint.b)):
        for kind in ("shared", "different"):
            lines.append(f"| {scheme} | {kind} | {base_eval.shared[kind]['words']} | {base_eval.shared[kind]['UAS']:.2f} "
                         f"| {joint_eval.shared[kind]['UAS']:.2f} |")
    lines.append("")

    # Figure 3: F1 by dependency distance.
    lines += ["## Figure 3: F1 by dependency length (test)", ""]
    for scheme, base_eval, joint_eval in ((scheme_a, test_base.a, test_joint.a), (scheme_b, test_base.b, test_joint.b)):
        png = out / f"distance-{scheme}.png"
        _plot_distance(base_eval, joint_eval, f"{treebank.name} {scheme} (test)", png)
        lines.append(f"![F1 by length, {scheme}]({png.name})")
    lines += ["", "## Training time", "", "| model | iterations | best iteration | training wall time (s) |", "|---|---|---|---|"]
    for directory in sorted(models.iterdir()):
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        history = config.get("history") or []
        lines.append(f"| {directory.name} | {len(history)} | {config.get('best_iteration')} "
                     f"| {sum(r['seconds'] for r in history):.0f} |")
    lines += ["", f"Wall time of this run: {time.perf_counter() - start:.0f} s (models reused from earlier runs "
              "were not retrained; their training time is in the table above).", ""]
    report = out / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    (out / "significance.json").write_text(json.dumps(significance, indent=1))
    return report


def _plot_distance(base: Evaluation, joint: Evaluation, title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    buckets = [b for b in base.by_distance() if b != "root"]
    figure, axis = plt.subplots(figsize=(5, 3.5))
    for name, evaluation, style in (("baseline", base, "o--"), ("joint", joint, "s-")):
        table = evaluation.by_distance()
        axis.plot(buckets, [table[b]["f1"] for b in buckets], style, label=name)
    axis.set_xlabel("dependency length")
    axis.set_ylabel("F1 (%)")
    axis.set_title(title)
    axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
