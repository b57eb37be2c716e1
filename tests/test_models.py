"""Which training options combine: one rule book (hetdep.models.training), refused before any file is read."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLES

from hetdep.errors import HetdepError
from hetdep.learn.perceptron import TrainOptions
from hetdep.models.opening import open_models
from hetdep.models.parsing import ParseChoice
from hetdep.models.training import ModelChoice, check, train_model

REFUSED = [
    (ModelChoice(parser="dep1", beam_given=True), TrainOptions(), "--beam and --update are for"),
    (ModelChoice(parser="dep2", update_given=True), TrainOptions(), "--beam and --update are for"),
    (ModelChoice(parser="dep1"), TrainOptions(lattice=True), "--lattice is for"),
    (ModelChoice(parser="dep1"), TrainOptions(dp=True), "--dp is for"),
    (ModelChoice(second_treebank=True), TrainOptions(dp=True), "--dp is for"),
    (ModelChoice(), TrainOptions(dp=True, lattice=True), "do not combine"),
    (ModelChoice(parser="dep2", second_treebank=True), TrainOptions(), "the joint model is transition-based"),
    (ModelChoice(concatenate=True, second_treebank=True), TrainOptions(), "--concatenate needs"),
    (ModelChoice(parser="dep1", concatenate=True), TrainOptions(), "--concatenate needs"),
    (ModelChoice(helper=SAMPLES), TrainOptions(), "--helper is for"),
    (ModelChoice(parser="dep1", feature_copies=True), TrainOptions(), "--feature-copies applies"),
    (ModelChoice(parser="dep1", second_treebank=True, concatenate=True, names=("x", "x")), TrainOptions(), "two different names"),
    (ModelChoice(parser="dep3"), TrainOptions(), "unknown parser"),
    (ModelChoice(guide="richer"), TrainOptions(), "unknown guide"),
]


@pytest.mark.parametrize("choice, options, message", REFUSED)
def test_combinations_no_model_has_are_refused(choice, options, message):
    with pytest.raises(HetdepError, match=message):
        check(choice, options)


@pytest.mark.parametrize("kind, given, message", [
    ("neural", {"--gold-tags": True}, "--gold-tags does not apply to --parser neural"),
    ("constituency", {"--train-b": "b.mrg", "--t": True}, "--t, --train-b do not apply to --parser constituency"),
    ("arc-standard", {"--embeddings": "vectors.txt"}, "--embeddings is for --parser neural"),
    ("neural", {"--rules": "collins"}, "--rules does not apply to --parser neural"),
    ("dep1", {"--templates": "zpar"}, "--templates is for --parser constituency"),
    ("arc-standard", {"--treebank": [("a", "ud", "t", "d")]}, "several treebanks .* not --parser arc-standard"),
])
def test_training_options_a_kind_does_not_take_are_refused(kind, given, message):
    from hetdep.models.training import check_training_options

    with pytest.raises(HetdepError, match=message):
        check_training_options(kind, given)
    assert check_training_options(kind, {}).iterations > 0


@pytest.mark.parametrize("choice, options", [
    (ModelChoice(), TrainOptions(dp=True)),
    (ModelChoice(), TrainOptions(lattice=True)),
    (ModelChoice(second_treebank=True, guide="rich"), TrainOptions(lattice=True, update="max-violation")),
    (ModelChoice(parser="dep2", helper=SAMPLES), TrainOptions()),
    (ModelChoice(parser="dep1", second_treebank=True, concatenate=True, feature_copies=True), TrainOptions()),
])
def test_combinations_a_model_has_pass(choice, options):
    check(choice, options)


def test_a_refused_combination_reads_no_file(tmp_path):
    missing = tmp_path / "missing.conllu"
    with pytest.raises(HetdepError, match="--beam and --update"):
        train_model(ModelChoice(parser="dep1", beam_given=True), TrainOptions(), missing, missing)


def test_the_command_line_says_the_rule_in_one_line(tmp_path):
    train = str(SAMPLES / "train.ud.conllu")
    result = subprocess.run([sys.executable, "-m", "hetdep", "train", "--parser", "dep1", "--beam", "8", "--train", train,
                             "--dev", train, "--model", str(tmp_path / "m")], capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("hetdep: error: --parser dep1 decodes exactly") and not (tmp_path / "m").exists()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Tiny saved models of three kinds (arc-standard, dep1, joint), trained on 40 sample sentences."""
    from hetdep.graph.parser import train_graph
    from hetdep.joint.training import train_joint
    from hetdep.transition.training import train
    from hetdep.treebank.conllu import read_conllu
    from hetdep.treebank.pairs import read_pairs

    folder = tmp_path_factory.mktemp("models")
    sentences = list(read_conllu(SAMPLES / "train.ud.conllu"))[:40]
    pairs = read_pairs(SAMPLES / "train.sud.conllu", SAMPLES / "train.ud.conllu")[:40]
    options = TrainOptions(beam=2, iterations=1)
    train(sentences, [], options).parser.save(folder / "arc")
    train_graph(sentences, [], options).parser.save(folder / "dep1")
    train_joint(pairs, [], options).parser.save(folder / "joint")
    return folder


