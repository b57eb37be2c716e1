"""Which training options combine: one rule book (hetdep.models.training), refused before any file is read."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import SAMPLES

from hetdep.errors import HetdepError
from hetdep.learn.perceptron import TrainOptions
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


@pytest.mark.parametrize("refused", [["--parser", "neural", "--dp"], ["--parser", "constituency"],
                                     ["--parser", "dep1", "--beam", "8"], ["--gold-tags", "--tagger", str(SAMPLES)]])
def test_a_refused_training_leaves_an_interrupted_one_s_kept_state(tmp_path, refused):
    """Every kind's options are refused before anything is written (hetdep.models.trainers.prepare),
    so a mistyped command in the folder of an interrupted training leaves it resumable."""
    from click.testing import CliRunner

    from hetdep.cli import main
    from hetdep.learn.checkpoint import STATE

    kept = tmp_path / "m" / STATE / "run.json"
    kept.parent.mkdir(parents=True)
    kept.write_text('{"kept": true}', encoding="utf-8")
    train = str(SAMPLES / "train.ud.conllu")
    result = CliRunner().invoke(main, ["train", *refused, "--train", train, "--dev", train, "--model", str(tmp_path / "m")])
    assert result.exit_code == 2 and "error:" in result.output, result.output
    assert kept.read_text(encoding="utf-8") == '{"kept": true}'


def test_info_on_a_shipped_model_names_it_and_shows_no_folder_of_the_machine_that_built_it():
    """What a new user met: the build machine's folders (its vectors file, its data) and learning_rate 0.00."""
    from click.testing import CliRunner

    from hetdep.cli import main

    result = CliRunner().invoke(main, ["info", "fr"])
    assert result.exit_code == 0 and result.output.startswith("fr (shipped with hetdep): neural parser")
    assert "/work" not in result.output and "/tmp" not in result.output and "/home" not in result.output
    assert "parisstories (sud, ud)" in result.output and "learning_rate 0.002" in result.output
    assert "trained on (train:sequoia:sud): train.sud.conllu, 2,231 sentences" in result.output
    assert "enhanced graphs: none (its network has no graph head: DEPS is written '_')" in result.output  # no French treebank here has them
