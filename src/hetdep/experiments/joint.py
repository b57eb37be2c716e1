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
from hetdep.experiments.common import (
    PairModels,
    Scores,
    score_trees,
    scores_header,
    scores_row,
    significance_table,
)
from hetdep.joint.parser import JointParser
from hetdep.joint.schedule import INFINITE, t_label
from hetdep.learn.perceptron import TrainOptions
from hetdep.treebank.pairs import read_pairs

DEFAULT_TS = (1, 2, 3, 4, INFINITE, -1, -2, -3, -4, -INFINITE)


def run_joint_experiment(treebank: Path, out: Path, *, scheme_a: str = "sud", scheme_b: str = "ud",
                         ts: tuple[int, ...] = DEFAULT_TS, options: TrainOptions = TrainOptions(), guide: str = "rich",
                         log: Callable[[str], None] = print, train_only: bool = False) -> Path | None:
    """Run every experiment of zhang2014 on one treebank pair; returns the report's path.

    ``guide``: the joint models' guided features ('paper' or 'rich', see ``features.GUIDES``);
    the ablation of Table 3 drops them all.

    ``train_only``: train the baselines and the joint models of ``ts`` that are not there yet,
    then stop (no report; returns None).
    """
    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    experiment = JointExperiment(treebank, out, (scheme_a, scheme_b), ts, options, guide, log)
    if train_only:
        experiment.train_all()
        return None
    lines = experiment.heading()
    dev_base = score_trees(experiment.dev, *experiment.baseline_trees(experiment.dev), other_gold=True)
    dev_joint = experiment.scores_by_t()
    best_t = max(ts, key=lambda t: dev_joint[t].a.uas + dev_joint[t].b.uas)
    lines += experiment.table_2(dev_base, dev_joint, best_t) + experiment.table_3(dev_joint, best_t)
    test_base = score_trees(experiment.test, *experiment.baseline_trees(experiment.test), other_gold=True)
    test_joint = experiment.score_joint(experiment.models.joint(best_t, guide), experiment.test)
    table_4, significance = experiment.table_4(test_base, test_joint, best_t)
    lines += table_4 + experiment.table_5(test_base, test_joint) + experiment.conversion(test_base, best_t)
    lines += experiment.figure_3(test_base, test_joint)
    lines += ["", "## Training time", "", *experiment.models.training_times(),
              "", f"Wall time of this run: {time.perf_counter() - start:.0f} s (models reused from earlier runs "
              "were not retrained; their training time is in the table above).", ""]
    report = out / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    (out / "significance.json").write_text(json.dumps(significance, indent=1))
    return report