@pytest.mark.parametrize("model, choice, message", [
    ("arc", ParseChoice(given=0), "'arc-standard' model: --gold-a/--gold-b is for a joint model"),
    ("arc", ParseChoice(treebank="a"), "--treebank is for models trained on several treebanks"),
    ("arc", ParseChoice(to_dependency="penn2malt"), "--to-dependency is for constituency models"),
    ("dep1", ParseChoice(lattice_weight=1.0), "--lattice-weight is for a model trained with --lattice"),
    ("arc", ParseChoice(lattice_weight=1.0), "--lattice-weight is for a model trained with --lattice; .* was not"),
    ("joint", ParseChoice(treebank="a"), "--treebank is for models trained on several treebanks"),
    ("arc", ParseChoice(helper=Path("dep1")), "--with .* is for two graph-based models"),
    ("dep1", ParseChoice(helper=Path("joint")), "needs two graph-based models"),
    ("dep1", ParseChoice(helper=Path("dep1"), treebank="a"), "do not combine"),
])
def test_parse_options_a_model_lacks_are_refused(saved, model, choice, message):
    if choice.helper is not None:
        choice = replace(choice, helper=saved / choice.helper)
    with pytest.raises(HetdepError, match=message):
        open_models(saved / model, choice)


def test_every_parser_kind_has_a_room_behind_the_one_door():
    from hetdep.models import PARSER_KINDS
    from hetdep.models.opening import KINDS
    from hetdep.models.parsing import OpenModels

    assert set(KINDS) == {*PARSER_KINDS, "joint"}  # train --parser's kinds, and the joint model of two schemes
    assert all(issubclass(room, OpenModels) and room.open is not OpenModels.open and room.parse_trees
               is not OpenModels.parse_trees for room in KINDS.values())


