"""The dynamic-programming beam (Huang & Sagae 2010): merged states, prefix and inside scores."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from hetdep.cli import main
from hetdep.errors import HetdepError
from hetdep.learn.perceptron import DECODE, TrainOptions
from hetdep.transition import _beam, _dp, _graph_stack, _memos
from hetdep.transition.parser import ArcStandardParser
from hetdep.transition.training import train
from hetdep.treebank.conllu import find_cycle, read_conllu

TRAIN = list(read_conllu(SAMPLES / "train.ud.conllu"))
DEV = list(read_conllu(SAMPLES / "dev.ud.conllu"))


@pytest.fixture(scope="module")
def parser():
    return train(TRAIN, DEV[:20], TrainOptions(beam=4, iterations=2)).parser


def search(parser, module, sentence, beam):
    words, tags = parser.encode(sentence)
    n = len(words) - 1
    return module.search(words, tags, n, beam, parser.templates, parser.weights.table, parser.weights.rows, parser.n_labels,
                         np.zeros(2 * n, dtype=np.int32), DECODE)


def replayed_score(parser, sentence, actions):
    """The model score of an action sequence, one state at a time (no beam, no merging)."""
    words, tags = parser.encode(sentence)
    n = len(words) - 1
    stack, depth, queue = np.zeros((1, n + 1, _beam.FIELDS), dtype=np.int64), np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64)
    atoms, keys = np.zeros(_beam.N_ATOMS, dtype=np.int64), np.zeros(parser.templates.shape[0], dtype=np.uint64)
    scores, total = np.zeros(2 + 2 * parser.n_labels, dtype=np.float32), 0.0
    memo = _memos.new_group_memo(1, scores.shape[0], _beam.GROUPS)  # one entry: a sum is recalled only for the same atoms
    for action in actions:
        _beam.score_item(stack, depth, queue, 0, n, words, tags, parser.templates, parser.weights.table, parser.weights.rows,
                         atoms, keys, scores, memo)
        total += float(scores[action])
        _beam.apply(stack, depth, queue, 0, action, parser.n_labels)
    return total


@pytest.mark.parametrize("beam", [1, 4, 16])
def test_prefix_scores_are_the_scores_of_the_returned_sequences(parser, beam):
    for sentence in DEV[:40]:
        actions, length, score = search(parser, _dp, sentence, beam)
        assert length == 2 * len(sentence)
        assert score == pytest.approx(replayed_score(parser, sentence, actions[:length]), rel=1e-5, abs=1e-3)


def test_beam_one_is_greedy_and_merging_never_loses_at_a_wide_beam(parser):
    for sentence in DEV[:40]:
        assert np.array_equal(search(parser, _dp, sentence, 1)[0], search(parser, _beam, sentence, 1)[0])
    # Merged states leave room for other analyses: at equal beam, the DP search finds a
    # better-scoring sequence more often than a worse one.
    better = worse = 0
    for sentence in DEV[:100]:
        dp_score, plain_score = search(parser, _dp, sentence, 4)[2], search(parser, _beam, sentence, 4)[2]
        better += dp_score > plain_score + 1e-6
        worse += dp_score < plain_score - 1e-6
    assert better > worse


def test_training_with_dp_learns_saves_and_parses(tmp_path):
    result = train(TRAIN, DEV[:100], TrainOptions(beam=8, iterations=3, dp=True))
    assert result.parser.dp and max(r.dev_uas for r in result.history) > 70
    result.parser.save(tmp_path / "m")
    loaded = ArcStandardParser.load(tmp_path / "m")
    assert loaded.dp
    parsed = list(loaded.parse(DEV[:30]))
    assert len(parsed) == 30 and all(not find_cycle(s.heads) and s.heads.count(0) >= 1 for s in parsed)
    assert [s.heads for s in parsed] == [s.heads for s in result.parser.parse(DEV[:30])]
    max_violation = train(TRAIN, DEV[:100], TrainOptions(beam=8, iterations=3, dp=True, update="max-violation"))
    assert max(r.dev_uas for r in max_violation.history) > 70


@pytest.mark.slow
def test_cli_train_dp_and_refusals(tmp_path):
    run = CliRunner().invoke
    train_file, dev_file = str(SAMPLES / "train.ud.conllu"), str(SAMPLES / "dev.ud.conllu")
    result = run(main, ["train", "--train", train_file, "--dev", dev_file, "--model", str(tmp_path / "m"), "--beam", "4",
                        "--iterations", "1", "--dp"])
    assert result.exit_code == 0, result.output
    assert ArcStandardParser.load(tmp_path / "m").dp
    result = run(main, ["train", "--parser", "dep1", "--train", train_file, "--dev", dev_file, "--model", str(tmp_path / "x"),
                        "--dp"])
    assert result.exit_code == 2 and "--dp is for the single-scheme arc-standard parser" in result.output
    from hetdep.joint.training import train_joint
    from hetdep.treebank.pairs import read_pairs

    with pytest.raises(HetdepError, match="no dynamic-programming beam"):
        train_joint(read_pairs(SAMPLES / "train.sud.conllu", SAMPLES / "train.ud.conllu"), [], TrainOptions(dp=True))



def test_a_gold_state_reached_by_a_better_derivation_is_a_violation():
    """The gold state is a merged one: a derivation that built another tree below the same kernel
    can reach it with a higher prefix score, and max-violation must count that step."""
    from hetdep.learn.perceptron import MAX_VIOLATION
    from hetdep.transition._core import new_trail, note_violation

    trail = new_trail(4, 4)
    trail.violation[0] = 10.0  # the gold prefix's score
    assert _graph_stack.best_is_gold(trail, 3, 3, 10.0 + 1e-12)  # the gold derivation itself, summed in another order
    assert not _graph_stack.best_is_gold(trail, 3, 3, 10.5)  # the gold node, led by another derivation
    assert not _graph_stack.best_is_gold(trail, 2, 3, 9.0)
    assert note_violation(MAX_VIOLATION, trail, 1, 10.5, _graph_stack.best_is_gold(trail, 3, 3, 10.5))
    assert trail.violation[1] == pytest.approx(0.5) and trail.violation[2] == 1


def test_max_violation_updates_whenever_a_derivation_outscores_the_gold_one(parser):
    """Whenever the search ends on a derivation that scores above the gold sequence, training gets
    a wrong sequence to learn from (merged states may not hide it)."""
    from hetdep.learn.perceptron import MAX_VIOLATION
    from hetdep.transition.system import Moves, oracle

    moves = Moves(parser.labels)
    outscored = 0
    for sentence in DEV[:100]:
        if any(label not in moves.index for label in sentence.deprels):
            continue
        try:
            gold = np.array(oracle(sentence.heads, [moves.index[label] for label in sentence.deprels], moves), dtype=np.int32)
        except ValueError:  # not projective
            continue
        if search(parser, _dp, sentence, 4)[2] <= replayed_score(parser, sentence, gold) + 1e-3:
            continue
        outscored += 1
        words, tags = parser.encode(sentence)
        actions, length, _ = _dp.search(words, tags, len(words) - 1, 4, parser.templates, parser.weights.table,
                                        parser.weights.rows, parser.n_labels, gold, MAX_VIOLATION)
        assert length < len(gold) or not np.array_equal(actions[:length], gold)
    assert outscored >= 20