class JointExperiment:
    """zhang2014's experiment on one treebank pair: its data, its models, and one method per part of the report."""

    def __init__(self, treebank: Path, out: Path, schemes: tuple[str, str], ts: tuple[int, ...], options: TrainOptions,
                 guide: str, log: Callable[[str], None]):
        self.treebank, self.out, self.schemes, self.ts, self.options, self.guide, self.log = (
            treebank, out, schemes, ts, options, guide, log)
        train_pairs, dev_pairs, self.test = (
            read_pairs(*(treebank / f"{name}.{scheme}.conllu" for scheme in schemes), require_heads=True)
            for name in ("train", "dev", "test"))
        self.dev = dev_pairs
        self.models = PairModels(out / "models", schemes, train_pairs, dev_pairs, options, log)

    def train_all(self) -> None:
        self.models.baseline(0), self.models.baseline(1)
        for t in self.ts:
            self.models.joint(t, self.guide)

    def baseline_trees(self, pairs) -> tuple[list, list]:
        """Each scheme's baseline trees of the pairs."""
        return tuple(list(self.models.baseline(side).parse(p[side] for p in pairs)) for side in (0, 1))

    def score_joint(self, parser: JointParser, pairs) -> Scores:
        parsed = list(parser.parse(p.a for p in pairs))
        return score_trees(pairs, [x for x, _ in parsed], [y for _, y in parsed], other_gold=True)

    @property
    def header(self) -> str:
        return scores_header(*self.schemes)

    def heading(self) -> list[str]:
        (scheme_a, scheme_b), options = self.schemes, self.options
        return [f"# Joint vs separate parsing on {self.treebank.name} (scheme a = {scheme_a}, scheme b = {scheme_b})", "",
                f"Produced by `hetdep experiment joint --treebank {self.treebank} --out {self.out} --scheme-a {scheme_a} "
                f"--scheme-b {scheme_b} --ts {','.join(map(t_label, self.ts))} --beam {options.beam} "
                f"--iterations {options.iterations} --tag-column {options.tag_column} --update {options.update} "
                f"--guide {self.guide}`.", "",
                f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
                f"beam {options.beam}, at most {options.iterations} iterations (patience {options.patience}), "
                f"{options.update} update, tags from {options.tag_column}; punctuation (gold UPOS PUNCT) excluded.", ""]

    def scores_by_t(self) -> dict[int, Scores]:
        """Dev scores of the joint model of every t."""
        dev_joint = {}
        for t in self.ts:
            dev_joint[t] = self.score_joint(self.models.joint(t, self.guide), self.dev)
            self.log(f"dev, t = {t_label(t)}: {self.schemes[0]} UAS {dev_joint[t].a.uas:.2f}, "
                     f"{self.schemes[1]} UAS {dev_joint[t].b.uas:.2f}")
        return dev_joint

    def table_2(self, dev_base: Scores, dev_joint: dict[int, Scores], best_t: int) -> list[str]:
        """Dev: the baselines and every t."""
        return ["## Table 2: development set", "", self.header, scores_row("baseline", dev_base),
                *(scores_row(f"joint t = {t_label(t)}", dev_joint[t]) for t in self.ts),
                "", f"Best t on dev (mean UAS): **{t_label(best_t)}**.", ""]

    def table_3(self, dev_joint: dict[int, Scores], best_t: int) -> list[str]:
        """The guided features' ablation on dev (and the paper's guide beside the rich one)."""
        lines = ["## Table 3: guided features (dev)", "", self.header,
                 scores_row(f"joint t = {t_label(best_t)}, {self.guide} guide", dev_joint[best_t])]
        if self.guide == "rich":
            lines.append(scores_row(f"joint t = {t_label(best_t)}, the paper's guide",
                                    self.score_joint(self.models.joint(best_t, "paper"), self.dev)))
        return lines + [scores_row(f"joint t = {t_label(best_t)} without guided features",
                                   self.score_joint(self.models.joint(best_t, "none"), self.dev)), ""]

    def table_4(self, test_base: Scores, test_joint: Scores, best_t: int) -> tuple[list[str], dict]:
        """Test, with significance tests."""
        rows, significance = significance_table(((self.schemes[0], test_joint.a, test_base.a),
                                                 (self.schemes[1], test_joint.b, test_base.b)))
        return ["## Table 4: test set", "", self.header, scores_row("baseline", test_base),
                scores_row(f"joint t = {t_label(best_t)}", test_joint), "", *rows], significance

    def table_5(self, test_base: Scores, test_joint: Scores) -> list[str]:
        """Test UAS on arcs shared by the two gold trees and on the others."""
        lines = ["## Table 5: arcs shared by the two gold trees vs arcs that differ (test, UAS)", "",
                 "| scheme | arcs | words | baseline | joint |", "|---|---|---|---|---|"]
        for scheme, base_eval, joint_eval in ((self.schemes[0], test_base.a, test_joint.a),
                                              (self.schemes[1], test_base.b, test_joint.b)):
            for kind in ("shared", "different"):
                lines.append(f"| {scheme} | {kind} | {base_eval.shared[kind]['words']} | {base_eval.shared[kind]['UAS']:.2f} "
                             f"| {joint_eval.shared[kind]['UAS']:.2f} |")
        return lines + [""]

    def conversion(self, test_base: Scores, best_t: int) -> list[str]:
        """Treebank conversion on test: a joint model keeps one gold tree and parses the other."""
        lines = ["## Treebank conversion (test)", "",
                 "A joint model given the gold tree of one scheme (`hetdep parse --gold-a/--gold-b`) parses the other: "
                 "the model that parses the given scheme first (t = +inf from a, t = -inf from b), which learned to read "
                 "a whole tree of it, when trained here, else the best t; the separate baseline of the target scheme, "
                 "which sees no tree, for comparison.", "",
                 "| from | to | by | UAS | LAS |", "|---|---|---|---|---|"]
        (scheme_a, scheme_b), pairs = self.schemes, self.test
        for given, source, target, base_eval in ((0, scheme_a, scheme_b, test_base.b), (1, scheme_b, scheme_a, test_base.a)):
            reads_given = INFINITE if given == 0 else -INFINITE
            t = reads_given if reads_given in self.ts else best_t
            sources, targets = [p[given] for p in pairs], [p[1 - given] for p in pairs]
            converted = evaluate(targets, [pair[1 - given] for pair in self.models.joint(t, self.guide).parse(sources, given=given)])
            lines.append(f"| {source} (gold) | {target} | joint t = {t_label(t)} | {converted.uas:.2f} | {converted.las:.2f} |")
            if (source, target) == ("ud", "sud"):
                from hetdep.convert.ud2sud import convert_sentences

                rules = evaluate(targets, list(convert_sentences(sources)))
                lines.append(f"| ud (gold) | sud | rules (`hetdep convert --from ud --to sud`) | {rules.uas:.2f} | {rules.las:.2f} |")
            lines.append(f"| (none) | {target} | baseline parser | {base_eval.uas:.2f} | {base_eval.las:.2f} |")
        return lines + [""]

    def figure_3(self, test_base: Scores, test_joint: Scores) -> list[str]:
        """F1 by dependency length on test, one PNG per scheme."""
        lines = ["## Figure 3: F1 by dependency length (test)", ""]
        for scheme, base_eval, joint_eval in ((self.schemes[0], test_base.a, test_joint.a),
                                              (self.schemes[1], test_base.b, test_joint.b)):
            png = self.out / f"distance-{scheme}.png"
            _plot_distance(base_eval, joint_eval, f"{self.treebank.name} {scheme} (test)", png)
            lines.append(f"![F1 by length, {scheme}]({png.name})")
        return lines


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
