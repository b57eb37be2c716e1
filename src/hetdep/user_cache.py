"""What hetdep unpacks from packed data, its dependencies' and its models', kept in the user's cache.

py3langid's model and simplemma's dictionaries are shipped packed (LZMA): unpacking them takes
0.3-0.6 s each, much of a short parse; the shipped models' weights are deflated
(:mod:`hetdep.learn.inflated_weights`) and their lexicons gzipped. Their unpacked form is kept
once per user (``XDG_CACHE_HOME``, else ~/.cache, then ``hetdep/NAME``, NAME naming the
dependency's version, its packed file as installed, or a weights archive's digest), written whole
or not at all; a folder that cannot be read is made again, and where the cache cannot be written,
each process unpacks for itself.
"""

from __future__ import annotations

import gzip
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, TypeVar

Value = TypeVar("Value")
INFLATED = "inflated"  # a gunzipped file's one file in its folder


def cache_folder(name: str) -> Path:
    """The folder ``name`` is kept in."""
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "hetdep" / name


def packed_file_name(package: str, *inside: str) -> str:
    """A name for what is unpacked from a file of an installed package (``inside``: its path within
    the package) that changes with the file: the package's and the file's size and time, found
    without importing the package or reading its version (importlib.metadata's import took 15 ms of
    a one-sentence parse); ImportError or OSError where there is no such file."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{package} is not installed")
    found = Path(spec.submodule_search_locations[0], *inside).stat()
    return f"{package}-{found.st_size}-{found.st_mtime_ns}"


def gunzipped(path: Path) -> bytes:
    """A gzip file of hetdep's own (a shipped lexicon) inflated, kept under a name that changes with
    the file (its folder's and its own name, its size and time): inflating French's two lexicons
    took 0.04 s of a one-sentence parse."""
    found = path.stat()
    return kept(f"{path.parent.name}-{path.name}-{found.st_size}-{found.st_mtime_ns}",
                lambda folder: (folder / INFLATED).read_bytes(), lambda: gzip.decompress(path.read_bytes()),
                lambda data, folder: (folder / INFLATED).write_bytes(data))


def kept(name: str, read: Callable[[Path], Value], make: Callable[[], Value],
         write: Callable[[Value, Path], None]) -> Value:
    """``read(folder)`` of the kept folder; if there is none or it cannot be read (``OSError``,
    ``ValueError``, ``KeyError``), ``make()``, written by ``write(value, folder)`` for the next time."""
    folder = cache_folder(name)
    try:
        return read(folder)
    except (OSError, ValueError, KeyError):
        shutil.rmtree(folder, ignore_errors=True)
    value = make()
    keep(name, lambda staging: write(value, staging))
    return value


def keep(name: str, write: Callable[[Path], None]) -> None:
    """Keep the folder ``name`` as ``write(folder)`` makes it, whole or not at all; nothing where
    the cache cannot be written."""
    folder = cache_folder(name)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.")
        try:
            write(Path(staging))
            os.replace(staging, folder)  # whole or not at all (another process may have been first)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    except OSError:
        pass
