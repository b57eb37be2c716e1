"""The ``hetdep`` command line: one command, one subcommand per task."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from .conllu import collect_problems, read_conllu, read_tokenized_text, write_conllu
from .errors import HetdepError

PUNCT_HELP = (
    "Which words are not scored: 'upos' (gold UPOS is PUNCT, the default), "
    "'form' (CoNLL-X convention: the form is all punctuation), 'none' (score every word)."
)


class _Group(click.Group):
    """Turn hetdep's own errors into one line on stderr and exit status 2, never a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except HetdepError as error:
            click.echo(f"hetdep: error: {error}", err=True)
            sys.exit(2)
        except BrokenPipeError:
            sys.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="hetdep")
def main():
    """hetdep: heterogeneous dependency parsing (several annotation schemes, one sentence)."""


def _read(path: str, **options):
    return list(read_conllu(path, **options))


def _t_values(text: str) -> tuple[str, ...]:
    """The comma-separated values of t an experiment trains, each checked (at least one)."""
    from .joint import parse_t

    values = tuple(value.strip() for value in text.split(",") if value.strip())
    if not values:
        raise HetdepError(f"no value of t in {text!r}: give one or more, comma-separated (e.g. inf,3,-1)")
    for value in values:
        parse_t(value)
    return values


@main.command("eval")
@click.argument("gold", type=click.Path(dir_okay=False))
@click.argument("pred", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (UAS, LAS, CM, LCM, counts, analyses asked for).")
@click.option("--punct", type=click.Choice(["upos", "form", "none"]), default="upos", show_default=True, help=PUNCT_HELP)
@click.option("--base-labels", is_flag=True, help="Compare labels before the colon only (obl:mod counts as obl).")
@click.option("--by-label", is_flag=True, help="Add precision, recall and F1 per gold/predicted label.")
@click.option("--by-distance", is_flag=True, help="Add unlabeled precision, recall and F1 by arc length 1..7+ (zhang2014 Fig. 3).")
@click.option("--other-gold", type=click.Path(dir_okay=False), help="The same sentences' gold tree in another scheme: adds accuracy on arcs shared with it vs the others (zhang2014 Table 5).")
@click.option("--multiple-roots", is_flag=True, help="Accept trees with several words attached to the root.")
def eval_command(gold, pred, as_json, punct, base_labels, by_label, by_distance, other_gold, multiple_roots):
    """Score PRED against GOLD: UAS, LAS and complete match over syntactic words."""
    from .evaluation import evaluate

    options = {"single_root": not multiple_roots}
    result = evaluate(
        _read(gold, require_heads=True, **options),
        _read(pred, require_heads=True, **options),
        punct=punct,
        base_labels=base_labels,
        other_gold=_read(other_gold, require_heads=True, **options) if other_gold else None,
    )
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


def _table(key: str, rows: dict) -> str:
    lines = [f"{key:>16} {'gold':>7} {'pred':>7} {'P':>7} {'R':>7} {'F1':>7}"]
    for name, cell in rows.items():
        lines.append(f"{name:>16} {cell['gold']:7d} {cell['predicted']:7d} {cell['precision']:7.2f} {cell['recall']:7.2f} {cell['f1']:7.2f}")
    return "\n".join(lines)


@main.command("compare")
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
    from .evaluation import compare_sentences, evaluate
    from .significance import compare

    gold_sentences = _read(gold, require_heads=True)
    a = evaluate(gold_sentences, _read(pred_a, require_heads=True), punct=punct, base_labels=base_labels)
    b = evaluate(gold_sentences, _read(pred_b, require_heads=True), punct=punct, base_labels=base_labels)
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


@main.command("validate")
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
        click.echo(f"{path}: {good} good sentences, {len(problems)} problems", err=True)
        failed |= bool(problems)
    sys.exit(1 if failed else 0)


@main.command("projectivity")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--encoding", type=click.Choice(["head", "head+path"]), default="head+path", show_default=True, help="Label encoding of lifted arcs.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per file.")
def projectivity_command(files, encoding, as_json):
    """How many trees are non-projective, and how exactly pseudo-projective transform + inverse restores them."""
    from .projectivity import deprojectivize, is_projective, projectivize

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


@main.command("train")
@click.option("--train", "train_path", required=True, type=click.Path(dir_okay=False), help="Training treebank (CoNLL-U or CoNLL-X); scheme a of a joint model.")
@click.option("--train-b", "train_b_path", type=click.Path(dir_okay=False), help="The same training sentences in scheme b: trains a joint model.")
@click.option("--dev", "dev_path", required=True, type=click.Path(dir_okay=False), help="Dev treebank: picks the best iteration.")
@click.option("--dev-b", "dev_b_path", type=click.Path(dir_okay=False), help="The dev sentences in scheme b (joint model).")
@click.option("--model", "model_dir", required=True, type=click.Path(file_okay=False), help="Directory to write the model to.")
@click.option("--parser", "parser_kind", type=click.Choice(["arc-standard", "dep1", "dep2"]), default="arc-standard", show_default=True, help="Single-scheme parser: the arc-standard beam-search parser, or a graph-based parser of first (dep1) or second order with siblings (dep2); --beam and --update do not apply to those.")
@click.option("--t", "t", default="inf", show_default=True, help="Joint model: interleaving of the two schemes' actions: a non-zero integer (t > 0: a leads by t actions; t < 0: b leads), 'inf' (a's tree first) or '-inf' (b's tree first).")
@click.option("--guide", type=click.Choice(["paper", "rich", "none"]), default="paper", show_default=True, help="Joint model: its guided features, which read the other scheme's tree: the paper's 18 templates; 'rich': those and 21 more (how S0 and S1 relate there as siblings or grandparent too, where their heads lie, whether they have dependents still in the queue; fired only where the other scheme has shifted S0 or S1); 'none': the paper's '/wo' ablation.")
@click.option("--no-guided", is_flag=True, help="Joint model without the guided features: the same as --guide none.")
@click.option("--beam", type=click.IntRange(1), default=64, show_default=True, help="Beam size (1 is greedy).")
@click.option("--iterations", type=click.IntRange(1), default=15, show_default=True, help="Most training iterations.")
@click.option("--patience", type=click.IntRange(1), default=4, show_default=True, help="Stop after this many iterations without a better dev UAS.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the training order.")
@click.option("--tag-column", type=click.Choice(["upos", "xpos"]), default="upos", show_default=True, help="Column holding the POS tags the parser reads.")
@click.option("--projective-encoding", type=click.Choice(["head", "head+path"]), default="head", show_default=True, help="Label encoding of the pseudo-projective transform.")
@click.option("--update", type=click.Choice(["early", "max-violation"]), default="early", show_default=True, help="Perceptron update: early update (Collins & Roark 2004) or max-violation (Huang et al. 2012).")
@click.option("--tagger", "tagger_dir", type=click.Path(file_okay=False, exists=True), help="A tagger from 'hetdep train-tagger' to bundle with the model: 'hetdep parse' then tags its input first (train on jackknifed tags to match).")
@click.option("--lattice", is_flag=True, help="Arc-standard parser or joint model: train and parse over tag lattices: each word's candidate tags from MISC TagKBest ('hetdep jackknife --k' for training, 'hetdep tag --k' or the bundled tagger for parsing), the tag column holding the gold tags; the parser chooses tags with the tree.")
@click.option("--lattice-weight", type=float, default=0.0, show_default=True, help="With --lattice: weight of the tagger's log-probability of each chosen candidate (0: the parser's features alone choose).")
@click.option("--dp", is_flag=True, help="Arc-standard parser: beam search with dynamic programming (Huang & Sagae 2010): beam items with equal feature kernels are merged, so the beam holds more distinct analyses; the model parses that way too.")
@click.option("--helper", "helper_dir", type=click.Path(file_okay=False, exists=True), help="With --parser dep1/dep2: a graph-based model trained on another treebank; the new parser learns agreement features from its 16-best trees on the training sentences (learned consensus), and parses with it beside ('hetdep parse --with').")
@click.option("--concatenate", is_flag=True, help="With --parser dep1/dep2: --train-b/--dev-b is another treebank (other sentences, another scheme); train one parser on both, labels kept apart (parse with --treebank).")
@click.option("--feature-copies", is_flag=True, help="With --concatenate: every feature gets an unlabeled copy shared by the treebanks and a labeled copy per treebank (Daume 2007).")
@click.option("--names", default="a,b", show_default=True, help="With --concatenate: names of the --train and --train-b treebanks (for 'hetdep parse --treebank').")
def train_command(train_path, train_b_path, dev_path, dev_b_path, model_dir, parser_kind, t, guide, no_guided, beam, iterations, patience, seed,
                  tag_column, projective_encoding, update, tagger_dir, lattice, lattice_weight, dp, helper_dir, concatenate,
                  feature_copies, names):
    """Train an arc-standard beam-search parser (or with --parser dep1/dep2 a graph-based one),
    with --train-b a joint model of two schemes, or with --concatenate one graph-based parser
    on two treebanks.

    Global averaged perceptron (early update for beam search); non-projective trees go through the
    pseudo-projective transform; the best dev iteration is kept (mean UAS of both schemes
    for a joint model).
    """
    from tqdm import tqdm

    from .training import TrainOptions, train

    if (train_b_path is None) != (dev_b_path is None):
        raise click.UsageError("a joint model needs both --train-b and --dev-b")
    if train_b_path and parser_kind != "arc-standard" and not concatenate:
        raise click.UsageError(f"the joint model is transition-based: --parser {parser_kind} trains a single scheme "
                               "(or, with --concatenate, one parser on two treebanks)")
    if concatenate and (parser_kind == "arc-standard" or not train_b_path):
        raise click.UsageError("--concatenate needs --parser dep1 or dep2 and a second treebank in --train-b/--dev-b")
    if lattice and parser_kind != "arc-standard":
        raise click.UsageError("--lattice is for the arc-standard parser and the joint model (the graph-based parsers "
                               "do not have it yet)")
    if dp and (train_b_path or parser_kind != "arc-standard"):
        raise click.UsageError("--dp is for the single-scheme arc-standard parser (the joint model and the graph-based "
                               "parsers do not have it)")
    if helper_dir and (parser_kind == "arc-standard" or concatenate):
        raise click.UsageError("--helper is for a single-treebank graph-based parser (--parser dep1 or dep2)")
    if feature_copies and not concatenate:
        raise click.UsageError("--feature-copies applies to --concatenate only")
    treebank_names = [name.strip() for name in names.split(",")]
    if concatenate and (len(treebank_names) != 2 or len(set(treebank_names)) != 2):
        raise click.UsageError(f"--names {names!r}: give two different names separated by a comma")
    if tagger_dir:
        _load_taggers(tagger_dir)  # refuse a wrong directory before training
    options = TrainOptions(beam=beam, iterations=iterations, patience=patience, seed=seed, tag_column=tag_column,
                           projective_encoding=projective_encoding, update=update, dp=dp, lattice=lattice,
                           lattice_weight=lattice_weight)
    progress = lambda **kw: tqdm(mininterval=1.0, **kw)  # noqa: E731
    if concatenate:
        from .graph import KINDS, train_concatenated

        treebanks = {treebank_names[0]: (_read(train_path, require_heads=True), _read(dev_path, require_heads=True)),
                     treebank_names[1]: (_read(train_b_path, require_heads=True), _read(dev_b_path, require_heads=True))}
        result = train_concatenated(treebanks, options, progress=progress, order=KINDS[parser_kind], augmented=feature_copies)
    elif train_b_path:
        from .joint import parse_t, train_joint
        from .pairs import read_pairs

        result = train_joint(read_pairs(train_path, train_b_path, require_heads=True),
                             read_pairs(dev_path, dev_b_path, require_heads=True), options,
                             t=parse_t(t), guide="none" if no_guided else guide, progress=progress)
    elif parser_kind in ("dep1", "dep2"):
        from .graph import KINDS, GraphParser, train_graph
        from .model import read_kind

        helper = None
        if helper_dir:
            helper_kind = read_kind(helper_dir)
            if helper_kind not in KINDS:
                raise click.UsageError(f"--helper {helper_dir} is a '{helper_kind}' model: give a dep1 or dep2 model")
            helper = GraphParser.load(helper_dir, helper_kind)
        result = train_graph(_read(train_path, require_heads=True), _read(dev_path, require_heads=True), options,
                             progress=progress, order=KINDS[parser_kind], helper=helper)
    else:
        result = train(_read(train_path, require_heads=True), _read(dev_path, require_heads=True), options, progress=progress)
    for report in result.history:
        detail = "  ".join(f"{key} {value:.2f}" for key, value in report.dev_detail.items())
        dev = f", dev UAS {report.dev_uas:.2f} LAS {report.dev_las:.2f}" if report.dev_uas is not None else ""
        click.echo(f"iteration {report.iteration:2d}: {report.seconds:7.1f} s, {report.updates} updates, "
                   f"{report.features} features{dev}" + (f" ({detail})" if detail else ""), err=True)
    result.parser.save(model_dir, history=[vars(r) for r in result.history], best_iteration=result.best_iteration,
                       training_options=vars(options))
    if tagger_dir:
        import shutil

        shutil.copytree(tagger_dir, Path(model_dir) / "tagger", dirs_exist_ok=True)
    click.echo(f"best iteration {result.best_iteration}; model written to {model_dir}"
               + (" with its tagger" if tagger_dir else ""), err=True)


@main.command("parse")
@click.option("--model", "model_dir", required=True, type=click.Path(file_okay=False), help="Model directory from 'hetdep train'.")
@click.option("--input", "input_path", type=click.Path(dir_okay=False), help="CoNLL-U/CoNLL-X file to parse (HEAD and DEPREL may be '_').")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False), help="CoNLL-U file to write: the input with HEAD and DEPREL from the parser (a joint model: scheme a's trees, or with --gold-a/--gold-b the other scheme's).")
@click.option("--output-b", "output_b_path", type=click.Path(dir_okay=False), help="Joint model: where to write the scheme-b trees.")
@click.option("--gold-a", "gold_a_path", type=click.Path(dir_okay=False), help="Joint model: a file whose trees are scheme a's; keep them and parse scheme b given them (treebank conversion).")
@click.option("--gold-b", "gold_b_path", type=click.Path(dir_okay=False), help="Joint model: a file whose trees are scheme b's; keep them and parse scheme a given them.")
@click.option("--beam", type=click.IntRange(1), default=None, help="Beam size (default: the model's).")
@click.option("--with", "with_model", type=click.Path(file_okay=False), help="Joint inference (zhou-zhao2013): a second graph-based model (dep1 or dep2), trained on another treebank; each parser re-parses with consensus scores from the other's k-best trees. --output gets --model's trees, --output-b (optional) --with's.")
@click.option("--edge", type=float, default=5.0, show_default=True, help="Joint inference: weight of the other parser's arc posterior mass.")
@click.option("--root", type=float, default=5.0, show_default=True, help="Joint inference: weight of the other parser's root posterior mass.")
@click.option("--sibling", type=float, default=0.0, show_default=True, help="Joint inference: weight of the other parser's adjacent-sibling posterior mass (non-zero: second-order search).")
@click.option("--grand", type=float, default=0.0, show_default=True, help="Joint inference: weight of the other parser's grandparent-chain posterior mass (non-zero: second-order search).")
@click.option("--k", "consensus_k", type=click.IntRange(1), default=16, show_default=True, help="Joint inference: k-best list size.")
@click.option("--consensus-iterations", type=click.IntRange(1), default=4, show_default=True, help="Joint inference: rounds of exchange.")
@click.option("--temperature", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True, help="Joint inference: posteriors are the softmax of k-best scores divided by this.")
@click.option("--format", "input_format", type=click.Choice(["auto", "conllu", "text"]), default="auto", show_default=True, help="--input format: CoNLL-U, or plain tokenized text (one sentence a line, tokens separated by spaces); auto: text for a .txt file.")
@click.option("--lattice-k", type=click.IntRange(1), default=3, show_default=True, help="A model trained with --lattice and bundled with a tagger: how many candidate tags the tagger gives each word.")
@click.option("--lattice-weight", type=float, default=None, help="A model trained with --lattice: weight of the tagger's log-probabilities (default: the model's).")
@click.option("--treebank", "treebank", help="A model trained with --concatenate: parse as this treebank (its scheme and labels); without it, any label of either (written with its treebank's prefix).")
def parse_command(model_dir, input_path, output_path, output_b_path, gold_a_path, gold_b_path, beam, with_model, edge, root,
                  sibling, grand, consensus_k, consensus_iterations, temperature, input_format, lattice_k, lattice_weight,
                  treebank):
    """Parse a file with a trained model: exactly one output tree per input sentence (per scheme)."""
    from tqdm import tqdm

    from .joint import INFINITE, JointParser, t_text
    from .graph import KINDS, GraphParser
    from .model import read_config, read_kind
    from .parser import ArcStandardParser

    sources = [path for path in (input_path, gold_a_path, gold_b_path) if path]
    if len(sources) != 1:
        raise click.UsageError("give exactly one of --input, --gold-a and --gold-b")
    config = read_config(model_dir)
    kind = str(config["kind"])
    given = 0 if gold_a_path else 1 if gold_b_path else None
    if kind != "joint" and given is not None:
        raise click.UsageError(f"{model_dir} is a single-scheme ('{kind}') model: --gold-a/--gold-b need a joint model")
    if input_path and (input_format == "text" or (input_format == "auto" and input_path.endswith(".txt"))):
        sentences = read_tokenized_text(input_path)
    else:
        sentences = read_conllu(sources[0], require_heads=given is not None)
    taggers = _load_taggers(Path(model_dir) / "tagger") if input_path and (Path(model_dir) / "tagger").is_dir() else []
    lattice = kind in ("arc-standard", "joint") and bool(config.get("lattice"))
    for tagger in taggers:  # the model's own tagger tags the input first (with candidates for a lattice model)
        sentences = tagger.tag(sentences, k=lattice_k if lattice and tagger.column == config["tag_column"] else 0)
    sentences = tqdm(sentences, unit="sent", mininterval=1.0, disable=None)
    if with_model:
        from .consensus import ConsensusOptions, check_compatible, joint_parse

        other_kind = read_kind(with_model)
        if kind not in KINDS or other_kind not in KINDS:
            raise click.UsageError(f"joint inference (--with) needs two graph-based models (dep1 or dep2: their k-best "
                                   f"lists), not '{kind}' and '{other_kind}'")
        parser, other = GraphParser.load(model_dir, kind), GraphParser.load(with_model, other_kind)
        check_compatible(parser, other, model_dir, with_model)
        options = ConsensusOptions(edge=edge, root=root, sibling=sibling, grand=grand, k=consensus_k,
                                   iterations=consensus_iterations, temperature=temperature)
        pairs = joint_parse(parser, other, sentences, options, options)
        count = _write_pairs(pairs, output_path, output_b_path)
    elif kind == "joint" and given is not None:
        parser = JointParser.load(model_dir)
        if parser.t == (-INFINITE if given == 0 else INFINITE):
            click.echo(f"warning: {model_dir} parses scheme {'ab'[1 - given]} wholly before scheme {'ab'[given]} "
                       f"(t = {t_text(parser.t)}), so the given trees cannot guide it: the output is a plain parse. "
                       f"A model trained with --t {t_text(-parser.t)} converts from scheme {'ab'[given]}.", err=True)
        count = write_conllu((pair[1 - given] for pair in parser.parse(sentences, beam, given)), output_path)
    elif kind == "joint":
        if not output_b_path:
            raise click.UsageError(f"{model_dir} is a joint model: give --output-b for the scheme-b trees")
        parser = JointParser.load(model_dir)
        if lattice_weight is not None:
            parser.lattice_weight = lattice_weight
        count = _write_pairs(parser.parse(sentences, beam), output_path, output_b_path)
    else:
        if output_b_path:
            raise click.UsageError(f"{model_dir} is a single-scheme ('{kind}') model: it writes no --output-b")
        parser = GraphParser.load(model_dir, kind) if kind in KINDS else ArcStandardParser.load(model_dir)
        if treebank is not None:
            if kind not in KINDS:
                raise click.UsageError(f"{model_dir} is a '{kind}' model: --treebank is for graph-based models trained with --concatenate")
            parser = parser.for_treebank(treebank)
        if lattice_weight is not None and kind not in KINDS:
            parser.lattice_weight = lattice_weight
        count = write_conllu(parser.parse(sentences, beam), output_path)
    stats = parser.stats
    tagged = f"; tagged by the model's tagger ({', '.join(t.column for t in taggers)})" if taggers else ""
    click.echo(f"parsed {count} sentences, {stats.words} words ({stats.unknown_words} unknown words){tagged}", err=True)
    if stats.unknown_labels:
        click.echo(f"warning: {stats.unknown_labels} words of the given trees have labels the model never saw; "
                   "their base relation stood in for them", err=True)
    if stats.lattice_words:
        click.echo(f"{stats.lattice_words} words had several candidate tags; the tags chosen with the tree are in the "
                   "tag column", err=True)
    if stats.first_order_only:
        from .graph import SECOND_ORDER_MAX_WORDS

        click.echo(f"warning: {stats.first_order_only} sentences are longer than {SECOND_ORDER_MAX_WORDS} words: "
                   "dep2 parsed them with its arc scores only (the second-order decoder needs O(n^3) memory)", err=True)
    if stats.unknown_tags:
        examples = ", ".join(sorted(stats.unknown_tag_examples)[:10])
        click.echo(f"warning: {stats.unknown_tags} words have tags the model never saw ({examples}); "
                   "they were parsed as unknown tags", err=True)


