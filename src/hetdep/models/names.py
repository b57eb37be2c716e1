"""Models found by name: a model directory, a model package installed with pip (``hetdep package``
builds them; they announce themselves in the entry-point group ``hetdep.models``), or one of the
models shipped inside hetdep, named by their language; the first of them parses when no model is
named at all.

A path that exists always wins over a name, so scripts that name directories keep working.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import hetdep
from hetdep.errors import HetdepError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINTS = "hetdep.models"
# The models bundled in the package (samples/models/NAME), by language; the first is the default.
# fr: SUD + UD from every French treebank that may ship; en: UD + SUD from en-ewt.
SHIPPED_NAMES = ("fr", "en")
SHIPPED_NAME = SHIPPED_NAMES[0]
# Former names of shipped models, still found: scripts that named them keep working ("fr" parses as
# fr-sequoia by default, what the model of that name did).
SHIPPED_ALIASES = {"fr-sequoia": "fr"}
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")  # a model's name: also the package's (hetdep-model-NAME)


# A treebank's or scheme's name as given: it names a folder (treebank-taggers/NAME), a file of the
# model's and a part of the service's model names (fr-parisstories-ud), so no blank, space or slash.
PART_NAME = re.compile(r"\w[\w.+-]*")


def check_part_name(option: str, name: str) -> None:
    """Refuse a treebank or scheme name that is blank, spaced or holds anything but letters, digits and . + - _."""
    if not PART_NAME.fullmatch(name):
        raise HetdepError(f"{option} {name!r}: a treebank or scheme name is letters, digits and . + - _, beginning with a "
                          "letter or digit")


@dataclass(frozen=True)
class NamedModel:
    """A model hetdep can find by name: where it lies and where it comes from."""

    name: str
    path: Path
    source: str  # "shipped" or the distribution "hetdep-model-NAME VERSION"
    hetdep_version: str  # the hetdep that built it


def is_shipped_name(name: object) -> bool:
    """Whether ``name`` is a shipped model's name or one of their former names."""
    return name in SHIPPED_NAMES or name in SHIPPED_ALIASES


def shipped_model_path(name: str = SHIPPED_NAME) -> Path:
    return Path(str(resources.files("hetdep") / "samples" / "models" / SHIPPED_ALIASES.get(name, name)))


def shipped_model(name: str = SHIPPED_NAME) -> NamedModel | None:
    """A model inside hetdep's package (by default the default one), when this copy of hetdep carries it."""
    path = shipped_model_path(name)
    if not (path / "config.json").is_file():
        return None
    return NamedModel(SHIPPED_ALIASES.get(name, name), path, "shipped with hetdep", hetdep.__version__)


def shipped_models() -> list[NamedModel]:
    """The models this copy of hetdep carries, the default first."""
    return [model for model in map(shipped_model, SHIPPED_NAMES) if model is not None]


def shipped_model_of(language: str | None) -> NamedModel | None:
    """The shipped model whose training text is in ``language`` (as its config records it), if one is."""
    from hetdep.learn.model_files import read_config

    for model in shipped_models() if language else []:
        if read_config(model.path).get("language") == language:
            return model
    return None


def installed_models() -> list[NamedModel]:
    """Every model package installed, by name; a broken or foreign one is refused in one line."""
    from importlib import metadata  # here: its import took 12 ms of every parse of the shipped model

    found = []
    for entry in sorted(metadata.entry_points(group=ENTRY_POINTS), key=lambda e: e.name):
        found.append(_package_model(entry))
    return found


def _package_model(entry: EntryPoint) -> NamedModel:
    where = f"model package '{entry.name}'" + (f" ({entry.dist.name} {entry.dist.version})" if entry.dist else "")
    try:
        module = entry.load()
        path = Path(module.MODEL)
        built_by = str(module.HETDEP_VERSION)
    except Exception as error:  # an installed package's import can fail in any way: one line says which
        raise HetdepError(f"{where} is broken ({type(error).__name__}: {error}): reinstall it") from None
    if _minor(built_by) != _minor(hetdep.__version__):
        raise HetdepError(f"{where} was built for hetdep {built_by}, and this is hetdep {hetdep.__version__}: "
                          f"install the package built for this version (or rebuild it with 'hetdep package')")
    if not (path / "config.json").is_file():
        raise HetdepError(f"{where} is broken: {path} holds no model (reinstall it)")
    source = f"{entry.dist.name} {entry.dist.version}" if entry.dist else "installed package"
    return NamedModel(entry.name, path, source, built_by)


