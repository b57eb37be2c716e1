"""A model is whole or refused: damaged configurations, weights and parts of every kind, refused
in one line by parse and info; models of an older format still read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLES


def damaged_copy(saved, tmp_path, model="arc", config_change=None, arrays_change=None, keep_sha=False):
    """A copy of a saved model with its config.json and/or weight arrays changed."""
    import json
    import shutil
    import tempfile

    import numpy as np

    target = Path(tempfile.mkdtemp(dir=tmp_path)) / model
    shutil.copytree(saved / model, target)
    config = json.loads((target / "config.json").read_text(encoding="utf-8"))
    if arrays_change:
        with np.load(target / "weights.npz") as loaded:
            arrays = {name: loaded[name].copy() for name in loaded.files}
        arrays_change(arrays)
        np.savez_compressed(target / "weights.npz", **arrays)
        if not keep_sha:
            config.pop("weights_sha256")
    if config_change:
        config_change(config)
    (target / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return target


@pytest.mark.parametrize("change, message", [
    (lambda c: c.update(beam=0), "beam 0 is not a whole number from 1 to 4096"),
    (lambda c: c.update(beam=-3), "beam -3 is not"),
    (lambda c: c.update(beam=1_000_000), "beam 1000000 is not"),
    (lambda c: c.update(beam="8"), "beam '8' is not"),
    (lambda c: c.update(root_label=10_000), "root_label 10000 is not a label of the model"),
])
def test_damaged_configurations_are_refused(saved, tmp_path, change, message):
    from hetdep.learn.model_files import ModelFileError
    from hetdep.transition.parser import ArcStandardParser

    with pytest.raises(ModelFileError, match=message):
        ArcStandardParser.load(damaged_copy(saved, tmp_path, config_change=change))


def test_damaged_weights_are_refused(saved, tmp_path):
    import numpy as np

    from hetdep.joint.parser import JointParser
    from hetdep.learn.model_files import ModelFileError
    from hetdep.transition.parser import ArcStandardParser

    def truncated(arrays):  # the last packed feature's entries now run past the end
        arrays["packed"] = arrays["packed"][:-1]

    def not_a_number(arrays):
        arrays["packed"][0] = (arrays["packed"][0] >> 32 << 32) | int(np.float32(np.nan).view(np.uint32))

    for change, message in ((truncated, "do not fit together"), (not_a_number, "not finite numbers")):
        with pytest.raises(ModelFileError, match=message):
            ArcStandardParser.load(damaged_copy(saved, tmp_path, arrays_change=change))
    # The weights of another model beside this config.json (the sha256 it recorded differs).
    mixed = damaged_copy(saved, tmp_path, arrays_change=lambda arrays: arrays["dense"].__imul__(2), keep_sha=True)
    with pytest.raises(ModelFileError, match="not the weights config.json was saved with"):
        ArcStandardParser.load(mixed)
    (mixed / "weights.npz").write_text("not a zip", encoding="utf-8")
    with pytest.raises(ModelFileError, match="not a weights archive"):
        ArcStandardParser.load(mixed)
    # Byte flips anywhere in the archive (no recorded sha256 to catch them first): a clear error or a model, no crash.
    original = (saved / "arc" / "weights.npz").read_bytes()
    unsigned = damaged_copy(saved, tmp_path, config_change=lambda config: config.pop("weights_sha256"))
    for position in range(40, len(original), max(1, len(original) // 60)):
        flipped = bytearray(original)
        flipped[position] ^= 0xFF
        (unsigned / "weights.npz").write_bytes(bytes(flipped))
        try:
            ArcStandardParser.load(unsigned)
        except ModelFileError:
            pass
    without_templates = damaged_copy(saved, tmp_path, "joint", config_change=lambda config: config.pop("templates"))
    with pytest.raises(ModelFileError, match="incomplete or invalid joint model configuration"):
        JointParser.load(without_templates)


def _pipeline_copy(pipeline_model, tmp_path, part: str = "tokenizer", arrays_change=None, config_change=None):
    """A copy of the pipeline model with one part's weight arrays or config changed, its sha256 made
    to match again (the damage a digest cannot catch)."""
    import json
    import shutil

    import numpy as np

    from hetdep.learn.model_files import file_sha256

    target = tmp_path / f"copy-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(pipeline_model, target)
    folder = target / part
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    if arrays_change:
        with np.load(folder / "weights.npz") as loaded:
            arrays = {name: loaded[name].copy() for name in loaded.files}
        arrays = arrays_change(arrays) or arrays
        if isinstance(arrays, bytes):
            (folder / "weights.npz").write_bytes(arrays)
        else:
            np.savez_compressed(folder / "weights.npz", **arrays)
        config["weights_sha256"] = file_sha256(folder / "weights.npz")
    if config_change:
        config_change(config)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return target


def _one_line_refusal(model, tmp_path, *command):
    """``hetdep parse`` and ``hetdep info`` (and --json) on a damaged model: exit 2, one line naming the model, no traceback."""
    from click.testing import CliRunner

    from hetdep.cli import main

    text = tmp_path / "t.txt"
    text.write_text("Le chat dort. Il fait beau.\n", encoding="utf-8")
    runs = [["parse", "--model", str(model), "--input", str(text), "--output", str(tmp_path / "a.conllu"),
             "--output-b", str(tmp_path / "b.conllu")], ["info", str(model)], ["info", "--json", str(model)]]
    messages = []
    for args in runs:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert result.output.startswith("hetdep: error: ") and result.output.count("\n") == 1 and str(model) in result.output
        messages.append(result.output)
    assert not (tmp_path / "a.conllu").exists()
    return messages[0]


@pytest.mark.parametrize("change, message", [
    (lambda a: b"PK\x03\x04 not a zip at all", "damaged weights file"),
    (lambda a: {**a, "rows": a["rows"].astype(float)}, "array 'rows' is 1-d of float64"),
    (lambda a: {**a, "buckets": np.array(a["buckets"][0])}, "array 'buckets' is 0-d"),
    (lambda a: {**a, "buckets": np.array([3])}, "do not fit together"),
    (lambda a: {**a, "rows": a["rows"][::-1].copy(), "values": a["values"][::-1].copy()}, "do not fit together"),
    (lambda a: {k: v for k, v in a.items() if k != "values"}, "damaged weights file"),
])
def test_damaged_tokenizer_weights_with_a_matching_digest_are_refused_in_one_line(pipeline_model, tmp_path, change, message):
    model = _pipeline_copy(pipeline_model, tmp_path, arrays_change=change)
    assert message in _one_line_refusal(model, tmp_path)


@pytest.mark.parametrize("part, change, message", [
    (".", lambda c: c.update(tag_column="feats"), "tag_column 'feats' is not"),
    (".", lambda c: c.update(tag_column=["upos"]), r"tag_column \['upos'\] is not"),  # found by bench/fuzz.py
    (".", lambda c: c.update(kind={"a": 1}), "kind .* is not a kind of model"),
    (".", lambda c: c.update(labels_b=None), "labels_b None is not"),
    (".", lambda c: c["history"].__setitem__(0, 3), "history .* is not"),
    (".", lambda c: c["training_files"][0].pop("role"), "training_files .* is not"),
    (".", lambda c: c["history"][0].update(dev_las="high"), "history .* is not"),
    (".", lambda c: c["pipeline"].update(tokenizer="yes"), "pipeline .* is not"),
    (".", lambda c: c.update(kind="parser9"), "kind 'parser9' is not a kind of model this hetdep knows"),
    ("tagger/upos", lambda c: c.update(column="deprel"), "column 'deprel' is not"),
    ("tagger/feats", lambda c: c.update(reads=["upos"]), r"reads \['upos'\] is not a column or null"),  # found by bench/fuzz.py
    ("tagger/feats", lambda c: c.update(reads_tree="no"), "reads_tree 'no' is not true or false"),  # found by the fuzzer
    ("tagger/feats", lambda c: c.update(reads_tree=[1]), r"reads_tree \[1\] is not true or false"),
    ("tagger/feats", lambda c: c.update(reverse="../../etc"), "reverse '../../etc' is not true or false"),
    ("tokenizer", lambda c: c.update(multiword={"lexicon": 3, "weights": {}}), "damaged multiword lexicon"),
    ("tokenizer", lambda c: c.update(history=[{"iteration": 1, "dev": {"token_ends": "x"}}]), "history .* is not"),
])
def test_damaged_configurations_of_every_part_are_refused_by_parse_and_info(pipeline_model, tmp_path, part, change, message):
    import re

    model = _pipeline_copy(pipeline_model, tmp_path, part, config_change=change)
    assert re.search(message, _one_line_refusal(model, tmp_path))


def test_a_tokenizer_folder_without_its_config_is_refused_not_skipped(pipeline_model, tmp_path):
    model = _pipeline_copy(pipeline_model, tmp_path)
    (model / "tokenizer" / "config.json").unlink()
    assert "no config.json" in _one_line_refusal(model, tmp_path)
    (model / "tokenizer" / "config.json").mkdir()
    assert "config.json is a folder" in _one_line_refusal(model, tmp_path)


def _truncated(path):
    path.write_bytes(path.read_bytes()[:100])


def _without_digest(folder):
    """A tagger saved before config.json held its weights' sha256: read whole when its model opens."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    del config["weights_sha256"]
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")


