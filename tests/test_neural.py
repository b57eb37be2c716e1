"""The neural parser: it learns, saves and loads the same parses, is deterministic, fits the product
(command line, API, info), and refuses damaged files in one line. Small networks: the accuracy on
the real treebanks is bench/neural.py's."""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil
import warnings
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES, torch_network
from hypothesis import given
from hypothesis import strategies as st

import hetdep
from hetdep.cli import main
from hetdep.treebank.conllu import read_conllu

torch = pytest.importorskip("torch", reason="the neural parser needs PyTorch ('hetdep[neural]')")

from hetdep.evaluation.attachment import evaluate  # noqa: E402
from hetdep.learn.model_config import ModelFileError  # noqa: E402
from hetdep.learn.model_files import file_sha256  # noqa: E402
from hetdep.learn.vocab import ParseStats  # noqa: E402
from hetdep.neural.data import Encoder, Vocabularies, batches_by_length  # noqa: E402
from hetdep.neural.parser import NeuralParser  # noqa: E402
from hetdep.neural.training import FINAL_RATE, NeuralOptions, train_neural  # noqa: E402

SMALL = NeuralOptions(epochs=6, hidden=48, layers=1, threads=1, batch_words=300)


def _pair(split: str, count: int | None = None) -> list[list]:
    return [list(read_conllu(SAMPLES / f"{split}.{scheme}.conllu"))[:count] for scheme in ("sud", "ud")]


@pytest.fixture(scope="module")
def joint_result():
    return train_neural(_pair("train"), _pair("dev", 60), SMALL)


def test_a_joint_model_learns_both_schemes_and_tags(joint_result):
    first, best = joint_result.history[0], joint_result.history[joint_result.best_iteration - 1]
    assert best.dev_las > first.dev_las + 5  # it learns (200 training sentences: far from bench figures)
    assert set(best.dev_detail) >= {"UAS_a", "LAS_a", "UAS_b", "LAS_b", "UPOS"}
    pairs = list(joint_result.parser.parse(_pair("dev", 60)[0]))
    assert all(len(pair) == 2 and len(pair[0]) == len(pair[1]) for pair in pairs)
    sud = evaluate(_pair("dev", 60)[0], [pair[0] for pair in pairs])
    assert abs(sud.las - best.dev_detail["LAS_a"]) < 0.01
    assert all(tag != "_" for pair in pairs for tag in pair[0].upos)


def test_every_tree_is_a_tree_with_one_root(joint_result):
    for pair in joint_result.parser.parse(_pair("dev")[1]):
        for tree in pair:
            heads = tree.heads
            assert sum(h == 0 for h in heads) == 1
            for start in range(1, len(heads) + 1):  # every word reaches the root
                seen, node = set(), start
                while node != 0:
                    assert node not in seen
                    seen.add(node)
                    node = heads[node - 1]


def test_saved_and_loaded_it_parses_the_same(joint_result, tmp_path):
    joint_result.parser.save(tmp_path / "m")
    loaded = NeuralParser.load(tmp_path / "m")
    sentences = _pair("dev", 40)[0]
    assert ([tuple(t.to_text() for t in pair) for pair in loaded.parse(sentences)]
            == [tuple(t.to_text() for t in pair) for pair in joint_result.parser.parse(sentences)])


def test_weights_that_barely_deflate_are_stored_as_they_are_and_read_back_the_same(tmp_path):
    """Deflating random float32 weights saves a few percent and inflating them costs loading time:
    they are stored; arrays that shrink (zeros, the pretrained forms) and small ones are deflated."""
    from hetdep.learn.model_files import write_arrays

    arrays = {"weights": np.random.default_rng(1).normal(size=(300, 200)).astype(np.float32),
              "zeros": np.zeros((300, 200), dtype=np.float32), "bias": np.ones(16, dtype=np.float32),
              "forms": np.frombuffer(b"chat\nchien\n" * 2000, dtype=np.uint8)}
    write_arrays(tmp_path / "weights.npz", arrays)
    with zipfile.ZipFile(tmp_path / "weights.npz") as archive:
        methods = {member.filename.removesuffix(".npy"): member.compress_type for member in archive.infolist()}
    assert methods == {"weights": zipfile.ZIP_STORED, "zeros": zipfile.ZIP_DEFLATED, "bias": zipfile.ZIP_DEFLATED,
                       "forms": zipfile.ZIP_DEFLATED}
    with np.load(tmp_path / "weights.npz") as read:
        assert all(np.array_equal(read[name], array) for name, array in arrays.items())