def _minor(version: str) -> tuple[str, ...]:
    """The part of a version that must agree (major.minor): hetdep 0.x changes its model files between minor versions."""
    return tuple(version.split(".")[:2])


def available_models() -> list[NamedModel]:
    """What ``hetdep models`` lists: the shipped models first, then the installed packages."""
    return shipped_models() + installed_models()


def find_model(name_or_path: str | Path | None) -> Path:
    """The model directory a name or path means; ``None``: the shipped model."""
    if name_or_path is None:
        shipped = shipped_model()
        if shipped is None:
            raise HetdepError("this copy of hetdep carries no shipped model: give a model (--model DIR or NAME)")
        return shipped.path
    path = Path(name_or_path)
    if path.exists() or not NAME.fullmatch(str(name_or_path)):
        return path  # a directory, or what cannot be a name: the model loaders say what is wrong with it
    shipped = shipped_model(str(name_or_path)) if is_shipped_name(name_or_path) else None
    if shipped is not None:
        return shipped.path
    from importlib import metadata

    for entry in metadata.entry_points(group=ENTRY_POINTS, name=str(name_or_path)):
        return _package_model(entry).path
    names = [model.name for model in available_models()]
    raise HetdepError(f"no model directory or installed model named '{name_or_path}'; "
                      + (f"installed: {', '.join(names)}" if names else "no model is installed (hetdep models)"))


@dataclass(frozen=True)
class ModelName:
    """A model as a user names it, the service's names too: ``fr``, ``fr-ud``, ``fr-parisstories``,
    ``fr-parisstories-sud``: the model's folder, and the treebank and scheme the name's suffix asks for."""

    path: Path
    shown: str  # how messages name it: the name given, not the folder it lies in
    suffix: tuple[str, ...] = ()  # the parts after the model's own name, split at '-'

    def choose(self, treebanks: list[str], schemes: Callable[[str | None], tuple[str, ...]]) -> tuple[str | None, str | None]:
        """The (treebank, scheme) the suffix names, given the model's treebanks and each one's schemes
        (``schemes(None)``: its default treebank's); one line naming what there is when it names neither."""
        if not self.suffix:
            return None, None
        text = "-".join(self.suffix)
        for cut in (len(self.suffix), len(self.suffix) - 1):  # NAME-TREEBANK, NAME-TREEBANK-SCHEME
            treebank = "-".join(self.suffix[:cut])
            if treebank in treebanks:
                scheme = "-".join(self.suffix[cut:]) or None
                if scheme is None or scheme in schemes(treebank):
                    return treebank, scheme
        if text in schemes(None):
            return None, text
        raise HetdepError(f"no model named '{self.shown}': '{self.shown[:-len(text) - 1]}' has the schemes "
                          f"{', '.join(schemes(None))}" + (f" and the treebanks {', '.join(treebanks)}" if treebanks else ""))


def model_name(name_or_path: str | Path | None) -> ModelName:
    """:func:`find_model`, and for a name nothing answers to, a shipped or installed model's name
    followed by ``-SUFFIX`` (what the service offers: ``fr-ud``, ``fr-parisstories``)."""
    try:
        path = find_model(name_or_path)
    except HetdepError:
        parts = str(name_or_path).split("-")
        for cut in range(len(parts) - 1, 0, -1):
            base = "-".join(parts[:cut])
            if NAME.fullmatch(base) and not Path(base).exists():
                try:
                    return ModelName(find_model(base), str(name_or_path), tuple(parts[cut:]))
                except HetdepError:
                    continue
        raise
    shipped = name_or_path is None or is_shipped_name(name_or_path)
    return ModelName(path, SHIPPED_ALIASES.get(str(name_or_path), str(name_or_path)) if shipped and name_or_path else
                     SHIPPED_NAME if shipped else str(name_or_path))
