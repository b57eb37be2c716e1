"""The convert command: constituency to dependency by head rules, UD to SUD."""

from __future__ import annotations

from pathlib import Path

import click

from hetdep.treebank.conllu import read_conllu, write_conllu
from hetdep.treebank.outputs import output_files


@click.command("convert")
@click.option("--from", "source", required=True, type=click.Choice(["ptb", "ud"]), help="Input scheme: 'ptb' (bracketed constituency trees: a .mrg file, a folder or a .zip of them) or 'ud' (CoNLL-U).")
@click.option("--to", "target", type=click.Choice(["sud"]), help="Output scheme of a UD input.")
@click.option("--rules", default="penn2malt", show_default=True, help="PTB input: head table, 'penn2malt', 'collins', 'zhang-clark-2008' (Chinese) or a table file.")
@click.option("--labels", type=click.Choice(["penn2malt", "phrase"]), help="PTB input: dependency labels, Penn2Malt's functional labels or the dependent's phrase category (default: penn2malt with the penn2malt table, phrase otherwise).")
@click.argument("input_path", metavar="IN", type=click.Path(exists=True))
@click.argument("output_path", metavar="OUT", type=click.Path())
def convert_command(source, target, rules, labels, input_path, output_path):
    """Convert trees between schemes: constituency -> dependency by head rules, UD -> SUD.

    For UD -> SUD, IN may be a folder of *.ud.conllu files: OUT is then a folder receiving each
    file and its SUD conversion side by side (NAME.ud.conllu, NAME.sud.conllu), a same-sentence
    pair ready for 'hetdep train --train-b' and 'hetdep experiment joint --treebank OUT'.
    """
    from hetdep.progress import counted_on_terminal as progress

    if source == "ptb":
        from hetdep.convert.headrules import convert_trees, load_table
        from hetdep.treebank.ptb import read_trees

        if target:
            raise click.UsageError("--to applies to --from ud; PTB input converts to dependencies by --rules")
        table = load_table(rules)
        labels = labels or ("penn2malt" if rules == "penn2malt" else "phrase")
        count = write_conllu(convert_trees(progress(read_trees(input_path)), table, labels), output_path)
        click.echo(f"converted {count} trees with the {rules} head rules to {output_path}", err=True)
        for label, uses in table.unknown.most_common():
            click.echo(f"warning: phrase label {label!r} is not in the table: its DEFAULT rule served {uses} phrases", err=True)
        return
    from hetdep.convert.ud2sud import convert_sentences

    if target != "sud":
        raise click.UsageError("UD input converts to SUD: give --to sud")
    if not Path(input_path).is_dir():
        count = write_conllu(convert_sentences(progress(read_conllu(input_path, require_heads=True))), output_path)
        click.echo(f"converted {count} sentences of {input_path} to SUD: {output_path}", err=True)
        return
    files = sorted(Path(input_path).glob("*.ud.conllu"))
    if not files:
        raise click.UsageError(f"{input_path} holds no *.ud.conllu files")
    _convert_folder(files, Path(output_path), progress)


def _convert_folder(files: list[Path], out: Path, progress) -> None:
    """Each UD file and its SUD conversion into ``out``, all or none: every file is read and
    converted before any is put in place, so a bad file leaves ``out`` as it was."""
    from hetdep.convert.ud2sud import convert_sentences

    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    targets = [(out / file.name, out / file.name.replace(".ud.conllu", ".sud.conllu")) for file in files]
    said = []
    try:
        with output_files(*[path for pair in targets for path in pair]) as handles:
            for k, (file, (_, sud)) in enumerate(zip(files, targets)):
                copy, converted = handles[2 * k], handles[2 * k + 1]
                count = 0
                for sentence in convert_sentences(progress(_copied(read_conllu(file, require_heads=True), copy))):
                    converted.write(sentence.to_text())
                    count += 1
                said.append(f"converted {count} sentences of {file} to SUD: {sud}")
    except BaseException:
        if created and not any(out.iterdir()):
            out.rmdir()
        raise
    for line in said:
        click.echo(line, err=True)


def _copied(sentences, out):
    """The sentences, each written to ``out`` as it passes (the UD side of the pair)."""
    for sentence in sentences:
        out.write(sentence.to_text())
        yield sentence