def test_the_entry_points_never_ask_a_model_s_kind():
    """hetdep parse and train, hetdep.load, the service and Dask reach every kind through the one
    door (hetdep.models.opening; hetdep.models.training's table of training kinds): no kind's name
    or kind test in their code."""
    import re

    from hetdep.models.opening import KINDS

    source = Path(__file__).resolve().parents[1] / "src" / "hetdep"
    files = [source / "cli" / "parsing.py", source / "cli" / "training.py", *(source / "api").glob("*.py"),
             *(source / "service").glob("*.py"),
             *(source / "cluster").glob("*.py")]
    kinds = re.compile("|".join([*(f"['\"]{re.escape(kind)}['\"]" for kind in KINDS), r"\bNEURAL\b", r"\bCONSTITUENCY\b",
                                 r"\bGRAPH_KINDS\b", r"\bread_kind\b", r"\.kind\s*(==|!=|in\b)"]))
    found = [f"{path.relative_to(source)}:{number}: {line.strip()}" for path in files
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if kinds.search(line)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("which", ["shipped", "pipeline"])
def test_the_model_s_path_enters_no_module_more_than_twice(which, request, tmp_path):
    """Following the model folder from ``hetdep parse`` to the parts that read it (issue 60): each
    module it passes through takes it at most twice, so no room hands it back and forth."""
    from collections import Counter

    from click.testing import CliRunner

    from hetdep.cli import main
    from hetdep.models.names import shipped_models

    model = str(shipped_models()[0].path if which == "shipped" else request.getfixturevalue("pipeline_model"))
    (tmp_path / "in.txt").write_text("Le chat dort sur le canapé.\n", encoding="utf-8")
    entered: list[str] = []

    def follow(frame, event, arg):
        module = frame.f_globals.get("__name__", "")
        if event == "call" and module.startswith("hetdep") and (not entered or entered[-1] != module) and any(
                isinstance(value, (str, Path)) and str(value) == model for value in frame.f_locals.values()):
            entered.append(module)

    sys.setprofile(follow)
    try:
        result = CliRunner().invoke(main, ["parse", "--model", model, "--input", str(tmp_path / "in.txt"),
                                           "--output", str(tmp_path / "out.conllu"), "--quiet"])
    finally:
        sys.setprofile(None)
    assert result.exit_code == 0, result.output
    assert "hetdep.models.opening" in entered and len(entered) >= 8  # the path was followed through the door
    assert max(Counter(entered).values()) <= 2, " -> ".join(entered)


def test_a_neural_model_refuses_a_beam_it_would_not_use():
    from hetdep.models.names import shipped_models

    with pytest.raises(HetdepError, match="neural model: it finds the best tree exactly, with no beam"):
        open_models(shipped_models()[0].path, ParseChoice(beam=4), tag_input=False)


def test_a_neural_model_s_second_scheme_gets_its_own_feats():
    """The shipped model's FEATS tagger learned fr-sequoia's SUD FEATS, which add ExtPos to numerals
    and Shared to shared dependents; its UD trees get them mapped to UD's, which write neither."""
    import hetdep
    from hetdep.treebank.conllu import FEATS

    text = (SAMPLES.parent / "text" / "fr-paragraph.txt").read_text(encoding="utf-8")
    document = hetdep.load(quiet=True)(text + " Il a vu deux chats et trois chiens, puis quatre oiseaux.")
    features = {scheme: {name.split("=")[0] for sentence in document for feats in sentence.tree(scheme).column(FEATS)
                         for name in feats.split("|")} for scheme in ("sud", "ud")}
    assert "ExtPos" in features["sud"] and not {"ExtPos", "Shared"} & features["ud"]


@pytest.mark.parametrize("model, choice, second_output, message", [
    ("joint", ParseChoice(given=1), True, "drop --output-b"),
    ("arc", ParseChoice(), True, "writes no --output-b"),
    ("dep1", ParseChoice(), True, "writes no --output-b"),
])
def test_outputs_must_fit_the_trees_per_sentence(saved, model, choice, second_output, message):
    with pytest.raises(HetdepError, match=message):
        open_models(saved / model, choice).check_outputs(second_output)


def test_each_kind_parses_one_tree_or_one_pair_per_sentence(saved):
    from hetdep.graph.consensus import ConsensusOptions
    from hetdep.treebank.conllu import read_conllu

    dev = list(read_conllu(SAMPLES / "dev.ud.conllu"))[:5]
    for model, choice, pairs in (("arc", ParseChoice(), False), ("dep1", ParseChoice(), False),
                                 ("joint", ParseChoice(), True), ("joint", ParseChoice(given=1), False),
                                 ("dep1", ParseChoice(helper=saved / "dep1", consensus=ConsensusOptions(k=2)), True)):
        opened = open_models(saved / model, choice)
        opened.check_outputs(pairs)
        out = list(opened.parse(dev))
        assert opened.pairs == pairs and len(out) == len(dev)
        trees = [tree for item in out for tree in (item if pairs else (item,))]
        assert all(len(tree) == len(sentence) for tree, sentence in zip(trees[:: 2 if pairs else 1], dev))


@pytest.mark.slow
def test_a_model_records_its_schemes_and_training_files(tmp_path):
    import hashlib
    import json

    from click.testing import CliRunner

    from hetdep.cli import main

    train_a, train_b = SAMPLES / "train.sud.conllu", SAMPLES / "train.ud.conllu"
    dev_a, dev_b = SAMPLES / "dev.sud.conllu", SAMPLES / "dev.ud.conllu"
    common = ["train", "--train", str(train_a), "--train-b", str(train_b), "--dev", str(dev_a), "--dev-b", str(dev_b),
              "--beam", "2", "--iterations", "1"]
    assert CliRunner().invoke(main, [*common, "--model", str(tmp_path / "named")]).exit_code == 0
    facts = json.loads(CliRunner().invoke(main, ["info", str(tmp_path / "named"), "--json"]).output)
    assert facts["kind"] == "joint" and facts["schemes"] == ["sud", "ud"] and facts["best_iteration"] == 1
    files = {record["role"]: record for record in facts["training_files"]}
    assert files["train-b"]["sentences"] == 200 and files["train-b"]["path"] == str(train_b.resolve())
    assert files["train"]["sha256"] == hashlib.sha256(train_a.read_bytes()).hexdigest()
    assert set(facts["dev"]) >= {"UAS", "LAS"}
    text = CliRunner().invoke(main, ["info", str(tmp_path / "named")]).output
    assert "joint model of two schemes" in text and "schemes: sud, ud (a, b)" in text and "bundled taggers: upos, feats, lemma" in text
    assert "tokenizer: yes" in text and "parser trained on: jackknifed by its tagger (10 folds; upos" in text
    assert CliRunner().invoke(main, [*common, "--model", str(tmp_path / "given"), "--schemes", "fh,ch", "--gold-tags",
                                     "--no-tokenizer"]).exit_code == 0
    assert json.loads(CliRunner().invoke(main, ["info", str(tmp_path / "given"), "--json"]).output)["schemes"] == ["fh", "ch"]
    text = CliRunner().invoke(main, ["info", str(tmp_path / "given")]).output
    assert "bundled taggers: none" in text and "tokenizer: none" in text and "the training file's own tags" in text
    refused = CliRunner().invoke(main, [*common, "--model", str(tmp_path / "bad"), "--schemes", "only-one"])
    assert refused.exit_code == 2 and not (tmp_path / "bad").exists()


def test_untagged_input_is_refused_before_anything_is_written(saved, tmp_path):
    """A model without a tagger refuses input without tags (wrong trees otherwise), naming the file and line; the
    output file keeps what it held: outputs are written whole or not at all."""
    text = tmp_path / "raw.txt"
    text.write_text("Le chat dort .\n", encoding="utf-8")
    output = tmp_path / "out.conllu"
    output.write_text("kept\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "hetdep", "parse", "--model", str(saved / "arc"), "--input", str(text),
                             "--output", str(output)], capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{text}:1: word 1 ('Le') of the sentence starting here has no UPOS tag" in result.stderr
    assert output.read_text(encoding="utf-8") == "kept\n" and list(tmp_path.glob(".out.conllu.*")) == []
    # Halfway through a CoNLL-U file: still nothing written.
    dev = (SAMPLES / "dev.ud.conllu").read_text(encoding="utf-8").split("\n\n")
    untagged = "\n".join("\t".join(row.split("\t")[:3] + ["_"] + row.split("\t")[4:]) if row and row[0].isdigit() else row
                         for row in dev[5].split("\n"))
    mixed = tmp_path / "mixed.conllu"
    mixed.write_text("\n\n".join(dev[:5] + [untagged]) + "\n\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "hetdep", "parse", "--model", str(saved / "joint"), "--input", str(mixed),
                             "--output", str(output), "--output-b", str(tmp_path / "b.conllu")], capture_output=True, text=True)
    assert result.returncode == 2 and "has no UPOS tag" in result.stderr
    assert output.read_text(encoding="utf-8") == "kept\n" and not (tmp_path / "b.conllu").exists()


