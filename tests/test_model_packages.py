"""Models to ship and install: the shipped model parses with no model named, ``hetdep compact``
keeps a perceptron model's parses exactly, ``hetdep package`` builds a wheel pip installs and
hetdep then finds by name; broken, foreign-version and unknown models are one clear line."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

import pytest
from click.testing import CliRunner
from conftest import SAMPLES

import hetdep
from hetdep.cli import main
from hetdep.errors import HetdepError
from hetdep.models import names
from hetdep.models.packaging import build_wheel

PARAGRAPH = SAMPLES.parent / "text" / "fr-paragraph.txt"


def _install(wheel, target):
    """pip's own install of the wheel into a folder (offline, no dependencies)."""
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target),
                    str(wheel)], check=True)


@pytest.fixture(scope="module")
def installed(pipeline_model, tmp_path_factory):
    """The sample pipeline model packaged as 'toy-fr', installed by pip into a folder of its own."""
    folder = tmp_path_factory.mktemp("wheels")
    wheel = build_wheel(pipeline_model, "toy-fr", folder / "dist" / "new", version="2.1", summary="A toy French model")  # folders made
    target = folder / "site"
    _install(wheel, target)
    return wheel, target


def test_the_wheel_holds_the_model_and_announces_it(installed, pipeline_model):
    wheel, _ = installed
    assert wheel.name == "hetdep_model_toy_fr-2.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        files = set(archive.namelist())
        entry_points = archive.read("hetdep_model_toy_fr-2.1.dist-info/entry_points.txt").decode()
        assert "Summary: A toy French model\n" in archive.read("hetdep_model_toy_fr-2.1.dist-info/METADATA").decode()
        assert archive.read("hetdep_model_toy_fr/model/config.json") == (pipeline_model / "config.json").read_bytes()
    assert "[hetdep.models]\ntoy-fr = hetdep_model_toy_fr" in entry_points
    assert {"hetdep_model_toy_fr/__init__.py", "hetdep_model_toy_fr-2.1.dist-info/RECORD",
            "hetdep_model_toy_fr/model/tokenizer/weights.npz"} <= files


def test_an_installed_package_loads_by_name_in_a_fresh_process(installed, pipeline_model):
    _, target = installed
    script = ("import hetdep; nlp = hetdep.load('toy-fr'); doc = nlp('Le chat dort.'); "
              "print(nlp.path.parent.name, len(doc.sentences[0].words))")
    done = subprocess.run([sys.executable, "-c", script], env={"PYTHONPATH": str(target), "PATH": ""},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["hetdep_model_toy_fr", "4"]


def test_models_lists_them_and_parse_takes_a_name(installed, monkeypatch, tmp_path):
    _, target = installed
    monkeypatch.syspath_prepend(str(target))
    listed = CliRunner().invoke(main, ["models"])
    assert listed.exit_code == 0
    assert "toy-fr\thetdep-model-toy-fr 2.1\t" in listed.output
    assert listed.output.startswith(f"{names.SHIPPED_NAME}\tshipped with hetdep\t")
    out = tmp_path / "out.conllu"
    parsed = CliRunner().invoke(main, ["parse", "--model", "toy-fr", "--input", str(PARAGRAPH), "--output", str(out),
                                       "--scheme", "ud"])
    assert parsed.exit_code == 0, parsed.output
    assert out.read_text(encoding="utf-8").count("# text") >= 2


def test_the_shipped_model_answers_to_its_name_and_its_former_one():
    assert names.find_model("fr") == names.find_model("fr-sequoia") == names.find_model(None) == names.shipped_model_path()
    assert [model.name for model in names.shipped_models()][0] == names.SHIPPED_NAME


def test_each_shipped_model_answers_to_its_language():
    for model in names.shipped_models():
        assert names.find_model(model.name) == model.path == names.shipped_model_path(model.name)
        assert (model.path / "README.md").is_file()


def test_an_unknown_name_lists_the_installed_models(installed, monkeypatch):
    monkeypatch.syspath_prepend(str(installed[1]))
    result = CliRunner().invoke(main, ["info", "no-such-model"])
    assert result.exit_code == 2
    assert result.output.strip() == (f"hetdep: error: no model directory or installed model named 'no-such-model'; "
                                     f"installed: {', '.join(m.name for m in names.shipped_models())}, toy-fr")


def test_a_package_of_another_hetdep_version_is_one_line(pipeline_model, monkeypatch, tmp_path):
    monkeypatch.setattr(hetdep, "__version__", "0.9.0")
    wheel = build_wheel(pipeline_model, "old-fr", tmp_path)
    monkeypatch.undo()
    _install(wheel, tmp_path / "site")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    with pytest.raises(HetdepError, match=r"^model package 'old-fr' \(hetdep-model-old-fr 1\.0\.0\) was built for hetdep "
                                          rf"0\.9\.0, and this is hetdep {hetdep.__version__}: install"):
        hetdep.load("old-fr")


def test_a_broken_package_is_one_line(monkeypatch, tmp_path):
    """A package whose module fails on import, and one whose model folder is gone."""
    for name, body in [("broken", "raise RuntimeError('half-installed')\n"),
                       ("empty", f"from pathlib import Path\nMODEL = Path('{tmp_path}/nowhere')\nHETDEP_VERSION = '{hetdep.__version__}'\n")]:
        module = f"hetdep_model_{name}"
        (tmp_path / module).mkdir()
        (tmp_path / module / "__init__.py").write_text(body)
        info = tmp_path / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: hetdep-model-{name}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[hetdep.models]\n{name} = {module}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(HetdepError, match=r"^model package 'broken' \(hetdep-model-broken 1\.0\) is broken "
                                          r"\(RuntimeError: half-installed\): reinstall it$"):
        hetdep.load("broken")
    with pytest.raises(HetdepError, match=r"^model package 'empty' .* is broken: .*nowhere holds no model"):
        names.find_model("empty")
    result = CliRunner().invoke(main, ["models"])
    assert result.exit_code == 2 and "is broken" in result.output and "Traceback" not in result.output


def test_package_refuses_bad_names_versions_and_models(pipeline_model, tmp_path):
    for options, message in [(["--name", "Toy_FR"], "a model's name is lower-case letters"),
                             (["--name", names.SHIPPED_NAME], "is a model shipped with hetdep"),
                             (["--name", "fr-sequoia"], "is a model shipped with hetdep"),  # its former name
                             (["--name", "toy", "--version", "one"], "is not a version number")]:
        result = CliRunner().invoke(main, ["package", str(pipeline_model), "--output", str(tmp_path), *options])
        assert result.exit_code == 2 and message in result.output, result.output
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "config.json").write_text("{")
    result = CliRunner().invoke(main, ["package", str(tmp_path / "damaged"), "--name", "toy", "--output", str(tmp_path)])
    assert result.exit_code == 2 and "damaged model configuration" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged"]  # no wheel, no staging folder left