def test_quantized_it_is_a_quarter_the_size_and_parses_nearly_the_same(joint_result, tmp_path):
    """8-bit weights with a scale per row: each weight within half a step of its float, the file
    far smaller, and the trees nearly all the same."""

    joint_result.parser.save(tmp_path / "full")
    joint_result.parser.save(tmp_path / "small", quantize=True)
    config = json.loads((tmp_path / "small" / "config.json").read_text(encoding="utf-8"))
    assert "encoder.weight_ih_l0" in config["quantized"] and "encoder.bias_ih_l0" not in config["quantized"]
    with zipfile.ZipFile(tmp_path / "small" / "weights.npz") as archive:  # the 8-bit arrays stored as they are, read faster
        methods = {member.filename.removesuffix(".npy"): member.compress_type for member in archive.infolist()}
    assert set(config["quantized"]) <= {name for name, method in methods.items() if method == zipfile.ZIP_STORED}
    with np.load(tmp_path / "small" / "weights.npz") as arrays:
        assert arrays["encoder.weight_ih_l0"].dtype == np.int8
        steps = arrays["encoder.weight_ih_l0.scale"]
    size = lambda name: (tmp_path / name / "weights.npz").stat().st_size  # noqa: E731
    assert size("small") < 0.4 * size("full")
    loaded = NeuralParser.load(tmp_path / "small")
    original = joint_result.parser.arrays["encoder.weight_ih_l0"]
    restored = loaded.arrays["encoder.weight_ih_l0"]
    assert np.all(np.abs(original - restored) <= steps[:, None] / 2 + 1e-7)
    sentences = _pair("dev")[0]
    same = total = 0
    for a, b in zip(loaded.parse(sentences), joint_result.parser.parse(sentences)):
        for tree_a, tree_b in zip(a, b):
            same += sum(x == y for x, y in zip(tree_a.heads, tree_b.heads))
            total += len(tree_a)
    assert same / total > 0.97


@given(st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_weights_dequantized_transposed_are_the_same_numbers_laid_out_for_their_transpose(rows, columns, seed):
    from pathlib import Path

    from hetdep.neural.quantized import dequantized, quantized

    weights = np.random.default_rng(seed).normal(size=(rows, columns)).astype(np.float32)
    weights[0] = 0  # a row of zeros, scale 0
    values, scale = quantized(weights)
    plain, transposed = (dequantized(values, scale, Path("w.npz"), transposed=flag) for flag in (False, True))
    assert np.array_equal(plain, transposed) and transposed.dtype == np.float32 and transposed.T.flags.c_contiguous


def _quantized_with(result, directory, change) -> None:
    """The model saved quantized, ``change`` made to its arrays, and the digest made to match."""
    result.parser.save(directory, quantize=True)
    with np.load(directory / "weights.npz") as archive:
        arrays = {name: archive[name].copy() for name in archive.files}
    change(arrays)
    np.savez(directory / "weights.npz", **arrays)
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    config["weights_sha256"] = file_sha256(directory / "weights.npz")
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")


def test_a_quantized_array_that_does_not_fit_its_scales_is_refused(joint_result, tmp_path):
    _quantized_with(joint_result, tmp_path / "m", lambda arrays: arrays.update(
        {"encoder.weight_ih_l0.scale": arrays["encoder.weight_ih_l0.scale"][:-1]}))
    with pytest.raises(ModelFileError, match="a quantized array and its scales do not fit"):
        NeuralParser.load(tmp_path / "m")


def test_the_numpy_forward_pass_is_the_pytorch_networks(joint_result):
    """Parsing runs the network in NumPy (hetdep.neural.inference): the same numbers as the
    PyTorch network that was trained, within float32 rounding; the shapes it checks files
    against are the network's."""

    parser = joint_result.parser
    network = torch_network(parser)
    batch = parser.encoder.batch([_pair("dev", 40)[0]])
    tensors = batch.tensors()
    with torch.inference_mode():
        encoded = network.encode(tensors)
        arcs = [head.arc_scores(encoded).log_softmax(-1).double().numpy() for head in network.schemes]
        tags = network.taggers[0](encoded).log_softmax(-1).double().numpy()
        heads = torch.from_numpy(np.zeros(batch.words.shape, dtype=np.int64))
        labels = network.schemes[1].label_scores(encoded, heads).argmax(-1).numpy()
    mine = parser.network.encode(batch)
    assert np.abs(mine - encoded.numpy()).max() < 1e-4
    for scheme in range(2):
        assert np.abs(parser.network.arc_scores(mine, scheme) - arcs[scheme]).max() < 1e-3
    valid = np.arange(batch.words.shape[1])[None, :] < batch.lengths[:, None]
    assert np.abs(parser.network.tags(mine)[0] - tags)[valid].max() < 1e-3
    assert (parser.network.labels(mine, 1, heads.numpy()) == labels)[valid].mean() > 0.99


def test_the_padded_lstm_reads_each_sentence_as_a_packed_one_does():
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    from hetdep.neural.network import PaddedLSTM

    torch.manual_seed(0)
    padded = PaddedLSTM(7, 5, num_layers=2).eval()
    packed = torch.nn.LSTM(7, 5, num_layers=2, batch_first=True, bidirectional=True)
    packed.load_state_dict(padded.state_dict())
    x, lengths = torch.randn(4, 6, 7), torch.tensor([6, 1, 3, 5])
    expected, _ = pad_packed_sequence(packed(pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False))[0],
                                      batch_first=True)
    assert torch.allclose(padded(x, lengths), expected, atol=1e-6)


