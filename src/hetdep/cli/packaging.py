"""Commands about models as things to ship, install and find: compact, package, models."""

from __future__ import annotations

import click

from hetdep.cli.app import MODEL, FiniteFloat


@click.command("compact")
@click.argument("model_dir", metavar="MODEL", type=MODEL)
@click.option("--output", "output_dir", required=True, type=click.Path(file_okay=False), help="New folder for the compact model.")
@click.option("--prune", type=FiniteFloat(0, 1, max_open=True), default=0.0, show_default=True,
              help="Leave out this share of each perceptron tagger's weights, the smallest (a smaller model, FEATS and lemmas slightly worse: docs/models.md measures it on the shipped French model).")
@click.option("--unpruned", multiple=True, metavar="PART",
              help="A tagger's folder inside MODEL that --prune leaves whole (e.g. tagger/feats); repeat for several.")
@click.option("--precision", type=click.Choice(["int8", "float32"]), default=None,
              help="A neural model's arithmetic when parsing: int8 runs its LSTMs' and linear layers' products in 8-bit integers through onnxruntime (faster where the CPU has dense 8-bit products; the model carries the runtime's graphs, written with onnx: pip install 'hetdep[int8]'; 'hetdep parse --precision' still chooses), float32 in NumPy  [default: as MODEL has it; float32 for a model never compacted so]")
@click.option("--int8-first-layer", is_flag=True,
              help="With --precision int8: the encoder's first LSTM layer in 8 bits too (faster; by default float32, as its input joins vectors of unlike scales under one 8-bit scale: measure before shipping: against the first layer in float32, en-ewt test lost 0.01 UD LAS from gold tokens, fr-gsd 0.12 SUD LAS)")
@click.option("--int8-pretrained-scale", type=FiniteFloat(0, min_open=True), default=1.0, show_default=True,
              help="With --int8-first-layer: multiply the pretrained vectors by this in that layer's 8-bit input (and its weights of them by the inverse: the same layer, exactly): a table whose few largest values dwarf the rest sets one coarse 8-bit step for every input otherwise (the shipped fr: 0.33, docs/speed.md)")
def compact_command(model_dir, output_dir, prune, unpruned, precision, int8_first_layer, int8_pretrained_scale):
    """Make a small copy of a model to ship: a neural network's large arrays as 8-bit integers
    (per-row scales), the taggers' weights stored small and their feature strings deflated, every
    other part's compressed: about a third of the size, the same trees within a few hundredths of
    LAS (docs/models.md)."""
    from hetdep.models.compact import compact_model, folder_bytes

    if int8_first_layer and precision != "int8":
        raise click.UsageError("--int8-first-layer is for --precision int8")
    if int8_pretrained_scale != 1.0 and not int8_first_layer:
        raise click.UsageError("--int8-pretrained-scale is for --int8-first-layer")
    compact_model(model_dir, output_dir, prune=prune, unpruned=unpruned, precision=precision,
                  int8_first_layer=int8_first_layer, int8_pretrained_scale=int8_pretrained_scale)
    size = folder_bytes(output_dir)
    click.echo(f"wrote {output_dir} ({size / 1e6:.1f} MB)", err=True)


@click.command("package")
@click.argument("model_dir", metavar="MODEL", type=MODEL)
@click.option("--name", required=True, help="The name the model is loaded by once installed (hetdep.load(NAME), --model NAME): lower-case letters, digits and '-'.")
@click.option("--version", "version", default="1.0.0", show_default=True, help="The package's version (PEP 440).")
@click.option("--summary", default="", help="One line describing the model, shown by pip.")
@click.option("--output", "output_dir", required=True, type=click.Path(file_okay=False), help="Folder to write the wheel to.")
def package_command(model_dir, name, version, summary, output_dir):
    """Build a wheel pip installs (hetdep_model_NAME-VERSION-py3-none-any.whl) from a model:
    once installed, hetdep.load("NAME") and --model NAME find it, and 'hetdep models' lists it."""
    from hetdep.models.packaging import build_wheel

    wheel = build_wheel(model_dir, name, output_dir, version=version, summary=summary)
    click.echo(f"wrote {wheel} ({wheel.stat().st_size / 1e6:.1f} MB): pip install {wheel}", err=True)


@click.command("models")
def models_command():
    """The models hetdep finds by name: the one shipped with it, and the model packages installed."""
    from hetdep.models.names import available_models

    models = available_models()
    if not models:
        click.echo("no model is installed ('hetdep package' builds one; --model also takes a directory)")
    for model in models:
        click.echo(f"{model.name}\t{model.source}\t{model.path}")
