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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence

from .evaluation import Evaluation, evaluate
from .joint import INFINITE, JointParser, parse_t, t_text, train_joint
from .model import ModelFileError
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


def cached_model(directory: Path, options: TrainOptions, load: Callable[[Path], object], log: Callable[[str], None],
                 message: str, train_model: Callable[[], object]) -> object:
    """The model in ``directory`` if it was trained with these options (and this hetdep can read
    it), else trained now and saved there (with its history and options); experiments rerun with
    the same options reuse it."""
    config = directory / "config.json"
    stored = json.loads(config.read_text(encoding="utf-8")).get("training_options") if config.exists() else None
    # Options added to TrainOptions after a model was trained count as their defaults.
    if stored is not None and {**vars(TrainOptions()), **stored} == vars(options):
        try:
            return load(directory)
        except ModelFileError as error:
            log(f"retraining a cached model this hetdep cannot use: {error}")
    log(message)
    result = train_model()
    result.parser.save(directory, history=[vars(r) for r in result.history], best_iteration=result.best_iteration,
                       training_options=vars(options))
    return load(directory)


def _significance(schemes, system: str = "joint", against: str = "baseline") -> tuple[list[str], dict]:
    """Table rows and a JSON-able record of system-vs-reference tests, for (scheme, system, reference) evaluations."""
    lines = [f"Significance, {system} against {against} (per-sentence correct attachments; two-sided p-values; "
             "bootstrap one-sided):", "",
             f"| scheme | metric | {system} | {against} | sentences better/same/worse | sign test p | paired t-test p | approx. randomization p | bootstrap p |",
             "|---|---|---|---|---|---|---|---|---|"]
    significance = {}
    for scheme, j, b in schemes:
        for labeled in (False, True):
            r = compare(j, b, labeled=labeled)
            significance[f"{scheme} {r['metric']}"] = r
            sign = r["sign_test"]
            lines.append(f"| {scheme} | {r['metric']} | {r['a']:.2f} | {r['b']:.2f} | {sign['better']}/{sign['ties']}/{sign['worse']} "
                         f"| {r['sign_test']['p']:.4f} | {r['paired_t_test']['p']:.4f} | {r['approximate_randomization']['p']:.4f} "
                         f"| {r['paired_bootstrap']['p']:.4f} |")
    return lines + [""], significance


def joint_model_name(t: str, guide: str) -> str:
    """The folder of a joint model under an experiment's ``models/`` (e.g. ``joint-t+inf-rich``)."""
    return f"joint-t{t_text(parse_t(t))}" + {"paper": "", "rich": "-rich", "none": "-noguide"}[guide]


def run_joint_experiment(treebank: Path, out: Path, *, scheme_a: str = "sud", scheme_b: str = "ud",
                         ts: tuple[str, ...] = DEFAULT_TS, options: TrainOptions = TrainOptions(), guide: str = "paper",
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

    def joint(t: str, guide: str = guide) -> JointParser:
        return cached_model(models / joint_model_name(t, guide), options, JointParser.load,
                            log, f"training the joint model, t = {t}, guide: {guide}",
                            lambda: train_joint(train_pairs, dev_pairs, options, t=parse_t(t), guide=guide))

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
             f"--ts {','.join(ts)} --beam {options.beam} --iterations {options.iterations} --tag-column {options.tag_column} "
             f"--update {options.update} --guide {guide}`.", ""]
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

    # Table 3: guided features ablation, on dev (and the paper's guide beside the rich one).
    lines += ["## Table 3: guided features (dev)", "", header, _row(f"joint t = {best_t}, {guide} guide", dev_joint[best_t])]
    if guide == "rich":
        lines.append(_row(f"joint t = {best_t}, the paper's guide", score_joint(joint(best_t, guide="paper"), dev_pairs)))
    lines += [_row(f"joint t = {best_t} without guided features", score_joint(joint(best_t, guide="none"), dev_pairs)), ""]

    # Table 4: test, with significance.
    test_base = score_baselines(test_pairs)
    test_joint = score_joint(joint(best_t), test_pairs)
    lines += ["## Table 4: test set", "", header, _row("baseline", test_base), _row(f"joint t = {best_t}", test_joint), ""]
    rows, significance = _significance(((scheme_a, test_joint.a, test_base.a), (scheme_b, test_joint.b, test_base.b)))
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
    first = {parse_t(t): t for t in ts}
    for given, source, target, base_eval in ((0, scheme_a, scheme_b, test_base.b), (1, scheme_b, scheme_a, test_base.a)):
        t = first.get(INFINITE if given == 0 else -INFINITE, best_t)
        sources = [p.a if given == 0 else p.b for p in test_pairs]
        converted = evaluate([p.b if given == 0 else p.a for p in test_pairs],
                             [pair[1 - given] for pair in joint(t).parse(sources, given=given)])
        lines.append(f"| {source} (gold) | {target} | joint t = {t} | {converted.uas:.2f} | {converted.las:.2f} |")
        if (source, target) == ("ud", "sud"):
            from .ud2sud import convert_sentences

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


