"""A deflated weights archive is read inflated once, then mapped from the user's cache; the archive
itself is still checked against its digest every time."""

from __future__ import annotations

import hashlib
import io
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from hetdep.learn.inflated_weights import BLOB, INDEX, KEPT_NAME, UnlikeWeights, weight_arrays
from hetdep.learn.model_config import ModelFileError
from hetdep.user_cache import cache_folder

SAMPLES = Path(__file__).resolve().parents[1] / "src" / "hetdep" / "samples"


def archive(tmp_path: Path, arrays: dict[str, np.ndarray], deflated: bool = True) -> tuple[Path, str]:
    path = tmp_path / "weights.npz"
    (np.savez_compressed if deflated else np.savez)(path, **arrays)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def same(read: dict[str, np.ndarray], arrays: dict[str, np.ndarray]) -> bool:
    return read.keys() == arrays.keys() and all(
        read[name].dtype == arrays[name].dtype and read[name].shape == arrays[name].shape
        and np.array_equal(read[name], arrays[name], equal_nan=True) for name in arrays)


ARRAYS = st.dictionaries(
    st.text("abcdefgh.0123456789_", min_size=1, max_size=12),
    hnp.arrays(st.sampled_from([np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.int64, np.uint64, np.float32,
                                np.float64, np.bool_]), hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)),
    min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(arrays=ARRAYS)
def test_arrays_read_from_the_cache_are_those_of_the_archive(arrays, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("archive")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        path, digest = archive(tmp_path, arrays)
        first = weight_arrays(path, digest)
        assert (cache_folder(KEPT_NAME.format(digest)) / BLOB).is_file()
        kept = weight_arrays(path, digest)
    assert same(first, arrays) and same(kept, arrays)
    assert all(array.flags.writeable and array.flags.aligned for array in kept.values())


def test_an_archive_changed_after_it_was_kept_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path, digest = archive(tmp_path, {"w": np.arange(1000, dtype=np.float32)})
    weight_arrays(path, digest)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(UnlikeWeights):
        weight_arrays(path, digest)


def test_an_archive_not_deflated_is_read_as_it_is_and_not_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    arrays = {"w": np.arange(12, dtype=np.int64).reshape(3, 4)}
    path, digest = archive(tmp_path, arrays, deflated=False)
    assert same(weight_arrays(path, digest), arrays)
    assert not cache_folder(KEPT_NAME.format(digest)).exists()


@pytest.mark.parametrize("damage", ["truncated", "index", "missing"])
def test_a_damaged_kept_folder_is_made_again(tmp_path, monkeypatch, damage):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    arrays = {"a": np.arange(100, dtype=np.float32), "b": np.ones((7, 3), dtype=np.int16)}
    path, digest = archive(tmp_path, arrays)
    weight_arrays(path, digest)
    folder = cache_folder(KEPT_NAME.format(digest))
    if damage == "truncated":
        (folder / BLOB).write_bytes((folder / BLOB).read_bytes()[:100])
    elif damage == "index":
        (folder / INDEX).write_text('{"a": ["<f4", [100], 3]}')
    else:
        (folder / INDEX).unlink()
    assert same(weight_arrays(path, digest), arrays)
    assert same(weight_arrays(path, digest), arrays)  # kept again, whole


def test_without_a_writable_cache_each_read_inflates(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/none")
    arrays = {"w": np.linspace(0, 1, 50, dtype=np.float32)}
    path, digest = archive(tmp_path, arrays)
    assert same(weight_arrays(path, digest), arrays) and same(weight_arrays(path, digest), arrays)


def test_a_shipped_part_damaged_after_it_was_kept_is_refused_naming_its_file(tmp_path, monkeypatch):
    """The cache is named by the digest config.json holds, so a damaged copy of a part finds the
    original's arrays kept: the copy's own digest still refuses it."""
    from hetdep.tagger.tagger import Tagger

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    part = tmp_path / "lemma"
    shutil.copytree(SAMPLES / "models" / "fr" / "tagger" / "lemma", part)
    assert Tagger.load(part).tags == Tagger.load(part).tags  # the second from the cache
    data = bytearray((part / "weights.npz").read_bytes())
    data[1000] ^= 0x01
    (part / "weights.npz").write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"lemma/weights.npz: these are not the weights config.json was saved with"):
        Tagger.load(part)


def test_an_archive_of_objects_is_refused_as_numpy_refuses_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    stream = io.BytesIO()
    np.savez_compressed(stream, w=np.array([{"a": 1}], dtype=object))
    path = tmp_path / "weights.npz"
    path.write_bytes(stream.getvalue())
    with pytest.raises(ValueError, match="pickle"):
        weight_arrays(path, hashlib.sha256(stream.getvalue()).hexdigest())


def test_past_its_bound_the_cache_forgets_the_archives_read_longest_ago(tmp_path, monkeypatch):
    import os

    import hetdep.learn.inflated_weights as inflated

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(inflated, "KEPT_ARCHIVES", 2)
    made = []
    for k in range(3):
        folder = tmp_path / str(k)
        folder.mkdir()
        made.append(archive(folder, {"w": np.full(10, k, dtype=np.int32)}))
        weight_arrays(*made[-1])
        kept = cache_folder(KEPT_NAME.format(made[-1][1]))
        os.utime(kept / INDEX, ns=(k, k))  # read in this order, whatever the clock's grain
        if k == 1:
            weight_arrays(*made[0])  # the first read again: read last
    folders = {path.name for path in (tmp_path / "cache" / "hetdep").iterdir()}
    assert folders == {KEPT_NAME.format(made[0][1]), KEPT_NAME.format(made[2][1])}
    assert same(weight_arrays(*made[1]), {"w": np.full(10, 1, dtype=np.int32)})  # inflated again