def _write_pairs(pairs, output_path: str, output_b_path: str | None) -> int:
    """Write the first tree of each pair to output_path and the second to output_b_path (if given)."""
    count = 0
    with open(output_path, "w", encoding="utf-8") as out_a, \
            open(output_b_path or os.devnull, "w", encoding="utf-8") as out_b:
        for tree_a, tree_b in pairs:
            out_a.write(tree_a.to_text())
            out_b.write(tree_b.to_text())
            count += 1
    return count


TAG_COLUMN_CHOICE = click.Choice(["upos", "xpos"])


def _load_taggers(model_dir: str):
    """The taggers of a model directory: the directory itself, or its upos/ and xpos/ subdirectories."""
    from .model import ModelFileError
    from .tagger import Tagger

    directory = Path(model_dir)
    if (directory / "config.json").exists():
        return [Tagger.load(directory)]
    found = [Tagger.load(directory / column) for column in ("upos", "xpos") if (directory / column / "config.json").exists()]
    if not found:
        raise ModelFileError(f"{model_dir}: no tagger model here (neither config.json nor upos/ or xpos/)")
    return found


@main.command("train-tagger")
@click.option("--train", "train_path", required=True, type=click.Path(dir_okay=False), help="Training file (CoNLL-U) with gold tags.")
@click.option("--dev", "dev_path", type=click.Path(dir_okay=False), help="Dev file: picks the best iteration (without it, the last is kept).")
@click.option("--model", "model_dir", required=True, type=click.Path(file_okay=False), help="Directory to write the tagger(s) to: one subdirectory per column.")
@click.option("--column", "columns", type=TAG_COLUMN_CHOICE, multiple=True, default=("upos",), show_default=True, help="Column to learn; repeat for both (upos and xpos).")
@click.option("--beam", type=click.IntRange(1), default=8, show_default=True, help="Beam size (1 is greedy).")
@click.option("--iterations", type=click.IntRange(1), default=20, show_default=True, help="Most training iterations.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the training order.")
def train_tagger_command(train_path, dev_path, model_dir, columns, beam, iterations, seed):
    """Train a POS tagger (averaged perceptron, beam search) for UPOS and/or XPOS."""
    from tqdm import tqdm

    from .tagger import TaggerOptions, tag_accuracy, train_tagger

    train_sentences = _read(train_path)
    dev_sentences = _read(dev_path) if dev_path else []
    for column in dict.fromkeys(columns):
        options = TaggerOptions(column=column, beam=beam, iterations=iterations, seed=seed)
        result = train_tagger(train_sentences, dev_sentences, options, progress=lambda **kw: tqdm(disable=None, **kw))
        best = result.history[result.best_iteration - 1]
        result.parser.save(Path(model_dir) / column, history=[vars(r) for r in result.history],
                           best_iteration=result.best_iteration)
        score = ""
        if dev_sentences:
            score = f", dev accuracy {tag_accuracy(dev_sentences, result.parser.tag(dev_sentences), column):.2f}%"
            if result.parser.backward is not None:
                score += (f" (left to right alone {best.dev_uas:.2f}%, right-to-left weight "
                          f"{result.parser.backward_weight:g})")
        click.echo(f"{column}: iteration {result.best_iteration} kept{score}; saved to {Path(model_dir) / column}", err=True)


