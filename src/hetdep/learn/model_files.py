"""Model files. On disk a model is a directory: ``config.json`` (kind, format version, options, vocabularies)
and ``weights.npz`` (the arrays of :class:`TrainedWeights`); no pickle anywhere.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from hetdep.errors import HetdepError
from hetdep.learn.weights import TrainedWeights

FORMAT_VERSION = 1


class ModelFileError(HetdepError):
    """A model directory that is missing, of the wrong kind, or damaged."""


class SavedModel:
    """What every model does with its files: ``config()`` describes it, :meth:`from_config` rebuilds it.

    A subclass sets :attr:`KIND` (the ``kind`` its config.json carries) and :attr:`WHAT` (how its
    errors name it); :meth:`load` refuses a missing, foreign, newer or damaged directory and turns a
    configuration that does not fit into one :class:`ModelFileError` naming the file.
    """

    KIND = ""
    WHAT = "model"
    weights: TrainedWeights

    def config(self) -> dict:
        raise NotImplementedError

    def save(self, directory: str | Path, **training_record) -> None:
        """Write the model; ``training_record`` (history, best iteration, options) goes into config.json."""
        save_model(Path(directory), {**self.config(), **training_record}, self.weights)

    @classmethod
    def from_config(cls, config: dict, weights: TrainedWeights, directory: Path, **context) -> "SavedModel":
        raise NotImplementedError

    @classmethod
    def load(cls, directory: str | Path, kind: str | None = None, **context) -> "SavedModel":
        directory = Path(directory)
        config, weights = load_model(directory, kind or cls.KIND)
        try:
            return cls.from_config(config, weights, directory, **context)
        except ModelFileError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, HetdepError) as error:
            raise ModelFileError(f"{directory}/config.json: incomplete or invalid {cls.WHAT} configuration ({error!r})") from None


def check_width(weights: TrainedWeights, width: int, directory: Path, what: str) -> None:
    """Refuse weights whose action columns do not fit the model's labels or tags (``what``)."""
    if (weights.act.size and weights.act.max() >= width) or weights.dense.shape[1] != width:
        raise ModelFileError(f"{directory}: weights do not match {what}")


def save_model(directory: Path, config: dict, weights: TrainedWeights) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    config = {**config, "format_version": FORMAT_VERSION}
    np.savez_compressed(directory / "weights.npz", **weights._asdict())
    with open(directory / "config.json", "w", encoding="utf-8") as out:
        json.dump(config, out, ensure_ascii=False, indent=1)


def _read_config(directory: Path) -> dict:
    config_path = directory / "config.json"
    if not config_path.is_file():
        raise ModelFileError(f"{directory}: not a hetdep model directory (no config.json)")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelFileError(f"{config_path}: damaged model configuration ({error})") from None
    if not isinstance(config, dict) or "kind" not in config:
        raise ModelFileError(f"{config_path}: not a hetdep model configuration")
    return config


def read_kind(directory: str | Path) -> str:
    """The kind of model saved in a directory ('arc-standard', 'joint')."""
    return str(read_config(directory)["kind"])


def read_config(directory: str | Path) -> dict:
    """A saved model's configuration (refusing a missing or damaged config.json)."""
    return _read_config(Path(directory))


def load_model(directory: Path, kind: str) -> tuple[dict, TrainedWeights]:
    """Config and arrays of a saved model, refusing missing, foreign, newer or damaged files."""
    directory = Path(directory)
    config = _read_config(directory)
    if config["kind"] != kind:
        raise ModelFileError(f"{directory}: this is a '{config['kind']}' model, not a '{kind}' model")
    if config.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{directory}: model format version {config.get('format_version')} is not supported (this hetdep reads version {FORMAT_VERSION})")
    try:
        with np.load(directory / "weights.npz", allow_pickle=False) as arrays:
            weights = TrainedWeights(*(arrays[name] for name in TrainedWeights._fields))
    except FileNotFoundError:
        raise ModelFileError(f"{directory}: weights.npz is missing") from None
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError) as error:
        raise ModelFileError(f"{directory / 'weights.npz'}: damaged weights file ({error})") from None
    if not _consistent(weights):
        raise ModelFileError(f"{directory / 'weights.npz'}: weight arrays do not fit together")
    return config, weights


def _consistent(weights: TrainedWeights) -> bool:
    """Every payload points inside the arrays, so a damaged file cannot make the compiled code read astray."""
    table, enext, act, w, dense = weights
    expected = ((np.uint64, 2), (np.int64, 1), (np.int32, 1), (np.float32, 1), (np.float32, 2))
    if any(array.dtype != dtype or array.ndim != ndim for array, (dtype, ndim) in zip(weights, expected)):
        return False
    slots = table.shape[0]
    if table.shape[1] != 2 or slots == 0 or slots & (slots - 1) or len(enext) != len(act) or len(act) != len(w):
        return False
    payload = table[table[:, 0] != 0, 1]
    is_dense = payload >= np.uint64(1 << 63)
    dense_index = payload[is_dense] - np.uint64(1 << 63)
    sparse_first = payload[~is_dense & (payload > 0)]
    return (bool(np.all(dense_index < len(dense))) and bool(np.all(sparse_first <= len(act)))
            and bool(np.all((enext == -1) | ((enext > np.arange(len(enext))) & (enext < len(enext))))))
