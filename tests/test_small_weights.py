"""The small stored form of trained weights (hetdep.learn.small_weights): the same floats back, in
the same order per feature, smaller on disk; a damaged one refused with the file's name."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hetdep.learn.model_config import ModelFileError
from hetdep.learn.model_files import ARCHIVED, SMALL_FORMAT_VERSION, load_model, read_config, save_model, shrink_weights
from hetdep.learn.small_weights import from_small, to_small
from hetdep.learn.weights import TrainedWeights, Weights


def entries(weights: TrainedWeights) -> dict[int, tuple[list[int], list[int]]]:
    """Each feature's (actions, float bits) in the order the scorers add them."""
    plain = weights.plain
    return {key: (list(actions), list(values.view(np.uint32))) for key in weights.used[:, 0].tolist()
            for actions, values in [plain.entries(key)]}


@st.composite
def trained_weights(draw) -> TrainedWeights:
    """Weights of every kind a feature can hold: one weight (inline), a few (packed), many (a dense row)."""
    n_actions = draw(st.integers(2, 40))
    widths = draw(st.lists(st.integers(1, n_actions), min_size=1, max_size=30))
    keys, actions, values = [], [], []
    for feature, width in enumerate(widths):
        chosen = draw(st.lists(st.integers(0, n_actions - 1), min_size=width, max_size=width, unique=True))
        keys += [draw(st.integers(1, 2**64 - 1)) if feature % 3 else feature + 1] * width
        actions += chosen
        values += draw(st.lists(st.floats(-50, 50, width=32).filter(bool), min_size=width, max_size=width))
    return Weights.trained(n_actions, np.array(keys, dtype=np.uint64), np.array(actions), np.array(values, dtype=np.float32))


@settings(max_examples=60, deadline=None)
@given(trained_weights())
def test_the_small_form_gives_the_same_weights_back(weights):
    back = TrainedWeights.from_stored(*from_small(to_small(**weights.stored())))
    assert entries(back) == entries(weights)
    assert back.dense_rows(weights.dense.shape[1]).keys() == weights.dense_rows(weights.dense.shape[1]).keys()


@settings(max_examples=60, deadline=None)
@given(trained_weights(), st.integers(0, 3))
def test_the_small_form_read_where_it_lies_scores_as_the_reading_layout(weights, first):
    """A short run's plain search reads a small form's features where they lie: each feature, and
    a key of none, adds the same scores as the reading layout's (a dense row's zeros add nothing)."""
    from hetdep.learn.small_weights import SmallPlainWeights, checked_small

    small = checked_small(to_small(**weights.stored()))
    plain, where_it_lies = weights.plain, SmallPlainWeights(small)
    width = weights.dense.shape[1]
    for key in weights.used[:, 0].tolist() + [0x5EED]:
        expected = plain.add_scores([key], np.zeros(width, dtype=np.float32), first)
        assert np.array_equal(where_it_lies.add_scores([key], np.zeros(width, dtype=np.float32), first), expected)
    loaded = TrainedWeights.from_small(small)
    assert loaded.finite() and loaded.widest_action() == weights.widest_action() and loaded.width == width
    assert entries(loaded) == entries(TrainedWeights.from_stored(*from_small(small)))  # laid out when asked: the same


def test_a_tagger_s_weights_are_a_quarter_smaller_stored_small(tmp_path):
    rng = np.random.default_rng(3)
    keys = np.repeat(rng.integers(1, 2**63, size=20_000, dtype=np.uint64), 3)
    actions = np.tile(np.array([1, 5, 17]), 20_000)
    values = np.round(rng.normal(size=60_000), 2).astype(np.float32)  # averaged weights repeat their values
    weights = Weights.trained(40, keys, actions, values)
    plain, small = io.BytesIO(), io.BytesIO()
    np.savez_compressed(plain, **weights.stored())
    np.savez_compressed(small, **to_small(**weights.stored()))
    assert len(small.getvalue()) < 0.75 * len(plain.getvalue())
    save_model(tmp_path / "part", {"kind": "tagger"}, weights)
    shrink_weights(tmp_path / "part", "tagger")
    config, loaded = load_model(tmp_path / "part", "tagger")
    assert config["format_version"] == SMALL_FORMAT_VERSION and entries(loaded) == entries(weights)


