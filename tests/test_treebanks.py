"""Several treebanks in one neural network (hetdep.neural.treebanks): each trains its own scheme
heads (or its scheme's shared ones), the model parses as any of them, and what cannot be told
apart is refused before any work. Small networks on the samples: accuracy is bench/recipes.py's."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES, torch_network

import hetdep
from hetdep.cli import main
from hetdep.errors import HetdepError
from hetdep.neural.treebanks import Treebank, epoch_batches, scheme_heads
from hetdep.tokenizer.tokenizer import TREEBANK_BIASES, TREEBANK_SHARES, Tokenizer
from hetdep.treebank.conllu import read_conllu

torch = pytest.importorskip("torch", reason="the neural parser needs PyTorch ('hetdep[neural]')")

from hetdep.neural.parser import NeuralParser  # noqa: E402
from hetdep.neural.training import NeuralOptions, train_treebanks  # noqa: E402

SMALL = NeuralOptions(epochs=4, final_epochs=0, hidden=48, layers=1, threads=1, batch_words=300)


def _read(split: str, scheme: str) -> list:
    return list(read_conllu(SAMPLES / f"{split}.{scheme}.conllu"))


def _treebanks() -> list[Treebank]:
    """fr-sequoia's sample as a pair, and other sentences (its dev sample's last 140) as a UD treebank alone."""
    return [Treebank("seq", ("sud", "ud"), [_read("train", "sud"), _read("train", "ud")],
                     [_read("dev", "sud")[:60], _read("dev", "ud")[:60]]),
            Treebank("other", ("ud",), [_read("dev", "ud")[60:160]], [_read("dev", "ud")[160:]])]


@pytest.fixture(scope="module")
def several():
    """Scheme heads per treebank (the default shares them per scheme: tested below)."""
    return train_treebanks(_treebanks(), NeuralOptions(**{**vars(SMALL), "sharing": "per-treebank"}))


def test_each_batch_once_an_epoch_at_temperature_one():
    rng = np.random.default_rng(1)
    batches = [[[k] for k in range(10)], [[100 + k] for k in range(3)]]
    drawn = epoch_batches(batches, 1.0, rng)
    assert sorted(chosen[0] for _, chosen in drawn) == list(range(10)) + [100, 101, 102]
    assert all((treebank == 1) == (chosen[0] >= 100) for treebank, chosen in drawn)


def test_a_higher_temperature_draws_the_small_treebank_more_often_its_batches_evenly():
    batches = [[[k] for k in range(30)], [[100 + k] for k in range(3)]]
    drawn = epoch_batches(batches, 4.0, np.random.default_rng(2))
    small = Counter(chosen[0] for treebank, chosen in drawn if treebank == 1)
    assert len(drawn) == 33 and sum(small.values()) == 12  # 33 batches: 30^(1/4) : 3^(1/4) -> 21 : 12
    assert set(small) == {100, 101, 102} and max(small.values()) - min(small.values()) <= 1


def test_scheme_heads_per_treebank_or_shared_per_scheme():
    treebanks = _treebanks()
    assert scheme_heads(treebanks, "per-treebank") == [[0, 1], [2]]
    assert scheme_heads(treebanks, "per-scheme") == [[0, 1], [1]]  # other's ud trees train seq's ud head


def test_each_treebank_has_its_heads_and_dev_scores(several):
    parser = several.parser
    assert parser.treebank_names == ["seq", "other"] and parser.shape.labels == tuple(map(len, parser.vocabularies.labels))
    assert len(parser.shape.labels) == 3 and parser.shape.treebanks == 2
    best = several.history[several.best_iteration - 1]
    assert {"LAS_seq_sud", "LAS_seq_ud", "LAS_other", "UPOS_seq", "UPOS_other"} <= set(best.dev_detail)
    las = [value for key, value in best.dev_detail.items() if key.startswith("LAS")]
    assert best.dev_las == pytest.approx(np.mean(las), abs=0.01)  # the epoch is chosen by the mean over treebanks


def test_it_parses_as_any_of_its_treebanks(several):
    sentences = _read("dev", "ud")[:20]
    pairs = list(several.parser.parse(sentences))  # the first treebank by default: a pair of schemes
    assert all(isinstance(pair, tuple) and len(pair) == 2 for pair in pairs)
    other = several.parser.for_treebank("other")
    trees = list(other.parse(sentences))
    assert all(not isinstance(tree, tuple) and len(tree) == len(s) for tree, s in zip(trees, sentences))
    assert other.schemes == 1 and several.parser.schemes == 2
    ud_labels = set(other.vocabularies.labels[2])
    assert all(label in ud_labels for tree in trees for label in tree.deprels)
    with pytest.raises(HetdepError, match="no treebank 'nope'.*seq, other"):
        several.parser.for_treebank("nope")


def test_the_numpy_forward_pass_reads_the_treebank_embedding_as_pytorch_does(several):
    parser = several.parser
    network = torch_network(parser)
    for treebank in (0, 1):
        batch = parser.encoder.batch([_read("dev", "ud")[:30]], treebank=treebank)
        with torch.inference_mode():
            encoded = network.encode(batch.tensors()).numpy()
        assert np.abs(parser.network.encode(batch) - encoded).max() < 1e-4
    first, second = (parser.network.encode(parser.encoder.batch([_read("dev", "ud")[:5]], treebank=k)) for k in (0, 1))
    assert np.abs(first - second).max() > 1e-3  # the embedding is read: the treebanks are encoded apart


def test_saved_and_loaded_it_parses_each_treebank_the_same(several, tmp_path):
    several.parser.save(tmp_path / "m")
    loaded = NeuralParser.load(tmp_path / "m")
    sentences = _read("dev", "ud")[:20]
    for name in ("seq", "other"):
        mine = [_text(parsed) for parsed in several.parser.for_treebank(name).parse(sentences)]
        assert mine == [_text(parsed) for parsed in loaded.for_treebank(name).parse(sentences)]


def _text(parsed) -> str:
    return "".join(tree.to_text() for tree in (parsed if isinstance(parsed, tuple) else (parsed,)))


def test_shared_scheme_heads_train_one_head_per_scheme():
    result = train_treebanks(_treebanks(), NeuralOptions(**{**vars(SMALL), "epochs": 1, "sharing": "per-scheme"}))
    parser = result.parser
    assert len(parser.shape.labels) == 2 and parser.for_treebank("other").heads == (1,)


@pytest.mark.parametrize("treebanks, message", [
    ([Treebank("a", ("ud",), [[]], [[]])], "no training sentences"),
    ([Treebank("a", ("ud", "ud"), [_read("train", "ud")] * 2, [[], []])], "cannot be told apart"),
])
def test_treebanks_that_cannot_train_are_refused(treebanks, message):
    with pytest.raises(HetdepError, match=message):
        train_treebanks(treebanks, SMALL)


def _option(name: str, scheme: str, train, dev) -> list[str]:
    return ["--treebank", name, scheme, str(train), str(dev)]


@pytest.mark.slow
def test_the_command_line_trains_on_several_treebanks_and_parses_as_each(tmp_path):
    train_other, dev_other = tmp_path / "other.conllu", tmp_path / "other-dev.conllu"
    dev = _read("dev", "ud")
    train_other.write_text("".join(s.to_text() for s in dev[60:130]), encoding="utf-8")
    dev_other.write_text("".join(s.to_text() for s in dev[130:160]), encoding="utf-8")
    model = tmp_path / "m"
    result = CliRunner().invoke(main, [
        "train", *_option("seq", "sud", SAMPLES / "train.sud.conllu", SAMPLES / "dev.sud.conllu"),
        *_option("seq", "ud", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"),
        *_option("other", "ud", train_other, dev_other), "--model", str(model), "--iterations", "1",
        "--final-epochs", "0", "--threads", "1"])
    assert result.exit_code == 0, result.output
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    assert [t["name"] for t in config["vocabularies"]["treebanks"]] == ["seq", "other"]
    assert config["schemes"] == ["sud", "ud"] and any(f["role"] == "train:other:ud" for f in config["training_files"])
    assert config["pipeline"]["treebank_taggers"] == {"other": ["feats"]}  # FEATS conventions are a treebank's own
    assert (model / "treebank-taggers" / "other" / "feats" / "config.json").is_file()
    info = CliRunner().invoke(main, ["info", str(model)]).output
    assert "treebanks: seq (sud, ud); other (ud)" in info
    text = tmp_path / "t.txt"
    text.write_text("Le conseil municipal s'est réuni hier.\n", encoding="utf-8")
    out = tmp_path / "o.conllu"
    result = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(text), "--output", str(out),
                                       "--treebank", "other"])
    assert result.exit_code == 0, result.output
    assert len(list(read_conllu(out))) == 1
    refused = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(text), "--output",
                                        str(tmp_path / "x.conllu"), "--treebank", "gsd"])
    assert refused.exit_code == 2 and "no treebank 'gsd'" in refused.output and not (tmp_path / "x.conllu").exists()
    document = hetdep.load(model, treebank="other")("Le chat dort.")
    assert document.schemes == ("ud",)
    other, first = hetdep.load(model).for_treebank("other")._models, hetdep.load(model)._models
    own = next(tagger for tagger in other.taggers if tagger.column == "feats")
    assert own is other.own_taggers["other"]["feats"] and own not in first.taggers  # parsed as "other", its own FEATS tagger tags
    assert set(first.own_taggers) == {"other"} and first.own_taggers.read() == []  # checked at opening, read when parsed as
    assert other.own_taggers.read() == ["other"]
    biases = json.loads((model / "tokenizer" / "config.json").read_text(encoding="utf-8"))[TREEBANK_BIASES]
    assert set(biases) == {"seq", "other"}  # each treebank's sentence ends, fitted on its dev text
    shares = json.loads((model / "tokenizer" / "config.json").read_text(encoding="utf-8"))[TREEBANK_SHARES]
    assert set(shares) == {"seq", "other"}  # and each its choice of the trained shares' tables
    trained = Tokenizer.load(model / "tokenizer")
    for name, tokenizer in [("other", other.tokenizer), ("seq", first.tokenizer)]:  # the first's by default
        base = trained.variants.get(shares[name], trained.weights)
        assert tokenizer.weights == base.with_bias(biases[name])
    from hetdep.service.requests import served_names

    assert {"m", "m-sud", "m-ud", "m-seq", "m-seq-ud", "m-other"} <= set(served_names({"m": hetdep.load(model)}))
    shutil.rmtree(model / "treebank-taggers" / "other")
    damaged = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(text), "--output",
                                        str(tmp_path / "y.conllu")])
    assert damaged.exit_code == 2 and "not those the model was trained with" in damaged.output


@pytest.mark.parametrize("extra, message", [
    (_option("seq", "ud", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"), "given twice"),
    (_option("seq", "x", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu")
     + _option("seq", "y", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"), "3 schemes"),
    (["--train", str(SAMPLES / "train.ud.conllu")], "--train"),
    (["--parser", "dep1"], "neural model"),
    (_option("bad", "ud", SAMPLES / "README.md", SAMPLES / "dev.ud.conllu"), "README.md"),
    (["--tokenizer-treebank", "gsd", str(SAMPLES / "train.ud.conllu"), str(SAMPLES / "dev.ud.conllu")], "no --treebank of that name"),
    (["--tokenizer-treebank", "seq", str(SAMPLES / "train.ud.conllu"), str(SAMPLES / "dev.ud.conllu")] * 2, "given twice"),
    (["--tokenizer-treebank", "seq", str(SAMPLES / "train.ud.conllu"), str(SAMPLES / "dev.ud.conllu"), "--no-tokenizer"],
     "--no-tokenizer leaves out"),
    # Found by the fuzzer: refused only after the tokenizer and taggers had trained, or never.
    (["--temperature", "nan"], "'nan' is not a finite number"),
    (["--temperature", "inf"], "'inf' is not a finite number"),
    (_option(" ", "ud", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"), "--treebank ' ': a treebank or scheme name"),
    (_option("a\nb", "ud", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"), "--treebank 'a\\nb': a treebank"),
    (_option("other", "u d", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"), "--treebank other 'u d': a treebank"),
    (_option("../x", "ud", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"), "--treebank '../x': a treebank"),
])
def test_treebanks_the_command_line_cannot_tell_apart_are_refused_before_any_work(tmp_path, extra, message):
    result = CliRunner().invoke(main, ["train", *_option("seq", "ud", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"),
                                       *extra, "--model", str(tmp_path / "m"), "--iterations", "1"])
    assert result.exit_code != 0 and message in result.output, result.output
    assert "Traceback" not in result.output and not (tmp_path / "m").exists()


@pytest.mark.parametrize("treebanks", [False, True])
def test_an_empty_dev_file_is_refused_before_any_work(tmp_path, treebanks):
    """Found by the fuzzer: a traceback once training was done (--dev), or a treebank never scored (--treebank)."""
    empty = tmp_path / "empty.conllu"
    empty.write_text("", encoding="utf-8")
    files = (_option("seq", "ud", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu")
             + _option("other", "ud", SAMPLES / "dev.ud.conllu", empty) if treebanks else
             ["--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(empty)])
    result = CliRunner().invoke(main, ["train", *files, "--model", str(tmp_path / "m")])
    assert result.exit_code == 2 and result.output == f"hetdep: error: {empty}: no sentence in this file: training and dev " \
                                                      "files need sentences\n"
    assert not (tmp_path / "m").exists()


def test_a_temperature_too_small_for_powers_still_draws_every_treebank():
    """Found by the fuzzer: n^(1/T) overflowed from T = 0.005, every epoch drew no batch and the
    network never learned; as logarithms the largest treebank takes nearly every batch."""
    batches = [[[k] for k in range(400)], [[1000 + k] for k in range(30)]]
    for temperature in (0.005, 1e-300):
        drawn = epoch_batches(batches, temperature, np.random.default_rng(3))
        assert len(drawn) == 431 and Counter(treebank for treebank, _ in drawn) == {0: 430, 1: 1}


def test_a_tokenizer_treebank_needs_treebanks(tmp_path):
    result = CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev",
                                       str(SAMPLES / "dev.ud.conllu"), "--model", str(tmp_path / "m"), "--tokenizer-treebank",
                                       "a", str(SAMPLES / "train.ud.conllu"), str(SAMPLES / "dev.ud.conllu")])
    assert result.exit_code == 2 and "give --treebank" in result.output and not (tmp_path / "m").exists()


@pytest.mark.slow
def test_the_tokenizer_learns_a_treebank_s_text_from_the_files_it_is_given(tmp_path):
    """--tokenizer-treebank: the tokenizer learns "other"'s text from other files (a part of its
    training split here) and fits its sentence ends on them; the parser learns all of it."""
    from hetdep.tokenizer.text import gold_text

    dev = _read("dev", "ud")
    files = {name: tmp_path / f"{name}.conllu" for name in ("train", "dev", "tokenizer-train")}
    for name, sentences in [("train", dev[60:130]), ("dev", dev[130:160]), ("tokenizer-train", dev[60:80])]:
        files[name].write_text("".join(sentence.to_text() for sentence in sentences), encoding="utf-8")
    model = tmp_path / "m"
    result = CliRunner().invoke(main, [
        "train", *_option("seq", "ud", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"),
        *_option("other", "ud", files["train"], files["dev"]), "--tokenizer-treebank", "other", str(files["tokenizer-train"]),
        str(files["dev"]), "--model", str(model), "--iterations", "1", "--final-epochs", "0", "--threads", "1"])
    assert result.exit_code == 0, result.output
    record = json.loads((model / "tokenizer" / "config.json").read_text(encoding="utf-8"))
    assert record["training_sentences"] == len(gold_text(_read("train", "ud") + dev[60:80]).tokens)
    assert set(record[TREEBANK_BIASES]) == {"seq", "other"}
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    assert any(f["role"] == "train:other:ud" and f["sentences"] == 70 for f in config["training_files"])


def test_sharing_and_temperature_need_several_treebanks(tmp_path):
    result = CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev",
                                       str(SAMPLES / "dev.ud.conllu"), "--model", str(tmp_path / "m"), "--temperature", "2"])
    assert result.exit_code == 2 and "--temperature is for several treebanks" in result.output


def test_parsed_as_another_treebank_its_own_feats_tagger_helps_the_feats_head(tmp_path):
    """A network with a FEATS head mixed with the first treebank's FEATS tagger: parsed as another
    treebank, that treebank's own FEATS tagger helps instead, at the same weight."""
    from hetdep.models.opening import open_models
    from hetdep.models.tag_mixing import helper
    from hetdep.tagger.training import TaggerOptions, train_tagger

    trained = train_treebanks(_treebanks(), NeuralOptions(**{**vars(SMALL), "epochs": 1, "feats_head": True}))
    model = tmp_path / "m"
    trained.parser.save(model, pipeline={"tag_weights": {"feats": 0.5}, "taggers": ["feats"],
                                         "treebank_taggers": {"other": ["feats"]}})
    options = TaggerOptions(column="feats", iterations=2, reads="upos")
    first = train_tagger(_read("train", "sud")[:100], _read("dev", "sud")[:30], options).parser
    other = train_tagger(_read("dev", "ud")[60:160], _read("dev", "ud")[160:], options).parser
    first.save(model / "tagger" / "feats")
    other.save(model / "treebank-taggers" / "other" / "feats")
    names = trained.parser.vocabularies.tags[trained.parser.vocabularies.tag_columns.index("feats")]
    sentence = _read("dev", "ud")[0]
    opened = open_models(model)
    as_other = opened.for_treebank("other")
    assert opened.taggers == [] and as_other.taggers == []  # helpers of the head, not taggers after it
    for models, tagger in ((opened, first), (as_other, other)):
        mixed, weight = models.parser.tag_helpers["feats"]
        assert weight == 0.5 and np.array_equal(mixed(sentence), helper(tagger, names)(sentence))
    assert not np.array_equal(helper(first, names)(sentence), helper(other, names)(sentence))
    assert opened.parser.tag_helpers["feats"][0] is not as_other.parser.tag_helpers["feats"][0]