@main.command("tag")
@click.option("--model", "model_dir", required=True, type=click.Path(file_okay=False), help="Tagger directory from 'hetdep train-tagger'.")
@click.option("--input", "input_path", required=True, type=click.Path(dir_okay=False), help="CoNLL-U file to tag.")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False), help="CoNLL-U file to write: the input with the tagged columns replaced.")
@click.option("--k", type=click.IntRange(0), default=0, show_default=True, help="Also write each word's k best tags of the first column (UPOS if the model has it) with probabilities to MISC (TagKBest=NOUN:0.912,...).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.0, show_default=True, help="With --k: leave out tags below this probability (the best is always kept).")
@click.option("--beam", type=click.IntRange(1), default=None, help="Beam size (default: the model's).")
def tag_command(model_dir, input_path, output_path, k, threshold, beam):
    """Tag a file's words with UPOS and/or XPOS: one output sentence per input sentence."""
    from tqdm import tqdm

    taggers = _load_taggers(model_dir)
    sentences = tqdm(read_conllu(input_path), unit="sent", mininterval=1.0, disable=None)
    for tagger in taggers:
        sentences = tagger.tag(sentences, beam, k if tagger is taggers[0] else 0, threshold)
    count = write_conllu(sentences, output_path)
    first = taggers[0]
    click.echo(f"tagged {count} sentences, {first.words} words ({first.unknown_words} unknown) with "
               f"{', '.join(t.column for t in taggers)}", err=True)


@main.command("jackknife")
@click.option("--train", "train_path", required=True, type=click.Path(dir_okay=False), help="Training file with gold tags.")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False), help="The same file with predicted tags (every other column kept).")
@click.option("--folds", type=click.IntRange(2), default=10, show_default=True, help="Number of folds.")
@click.option("--column", "columns", type=TAG_COLUMN_CHOICE, multiple=True, default=("upos",), show_default=True, help="Column to tag; repeat for both.")
@click.option("--beam", type=click.IntRange(1), default=8, show_default=True, help="Tagger beam size.")
@click.option("--iterations", type=click.IntRange(1), default=10, show_default=True, help="Training iterations of each fold's tagger.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the training order.")
@click.option("--k", "kbest", type=click.IntRange(0), default=0, show_default=True, help="Keep the gold tags in the column and write each word's k best tags to MISC (TagKBest), for 'hetdep train --lattice'.")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.0, show_default=True, help="With --k: drop candidates whose probability is below this (the best is kept).")
def jackknife_command(train_path, output_path, folds, columns, beam, iterations, seed, kbest, threshold):
    """Tag a training file by jackknifing: each fold by a tagger trained on the others."""
    from .tagger import TaggerOptions, jackknife, tag_accuracy

    sentences = _read(train_path)
    tagged = jackknife(sentences, folds, list(dict.fromkeys(columns)), TaggerOptions(beam=beam, iterations=iterations, seed=seed),
                       progress=lambda message: click.echo(message, err=True), k=kbest, threshold=threshold)
    write_conllu(tagged, output_path)
    if not kbest:
        for column in dict.fromkeys(columns):
            click.echo(f"{column}: {tag_accuracy(sentences, tagged, column):.2f}% of the gold tags kept", err=True)