@pytest.mark.parametrize("part, damage, message", [
    ("tagger/feats", lambda folder: (folder / "config.json").unlink(), "no config.json"),
    ("tagger/upos", lambda folder: __import__("shutil").rmtree(folder), "the UPOS tagger the model was trained with is missing"),
    ("tagger/feats", lambda folder: __import__("shutil").rmtree(folder), "the FEATS tagger the model was trained with is missing"),
    ("tagger/xpos", lambda folder: __import__("shutil").copytree(folder.parent / "upos", folder),
     "a tagger of upos, not of xpos"),
    ("tagger/notes", lambda folder: folder.mkdir(), "'notes' is not one of the subdirectories"),
    ("tagger/feats/backward", lambda folder: _truncated(folder / "weights.npz"), "weights"),
    ("tokenizer", lambda folder: __import__("shutil").rmtree(folder), "the tokenizer the model was trained with is missing"),
])
def test_a_model_missing_or_with_damage_in_any_tagger_part_is_refused(pipeline_model, tmp_path, part, damage, message):
    """Whole or refused: a tagger's folder without its files, a tagger left out, and damage in a
    right-to-left tagger whose weight is 0 (so it never tags) are refused, never parsed without."""
    model = _pipeline_copy(pipeline_model, tmp_path, "tagger/feats",
                           config_change=lambda config: config.update(backward_weight=0.0))
    damage(model / part)
    assert message in _one_line_refusal(model, tmp_path)


