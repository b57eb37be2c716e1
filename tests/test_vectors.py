"""Pretrained vectors for training without a detour (hetdep.models.vectors): a vectors file, a
neural model's own table, and by default the shipped model's for text in its language."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from hetdep.cli import main
from hetdep.errors import HetdepError
from hetdep.models.names import find_model
from hetdep.models.vectors import default_vectors, read_vectors
from hetdep.treebank.conllu import read_conllu


def test_the_shipped_models_table_is_a_source_of_vectors():
    words, vectors = read_vectors(find_model(None))
    assert len(words) == 200_000 and vectors.shape == (200_000, 100)
    assert "maison" in words and np.isfinite(vectors).all()
    chat, chien, maison = (vectors[words.index(w)] for w in ("chat", "chien", "maison"))
    cosine = lambda a, b: float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))  # noqa: E731
    assert cosine(chat, chien) > cosine(chat, maison)  # real vectors, not noise


def test_the_default_is_the_shipped_model_of_the_language_s_vectors():
    assert default_vectors("fr") == str(find_model(None)) and default_vectors("en") == str(find_model("en"))
    assert default_vectors("zh") is None and default_vectors(None) is None  # no Chinese model ships


def test_a_vectors_file_reads_as_before(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("2 3\nChat 1 0 0\nchien 0 1 0\n", encoding="utf-8")
    words, vectors = read_vectors(path)
    assert words == ["chat", "chien"] and vectors.shape == (2, 3)


@pytest.mark.parametrize("source, message", [
    ("no-such-vectors", "no vectors file, model directory or installed model"),
    (str(SAMPLES), "neither a vectors file nor a model directory"),
])
def test_what_is_not_a_source_of_vectors_is_refused_in_one_line(source, message):
    with pytest.raises(HetdepError, match=message):
        read_vectors(source)


def test_a_model_without_vectors_is_refused(tmp_path):
    (tmp_path / "m").mkdir()
    config = json.loads((find_model(None) / "config.json").read_text(encoding="utf-8"))
    config["network"]["pretrained"] = 0
    (tmp_path / "m" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(HetdepError, match="carries no pretrained vectors"):
        read_vectors(tmp_path / "m")


def test_training_with_embeddings_none_reads_no_vectors(tmp_path):
    pytest.importorskip("torch", reason="the neural parser needs PyTorch")
    train = tmp_path / "train.conllu"
    train.write_text("".join(s.to_text() for s in list(read_conllu(SAMPLES / "train.ud.conllu"))[:30]), encoding="utf-8")
    result = CliRunner().invoke(main, ["train", "--train", str(train), "--dev", str(train), "--model", str(tmp_path / "m"),
                                       "--iterations", "1", "--final-epochs", "0", "--threads", "1", "--no-tokenizer",
                                       "--embeddings", "none"])
    assert result.exit_code == 0, result.output
    config = json.loads((tmp_path / "m" / "config.json").read_text(encoding="utf-8"))
    assert config["network"]["pretrained"] == 0 and "pretrained vectors" not in result.output