def test_an_output_folder_that_does_not_exist_is_one_clear_line(saved, tmp_path):
    result = subprocess.run([sys.executable, "-m", "hetdep", "parse", "--model", str(saved / "arc"), "--input",
                             str(SAMPLES / "dev.ud.conllu"), "--output", str(tmp_path / "no" / "such" / "out.conllu")],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "cannot be written: the folder" in result.stderr and "does not exist" in result.stderr


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


def _interrupt_when(process, marker: str, timeout: float = 120.0) -> str:
    """Send Ctrl-C (SIGINT) to ``process`` once ``marker`` appears on its stderr; returns all of stderr."""
    import os
    import signal
    import time

    os.set_blocking(process.stderr.fileno(), False)
    seen, deadline = "", time.monotonic() + timeout
    while marker not in seen and time.monotonic() < deadline and process.poll() is None:
        chunk = process.stderr.read()
        seen += chunk.decode("utf-8", "replace") if chunk else ""
        time.sleep(0.05)
    assert marker in seen, f"{marker!r} never appeared: {seen[-500:]}"
    process.send_signal(signal.SIGINT)
    process.signalled = time.monotonic()
    process.wait(timeout=60)
    os.set_blocking(process.stderr.fileno(), True)
    return seen + process.stderr.read().decode("utf-8", "replace")


@pytest.mark.parametrize("kind, marker", [
    (["--beam", "4", "--gold-tags"], "iteration 3"),
    pytest.param(["--parser", "neural", "--threads", "1"], "epoch 2 done", marks=pytest.mark.slow),  # its taggers train first
])
def test_ctrl_c_during_training_keeps_the_best_finished_iteration(tmp_path, kind, marker):
    """The best finished iteration is written at once (within seconds of the signal), and the
    command says so in one line, its last."""
    import time

    if "neural" in kind:
        pytest.importorskip("torch", reason="training the neural parser needs PyTorch")
    model = tmp_path / "m"
    process = subprocess.Popen([sys.executable, "-m", "hetdep", "train", "--train", str(SAMPLES / "train.ud.conllu"),
                                "--dev", str(SAMPLES / "dev.ud.conllu"), "--model", str(model), *kind,
                                "--iterations", "200", "--patience", "200", "--no-tokenizer"],
                               stderr=subprocess.PIPE)
    stderr = _interrupt_when(process, marker, timeout=300)
    assert process.returncode == 130 and "Traceback" not in stderr and "SystemError" not in stderr
    assert "1:" in stderr and "interrupted during iteration" in stderr
    said = [line for line in stderr.splitlines() if line.startswith("hetdep: interrupted")]
    assert len(said) == 1 and stderr.strip().splitlines()[-1] == said[0]
    assert time.monotonic() - process.signalled < 10
    assert (model / "config.json").exists() and (model / "weights.npz").exists()


@pytest.mark.slow
def test_an_interrupted_training_resumed_gives_the_model_of_an_uninterrupted_run(tmp_path):
    """Tokenizer, tagger and jackknifing kept, the parser resumed after its last finished iteration."""
    import json

    args = ["train", "--train", str(SAMPLES / "train.sud.conllu"), "--train-b", str(SAMPLES / "train.ud.conllu"),
            "--dev", str(SAMPLES / "dev.sud.conllu"), "--dev-b", str(SAMPLES / "dev.ud.conllu"), "--beam", "4",
            "--iterations", "4", "--patience", "4", "--folds", "3"]
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    subprocess.run([sys.executable, "-m", "hetdep", *args, "--model", str(whole)], check=True, capture_output=True)
    assert not (whole / ".training-state").exists()
    process = subprocess.Popen([sys.executable, "-m", "hetdep", *args, "--model", str(resumed)], stderr=subprocess.PIPE)
    stderr = _interrupt_when(process, "iteration 2 done")
    assert process.returncode == 130 and "Traceback" not in stderr and f"hetdep train --resume {resumed}" in stderr
    kept = resumed / ".training-state"
    assert (kept / "tokenizer").is_dir() and (kept / "tagger" / "upos").is_dir() and (kept / "jackknifed.conllu").is_file()
    again = subprocess.run([sys.executable, "-m", "hetdep", "train", "--resume", str(resumed)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("finished by the interrupted training, kept") == 5  # tokenizer, 3 taggers, jackknifing
    assert not kept.exists()
    for part in ("weights.npz", "tokenizer/weights.npz", "tagger/upos/weights.npz", "tagger/feats/weights.npz",
                 "tagger/lemma/weights.npz"):
        assert (whole / part).read_bytes() == (resumed / part).read_bytes(), part

    def scores(model):
        config = json.loads((model / "config.json").read_text(encoding="utf-8"))
        return config["best_iteration"], [(r["dev_uas"], r["dev_las"], r["updates"]) for r in config["history"]]

    assert scores(whole) == scores(resumed)


def test_resume_needs_an_interrupted_training_and_no_other_option(tmp_path):
    from click.testing import CliRunner

    from hetdep.cli import main

    result = CliRunner().invoke(main, ["train", "--resume", str(tmp_path)])
    assert result.exit_code == 2 and "no interrupted training to go on with here" in result.output
    result = CliRunner().invoke(main, ["train", "--resume", str(tmp_path), "--beam", "8"])
    assert result.exit_code == 2 and "drop --beam" in result.output
    (tmp_path / ".training-state").mkdir()
    (tmp_path / ".training-state" / "run.json").write_text('{"beam": 8, "nonsense": 1}', encoding="utf-8")
    result = CliRunner().invoke(main, ["train", "--resume", str(tmp_path)])
    assert result.exit_code == 2 and "damaged record of the interrupted training" in result.output
    result = CliRunner().invoke(main, ["train", "--beam", "8"])
    assert result.exit_code == 2 and "give --train, --dev and --model" in result.output


def test_ctrl_c_during_parsing_leaves_no_output(saved, tmp_path):
    import signal
    import time

    big = tmp_path / "big.conllu"
    big.write_text((SAMPLES / "dev.ud.conllu").read_text(encoding="utf-8") * 40, encoding="utf-8")
    output = tmp_path / "out.conllu"
    process = subprocess.Popen([sys.executable, "-m", "hetdep", "parse", "--model", str(saved / "joint"), "--input", str(big),
                                "--output", str(output), "--output-b", str(tmp_path / "b.conllu"), "--beam", "64"],
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".out.conllu.*.part")) and time.monotonic() < deadline:  # parsing has begun
        time.sleep(0.05)
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    stderr = process.communicate(timeout=60)[1].decode("utf-8", "replace")
    assert process.returncode == 130 and "Traceback" not in stderr and "hetdep: interrupted" in stderr
    assert not output.exists() and not (tmp_path / "b.conllu").exists() and list(tmp_path.glob(".*.part")) == []


def test_tag_reads_tokenized_text_and_a_parser_with_its_tagger_parses_it(saved, tmp_path):
    from click.testing import CliRunner

    from hetdep.cli import main
    from hetdep.treebank.conllu import UPOS, read_conllu

    runner = CliRunner()
    tagger = tmp_path / "tagger"
    assert runner.invoke(main, ["train-tagger", "--train", str(SAMPLES / "train.ud.conllu"), "--model", str(tagger),
                                "--iterations", "2"]).exit_code == 0
    text = tmp_path / "raw.txt"
    text.write_text("Le chat dort .\nIl parle de le livre .\n", encoding="utf-8")
    tagged = tmp_path / "tagged.conllu"
    result = runner.invoke(main, ["tag", "--model", str(tagger), "--input", str(text), "--output", str(tagged)])
    assert result.exit_code == 0, result.output
    sentences = list(read_conllu(tagged))
    assert [s.forms for s in sentences] == [["Le", "chat", "dort", "."], ["Il", "parle", "de", "le", "livre", "."]]
    assert sentences[0].column(UPOS)[:2] == ["DET", "NOUN"] and "_" not in sentences[1].column(UPOS)
    # A parser bundled with that tagger parses the same text (no tags needed in the input).
    model = tmp_path / "with-tagger"
    assert runner.invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"),
                                "--model", str(model), "--beam", "2", "--iterations", "1", "--tagger", str(tagger)]).exit_code == 0
    parsed = tmp_path / "parsed.conllu"
    result = runner.invoke(main, ["parse", "--model", str(model), "--input", str(text), "--output", str(parsed)])
    assert result.exit_code == 0 and "tagged by the model's tagger (upos)" in result.output
    assert [s.heads.count(0) for s in read_conllu(parsed)] == [1, 1]
