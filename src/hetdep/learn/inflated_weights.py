"""A deflated weights archive's arrays, kept inflated in the user's cache and mapped from there.

The shipped models' weights.npz files are deflated so that the box stays small (the two models'
26 MB and 20 MB would be 37 MB and 26 MB stored), and inflating them, zipfile's CRC of every
member and the copies took about 0.08 s of a one-sentence parse's 0.6. An archive read for the
first time is inflated as before and its arrays written, one file, to the user's cache
(:mod:`hetdep.user_cache`, ``weights-SHA256``: named by the archive's own digest, which its
config.json holds); later reads map that file (copy on write: the arrays stay writable, and only
the pages read are read). The archive itself is still hashed on every read (the hash lets go of
Python's lock: other threads read other parts meanwhile), and refused unless its digest is the one
config.json holds: a damaged model is refused whatever the cache keeps, and an archive is kept
only once its digest is found right. The kept file is trusted as the user's other caches are (numba's compiled loops among
them): one whose index does not fit it, or that cannot be read, is made again. An archive stored
undeflated (a model trained here) is read as it is, not kept; past KEPT_ARCHIVES, those read
longest ago are removed.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import mmap
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np

from hetdep.user_cache import cache_folder, keep

KEPT_NAME = "weights-{}"
INDEX, BLOB = "arrays.json", "arrays.bin"
KEPT_ARCHIVES = 40  # archives kept (the two shipped models have 16 parts), those read last
ALIGNMENT = 64  # each array's offset in the kept file: aligned for the compiled loops and the runtime


class UnlikeWeights(ValueError):
    """The archive's sha256 is not the one its config.json holds."""


def weight_arrays(path: Path, digest: str | None) -> dict[str, np.ndarray]:
    """Every array of the archive ``path``, refused (:class:`UnlikeWeights`) unless its sha256 is
    ``digest`` (None: a model saved before digests, read as it is and not kept); a damaged
    archive raises what NumPy's and zipfile's readers raise."""
    if digest is None:
        return _inflated(path.read_bytes())
    folder = cache_folder(KEPT_NAME.format(digest))
    try:
        arrays = _mapped(folder)
    except (OSError, ValueError, KeyError, TypeError):
        arrays = None
    if arrays is not None:
        if file_sha256(path) != digest:
            raise UnlikeWeights(digest)
        return arrays
    data = path.read_bytes()
    if sha256_hex(data) != digest:  # the bytes inflated are the bytes checked: never keep what was not
        raise UnlikeWeights(digest)
    arrays = _inflated(data)
    if _is_deflated(data):
        keep(folder.name, lambda staging: _write(arrays, staging))
        _forget_oldest(folder.parent)
    return arrays


def _inflated(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


def _is_deflated(data: bytes) -> bool:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return any(member.compress_type != zipfile.ZIP_STORED for member in archive.infolist())


def _write(arrays: dict[str, np.ndarray], folder: Path) -> None:
    """The arrays one after another in BLOB, each at an offset of ALIGNMENT, and INDEX naming each
    one's dtype, shape and offset."""
    index, offset = {}, 0
    with open(folder / BLOB, "wb") as blob:
        for name, array in arrays.items():  # never of objects: the archive is read without pickle
            blob.write(b"\0" * (-offset % ALIGNMENT))
            offset += -offset % ALIGNMENT
            index[name] = [array.dtype.str, list(array.shape), offset]
            blob.write(np.ascontiguousarray(array).tobytes())
            offset += array.nbytes
        blob.write(b"\0" * ALIGNMENT)  # never empty: an empty file cannot be mapped
    (folder / INDEX).write_text(json.dumps(index), encoding="utf-8")


def _forget_oldest(cache: Path) -> None:
    """Remove the kept archives past the KEPT_ARCHIVES read last (each read touches its index),
    so that the cache does not grow with every model compacted; a process mapping one removed
    keeps its mapping, and one about to map it inflates the archive again."""
    try:
        kept = sorted(((_touched(path), path) for path in cache.glob(KEPT_NAME.format("*"))), reverse=True)
    except OSError:
        return
    for _, path in kept[KEPT_ARCHIVES:]:
        shutil.rmtree(path, ignore_errors=True)


def _touched(folder: Path) -> int:
    try:
        return (folder / INDEX).stat().st_mtime_ns
    except OSError:
        return 0


def _mapped(folder: Path) -> dict[str, np.ndarray]:
    """The kept arrays, each mapped on its own (an array let go is unmapped, whatever the others
    do); ValueError where the index does not fit the file. Its index is touched: read last."""
    index = json.loads((folder / INDEX).read_text(encoding="utf-8"))
    try:
        os.utime(folder / INDEX)
    except OSError:  # a cache that cannot be written is still read
        pass
    arrays = {}
    with open(folder / BLOB, "rb") as blob:
        length = os.fstat(blob.fileno()).st_size
        for name, (dtype, shape, offset) in index.items():
            dtype, shape = np.dtype(dtype), tuple(shape)
            size = dtype.itemsize * math.prod(shape)
            if dtype.hasobject or offset % ALIGNMENT or not 0 <= offset <= offset + size <= length:
                raise ValueError(f"{folder / INDEX}: {name} does not fit {BLOB}")
            arrays[name] = _mapped_array(blob, dtype, shape, offset) if size else np.zeros(shape, dtype)
    return arrays


def _mapped_array(blob, dtype: np.dtype, shape: tuple, offset: int) -> np.ndarray:
    """An array of ``blob`` mapped copy-on-write: writable (the compiled loops take it as they took
    the inflated one), its pages read from the file until written."""
    start = offset - offset % mmap.ALLOCATIONGRANULARITY
    mapped = mmap.mmap(blob.fileno(), offset - start + dtype.itemsize * math.prod(shape), access=mmap.ACCESS_COPY, offset=start)
    return np.frombuffer(mapped, dtype, math.prod(shape), offset - start).reshape(shape)


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in pieces (not held whole)."""
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
