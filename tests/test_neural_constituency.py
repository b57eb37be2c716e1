"""The neural phrase-structure parser (``--parser constituency-neural``): trees as labelled spans and
back, the chart decoder against its reference, the span head's NumPy forward pass against PyTorch's,
learning on WSJ trees, and the command line (both trees from one network). Small networks: the
accuracy on the WSJ sample is bench/bench_constituency.py's."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SHARED_DATA, needs_shared, torch_network, write
from hypothesis import given, settings
from hypothesis import strategies as st

import hetdep
from hetdep.cli import main
from hetdep.neural import _chart
from hetdep.neural.phrases import EMPTY, best_spans, labelled_spans, tree_from_spans
from hetdep.treebank.phrase_trees import bracketed
from hetdep.treebank.ptb import clean, parse_trees, read_trees

TREES = """( (S (NP-SBJ (DT The) (JJ big) (NN dog)) (VP (VBZ barks)) (. .)) )
( (S (NP-SBJ (PRP It)) (VP (VBD saw) (NP (DT the) (NN cat)) (PP (IN in) (NP (DT the) (NN garden)))) (. .)) )
( (S (VP (VB Go))) )
( (S (NP-SBJ (NNS Cats)) (VP (VBP sleep) (ADVP (RB often))) (, ,) (S (NP (PRP they)) (VP (VBP say))) (. .)) )
( (FRAG (NP (NN Yes)) (. .)) )
"""


def roots(text: str = TREES) -> list:
    return [clean(tree.root) for tree in parse_trees(text)]


def test_a_tree_is_its_phrases_spans_with_unary_chains_joined():
    first, _, go, *_ = roots()
    assert labelled_spans(first) == {(0, 3): "NP", (3, 4): "VP", (0, 5): "S"}
    assert labelled_spans(go) == {(0, 1): "S+VP"}  # a chain down to one word: one span, its labels top-down


def _scores_for(root, labels: list[str]) -> np.ndarray:
    """Span scores that prefer the tree's own spans: its labels at 0, every other span's empty label at -1."""
    n = len(root.leaves())
    scores = np.full((n + 1, n + 1, len(labels)), -5.0)
    scores[:, :, 0] = -1.0
    for (i, j), label in labelled_spans(root).items():
        scores[i, j, labels.index(label)] = 0.0
    return scores


def test_the_best_spans_of_a_tree_s_own_scores_give_the_tree_back():
    """Phrases of three or more children are binary chains of empty spans, dissolved when the tree is built."""
    all_roots = roots()
    labels = [EMPTY] + sorted({label for root in all_roots for label in labelled_spans(root).values()})
    for root in all_roots:
        leaves = root.leaves()
        split, label, _ = best_spans(_scores_for(root, labels), len(leaves))
        rebuilt = tree_from_spans([leaf.word for leaf in leaves], [leaf.label for leaf in leaves], split, label, labels)
        assert rebuilt.to_text() == root.to_text()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 14), st.integers(2, 5), st.integers(0, 2 ** 31 - 1))
def test_the_chart_in_array_steps_is_its_reference(n, labels, seed):
    """The same tree, labels, ties and score (a model has the empty label and one phrase label at least)."""
    scores = np.random.default_rng(seed).normal(size=(n + 1, n + 1, labels))
    if seed % 3 == 0:
        scores = np.round(scores)  # ties: the first label and the first split win in both
    expected, found = best_spans(scores, n), _chart.best_spans(scores, n)
    upper = np.triu(np.ones((n + 1, n + 1), dtype=bool), 1)
    assert (expected[0][upper] == found[0][upper]).all() and (expected[1][upper] == found[1][upper]).all()
    assert expected[2] == found[2]
    assert expected[1][0, n] > 0  # the whole sentence takes a phrase's label, never the empty one


def test_a_sentence_of_thousands_of_words_gives_a_tree():
    n = 3000
    split = np.zeros((n + 1, n + 1), dtype=np.int64)
    label = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i in range(n - 1):  # right-branching, every span labelled: 3,000 phrases deep
        split[i, n] = i + 1
        label[i, n] = 1
    label[n - 1, n] = 1
    root = tree_from_spans(["w"] * n, ["NN"] * n, split, label, [EMPTY, "X"])
    assert len(root.leaves()) == n
    assert bracketed(root).count("(X") == n  # written without recursion too


torch = pytest.importorskip("torch", reason="training the neural parser needs PyTorch ('hetdep[neural]')")


@functools.cache
def _wsj_treebank(dependency: str | None = None):
    """The WSJ sample's first 200 trees to train on, the 20 before them as dev."""
    from hetdep.constituency.neural_pipeline import treebank_of
    from hetdep.constituency.training import read_treebank

    trees = read_treebank(SHARED_DATA / "en-wsj-sample" / "treebank.zip")[:220]
    return treebank_of(trees[20:], trees[:20], dependency)


