"""The one door to every kind of model (hetdep.models.opening): what each kind takes and refuses,
the entry points that never ask a kind, and parsing through it to one tree or one pair per sentence."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SAMPLES

from hetdep.errors import HetdepError
from hetdep.models.opening import open_models
from hetdep.models.parsing import ParseChoice


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
    """The command line, hetdep.load, the service and Dask reach every kind through the one door
    (hetdep.models.opening; hetdep train through hetdep.models.trainers): no kind's name or kind
    test in their code."""
    import re

    from hetdep.models.opening import KINDS

    source = Path(__file__).resolve().parents[1] / "src" / "hetdep"
    files = [*(path for path in (source / "cli").glob("*.py") if path.name != "experiments.py"),  # the papers' experiments' names
             *(source / "api").glob("*.py"), *(source / "service").glob("*.py"), *(source / "cluster").glob("*.py")]
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


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_neural_model_s_taggers_are_read_importing_nothing(language, tmp_path):
    """NeuralModels.open reads them on other threads while it reads the network: two threads
    compiling modules at once trip CPython 3.11's AST recursion check, so those threads must import
    nothing once import_bundled_modules has run (a fresh process; its first run fills the user cache)."""
    model = SAMPLES.parent / "models" / language
    script = ("import sys; from pathlib import Path; from hetdep.learn.model_files import read_config; "
              "from hetdep.models.parsing import bundled_taggers, import_bundled_modules; "
              "from hetdep.models.own_taggers import OwnTaggers; "
              f"model = Path({str(model)!r}); import_bundled_modules(); before = set(sys.modules); "
              "bundled_taggers(read_config(model), model, threads=2, plain=True); OwnTaggers(read_config(model), model); "
              "print(sorted(set(sys.modules) - before))")
    environment = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, check=True)
            for _ in range(2)]
    assert runs[1].stdout.strip() == "[]"


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
    assert "joint model of two schemes" in text and "schemes: sud, ud (--output gets the first, --output-b the second)" in text and "bundled taggers: upos, feats, lemma" in text
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
