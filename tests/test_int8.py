"""The 8-bit forward pass (hetdep.neural.int8) against the float32 one, its reference: the shipped
French model compacted for int8 parses in int8 by default and in float32 on request, its LSTM
layers' outputs within 8-bit rounding of NumPy's, and every refusal of a damaged or unfit graph."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES

import hetdep
from hetdep.api.model import ModelWarning
from hetdep.cli import main
from hetdep.learn.model_config import ModelFileError
from hetdep.treebank.conllu import read_conllu

pytest.importorskip("onnxruntime", reason="the 8-bit forward pass runs in onnxruntime")
pytest.importorskip("onnx", reason="hetdep compact --precision int8 writes its graphs with onnx ('hetdep[int8]')")

from hetdep.neural import int8  # noqa: E402

SHIPPED = hetdep.__file__.replace("__init__.py", "samples/models/fr")
SENTENCES = list(read_conllu(SAMPLES / "dev.ud.conllu"))[:30]
needs_int8 = pytest.mark.skipif(int8.unavailable() is not None, reason=f"int8 cannot run here: {int8.unavailable()}")


@pytest.fixture(scope="module")
def compacted(tmp_path_factory):
    """The shipped French model compacted for int8 (its network already in 8 bits: the same rows)."""
    from hetdep.models.compact import compact_model

    return compact_model(SHIPPED, tmp_path_factory.mktemp("int8") / "fr8", precision="int8")


@needs_int8
def test_the_encoder_in_int8_is_the_float32_one_within_8_bit_rounding(compacted):
    from hetdep.neural.parser import NeuralParser

    parser = NeuralParser.load(compacted)
    network = parser.network
    batch = parser.encoder.batch([SENTENCES])
    want = network.encode(batch)
    int8.run_in_int8(parser, compacted)
    assert network.precision == "int8"
    got = network.encode(batch)
    assert got.shape == want.shape
    assert np.abs(got - want).mean() < 2e-3 and np.abs(got - want).max() < 0.25  # 4.6e-4 and 0.11 measured


@needs_int8
def test_the_runtime_s_float32_lstm_is_numpy_s_within_float32_rounding(compacted):
    """The encoder's first layer runs in the runtime's float32 LSTM: the gates reordered, the biases
    paired, the padded steps and the backward direction as NumPy's (and PyTorch's packed sequences)."""
    from hetdep.neural.parser import NeuralParser

    parser = NeuralParser.load(compacted)
    _, arrays = parser.network.lstm_arrays()
    [session] = int8.sessions(compacted, {"lstm32-400"}).values()
    batch = parser.encoder.batch([SENTENCES])
    x = np.random.default_rng(2).standard_normal(batch.words.shape + (parser.shape.input_dim,)).astype(np.float32)
    (out, last), (want, want_last) = int8.RuntimeLSTM(session, arrays, 0, False)(x, batch.lengths), parser.network._encoder[0](x, batch.lengths)
    np.testing.assert_allclose(out, want, atol=2e-5)
    np.testing.assert_allclose(last, want_last, atol=2e-5)


@needs_int8
def test_each_int8_lstm_layer_keeps_padding_and_last_states_as_numpy_s(compacted):
    from hetdep.neural.parser import NeuralParser

    parser = NeuralParser.load(compacted)
    batch = parser.encoder.batch([SENTENCES])
    int8.run_in_int8(parser, compacted)
    x = np.random.default_rng(1).standard_normal(batch.words.shape + (parser.shape.input_dim,)).astype(np.float32)
    for layer in parser.network._encoder:
        out, last = layer(x, batch.lengths)
        assert out.shape == x.shape[:2] + (2 * parser.shape.hidden,) and last.shape == (len(x), 2 * parser.shape.hidden)
        past = np.arange(out.shape[1])[None, :] >= batch.lengths[:, None]
        assert not out[past].any()  # nothing past a sentence's end, as NumPy's
        hidden = parser.shape.hidden  # the last states: the forward one after the last word, the backward one at the first
        np.testing.assert_array_equal(last[:, :hidden], out[np.arange(len(out)), batch.lengths - 1, :hidden])
        np.testing.assert_array_equal(last[:, hidden:], out[:, 0, hidden:])
        x = out


@needs_int8
def test_a_model_compacted_for_int8_parses_in_int8_by_default_and_in_float32_on_request(compacted):
    config = json.loads((compacted / "config.json").read_text(encoding="utf-8"))
    assert config["precision"] == "int8"
    assert sorted(path.name for path in (compacted / int8.GRAPHS).iterdir()) == ["lstm32-100.onnx", "lstm32-400.onnx", "lstm8-100.onnx",
                                                                            "lstm8-400.onnx", "matmul.onnx"]
    eight = hetdep.load(str(compacted))
    assert eight.precision == "int8" and not eight.warnings
    exact = hetdep.load(str(compacted), precision="float32")
    shipped = hetdep.load("fr", precision="float32")  # the shipped model compacted again: the same rows
    text = " ".join(" ".join(sentence.forms) for sentence in SENTENCES[:12])
    assert exact.precision == "float32"
    assert exact(text).to_conllu() == shipped(text).to_conllu()
    assert len(eight(text).sentences) == len(shipped(text).sentences)


@needs_int8
def test_a_short_input_of_a_command_is_parsed_in_float32_unless_int8_is_asked_for(compacted):
    """The runtime's start-up costs more than int8 saves on one sentence (hetdep parse of a short file)."""
    from hetdep.models.opening import open_models
    from hetdep.models.parsing import ParseChoice

    assert open_models(compacted, ParseChoice(short=True)).parser.network.precision == "float32"
    assert open_models(compacted, ParseChoice(short=True, precision="int8")).parser.network.precision == "int8"
    assert open_models(compacted, ParseChoice()).parser.network.precision == "int8"