def test_a_saved_model_parses_without_pytorch(joint_result, tmp_path):
    import subprocess
    import sys

    joint_result.parser.save(tmp_path / "m")
    script = ("import sys; sys.modules['torch'] = None\n"  # import torch now fails
              "from hetdep.neural.parser import NeuralParser\n"
              "from hetdep.treebank.conllu import read_conllu\n"
              f"parser = NeuralParser.load({str(tmp_path / 'm')!r})\n"
              f"for pair in parser.parse(read_conllu({str(SAMPLES / 'dev.ud.conllu')!r})): print(pair[1].to_text(), end='')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = "".join(pair[1].to_text() for pair in joint_result.parser.parse(read_conllu(SAMPLES / "dev.ud.conllu")))
    assert done.stdout == expected


def test_a_small_input_of_hetdep_parse_is_decoded_without_numba_into_the_same_trees(joint_result, tmp_path):
    """hetdep parse lets a whole input of few sentences be decoded by whole-array Eisner: numba,
    about a second to load, is never imported, and the trees are the compiled decoder's."""
    import subprocess
    import sys

    joint_result.parser.save(tmp_path / "m")
    script = ("import sys\nfrom hetdep.short_runs import prefer_arrays\nprefer_arrays(True)\n"
              "from hetdep.neural.parser import NeuralParser\n"
              "from hetdep.treebank.conllu import read_conllu\n"
              f"parser = NeuralParser.load({str(tmp_path / 'm')!r})\n"
              f"for pair in parser.parse(read_conllu({str(SAMPLES / 'dev.ud.conllu')!r})): print(pair[1].to_text(), end='')\n"
              "print('numba' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr.strip() == "False", done.stderr
    expected = "".join(pair[1].to_text() for pair in joint_result.parser.parse(read_conllu(SAMPLES / "dev.ud.conllu")))
    assert done.stdout == expected


def test_training_without_pytorch_says_so_before_any_work(tmp_path):
    import subprocess
    import sys

    script = "import sys; sys.modules['torch'] = None\nfrom hetdep.cli import main\nmain()\n"
    done = subprocess.run([sys.executable, "-c", script, "train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev",
                           str(SAMPLES / "dev.ud.conllu"), "--model", str(tmp_path / "m")], capture_output=True, text=True)
    assert done.returncode == 2 and "pip install 'hetdep[neural]'" in done.stderr
    assert "tokenizer" not in done.stderr and not (tmp_path / "m").exists()  # refused before the tokenizer trained


def test_a_fixed_seed_gives_the_same_model():
    options = NeuralOptions(epochs=2, hidden=16, layers=1, threads=1, batch_words=300)
    one, two = (train_neural(_pair("train", 50)[:1], [], options) for _ in range(2))
    for (name, a), (_, b) in zip(one.parser.arrays.items(), two.parser.arrays.items()):
        assert (a == b).all(), name


def test_an_interrupted_training_resumes_after_its_last_finished_epoch(tmp_path):
    """Kept after each epoch (network, Adam, every random generator, the best epoch), the training
    goes on to the very model and history of an uninterrupted run, final epochs included."""
    from hetdep.learn import checkpoint

    options = NeuralOptions(epochs=3, final_epochs=1, hidden=16, layers=1, threads=1, batch_words=300)
    train, dev = _pair("train", 40), _pair("dev", 20)
    whole = train_neural(train, dev, options)

    def interrupting(total, desc, unit):  # the progress bar of epoch 3 is never made: Ctrl-C
        if desc == "epoch 3":
            raise KeyboardInterrupt
        return None

    with checkpoint.kept_in(tmp_path / "parser"):
        cut = train_neural(train, dev, options, progress=interrupting)
        assert cut.interrupted and len(cut.history) == 2
        started = []
        resumed = train_neural(train, dev, options, progress=lambda total, desc, unit: started.append(desc))
    assert started == ["epoch 3", "epoch 4"]  # only those the interrupted run had not finished
    assert [r.iteration for r in resumed.history] == [1, 2, 3, 4]
    strip = lambda history: [(r.iteration, r.dev_uas, r.dev_las, r.dev_detail) for r in history]  # noqa: E731
    assert strip(resumed.history) == strip(whole.history) and resumed.best_iteration == whole.best_iteration
    for (name, a), (_, b) in zip(whole.parser.arrays.items(), resumed.parser.arrays.items()):
        assert (a == b).all(), name
    with checkpoint.kept_in(tmp_path / "parser"):  # the state of other options is refused in one line
        with pytest.raises(ModelFileError, match="kept training state is damaged.*other options"):
            train_neural(train, dev, NeuralOptions(epochs=4, final_epochs=1, hidden=16, layers=1, threads=1, batch_words=300))
    kept = tmp_path / "parser" / "epoch.pt"  # kept by a hetdep before --encoder and --enhanced: it goes on all the same
    state = torch.load(kept, weights_only=True)
    del state["options"]["encoder"], state["options"]["enhanced"]
    torch.save(state, kept)
    with checkpoint.kept_in(tmp_path / "parser"):
        assert len(train_neural(train, dev, options).history) == 4
    with checkpoint.kept_in(tmp_path / "parser"):  # another machine's cores: it goes on with them
        assert len(train_neural(train, dev, dataclasses.replace(options, threads=2)).history) == 4


def test_the_final_epochs_run_at_a_tenth_of_the_rate_once_dev_stops_rising():
    options = NeuralOptions(epochs=12, patience=1, final_epochs=2, learning_rate=0.02, hidden=16, layers=1, threads=1,
                            batch_words=300)  # a high rate, so dev stops rising early
    history = train_neural(_pair("train", 60), _pair("dev", 30), options).history
    rates = [report.dev_detail["learning_rate"] for report in history]
    best, first_final = 0, options.epochs  # where patience runs out, found from the dev scores alone
    for k, report in enumerate(history[:options.epochs]):
        if report.dev_las > history[best].dev_las:
            best = k
        elif k - best >= options.patience:
            first_final = k + 1
            break
    assert rates == [options.learning_rate] * first_final + [options.learning_rate * FINAL_RATE] * options.final_epochs
    assert len(history) == first_final + options.final_epochs


def test_without_dev_the_final_epochs_follow_the_last():
    options = NeuralOptions(epochs=2, final_epochs=1, hidden=16, layers=1, threads=1, batch_words=300)
    result = train_neural(_pair("train", 30)[:1], [], options)
    assert [report.dev_detail["learning_rate"] for report in result.history] == [2e-3, 2e-3, 2e-3 * FINAL_RATE]
    assert result.best_iteration == 3


@pytest.mark.parametrize("damage, message", [
    (lambda c, w: c["network"].update(hidden=7), "does not fit the network"),
    (lambda c, w: c["vocabularies"].update(words=["a"]), "sizes do not fit its vocabularies"),
    (lambda c, w: c.update(network=3), "network 3 is not an object of sizes"),
    (lambda c, w: c.update(quantized=["nothing.weight"]), "quantized names arrays the network does not have"),
    (lambda c, w: w.write_bytes(b"not a zip"), "not the weights config.json was saved with"),
    (lambda c, w: c.update(quantized=["encoder.weight_ih_l0"] * 2), "is not a list of distinct strings"),
    (lambda c, w: c.update(neural_options=3), "neural_options 3 is not an object"),
])
def test_a_damaged_neural_model_is_refused_in_one_line(joint_result, tmp_path, damage, message):
    joint_result.parser.save(tmp_path / "m")
    config = json.loads((tmp_path / "m" / "config.json").read_text(encoding="utf-8"))
    damage(config, tmp_path / "m" / "weights.npz")
    (tmp_path / "m" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelFileError, match=message):
        NeuralParser.load(tmp_path / "m")
    for command in (["info"], ["info", "--json"]):  # describing the model reads it through the same checks
        described = CliRunner().invoke(main, [*command, str(tmp_path / "m")])
        assert described.exit_code == 2 and "Traceback" not in described.output, described.output


def test_a_scale_past_float32_is_refused_without_a_warning(joint_result, tmp_path):
    _quantized_with(joint_result, tmp_path / "m", lambda arrays: arrays["encoder.weight_ih_l0.scale"].__setitem__(0, 3e38))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ModelFileError, match="scales are not those quantizing gives"):  # 127 of it past float32
            NeuralParser.load(tmp_path / "m")


def test_scales_that_quantizing_cannot_give_are_refused(joint_result, tmp_path):
    """A row of zeros has scale 0 (the padding rows of embeddings): one with another scale, finite
    or not, changes no weight but is not a whole model (found by bench/fuzz.py: a zero row's scale
    set to 3e38 was accepted)."""
    # its scale stays that of the row it was
    _quantized_with(joint_result, tmp_path / "m", lambda arrays: arrays["encoder.weight_ih_l0"].__setitem__(0, 0))
    with pytest.raises(ModelFileError, match="scales are not those quantizing gives"):
        NeuralParser.load(tmp_path / "m")


def test_batches_and_long_or_unseen_words():
    vocabularies = Vocabularies.learn(_pair("train", 20))
    encoder = Encoder(vocabularies)
    sentence = _pair("dev", 1)[0][0]
    odd = sentence.with_column(1, ["x" * 10_000] + ["中文"] + sentence.forms[2:])
    batch = encoder.batch([[sentence, odd]])
    assert batch.words.shape == (2, len(sentence) + 1) and batch.chars.shape[1] <= 40
    assert sorted(k for group in batches_by_length([5, 1, 9, 3], 10) for k in group) == [0, 1, 2, 3]


@pytest.mark.slow
def test_the_command_line_trains_parses_raw_text_and_describes_it(tmp_path):
    model = tmp_path / "m"
    result = CliRunner().invoke(main, [  # no --parser: the neural pipeline is the default
        "train", "--train", str(SAMPLES / "train.sud.conllu"), "--train-b",
        str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.sud.conllu"), "--dev-b", str(SAMPLES / "dev.ud.conllu"),
        "--model", str(model), "--iterations", "1", "--final-epochs", "1", "--threads", "1"])
    assert result.exit_code == 0, result.output
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    assert [report["dev_detail"]["learning_rate"] for report in config["history"]] == [2e-3, 2e-4]
    weight = config["pipeline"]["tag_weights"]["upos"]  # the UPOS tagger is kept where it helps the network on dev
    assert "UPOS: the network's tags" in result.output and "dev accuracy" in result.output
    helpers = ["upos"] if weight else []
    assert (model / "tokenizer").is_dir() and sorted(p.name for p in (model / "tagger").iterdir()) == ["feats", "lemma"] + helpers
    info = CliRunner().invoke(main, ["info", str(model)]).output
    assert "neural parser" in info and "tags: predicted by the network itself (upos)" in info
    assert "pretrained vectors: the shipped model's" in result.output  # French text: its vectors by default
    assert "pretrained vectors of 200,000 forms (100 dimensions)" in info
    assert ("helped by its bundled taggers (upos at weight" in info) == bool(weight)
    assert f"bundled taggers: {', '.join(helpers + ['feats', 'lemma'])}" in info
    assert json.loads((model / "tagger" / "lemma" / "config.json").read_text(encoding="utf-8"))["beam"] == 2
    # the FEATS tagger tags after the network has parsed: it reads the tree (hetdep.tagger.tree_context)
    assert json.loads((model / "tagger" / "feats" / "config.json").read_text(encoding="utf-8")).get("reads_tree") is True
    text = tmp_path / "t.txt"
    text.write_text("Le conseil municipal s'est réuni hier. Il a voté le budget.\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(text), "--output",
                                       str(tmp_path / "a.conllu"), "--output-b", str(tmp_path / "b.conllu")])
    assert result.exit_code == 0, result.output
    a, b = list(read_conllu(tmp_path / "a.conllu")), list(read_conllu(tmp_path / "b.conllu"))
    assert len(a) == len(b) >= 2 and [s.forms for s in a] == [s.forms for s in b]
    assert a[0].column(2)[:2] == ["le", "conseil"] and a[0].column(5)[0] != "_"  # lemma and features by the taggers
    document = hetdep.load(model)("Le chat dort.")
    assert document.schemes == ("sud", "ud") and len(document[0].words) == 4 and document[0].words[0].lemma == "le"
    refused = CliRunner().invoke(main, ["train", "--parser", "neural", "--train", str(SAMPLES / "train.ud.conllu"), "--dev",
                                        str(SAMPLES / "dev.ud.conllu"), "--model", str(tmp_path / "x"), "--beam", "8"])
    assert refused.exit_code == 2 and "--beam" in refused.output and not (tmp_path / "x").exists()
    perceptron = CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev",
                                           str(SAMPLES / "dev.ud.conllu"), "--model", str(tmp_path / "p"), "--beam", "2",
                                           "--iterations", "1", "--gold-tags", "--no-tokenizer"])
    assert perceptron.exit_code == 0, perceptron.output  # an option of the perceptron parsers: the arc-standard parser
    assert json.loads((tmp_path / "p" / "config.json").read_text(encoding="utf-8"))["kind"] == "arc-standard"


