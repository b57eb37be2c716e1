"""The joint-model experiment command, end to end on a tiny treebank cut from the sample."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from conftest import SAMPLES, SHARED_DATA, needs_shared

from hetdep.cli import main
from hetdep.treebank.conllu import read_conllu


def tiny_pair_treebank(folder):
    """train (60), dev (30) and test (30) of the sample, in UD and SUD."""
    folder.mkdir()
    for scheme in ("ud", "sud"):
        train = list(read_conllu(SAMPLES / f"train.{scheme}.conllu"))
        dev = list(read_conllu(SAMPLES / f"dev.{scheme}.conllu"))
        for name, sentences in (("train", train[:60]), ("dev", dev[:30]), ("test", dev[30:60])):
            (folder / f"{name}.{scheme}.conllu").write_text("".join(s.to_text() for s in sentences), encoding="utf-8")
    return folder


def test_experiment_writes_every_table_and_the_plots_and_resumes(tmp_path):
    folder = tiny_pair_treebank(tmp_path / "tiny")
    out = tmp_path / "run"
    args = ["experiment", "joint", "--treebank", str(folder), "--out", str(out), "--ts", "1,-inf", "--beam", "2",
            "--iterations", "1", "--guide", "paper"]
    # One process may train some models only; the full run then reuses them.
    first = CliRunner().invoke(main, args[:7] + ["-inf"] + args[8:] + ["--train-only"])
    assert first.exit_code == 0, first.output
    assert not (out / "report.md").exists() and (out / "models" / "joint-t-inf").is_dir()
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "training the joint model, t = -inf" not in result.output
    report = (out / "report.md").read_text()
    for heading in ("Table 2", "Table 3", "Table 4", "Table 5", "Figure 3", "Treebank conversion"):
        assert heading in report
    assert "| joint t = 1 |" in report and "| joint t = -inf |" in report and "paired t-test" in report
    assert "| joint-t-inf | 1 | 1 |" in report  # training time of every model
    assert "| ud (gold) | sud | rules" in report and "| sud (gold) | ud | joint" in report
    # Conversion from b is done by the model that parses b first (t = -inf), whatever t won on dev.
    assert "| ud (gold) | sud | joint t = -inf |" in report
    assert (out / "distance-sud.png").stat().st_size > 1000 and (out / "distance-ud.png").exists()
    # A rerun reuses the trained models; other options retrain them.
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "training" not in again.output
    other = CliRunner().invoke(main, args[:-3] + ["2", "--guide", "paper"])
    assert other.exit_code == 0 and "training the baseline" in other.output
    # The rich guide trains models of its own beside the paper's, and Table 3 sets the two side by side.
    rich = CliRunner().invoke(main, args + ["--guide", "rich"])
    assert rich.exit_code == 0, rich.output
    assert (out / "models" / "joint-t-inf-rich").is_dir() and "--guide rich" in (out / "report.md").read_text()
    assert ", the paper's guide |" in (out / "report.md").read_text()


@pytest.mark.slow
def test_consensus_experiment_writes_both_tables_for_both_parsers(tmp_path):
    from hetdep.experiments.consensus import Treebank, run_consensus_experiment
    from hetdep.learn.perceptron import TrainOptions

    ud, sud = list(read_conllu(SAMPLES / "train.ud.conllu")), list(read_conllu(SAMPLES / "train.sud.conllu"))
    a = Treebank("ud half", ud[:60], ud[60:70], ud[70:80])
    b = Treebank("sud half", sud[100:160], sud[160:170], sud[170:180])
    messages = []
    report = run_consensus_experiment("test", tmp_path, tmp_path / "out", options=TrainOptions(iterations=1), k=2, iterations=1,
                                      grid=(0.0, 1.0), treebanks=(a, b), log=messages.append)
    text = report.read_text(encoding="utf-8")
    for kind in ("dep1", "dep2"):
        for system in ("baseline", "+edge", "+root", "+sib", "+gp", "+all", "+learned",
                       "concatenation with per-treebank feature copies"):
            assert f"| {kind} {system}" in text
    assert "## Table 4" in text and "| dep2 +all | sud half |" in text
    # Table 5 sorts every wrong dev head of each baseline.
    for kind in ("dep1", "dep2"):
        row = re.search(rf"^\| {kind} \| ud half \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", text, re.M)
        assert row, f"Table 5 has a {kind} row"
        counts = [int(value) for value in row.groups()]
        assert counts[0] == sum(counts[1:]) > 0
    # Table 4's correct-head change agrees with Table 1's UAS (shown to two decimals).
    table1 = text[text.index("## Table 1"):text.index("## Table 4")]
    uas = {row.split(" | ")[0][2:]: float(row.split(" | ")[2]) for row in table1.splitlines() if row.startswith("| dep2 ")}
    change = re.search(r"^\| dep2 \+all \| sud half \|.* \| ([+-]\d+) of (\d+) \|$", text, re.M)
    assert change, "Table 4 gives the change in correct heads"
    gained, words = int(change.group(1)), int(change.group(2))
    assert abs(100 * gained / words - (uas["dep2 +all"] - uas["dep2 baseline"])) < 0.011
    assert sorted(p.name for p in (tmp_path / "out" / "models").iterdir()) == sorted(
        f"{kind}-{name}" for kind in ("dep1", "dep2")
        for name in ("a", "b", "a-helped", "b-helped", "concatenated", "concatenated-augmented"))
    trained = sum(message.startswith("training") for message in messages)
    run_consensus_experiment("test", tmp_path, tmp_path / "out", options=TrainOptions(iterations=1), k=2, iterations=1,
                             grid=(0.0, 1.0), treebanks=(a, b), log=messages.append)
    assert trained == 12 and sum(message.startswith("training") for message in messages) == 12  # the rerun reuses them
    assert len(json.loads((tmp_path / "out" / "tuned.json").read_text(encoding="utf-8"))) == 10  # and the tuned weights


def test_predicted_tags_experiment(tmp_path):
    folder = tiny_pair_treebank(tmp_path / "tiny")
    args = ["experiment", "predicted-tags", "--treebank", str(folder), "--out", str(tmp_path / "run"), "--beam", "2",
            "--iterations", "1", "--folds", "3", "--tagger-iterations", "2"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "jackknifing train in 3 folds" in result.output and "fold 3/3 tagged" in result.output
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert "| baseline |" in report and "| joint t = inf |" in report and "sign test p" in report
    assert "| baseline, lattice k = 3 |" in report and "| joint t = inf, lattice k = 3 |" in report
    assert "lattice against baseline" in report and "joint lattice against joint 1-best" in report
    tagged = list(read_conllu(tmp_path / "run" / "tagged" / "train.ud.conllu"))
    gold = list(read_conllu(folder / "train.ud.conllu"))
    assert [s.forms for s in tagged] == [s.forms for s in gold] and [s.heads for s in tagged] == [s.heads for s in gold]
    sud = list(read_conllu(tmp_path / "run" / "tagged" / "train.sud.conllu"))
    assert [s.column(3) for s in sud] == [s.column(3) for s in tagged]  # one tagging for both schemes
    assert [s.column(3) for s in tagged] != [s.column(3) for s in gold]  # two-iteration taggers make mistakes
    lattice = list(read_conllu(tmp_path / "run" / "tagged" / "train-lattice.ud.conllu"))
    assert [s.column(3) for s in lattice] == [s.column(3) for s in gold] and "TagKBest=" in lattice[0].column(9)[0]
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "jackknifing" not in again.output and "training" not in again.output
    predicted = CliRunner().invoke(main, [*args, "--lattice-reference", "predicted", "--lattice-weight", "2"])
    assert predicted.exit_code == 0, predicted.output
    assert [line for line in predicted.output.splitlines() if line.startswith("training")] == [
        "training the lattice parser of scheme sud", "training the lattice parser of scheme ud",
        "training the joint model, t = inf, over tag lattices"]  # the 1-best models are reused
    assert {"lattice-gold-sud", "lattice-predicted-ud", "joint-t+inf-lattice-predicted"} <= {
        p.name for p in (tmp_path / "run" / "models").iterdir()}
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert "--lattice-reference predicted --lattice-weight 2`" in report and "the tagger's best tags" in report


def test_predicted_tags_experiment_chooses_t_on_tagged_dev(tmp_path):
    folder = tiny_pair_treebank(tmp_path / "tiny")
    args = ["experiment", "predicted-tags", "--treebank", str(folder), "--out", str(tmp_path / "run"), "--beam", "2",
            "--iterations", "1", "--folds", "2", "--tagger-iterations", "1", "--lattice-k", "0", "--t=inf,-1"]
    trained = CliRunner().invoke(main, [*args, "--train-only"])
    assert trained.exit_code == 0, trained.output
    assert not (tmp_path / "run" / "report.md").exists()
    assert sorted(p.name for p in (tmp_path / "run" / "models").iterdir()) == [
        "baseline-sud", "baseline-ud", "joint-t+inf", "joint-t-1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0 and "training" not in result.output, result.output
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    assert "## Development set: choosing t" in report and "| joint t = inf |" in report and "| joint t = -1 |" in report
    best = report.split("Best t on tagged dev (mean UAS): **")[1].split("**")[0]
    assert best in ("inf", "-1") and report.count(f"| joint t = {best} |") == 2  # on dev, then on test


@pytest.mark.parametrize("command, option", [("joint", "--ts"), ("predicted-tags", "--t")])
@pytest.mark.parametrize("value, message", [(",", "no value of t"), ("inf,0", "t must not be 0")])
def test_experiments_refuse_bad_values_of_t_before_any_work(tmp_path, command, option, value, message):
    folder = tiny_pair_treebank(tmp_path / "tiny")
    result = CliRunner().invoke(main, ["experiment", command, "--treebank", str(folder), "--out", str(tmp_path / "run"),
                                       f"{option}={value}"])
    assert result.exit_code == 2 and message in result.output and not (tmp_path / "run").exists()


def test_cached_models_survive_new_training_options(tmp_path):
    from hetdep.experiments.common import cached_model
    from hetdep.learn.perceptron import TrainOptions

    directory = tmp_path / "m"
    directory.mkdir()
    old = {key: value for key, value in vars(TrainOptions()).items() if key != "dp"}  # trained before 'dp' existed
    (directory / "config.json").write_text(json.dumps({"training_options": old}), encoding="utf-8")
    messages = []
    loaded = cached_model(directory, TrainOptions(), lambda d: d, messages.append, "training", lambda: 1 / 0)
    assert loaded == directory and not messages
    (directory / "config.json").write_text(json.dumps({"training_options": {**old, "beam": 3}}), encoding="utf-8")
    with pytest.raises(ZeroDivisionError):  # other options: trained again
        cached_model(directory, TrainOptions(), lambda d: d, messages.append, "training", lambda: 1 / 0)


def test_a_cached_model_this_version_cannot_read_is_trained_again(tmp_path):
    from hetdep.experiments.common import cached_model
    from hetdep.learn.model_files import ModelFileError
    from hetdep.learn.perceptron import TrainOptions

    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps({"training_options": vars(TrainOptions())}), encoding="utf-8")

    def unreadable(_):
        raise ModelFileError("m: trained with other features")

    messages = []
    with pytest.raises(ZeroDivisionError):
        cached_model(directory, TrainOptions(), unreadable, messages.append, "training", lambda: 1 / 0)
    assert messages == ["retraining a cached model this hetdep cannot use: m: trained with other features", "training"]


@pytest.mark.slow
@needs_shared
def test_constituency_experiment_on_a_slice_of_the_wsj_sample(tmp_path):
    """Every table of the report, from a sample cut to its first three trees a file (the splits go by file)."""
    import re
    import zipfile

    source = SHARED_DATA / "en-wsj-sample" / "treebank.zip"
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(tmp_path / "treebank.zip", "w") as small:
        for name in sorted(n for n in archive.namelist() if n.endswith(".mrg")):
            text = archive.read(name).decode()
            trees = re.split(r"\n(?=\( ?\()", text.strip())
            small.writestr(name, "\n".join(trees[:3]) + "\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["experiment", "constituency", "--data", str(tmp_path), "--out", str(out), "--beam", "2",
                                       "--iterations", "1", "--dependency-iterations", "1", "--folds", "2"])
    assert result.exit_code == 0, result.output
    report = (out / "report.md").read_text()
    for row in ("| 1 |", "plain beam, gold tags", "DP beam, gold tags", "predicted tags (1-best)", "tag lattice (3 best tags)",
                "then Penn2Malt", "arc-standard, beam 64"):
        assert row in report, row
    assert (out / "dev-f1.png").is_file()
    for model in ("plain-gold-tags", "dp-gold-tags", "plain-predicted-tags", "lattice-predicted-tags", "arc-standard-penn2malt"):
        assert (out / "models" / model / "config.json").is_file(), model
    # --tagger: one more row, the predicted-tags parser reading the given model's tags (the models reused)
    converted = tmp_path / "all.conllu"
    assert CliRunner().invoke(main, ["convert", "--from", "ptb", "--rules", "penn2malt", str(tmp_path / "treebank.zip"),
                                     str(converted)]).exit_code == 0
    assert CliRunner().invoke(main, ["train-tagger", "--train", str(converted), "--column", "xpos", "--model",
                                     str(tmp_path / "tagger"), "--iterations", "2"]).exit_code == 0
    result = CliRunner().invoke(main, ["experiment", "constituency", "--data", str(tmp_path), "--out", str(out), "--beam", "2",
                                       "--iterations", "1", "--dependency-iterations", "1", "--folds", "2",
                                       "--tagger", str(tmp_path / "tagger")])
    assert result.exit_code == 0, result.output
    report = (out / "report.md").read_text()
    assert "training plain" not in result.output and f"predicted tags of {tmp_path / 'tagger'}" in report
    assert f"--tagger {tmp_path / 'tagger'}`" in report
    # --neural: a neural phrase-structure model's rows, its phrase structure and its own dependency head
    pytest.importorskip("torch", reason="training the neural parser needs PyTorch")
    assert CliRunner().invoke(main, ["train", "--parser", "constituency-neural", "--train", str(tmp_path / "treebank.zip"),
                                     "--dev", str(tmp_path / "treebank.zip"), "--model", str(tmp_path / "neural"),
                                     "--iterations", "1", "--final-epochs", "0", "--embeddings", "none", "--threads", "1",
                                     "--dependency", "penn2malt"]).exit_code == 0
    result = CliRunner().invoke(main, ["experiment", "constituency", "--data", str(tmp_path), "--out", str(out), "--beam", "2",
                                       "--iterations", "1", "--dependency-iterations", "1", "--folds", "2",
                                       "--neural", str(tmp_path / "neural")])
    assert result.exit_code == 0, result.output
    report = (out / "report.md").read_text()
    assert "| neural span parser neural, its own tags |" in report and "neural span parser neural's own dependency head" in report


def test_treebanks_experiment_trains_alone_and_together_and_tests_each_on_its_own(tmp_path):
    pytest.importorskip("torch", reason="the neural parser needs PyTorch")
    from hetdep.experiments.consensus import Treebank
    from hetdep.experiments.treebanks import run_treebanks_experiment
    from hetdep.neural.training import NeuralOptions

    ud, sud = list(read_conllu(SAMPLES / "train.ud.conllu")), list(read_conllu(SAMPLES / "train.sud.conllu"))
    a = Treebank("ud half", ud[:80], ud[80:100], ud[100:120])
    b = Treebank("sud half", sud[120:170], sud[170:185], sud[185:200])
    options = NeuralOptions(epochs=2, final_epochs=0, hidden=32, layers=1, threads=1)
    messages = []
    report = run_treebanks_experiment("fr-gsd", tmp_path, tmp_path / "out", options, log=messages.append, treebanks=(a, b))
    text = report.read_text(encoding="utf-8")
    assert messages == ["training alone-a", "training alone-b", "training together"]
    for name in ("ud half", "sud half"):
        row = re.search(rf"^\| {name} \| \d+ \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", text, re.M)
        assert row and all(0 <= float(value) <= 100 for value in row.groups())
    scores = json.loads((tmp_path / "out" / "scores.json").read_text(encoding="utf-8"))
    assert set(scores["significance"]) == {f"{name} {metric}" for name in ("ud half", "sud half") for metric in ("UAS", "LAS")}
    assert scores["scores"]["ud half"]["alone"]["LAS"] == float(re.search(r"^\| ud half \| \d+ \| [\d.]+ \| ([\d.]+)", text, re.M)[1])
    messages.clear()  # a rerun with the same options reuses every model
    run_treebanks_experiment("fr-gsd", tmp_path, tmp_path / "out", options, log=messages.append, treebanks=(a, b))
    assert messages == []
    other = Treebank("other sud", sud[:50], sud[50:65], sud[65:80])  # another setting's b: its models trained anew
    run_treebanks_experiment("fr-gsd", tmp_path, tmp_path / "out", options, log=messages.append, treebanks=(a, other))
    assert messages == ["training alone-b", "training together"]


def test_an_interrupted_training_stops_the_experiment_and_leaves_no_model_to_reuse(tmp_path):
    """A training cut short returns its best finished iteration (hetdep train writes that model):
    an experiment must not keep it as its model, nor go on to train the next."""
    from hetdep.experiments.common import cached_model
    from hetdep.learn.perceptron import TrainOptions, TrainResult

    def cut_short():
        return TrainResult(parser=None, best_iteration=1, interrupted=True)

    with pytest.raises(KeyboardInterrupt):
        cached_model(tmp_path / "baseline", TrainOptions(), lambda directory: directory, lambda line: None, "training",
                     cut_short)
    assert not (tmp_path / "baseline").exists()