@needs_int8
def test_a_dask_worker_opens_the_model_in_int8_its_threads_sharing_the_runtime(compacted):
    from hetdep.models.opening import ParseJob
    from hetdep.models.parsing import ParseChoice

    worker = ParseJob(str(compacted), ParseChoice()).open(threads=2)
    assert worker.parser.network.precision == "int8" and worker.parser.threads == 2
    sentences = SENTENCES[:6]
    assert [tree.to_text() for tree, _ in worker.parser.parse(sentences)] == [
        tree.to_text() for tree, _ in ParseJob(str(compacted), ParseChoice()).open(threads=1).parser.parse(sentences)]


def test_where_int8_cannot_run_the_model_parses_in_float32_and_says_why(compacted, monkeypatch):
    monkeypatch.setattr(int8, "unavailable", lambda: "this CPU has no dense 8-bit products (avx512vnni or avxvnni)")
    with pytest.warns(ModelWarning) as said:
        opened = hetdep.load(str(compacted))
    assert opened.precision == "float32" and len(said) == 1
    assert opened.warnings == (f"{compacted} parses in float32, not int8: this CPU has no dense 8-bit "
                               "products (avx512vnni or avxvnni)",)


@needs_int8
@pytest.mark.parametrize("damage, message", [
    (lambda folder: (folder / int8.GRAPHS / "lstm8-400.onnx").unlink(), "lstm8-400.onnx: missing"),
    (lambda folder: (folder / int8.GRAPHS / "lstm32-400.onnx").write_bytes(b"\x08\x07garbage"), "lstm32-400.onnx: not a graph"),
    (lambda folder: (folder / int8.GRAPHS / "lstm8-100.onnx").write_bytes(
        (folder / int8.GRAPHS / "lstm8-400.onnx").read_bytes()), "lstm8-100.onnx: not hetdep's graph lstm8-100"),
])
def test_a_damaged_graph_is_refused_in_one_line_naming_the_file(compacted, tmp_path, damage, message):
    import shutil

    folder = tmp_path / "m"
    shutil.copytree(compacted, folder)
    damage(folder)
    with pytest.raises(ModelFileError) as refused:
        hetdep.load(str(folder))
    assert message in str(refused.value) and "\n" not in str(refused.value)