@main.command("convert")
@click.option("--from", "source", required=True, type=click.Choice(["ptb", "ud"]), help="Input scheme: 'ptb' (bracketed constituency trees: a .mrg file, a folder or a .zip of them) or 'ud' (CoNLL-U).")
@click.option("--to", "target", type=click.Choice(["sud"]), help="Output scheme of a UD input.")
@click.option("--rules", default="penn2malt", show_default=True, help="PTB input: head table, 'penn2malt', 'zhang-clark-2008' (Chinese) or a table file.")
@click.option("--labels", type=click.Choice(["penn2malt", "phrase"]), help="PTB input: dependency labels, Penn2Malt's functional labels or the dependent's phrase category (default: penn2malt with the penn2malt table, phrase otherwise).")
@click.argument("input_path", metavar="IN", type=click.Path(exists=True))
@click.argument("output_path", metavar="OUT", type=click.Path())
def convert_command(source, target, rules, labels, input_path, output_path):
    """Convert trees between schemes: constituency -> dependency by head rules, UD -> SUD.

    For UD -> SUD, IN may be a folder of *.ud.conllu files: OUT is then a folder receiving each
    file and its SUD conversion side by side (NAME.ud.conllu, NAME.sud.conllu), a same-sentence
    pair ready for 'hetdep train --train-b' and 'hetdep experiment joint --treebank OUT'.
    """
    from tqdm import tqdm

    def progress(items):
        return tqdm(items, unit="sent", mininterval=1.0, disable=None)

    if source == "ptb":
        from .headrules import convert_trees, load_table
        from .ptb import read_trees

        if target:
            raise click.UsageError("--to applies to --from ud; PTB input converts to dependencies by --rules")
        table = load_table(rules)
        labels = labels or ("penn2malt" if rules == "penn2malt" else "phrase")
        count = write_conllu(convert_trees(progress(read_trees(input_path)), table, labels), output_path)
        click.echo(f"converted {count} trees with the {rules} head rules to {output_path}", err=True)
        for label, uses in table.unknown.most_common():
            click.echo(f"warning: phrase label {label!r} is not in the table: its DEFAULT rule served {uses} phrases", err=True)
        return
    from .ud2sud import convert_sentences

    if target != "sud":
        raise click.UsageError("UD input converts to SUD: give --to sud")
    pairs = [(Path(input_path), Path(output_path))]
    if Path(input_path).is_dir():
        files = sorted(Path(input_path).glob("*.ud.conllu"))
        if not files:
            raise click.UsageError(f"{input_path} holds no *.ud.conllu files")
        Path(output_path).mkdir(parents=True, exist_ok=True)
        pairs = []
        for file in files:
            copy = Path(output_path) / file.name
            write_conllu(read_conllu(file), copy)
            pairs.append((file, copy.with_name(file.name.replace(".ud.conllu", ".sud.conllu"))))
    for source_file, target_file in pairs:
        count = write_conllu(convert_sentences(progress(read_conllu(source_file, require_heads=True))), target_file)
        click.echo(f"converted {count} sentences of {source_file} to SUD: {target_file}", err=True)


