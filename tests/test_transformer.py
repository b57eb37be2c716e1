"""The transformer encoder in NumPy (hetdep.neural.transformer) against transformers' PyTorch one,
on tiny BERT, RoBERTa and DistilBERT models made here (random weights, a WordPiece vocabulary of
the shipped sample's words): no download, no network. Long sentences in windows, words of no
piece, and every refusal of a damaged folder."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from conftest import SAMPLES
from safetensors import safe_open

from hetdep.treebank.conllu import read_conllu

torch = pytest.importorskip("torch", reason="the cross-check runs transformers' PyTorch encoder")
transformers = pytest.importorskip("transformers", reason="the cross-check needs transformers ('hetdep[neural]')")

from hetdep.neural.transformer import EncoderFolderError, TransformerEncoder  # noqa: E402

SENTENCES = [sentence.forms for sentence in read_conllu(SAMPLES / "dev.ud.conllu")][:40]
POSITIONS = 24  # small, so that the sample's long sentences are read in windows


def _tokenizer(special: tuple[str, ...]):
    """A WordPiece tokenizer of the sample's words (and their first three letters as pieces)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = sorted({form.lower() for sentence in SENTENCES[::2] for form in sentence})
    pieces = sorted({w[:3] for w in words} | {"##" + w[3:] for w in words if len(w) > 3} | set(words))
    vocabulary = {piece: k for k, piece in enumerate(list(special) + pieces)}
    tokenizer = Tokenizer(models.WordPiece(vocabulary, unk_token=special[2]))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tokenizer, len(vocabulary)


def _model(tmp_path, kind: str):
    """A tiny random encoder of ``kind`` saved as Hugging Face does, with its tokenizer."""
    special = ("<s>", "<pad>", "<unk>", "</s>") if kind == "roberta" else ("[PAD]", "[CLS]", "[UNK]", "[SEP]")
    tokenizer, size = _tokenizer(special if kind != "roberta" else ("<s>", "<pad>", "<unk>", "</s>"))
    torch.manual_seed(3)
    if kind == "bert":
        config = transformers.BertConfig(vocab_size=size, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                         intermediate_size=48, max_position_embeddings=POSITIONS)
    elif kind == "roberta":
        config = transformers.RobertaConfig(vocab_size=size, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                            intermediate_size=48, max_position_embeddings=POSITIONS + 2, pad_token_id=1)
    else:
        config = transformers.DistilBertConfig(vocab_size=size, dim=32, n_layers=2, n_heads=4, hidden_dim=48,
                                               max_position_embeddings=POSITIONS)
    model = transformers.AutoModel.from_config(config).eval()
    folder = tmp_path / kind
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder, model


@pytest.mark.parametrize("kind", ["bert", "roberta", "distilbert"])
def test_numpy_hidden_states_are_pytorch_s(tmp_path, kind):
    folder, model = _model(tmp_path, kind)
    encoder = TransformerEncoder.load(folder)
    assert encoder.architecture.positions == POSITIONS
    sentences = [words[:8] for words in SENTENCES[:6]]
    rows = [[encoder.first, *encoder.pieces(words)[0], encoder.last] for words in sentences]
    longest = max(map(len, rows))
    pad = 1 if kind == "roberta" else 0
    ids = np.array([row + [pad] * (longest - len(row)) for row in rows])
    mask = np.array([[1] * len(row) + [0] * (longest - len(row)) for row in rows])
    ours = encoder.hidden_states(ids, mask)
    with torch.no_grad():
        theirs = model(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask), output_hidden_states=True).hidden_states
    for layer, state in enumerate(theirs):
        got, want = ours[layer][mask > 0], state.numpy()[mask > 0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5, err_msg=f"layer {layer}")