@pytest.fixture(scope="module")
def wsj_result():
    from hetdep.neural.training import NeuralOptions, train_treebanks

    options = NeuralOptions(epochs=8, final_epochs=0, hidden=48, layers=1, threads=1, batch_words=400)
    return train_treebanks([_wsj_treebank("penn2malt")], options)


@needs_shared
def test_one_network_learns_phrase_structure_dependencies_and_tags(wsj_result):
    first, best = wsj_result.history[0], wsj_result.history[wsj_result.best_iteration - 1]
    assert best.dev_detail["F1"] > first.dev_detail["F1"] + 10  # it learns (200 training trees: far from bench figures)
    assert best.dev_detail["LAS_penn2malt"] > first.dev_detail["LAS_penn2malt"] + 10
    assert best.dev_detail["XPOS"] > first.dev_detail["XPOS"] + 10


@needs_shared
def test_the_span_head_s_numpy_pass_is_the_pytorch_one(wsj_result):
    parser = wsj_result.parser
    network = torch_network(parser)
    sentences = _wsj_treebank().dev[0]
    batch = parser.encoder.batch([sentences])
    with torch.inference_mode():
        encoded = network.encode(batch.tensors())
        raw = network.spans(encoded).double()
        expected = (raw - raw[..., :1]).numpy()
    mine = parser.network.encode(batch)
    for row, sentence in enumerate(sentences):
        n = len(sentence)
        found = parser.network.span_scores(mine[row], n)
        upper = np.triu(np.ones((n + 1, n + 1), dtype=bool), 1)
        assert np.abs(found - expected[row, :n + 1, :n + 1])[upper].max() < 1e-3


@needs_shared
def test_a_saved_model_parses_the_same_trees(wsj_result, tmp_path):
    sentences = _wsj_treebank().dev[0]
    wsj_result.parser.save(tmp_path / "m")
    from hetdep.neural.parser import NeuralParser

    loaded = NeuralParser.load(tmp_path / "m")
    before = [(tree.to_text(), deps.to_text()) for tree, deps in wsj_result.parser.parse(sentences)]
    assert [(tree.to_text(), deps.to_text()) for tree, deps in loaded.parse(sentences)] == before