@dataclass
class Treebank:
    """One side of the joint-inference setting: a name and its train, dev (tuning) and test sentences."""

    name: str
    train: list
    dev: list
    test: list


def consensus_setting(name: str, data: Path) -> tuple[Treebank, Treebank]:
    """The two treebanks of a zhou-zhao2013 setting, from ``data`` (``../shared/data``).

    ``fr``: fr-sequoia UD (train/dev/test) with fr-gsd SUD, whose dev file is split into its first
    1276 sentences for training and the last 200 for tuning, its test file for testing.
    ``en``: en-ewt UD with NLTK's WSJ sample converted by our Penn2Malt rules (unlabeled: one label,
    ``dep``), split by file number: wsj_0001-0159 train, 0160-0179 dev, 0180-0199 test.
    """
    from .conllu import read_conllu

    if name == "fr":
        sequoia = data / "fr-sequoia"
        gsd = list(read_conllu(data / "fr-gsd" / "dev.sud.conllu"))
        return (Treebank("fr-sequoia (UD)", *(list(read_conllu(sequoia / f"{split}.ud.conllu")) for split in ("train", "dev", "test"))),
                Treebank("fr-gsd (SUD)", gsd[:1276], gsd[1276:], list(read_conllu(data / "fr-gsd" / "test.sud.conllu"))))
    if name == "en":
        from .headrules import convert_trees, load_table
        from .ptb import read_trees

        ewt = data / "en-ewt"
        parts: dict[str, list] = {"train": [], "dev": [], "test": []}
        for sentence in convert_trees(read_trees(data / "en-wsj-sample" / "treebank.zip"), load_table("penn2malt")):
            number = int(sentence.sent_id.split("wsj_")[1][:4])
            split = "train" if number <= 159 else "dev" if number <= 179 else "test"
            parts[split].append(sentence.with_tree(sentence.heads, ["dep"] * len(sentence)))
        return (Treebank("en-ewt (UD)", *(list(read_conllu(ewt / f"{split}.ud.conllu")) for split in ("train", "dev", "test"))),
                Treebank("WSJ sample (Penn2Malt)", parts["train"], parts["dev"], parts["test"]))
    raise ValueError(f"unknown setting {name!r}: fr or en")


CONSENSUS_SYSTEMS = {"+edge": ("edge",), "+root": ("root",), "+sib": ("sibling",), "+gp": ("grand",),
                     "+all": ("edge", "root", "sibling", "grand")}


