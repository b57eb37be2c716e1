"""The arc-standard parser end to end: training, parsing, model files, odd input, determinism, CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES, conllu, write

from hetdep.cli import main
from hetdep.evaluation.attachment import evaluate
from hetdep.learn.model_files import ModelFileError
from hetdep.learn.perceptron import TrainOptions
from hetdep.transition import reference
from hetdep.transition.parser import ArcStandardParser
from hetdep.transition.system import Moves, State, apply, is_valid
from hetdep.transition.training import train
from hetdep.treebank.conllu import read_conllu

TRAIN, DEV = SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"


@pytest.fixture(scope="module")
def sample_sentences():
    return list(read_conllu(TRAIN)), list(read_conllu(DEV))


@pytest.fixture(scope="module")
def trained(sample_sentences):
    train_sentences, dev_sentences = sample_sentences
    return train(train_sentences, dev_sentences[:100], TrainOptions(beam=8, iterations=4))


def test_training_learns_and_keeps_the_best_iteration(trained, sample_sentences):
    history = trained.history
    assert history[-1].dev_uas > history[0].dev_uas
    best = max(history, key=lambda r: r.dev_uas)
    assert trained.best_iteration == best.iteration
    # 200 training sentences are few, but far better than chance.
    result = evaluate(sample_sentences[1][100:], trained.parser.parse(sample_sentences[1][100:]))
    assert result.uas > 70 and result.las > 60


def test_one_tree_per_sentence_other_columns_kept(trained, sample_sentences):
    dev = sample_sentences[1][:30]
    parsed = list(trained.parser.parse(dev))
    assert len(parsed) == len(dev)
    for before, after in zip(dev, parsed):
        assert len(after) == len(before) and after.comments == before.comments
        for row_before, row_after in zip(before.rows, after.rows):
            assert row_before[:6] == row_after[:6] and row_before[8:] == row_after[8:]
        assert sorted(after.heads).count(0) == 1 and all(0 <= h <= len(after) for h in after.heads)


def test_greedy_is_beam_one(trained, sample_sentences):
    """Beam 1 decodes greedily: at each step the best-scoring valid action (the lowest id on a tie)."""
    parser = trained.parser
    moves = Moves(parser.labels)
    weights = reference.DictWeights.from_trained(parser.weights, moves.n_actions)
    for sentence in sample_sentences[1][:20]:
        words, tags = parser.encode(sentence)
        state, greedy = State(len(sentence)), []
        while len(greedy) < 2 * len(sentence):
            scores = reference.action_scores(state, words.tolist(), tags.tolist(), weights)
            valid = [action for action in range(moves.n_actions) if is_valid(state, action, moves)]
            greedy.append(max(valid, key=lambda action: (scores[action], -action)))
            apply(state, greedy[-1], moves, parser.root_label)
        actions, _, _ = parser.search(words, tags, 1)
        assert actions.tolist() == greedy


def test_odd_input_parses(trained, tmp_path):
    parser = trained.parser
    one = list(read_conllu(write(tmp_path, "one.conllu", conllu(("Bonjour", "INTJ", 0, "root")))))
    [parsed] = list(parser.parse(one))
    assert parsed.heads == [0]
    # Unknown words, an unknown tag, an unknown label in the input, longer than any training sentence.
    long_words = [(f"mot{i}", "NOUN" if i % 3 else "NEWTAG", 0 if i == 0 else 1, "label-never-seen") for i in range(300)]
    long = list(read_conllu(write(tmp_path, "long.conllu", conllu(*long_words)), single_root=True))
    [parsed] = list(parser.parse(long))
    assert len(parsed) == 300 and parsed.heads.count(0) == 1
    assert parser.stats.unknown_tags >= 100 and "NEWTAG" in parser.stats.unknown_tag_examples
    raw = "1\tLe\t_\tDET\t_\t_\t_\t_\t_\t_\n2\tchat\t_\tNOUN\t_\t_\t_\t_\t_\t_\n\n"
    [parsed] = list(parser.parse(read_conllu(write(tmp_path, "raw.conllu", raw))))
    assert parsed.heads.count(0) == 1


def test_save_and_load_give_the_same_parses(trained, sample_sentences, tmp_path):
    trained.parser.save(tmp_path / "model")
    loaded = ArcStandardParser.load(tmp_path / "model")
    dev = sample_sentences[1][:20]
    assert [s.to_text() for s in loaded.parse(dev)] == [s.to_text() for s in trained.parser.parse(dev)]
    config = json.loads((tmp_path / "model" / "config.json").read_text())
    assert config["kind"] == "arc-standard" and config["format_version"] == 2


def test_bad_model_files_are_refused_clearly(trained, tmp_path):
    with pytest.raises(ModelFileError, match="no config.json"):
        ArcStandardParser.load(tmp_path / "nothing")
    model = tmp_path / "model"
    trained.parser.save(model)
    (model / "weights.npz").write_bytes(b"not a zip file")
    with pytest.raises(ModelFileError, match="not a weights archive"):
        ArcStandardParser.load(model)
    trained.parser.save(model)
    config = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "kind": "joint"}))
    with pytest.raises(ModelFileError, match="'joint' model, not a 'arc-standard' model"):
        ArcStandardParser.load(model)
    (model / "config.json").write_text(json.dumps({**config, "format_version": 99}))
    with pytest.raises(ModelFileError, match="format version 99"):
        ArcStandardParser.load(model)
    (model / "config.json").write_text("{broken")
    with pytest.raises(ModelFileError, match="damaged model configuration"):
        ArcStandardParser.load(model)
    (model / "config.json").write_text(json.dumps({k: v for k, v in config.items() if k != "labels"}))
    with pytest.raises(ModelFileError, match="incomplete or invalid"):
        ArcStandardParser.load(model)


def test_same_seed_same_model_other_seed_other_model(sample_sentences):
    train_sentences, dev_sentences = sample_sentences
    options = TrainOptions(beam=4, iterations=2, seed=5)
    a = train(train_sentences[:60], dev_sentences[:20], options).parser.weights
    b = train(train_sentences[:60], dev_sentences[:20], options).parser.weights
    c = train(train_sentences[:60], dev_sentences[:20], TrainOptions(beam=4, iterations=2, seed=6)).parser.weights
    same = lambda x, y: all(np.array_equal(x.stored()[name], y.stored()[name]) for name in x.stored())  # noqa: E731
    assert same(a, b) and not same(a, c)


@pytest.mark.slow
def test_cli_train_then_parse(tmp_path):
    model = tmp_path / "model"
    result = CliRunner().invoke(main, ["train", "--train", str(TRAIN), "--dev", str(DEV), "--model", str(model),
                                       "--beam", "4", "--iterations", "2", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "best iteration" in result.output
    out = tmp_path / "out.conllu"
    result = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(DEV), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert len(list(read_conllu(out))) == 200
    empty = write(tmp_path, "empty.conllu", "")
    result = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(empty), "--output", str(tmp_path / "e.conllu")])
    assert result.exit_code == 0 and (tmp_path / "e.conllu").read_text() == ""


def test_cli_refuses_a_corrupt_model_in_one_line(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{broken")
    result = subprocess.run([sys.executable, "-m", "hetdep", "parse", "--model", str(tmp_path / "model"), "--input", str(DEV),
                             "--output", str(tmp_path / "o.conllu")], capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr.startswith("hetdep: error: ") and "Traceback" not in result.stderr


def test_max_violation_update_learns(sample_sentences):
    train_sentences, dev_sentences = sample_sentences
    result = train(train_sentences, dev_sentences[:100], TrainOptions(beam=8, iterations=3, update="max-violation"))
    assert result.history[-1].dev_uas > result.history[0].dev_uas
    assert max(r.dev_uas for r in result.history) > 70


def test_unknown_update_is_refused(sample_sentences):
    from hetdep.errors import HetdepError

    with pytest.raises(HetdepError, match="unknown update"):
        train(sample_sentences[0][:5], [], TrainOptions(update="sometimes"))


def test_items_with_the_same_atoms_reuse_the_scores_of_the_first(trained, sample_sentences):
    from hetdep.transition import _beam, _memos

    parser = trained.parser
    words, tags = parser.encode(sample_sentences[1][0])
    n = len(words) - 1
    stack = np.zeros((2, n + 1, _beam.FIELDS), dtype=np.int64)  # two identical items: shift, shift
    depth, queue = np.zeros(2, dtype=np.int64), np.ones(2, dtype=np.int64)
    for item in range(2):
        for _ in range(2):
            _beam.apply(stack, depth, queue, item, _beam.SH, parser.n_labels)
    atoms, keys = np.zeros(_beam.N_ATOMS, dtype=np.int64), np.zeros(parser.templates.shape[0], dtype=np.uint64)
    width = 2 + 2 * parser.n_labels
    memo = _memos.new_group_memo(4, width, _beam.GROUPS)
    fresh, recalled, alone = (np.zeros(width, dtype=np.float32) for _ in range(3))
    args = (n, words, tags, parser.templates, parser.weights.table, parser.weights.rows, atoms, keys)
    _beam.score_item(stack, depth, queue, 0, *args, fresh, memo)
    _beam.score_item(stack, depth, queue, 1, *args, recalled, memo)
    _beam.score_item(stack, depth, queue, 1, *args, alone, _memos.new_group_memo(1, width, _beam.GROUPS))
    assert list(memo[3][:_beam.N_GROUPS]) == [1] * _beam.N_GROUPS  # each group's sum remembered once
    assert np.array_equal(fresh, recalled) and np.array_equal(recalled, alone) and np.abs(alone).sum() > 0


def test_label_siblings_share_every_group_but_the_labels_of_s0(trained, sample_sentences):
    """Items one arc action made from one parent under different labels take the leader's entries
    for the groups they share: the same entries, bound and scores as scoring each one alone."""
    from hetdep.transition import _beam, _memos

    parser = trained.parser
    words, tags = parser.encode(sample_sentences[1][0])
    n = len(words) - 1
    width = 2 + 2 * parser.n_labels
    labels = range(0, parser.n_labels, max(1, parser.n_labels // 5))
    for arc in (2, 2 + parser.n_labels):  # left arcs, right arcs
        items = len(labels)
        stack = np.zeros((items, n + 1, _beam.FIELDS), dtype=np.int64)
        depth, queue = np.zeros(items, dtype=np.int64), np.ones(items, dtype=np.int64)
        for item, label in enumerate(labels):
            for action in (_beam.SH, _beam.SH, _beam.SH, 2 + parser.n_labels, _beam.SH, arc + label):
                _beam.apply(stack, depth, queue, item, action, parser.n_labels)
        atoms, keys = np.zeros(_beam.N_ATOMS, dtype=np.int64), np.zeros(parser.templates.shape[0], dtype=np.uint64)
        args = (n, words, tags, parser.templates, parser.weights.table, parser.weights.rows, atoms, keys, width)
        memo = _memos.new_group_memo(64, width, _beam.GROUPS)
        entries = memo[3][2 * _beam.N_GROUPS:]
        *valid, _ = _beam.item_entries(stack, depth, queue, 0, *args, memo, entries, None)
        leader = entries.copy()
        for item in range(1, items):
            found = _beam.sibling_entries(stack, depth, queue, item, *args, memo, entries, leader,
                                          np.float32(_beam.head_bound(memo, leader)), None)
            own = entries.copy()
            summed = np.zeros(width, dtype=np.float32)
            _memos.sum_entries(memo, own, summed, None)
            alone = _memos.new_group_memo(64, width, _beam.GROUPS)
            assert found == _beam.item_entries(stack, depth, queue, item, *args, alone, alone[3][2 * _beam.N_GROUPS:], None)
            assert list(found[:3]) == valid
            scores = np.zeros(width, dtype=np.float32)
            _beam.score_item(stack, depth, queue, item, *args[:-1], scores, alone)
            assert np.array_equal(summed, scores) and np.abs(scores).sum() > 0
            assert own[~_beam.SHARED_BY_SIBLINGS] != leader[~_beam.SHARED_BY_SIBLINGS]  # its labels' group is its own
