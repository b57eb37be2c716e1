"""Commands that score and check files: eval, compare, validate, projectivity."""

from __future__ import annotations

import json
import sys

import click

from hetdep.cli.app import PUNCT_HELP, counted
from hetdep.errors import HetdepError, MismatchError
from hetdep.treebank.conllu import collect_problems, read_conllu


@click.command("eval")
@click.argument("gold", type=click.Path(dir_okay=False))
@click.argument("pred", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (UAS, LAS, CM, LCM, counts, analyses asked for).")
@click.option("--punct", type=click.Choice(["upos", "form", "none"]), default="upos", show_default=True, help=PUNCT_HELP)
@click.option("--base-labels", is_flag=True, help="Compare labels before the colon only (obl:mod counts as obl).")
@click.option("--by-label", is_flag=True, help="Add precision, recall and F1 per gold/predicted label.")
@click.option("--by-distance", is_flag=True, help="Add unlabeled precision, recall and F1 by arc length 1..7+ (zhang2014 Fig. 3).")
@click.option("--other-gold", type=click.Path(dir_okay=False), help="The same sentences' gold tree in another scheme: adds accuracy on arcs shared with it vs the others (zhang2014 Table 5).")
@click.option("--multiple-roots", is_flag=True, help="Accept trees with several words attached to the root.")
@click.option("--conll18", is_flag=True, help="PRED was tokenized and split into sentences by the system (parsed from raw text): "
              "align words by characters and report Tokens, Sentences, Words, tags, lemmas, UAS, LAS, CLAS, MLAS and BLEX as "
              "precision, recall and F1, every word counted and labels compared before the colon, as the CoNLL 2018 shared task "
              "scored; where GOLD has enhanced graphs (DEPS), ELAS and EULAS too, as the IWPT 2020 and 2021 shared tasks scored.")
@click.option("--const", "brackets", is_flag=True, help="GOLD and PRED hold bracketed phrase-structure trees (.mrg, a folder or a .zip): labeled bracket precision, recall, F1, complete match and tagging accuracy as EVALB scores with COLLINS.prm (TOP, -NONE- and punctuation by the gold tag left out, ADVP = PRT).")
@click.option("--max-length", type=click.IntRange(1), default=None, help="With --const: score sentences of at most this many words only (EVALB's CUTOFF_LEN, e.g. 40).")
def eval_command(gold, pred, as_json, punct, base_labels, by_label, by_distance, other_gold, multiple_roots, conll18, brackets,
                 max_length):
    """Score PRED against GOLD: UAS, LAS and complete match over syntactic words (--conll18: from raw text;
    --const: labeled brackets of phrase-structure trees)."""
    from hetdep.evaluation.attachment import evaluate

    if brackets:
        _eval_brackets(gold, pred, as_json, max_length)
        return
    if max_length is not None:
        raise HetdepError("--max-length is for --const")
    if conll18:
        _eval_conll18(gold, pred, as_json, single_root=not multiple_roots)
        return
    options = {"single_root": not multiple_roots}
    try:
        result = evaluate(  # streamed: no file is held whole
            read_conllu(gold, require_heads=True, **options),
            read_conllu(pred, require_heads=True, **options),
            punct=punct,
            base_labels=base_labels,
            other_gold=read_conllu(other_gold, require_heads=True, **options) if other_gold else None,
        )
    except MismatchError as error:
        if error.path != str(pred):
            raise
        raise MismatchError(error.path, error.line, f"{error.message} (a system that tokenized raw text itself is scored "
                         "with 'hetdep eval --conll18')") from None
    report = result.summary()
    if by_label:
        report["per_label"] = result.per_label()
    if by_distance:
        report["by_distance"] = result.by_distance()
    if result.shared is not None:
        report["shared_with_other_scheme"] = result.shared
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        return
    click.echo(f"sentences {result.sentences}  words {result.words}  (punctuation: {punct}{', base labels' if base_labels else ''})")
    click.echo(f"UAS {result.uas:6.2f}  LAS {result.las:6.2f}  CM {result.cm:6.2f}  LCM {result.lcm:6.2f}")
    if by_label:
        click.echo(_table("label", report["per_label"]))
    if by_distance:
        click.echo(_table("distance", report["by_distance"]))
    if result.shared is not None:
        for name, cell in result.shared.items():
            click.echo(f"arcs {name:9} with the other scheme: {cell['words']:6d} words  UAS {cell['UAS']:6.2f}  LAS {cell['LAS']:6.2f}")


def _eval_brackets(gold: str, pred: str, as_json: bool, max_length: int | None) -> None:
    from hetdep.evaluation.brackets import score
    from hetdep.treebank.ptb import read_trees

    result = score(read_trees(gold), read_trees(pred), max_length)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    limit = f", sentences of at most {max_length} words" if max_length else ""
    click.echo(f"sentences {result.sentences}  brackets gold {result.gold_brackets} test {result.test_brackets} "
               f"matched {result.matched}  (EVALB COLLINS.prm{limit})")
    click.echo(f"LP {result.precision:6.2f}  LR {result.recall:6.2f}  F1 {result.f1:6.2f}  "
               f"complete match {result.complete_match:6.2f}  tagging accuracy {result.tagging_accuracy:6.2f}")


def _eval_conll18(gold, pred, as_json: bool, single_root: bool) -> None:
    from hetdep.evaluation.conll18 import evaluate_conll18

    scores = evaluate_conll18(gold, pred, single_root=single_root)
    if as_json:
        click.echo(json.dumps({name: score.as_dict() for name, score in scores.items()}))
        return
    click.echo(f"{'metric':<10} {'precision':>9} {'recall':>9} {'F1':>9} {'aligned':>9}")
    for name, score in scores.items():
        aligned = "" if score.aligned is None else f"{score.aligned_accuracy:9.2f}"
        click.echo(f"{name:<10} {score.precision:9.2f} {score.recall:9.2f} {score.f1:9.2f} {aligned}")


def _table(key: str, rows: dict) -> str:
    lines = [f"{key:>16} {'gold':>7} {'pred':>7} {'P':>7} {'R':>7} {'F1':>7}"]
    for name, cell in rows.items():
        lines.append(f"{name:>16} {cell['gold']:7d} {cell['predicted']:7d} {cell['precision']:7.2f} {cell['recall']:7.2f} {cell['f1']:7.2f}")
    return "\n".join(lines)


@click.command("compare")
@click.argument("gold", type=click.Path(dir_okay=False))
@click.argument("pred_a", type=click.Path(dir_okay=False))
@click.argument("pred_b", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--punct", type=click.Choice(["upos", "form", "none"]), default="upos", show_default=True, help=PUNCT_HELP)
@click.option("--base-labels", is_flag=True, help="Compare labels before the colon only.")
@click.option("--samples", type=click.IntRange(100), default=10_000, show_default=True, help="Samples of the randomization and bootstrap tests.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the randomized tests.")
def compare_command(gold, pred_a, pred_b, as_json, punct, base_labels, samples, seed):
    """Is system A better than system B on GOLD? Per-sentence counts and significance tests."""
    from hetdep.evaluation.attachment import compare_sentences, evaluate
    from hetdep.extras import require

    require("stats", "hetdep compare (its significance tests)")
    from hetdep.evaluation.significance import compare

    a, b = (evaluate(read_conllu(gold, require_heads=True), read_conllu(pred, require_heads=True), punct=punct,
                     base_labels=base_labels) for pred in (pred_a, pred_b))  # streamed, the gold file read twice
    report = {
        "sentences": compare_sentences(a, b),
        "UAS": compare(a, b, labeled=False, samples=samples, seed=seed),
        "LAS": compare(a, b, labeled=True, samples=samples, seed=seed),
    }
    if as_json:
        click.echo(json.dumps(report))
        return
    counts = report["sentences"]
    click.echo(f"sentences where A is better {counts['better']}, unchanged {counts['unchanged']}, worse {counts['worse']}")
    for metric in ("UAS", "LAS"):
        r = report[metric]
        click.echo(
            f"{metric}: A {r['a']:.2f}  B {r['b']:.2f}  "
            f"sign test p={r['sign_test']['p']:.4g}  paired t-test p={r['paired_t_test']['p']:.4g}  "
            f"approx. randomization p={r['approximate_randomization']['p']:.4g}  "
            f"bootstrap p={r['paired_bootstrap']['p']:.4g}"
        )


@click.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--multiple-roots", is_flag=True, help="Accept trees with several words attached to the root.")
@click.option("--require-heads", is_flag=True, help="Treat a HEAD of '_' as a problem (files meant to hold trees).")
def validate_command(files, multiple_roots, require_heads):
    """List every problem in CoNLL-U / CoNLL-X FILES (exit status 1 if there is any)."""
    failed = False
    for path in files:
        good, problems = collect_problems(path, single_root=not multiple_roots, require_heads=require_heads)
        for problem in problems:
            click.echo(str(problem))
        click.echo(f"{path}: {counted(good, 'good sentence')}, {counted(len(problems), 'problem')}", err=True)
        failed |= bool(problems)
    sys.exit(1 if failed else 0)


@click.command("projectivity")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--encoding", type=click.Choice(["head", "head+path"]), default="head+path", show_default=True, help="Label encoding of lifted arcs.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per file.")
def projectivity_command(files, encoding, as_json):
    """How many trees are non-projective, and how exactly pseudo-projective transform + inverse restores them."""
    from hetdep.treebank.projectivity import deprojectivize, is_projective, projectivize

    for path in files:
        trees = non_projective = arcs = restored = lifted = 0
        labels_added = set()
        for sentence in read_conllu(path, require_heads=True):
            heads, labels = sentence.heads, sentence.deprels
            trees += 1
            arcs += len(heads)
            if is_projective(heads):
                restored += len(heads)
                continue
            non_projective += 1
            p_heads, p_labels = projectivize(heads, labels, encoding)
            lifted += sum(a != b for a, b in zip(heads, p_heads))
            labels_added.update(label for label in p_labels if label not in labels)
            back_heads, back_labels = deprojectivize(p_heads, p_labels)
            restored += sum(h == bh and l == bl for h, bh, l, bl in zip(heads, back_heads, labels, back_labels))
        report = {
            "file": path, "trees": trees, "non_projective_trees": non_projective,
            "non_projective_pct": round(100.0 * non_projective / trees, 2) if trees else 0.0,
            "lifted_arcs": lifted, "new_labels": len(labels_added),
            "arcs": arcs, "arcs_restored_pct": round(100.0 * restored / arcs, 4) if arcs else 100.0,
        }
        if as_json:
            click.echo(json.dumps(report))
        else:
            click.echo(
                f"{path}: {non_projective}/{trees} trees non-projective ({report['non_projective_pct']}%), "
                f"{lifted} arcs lifted, {len(labels_added)} new labels; after transform + inverse "
                f"{report['arcs_restored_pct']}% of all arcs come back exactly ({encoding})"
            )