@pytest.fixture(scope="module")
def upos_tagger():
    from hetdep.tagger.training import TaggerOptions, train_tagger

    return train_tagger(_pair("train")[1], _pair("dev", 60)[1], TaggerOptions(column="upos", iterations=3)).parser


def _copy(parser: NeuralParser) -> NeuralParser:
    return NeuralParser(parser.arrays, parser.shape, parser.vocabularies, parser.record)


def test_a_tagger_helps_the_network_at_the_weight_fitted_on_dev(joint_result, upos_tagger):
    from hetdep.models.tag_mixing import WEIGHTS, fit_weight, helper
    from hetdep.treebank.conllu import UPOS

    dev = _pair("dev", 60)[0]
    weight, accuracy = fit_weight(joint_result.parser, upos_tagger, dev)
    assert set(accuracy) == set(WEIGHTS) and accuracy[weight] == max(accuracy.values())
    assert all(accuracy[other] < accuracy[weight] for other in WEIGHTS if other < weight)  # the smallest of the best
    names = joint_result.parser.vocabularies.tags[0]
    for tried in (0.0, 1.0, 2.0):  # each weight's accuracy, found again by parsing with the helper
        parser = _copy(joint_result.parser)
        parser.tag_helpers["upos"] = (helper(upos_tagger, names), tried)
        tags = [tag for pair in parser.parse(dev) for tag in pair[0].column(UPOS)]
        gold = [tag for sentence in dev for tag in sentence.column(UPOS)]
        assert round(100 * sum(a == b for a, b in zip(tags, gold)) / len(gold), 2) == accuracy[tried]