@needs_int8
def test_the_command_line_parses_in_either_precision_and_compacts_for_one(compacted, tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("Le chat dort sur le canapé. Il pleut depuis ce matin sur la ville.\n", encoding="utf-8")
    runner = CliRunner()
    outputs = {}
    for precision in ("int8", "float32"):
        out = tmp_path / f"{precision}.conllu"
        result = runner.invoke(main, ["parse", "--model", str(compacted), "--precision", precision, "--input", str(text),
                                      "--output", str(out)])
        assert result.exit_code == 0, result.output
        outputs[precision] = out.read_text(encoding="utf-8")
    assert outputs["int8"].count("# text") == outputs["float32"].count("# text") == 2
    back = tmp_path / "back"
    result = runner.invoke(main, ["compact", str(compacted), "--output", str(back), "--precision", "float32"])
    assert result.exit_code == 0, result.output
    assert not (back / int8.GRAPHS).exists() and json.loads((back / "config.json").read_text())["precision"] == "float32"
    assert "arithmetic: int8 products through onnxruntime" in runner.invoke(main, ["info", str(compacted)]).output
    assert "arithmetic: float32 (NumPy)" in runner.invoke(main, ["info", str(back)]).output


@needs_int8
def test_int8_first_layer_runs_the_encoder_s_first_layer_in_8_bits_too(compacted, tmp_path):
    """compact --int8-first-layer: every encoder layer in the runtime's 8-bit LSTM; its states
    within 8-bit rounding of float32's; compacted again without the flag, the first layer float32."""
    runner = CliRunner()
    refused = runner.invoke(main, ["compact", str(compacted), "--output", str(tmp_path / "no"), "--int8-first-layer"])
    assert refused.exit_code == 2 and "--int8-first-layer is for --precision int8" in refused.output
    assert not (tmp_path / "no").exists()
    every = tmp_path / "every"
    result = runner.invoke(main, ["compact", str(compacted), "--output", str(every), "--precision", "int8", "--int8-first-layer"])
    assert result.exit_code == 0, result.output
    again = tmp_path / "again"
    assert runner.invoke(main, ["compact", str(every), "--output", str(again), "--precision", "int8"]).exit_code == 0
    parsers = {name: hetdep.load(str(folder), precision=precision)._models.parser
               for name, folder, precision in [("every", every, "int8"), ("again", again, "int8"), ("exact", every, "float32")]}
    assert ["W_scale" in layer.feeds for layer in parsers["every"].network._encoder] == [True, True]
    assert ["W_scale" in layer.feeds for layer in parsers["again"].network._encoder] == [False, True]
    batch = parsers["exact"].encoder.batch([SENTENCES[:8]])
    want = parsers["exact"].network.encode(batch)
    off_every, off_again = (np.abs(parsers[name].network.encode(batch) - want) for name in ("every", "again"))
    assert off_every.max() < 0.1 and off_again.mean() < off_every.mean() < 2e-3  # one more layer's 8-bit rounding
    assert len(list(parsers["every"].parse(SENTENCES[:5]))) == 5
    assert "(every encoder layer in int8;" in runner.invoke(main, ["info", str(every)]).output
    assert "(the encoder's first layer in float32;" in runner.invoke(main, ["info", str(again)]).output


@needs_int8
def test_the_pretrained_scale_leaves_the_first_layer_as_it_is_and_is_kept_by_compact(compacted, tmp_path):
    """compact --int8-pretrained-scale: the pretrained vectors' share of the 8-bit first layer's
    input multiplied by it and that layer's weights of them divided by it (in float32 the same layer,
    within rounding); recorded in the model and read when it parses in int8; refused without
    --int8-first-layer."""
    from hetdep.neural.parser import NeuralParser

    runner = CliRunner()
    refused = runner.invoke(main, ["compact", str(compacted), "--output", str(tmp_path / "no"), "--precision", "int8",
                                   "--int8-pretrained-scale", "0.5"])
    assert refused.exit_code == 2 and "--int8-pretrained-scale is for --int8-first-layer" in refused.output
    scaled = tmp_path / "scaled"
    result = runner.invoke(main, ["compact", str(compacted), "--output", str(scaled), "--precision", "int8",
                                  "--int8-first-layer", "--int8-pretrained-scale", "0.33"])
    assert result.exit_code == 0, result.output
    parser = NeuralParser.load(scaled)
    assert parser.record[int8.INT8_PRETRAINED_SCALE] == 0.33
    arrays = parser.network.arrays
    start = arrays["words.weight"].shape[1] + arrays["chars.out.weight"].shape[0]
    scale = int8.first_layer_scale(arrays, 0.33)
    assert np.flatnonzero(scale != 1).tolist() == list(range(start, start + arrays["pretrained.weight"].shape[1]))
    assert int8.first_layer_scale(arrays, 1.0) is None
    _, lstm = parser.network.lstm_arrays()
    [session] = int8.sessions(scaled, {"lstm32-400"}).values()
    batch = parser.encoder.batch([SENTENCES])
    x = np.random.default_rng(3).standard_normal(batch.words.shape + (parser.shape.input_dim,)).astype(np.float32)
    (out, last), (want, want_last) = (int8.RuntimeLSTM(session, lstm, 0, False, given)(x, batch.lengths) for given in (scale, None))
    np.testing.assert_allclose(out, want, atol=1e-4)
    np.testing.assert_allclose(last, want_last, atol=1e-4)
    layers = hetdep.load(str(scaled), precision="int8")._models.parser.network._encoder
    assert [layer.input_scale is not None for layer in layers] == [True, False]


def test_precision_is_refused_for_a_model_that_is_not_neural(saved, tmp_path):
    refused = CliRunner().invoke(main, ["compact", str(saved / "arc"), "--output", str(tmp_path / "c"), "--precision", "int8"])
    assert refused.exit_code == 2 and f"{saved / 'arc'} has no neural network: --precision is for neural models" in refused.output
    assert not (tmp_path / "c").exists()
    result = CliRunner().invoke(main, ["parse", "--model", str(saved / "arc"), "--precision", "int8",
                                       "--input", str(SAMPLES / "dev.ud.conllu"), "--output", str(tmp_path / "o")])
    assert result.exit_code == 2 and "--precision is for neural models" in result.output
    assert not (tmp_path / "o").exists()
