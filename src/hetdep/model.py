"""The averaged perceptron's weights: a feature-key table, one row of action scores per feature.

``W`` holds the current weights, ``U`` the running sum of (update time x update) for
averaging (averaged = W - U / c). Both grow by doubling when a training sentence could
overflow them; the key table is rehashed to stay at most half full.

On disk a model is a directory: ``config.json`` (kind, format version, options, vocabularies)
and ``weights.npz`` (keys, rows and averaged weights only); no pickle anywhere.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from . import _beam
from .errors import HetdepError

FORMAT_VERSION = 1


class ModelFileError(HetdepError):
    """A model directory that is missing, of the wrong kind, or damaged."""


class Weights:
    def __init__(self, n_actions: int, rows: int = 1 << 16, table: int = 1 << 17):
        self.n_actions = n_actions
        self.tkeys = np.zeros(table, dtype=np.uint64)
        self.trows = np.full(table, -1, dtype=np.int32)
        self.n_rows = np.zeros(1, dtype=np.int64)
        self.W = np.zeros((rows, n_actions), dtype=np.float32)
        self.U = np.zeros((rows, n_actions), dtype=np.float32)
        self.counter = 1

    @property
    def features(self) -> int:
        return int(self.n_rows[0])

    def reserve(self, new_rows: int) -> None:
        """Make room for ``new_rows`` more features before a compiled update may add them."""
        needed = self.features + new_rows
        if needed > self.W.shape[0]:
            size = self.W.shape[0]
            while size < needed:
                size *= 2
            for name in ("W", "U"):
                old = getattr(self, name)
                grown = np.zeros((size, self.n_actions), dtype=np.float32)
                grown[: old.shape[0]] = old
                setattr(self, name, grown)
        if 2 * needed > self.tkeys.shape[0]:
            size = self.tkeys.shape[0]
            while 2 * needed > size:
                size *= 2
            self.tkeys, self.trows = _beam.rehash(self.tkeys, self.trows, size)

    def averaged(self) -> np.ndarray:
        """Averaged weights of the features seen so far (a new array)."""
        used = self.features
        return self.W[:used] - self.U[:used] / np.float32(self.counter)

    def nbytes(self) -> int:
        return self.W.nbytes + self.U.nbytes + self.tkeys.nbytes + self.trows.nbytes


def save_model(directory: Path, config: dict, tkeys: np.ndarray, trows: np.ndarray, weights: np.ndarray) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    config = {**config, "format_version": FORMAT_VERSION}
    np.savez_compressed(directory / "weights.npz", tkeys=tkeys, trows=trows, weights=weights)
    with open(directory / "config.json", "w", encoding="utf-8") as out:
        json.dump(config, out, ensure_ascii=False, indent=1)


def load_model(directory: Path, kind: str) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """Config and arrays of a saved model, refusing missing, foreign, newer or damaged files."""
    directory = Path(directory)
    config_path = directory / "config.json"
    if not config_path.is_file():
        raise ModelFileError(f"{directory}: not a hetdep model directory (no config.json)")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelFileError(f"{config_path}: damaged model configuration ({error})") from None
    if not isinstance(config, dict) or "kind" not in config:
        raise ModelFileError(f"{config_path}: not a hetdep model configuration")
    if config["kind"] != kind:
        raise ModelFileError(f"{directory}: this is a '{config['kind']}' model, not a '{kind}' model")
    if config.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{directory}: model format version {config.get('format_version')} is not supported (this hetdep reads version {FORMAT_VERSION})")
    try:
        with np.load(directory / "weights.npz", allow_pickle=False) as arrays:
            tkeys, trows, weights = arrays["tkeys"], arrays["trows"], arrays["weights"]
    except FileNotFoundError:
        raise ModelFileError(f"{directory}: weights.npz is missing") from None
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError) as error:
        raise ModelFileError(f"{directory / 'weights.npz'}: damaged weights file ({error})") from None
    if tkeys.dtype != np.uint64 or trows.dtype != np.int32 or weights.dtype != np.float32 or weights.ndim != 2 \
            or tkeys.shape != trows.shape or (trows.size and trows.max() >= weights.shape[0]):
        raise ModelFileError(f"{directory / 'weights.npz'}: weight arrays do not fit together")
    return config, tkeys, trows, weights