def run_consensus_experiment(setting: str, data: Path, out: Path, *, kinds: tuple[str, ...] = ("dep1", "dep2"),
                             options: TrainOptions = TrainOptions(iterations=10, patience=3), k: int = 16, iterations: int = 4,
                             grid: tuple[float, ...] = (0.0, 1.0, 2.0, 5.0, 10.0), log: Callable[[str], None] = print,
                             treebanks: tuple[Treebank, Treebank] | None = None) -> Path:
    """zhou-zhao2013 Tables 1 and 4 for each parser kind: baselines, consensus features (each alone
    and all together, weights tuned on each treebank's dev set), concatenation baselines, and
    sentence-level sign tests. ``treebanks`` replaces the setting's own (tests run it small)."""
    from .consensus import SUPPORT, ConsensusOptions, error_support, joint_parse, start, tune
    from .graph import KINDS, GraphParser, train_concatenated, train_graph

    began = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    a, b = treebanks or consensus_setting(setting, data)
    models = out / "models"

    def trained(name: str, kind: str, train: Callable[[], object]) -> GraphParser:
        def train_afresh():
            for key in [key for key in tuned_cache if key.startswith(f"{kind} ") and name in ("a", "b")]:
                del tuned_cache[key]  # weights tuned for the older baselines no longer apply
            return train()

        return cached_model(models / f"{kind}-{name}", options, lambda directory: GraphParser.load(directory, kind), log,
                            f"training {kind}: {name}", train_afresh)

    base = ConsensusOptions(k=k, iterations=iterations)
    tuned_file = out / "tuned.json"  # tuned weights, reused by a rerun with the same models
    tuned_cache = json.loads(tuned_file.read_text(encoding="utf-8")) if tuned_file.exists() else {}
    rows: dict[tuple[str, str], tuple] = {}  # (kind, system) -> UAS a, UAS b, options a, options b
    evaluations: dict[tuple[str, str], tuple] = {}
    concatenation_rows: dict[tuple[str, str], tuple[float, float]] = {}
    supports: dict[str, tuple[dict[str, int], dict[str, int]]] = {}  # kind -> each baseline's wrong dev heads by support

    def write_report() -> Path:
        """The report of the kinds done so far (written after each, so a long run leaves one behind)."""
        def weights(system: str, chosen: ConsensusOptions) -> str:
            if system not in CONSENSUS_SYSTEMS:
                return "-"
            return ", ".join(f"{name} {getattr(chosen, name):g}" for name in ("edge", "root", "sibling", "grand")
                             if name in CONSENSUS_SYSTEMS[system]) or "-"

        lines = [f"# Joint inference across treebanks, setting {setting}: {a.name} and {b.name}", "",
                 f"Produced by `hetdep experiment consensus --setting {setting} --data {data} --out {out} --parsers {','.join(kinds)} "
                 f"--iterations {options.iterations} --k {k} --rounds {iterations}`.", "",
                 f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
                 f"at most {options.iterations} training iterations (patience {options.patience}), tags from {options.tag_column}; "
                 f"k-best lists of {k}, {iterations} rounds of exchange; consensus weights tuned on each treebank's dev set "
                 f"over {list(grid)}, one weight at a time (see `hetdep.consensus.tune`); punctuation (gold UPOS PUNCT) excluded.", "",
                 f"Sentences train / dev / test: {a.name} {len(a.train)} / {len(a.dev)} / {len(a.test)}; "
                 f"{b.name} {len(b.train)} / {len(b.dev)} / {len(b.test)}.", "",
                 "## Table 1: test UAS", "", f"| system | {a.name} | {b.name} | weights ({a.name}) | weights ({b.name}) |",
                 "|---|---|---|---|---|"]
        for (kind, system), (uas_a, uas_b, options_a, options_b) in rows.items():
            lines.append(f"| {kind} {system} | {uas_a:.2f} | {uas_b:.2f} | {weights(system, options_a)} | {weights(system, options_b)} |")
        lines += [f"| {kind} {system} | {uas_a:.2f} | {uas_b:.2f} | - | - |" for (kind, system), (uas_a, uas_b) in concatenation_rows.items()]
        lines += ["", "+learned: each parser retrained with agreement features (the other baseline's k-best arc mass, binned, "
                  "with whether the other mostly has the reverse arc, the head as grandparent, or the two words as "
                  "siblings, conjoined with arc direction, length and tags; `hetdep train --helper`), parsing with the other baseline's "
                  "list (one exchange; no weight tuned).", "",
                  "Concatenation: one parser trained on both training sets, labels kept apart (`a:nsubj`, `b:subj`), "
                  "the iteration chosen by the mean dev UAS. Every arc feature of these parsers is labeled, so parsed as its "
                  "treebank the concatenated parser shares only its vocabulary and (dep2) its unlabeled sibling and grandparent "
                  "weights between the schemes; the feature copies add unlabeled arc weights shared by both.", "",
                  "## Table 4: sentences better / unchanged / worse than the baseline (test, UAS), sign test", "",
                  "Correct heads: the system's minus the baseline's, over all scored words.", "",
                  "| system | treebank | better | unchanged | worse | sign test p | correct heads |", "|---|---|---|---|---|---|---|"]
        for kind, system in rows:
            if system == "baseline":
                continue
            for side, treebank in ((0, a), (1, b)):
                system_eval, baseline_eval = evaluations[kind, system][side], evaluations[kind, "baseline"][side]
                sign = compare(system_eval, baseline_eval)["sign_test"]
                gained = int(system_eval.counts.heads.sum() - baseline_eval.counts.heads.sum())
                lines.append(f"| {kind} {system} | {treebank.name} | {sign['better']} | {sign['ties']} | {sign['worse']} | "
                             f"{sign['p']:.4f} | {gained:+d} of {system_eval.words} |")
        lines += ["", "## Table 5: the baselines' wrong heads on dev, by what the other baseline's trees relate the word to", "",
                  f"Related: the arc, its reverse, the head as grandparent or the two words as siblings holds half the mass of "
                  f"the other baseline's {k}-best trees (what the agreement features see; `hetdep.consensus.error_support`). "
                  "The first column is what agreement features could mend, the second what following the other parser would "
                  "break further: a parser learns to follow it only in contexts (tags, direction, length) where the first "
                  "outweighs the second.", "",
                  f"| parser | treebank | wrong heads | {' | '.join(SUPPORT)} |", "|---|---|---|" + "---|" * len(SUPPORT)]
        for kind, sides in supports.items():
            for treebank, counts in zip((a, b), sides):
                lines.append(f"| {kind} | {treebank.name} | {sum(counts.values())} | "
                             + " | ".join(str(counts[name]) for name in SUPPORT) + " |")
        lines += ["", f"Wall time of this run: {time.perf_counter() - began:.0f} s (models in {models} are reused by a rerun).", ""]
        report = out / "report.md"
        report.write_text("\n".join(lines), encoding="utf-8")
        return report

    for kind in kinds:
        order = KINDS[kind]
        parser_a = trained("a", kind, lambda: train_graph(a.train, a.dev, options, order=order))
        parser_b = trained("b", kind, lambda: train_graph(b.train, b.dev, options, order=order))
        starts = {side: [start(first, second, sentence, base, base) for sentence in treebank.test]
                  for side, first, second, treebank in (("a", parser_a, parser_b, a), ("b", parser_b, parser_a, b))}

        def score(system: str, options_a: ConsensusOptions, options_b: ConsensusOptions, first=parser_a, second=parser_b) -> None:
            known = first is parser_a and second is parser_b  # the cached starts hold the baselines' lists
            eval_a = evaluate(a.test, [x for x, _ in joint_parse(first, parser_b, a.test, options_a, base,
                                                                  starts["a"] if known else None)])
            eval_b = evaluate(b.test, [x for x, _ in joint_parse(second, parser_a, b.test, options_b, base,
                                                                  starts["b"] if known else None)])
            rows[kind, system] = (eval_a.uas, eval_b.uas, options_a, options_b)
            evaluations[kind, system] = (eval_a, eval_b)
            log(f"test, {kind} {system}: {a.name} UAS {eval_a.uas:.2f}, {b.name} UAS {eval_b.uas:.2f}")

        score("baseline", base, base)
        supports[kind] = (error_support(parser_a, parser_b, a.dev, k), error_support(parser_b, parser_a, b.dev, k))
        for system, names in CONSENSUS_SYSTEMS.items():
            grids = {name: grid for name in names}
            key = f"{kind} {system} grid={list(grid)} k={k} rounds={iterations}"
            if key not in tuned_cache:
                tuned_cache[key] = [asdict(tune(first, second, treebank.dev, grids, base)[0])
                                    for first, second, treebank in ((parser_a, parser_b, a), (parser_b, parser_a, b))]
                tuned_file.write_text(json.dumps(tuned_cache, indent=1), encoding="utf-8")
            score(system, *(ConsensusOptions(**chosen) for chosen in tuned_cache[key]))
        helped_a = trained("a-helped", kind, lambda: train_graph(a.train, a.dev, options, order=order, helper=parser_b, helper_k=k))
        helped_b = trained("b-helped", kind, lambda: train_graph(b.train, b.dev, options, order=order, helper=parser_a, helper_k=k))
        score("+learned", base, base, helped_a, helped_b)
        both = {"a": (a.train, a.dev), "b": (b.train, b.dev)}
        concatenated = trained("concatenated", kind, lambda: train_concatenated(both, options, order=order))
        augmented = trained("concatenated-augmented", kind, lambda: train_concatenated(both, options, order=order, augmented=True))
        for system, (first, second) in {
            "concatenation, scheme unknown at parse time (the paper's)": (concatenated, concatenated),
            "concatenation, parsed as its treebank (its labels only)": (concatenated.for_treebank("a"), concatenated.for_treebank("b")),
            "concatenation with per-treebank feature copies (Daume 2007)": (augmented.for_treebank("a"), augmented.for_treebank("b")),
        }.items():
            concatenation_rows[kind, system] = (evaluate(a.test, list(first.parse(a.test))).uas,
                                                evaluate(b.test, list(second.parse(b.test))).uas)
            log(f"test, {kind} {system}: {a.name} UAS {concatenation_rows[kind, system][0]:.2f}, "
                f"{b.name} UAS {concatenation_rows[kind, system][1]:.2f}")
        report = write_report()
    return report


