"""The command line end to end: help, eval, compare, validate, projectivity, and clean errors."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from conftest import EN_SAMPLES, SAMPLES, conllu, write

from hetdep.cli import main

UD, SUD = str(SAMPLES / "dev.ud.conllu"), str(SAMPLES / "dev.sud.conllu")


def run(*args):
    return CliRunner().invoke(main, list(args))


def every_command(group=main, path=()):
    """The words that reach each command of the tree, e.g. ('experiment', 'joint')."""
    for name in group.list_commands(None):
        command = group.get_command(None, name)
        assert command.name == name  # the group found it where its name says
        yield path + (name,)
        if isinstance(command, click.Group):
            yield from every_command(command, path + (name,))


def test_the_documented_commands_are_there():
    commands = {" ".join(words) for words in every_command()}
    assert {"eval", "compare", "validate", "projectivity", "train", "parse", "train-tagger", "tag", "jackknife", "convert",
            "experiment", "experiment joint", "experiment predicted-tags", "experiment consensus"} <= commands


@pytest.mark.parametrize("words", list(every_command()), ids=" ".join)
def test_every_command_explains_itself(words):
    result = run(*words, "--help")
    assert result.exit_code == 0 and "Usage:" in result.output and "--help" in result.output
    assert f"{' '.join(words)} [OPTIONS]" in result.output


def test_eval_json_on_the_sample():
    result = run("eval", UD, UD, "--json")
    report = json.loads(result.output)
    assert report["UAS"] == 100.0 and report["LAS"] == 100.0 and report["CM"] == 100.0
    assert report["sentences"] == 200 and report["words"] > 3000


def test_eval_between_schemes_with_analyses():
    result = run("eval", UD, SUD, "--json", "--by-label", "--by-distance", "--other-gold", SUD)
    report = json.loads(result.output)
    assert 30 < report["UAS"] < 70  # UD and SUD heads agree on about half the words
    assert report["shared_with_other_scheme"]["different"]["UAS"] == 0.0
    assert "7+" in report["by_distance"] and "nsubj" in report["per_label"]
    text = run("eval", UD, SUD, "--by-distance")
    assert text.exit_code == 0 and "UAS" in text.output and "7+" in text.output


def test_compare_prints_significance():
    result = run("compare", UD, UD, SUD, "--samples", "200", "--json")
    report = json.loads(result.output)
    assert report["sentences"]["worse"] == 0 and report["sentences"]["better"] > 150
    assert report["UAS"]["sign_test"]["p"] < 1e-6


def test_bad_input_is_one_line_without_traceback(tmp_path):
    bad = write(tmp_path, "bad.conllu", conllu(("a", "X", 0, "root"), ("b", "X", 7, "dep")))
    result = subprocess.run([sys.executable, "-m", "hetdep", "eval", str(bad), str(bad)], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip() == f"hetdep: error: {bad}:2: HEAD 7 out of range (sentence has 2 words)"
    assert "Traceback" not in result.stderr


def test_validate_lists_every_problem(tmp_path):
    text = conllu(("a", "X", 0, "root"), ("b", "X", 7, "dep")) + conllu(("c", "X", 0, "root")) + "1\tx\n\n"
    result = run("validate", str(write(tmp_path, "v.conllu", text)))
    assert result.exit_code == 1
    assert ":2: HEAD 7 out of range" in result.output and ":6: expected 10 tab-separated columns" in result.output
    assert run("validate", UD).exit_code == 0


def test_projectivity_report():
    report = json.loads(run("projectivity", SUD, "--json").output)
    assert report["trees"] == 200 and report["non_projective_trees"] > 0 and report["arcs_restored_pct"] > 99.9


def test_a_parse_imports_no_other_family_of_commands():
    script = ("import sys\nfrom hetdep.cli import main\nmain.get_command(None, 'parse')\n"
              "print(sorted(name for name in sys.modules if name.startswith('hetdep.cli.')))")
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['hetdep.cli.app', 'hetdep.cli.parsing']"


def test_ctrl_c_while_the_command_line_starts_is_quiet():
    import subprocess
    import sys

    code = ("import sys\n"
            "class Interrupt:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'hetdep.cli':\n"
            "            raise KeyboardInterrupt\n"
            "sys.meta_path.insert(0, Interrupt())\n"
            "from hetdep.console import run\n"
            "run()\n")
    process = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True)
    assert process.returncode == 130 and process.stderr == "hetdep: interrupted (no output was written)\n"


@pytest.mark.parametrize("command, everyday, later", [
    ("parse", ["--model", "--input", "--output", "--treebank"], ["--with", "--edge", "--lattice-k", "--gold-a", "--beam"]),
    ("train", ["--train", "--dev", "--model", "--parser", "--treebank", "--iterations"], ["--beam", "--t", "--gold-tags", "--dp"]),
])
def test_help_lists_the_everyday_options_before_those_of_the_papers_experiments(command, everyday, later):
    """What a new user met: parse --help's first screen was the papers' joint-inference options."""
    text = CliRunner().invoke(main, [command, "--help"]).output
    first, _, experiments = text.partition("Options of the ")
    assert all(f"  {option} " in first for option in everyday), first
    assert all(f"  {option} " in experiments and f"  {option} " not in first for option in later), experiments


@pytest.mark.slow
def test_quick_trains_a_small_model_that_parses_raw_text(tmp_path):
    """The newcomer's quick path: train --quick on the shipped sample (about 30 s on 2 cores)."""
    model = tmp_path / "quick"
    result = run("train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"), "--model",
                 str(model), "--quick")
    assert result.exit_code == 0, result.output
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    assert config["kind"] == "arc-standard" and config["training_options"]["beam"] == 8 and len(config["history"]) <= 10
    assert config["pipeline"]["jackknife_folds"] == 5
    text = write(tmp_path, "t.txt", "Le chat dort. Il pleut.\n")
    parsed = run("parse", "--model", str(model), "--input", str(text), "--output", str(tmp_path / "o.conllu"))
    assert parsed.exit_code == 0 and (tmp_path / "o.conllu").read_text(encoding="utf-8").count("# text") == 2
    refused = run("train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"), "--model",
                  str(tmp_path / "other"), "--quick", "--parser", "neural")
    assert refused.exit_code == 2 and "--quick trains --parser arc-standard" in refused.output