@main.group("experiment")
def experiment_group():
    """Rerun the papers' experiments; each writes a Markdown report with tables and plots."""


@experiment_group.command("joint")
@click.option("--treebank", required=True, type=click.Path(file_okay=False, exists=True), help="Folder with {train,dev,test}.{A,B}.conllu, e.g. ../shared/data/fr-sequoia.")
@click.option("--scheme-a", default="sud", show_default=True, help="File infix of scheme a (function heads in the paper).")
@click.option("--scheme-b", default="ud", show_default=True, help="File infix of scheme b.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for models, plots and report.md (rerunning reuses its models).")
@click.option("--ts", default=",".join(("1", "2", "3", "4", "inf", "-1", "-2", "-3", "-4", "-inf")), show_default=True, help="Comma-separated values of t to train.")
@click.option("--beam", type=click.IntRange(1), default=64, show_default=True, help="Beam size.")
@click.option("--iterations", type=click.IntRange(1), default=15, show_default=True, help="Most training iterations.")
@click.option("--tag-column", type=click.Choice(["upos", "xpos"]), default="upos", show_default=True, help="POS tag column.")
@click.option("--update", type=click.Choice(["early", "max-violation"]), default="early", show_default=True, help="Perceptron update, for baselines and joint models alike.")
@click.option("--guide", type=click.Choice(["paper", "rich"]), default="paper", show_default=True, help="The joint models' guided features (see 'hetdep train --help').")
@click.option("--train-only", is_flag=True, help="Train the baselines and the models of --ts that OUT lacks, then stop; lets several processes share one OUT, a last run without it writes the report.")
def experiment_joint(treebank, scheme_a, scheme_b, out, ts, beam, iterations, tag_column, update, guide, train_only):
    """zhang2014 Tables 2-5 and Figure 3: baselines, joint model for each t, ablation, test and significance."""
    from .experiments import run_joint_experiment
    from .training import TrainOptions

    values = _t_values(ts)
    report = run_joint_experiment(Path(treebank), Path(out), scheme_a=scheme_a, scheme_b=scheme_b, ts=values,
                                  options=TrainOptions(beam=beam, iterations=iterations, tag_column=tag_column, update=update),
                                  guide=guide, log=lambda message: click.echo(message, err=True), train_only=train_only)
    click.echo(f"models trained in {out}/models" if train_only else f"report written to {report}", err=True)


