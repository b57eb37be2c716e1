"""Which training options combine: one rule book (hetdep.models.training), refused before any file is read."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SAMPLES

from hetdep.errors import HetdepError
from hetdep.learn.perceptron import TrainOptions
from hetdep.models.parsing import ParseChoice, open_models
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
    ("arc", ParseChoice(given=0), "single-scheme .* --gold-a/--gold-b need a joint model"),
    ("arc", ParseChoice(treebank="a"), "--treebank is for graph-based models"),
    ("joint", ParseChoice(treebank="a"), "--treebank is for graph-based models"),
    ("arc", ParseChoice(helper=Path("dep1")), "needs two graph-based models"),
    ("dep1", ParseChoice(helper=Path("joint")), "needs two graph-based models"),
    ("dep1", ParseChoice(helper=Path("dep1"), treebank="a"), "do not combine"),
])
def test_parse_options_a_model_lacks_are_refused(saved, model, choice, message):
    if choice.helper is not None:
        choice = replace(choice, helper=saved / choice.helper)
    with pytest.raises(HetdepError, match=message):
        open_models(saved / model, choice)


@pytest.mark.parametrize("model, choice, second_output, message", [
    ("joint", ParseChoice(), False, "give --output-b"),
    ("joint", ParseChoice(given=1), True, "drop --output-b"),
    ("arc", ParseChoice(), True, "writes no --output-b"),
    ("dep1", ParseChoice(), True, "writes no --output-b"),
])
def test_outputs_must_fit_the_trees_per_sentence(saved, model, choice, second_output, message):
    with pytest.raises(HetdepError, match=message):
        open_models(saved / model, choice).check_outputs(saved / model, second_output)


def test_each_kind_parses_one_tree_or_one_pair_per_sentence(saved):
    from hetdep.graph.consensus import ConsensusOptions
    from hetdep.treebank.conllu import read_conllu

    dev = list(read_conllu(SAMPLES / "dev.ud.conllu"))[:5]
    for model, choice, pairs in (("arc", ParseChoice(), False), ("dep1", ParseChoice(), False),
                                 ("joint", ParseChoice(), True), ("joint", ParseChoice(given=1), False),
                                 ("dep1", ParseChoice(helper=saved / "dep1", consensus=ConsensusOptions(k=2)), True)):
        opened = open_models(saved / model, choice)
        opened.check_outputs(saved / model, pairs)
        out = list(opened.parse(dev))
        assert opened.pairs == pairs and len(out) == len(dev)
        trees = [tree for item in out for tree in (item if pairs else (item,))]
        assert all(len(tree) == len(sentence) for tree, sentence in zip(trees[:: 2 if pairs else 1], dev))


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
    assert "joint model of two schemes" in text and "schemes: sud, ud (a, b)" in text and "bundled tagger: none" in text
    assert CliRunner().invoke(main, [*common, "--model", str(tmp_path / "given"), "--schemes", "fh,ch"]).exit_code == 0
    assert json.loads(CliRunner().invoke(main, ["info", str(tmp_path / "given"), "--json"]).output)["schemes"] == ["fh", "ch"]
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