LATTICE_WEIGHTS = (0.0, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)  # weights of the tagger's log-probabilities tried on dev


def run_predicted_tags_experiment(treebank: Path, out: Path, *, scheme_a: str = "sud", scheme_b: str = "ud",
                                  ts: Sequence[str] = ("inf",), options: TrainOptions = TrainOptions(), folds: int = 10,
                                  tagger_iterations: int = 10, lattice_k: int = 3, lattice_reference: str = "gold",
                                  lattice_weight: float = 0.0, log: Callable[[str], None] = print,
                                  train_only: bool = False) -> Path | None:
    """Baseline and joint parsers with predicted tags, as the papers parse (issue 7), and
    arc-standard parsers over tag lattices of the ``lattice_k`` best tags (0: none).

    A joint model is trained for each t of ``ts``; the one with the best mean UAS on tagged dev is
    tested (and used over lattices), as t is chosen in 'experiment joint'. ``train_only`` trains
    the 1-best models OUT lacks and stops, so several processes can share one OUT.

    Lattice parsers learn to reach a reference path of tags: the gold tag where the tagger offered
    it (``lattice_reference`` "gold") or the tagger's best, as the 1-best parsers read
    ("predicted"), adding the tagger's log-probabilities times ``lattice_weight`` as they search;
    the weight they parse with is then chosen on dev.

    UPOS of train is jackknifed (``folds`` taggers, each never seeing its fold); a tagger trained
    on all of train tags dev and test. Both schemes share the words, so one tagging serves both
    files. The parsers train on the jackknifed train, pick their iteration on tagged dev, and
    are scored on tagged test against the gold trees (punctuation by gold UPOS). Lattice
    parsers train on the gold tags with the jackknifed candidates beside them. Tagged files
    (OUT/tagged) and models (OUT/models) are reused by a rerun with the same options.
    """
    from dataclasses import replace

    from .conllu import MISC, UPOS, write_conllu
    from .tagger import TaggerOptions, jackknife, parse_kbest, tag_accuracy, train_tagger

    if lattice_reference not in ("gold", "predicted"):
        raise ValueError(f"lattice_reference is 'gold' or 'predicted', not {lattice_reference!r}")
    start = time.perf_counter()
    tagged_dir, models = out / "tagged", out / "models"
    tagged_dir.mkdir(parents=True, exist_ok=True)
    split = lambda name, scheme: treebank / f"{name}.{scheme}.conllu"  # noqa: E731
    gold = {name: read_pairs(split(name, scheme_a), split(name, scheme_b), require_heads=True) for name in ("train", "dev", "test")}
    tagger_options = TaggerOptions(column="upos", iterations=tagger_iterations, seed=options.seed)
    record = tagged_dir / "options.json"
    k = max(lattice_k, 1)
    wanted = {"folds": folds, "tagger_iterations": tagger_iterations, "seed": options.seed, "k": k}
    if not (record.exists() and json.loads(record.read_text(encoding="utf-8")) == wanted):
        log(f"jackknifing train in {folds} folds")
        candidates = jackknife([p.a for p in gold["train"]], folds, ["upos"], tagger_options, k=k,
                               progress=lambda message: log(f"  {message}"))
        tagged = {"train-lattice": candidates,  # gold tags, candidates in MISC
                  "train": [s.with_column(UPOS, [parse_kbest(misc)[0][0] for misc in s.column(MISC)]) for s in candidates]}
        log("training the tagger on all of train")
        tagger = train_tagger([p.a for p in gold["train"]], [p.a for p in gold["dev"]], tagger_options).parser
        for name in ("dev", "test"):
            tagged[name] = list(tagger.tag((p.a for p in gold[name]), k=k))
        for name, sentences in tagged.items():
            for side, scheme in (("a", scheme_a), ("b", scheme_b)):
                write_conllu((getattr(p, side).with_column(UPOS, s.column(UPOS)).with_column(MISC, s.column(MISC))
                              for p, s in zip(gold[name.split("-")[0]], sentences)), tagged_dir / f"{name}.{scheme}.conllu")
        record.write_text(json.dumps(wanted), encoding="utf-8")
    pairs = {name: read_pairs(tagged_dir / f"{name}.{scheme_a}.conllu", tagged_dir / f"{name}.{scheme_b}.conllu",
                              require_heads=True) for name in ("train", "train-lattice", "dev", "test")}
    accuracy = {name: tag_accuracy([p.a for p in gold[name]], [p.a for p in pairs[name]]) for name in ("train", "dev", "test")}

    def baseline(side: str, scheme: str) -> ArcStandardParser:
        return cached_model(models / f"baseline-{scheme}", options, ArcStandardParser.load, log,
                            f"training the baseline of scheme {scheme} on predicted tags",
                            lambda: train([getattr(p, side) for p in pairs["train"]], [getattr(p, side) for p in pairs["dev"]],
                                          options))

    def joint_model(t: str) -> JointParser:
        return cached_model(models / f"joint-t{t_text(parse_t(t))}", options, JointParser.load, log,
                            f"training the joint model, t = {t}, on predicted tags",
                            lambda: train_joint(pairs["train"], pairs["dev"], options, t=parse_t(t)))

    def score_joint(parser: JointParser, name: str) -> Scores:
        parsed = list(parser.parse(p.a for p in pairs[name]))
        return Scores(evaluate([g.a for g in gold[name]], [x for x, _ in parsed]),
                      evaluate([g.b for g in gold[name]], [y for _, y in parsed]))

    if train_only:
        baseline("a", scheme_a), baseline("b", scheme_b)
        for t in ts:
            joint_model(t)
        return None
    baselines = baseline("a", scheme_a), baseline("b", scheme_b)

    def score_baselines(name: str) -> Scores:
        return Scores(*(evaluate([getattr(g, side) for g in gold[name]], parser.parse(getattr(p, side) for p in pairs[name]))
                        for side, parser in zip("ab", baselines)))

    header = (f"| system | {scheme_a} UAS | {scheme_a} LAS | {scheme_a} CM | {scheme_b} UAS | {scheme_b} LAS "
              f"| {scheme_b} CM | mean UAS |\n|---|---|---|---|---|---|---|---|")
    dev_joint = {value: score_joint(joint_model(value), "dev") for value in ts}  # one model in memory at a time
    t = max(ts, key=lambda value: dev_joint[value].a.uas + dev_joint[value].b.uas)
    dev_lines = ["## Development set: choosing t", "", header, _row("baseline", score_baselines("dev"))]
    dev_lines += [_row(f"joint t = {value}", dev_joint[value]) for value in ts]
    dev_lines += ["", f"Best t on tagged dev (mean UAS): **{t}**.", ""]
    gold_a, gold_b = [p.a for p in gold["test"]], [p.b for p in gold["test"]]
    test_in = [p.a for p in pairs["test"]]
    base = score_baselines("test")
    joined = score_joint(joint_model(t), "test")
    rows, significance = _significance(((scheme_a, joined.a, base.a), (scheme_b, joined.b, base.b)))
    lattice_lines: list[str] = []
    if lattice_k:
        lattice_options = replace(options, lattice=True, lattice_weight=lattice_weight)
        lattice_train = pairs["train-lattice" if lattice_reference == "gold" else "train"]

        def lattice_parser(side: str, scheme: str) -> ArcStandardParser:
            return cached_model(models / f"lattice-{lattice_reference}-{scheme}", lattice_options, ArcStandardParser.load, log,
                                f"training the lattice parser of scheme {scheme}",
                                lambda: train([getattr(p, side) for p in lattice_train],
                                              [getattr(p, side) for p in pairs["dev"]], lattice_options))

        weights_chosen = {}

        def tuned(parser, scheme: str, dev_uas: Callable[[object], float]):
            """The parser with the weight of the tagger's log-probabilities that parses dev best."""
            scores = {}
            for weight in LATTICE_WEIGHTS:
                parser.lattice_weight = weight
                scores[weight] = dev_uas(parser)
            parser.lattice_weight = weights_chosen[scheme] = max(LATTICE_WEIGHTS, key=lambda w: scores[w])
            log(f"lattice weight of {scheme}: {parser.lattice_weight:g} (dev UAS {scores[parser.lattice_weight]:.2f})")
            return parser

        outputs = {}
        for side, scheme in (("a", scheme_a), ("b", scheme_b)):
            parser = tuned(lattice_parser(side, scheme), scheme, lambda p: evaluate(
                [getattr(g, side) for g in gold["dev"]], p.parse(getattr(x, side) for x in pairs["dev"])).uas)
            outputs[side] = list(parser.parse(getattr(p, side) for p in pairs["test"]))
        lattice = Scores(evaluate(gold_a, outputs["a"]), evaluate(gold_b, outputs["b"]))
        joint_lattice = cached_model(models / f"joint-t{t_text(parse_t(t))}-lattice-{lattice_reference}", lattice_options,
                                     JointParser.load, log, f"training the joint model, t = {t}, over tag lattices",
                                     lambda: train_joint(lattice_train, pairs["dev"], lattice_options, t=parse_t(t)))

        def joint_dev_uas(parser) -> float:
            scores = score_joint(parser, "dev")
            return (scores.a.uas + scores.b.uas) / 2

        joint_lattice = tuned(joint_lattice, "joint", joint_dev_uas)
        parsed_lattice = list(joint_lattice.parse(test_in))
        joined_lattice = Scores(evaluate(gold_a, [x for x, _ in parsed_lattice]), evaluate(gold_b, [y for _, y in parsed_lattice]))
        lattice_rows, lattice_significance = _significance(((scheme_a, lattice.a, base.a), (scheme_b, lattice.b, base.b)),
                                                           "lattice")
        joint_rows, joint_significance = _significance(((scheme_a, joined_lattice.a, joined.a),
                                                        (scheme_b, joined_lattice.b, joined.b)), "joint lattice", "joint 1-best")
        significance.update({f"lattice {key}": value for key, value in lattice_significance.items()})
        significance.update({f"joint lattice {key}": value for key, value in joint_significance.items()})
        chosen = tag_accuracy(gold_a, outputs["a"])
        reference_text = ("the gold tags (where the tagger offered them, else its best)" if lattice_reference == "gold"
                          else "the tagger's best tags, as the 1-best parsers are")
        chosen_joint = tag_accuracy(gold_a, [x for x, _ in parsed_lattice])
        lattice_lines = ["## Test set, tag lattices", "",
                         f"Each word's {lattice_k} best tags; the lattice parsers choose among them with the tree. They "
                         f"were trained toward {reference_text} (--lattice-reference {lattice_reference}), adding the "
                         f"tagger's log-probability of each choice times {lattice_weight:g} while training, and parse "
                         f"adding it times a weight chosen on dev from "
                         f"{list(LATTICE_WEIGHTS)} (chosen: " + ", ".join(f"{k} {v:g}" for k, v in weights_chosen.items())
                         + f"). UPOS accuracy of the tags chosen on test: {chosen:.2f}% "
                         f"({scheme_a} arc-standard parser), {chosen_joint:.2f}% (joint model), against "
                         f"{accuracy['test']:.2f}% for the tagger's best.", "",
                         header, _row("baseline (1-best tags)", base), _row(f"baseline, lattice k = {lattice_k}", lattice),
                         _row(f"joint t = {t} (1-best tags)", joined), _row(f"joint t = {t}, lattice k = {lattice_k}",
                                                                               joined_lattice), ""]
        lattice_lines += joint_rows
        lattice_lines += lattice_rows
    lines = [f"# Parsing with predicted tags on {treebank.name} (scheme a = {scheme_a}, scheme b = {scheme_b})", "",
             f"Produced by `hetdep experiment predicted-tags --treebank {treebank} --out {out} --scheme-a {scheme_a} "
             f"--scheme-b {scheme_b} --t {','.join(ts)} --beam {options.beam} --iterations {options.iterations} --update {options.update} "
             f"--folds {folds} --tagger-iterations {tagger_iterations} --lattice-k {lattice_k} "
             f"--lattice-reference {lattice_reference} --lattice-weight {lattice_weight:g}`.", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; beam {options.beam}, "
             f"at most {options.iterations} iterations (patience {options.patience}), {options.update} update; "
             f"punctuation (gold UPOS PUNCT) excluded.", "",
             "UPOS accuracy of the tags the parsers read (every word): "
             f"train (jackknifed, {folds} folds) {accuracy['train']:.2f}%, dev {accuracy['dev']:.2f}%, "
             f"test {accuracy['test']:.2f}%.", "",
             *dev_lines, "## Test set, predicted tags", "", header, _row("baseline", base), _row(f"joint t = {t}", joined), ""]
    lines += rows + lattice_lines
    lines += [f"Wall time of this run: {time.perf_counter() - start:.0f} s (tagged files and models of earlier runs reused).", ""]
    report = out / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    (out / "significance.json").write_text(json.dumps(significance, indent=1))
    return report