@pytest.mark.parametrize("command", [["compact"], ["package", "--name", "toy"]])
@pytest.mark.parametrize("inside", [".", "new", "tokenizer"])
def test_an_output_inside_the_model_is_refused(command, inside, pipeline_model, tmp_path):
    model = tmp_path / "model"
    shutil.copytree(pipeline_model, model)
    before = sorted(p.relative_to(model) for p in model.rglob("*"))
    result = CliRunner().invoke(main, [command[0], str(model), *command[1:], "--output", str(model / inside)])
    assert result.exit_code == 2 and "is inside the model" in result.output and "Traceback" not in result.output
    assert sorted(p.relative_to(model) for p in model.rglob("*")) == before


def test_compact_keeps_a_perceptron_models_parses_exactly(pipeline_model, tmp_path):
    result = CliRunner().invoke(main, ["compact", str(pipeline_model), "--output", str(tmp_path / "small")])
    assert result.exit_code == 0, result.output
    size = lambda folder: sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())  # noqa: E731
    assert size(tmp_path / "small") < 0.8 * size(pipeline_model)
    outputs = []
    for model in (pipeline_model, tmp_path / "small"):
        out = tmp_path / f"{model.name}.conllu"
        done = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(PARAGRAPH), "--output", str(out),
                                         "--scheme", "both"])
        assert done.exit_code == 0, done.output
        outputs.append(out.read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1]
    again = CliRunner().invoke(main, ["compact", str(pipeline_model), "--output", str(tmp_path / "small")])
    assert again.exit_code == 2 and "exists" in again.output


def test_compact_prunes_the_taggers_when_asked(pipeline_model, tmp_path):
    size = lambda folder: sum(p.stat().st_size for p in (folder / "tagger").rglob("*") if p.is_file())  # noqa: E731
    for share in ("0", "0.5"):
        result = CliRunner().invoke(main, ["compact", str(pipeline_model), "--output", str(tmp_path / share), "--prune", share])
        assert result.exit_code == 0, result.output
    assert size(tmp_path / "0.5") < 0.8 * size(tmp_path / "0")
    out = tmp_path / "pruned.conllu"
    done = CliRunner().invoke(main, ["parse", "--model", str(tmp_path / "0.5"), "--input", str(PARAGRAPH), "--output", str(out)])
    assert done.exit_code == 0 and out.read_text(encoding="utf-8").count("# text") >= 2, done.output
    refused = CliRunner().invoke(main, ["compact", str(pipeline_model), "--output", str(tmp_path / "all"), "--prune", "1"])
    assert refused.exit_code == 2 and "--prune" in refused.output and not (tmp_path / "all").exists()