def test_a_helper_gives_log_probabilities_in_the_networks_tag_order(upos_tagger):
    from hetdep.models.tag_mixing import helper

    sentence = _pair("dev", 1)[0][0]
    names = ["NEVER-SEEN"] + list(reversed(upos_tagger.tags))
    found = helper(upos_tagger, names)(sentence)
    own = upos_tagger.log_probabilities(sentence)
    assert np.allclose(np.exp(own).sum(1), 1.0) and found.shape == (len(sentence), len(names))
    assert (found[:, 1:] == own[:, ::-1]).all() and (found[:, 0] == own.min(1)).all()


def test_a_model_with_damaged_tag_weights_is_refused_in_one_line(joint_result, upos_tagger, tmp_path):
    from hetdep.models.opening import open_models

    model = tmp_path / "m"
    joint_result.parser.save(model, pipeline={"tag_weights": {"upos": 0.5}})
    upos_tagger.save(model / "tagger" / "upos")
    opened = open_models(model)
    assert opened.taggers == [] and opened.parser.tag_helpers["upos"][1] == 0.5
    for damaged in ({"upos": -1}, {"feats": 1.0}, {"upos": "a"}, [1]):
        joint_result.parser.save(model, pipeline={"tag_weights": damaged})
        with pytest.raises(ModelFileError, match="damaged tag weights"):
            open_models(model)
    joint_result.parser.save(model, pipeline={"tag_weights": {"upos": 0.5}})
    shutil.rmtree(model / "tagger")
    with pytest.raises(ModelFileError, match="mixed with a tagger that"):
        open_models(model)