def test_the_command_line_trains_and_parses_both_trees(tmp_path):
    train = write(tmp_path, "train.mrg", TREES * 3)
    dev = write(tmp_path, "dev.mrg", TREES)
    runner = CliRunner()
    result = runner.invoke(main, ["train", "--parser", "constituency-neural", "--train", str(train), "--dev", str(dev),
                                  "--model", str(tmp_path / "m"), "--iterations", "2", "--final-epochs", "0",
                                  "--embeddings", "none", "--threads", "1", "--dependency", "penn2malt"])
    assert result.exit_code == 0, result.output
    # each epoch's dev score as it ends, a line each when not on a terminal (a training logged to a file)
    assert "parser: epoch 1 done, dev mean of F1 and LAS " in result.output and "parser: epoch 2 done" in result.output
    assert not (tmp_path / "m" / "state").exists()
    text = write(tmp_path, "in.txt", "The dog barks .\nIt saw the cat in the garden today , they say .\n")
    result = runner.invoke(main, ["parse", "--model", str(tmp_path / "m"), "--input", str(text),
                                  "--output", str(tmp_path / "out.mrg"), "--output-b", str(tmp_path / "out.conllu")])
    assert result.exit_code == 0, result.output
    trees = list(read_trees(tmp_path / "out.mrg"))
    assert [len(clean(tree.root).leaves()) for tree in trees] == [4, 12]
    deps = (tmp_path / "out.conllu").read_text(encoding="utf-8")
    assert deps.count("\n\n") == 2 and "\t0\t" in deps
    result = runner.invoke(main, ["parse", "--model", str(tmp_path / "m"), "--input", str(text), "--output", "-"])
    assert result.exit_code == 0 and result.output.count("(TOP ") == 2  # --output alone: the phrase-structure trees
    result = runner.invoke(main, ["parse", "--model", str(tmp_path / "m"), "--input", str(text), "--output", "-",
                                  "--to-dependency", "penn2malt"])  # its phrase-structure trees by head rules
    assert result.exit_code == 0 and result.output.count("\t0\t") == 2 and "(TOP" not in result.output
    # hetdep.load: the dependency trees the network learned, each sentence's phrase-structure tree beside them
    loaded = hetdep.load(tmp_path / "m")
    document = loaded.parse([line.split() for line in text.read_text(encoding="utf-8").splitlines()])
    assert loaded.schemes == ("penn2malt",) and document.to_conllu() == deps
    assert [sentence.phrase_tree + "\n" for sentence in document] == (tmp_path / "out.mrg").read_text(encoding="utf-8").splitlines(True)
    assert "label-phrase" in document.sentences[0].render() and document.render().count("<figure>") == 2
    from starlette.testclient import TestClient

    from hetdep.service.app import create_app

    served = TestClient(create_app({"wsj": str(tmp_path / "m")})).post(  # the service gives those dependency trees
        "/process", data={"data": text.read_text(encoding="utf-8"), "model": "wsj", "input": "horizontal", "tagger": "", "parser": ""})
    assert served.status_code == 200 and served.json()["result"] == deps
    document = hetdep.load(tmp_path / "m", to_dependency="penn2malt").parse([["The", "dog", "barks", "."]])
    assert len(document.sentences) == 1 and len(document.sentences[0].words) == 4 and document.sentences[0].phrase_tree is None
    result = runner.invoke(main, ["compact", str(tmp_path / "m"), "--output", str(tmp_path / "small")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["parse", "--model", str(tmp_path / "small"), "--input", str(text), "--output", "-"])
    assert result.exit_code == 0 and result.output.count("(TOP ") == 2  # the 8-bit model parses as its kind
    result = runner.invoke(main, ["info", str(tmp_path / "m")])
    assert "'constituency-neural'" in result.output and "schemes: phrase-structure, penn2malt" in result.output
    words = write(tmp_path, "dev.txt", "".join(" ".join(leaf.word for leaf in root.leaves()) + "\n" for root in roots()))
    result = runner.invoke(main, ["parse", "--model", str(tmp_path / "m"), "--input", str(words), "--format", "tokenized",
                                  "--output", str(tmp_path / "dev.out.mrg")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["eval", "--const", str(dev), str(tmp_path / "dev.out.mrg")])
    assert result.exit_code == 0 and "sentences 5 " in result.output and "F1" in result.output


@pytest.mark.parametrize("options, message", [
    (["--parser", "neural", "--dependency", "penn2malt"], "--dependency is for --parser constituency-neural"),
    (["--parser", "constituency-neural", "--gold-tags"], "--gold-tags does not apply to --parser constituency-neural"),
    (["--parser", "constituency-neural", "--dependency", "nosuch"], "no head table 'nosuch'"),
])
def test_options_the_model_lacks_are_refused_in_one_line(tmp_path, options, message):
    train = write(tmp_path, "train.mrg", TREES)
    result = CliRunner().invoke(main, ["train", "--train", str(train), "--dev", str(train), "--model", str(tmp_path / "m"),
                                       "--embeddings", "none", *options])
    assert result.exit_code != 0 and message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "m").exists()


def test_conllu_training_files_are_refused(tmp_path):
    train = write(tmp_path, "train.conllu", "1\tA\t_\tX\t_\t_\t0\troot\t_\t_\n\n")
    result = CliRunner().invoke(main, ["train", "--parser", "constituency-neural", "--train", str(train), "--dev",
                                       str(train), "--model", str(tmp_path / "m")])
    assert result.exit_code != 0 and "trains from bracketed trees" in result.output


def test_dependency_treebanks_of_other_sentences_train_the_encoder_beside_the_bracketed_trees(tmp_path):
    pytest.importorskip("torch", reason="training the neural parser needs PyTorch")
    train, dev = write(tmp_path, "train.mrg", TREES * 3), write(tmp_path, "dev.mrg", TREES)
    other = tmp_path / "other.conllu"  # another treebank: other trees (Collins's heads), read as CoNLL-U
    runner = CliRunner()
    assert runner.invoke(main, ["convert", "--from", "ptb", "--rules", "collins", str(train), str(other)]).exit_code == 0
    common = ["train", "--parser", "constituency-neural", "--train", str(train), "--dev", str(dev), "--iterations", "2",
              "--final-epochs", "0", "--embeddings", "none", "--threads", "1", "--dependency", "penn2malt"]
    result = runner.invoke(main, [*common, "--model", str(tmp_path / "m"), "--treebank", "web", "collins", str(other), str(other)])
    assert result.exit_code == 0, result.output
    assert "F1_bracketed" in result.output and "LAS_web_collins" in result.output and "LAS_bracketed_penn2malt" in result.output
    info = runner.invoke(main, ["info", str(tmp_path / "m")]).output
    assert "schemes: phrase-structure, penn2malt" in info and "web" in info
    text = write(tmp_path, "in.txt", "The dog barks .\n")
    result = runner.invoke(main, ["parse", "--model", str(tmp_path / "m"), "--input", str(text),
                                  "--output", str(tmp_path / "out.mrg"), "--output-b", str(tmp_path / "out.conllu")])
    assert result.exit_code == 0, result.output  # as the bracketed treebank: its phrase structure and its Penn2Malt trees
    assert (tmp_path / "out.mrg").read_text(encoding="utf-8").count("(TOP ") == 1
    assert (tmp_path / "out.conllu").read_text(encoding="utf-8").count("\t0\t") == 1
    result = runner.invoke(main, [*common, "--model", str(tmp_path / "n"), "--treebank", "bracketed", "collins", str(other),
                                  str(other)])
    assert result.exit_code != 0 and "named twice" in result.output and "Traceback" not in result.output
    result = runner.invoke(main, ["train", "--parser", "neural", "--train", str(other), "--dev", str(other), "--model",
                                  str(tmp_path / "o"), "--treebank", "web", "collins", str(other), str(other)])
    assert result.exit_code != 0 and "--train" in result.output and "Traceback" not in result.output