@pytest.mark.parametrize("damage", ["counts", "value_index", "key_planes"])
def test_a_damaged_small_form_is_refused_naming_the_file(tmp_path, damage):
    weights = Weights.trained(6, np.array([3, 3, 9, 11, 11, 11], dtype=np.uint64), np.array([0, 2, 1, 0, 3, 5]),
                              np.array([1, -2, 3, 4, 5, 6], dtype=np.float32))
    save_model(tmp_path / "part", {"kind": "tagger"}, weights)
    shrink_weights(tmp_path / "part", "tagger")
    with np.load(tmp_path / "part" / "weights.npz") as archive:
        arrays = {name: archive[name].copy() for name in archive.files}
    if damage == "counts":
        arrays["counts"][0] += 1
    elif damage == "value_index":
        arrays["value_index"][-1] = len(arrays["values"])
    else:
        arrays["key_planes"] = arrays["key_planes"][:7]
    np.savez_compressed(tmp_path / "part" / "weights.npz", **arrays)
    config_path = tmp_path / "part" / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config.pop("weights_sha256")
    config_path.write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelFileError, match="weights.npz: damaged weights file"):
        load_model(tmp_path / "part", "tagger")


def _vocabularies() -> dict:
    """A tagger's large vocabularies (feature strings, a lexicon) and a small one, as its config holds them."""
    strings = [f"w:{k}" for k in range(3000)] + ["s1:é", "", "a:\r\t", 'a:["l", 0, "", 0, ""]']
    return {"kind": "tagger", "strings": strings, "lexicon": {f"form{k}": f"Number=Sing|{k}" for k in range(1500)},
            "tags": ["NOUN", "VERB"]}


def _shrunk(folder):
    weights = Weights.trained(6, np.array([3, 3, 9], dtype=np.uint64), np.array([0, 2, 1]),
                              np.array([1, -2, 3], dtype=np.float32))
    save_model(folder, _vocabularies(), weights)
    shrink_weights(folder, "tagger")
    return folder


def test_a_shrunk_part_keeps_its_large_vocabularies_in_its_archive_and_reads_them_back(tmp_path):
    """Lists and objects of strings of ARCHIVED_SMALLEST entries or more leave config.json (a
    tagger's feature strings: a megabyte of JSON there, a fifth of that deflated) and come back
    as they were, whether the model is loaded or only its configuration read."""
    folder = _shrunk(tmp_path / "part")
    on_disk = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert on_disk[ARCHIVED] == {"lexicon": "object", "strings": "list"} and on_disk["tags"] == ["NOUN", "VERB"]
    assert "strings" not in on_disk and "lexicon" not in on_disk
    for config in (load_model(folder, "tagger")[0], read_config(folder)):
        assert {key: config[key] for key in _vocabularies()} == _vocabularies() and ARCHIVED not in config
    shrink_weights(folder, "tagger")  # made small again (hetdep compact of a compact model): the same
    assert read_config(folder)["strings"] == _vocabularies()["strings"]


def test_a_vocabulary_with_a_line_break_stays_in_config_json(tmp_path):
    weights = Weights.trained(2, np.array([3], dtype=np.uint64), np.array([0]), np.array([1], dtype=np.float32))
    strings = [f"w:{k}" for k in range(2000)] + ["two\nlines"]
    save_model(tmp_path / "part", {"kind": "tagger", "strings": strings}, weights)
    shrink_weights(tmp_path / "part", "tagger")
    assert json.loads((tmp_path / "part" / "config.json").read_text(encoding="utf-8"))["strings"] == strings


@pytest.mark.parametrize("damage", ["missing", "not_utf8", "odd_object", "shape", "not_an_object"])
def test_a_damaged_archived_vocabulary_is_refused_naming_the_file(tmp_path, damage):
    folder = _shrunk(tmp_path / "part")
    config_path = folder / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    if damage in ("shape", "not_an_object"):
        config[ARCHIVED] = {"strings": "set"} if damage == "shape" else 3
        config_path.write_text(json.dumps(config), encoding="utf-8")
        expected = "config.json: archived is not an object"
    else:
        with np.load(folder / "weights.npz") as archive:
            arrays = {name: archive[name].copy() for name in archive.files}
        if damage == "missing":
            del arrays["config.lexicon"]
        elif damage == "not_utf8":
            arrays["config.strings"][0] = 0xFF
        else:
            arrays["config.lexicon"] = np.frombuffer(b"a\nb\nc", dtype=np.uint8)
        np.savez_compressed(folder / "weights.npz", **arrays)
        config.pop("weights_sha256")  # the digest would refuse it first: the damage itself must be named
        config_path.write_text(json.dumps(config), encoding="utf-8")
        expected = "weights.npz: damaged weights file"
    for read in (lambda: load_model(folder, "tagger"), lambda: read_config(folder)):
        with pytest.raises(ModelFileError, match=expected):
            read()