def test_sentences_of_one_word_and_empty_input_parse(joint_result):
    from hetdep.treebank.conllu import Sentence

    word = Sentence([], [["1", "Bonjour"] + ["_"] * 8], [0], [-1])
    longer = _pair("dev", 1)[0][0]
    pairs = list(joint_result.parser.parse([word, longer]))
    assert pairs[0][0].heads == [0] and pairs[0][1].heads == [0] and len(pairs[1][1]) == len(longer)
    assert list(joint_result.parser.parse([])) == []


def test_sentences_batched_by_length_come_back_in_input_order(joint_result, monkeypatch):
    import hetdep.neural.parser as module

    sentences = _pair("dev", 12)[0]
    alone = [next(joint_result.parser.parse([sentence])) for sentence in sentences]
    monkeypatch.setattr(module, "SENTENCES_AT_ONCE", 3)
    monkeypatch.setattr(module, "SENTENCES_READ_AHEAD", 7)
    together = list(joint_result.parser.parse(iter(sentences)))
    assert len({len(s) for s in sentences}) > 3  # lengths differ: batches are not in input order
    assert [[(t.forms, t.heads, t.deprels) for t in pair] for pair in together] == \
        [[(t.forms, t.heads, t.deprels) for t in pair] for pair in alone]


def test_batches_on_two_threads_give_the_same_trees_and_counts(joint_result, monkeypatch):
    import hetdep.neural.parser as module

    sentences = _pair("dev")[0]
    monkeypatch.setattr(module, "SENTENCES_AT_ONCE", 4)  # several batches in flight at once
    one = copy.copy(joint_result.parser)
    one.stats = ParseStats()
    two = copy.copy(one)
    two.threads, two.stats = 2, ParseStats()
    expected = [tuple(t.to_text() for t in pair) for pair in one.parse(sentences)]
    assert [tuple(t.to_text() for t in pair) for pair in two.parse(sentences)] == expected
    assert (two.stats.sentences, two.stats.words, two.stats.unknown_words) == \
        (one.stats.sentences, one.stats.words, one.stats.unknown_words) == \
        (len(sentences), sum(len(s) for s in sentences), one.stats.unknown_words)


def test_finish_runs_on_the_thread_that_parsed_the_batch_and_its_results_come_in_order(joint_result, monkeypatch):
    """``parse(finish=...)``: each sentence's parse finished where its batch was parsed, on the
    parse's own threads (a model's taggers then work beside the other batches' products)."""
    import threading

    import hetdep.neural.parser as module

    sentences = _pair("dev")[0]
    monkeypatch.setattr(module, "SENTENCES_AT_ONCE", 4)
    two = copy.copy(joint_result.parser)
    two.threads, two.stats = 2, ParseStats()
    where = set()

    def finish(pair):
        where.add(threading.current_thread().name)
        return tuple(t.to_text() for t in pair)

    expected = [tuple(t.to_text() for t in pair) for pair in two.parse(sentences)]
    assert list(two.parse(sentences, finish=finish)) == expected
    assert where and all(name.startswith("hetdep") for name in where)


def test_tagging_alone_keeps_the_trees_of_the_input(joint_result):
    gold = _pair("dev", 5)[1]
    tagged = list(joint_result.parser.tag(iter(gold)))
    assert [s.heads for s in tagged] == [s.heads for s in gold] and [s.deprels for s in tagged] == [s.deprels for s in gold]
    assert [s.upos for s in tagged] == [pair[0].upos for pair in joint_result.parser.parse(gold)]


@given(st.dictionaries(st.text(min_size=1).filter(lambda form: "\n" not in form), st.integers(1, 50), max_size=30),
       st.booleans(), st.lists(st.text(max_size=4)))
def test_stored_pretrained_forms_are_found_as_a_dict_finds_them(rows, in_order, asked):
    """Sorted forms (as models store them) are found by binary search, forms stored in another
    order through a dict: either way every form gives its row and no other form one, asked once
    or again."""
    from hetdep.neural.pretrained import SortedForms, pretrained_forms

    items = sorted(rows.items()) if in_order else list(rows.items())[::-1]
    if not items:
        return
    blob = "\n".join(form for form, _ in items).encode("utf-8")
    found = pretrained_forms(blob, np.array([row for _, row in items]))
    assert found == rows and len(found) == len(rows) and sorted(found) == sorted(rows)
    assert isinstance(found, SortedForms) == ([form for form, _ in items] == sorted(rows))
    for form in 2 * (asked + list(rows)):  # asked again: a SortedForms keeps each answer
        assert found.get(form, 0) == rows.get(form, 0) and (form in found) == (form in rows)


