"""A model made small enough to ship: the neural network's large arrays quantized to 8-bit
integers, the perceptron taggers' weights in their small stored form (the same numbers,
:mod:`hetdep.learn.small_weights`), every other part's weights compressed; the trees nearly the
same (measured on fr-sequoia in docs/models.md)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Sequence

from hetdep.errors import HetdepError
from hetdep.learn.checkpoint import STATE
from hetdep.learn.model_files import compress_weights, read_kind, shrink_weights
from hetdep.models import NEURAL, NEURAL_CONSTITUENCY

TAGGER = "tagger"  # the perceptron taggers' kind: the parts ``prune`` applies to


def compact_model(source: str | Path, target: str | Path, prune: float = 0.0, unpruned: Sequence[str] = (),
                  precision: str | None = None, int8_first_layer: bool = False, int8_pretrained_scale: float = 1.0) -> Path:
    """Write the compact copy of the model directory ``source`` to ``target`` (a new folder,
    written whole or not at all); returns ``target``. ``prune``: the share of each perceptron
    tagger's weights, the smallest, left out, but of the taggers under the model's folders named in
    ``unpruned`` (``tagger/feats``: a tagger whose scores matter more than its megabytes);
    ``precision``: a neural network's arithmetic when parsing (int8: with the runtime's graphs,
    :mod:`hetdep.neural.int8`; None: as the source has it); ``int8_first_layer``: with int8, the
    encoder's first LSTM layer in 8 bits too (else float32), its pretrained vectors' share of the
    input multiplied by ``int8_pretrained_scale`` (:func:`hetdep.neural.int8.first_layer_scale`)."""
    if precision == "int8":
        from hetdep.extras import require

        require("int8", "hetdep compact --precision int8")
    from hetdep.models.info import summary

    source, target = Path(source), Path(target)
    refuse_inside(target, source)
    if target.exists():
        raise HetdepError(f"{target} exists: give a new folder for the compact model")
    if not target.parent.is_dir():
        raise HetdepError(f"{target}: the folder {target.parent} does not exist")
    summary(source)  # only a model that loads is made small
    kept_whole = [_tagger_folder(source, folder) for folder in unpruned]
    with tempfile.TemporaryDirectory(prefix=f".{target.name}.", dir=target.parent) as staging:
        copy = Path(staging) / "model"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(STATE))
        networks = 0
        try:
            for config in sorted(copy.rglob("config.json")):
                part = config.parent
                if part.name == "transformer":  # a pretrained transformer's own files (neural.parser.TRANSFORMER), as they are
                    continue
                if read_kind(part) in (NEURAL, NEURAL_CONSTITUENCY):
                    from hetdep.neural.int8 import INT8_FIRST_LAYER, INT8_PRETRAINED_SCALE
                    from hetdep.neural.parser import NeuralParser

                    parser = NeuralParser.load(part)
                    networks += 1
                    if precision is not None:  # else as the source has it, its graphs copied with it
                        parser.record["precision"] = precision
                        parser.record.pop(INT8_FIRST_LAYER, None)
                        parser.record.pop(INT8_PRETRAINED_SCALE, None)
                        if int8_first_layer:
                            parser.record[INT8_FIRST_LAYER] = True
                            if int8_pretrained_scale != 1.0:
                                parser.record[INT8_PRETRAINED_SCALE] = int8_pretrained_scale
                        _runtime_graphs(part, parser)
                    parser.save(part, quantize=True)
                elif read_kind(part) == TAGGER:
                    whole = any(part.relative_to(copy).is_relative_to(folder) for folder in kept_whole)
                    shrink_weights(part, TAGGER, 0.0 if whole else prune)
                else:
                    compress_weights(part)
            if precision is not None and not networks:
                raise HetdepError(f"{copy} has no neural network: --precision is for neural models")
            summary(copy)
        except HetdepError as error:  # named by the model given, not by the copy being made
            raise HetdepError(str(error).replace(str(copy), str(source))) from None
        copy.rename(target)
    return target


def _runtime_graphs(folder: Path, parser) -> None:
    """The int8 runtime's graphs in a neural model's ``folder`` that parses in int8, none in one
    that parses in float32."""
    from hetdep.neural import int8

    shutil.rmtree(folder / int8.GRAPHS, ignore_errors=True)
    if parser.record.get("precision") == "int8":
        int8.write_graphs(folder, {parser.shape.hidden, parser.shape.char_hidden}, gelu=int8.runs_gelu(parser))


def _tagger_folder(model: Path, folder: str) -> Path:
    """``folder`` of ``unpruned``, checked: a folder of ``model`` holding a perceptron tagger."""
    path = Path(folder)
    if path.is_absolute() or ".." in path.parts or not (model / path / "config.json").is_file() \
            or read_kind(model / path) != TAGGER:
        raise HetdepError(f"--unpruned {folder}: not a tagger's folder inside {model} (e.g. tagger/feats)")
    return path


def refuse_inside(output: Path, model: Path) -> None:
    """Refuse an output folder inside the model it is made from: copying the model would copy the
    copy into itself."""
    if output.resolve().is_relative_to(model.resolve()):
        raise HetdepError(f"--output {output} is inside the model {model}: give a folder outside it")


def folder_bytes(directory: str | Path) -> int:
    """The bytes of every file under ``directory``: a model's size on disk."""
    return sum(path.stat().st_size for path in Path(directory).rglob("*") if path.is_file())