def test_long_sentences_are_read_in_windows_never_cut(tmp_path):
    folder, model = _model(tmp_path, "bert")
    encoder = TransformerEncoder.load(folder)
    long = [form for words in SENTENCES[:8] for form in words]  # some 200 words, far past 22 pieces
    windows = encoder.windows(len(encoder.pieces(long)[0]))
    assert len(windows) > 2 and windows[0][2] == 0 and windows[-1][3] == len(encoder.pieces(long)[0])
    assert all(a[3] == b[2] for a, b in zip(windows, windows[1:]))  # every piece kept once, from one window
    assert all(end - start <= POSITIONS - 2 for start, end, _, _ in windows)
    [vectors] = encoder.word_layers([long])
    assert vectors.shape == (3, len(long), 32) and np.isfinite(vectors).all()
    # a word whose pieces the second window keeps has the mean of their states in that window read alone
    start, end, first, last = windows[1]
    ids, owner = encoder.pieces(long)
    alone = encoder.hidden_states(np.array([[encoder.first, *ids[start:end], encoder.last]]), np.ones((1, end - start + 2), int))
    inside = [word for word in set(owner) if all(first <= k < last for k in range(len(owner)) if owner[k] == word)]
    assert inside and owner == sorted(owner)
    for word in inside:
        own = [k for k in range(len(owner)) if owner[k] == word]
        np.testing.assert_allclose(vectors[:, word], alone[:, 0, [1 + k - start for k in own]].mean(1), rtol=1e-5, atol=1e-6)


def test_a_word_of_no_piece_still_gets_a_vector(tmp_path):
    folder, _ = _model(tmp_path, "bert")
    encoder = TransformerEncoder.load(folder)
    words = ["Le", "\u0007", "\u0301", "x" * 5000, "chat"]
    ids, owner = encoder.pieces(words)
    assert sorted(set(owner)) == list(range(len(words)))
    [vectors] = encoder.word_layers([words])
    assert vectors.shape[1] == len(words) and np.isfinite(vectors).all()


@pytest.mark.parametrize("damage, message", [
    (lambda f: (f / "config.json").unlink(), "config.json: missing"),
    (lambda f: (f / "config.json").write_text("{", encoding="utf-8"), "not a readable encoder configuration"),
    (lambda f: (f / "config.json").write_text(json.dumps({"model_type": "gpt2"}), encoding="utf-8"), "model_type 'gpt2'"),
    (lambda f: (f / "model.safetensors").unlink(), "no *.safetensors weights"),
    (lambda f: (f / "model.safetensors").write_bytes((f / "model.safetensors").read_bytes()[:1000]), "damaged weights"),
    (lambda f: (f / "tokenizer.json").unlink(), "tokenizer.json: missing"),
    (lambda f: (f / "tokenizer.json").write_text("[]", encoding="utf-8"), "tokenizer.json: not a tokenizer"),
    (lambda f: _edit_config(f, num_hidden_layers=3), "weight encoder.layer.2.attention.self.query.weight is missing"),
    (lambda f: _edit_config(f, hidden_size=64), "of shape"),
    (lambda f: _edit_config(f, hidden_act="swish"), "activation 'swish'"),
])
def test_a_damaged_encoder_folder_is_refused_in_one_line_naming_the_file(tmp_path, damage, message):
    folder, _ = _model(tmp_path, "bert")
    damage(folder)
    with pytest.raises(EncoderFolderError) as refused:
        TransformerEncoder.load(folder)
    assert message in str(refused.value) and str(folder) in str(refused.value) and "\n" not in str(refused.value)


def test_a_tokenizer_of_another_vocabulary_is_refused(tmp_path):
    folder, _ = _model(tmp_path, "bert")
    other, _ = _model(tmp_path / "other", "roberta")
    shutil.copy(other / "tokenizer.json", folder / "tokenizer.json")
    with pytest.raises(EncoderFolderError, match="special pieces|not the encoder's"):
        TransformerEncoder.load(folder)


def _edit_config(folder, **changes):
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")