def test_pretrained_vectors_are_a_frozen_table_every_form_of_the_file_reads(tmp_path):
    """A form the training treebank never had still gets its pretrained vector; training leaves
    the table as the file gave it (scaled), and a saved model keeps it."""

    from hetdep.learn.vectors import read_embeddings
    from hetdep.models.info import describe
    from hetdep.neural.parser import NeuralParser
    from hetdep.treebank.conllu import Sentence

    vectors = tmp_path / "vectors.txt"
    vectors.write_text("4 3\nle 0.5 0.25 -1\nzyxwv 1 1 1\nLe 9 9 9\nchat 0.5 0.25 -1\n", encoding="utf-8")
    words, table = read_embeddings(str(vectors))
    assert words == ["le", "zyxwv", "chat"] and table[0].tolist() == [0.5, 0.25, -1.0]  # the first of "le" and "Le" kept
    options = NeuralOptions(epochs=2, hidden=16, layers=1, threads=1, embeddings=str(vectors))
    parser = train_neural(_pair("train", 30)[:1], [], options).parser
    kept = parser.arrays["pretrained.weight"]
    assert kept.shape == (3, 3) and not kept[0].any()  # two distinct vectors, and row 0 for forms without one
    rows = parser.vocabularies.pretrained
    assert rows["le"] == rows["chat"] != rows["zyxwv"]
    scale = kept[rows["zyxwv"]][0] / 1.0
    assert kept[rows["le"]] == pytest.approx(scale * np.array([0.5, 0.25, -1.0]), rel=1e-5)
    assert "zyxwv" not in parser.vocabularies.words  # not a training form: the table is its only embedding
    sentence = Sentence([], [[str(k), form] + ["_"] * 8 for k, form in enumerate(["Zyxwv", "le", "mot"], 1)], [0, 1, 2], [-1] * 3)
    assert parser.encoder.batch([[sentence]]).pretrained[0, 1:].tolist() == [rows["zyxwv"], rows["le"], 0]
    parser.save(tmp_path / "model")
    loaded = NeuralParser.load(tmp_path / "model")
    assert loaded.vocabularies.pretrained == rows
    assert "pretrained vectors of 3 forms (3 dimensions)" in " ".join(describe(tmp_path / "model"))
    parser.save(tmp_path / "small", quantize=True)  # as hetdep compact writes it
    small = NeuralParser.load(tmp_path / "small")
    assert small.vocabularies.pretrained == rows
    assert np.abs(small.arrays["pretrained.weight"] - kept).max() <= np.abs(kept).max() / 127
    assert [t.heads for t in loaded.parse([sentence])] == [t.heads for t in parser.parse([sentence])]


def test_bad_vector_files_are_named_with_their_line(tmp_path):
    from hetdep.errors import InputError
    from hetdep.learn.vectors import read_embeddings

    vectors = tmp_path / "vectors.txt"
    for text, message in (("le 1 2\nla 1\n", "vectors.txt:2: expected a word and 2 numbers"),
                          ("le 1 x\n", "vectors.txt:1: a vector value is not a number"),
                          ("le 1 nan\n", "not a finite number"), ("", "no word vectors")):
        vectors.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match=message):
            read_embeddings(str(vectors))


def test_a_model_whose_vector_rows_point_outside_its_table_is_refused(tmp_path):
    import json

    from hetdep.learn.model_config import ModelFileError
    from hetdep.learn.model_files import file_sha256
    from hetdep.neural.parser import NeuralParser

    vectors = tmp_path / "vectors.txt"
    vectors.write_text("le 0.5 0.25\nla 1 1\n", encoding="utf-8")
    parser = train_neural(_pair("train", 20)[:1], [], NeuralOptions(epochs=1, hidden=8, layers=1, threads=1,
                                                                     embeddings=str(vectors))).parser
    model = tmp_path / "model"
    for change, message in ((lambda a: a["pretrained.rows"].__setitem__(0, 7), "do not fit the vector table"),
                            (lambda a: a.__setitem__("pretrained.forms", np.array([0xFF, 0xFE], dtype=np.uint8)),
                             "can't decode"),
                            (lambda a: a.pop("pretrained.rows"), "damaged weights file")):
        parser.save(model)
        with np.load(model / "weights.npz") as archive:
            arrays = dict(archive)
        change(arrays)
        np.savez(model / "weights.npz", **arrays)
        config = json.loads((model / "config.json").read_text())
        config["weights_sha256"] = file_sha256(model / "weights.npz")
        (model / "config.json").write_text(json.dumps(config))
        with pytest.raises(ModelFileError, match=message):
            NeuralParser.load(model)


@pytest.fixture(scope="module")
def feats_result():
    from dataclasses import replace

    return train_neural(_pair("train", 120), _pair("dev", 40), replace(SMALL, epochs=2, final_epochs=0, feats_head=True))


def test_a_feats_head_predicts_feats_beside_upos(feats_result, tmp_path):
    from hetdep.treebank.conllu import FEATS

    parser = feats_result.parser
    assert parser.vocabularies.tag_columns == ["upos", "feats"] and "FEATS" in feats_result.history[-1].dev_detail
    assert "Gender=Fem|Number=Sing" in parser.vocabularies.tags[1]
    parser.save(tmp_path / "m", quantize=True)
    loaded = NeuralParser.load(tmp_path / "m")
    pairs = list(loaded.parse(_pair("dev", 20)[0]))
    features = [value for pair in pairs for value in pair[0].column(FEATS)]
    assert all(value in parser.vocabularies.tags[1] for value in features) and set(features) - {"_"}
    assert all(pair[0].column(FEATS) == pair[1].column(FEATS) for pair in pairs)  # the network's FEATS on both trees