def test_models_of_format_1_are_read(saved, tmp_path):
    """A model saved before the packed layout (format 1: chained entries) loads and parses the same."""
    import json

    import numpy as np

    from hetdep.learn import _weights
    from hetdep.learn.model_files import file_sha256
    from hetdep.transition.parser import ArcStandardParser
    from hetdep.treebank.conllu import read_conllu

    model = ArcStandardParser.load(saved / "arc")
    rows = model.weights.dense_rows(2 + 2 * model.n_labels)
    old = damaged_copy(saved, tmp_path)
    table = np.zeros_like(model.weights.table)
    enext, act, w, dense = [], [], [], []
    for slot, (key, row) in enumerate(rows.items()):  # a key's slot is irrelevant to reading it: probe its own
        nonzero = np.flatnonzero(row)
        if len(nonzero) > 8:
            table[slot] = key, (1 << 63) | len(dense)
            dense.append(row)
        else:
            table[slot] = key, len(act) + 1
            enext.extend(list(range(len(act) + 1, len(act) + len(nonzero))) + [-1])
            act.extend(nonzero)
            w.extend(row[nonzero])
    table = _weights.rehash(table, table.shape[0])  # every key where a probe for it starts
    np.savez_compressed(old / "weights.npz", table=table, enext=np.array(enext, dtype=np.int64),
                        act=np.array(act, dtype=np.int32), w=np.array(w, dtype=np.float32),
                        dense=np.array(dense, dtype=np.float32).reshape(-1, 2 + 2 * model.n_labels))
    config = json.loads((old / "config.json").read_text(encoding="utf-8"))
    config.update(format_version=1, weights_sha256=file_sha256(old / "weights.npz"))
    (old / "config.json").write_text(json.dumps(config), encoding="utf-8")
    converted = ArcStandardParser.load(old)
    assert {key: list(row) for key, row in converted.weights.dense_rows(2 + 2 * model.n_labels).items()} == \
        {key: list(row) for key, row in rows.items()}
    sentences = list(read_conllu(SAMPLES / "dev.ud.conllu"))[:20]
    assert [s.column(6) for s in converted.parse(sentences)] == [s.column(6) for s in model.parse(sentences)]



@pytest.fixture(scope="module")
def shipped_fr_copy(tmp_path_factory):
    """The shipped French model (three treebanks), copied so that each test may damage its copy's copy."""
    import shutil

    from hetdep.models.names import shipped_model_path

    target = tmp_path_factory.mktemp("fr") / "fr"
    shutil.copytree(shipped_model_path("fr"), target)
    return target


@pytest.mark.parametrize("damage, message", [
    (lambda folder: _truncated(folder / "weights.npz"), "weights"),
    (lambda folder: (folder / "weights.npz").write_bytes((folder / "weights.npz").read_bytes()[:len(
        (folder / "weights.npz").read_bytes()) // 2]), "weights"),
    (lambda folder: __import__("json").dump({**__import__("json").loads((folder / "config.json").read_text(encoding="utf-8")),
                                            "reads_tree": "no"}, (folder / "config.json").open("w", encoding="utf-8")),
     "reads_tree 'no' is not true or false"),
    (lambda folder: (_without_digest(folder / "backward"), _truncated(folder / "backward" / "weights.npz")), "weights"),
])
def test_damage_in_another_treebank_s_own_tagger_is_refused_by_every_command_that_opens_the_model(
        shipped_fr_copy, tmp_path, damage, message):
    """Found by the fuzzer: a treebank the model does not parse as by default had its FEATS tagger
    damaged, and parse, info, compact and package took the model. Each refuses it in one line naming
    the model (compact names the model given, not the copy it was making), and writes nothing."""
    import shutil

    from click.testing import CliRunner

    from hetdep.cli import main

    model = tmp_path / "fr"
    shutil.copytree(shipped_fr_copy, model)
    damage(model / "treebank-taggers" / "parisstories" / "feats")
    assert message in _one_line_refusal(model, tmp_path)
    for args, made in [(["compact", str(model), "--output", str(tmp_path / "small")], tmp_path / "small"),
                       (["package", str(model), "--name", "damaged", "--output", str(tmp_path / "wheels")], tmp_path / "wheels")]:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
        assert str(model / "treebank-taggers" / "parisstories" / "feats") in result.output and not made.exists()