def test_a_network_trained_on_a_tiny_encoder_is_saved_loaded_and_parses_in_numpy_as_pytorch(tmp_path):
    """--encoder's network end to end: its mix of the encoder's layers trains, the model folder
    carries the encoder, and the loaded model's NumPy forward pass is the PyTorch network's."""
    from conftest import torch_network

    from hetdep.neural.parser import TRANSFORMER, NeuralParser
    from hetdep.neural.training import NeuralOptions, train_neural

    folder, _ = _model(tmp_path, "bert")
    train = [list(read_conllu(SAMPLES / f"train.{s}.conllu"))[:60] for s in ("sud", "ud")]
    dev = [list(read_conllu(SAMPLES / f"dev.{s}.conllu"))[:20] for s in ("sud", "ud")]
    options = NeuralOptions(epochs=2, final_epochs=0, hidden=16, layers=1, threads=1, batch_words=300, encoder=str(folder))
    result = train_neural(train, dev, options)
    parser = result.parser
    assert parser.shape.encoder_layers == 3 and parser.shape.encoder_dim == 32
    assert not np.allclose(parser.arrays["mix.weights"], 0)  # the mix learned
    model = tmp_path / "model"
    parser.save(model)
    assert sorted(path.name for path in (model / TRANSFORMER).iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
    loaded = NeuralParser.load(model)
    sentences = dev[0][:8]
    batch = loaded.encoder.batch([sentences])
    assert batch.transformer.shape == (8, max(map(len, sentences)) + 1, 3, 32) and not batch.transformer[:, 0].any()
    network = torch_network(loaded)
    with torch.inference_mode():
        encoded = network.encode(batch.tensors()).numpy()
    np.testing.assert_allclose(loaded.network.encode(batch), encoded, rtol=1e-4, atol=1e-5)
    assert [tree.to_text() for tree, _ in loaded.parse(sentences)] == [tree.to_text() for tree, _ in parser.parse(sentences)]
    small = tmp_path / "small"
    loaded.save(small, quantize=True)  # hetdep compact's copy: the transformer's weights in 8 bits too
    with safe_open(str(small / TRANSFORMER / "model.safetensors"), "np") as stored:
        assert stored.get_tensor("encoder.layer.0.attention.self.query.weight").dtype == np.int8
    assert (small / TRANSFORMER / "model.safetensors").stat().st_size < (model / TRANSFORMER / "model.safetensors").stat().st_size / 2
    widened = NeuralParser.load(small).encoder.transformer.weights["encoder.layer.0.attention.self.query.weight"]
    original = loaded.encoder.transformer.weights["encoder.layer.0.attention.self.query.weight"]
    np.testing.assert_allclose(widened, original, atol=np.abs(original).max() / 254 + 1e-7)
    assert len(list(NeuralParser.load(small).parse(sentences))) == len(sentences)
    shutil.rmtree(model / TRANSFORMER)
    with pytest.raises(Exception, match="transformer: missing"):
        NeuralParser.load(model)


def test_an_8_bit_weight_without_its_scales_is_refused(tmp_path):
    from safetensors.numpy import load_file, save_file

    folder, _ = _model(tmp_path, "bert")
    encoder = TransformerEncoder.load(folder)
    encoder.save_weights(folder, quantize=True)
    arrays = load_file(str(folder / "model.safetensors"))
    del arrays["encoder.layer.1.output.dense.weight.scale"]
    save_file(arrays, str(folder / "model.safetensors"))
    with pytest.raises(EncoderFolderError, match="model.safetensors: the 8-bit weight encoder.layer.1.output.dense.weight has no scales"):
        TransformerEncoder.load(folder)


@pytest.mark.slow
def test_train_with_an_encoder_parses_raw_text_compacts_and_says_what_it_reads(tmp_path):
    """The whole command, the transformer fine-tuned: the model and its compact copy parse raw text."""
    from click.testing import CliRunner

    from hetdep.cli import main

    folder, _ = _model(tmp_path, "bert")
    model = tmp_path / "m"
    result = CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"),
                                       "--model", str(model), "--encoder", str(folder), "--fine-tune", "--iterations", "1",
                                       "--final-epochs", "0", "--threads", "1", "--embeddings", "none"])
    assert result.exit_code == 0, result.output
    text = tmp_path / "t.txt"
    text.write_text("Le chat dort. Il pleut sur la ville.\n", encoding="utf-8")
    small = tmp_path / "small"
    assert CliRunner().invoke(main, ["compact", str(model), "--output", str(small)]).exit_code == 0
    for parsed in (model, small):
        out = tmp_path / f"{parsed.name}.conllu"
        result = CliRunner().invoke(main, ["parse", "--model", str(parsed), "--input", str(text), "--output", str(out)])
        assert result.exit_code == 0 and out.read_text(encoding="utf-8").count("# text") == 2, result.output
    assert "a pretrained transformer (bert, fine-tuned, 3 states" in CliRunner().invoke(main, ["info", str(model)]).output
    refused = CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"),
                                        "--model", str(tmp_path / "other"), "--encoder", str(tmp_path)])
    assert refused.exit_code == 2 and "config.json: missing" in refused.output and not (tmp_path / "other").exists()