def test_a_feats_helper_reads_the_upos_the_network_chose(feats_result):
    """The FEATS tagger, a helper of the FEATS head, tags after UPOS: it is given each sentence with
    the network's UPOS written in (raw text has none), and its scores move the FEATS chosen."""
    from hetdep.treebank.conllu import FEATS, UPOS

    dev = [sentence.with_column(UPOS, ["_"] * len(sentence)) for sentence in _pair("dev", 20)[0]]
    names = feats_result.parser.vocabularies.tags[1]
    seen = []

    def helper(sentence):
        seen.append(sentence.column(UPOS))
        scores = np.full((len(sentence), len(names)), -10.0)
        scores[:, names.index("_")] = 0.0
        return scores

    parser = _copy(feats_result.parser)
    alone = list(parser.parse(dev))
    parser.tag_helpers["feats"] = (helper, 100.0)
    helped = list(parser.parse(dev))
    assert sorted(seen) == sorted(pair[0].column(UPOS) for pair in alone)  # batched by length: in another order
    assert all("_" not in upos for upos in seen)
    assert all(set(pair[0].column(FEATS)) == {"_"} for pair in helped)  # the helper's weight decided
    assert [pair[0].column(UPOS) for pair in helped] == [pair[0].column(UPOS) for pair in alone]


def test_a_network_of_unknown_tag_heads_is_refused(feats_result, tmp_path):
    feats_result.parser.save(tmp_path / "m")
    config = json.loads((tmp_path / "m" / "config.json").read_text(encoding="utf-8"))
    config["vocabularies"]["tag_columns"] = ["upos", "lemma"]
    (tmp_path / "m" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelFileError, match="tag heads"):
        NeuralParser.load(tmp_path / "m")


@pytest.mark.slow
def test_the_command_line_trains_a_feats_head_beside_its_feats_tagger(tmp_path):
    model = tmp_path / "m"
    result = CliRunner().invoke(main, [
        "train", "--train", str(SAMPLES / "train.sud.conllu"), "--dev", str(SAMPLES / "dev.sud.conllu"),
        "--model", str(model), "--iterations", "1", "--final-epochs", "0", "--threads", "1", "--feats-head"])
    assert result.exit_code == 0, result.output
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    assert config["vocabularies"]["tag_columns"] == ["upos", "feats"] and "feats" in config["pipeline"]["tag_weights"]
    assert "FEATS: the network's tags" in result.output
    kept = config["pipeline"]["tag_weights"]["feats"] > 0
    assert ((model / "tagger" / "feats").is_dir()) == kept  # a FEATS tagger of weight 0 is not kept
    if kept:  # mixed into the network's FEATS, before there is a tree: it does not read one
        assert "reads_tree" not in json.loads((model / "tagger" / "feats" / "config.json").read_text(encoding="utf-8"))
    text = tmp_path / "t.txt"
    text.write_text("Le conseil municipal s'est réuni hier.\n", encoding="utf-8")
    out = tmp_path / "o.conllu"
    result = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(text), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert any(value != "_" for value in next(iter(read_conllu(out))).column(5))  # FEATS from the network (and its helper)
    refused = CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"),
                                        "--model", str(tmp_path / "x"), "--parser", "dep1", "--feats-head"])
    assert refused.exit_code == 2 and "--feats-head is for --parser neural" in refused.output


@given(st.lists(st.integers(1, 300), max_size=200))
def test_batches_keep_the_order_and_bound_sentences_and_padded_positions(lengths):
    from hetdep.neural.parser import POSITIONS_AT_ONCE, SENTENCES_AT_ONCE, batches_by_positions

    order = sorted(range(len(lengths)), key=lambda k: lengths[k])
    batches = list(batches_by_positions(order, [lengths[k] for k in order]))
    assert [k for batch in batches for k in batch] == order
    for batch in batches:
        assert 1 <= len(batch) <= SENTENCES_AT_ONCE
        assert len(batch) == 1 or len(batch) * max(lengths[k] for k in batch) <= POSITIONS_AT_ONCE


def test_smaller_batches_give_the_same_trees(joint_result, monkeypatch):
    import hetdep.neural.parser as parser_module

    sentences = _pair("dev")[0]
    trees = [tuple(t.to_text() for t in pair) for pair in joint_result.parser.parse(sentences)]
    monkeypatch.setattr(parser_module, "POSITIONS_AT_ONCE", 64)
    assert [tuple(t.to_text() for t in pair) for pair in joint_result.parser.parse(sentences)] == trees


@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=64))
def test_the_leaky_relu_is_bit_for_bit_pytorch_s_rule(values):
    """The larger of x and 0.1 x is, for every float32 (zeros of either sign, subnormals,
    infinities, NaN), what ``x if x > 0 else 0.1 x`` gives: the rule PyTorch's LeakyReLU follows."""
    from hetdep.neural.inference import _leaky_relu

    x = np.array(values, dtype=np.float32)
    expected = np.where(x > 0, x, np.float32(0.1) * x)
    assert np.array_equal(_leaky_relu(x).view(np.uint32), expected.view(np.uint32))
