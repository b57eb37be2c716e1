"""The one door to every kind of model: :func:`open_models` reads a model directory's kind, refuses
in one line the choices that kind does not take, and opens it as its room in
:mod:`hetdep.models.kinds` says. The command line, ``hetdep.load``, the service, Dask
(:class:`ParseJob`) and ``info`` all come through here; a new kind is one room and one line in ROOMS."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator

from hetdep.errors import HetdepError
from hetdep.learn.model_files import read_config
from hetdep.learn.vocab import ParseStats
from hetdep.models.kinds.constituency import ConstituencyModels
from hetdep.models.kinds.neural import NeuralModels
from hetdep.models.kinds.perceptron import PerceptronModels
from hetdep.models.parsing import OpenModels, ParseChoice
from hetdep.treebank.conllu import Sentence

ROOMS: tuple[type[OpenModels], ...] = (PerceptronModels, NeuralModels, ConstituencyModels)
KINDS: dict[str, type[OpenModels]] = {kind: room for room in ROOMS for kind in room.TAKES}

# Each choice a kind may not take: the option that asks for it, and the models that take it.
CHOICES = {"given": ("--gold-a/--gold-b", "a joint model (the perceptron parser of two schemes)"),
           "helper": ("--with (joint inference)", "two graph-based models (dep1 or dep2: their k-best lists)"),
           "treebank": ("--treebank", "models trained on several treebanks (neural, or graph-based with --concatenate)"),
           "lattice_weight": ("--lattice-weight", "a model trained with --lattice"),
           "to_dependency": ("--to-dependency", "constituency models (constituency, constituency-neural)"),
           "precision": ("--precision", "neural models (neural, constituency-neural)")}


def open_models(model_dir: str | Path, choice: ParseChoice = ParseChoice(), tag_input: bool = True) -> OpenModels:
    """The model in ``model_dir`` loaded for ``choice``, refusing choices its kind does not take
    (``tag_input``: with its bundled tokenizer and taggers, for input that needs them)."""
    config = read_config(model_dir)
    kind = str(config["kind"])
    room = KINDS.get(kind)
    if room is None:
        raise HetdepError(f"{model_dir} is a '{kind}' model, which does not parse: give a parsing model "
                          f"({', '.join(KINDS)})")
    defaults = ParseChoice()
    for name in CHOICES:
        if getattr(choice, name) != getattr(defaults, name) and name not in room.TAKES[kind]:
            option, takers = CHOICES[name]
            raise HetdepError(f"{model_dir} is a '{kind}' model: {option} is for {takers}")
    return room.open(Path(model_dir), config, choice, tag_input)


@dataclass(frozen=True)
class ParseJob:
    """Parse with the model in ``model_dir``, opened as ``choice``: a job for Dask workers
    (:mod:`hetdep.cluster.chunks`), each opening the model once."""

    model_dir: str
    choice: ParseChoice

    def open(self, threads: int = 1, directory: str | None = None) -> OpenModels:
        """The model, parsing on ``threads`` threads (``directory``: where this worker has the model folder)."""
        return open_models(directory or self.model_dir, replace(self.choice, threads=threads))

    def run(self, models: OpenModels, sentences: list[Sentence]) -> tuple[Iterator[tuple], ParseStats]:
        models.reset_stats()
        parsed = models.parse(sentences)
        return (pair if models.pairs else (pair,) for pair in parsed), models.stats