PHRASE_TREES = """( (S (NP-SBJ (DT Le) (NN chat)) (VP (VBZ dort)) (. .)) )
( (S (NP-SBJ (PRP Il)) (VP (VBD voit) (NP (DT la) (NN ville)) (PP (IN sur) (NP (DT la) (NN place)))) (. .)) )
( (FRAG (NP (NN Oui)) (. .)) )
"""


def test_the_phrase_structure_parser_reads_an_encoder_too(tmp_path):
    """--parser constituency-neural --encoder: the model carries the encoder, parses both trees, and its
    compact copy keeps the encoder in 8 bits."""
    from click.testing import CliRunner
    from conftest import write

    from hetdep.cli import main

    folder, _ = _model(tmp_path, "bert")
    train, dev = write(tmp_path, "train.mrg", PHRASE_TREES * 3), write(tmp_path, "dev.mrg", PHRASE_TREES)
    runner = CliRunner()
    result = runner.invoke(main, ["train", "--parser", "constituency-neural", "--train", str(train), "--dev", str(dev),
                                  "--model", str(tmp_path / "m"), "--iterations", "1", "--final-epochs", "0", "--embeddings",
                                  "none", "--threads", "1", "--dependency", "penn2malt", "--encoder", str(folder)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "m" / "transformer" / "model.safetensors").is_file()
    assert runner.invoke(main, ["compact", str(tmp_path / "m"), "--output", str(tmp_path / "small")]).exit_code == 0
    text = write(tmp_path, "in.txt", "Le chat dort .\nIl voit la ville sur la place .\n")
    for model in ("m", "small"):
        result = runner.invoke(main, ["parse", "--model", str(tmp_path / model), "--input", str(text), "--output", "-"])
        assert result.exit_code == 0 and result.output.count("(TOP ") == 2, result.output
    assert "a pretrained transformer (bert" in runner.invoke(main, ["info", str(tmp_path / "small")]).output


@pytest.mark.parametrize("kind", ["bert", "roberta", "distilbert"])
def test_the_fine_tuned_transformer_reads_words_as_the_numpy_encoder(tmp_path, kind):
    """--fine-tune's PyTorch transformer gives each word the states the NumPy encoder gives it
    (the same pieces, windows over long sentences, positions and mean), so what it learns parses."""
    from hetdep.neural.fine_tune import TunedTransformer

    folder, _ = _model(tmp_path, kind)
    encoder = TransformerEncoder.load(folder)
    sentences = [tuple(words) for words in SENTENCES[:5]]
    assert max(len(encoder.pieces(list(words))[0]) for words in sentences) > POSITIONS  # windows too
    tuned = TunedTransformer(encoder).eval()
    longest = max(map(len, sentences)) + 1
    with torch.no_grad():
        states = tuned(sentences, longest).numpy()
    assert states.shape == (len(sentences), longest, 3, 32) and not states[:, 0].any()
    for row, (words, want) in enumerate(zip(sentences, encoder.word_layers([list(w) for w in sentences]))):
        np.testing.assert_allclose(states[row, 1:len(words) + 1], want.transpose(1, 0, 2), rtol=1e-4, atol=3e-5)
        assert not states[row, len(words) + 1:].any()


def test_a_fine_tuned_transformer_is_trained_saved_and_parses_in_numpy(tmp_path):
    """--fine-tune: the transformer's weights change in training, the model carries the changed ones
    (not the folder's), and the loaded model parses as the trained one."""
    from hetdep.neural.parser import TRANSFORMER, NeuralParser
    from hetdep.neural.training import NeuralOptions, train_neural

    folder, _ = _model(tmp_path, "bert")
    train = [list(read_conllu(SAMPLES / "train.ud.conllu"))[:40]]
    dev = [list(read_conllu(SAMPLES / "dev.ud.conllu"))[:10]]
    options = NeuralOptions(epochs=2, final_epochs=1, hidden=16, layers=1, threads=1, batch_words=300, encoder=str(folder),
                            fine_tune=True)
    parser = train_neural(train, dev, options).parser
    name = "encoder.layer.1.output.dense.weight"
    original = TransformerEncoder.load(folder).weights[name]
    assert not np.allclose(parser.encoder.transformer.weights[name], original)
    assert not any(key.startswith("tuned.") for key in parser.arrays)
    model = tmp_path / "model"
    parser.save(model)
    loaded = NeuralParser.load(model)
    np.testing.assert_array_equal(loaded.encoder.transformer.weights[name], parser.encoder.transformer.weights[name])
    assert sorted(path.name for path in (model / TRANSFORMER).iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
    sentences = dev[0]
    assert [tree.to_text() for tree in loaded.parse(sentences)] == [tree.to_text() for tree in parser.parse(sentences)]
    again = train_neural(train, dev, options).parser  # a fixed seed, the same weights
    np.testing.assert_array_equal(again.encoder.transformer.weights[name], parser.encoder.transformer.weights[name])


def test_fine_tune_without_an_encoder_is_refused():
    from hetdep.errors import HetdepError
    from hetdep.neural.training import NeuralOptions, train_neural

    train = [list(read_conllu(SAMPLES / "train.ud.conllu"))[:5]]
    with pytest.raises(HetdepError, match="--fine-tune trains the pretrained transformer of --encoder"):
        train_neural(train, [[]], NeuralOptions(epochs=1, hidden=8, layers=1, threads=1, fine_tune=True))


def test_the_command_line_refuses_fine_tune_without_an_encoder_before_any_work(tmp_path):
    from click.testing import CliRunner

    from hetdep.cli import main

    model = tmp_path / "m"
    refused = CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev",
                                        str(SAMPLES / "dev.ud.conllu"), "--model", str(model), "--fine-tune"])
    assert refused.exit_code == 2 and "--fine-tune trains the pretrained transformer of --encoder" in refused.output
    assert not model.exists()


