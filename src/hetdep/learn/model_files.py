"""Model files. On disk a model is a directory: ``config.json`` (kind, format version, options, vocabularies)
and ``weights.npz`` (the arrays of :class:`TrainedWeights`); no pickle anywhere.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from pathlib import Path

import numpy as np

from hetdep.errors import HetdepError
from hetdep.learn.inflated_weights import UnlikeWeights, file_sha256, weight_arrays
from hetdep.learn.model_config import ModelFileError, check_fields
from hetdep.learn.small_weights import SMALL_FIELDS, checked_small, to_small
from hetdep.learn.weight_layout import packed_up_to
from hetdep.learn.weights import TrainedWeights

FORMAT_VERSION = 2  # 2: trained weights packed for reading; 1 (chained entries) is read and converted
# Trained weights in their small stored form (hetdep.learn.small_weights): shipped models. 4: also
# the part's large vocabularies kept deflated in weights.npz (ARCHIVED); 3 (without) is read too.
SMALL_FORMAT_VERSION = 4
SMALL_VERSIONS = (3, 4)
READABLE_VERSIONS = (1, 2, *SMALL_VERSIONS)
ARCHIVED = "archived"  # config.json's entries kept in weights.npz (name -> "list" or "object"), as ARCHIVED_MEMBER arrays
ARCHIVED_MEMBER = "config.{}"
ARCHIVED_SMALLEST = 1000  # entries: a vocabulary smaller stays in config.json
STORED_FIELDS = ("features", "packed", "dense")  # format 2's arrays (TrainedWeights.stored)
CHAINED_FIELDS = ("table", "enext", "act", "w", "dense")  # format 1's arrays


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
        except Misfit as error:
            raise ModelFileError(f"{directory / 'config.json' if error.in_config else directory}: {error}") from None
        except (KeyError, TypeError, ValueError, AttributeError, HetdepError) as error:
            raise ModelFileError(f"{directory}/config.json: incomplete or invalid {cls.WHAT} configuration ({error!r})") from None


class Misfit(ValueError):
    """A saved part that does not fit the rest of its model, found by ``from_config``, which is not
    given the folder: :meth:`SavedModel.load` names it (``in_config``: its config.json)."""

    def __init__(self, message: str, in_config: bool = False):
        super().__init__(message)
        self.in_config = in_config


def check_width(weights: TrainedWeights, width: int, what: str) -> None:
    """Refuse weights whose action columns do not fit the model's labels or tags (``what``)."""
    if weights.widest_action() >= width or weights.width != width:
        raise Misfit(f"weights do not match {what}")


