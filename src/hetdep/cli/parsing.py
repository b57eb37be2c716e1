"""Commands that run trained models over files: parse, tag."""

from __future__ import annotations

import os
from pathlib import Path

import click

from hetdep.treebank.conllu import read_conllu, read_tokenized_text, write_conllu


@click.command("parse")
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

    from hetdep.graph.parser import KINDS, GraphParser
    from hetdep.joint.parser import JointParser
    from hetdep.joint.schedule import INFINITE, t_text
    from hetdep.learn.model_files import read_config, read_kind
    from hetdep.tagger.tagger import load_taggers
    from hetdep.transition.parser import ArcStandardParser

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
    taggers = load_taggers(Path(model_dir) / "tagger") if input_path and (Path(model_dir) / "tagger").is_dir() else []
    lattice = kind in ("arc-standard", "joint") and bool(config.get("lattice"))
    for tagger in taggers:  # the model's own tagger tags the input first (with candidates for a lattice model)
        sentences = tagger.tag(sentences, k=lattice_k if lattice and tagger.column == config["tag_column"] else 0)
    sentences = tqdm(sentences, unit="sent", mininterval=1.0, disable=None)
    if with_model:
        from hetdep.graph.consensus import ConsensusOptions, check_compatible, joint_parse

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
        from hetdep.graph.parser import SECOND_ORDER_MAX_WORDS

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


@click.command("tag")
@click.option("--model", "model_dir", required=True, type=click.Path(file_okay=False), help="Tagger directory from 'hetdep train-tagger'.")
@click.option("--input", "input_path", required=True, type=click.Path(dir_okay=False), help="CoNLL-U file to tag.")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False), help="CoNLL-U file to write: the input with the tagged columns replaced.")
@click.option("--k", type=click.IntRange(0), default=0, show_default=True, help="Also write each word's k best tags of the first column (UPOS if the model has it) with probabilities to MISC (TagKBest=NOUN:0.912,...).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.0, show_default=True, help="With --k: leave out tags below this probability (the best is always kept).")
@click.option("--beam", type=click.IntRange(1), default=None, help="Beam size (default: the model's).")
def tag_command(model_dir, input_path, output_path, k, threshold, beam):
    """Tag a file's words with UPOS and/or XPOS: one output sentence per input sentence."""
    from tqdm import tqdm

    from hetdep.tagger.tagger import load_taggers

    taggers = load_taggers(model_dir)
    sentences = tqdm(read_conllu(input_path), unit="sent", mininterval=1.0, disable=None)
    for tagger in taggers:
        sentences = tagger.tag(sentences, beam, k if tagger is taggers[0] else 0, threshold)
    count = write_conllu(sentences, output_path)
    first = taggers[0]
    click.echo(f"tagged {count} sentences, {first.words} words ({first.unknown_words} unknown) with "
               f"{', '.join(t.column for t in taggers)}", err=True)