def test_a_model_on_an_encoder_compacted_for_int8_runs_the_transformer_in_int8_too(tmp_path):
    """hetdep compact --precision int8: the transformer's linear layers go through the runtime too,
    their states within 8-bit rounding of the float32 ones."""
    pytest.importorskip("onnx", reason="compact --precision int8 writes its graphs with onnx ('hetdep[int8]')")
    from hetdep.models.compact import compact_model
    from hetdep.models.opening import open_models
    from hetdep.models.parsing import ParseChoice
    from hetdep.neural import int8
    from hetdep.neural.training import NeuralOptions, train_neural

    if int8.unavailable():
        pytest.skip(f"int8 cannot run here: {int8.unavailable()}")
    folder, _ = _model(tmp_path, "bert")
    train = [list(read_conllu(SAMPLES / "train.ud.conllu"))[:40]]
    options = NeuralOptions(epochs=1, final_epochs=0, hidden=16, layers=1, threads=1, batch_words=300, encoder=str(folder))
    train_neural(train, [[]], options).parser.save(tmp_path / "model")
    small = compact_model(tmp_path / "model", tmp_path / "small", precision="int8")
    eight, exact = (open_models(small, ParseChoice(precision=precision), tag_input=False).parser for precision in ("int8", "float32"))
    assert len(eight.encoder.transformer.products) == 2 * 6 and not exact.encoder.transformer.products
    assert eight.encoder.transformer.activate is not None and exact.encoder.transformer.activate is None  # GELU too
    words = [SENTENCES[3][:12]]
    got, want = eight.encoder.transformer.word_layers(words)[0], exact.encoder.transformer.word_layers(words)[0]
    assert np.abs(got - want).max() < 0.05 * np.abs(want).max()
    assert len(list(eight.parse(train[0][:5]))) == 5


def test_the_gelu_is_the_exact_one_within_float32_rounding(tmp_path):
    """The NumPy GELU (its error function a polynomial, in place) against PyTorch's exact one, and
    the runtime's (int8 models' transformers) against the NumPy one, over the range and at extremes."""
    from hetdep.neural.transformer import _gelu

    torch = pytest.importorskip("torch")
    x = np.concatenate([np.linspace(-12, 12, 20001), [0.0, -0.0, 1e-30, -1e-30, 88.0, -88.0, 1e30, -1e30]]).astype(np.float32)
    want = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    got = _gelu(x.reshape(1, -1))[0]
    assert np.abs(got - want).max() <= 1e-6 * np.maximum(1.0, np.abs(want)).max() and np.isfinite(got).all()
    pytest.importorskip("onnx", reason="the runtime's graph is written with onnx ('hetdep[int8]')")
    from hetdep.neural import int8

    int8.write_graphs(tmp_path, set(), gelu=True)
    runtime = int8.RuntimeGelu(int8.sessions(tmp_path, {"gelu"})["gelu"])
    rows = x[:20000].reshape(100, 200)
    assert np.abs(runtime(rows) - _gelu(rows)).max() < 1e-6