def test_compact_leaves_the_taggers_named_unpruned_whole(pipeline_model, tmp_path):
    taggers = sorted(p.parent.relative_to(pipeline_model).as_posix() for p in (pipeline_model / "tagger").glob("*/config.json"))
    assert taggers, "the sample model has taggers to prune"
    kept = taggers[0]
    weights = lambda model, part: (model / part / "weights.npz").read_bytes()  # noqa: E731
    for name, options in (("whole", []), ("pruned", ["--prune", "0.5"]), ("kept", ["--prune", "0.5", "--unpruned", kept])):
        result = CliRunner().invoke(main, ["compact", str(pipeline_model), "--output", str(tmp_path / name), *options])
        assert result.exit_code == 0, result.output
    assert weights(tmp_path / "kept", kept) == weights(tmp_path / "whole", kept) != weights(tmp_path / "pruned", kept)
    for other in taggers[1:]:
        assert weights(tmp_path / "kept", other) == weights(tmp_path / "pruned", other)
    for wrong in ("tokenizer", "../model", "tagger/none"):
        refused = CliRunner().invoke(main, ["compact", str(pipeline_model), "--output", str(tmp_path / "wrong"),
                                            "--prune", "0.5", "--unpruned", wrong])
        assert refused.exit_code == 2 and f"--unpruned {wrong}: not a tagger's folder" in refused.output, refused.output
        assert not (tmp_path / "wrong").exists()


def test_the_shipped_model_parses_when_no_model_is_named(tmp_path):
    pytest.importorskip("torch", reason="the shipped model is a neural one: it needs PyTorch ('hetdep[neural]')")
    shipped = names.find_model(None)
    assert shipped == names.shipped_model_path() and (shipped / "README.md").is_file()
    every = names.shipped_model_path().parent
    assert sum(p.stat().st_size for p in every.rglob("*") if p.is_file()) < 50e6  # bench/build_shipped_model.py's LIMIT_MB
    nlp = hetdep.load()
    assert nlp.schemes == ("sud", "ud")
    doc = nlp("Le conseil municipal s'est réuni hier soir. Les élus ont voté le budget.")
    assert len(doc.sentences) == 2
    words = {w.form: w for w in doc.sentences[0].words}
    assert (words["réuni"].lemma, words["réuni"].upos, words["est"].deprel["sud"]) == ("réunir", "VERB", "root")
    out, out_b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    done = CliRunner().invoke(main, ["parse", "--input", str(PARAGRAPH), "--output", str(out), "--output-b", str(out_b)])
    assert done.exit_code == 0, done.output
    assert out.read_text(encoding="utf-8").count("# text") == out_b.read_text(encoding="utf-8").count("# text") >= 2


@pytest.mark.parametrize("entry", ["parse", "tokenize", "api"])
def test_the_last_full_stop_is_a_word_without_a_final_newline(entry, tmp_path):
    pytest.importorskip("torch", reason="the shipped model is a neural one: it needs PyTorch ('hetdep[neural]')")
    text = "Il est allé à Paris."
    if entry == "api":
        forms = [w.form for w in hetdep.load()(text).sentences[-1].words]
    else:
        source, out = tmp_path / "text.txt", tmp_path / "out.conllu"
        source.write_bytes(text.encode("utf-8"))
        done = CliRunner().invoke(main, [entry, "--input", str(source), "--output", str(out)])
        assert done.exit_code == 0, done.output
        forms = [line.split("\t")[1] for line in out.read_text(encoding="utf-8").splitlines() if line[:1].isdigit()]
    assert forms[-2:] == ["Paris", "."]


def test_the_english_model_parses_english_by_its_name(tmp_path):
    pytest.importorskip("torch", reason="the shipped models are neural ones: they need PyTorch ('hetdep[neural]')")
    assert "en" in [model.name for model in names.shipped_models()]
    nlp = hetdep.load("en")
    assert nlp.schemes == ("ud", "sud")
    doc = nlp("The committee met on Tuesday. Most members agreed with the plan")
    assert [len(sentence.words) for sentence in doc.sentences] == [6, 6]
    words = {w.form: w for w in doc.sentences[0].words}
    assert (words["met"].lemma, words["met"].upos, words["met"].deprel["ud"]) == ("meet", "VERB", "root")
    assert words["committee"].deprel["ud"] == "nsubj" and doc.warnings == ()
    text, out = tmp_path / "en.txt", tmp_path / "en.conllu"
    text.write_text("The cat sleeps on the sofa.", encoding="utf-8")
    done = CliRunner().invoke(main, ["parse", "--model", "en", "--input", str(text), "--output", str(out)])
    assert done.exit_code == 0 and "look like another language" not in done.output, done.output
    assert [line.split("\t")[7] for line in out.read_text(encoding="utf-8").splitlines() if line[:1].isdigit()][2] == "root"


def test_serve_serves_every_shipped_model_by_default(monkeypatch):
    import uvicorn

    import hetdep.service.app as service

    served, precisions = {}, []
    monkeypatch.setattr(service, "create_app", lambda models, limits, precision: served.update(models) or precisions.append(precision))
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: None)
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 0, result.output
    assert list(served) == [model.name for model in names.shipped_models()] and list(served)[0] == names.SHIPPED_NAME
    assert all(served[model.name] == str(model.path) for model in names.shipped_models())
    assert CliRunner().invoke(main, ["serve", "--precision", "float32"]).exit_code == 0
    assert precisions == [None, "float32"]  # each model's own by default, else the one asked for