@experiment_group.command("predicted-tags")
@click.option("--treebank", required=True, type=click.Path(file_okay=False, exists=True), help="Folder with {train,dev,test}.{A,B}.conllu, e.g. ../shared/data/fr-sequoia.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for tagged files, models and report.md (rerunning reuses them).")
@click.option("--scheme-a", default="sud", show_default=True, help="File infix of scheme a.")
@click.option("--scheme-b", default="ud", show_default=True, help="File infix of scheme b.")
@click.option("--t", "t", default="inf", show_default=True, help="Interleaving of the joint model; several, comma-separated (e.g. --t=inf,3,-1), are each trained and the best on tagged dev is tested.")
@click.option("--beam", type=click.IntRange(1), default=64, show_default=True, help="Beam size.")
@click.option("--iterations", type=click.IntRange(1), default=15, show_default=True, help="Most training iterations of each parser.")
@click.option("--update", type=click.Choice(["early", "max-violation"]), default="max-violation", show_default=True, help="Perceptron update.")
@click.option("--folds", type=click.IntRange(2), default=10, show_default=True, help="Jackknifing folds over train.")
@click.option("--tagger-iterations", type=click.IntRange(1), default=10, show_default=True, help="Training iterations of each tagger.")
@click.option("--lattice-k", type=click.IntRange(0), default=3, show_default=True, help="Also train and test arc-standard and joint parsers over each word's k best tags (0: no lattice parsers).")
@click.option("--lattice-reference", type=click.Choice(["gold", "predicted"]), default="gold", show_default=True, help="Tags the lattice parsers learn to choose: gold (where the tagger offered them) or the tagger's best, as the 1-best parsers read.")
@click.option("--lattice-weight", type=float, default=0.0, show_default=True, help="Weight of the tagger's log-probabilities while the lattice parsers train (the weight they parse with is chosen on dev).")
@click.option("--train-only", is_flag=True, help="Tag, train the baselines and the joint models of --t that OUT lacks, then stop; lets several processes share one OUT.")
def experiment_predicted_tags(treebank, out, scheme_a, scheme_b, t, beam, iterations, update, folds, tagger_iterations, lattice_k,
                              lattice_reference, lattice_weight, train_only):
    """Baseline and joint parsers trained on jackknifed tags and tested on predicted tags."""
    from .experiments import run_predicted_tags_experiment
    from .training import TrainOptions

    values = _t_values(t)
    report = run_predicted_tags_experiment(Path(treebank), Path(out), scheme_a=scheme_a, scheme_b=scheme_b, ts=values,
                                           options=TrainOptions(beam=beam, iterations=iterations, update=update),
                                           folds=folds, tagger_iterations=tagger_iterations, lattice_k=lattice_k,
                                           lattice_reference=lattice_reference, lattice_weight=lattice_weight,
                                           log=lambda message: click.echo(message, err=True), train_only=train_only)
    click.echo(f"models trained in {out}/models" if train_only else f"report written to {report}", err=True)


