"""A model directory made into a wheel pip installs (``hetdep package``), as spaCy packages its
pipelines: the package ``hetdep_model_NAME`` holds the model and the version of hetdep that built
it, and names itself in the entry-point group that :mod:`hetdep.models.names` reads, so
``hetdep.load("NAME")`` and ``--model NAME`` find it once installed."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import hetdep
from hetdep.errors import HetdepError
from hetdep.learn.checkpoint import STATE
from hetdep.models.names import ENTRY_POINTS, NAME, is_shipped_name

DEFAULT_VERSION = "1.0.0"


def package_name(name: str) -> str:
    """The import name of a model's package (``fr-sequoia`` -> ``hetdep_model_fr_sequoia``)."""
    return "hetdep_model_" + name.replace("-", "_")


def build_wheel(model_dir: str | Path, name: str, output_dir: str | Path, version: str = DEFAULT_VERSION,
                summary: str = "") -> Path:
    """Write ``hetdep_model_NAME-VERSION-py3-none-any.whl`` into ``output_dir`` (whole or not at
    all) from a model directory that loads; returns its path."""
    from packaging.version import InvalidVersion, Version

    from hetdep.models.compact import refuse_inside
    from hetdep.models.info import summary as model_summary

    if not NAME.fullmatch(name):
        raise HetdepError(f"--name {name!r}: a model's name is lower-case letters, digits and '-' (at most 64)")
    if is_shipped_name(name):
        raise HetdepError(f"--name {name!r} is a model shipped with hetdep: give another name")
    try:
        version = str(Version(version))
    except InvalidVersion:
        raise HetdepError(f"--version {version!r} is not a version number (PEP 440: 1.0.0, 2.1)") from None
    model_dir, output_dir = Path(model_dir), Path(output_dir)
    model_summary(model_dir)  # a model that does not load is not packaged
    refuse_inside(output_dir, model_dir)
    if output_dir.exists() and not output_dir.is_dir():
        raise HetdepError(f"--output {output_dir}: not a folder")
    made = not output_dir.exists()  # made here, as pip and build make theirs; removed if the wheel is not written
    output_dir.mkdir(parents=True, exist_ok=True)
    try:
        return _write_wheel(model_dir, name, version, summary, output_dir)
    except BaseException:
        if made:
            shutil.rmtree(output_dir, ignore_errors=True)
        raise


def _write_wheel(model_dir: Path, name: str, version: str, summary: str, output_dir: Path) -> Path:
    from wheel.wheelfile import WheelFile

    module = package_name(name)
    distribution = f"{module}-{version}"
    wheel_path = output_dir / f"{distribution}-py3-none-any.whl"
    with tempfile.TemporaryDirectory(prefix=".hetdep-package.", dir=output_dir) as staging:
        root = Path(staging) / "root"
        shutil.copytree(model_dir, root / module / "model", ignore=shutil.ignore_patterns(STATE))
        (root / module / "__init__.py").write_text(
            f'"""The hetdep model {name!r}, version {version}: hetdep.load({name!r})."""\n\n'
            "from pathlib import Path\n\n"
            'MODEL = Path(__file__).parent / "model"\n'
            f"HETDEP_VERSION = {hetdep.__version__!r}\n", encoding="utf-8")
        info = root / f"{distribution}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\n"
            f"Name: hetdep-model-{name}\n"
            f"Version: {version}\n"
            f"Summary: {summary or f'hetdep model {name}'}\n", encoding="utf-8")
        (info / "WHEEL").write_text(
            "Wheel-Version: 1.0\n"
            f"Generator: hetdep {hetdep.__version__}\n"
            "Root-Is-Purelib: true\n"
            "Tag: py3-none-any\n", encoding="utf-8")
        (info / "entry_points.txt").write_text(f"[{ENTRY_POINTS}]\n{name} = {module}\n", encoding="utf-8")
        partial = Path(staging) / wheel_path.name
        with WheelFile(partial, "w") as wheel:
            wheel.write_files(str(root))
        partial.replace(wheel_path)
    return wheel_path