def test_a_parse_writes_no_enhanced_graph_its_model_does_not_predict(tmp_path):
    """CoNLL-U input with gold DEPS and empty nodes, parsed by a model without a graph head (the
    shipped fr): DEPS '_' and no empty nodes out (the gold graph is not passed off as the parse's),
    one tree a sentence; by the shipped en, which has one: its own graph in every word's DEPS."""
    import hetdep
    from hetdep.treebank.conllu import DEPS, ID, read_conllu

    given = list(read_conllu(EN_SAMPLES / "dev.ud.conllu"))
    for model in ("fr", "en"):
        out = tmp_path / f"{model}.conllu"
        result = CliRunner().invoke(main, ["parse", "--model", model, "--input", str(EN_SAMPLES / "dev.ud.conllu"),
                                           "--format", "conllu", "--output", f"ud={out}"])
        assert result.exit_code == 0, result.output
        parsed = list(read_conllu(out))
        assert [s.forms for s in parsed] == [s.forms for s in given]
        assert not any("." in row[ID] for s in parsed for row in s.rows)
        assert all((s.rows[k][DEPS] == "_") == (model == "fr") for s in parsed for k in s.word_rows)
    document = hetdep.load("fr").parse_sentences(given[:5])
    rows = [line.split("\t") for line in document.to_conllu().splitlines() if line and not line.startswith("#")]
    assert len(rows) >= 5 and all(row[DEPS] == "_" and "." not in row[ID] for row in rows)  # hetdep.load's too