def save_model(directory: Path, config: dict, weights: TrainedWeights) -> None:
    """Write weights.npz, then config.json with the weights file's sha256 (so that a config.json
    put beside another model's weights is refused on loading)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    # Not compressed: reading is then some 0.15 s faster for a model of 1M features (start-up
    # counts for short runs), for a file about twice as large.
    np.savez(directory / "weights.npz", **weights.stored())
    write_config(directory, {**config, "format_version": FORMAT_VERSION,
                             "weights_sha256": file_sha256(directory / "weights.npz")})


def compress_weights(directory: Path) -> None:
    """Rewrite a part's weights.npz compressed (the same arrays, about a third of the size for a
    perceptron's), and config.json with its new sha256: for models that are shipped rather than
    loaded often."""
    directory = Path(directory)
    config = read_config(directory)
    with np.load(directory / "weights.npz", allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    np.savez_compressed(directory / "weights.npz", **arrays)
    write_config(directory, {**config, "weights_sha256": file_sha256(directory / "weights.npz")})


def shrink_weights(directory: Path, kind: str, prune: float = 0.0) -> None:
    """Rewrite a perceptron part's weights in their small stored form, compressed (the same
    numbers: :mod:`hetdep.learn.small_weights`), without the ``prune`` share of them smallest in
    magnitude (:meth:`TrainedWeights.pruned`), its large vocabularies moved from config.json into
    the archive, deflated there (a tagger's feature strings: 1.3 MB of JSON, a fifth of that
    deflated), and its config.json with the new version and sha256."""
    config, weights = load_model(directory, kind)
    kept, archived = _archived(config)
    np.savez_compressed(directory / "weights.npz", **to_small(**weights.pruned(prune).stored()), **archived)
    write_config(directory, {**kept, "format_version": SMALL_FORMAT_VERSION,
                             "weights_sha256": file_sha256(directory / "weights.npz")})


def _archived(config: dict) -> tuple[dict, dict[str, np.ndarray]]:
    """``config`` without its large vocabularies (lists of strings, or objects of strings, of at
    least ARCHIVED_SMALLEST entries and no line break in any), naming each under ARCHIVED with
    its shape ("list" or "object"); those vocabularies as arrays for the archive: their strings as
    UTF-8 lines (an object's key, then its value)."""
    def strings(value) -> list | None:
        lines = (value if isinstance(value, list) else
                 [x for pair in value.items() for x in pair] if isinstance(value, dict) else None)
        return lines if lines is not None and len(value) >= ARCHIVED_SMALLEST and all(
            isinstance(x, str) and "\n" not in x for x in lines) else None

    moved = {key: lines for key, value in config.items() if key != ARCHIVED and (lines := strings(value)) is not None}
    arrays = {ARCHIVED_MEMBER.format(key): np.frombuffer("\n".join(lines).encode("utf-8"), dtype=np.uint8)
              for key, lines in moved.items()}
    kept = {key: value for key, value in config.items() if key not in moved and key != ARCHIVED}
    shapes = {key: "object" if isinstance(config[key], dict) else "list" for key in sorted(moved)}
    return ({**kept, ARCHIVED: shapes} if moved else kept), arrays


def _restored(config: dict, path: Path, member) -> dict:
    """``config`` with the entries it keeps in the archive ``path`` back in place (``member``: an
    archive member's array by name), then checked as config.json's own entries are."""
    shapes = config.get(ARCHIVED, {})
    config_path = path.parent / "config.json"
    if not isinstance(shapes, dict) or not all(shape in ("list", "object") for shape in shapes.values()):
        raise ModelFileError(f"{config_path}: {ARCHIVED} is not an object of \"list\" or \"object\" entries")
    restored = {key: value for key, value in config.items() if key != ARCHIVED}
    for name, shape in shapes.items():
        try:
            array = member(ARCHIVED_MEMBER.format(name))
            lines = array.tobytes().decode("utf-8").split("\n") if array.dtype == np.uint8 and array.ndim == 1 else None
        except (KeyError, UnicodeDecodeError, zipfile.BadZipFile, zlib.error, ValueError, OSError, EOFError) as error:
            raise ModelFileError(f"{path}: damaged weights file (its {name}: {error!r})") from None
        if lines is None or (shape == "object" and len(lines) % 2):
            raise ModelFileError(f"{path}: damaged weights file (its {name} is not {shape} of UTF-8 lines)")
        restored[name] = dict(zip(lines[::2], lines[1::2])) if shape == "object" else lines
    return check_fields(restored, config_path)


def write_arrays(path: Path, arrays: dict[str, np.ndarray], stored: frozenset[str] = frozenset()) -> None:
    """An .npz archive as ``np.savez_compressed`` writes it, but the arrays named in ``stored``, and
    those that deflating would shrink by less than a tenth, kept uncompressed: 8-bit weights shrink
    by a sixth compressed and trained float32 weights by a fourteenth, and inflating them took a
    quarter of a neural model's loading (np.load reads both kinds of member)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            member = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_STORED if name in stored or _barely_shrinks(array) else zipfile.ZIP_DEFLATED
            with archive.open(member, "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.asanyarray(array), allow_pickle=False)


def _barely_shrinks(array: np.ndarray) -> bool:
    """Whether deflating would keep nine tenths of an array's bytes (a fast deflate of its start)."""
    raw = np.asarray(array).tobytes()[:1 << 20]
    return len(raw) >= 4096 and len(zlib.compress(raw, 1)) > 0.9 * len(raw)


def write_config(directory: Path, config: dict) -> None:
    """A model part's config.json (written after its weights.npz, whose sha256 it holds)."""
    (Path(directory) / "config.json").write_text(json.dumps(config, ensure_ascii=False, indent=1), encoding="utf-8")


def label_id(config: dict, key: str, labels: list) -> int:
    """A saved label id (the root label), refused unless it names one of ``labels``."""
    value = config[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(labels):
        raise Misfit(f"{key} {value!r} is not a label of the model (0..{len(labels) - 1})", in_config=True)
    return value


def _read_config(directory: Path) -> dict:
    config_path = directory / "config.json"
    if not config_path.is_file():
        what = "config.json is a folder" if config_path.is_dir() else "no config.json"
        raise ModelFileError(f"{directory}: not a hetdep model directory ({what})")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelFileError(f"{config_path}: damaged model configuration ({error})") from None
    if not isinstance(config, dict) or "kind" not in config:
        raise ModelFileError(f"{config_path}: not a hetdep model configuration")
    return check_fields(config, config_path)


def read_kind(directory: str | Path) -> str:
    """The kind of model saved in a directory ('arc-standard', 'joint')."""
    return str(read_config(directory)["kind"])


def read_config(directory: str | Path) -> dict:
    """A saved model's configuration (refusing a missing or damaged config.json), with the
    entries it keeps in weights.npz (:func:`shrink_weights`) back in place."""
    config = _read_config(Path(directory))
    if ARCHIVED not in config:
        return config
    path = Path(directory) / "weights.npz"
    try:
        with np.load(path, allow_pickle=False) as arrays:
            return _restored(config, path, arrays.__getitem__)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise ModelFileError(f"{path}: damaged or missing weights file ({error})") from None


def _model_files(directory: Path, kind: str) -> tuple[dict, Path]:
    """A saved model's config.json (its own entries checked) and weights.npz, refusing a missing,
    foreign or newer configuration and a missing weights archive."""
    config = _read_config(directory)
    if config["kind"] != kind:
        raise ModelFileError(f"{directory}: this is a '{config['kind']}' model, not a '{kind}' model")
    version = config.get("format_version")
    if version not in READABLE_VERSIONS:
        raise ModelFileError(f"{directory}: model format version {version} is not supported (this hetdep reads versions "
                             f"{', '.join(map(str, READABLE_VERSIONS))})")
    path = directory / "weights.npz"
    if not path.is_file():
        raise ModelFileError(f"{directory}: weights.npz is missing")
    if not zipfile.is_zipfile(path):
        raise ModelFileError(f"{path}: not a weights archive (numpy's .npz, a zip file)")
    return config, path


def _unlike_weights(path: Path) -> ModelFileError:
    return ModelFileError(f"{path}: these are not the weights config.json was saved with (sha256 differs): "
                          "the model directory mixes two models, or the file is damaged")


def checked_config(directory: str | Path, kind: str) -> dict | None:
    """A saved model's config.json once its files are found to be those it was saved with, without
    reading it whole (the configuration's own entries checked, the weights' sha256 against the one
    it holds), so that a part read only when needed is refused with the rest of its model; None
    where config.json holds no digest (a model saved before them: read it whole to check it)."""
    config, path = _model_files(Path(directory), kind)
    if "weights_sha256" not in config:
        return None
    if config["weights_sha256"] != file_sha256(path):
        raise _unlike_weights(path)
    return config


def load_model(directory: Path, kind: str) -> tuple[dict, TrainedWeights]:
    """Config and arrays of a saved model, refusing missing, foreign, newer or damaged files."""
    directory = Path(directory)
    config, path = _model_files(directory, kind)
    version = config["format_version"]
    try:
        arrays = weight_arrays(path, config.get("weights_sha256"))
        shapes = config.get(ARCHIVED)
        archived = {name: arrays[name] for name in map(ARCHIVED_MEMBER.format, shapes if isinstance(shapes, dict) else ())}
        if version in SMALL_VERSIONS:  # kept as it is: a short run's plain search reads it where it lies
            loaded = checked_small({name: arrays[name] for name in SMALL_FIELDS})
        else:
            loaded = tuple(arrays[name] for name in (CHAINED_FIELDS if version == 1 else STORED_FIELDS))
        del arrays  # before the table is spread: the others would add to the peak
    except UnlikeWeights:
        raise _unlike_weights(path) from None
    except (zipfile.BadZipFile, zlib.error, KeyError, IndexError, ValueError, OSError, EOFError) as error:
        raise ModelFileError(f"{path}: damaged weights file ({error})") from None
    if ARCHIVED in config:
        config = _restored(config, path, archived.__getitem__)
    if version in SMALL_VERSIONS:
        weights = TrainedWeights.from_small(loaded)
    elif not (_consistent_chains(loaded) if version == 1 else _consistent(loaded)):
        raise ModelFileError(f"{path}: weight arrays do not fit together")
    else:
        weights = TrainedWeights.from_chains(*loaded) if version == 1 else TrainedWeights.from_stored(*loaded)
    if not weights.finite():
        raise ModelFileError(f"{path}: weights that are not finite numbers (NaN or infinity)")
    return config, weights


def read_arrays(directory: Path, config: dict, expected: dict[str, tuple[str, int]]) -> dict[str, np.ndarray]:
    """The arrays of a part's weights.npz, each of the dtype kind and dimensions ``expected`` names
    (``{"rows": ("i", 1)}``: a 1-d array of integers), from a file whose sha256 is the one config.json
    holds; anything else, a damaged archive included, is one :class:`ModelFileError` naming the file."""
    path = Path(directory) / "weights.npz"
    if not path.is_file():
        raise ModelFileError(f"{Path(directory)}: weights.npz is missing")
    try:
        if config.get("weights_sha256") is None:
            raise UnlikeWeights(None)
        archive = weight_arrays(path, config["weights_sha256"])
        arrays = {name: archive[name] for name in expected}
    except UnlikeWeights:
        raise ModelFileError(f"{path}: these are not the weights config.json was saved with (sha256 differs or is missing)") from None
    except (zipfile.BadZipFile, zlib.error, KeyError, ValueError, OSError, EOFError) as error:
        raise ModelFileError(f"{path}: damaged weights file ({error})") from None
    for name, (kind, ndim) in expected.items():
        if arrays[name].dtype.kind != kind or arrays[name].ndim != ndim:
            raise ModelFileError(f"{path}: array '{name}' is {arrays[name].ndim}-d of {arrays[name].dtype}, not {ndim}-d of "
                                 f"{np.dtype(kind + '8').name if kind != 'f' else 'floats'}")
    return arrays


def _consistent(arrays: tuple) -> bool:
    """Every payload points inside the arrays, so a damaged file cannot make the compiled code read astray."""
    features, packed, dense = arrays
    if not _typed(arrays, ((np.uint64, 2), (np.int64, 1), (np.float32, 2))) or features.shape[1] != 2:
        return False
    if not np.all(features[:, 0] != 0):  # key 0 marks an empty slot
        return False
    payload = features[:, 1]
    is_dense = payload >= np.uint64(1 << 63)
    dense_index = payload[is_dense] - np.uint64(1 << 63)
    spans = payload[~is_dense & (payload < np.uint64(1 << 62))]
    first, count = spans & np.uint64((1 << 40) - 1), spans >> np.uint64(40)
    return (bool(np.all(dense_index < len(dense))) and bool(np.all(first + count <= len(packed)))
            and bool(np.all(count <= packed_up_to(dense.shape[1]))))


def _consistent_chains(arrays: tuple) -> bool:
    """The same for a file of format 1 (chained entries)."""
    table, enext, act, w, dense = arrays
    if not _typed(arrays, ((np.uint64, 2), (np.int64, 1), (np.int32, 1), (np.float32, 1), (np.float32, 2))):
        return False
    slots = table.shape[0]
    if table.shape[1] != 2 or slots == 0 or slots & (slots - 1):  # a hash table of a power-of-two size
        return False
    if len(enext) != len(act) or len(act) != len(w) or not np.isfinite(w).all():
        return False
    payload = table[table[:, 0] != 0, 1]
    is_dense = payload >= np.uint64(1 << 63)
    dense_index = payload[is_dense] - np.uint64(1 << 63)
    sparse_first = payload[~is_dense & (payload > 0)]
    return (bool(np.all(dense_index < len(dense))) and bool(np.all(sparse_first <= len(act))) and bool(np.all(act >= 0))
            and bool(np.all(act < dense.shape[1]))
            and bool(np.all((enext == -1) | ((enext > np.arange(len(enext))) & (enext < len(enext))))))


def _typed(arrays: tuple, expected: tuple) -> bool:
    """Arrays of the expected dtypes and dimensions."""
    return all(array.dtype == dtype and array.ndim == ndim for array, (dtype, ndim) in zip(arrays, expected))