@experiment_group.command("consensus")
@click.option("--setting", type=click.Choice(["fr", "en"]), required=True, help="fr: fr-sequoia UD with fr-gsd SUD; en: en-ewt UD with the WSJ sample in Penn2Malt style (see 'hetdep.experiments.consensus_setting').")
@click.option("--data", type=click.Path(file_okay=False, exists=True), default="../shared/data", show_default=True, help="Folder holding the treebanks.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for models and report.md (rerunning reuses its models).")
@click.option("--iterations", type=click.IntRange(1), default=10, show_default=True, help="Most training iterations of each parser.")
@click.option("--k", type=click.IntRange(1), default=16, show_default=True, help="k-best list size.")
@click.option("--rounds", type=click.IntRange(1), default=4, show_default=True, help="Rounds of exchange between the parsers.")
@click.option("--parsers", default="dep1,dep2", show_default=True, help="Comma-separated parser kinds to run (dep1, dep2).")
def experiment_consensus(setting, data, out, iterations, k, rounds, parsers):
    """zhou-zhao2013 Tables 1 and 4: baselines, consensus features, concatenation, sign tests."""
    from .experiments import run_consensus_experiment
    from .graph import KINDS
    from .training import TrainOptions

    kinds = tuple(kind.strip() for kind in parsers.split(",") if kind.strip())
    if not kinds or any(kind not in KINDS for kind in kinds):
        raise click.UsageError(f"--parsers {parsers!r}: give dep1, dep2 or both, separated by a comma")
    report = run_consensus_experiment(setting, Path(data), Path(out), kinds=kinds,
                                      options=TrainOptions(iterations=iterations, patience=3), k=k, iterations=rounds,
                                      log=lambda message: click.echo(message, err=True))
    click.echo(f"report written to {report}", err=True)
