"""docs/reference.md, written from the command line's own help: one section a command (its usage,
what it does, its options) and an example, so the reference and ``--help`` cannot disagree
(tests/test_reference_page.py checks that the committed page is what this writes).

    python -m hetdep.cli.reference > docs/reference.md
"""

from __future__ import annotations

import click

WIDTH = 100  # the help's lines wrapped here: every line of the page under 300 characters
EXAMPLES = {
    "parse": "hetdep parse --input text.txt --output ud=text.ud.conllu --output-b sud=text.sud.conllu",
    "train": "hetdep train --train train.ud.conllu --dev dev.ud.conllu --model my-model",
    "eval": "hetdep eval --conll18 gold.conllu parsed.conllu",
    "compare": "hetdep compare gold.conllu a.conllu b.conllu",
    "validate": "hetdep validate parsed.conllu",
    "convert": "hetdep convert --from ud --to sud train.ud.conllu train.sud.conllu",
    "serve": "hetdep serve --model fr --model en --port 8001",
    "render": "hetdep render text.sud.conllu --input-b text.ud.conllu --output trees.html",
    "info": "hetdep info en",
    "models": "hetdep models",
    "compact": "hetdep compact my-model --output my-model-small",
    "package": "hetdep package my-model-small --name my-model --output dist",
    "tag": "hetdep tag --model fr --input words.conllu --output tagged.conllu",
    "tokenize": "hetdep tokenize --model fr --input text.txt --output tokens.conllu",
    "train-tagger": "hetdep train-tagger --train train.conllu --dev dev.conllu --model tagger --column upos --column feats",
    "train-tokenizer": "hetdep train-tokenizer --train train.conllu --dev dev.conllu --model tokenizer",
    "jackknife": "hetdep jackknife --train train.conllu --output train.tagged.conllu",
    "projectivity": "hetdep projectivity train.conllu",
    "experiment joint": "hetdep experiment joint --treebank data/fr-sequoia --out runs/joint --scheme-a sud --scheme-b ud",
}


def commands(group: click.Group, context: click.Context, path: tuple[str, ...] = ()):
    """Every command below ``group`` as (its words, the command, its context), in the order --help lists them."""
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        own = click.Context(command, info_name=name, parent=context, max_content_width=WIDTH, terminal_width=WIDTH)
        if isinstance(command, click.Group):
            yield from commands(command, own, (*path, name))
        else:
            yield (*path, name), command, own


def reference() -> str:
    """The page: a section a command, its ``--help`` as the terminal shows it, and an example."""
    from hetdep.cli import main

    root = click.Context(main, info_name="hetdep", max_content_width=WIDTH, terminal_width=WIDTH,
                         **main.context_settings)  # -h as well as --help, as the command line has them
    lines = ["# Command reference", "",
             "Every command's `--help`, as `python -m hetdep.cli.reference > docs/reference.md` writes it; the",
             "guide ([guide.md](guide.md)) shows them at work. A command's options of the papers' experiments",
             "come after its everyday ones, under their own heading.", ""]
    for words, command, context in commands(main, root):
        name = " ".join(words)
        lines += [f"## hetdep {name}", "", "```text", command.get_help(context).rstrip(), "```", ""]
        if name in EXAMPLES:
            lines += ["For example:", "", "```bash", EXAMPLES[name], "```", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    click.echo(reference(), nl=False)
