"""The command that draws trees: render."""

from __future__ import annotations

from pathlib import Path

import click

from hetdep.cli.app import read_all
from hetdep.errors import HetdepError
from hetdep.treebank.outputs import output_files


@click.command("render")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False))
@click.option("--input-b", "input_b_path", type=click.Path(dir_okay=False), help="The same sentences in a second scheme (a joint model's --output-b): its arcs are drawn below the words, and the arcs both trees share solid, the others dashed. Under bracketed phrase-structure trees: their words' dependency trees (CoNLL-U), drawn below.")
@click.option("--gold", "gold_path", type=click.Path(dir_okay=False), help="The gold trees of INPUT's scheme: draw INPUT against them, wrong heads red, right heads with a wrong label in red. For bracketed phrase-structure trees: bracketed gold trees, the phrases they lack red.")
@click.option("--enhanced", is_flag=True, help="Draw each sentence's enhanced graph (its DEPS column, as a model trained with --enhanced writes it) below the words, under its basic tree: the arcs the tree has too solid, the graph's others dashed.")
@click.option("--names", help="Names of the schemes, comma-separated (default: from the file names, test.sud.conllu: sud).")
@click.option("--sentence", type=click.IntRange(1), help="Draw only this sentence (1 is the first); needed for an .svg output of a file with several sentences.")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False, allow_dash=True), help="An .html page (every sentence), or an .svg picture (one sentence); '-': the HTML on standard output.")
def render_command(input_path, input_b_path, gold_path, enhanced, names, sentence, output_path):
    """Draw trees as pictures: one scheme's arcs above the words, a second's below (zhang2014
    Figure 1), or a prediction against its gold tree; self-contained SVG or HTML, no script.
    INPUT of bracketed phrase-structure trees: their phrases above the words, with --input-b's
    dependency trees below or against --gold's bracketed trees."""
    from hetdep.models.training import scheme_name
    from hetdep.neural.enhanced import has_graph
    from hetdep.render.sentences import page, picture

    if sum(map(bool, (input_b_path, gold_path, enhanced))) > 1:
        raise click.UsageError("--input-b draws two schemes, --gold one scheme against its gold, --enhanced a tree and its "
                               "graph: give one of them")
    if _bracketed(input_path):
        if enhanced:
            raise HetdepError(f"{input_path} holds phrase-structure trees: --enhanced draws the DEPS of CoNLL-U files")
        return _render_phrase_trees(input_path, input_b_path, gold_path, names, sentence, output_path)
    sentences = read_all(input_path, require_heads=True, single_root=False)
    others = read_all(input_b_path, require_heads=True, single_root=False) if input_b_path else None
    golds = read_all(gold_path, require_heads=True, single_root=False) if gold_path else None
    named = [n.strip() for n in names.split(",")] if names else [scheme_name(input_path, "a")] + (
        [scheme_name(input_b_path, "b")] if input_b_path else [])
    if enhanced and not any(map(has_graph, sentences)):
        raise HetdepError(f"{input_path} has no enhanced graph (its DEPS column is '_' throughout): nothing to draw "
                          "with --enhanced")
    pick = _picked(input_path, len(sentences), sentence, output_path)
    sentences = sentences[pick]
    others = others[pick] if others is not None else None
    golds = golds[pick] if golds is not None else None
    if output_path.endswith(".svg"):
        text = picture(sentences[0], named[0], others[0] if others else None, named[1] if len(named) > 1 else "",
                       golds[0] if golds else None, enhanced)
    else:
        text = page(sentences, named, others, golds, title=Path(input_path).name, enhanced=enhanced)
    with output_files(output_path) as (out,):
        out.write(text)
    click.echo(f"drew {len(sentences)} sentence{'s' if len(sentences) != 1 else ''} to {output_path}", err=True)


def _picked(input_path: str, count: int, sentence: int | None, output_path: str) -> slice:
    """The sentences to draw of INPUT's ``count``: ``--sentence``'s, or all; an .svg picture holds one."""
    if sentence is not None:
        if sentence > count:
            raise HetdepError(f"{input_path} has {count} sentences: no sentence {sentence}")
        return slice(sentence - 1, sentence)
    if output_path.endswith(".svg") and count != 1:
        raise HetdepError(f"an .svg picture holds one sentence and {input_path} has {count}: "
                          "choose one with --sentence, or write an .html page")
    return slice(None)


def _bracketed(path: str) -> bool:
    """Whether a file holds bracketed phrase-structure trees (its first character but white space
    is a bracket; a CoNLL-U file starts with a comment or a word's number)."""
    try:
        with open(path, "rb") as file:
            start = file.read(4096).lstrip()
    except OSError:
        return False  # read again where its error is said
    return start.startswith(b"(")


def _render_phrase_trees(input_path, input_b_path, gold_path, names, sentence, output_path):
    """Phrase-structure trees (``hetdep parse``'s ``--output`` of a constituency model), with
    ``--input-b``'s dependency trees of the same words below, or against ``--gold``'s bracketed trees."""
    from hetdep.models.training import scheme_name
    from hetdep.render.sentences import phrase_picture
    from hetdep.render.svg import html_page
    from hetdep.treebank.ptb import read_trees

    if gold_path and not _bracketed(gold_path):
        raise HetdepError(f"{gold_path}: phrase-structure trees are drawn against bracketed gold trees, and this file is not one")
    trees = list(read_trees(input_path))
    others = read_all(input_b_path, require_heads=True, single_root=False) if input_b_path else None
    golds = list(read_trees(gold_path)) if gold_path else None
    named = [n.strip() for n in names.split(",")] if names else ["phrase structure"] + (
        [scheme_name(input_b_path, "b")] if input_b_path else [])
    for partners, path in ((others, input_b_path), (golds, gold_path)):
        if partners is not None and len(partners) != len(trees):
            raise HetdepError(f"{input_path} has {len(trees)} trees and {path} {len(partners)}: draw them from the same sentences")
    chosen = range(len(trees))[_picked(input_path, len(trees), sentence, output_path)]
    svgs = [phrase_picture(trees[k], named[0], others[k] if others else None, named[1] if len(named) > 1 else "",
                           golds[k] if golds else None) for k in chosen]
    text = svgs[0] if output_path.endswith(".svg") else html_page(svgs, Path(input_path).name)
    with output_files(output_path) as (out,):
        out.write(text)
    click.echo(f"drew {len(svgs)} tree{'s' if len(svgs) != 1 else ''} to {output_path}", err=True)
