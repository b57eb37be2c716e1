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
from pathlib import Path
from typing import Callable

from hetdep.evaluation.attachment import Evaluation, evaluate
from hetdep.experiments.common import Scores, cached_model, joint_model_name, scores_row, significance_table
from hetdep.joint.parser import JointParser
from hetdep.joint.schedule import INFINITE, t_label
from hetdep.joint.training import train_joint
from hetdep.learn.perceptron import TrainOptions
from hetdep.transition.parser import ArcStandardParser
from hetdep.transition.training import train
from hetdep.treebank.pairs import read_pairs

DEFAULT_TS = (1, 2, 3, 4, INFINITE, -1, -2, -3, -4, -INFINITE)


def run_joint_experiment(treebank: Path, out: Path, *, scheme_a: str = "sud", scheme_b: str = "ud",
                         ts: tuple[int, ...] = DEFAULT_TS, options: TrainOptions = TrainOptions(), guide: str = "paper",
                         log: Callable[[str], None] = print, train_only: bool = False) -> Path | None:
    """Run every experiment of zhang2014 on one treebank pair; returns the report's path.

    ``guide``: the joint models' guided features ('paper' or 'rich', see ``features.GUIDES``);
    the ablation of Table 3 drops them all.

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

    def baseline(scheme: str) -> ArcStandardParser:
        side = "a" if scheme == scheme_a else "b"
        return cached_model(models / f"baseline-{scheme}", options, ArcStandardParser.load, log,
                            f"training the baseline of scheme {scheme}",
                            lambda: train([getattr(p, side) for p in train_pairs], [getattr(p, side) for p in dev_pairs], options))

    def joint(t: int, guide: str = guide) -> JointParser:
        return cached_model(models / joint_model_name(t, guide), options, JointParser.load,
                            log, f"training the joint model, t = {t_label(t)}, guide: {guide}",
                            lambda: train_joint(train_pairs, dev_pairs, options, t=t, guide=guide))

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
    lines = [f"# Joint vs separate parsing on {treebank.name} (scheme a = {scheme_a}, scheme b = {scheme_b})", "",
             f"Produced by `hetdep experiment joint --treebank {treebank} --out {out} --scheme-a {scheme_a} --scheme-b {scheme_b} "
             f"--ts {','.join(map(t_label, ts))} --beam {options.beam} --iterations {options.iterations} --tag-column {options.tag_column} "
             f"--update {options.update} --guide {guide}`.", ""]
    lines += [f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
              f"beam {options.beam}, at most {options.iterations} iterations (patience {options.patience}), "
              f"{options.update} update, tags from {options.tag_column}; punctuation (gold UPOS PUNCT) excluded.", ""]

    # Table 2: dev, baselines and every t.
    dev_base = score_baselines(dev_pairs)
    dev_joint = {}
    for t in ts:
        dev_joint[t] = score_joint(joint(t), dev_pairs)
        log(f"dev, t = {t_label(t)}: {scheme_a} UAS {dev_joint[t].a.uas:.2f}, {scheme_b} UAS {dev_joint[t].b.uas:.2f}")
    lines += ["## Table 2: development set", "", header, scores_row("baseline", dev_base)]
    lines += [scores_row(f"joint t = {t_label(t)}", dev_joint[t]) for t in ts]
    best_t = max(ts, key=lambda t: dev_joint[t].a.uas + dev_joint[t].b.uas)
    lines += ["", f"Best t on dev (mean UAS): **{t_label(best_t)}**.", ""]

    # Table 3: guided features ablation, on dev (and the paper's guide beside the rich one).
    lines += ["## Table 3: guided features (dev)", "", header, scores_row(f"joint t = {t_label(best_t)}, {guide} guide", dev_joint[best_t])]
    if guide == "rich":
        lines.append(scores_row(f"joint t = {t_label(best_t)}, the paper's guide", score_joint(joint(best_t, guide="paper"), dev_pairs)))
    lines += [scores_row(f"joint t = {t_label(best_t)} without guided features", score_joint(joint(best_t, guide="none"), dev_pairs)), ""]

    # Table 4: test, with significance.
    test_base = score_baselines(test_pairs)
    test_joint = score_joint(joint(best_t), test_pairs)
    lines += ["## Table 4: test set", "", header, scores_row("baseline", test_base), scores_row(f"joint t = {t_label(best_t)}", test_joint), ""]
    rows, significance = significance_table(((scheme_a, test_joint.a, test_base.a), (scheme_b, test_joint.b, test_base.b)))
    lines += rows

    # Table 5: shared vs different arcs (test).
    lines += ["## Table 5: arcs shared by the two gold trees vs arcs that differ (test, UAS)", "",
              "| scheme | arcs | words | baseline | joint |", "|---|---|---|---|---|"]
    for scheme, base_eval, joint_eval in ((scheme_a, test_base.a, test_joint.a), (scheme_b, test_base.b, test_joint.b)):
        for kind in ("shared", "different"):
            lines.append(f"| {scheme} | {kind} | {base_eval.shared[kind]['words']} | {base_eval.shared[kind]['UAS']:.2f} "
                         f"| {joint_eval.shared[kind]['UAS']:.2f} |")
    lines.append("")

    # Treebank conversion (test): the best joint model keeps one gold tree and parses the other.
    lines += ["## Treebank conversion (test)", "",
              "A joint model given the gold tree of one scheme (`hetdep parse --gold-a/--gold-b`) parses the other: "
              "the model that parses the given scheme first (t = +inf from a, t = -inf from b), which learned to read "
              "a whole tree of it, when trained here, else the best t; the separate baseline of the target scheme, "
              "which sees no tree, for comparison.", "",
              "| from | to | by | UAS | LAS |", "|---|---|---|---|---|"]
    for given, source, target, base_eval in ((0, scheme_a, scheme_b, test_base.b), (1, scheme_b, scheme_a, test_base.a)):
        reads_given = INFINITE if given == 0 else -INFINITE
        t = reads_given if reads_given in ts else best_t
        sources = [p.a if given == 0 else p.b for p in test_pairs]
        converted = evaluate([p.b if given == 0 else p.a for p in test_pairs],
                             [pair[1 - given] for pair in joint(t).parse(sources, given=given)])
        lines.append(f"| {source} (gold) | {target} | joint t = {t_label(t)} | {converted.uas:.2f} | {converted.las:.2f} |")
        if (source, target) == ("ud", "sud"):
            from hetdep.convert.ud2sud import convert_sentences

            rules = evaluate([p.b if given == 0 else p.a for p in test_pairs], list(convert_sentences(sources)))
            lines.append(f"| ud (gold) | sud | rules (`hetdep convert --from ud --to sud`) | {rules.uas:.2f} | {rules.las:.2f} |")
        lines.append(f"| (none) | {target} | baseline parser | {base_eval.uas:.2f} | {base_eval.las:.2f} |")
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
