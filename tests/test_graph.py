"""The first-order graph-based parser (dep1): Eisner against brute force, training, model files, CLI."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from hetdep.cli import main
from hetdep.errors import HetdepError
from hetdep.evaluation.attachment import evaluate
from hetdep.graph import _eisner, _grandparent, _kbest, _sibling
from hetdep.graph.parser import SECOND_ORDER_MAX_WORDS, GraphParser, train_concatenated, train_graph
from hetdep.learn.model_files import ModelFileError
from hetdep.learn.perceptron import TrainOptions
from hetdep.treebank.conllu import find_cycle, read_conllu
from hetdep.treebank.inputs import read_tokenized_text
from hetdep.treebank.projectivity import is_projective

TRAIN = list(read_conllu(SAMPLES / "train.ud.conllu"))
DEV = list(read_conllu(SAMPLES / "dev.ud.conllu"))


def trees_with_one_root(n: int):
    """Every tree of n words (projective or not) with exactly one word on the root (heads of words 1..n)."""
    for heads in itertools.product(range(n + 1), repeat=n):
        if sum(h == 0 for h in heads) == 1 and all(h != i for i, h in enumerate(heads, 1)) and not find_cycle(list(heads)):
            yield heads


def projective_trees(n: int):
    """Every projective tree of n words with exactly one word on the root."""
    return (heads for heads in trees_with_one_root(n) if is_projective(list(heads)))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_eisner_finds_the_best_projective_tree(n):
    rng = np.random.default_rng(n)
    trees = list(projective_trees(n))
    for _ in range(20):
        scores = rng.normal(size=(n + 1, n + 1))
        heads, total = _eisner.eisner(scores, n)
        best = max(sum(scores[h, m] for m, h in enumerate(tree, 1)) for tree in trees)
        assert tuple(heads[1:]) in trees
        assert total == pytest.approx(best) and sum(scores[heads[m], m] for m in range(1, n + 1)) == pytest.approx(best)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 20])
def test_the_plain_and_array_eisners_give_the_compiled_one_s_heads_and_score_ties_included(n):
    from hetdep.graph import eisner_arrays, reference

    rng = np.random.default_rng(n)
    for trial in range(30):
        scores = rng.normal(size=(n + 1, n + 1)).astype(np.float32)
        if trial % 3 == 1:
            scores = rng.integers(-2, 3, size=(n + 1, n + 1)).astype(np.float32)  # many equal trees
        if trial % 3 == 2:
            scores = np.where(rng.random((n + 1, n + 1)) < 0.3, -1e31, scores)  # arcs below NEG: spans nothing reaches
        compiled_heads, compiled_total = _eisner.eisner(scores, n)
        for heads, total in (reference.eisner(scores, n), eisner_arrays.eisner(scores, n)):
            assert heads.tolist() == compiled_heads.tolist() and total == compiled_total


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_mst_finds_the_best_tree_projective_or_not(n):
    from hetdep.graph.mst import mst

    rng = np.random.default_rng(10 + n)
    trees = list(trees_with_one_root(n))
    for trial in range(30):
        scores = rng.normal(size=(n + 1, n + 1))
        if trial % 3 == 0:
            scores[0, 1:] += 3.0  # every word drawn to the root: the one-root constraint must act
        heads, total = mst(scores, n)
        best = max(sum(scores[h, m] for m, h in enumerate(tree, 1)) for tree in trees)
        assert tuple(heads[1:]) in trees
        assert total == pytest.approx(best)


def test_arc_features_see_direction_and_in_between_tags():
    words, tags = np.array([0, 5, 6, 7, 8]), np.array([0, 2, 3, 3, 4])
    keys = np.zeros(_eisner.MAX_KEYS, dtype=np.uint64)
    right = set(keys[:_eisner.arc_keys(words, tags, 4, 1, 4, 0, 0, keys)].tolist())
    count_left = _eisner.arc_keys(words, tags, 4, 4, 1, 0, 0, keys)
    assert count_left == len(right) == 2 * _eisner.N_CORE + 1  # one distinct tag between 1 and 4
    assert right.isdisjoint(keys[:count_left].tolist())


def test_domain_copies_add_one_key_per_shared_key():
    words, tags = np.array([0, 5, 6, 7, 8]), np.array([0, 2, 3, 3, 4])
    keys = np.zeros(_eisner.MAX_KEYS, dtype=np.uint64)
    shared = keys[:_eisner.arc_keys(words, tags, 4, 1, 4, 0, 0, keys)].tolist()
    first = keys[:_eisner.arc_keys(words, tags, 4, 1, 4, 0, 1, keys)].tolist()
    second = keys[:_eisner.arc_keys(words, tags, 4, 1, 4, 0, 2, keys)].tolist()
    assert first[:len(shared)] == second[:len(shared)] == shared
    assert len(first) == 2 * len(shared) and set(first[len(shared):]).isdisjoint(second[len(shared):])


@pytest.fixture(scope="module")
def trained():
    return train_graph(TRAIN, DEV[:100], TrainOptions(iterations=4))


def test_training_learns(trained):
    history = trained.history
    assert history[-1].dev_uas > history[0].dev_uas and max(r.dev_uas for r in history) > 75.0
    parsed = list(trained.parser.parse(DEV[100:]))
    assert len(parsed) == 100 and all(not find_cycle(s.heads) for s in parsed)
    assert evaluate(DEV[100:], parsed).uas > 70.0


def test_save_load_same_parses(trained, tmp_path):
    trained.parser.save(tmp_path / "m")
    loaded = GraphParser.load(tmp_path / "m")
    assert [s.heads for s in loaded.parse(DEV[:40])] == [s.heads for s in trained.parser.parse(DEV[:40])]


@pytest.mark.slow
def test_cli_trains_and_parses_dep1(tmp_path):
    run = CliRunner().invoke
    train, dev = str(SAMPLES / "train.ud.conllu"), str(SAMPLES / "dev.ud.conllu")
    result = run(main, ["train", "--parser", "dep1", "--train", train, "--dev", dev, "--model", str(tmp_path / "d"),
                        "--iterations", "1"])
    assert result.exit_code == 0, result.output
    result = run(main, ["parse", "--model", str(tmp_path / "d"), "--input", dev, "--output", str(tmp_path / "o.conllu")])
    assert result.exit_code == 0 and len(list(read_conllu(tmp_path / "o.conllu"))) == len(DEV)
    result = run(main, ["train", "--parser", "dep1", "--train", train, "--train-b", train, "--dev", dev, "--dev-b", dev,
                        "--model", str(tmp_path / "x")])
    assert result.exit_code == 2 and "single scheme" in result.output


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_kbest_lists_the_best_trees_in_order(n):
    rng = np.random.default_rng(10 + n)
    trees = list(projective_trees(n))
    for _ in range(10):
        scores = rng.normal(size=(n + 1, n + 1))
        heads, totals = _kbest.eisner_kbest(scores, n, 16)
        expected = sorted((sum(scores[h, m] for m, h in enumerate(tree, 1)) for tree in trees), reverse=True)[:16]
        assert np.allclose(totals, expected)
        assert len({tuple(h[1:]) for h in heads}) == len(totals) and all(tuple(h[1:]) in trees for h in heads)
        one_best, _ = _eisner.eisner(scores, n)
        assert totals[0] == pytest.approx(sum(scores[one_best[m], m] for m in range(1, n + 1)))


def test_parser_kbest_with_posteriors(trained):
    trees = trained.parser.kbest(DEV[0], k=4)
    assert len(trees) == 4 and sum(p for _, p in trees) == pytest.approx(1.0)
    assert [p for _, p in trees] == sorted((p for _, p in trees), reverse=True)
    assert trees[0][0].heads == trained.parser.parse_sentence(DEV[0]).heads
    flatter = trained.parser.kbest(DEV[0], k=4, temperature=100.0)
    assert flatter[0][1] < trees[0][1]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_second_order_decoder_finds_the_best_tree(n):
    rng = np.random.default_rng(20 + n)
    trees = list(projective_trees(n))

    def score(tree, arcs, siblings, grands):
        heads = np.array((0,) + tree)
        closer = np.zeros(n + 1, dtype=np.int64)
        _sibling.siblings_of(heads, n, closer)
        return sum(arcs[heads[m], m] + (siblings[heads[m], closer[m], m] + grands[heads[heads[m]], heads[m], m]
                                        if heads[m] else 0.0) for m in range(1, n + 1))

    for trial in range(12):
        arcs, siblings = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1, n + 1, n + 1))
        grands = rng.normal(size=(n + 1, n + 1, n + 1)) if trial % 3 else np.zeros((n + 1, n + 1, n + 1))
        heads, total = _grandparent.decode(arcs, siblings, grands, n)
        best = max(score(tree, arcs, siblings, grands) for tree in trees)
        assert tuple(heads[1:]) in trees and total == pytest.approx(best)
        assert score(tuple(heads[1:]), arcs, siblings, grands) == pytest.approx(best)


def test_closer_siblings():
    #           1  2  3  4  5   (3 heads 1, 2, 4, 5; 0 heads 3)
    heads = np.array([0, 3, 3, 0, 3, 3])
    closer = np.zeros(6, dtype=np.int64)
    _sibling.siblings_of(heads, 5, closer)
    assert closer.tolist() == [0, 2, 0, 0, 0, 4]


def test_dep2_trains_saves_and_parses(trained, tmp_path):
    result = train_graph(TRAIN, DEV[:100], TrainOptions(iterations=3), order=2)
    best = lambda r: max(report.dev_uas for report in r.history)  # noqa: E731
    assert best(result) > best(trained) + 1  # siblings and grandparents help, even on 200 sentences
    result.parser.save(tmp_path / "d2")
    loaded = GraphParser.load(tmp_path / "d2", "dep2")
    assert [s.heads for s in loaded.parse(DEV[:30])] == [s.heads for s in result.parser.parse(DEV[:30])]
    trees = loaded.kbest(DEV[1], k=6)
    assert trees[0][0].heads == loaded.parse_sentence(DEV[1]).heads and len({tuple(t.heads) for t, _ in trees}) == 6
    assert [p for _, p in trees] == sorted((p for _, p in trees), reverse=True)
    with pytest.raises(ModelFileError, match="not a 'dep1' model"):
        GraphParser.load(tmp_path / "d2", "dep1")
    # Past SECOND_ORDER_MAX_WORDS, a sentence is still parsed (first-order decoding) and counted.
    (tmp_path / "long.txt").write_text(" ".join(f for s in DEV[:12] for f in s.forms) + "\n", encoding="utf-8")
    long = next(read_tokenized_text(tmp_path / "long.txt"))
    assert len(long) > SECOND_ORDER_MAX_WORDS
    parsed = loaded.parse_sentence(long)
    assert len(parsed) == len(long) and not find_cycle(parsed.heads) and parsed.heads.count(0) == 1
    assert loaded.stats.first_order_only == 1


def test_concatenated_model_parses_as_each_treebank(tmp_path):
    sud_train, sud_dev = list(read_conllu(SAMPLES / "train.sud.conllu")), list(read_conllu(SAMPLES / "dev.sud.conllu"))
    treebanks = {"ud": (TRAIN[:100], DEV[:40]), "sud": (sud_train[100:], sud_dev[:40])}
    plain = train_concatenated(treebanks, TrainOptions(iterations=3))
    augmented = train_concatenated(treebanks, TrainOptions(iterations=3), augmented=True)
    assert set(augmented.history[0].dev_detail) == {"UAS_ud", "LAS_ud", "UAS_sud", "LAS_sud"}
    augmented.parser.save(tmp_path / "m")
    loaded = GraphParser.load(tmp_path / "m")
    assert loaded.treebanks == ["ud", "sud"] and loaded.augmented
    with pytest.raises(HetdepError, match="say which treebank"):
        loaded.parse_sentence(DEV[0])
    unknown_scheme = plain.parser.parse_sentence(DEV[0])  # the paper's concatenation: any label, prefix kept
    assert all(label.split(":")[0] in ("ud", "sud") for label in unknown_scheme.deprels)
    with pytest.raises(HetdepError, match="no treebank 'gsd'"):
        loaded.for_treebank("gsd")
    for name, gold_file, other_labels in (("ud", DEV[:40], {"comp:obj", "mod"}), ("sud", sud_dev[:40], {"obj", "amod"})):
        parsed = list(loaded.for_treebank(name).parse(gold_file))
        labels = {label for s in parsed for label in s.deprels}
        assert labels and not labels & other_labels and not any(":" in label and label.split(":")[0] in ("ud", "sud")
                                                                  for label in labels)
        assert [s.deprels for s in parsed] == [s.deprels for s in augmented.parser.for_treebank(name).parse(gold_file)]
    # Parsed as its treebank, each scheme keeps its own attachments; parsed blind, the schemes mix.
    for name, gold in (("ud", DEV[:40]), ("sud", sud_dev[:40])):
        blind = evaluate(gold, plain.parser.parse(gold)).uas
        assert evaluate(gold, plain.parser.for_treebank(name).parse(gold)).uas > blind + 2
        assert evaluate(gold, loaded.for_treebank(name).parse(gold)).uas > blind + 2


def test_cli_concatenates_two_treebanks(tmp_path):
    run = CliRunner().invoke
    ud, sud = SAMPLES / "train.ud.conllu", SAMPLES / "train.sud.conllu"
    (tmp_path / "a.conllu").write_text("".join(s.to_text() for s in list(read_conllu(ud))[:60]), encoding="utf-8")
    (tmp_path / "b.conllu").write_text("".join(s.to_text() for s in list(read_conllu(sud))[60:120]), encoding="utf-8")
    dev_a, dev_b = str(SAMPLES / "dev.ud.conllu"), str(SAMPLES / "dev.sud.conllu")
    args = ["train", "--parser", "dep2", "--train", str(tmp_path / "a.conllu"), "--dev", dev_a, "--train-b",
            str(tmp_path / "b.conllu"), "--dev-b", dev_b, "--iterations", "1", "--concatenate", "--names", "ud,sud"]
    result = run(main, args + ["--feature-copies", "--model", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    parse = ["parse", "--model", str(tmp_path / "m"), "--input", dev_b, "--output", str(tmp_path / "o.conllu")]
    result = run(main, parse + ["--treebank", "sud"])
    assert result.exit_code == 0, result.output
    parsed = list(read_conllu(tmp_path / "o.conllu"))
    assert len(parsed) == len(DEV) and "comp:obj" in {label for s in parsed for label in s.deprels}
    result = run(main, parse)
    assert result.exit_code != 0 and "say which treebank" in result.output
    result = run(main, parse + ["--treebank", "gsd"])
    assert result.exit_code != 0 and "no treebank 'gsd'" in result.output
    result = run(main, [a for a in args if a != "--concatenate"] + ["--feature-copies", "--model", str(tmp_path / "n")])
    assert result.exit_code == 2


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_second_order_kbest_lists_the_best_trees_in_order(n):
    rng = np.random.default_rng(40 + n)
    trees = list(projective_trees(n))
    arcs, siblings, grands = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1, n + 1, n + 1)), \
        rng.normal(size=(n + 1, n + 1, n + 1))

    def score(tree):
        heads = np.array((0,) + tree)
        closer = np.zeros(n + 1, dtype=np.int64)
        _sibling.siblings_of(heads, n, closer)
        return sum(arcs[heads[m], m] + (siblings[heads[m], closer[m], m] + grands[heads[heads[m]], heads[m], m]
                                        if heads[m] else 0.0) for m in range(1, n + 1))

    ranked = sorted((score(tree) for tree in trees), reverse=True)
    heads, totals = _grandparent.kbest(arcs, siblings, grands, n, 10)
    assert len(heads) == min(10, len(trees))
    assert len({tuple(h[1:]) for h in heads}) == len(heads) and all(tuple(h[1:]) in trees for h in heads)
    assert totals == pytest.approx(ranked[:len(heads)])
    assert [score(tuple(h[1:])) for h in heads] == pytest.approx(totals.tolist())
