"""Pretrained word vectors for training, without a detour: a vectors file, or the table a neural
model already carries (the shipped French model holds 200,000 fastText forms in 100 dimensions),
and by default the shipped model's when the training text is in its language."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hetdep.errors import HetdepError
from hetdep.learn.model_files import read_config

NO_VECTORS = "none"  # --embeddings none: train without pretrained vectors
DEFAULT_VECTORS = "default"  # the shipped model's, when the training text is in its language


def read_vectors(source: str | Path) -> tuple[list[str], np.ndarray]:
    """The words and vectors of ``source``: a word2vec / fastText text file, or a neural model
    (its directory, or an installed model's name) whose pretrained table they come from."""
    from hetdep.learn.vectors import read_embeddings
    from hetdep.models.names import find_model

    path = Path(source)
    if path.is_file():
        return read_embeddings(str(path))
    try:
        model = find_model(str(source))
    except HetdepError:
        raise HetdepError(f"--embeddings {source}: no vectors file, model directory or installed model of that name") from None
    if not (model / "config.json").is_file():
        raise HetdepError(f"--embeddings {source}: neither a vectors file nor a model directory")
    config = read_config(model)
    if config.get("kind") not in ("neural", "constituency-neural") or not (config.get("network") or {}).get("pretrained"):
        raise HetdepError(f"--embeddings {source}: the model {model} carries no pretrained vectors (a neural model "
                          "trained with --embeddings does)")
    from hetdep.neural.parser import NeuralParser

    parser = NeuralParser.load(model)
    rows = parser.vocabularies.pretrained
    words = list(rows)
    return words, parser.arrays["pretrained.weight"][np.array([rows[word] for word in words])]


def default_vectors(language: str | None) -> str | None:
    """The shipped model trained on ``language`` that carries vectors, as their source (else
    None): what ``hetdep train`` reads when no --embeddings is given."""
    from hetdep.models.names import shipped_model_of

    shipped = shipped_model_of(language)
    if shipped is None or not (read_config(shipped.path).get("network") or {}).get("pretrained"):
        return None
    return str(shipped.path)
