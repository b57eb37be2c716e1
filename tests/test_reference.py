"""The compiled hot path gives the reference's scores, parses and trained weights, on real sentences."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLES

from hetdep.learn._weights import DENSE, DENSE_AFTER, INLINE
from hetdep.learn.perceptron import EARLY, TrainOptions
from hetdep.learn.weights import TrainedWeights, Weights
from hetdep.transition import _beam, _memos, features, reference
from hetdep.transition.features import TEMPLATES
from hetdep.transition.parser import template_array
from hetdep.transition.system import Moves
from hetdep.transition.training import prepare, train
from hetdep.treebank.conllu import read_conllu


@pytest.fixture(scope="module")
def trained():
    sentences = list(read_conllu(SAMPLES / "train.ud.conllu"))
    result = train(sentences[:120], sentences[120:150], TrainOptions(beam=8, iterations=2))
    return result.parser, sentences[150:]


def test_trained_layout_sorts_a_chain_and_packs_a_dense_row_with_few_averaged_weights():
    """Averaged weights, not raw ones, decide the layout: a dense row (nine actions trained) whose
    averages are mostly zero is packed like a chain, and packed entries go by ascending action
    whatever order the chain holds them in."""
    from hetdep.learn import _weights

    weights = Weights(20)
    weights.reserve(20)
    dense_slot = _weights.insert(weights.table, weights.n_used, np.uint64(11))
    for action in range(9):  # the averaging sum equals the weight (c = counter = 1) from action 3 on: average 0
        _weights.add(weights.table, dense_slot, weights.rows, weights.sums, weights.counts, action, 1.0,
                     np.float32(0.0 if action < 3 else 1.0))
    chain_slot = _weights.insert(weights.table, weights.n_used, np.uint64(12))
    for action in (9, 2, 5):
        _weights.add(weights.table, chain_slot, weights.rows, weights.sums, weights.counts, action, float(action),
                     np.float32(0.0))
    assert weights.table[dense_slot, 1] & DENSE
    trained = weights.averaged()
    assert len(trained.dense) == 0
    assert [int(e) >> 32 for e in trained.packed] == [0, 1, 2, 2, 5, 9]  # key 11's slot comes before key 12's
    rows = trained.dense_rows(20)
    assert np.flatnonzero(rows[11]).tolist() == [0, 1, 2] and rows[11][:3].tolist() == [1.0, 1.0, 1.0]
    assert np.flatnonzero(rows[12]).tolist() == [2, 5, 9] and rows[12][[2, 5, 9]].tolist() == [2.0, 5.0, 9.0]


def test_a_model_stored_with_narrow_dense_rows_reads_them_as_packed_entries_and_scores_the_same():
    """Files saved while every feature of nine weights or more was a dense row load with those of
    at most a quarter of the actions as packed entries; every feature's scores stay as they were."""
    from hetdep.learn import _weights

    n_actions = 130  # the constituency parser's, on the WSJ sample: rows of up to 32 weights are packed
    rng = np.random.default_rng(3)
    dense = np.zeros((4, n_actions), dtype=np.float32)
    for d, count in enumerate((9, 32, 33, 130)):
        dense[d, rng.choice(n_actions, count, replace=False)] = rng.normal(size=count).astype(np.float32)
    packed = np.array([_weights._entry(3, 0.5), _weights._entry(7, -1.5)], dtype=np.int64)
    features = np.array([[11, DENSE | 0], [12, DENSE | 1], [13, DENSE | 2], [14, DENSE | 3], [15, 2 << 40],
                         [16, INLINE | int(_weights._entry(4, 2.0))]], dtype=np.uint64)
    before = TrainedWeights(_weights.spread(features), packed, dense).dense_rows(n_actions)
    loaded = TrainedWeights.from_stored(features, packed, dense)
    assert len(loaded.dense) == 2 and len(loaded.packed) == 2 + 9 + 32
    after = loaded.dense_rows(n_actions)
    assert after.keys() == before.keys() and all(np.array_equal(after[key], before[key]) for key in before)
    payload = {int(key): int(value) for key, value in loaded.table[loaded.table[:, 0] != 0]}
    assert [payload[key] >> 40 for key in (11, 12, 15)] == [9, 32, 2] and payload[13] & DENSE and payload[14] & DENSE
    assert TrainedWeights.from_stored(*loaded.stored().values()).dense_rows(n_actions).keys() == before.keys()


def test_the_plain_reader_adds_what_the_compiled_scorer_adds_whatever_the_rows_order():
    """PlainWeights finds keys by binary search: rows stored sorted (a compact model's) or in a
    table's order (a trained one's, sorted first) give every feature's scores, and 0 for a key
    without weights, as the compiled table does."""
    from hetdep.learn import _weights
    from hetdep.learn.weight_layout import PlainWeights

    rng = np.random.default_rng(7)
    keys = np.repeat(rng.integers(1, 2**64 - 1, size=300, dtype=np.uint64), 4)
    weights = Weights.trained(12, keys, np.tile(np.array([0, 3, 5, 11]), 300), rng.normal(size=1200).astype(np.float32))
    asked = [*rng.choice(np.unique(keys), 50).tolist(), 1, 2**64 - 1]  # two keys (most likely) without weights
    rows = weights.rows
    expected = np.zeros(12, dtype=np.float32)
    for key in asked:
        _weights.add_scores(_weights.lookup(weights.table, np.uint64(key)), rows, expected, True, -1)
    stored = weights.used
    for rows_in_order in (stored[np.argsort(stored[:, 0])], stored[rng.permutation(len(stored))]):
        plain = PlainWeights(rows_in_order, weights.packed, weights.dense)
        assert np.array_equal(plain.add_scores(asked, np.zeros(12, dtype=np.float32)), expected)
    assert np.array_equal(PlainWeights(stored[:0], weights.packed, weights.dense).add_scores(asked, np.ones(2)), np.ones(2))


def test_pruning_drops_the_smallest_weights_and_features_left_without_any():
    rng = np.random.default_rng(5)
    keys = np.repeat(np.arange(1, 201, dtype=np.uint64), 3)
    actions = np.tile(np.array([0, 4, 9]), 200)
    values = rng.normal(size=600).astype(np.float32)
    values[:30] = 1e-4  # the first ten features hold only tiny weights
    full = Weights.trained(10, keys, actions, values)
    pruned = full.pruned(0.5)
    before, after = full.dense_rows(10), pruned.dense_rows(10)
    cut = np.quantile(np.abs(values), 0.5)
    assert set(after) == {key for key, row in before.items() if (np.abs(row) > cut).any()} and len(after) < len(before)
    assert all(np.array_equal(after[key], np.where(np.abs(before[key]) > cut, before[key], 0)) for key in after)
    assert full.pruned(0.0) is full and pruned.nbytes < full.nbytes


def test_search_matches_reference_scores_and_actions(trained):
    parser, sentences = trained
    moves = Moves(parser.labels)
    table = reference.DictWeights.from_trained(parser.weights, moves.n_actions)
    for sentence in sentences[:15]:
        words, tags = parser.encode(sentence)
        n = len(sentence)
        actions, _, score = parser.search(words, tags, 8)
        ref_actions, _, ref_score = reference.beam_search(words.tolist(), tags.tolist(), n, 8, moves,
                                                          parser.root_label, table)
        assert actions.tolist() == ref_actions
        assert score == ref_score


def test_a_group_memo_that_fills_up_starts_again_with_the_same_sums(trained):
    """A memo for whole searches keeps at most its capacity per group, then forgets and starts
    again: recalled or computed after forgetting, every state's scores are its own."""
    parser, sentences = trained
    moves = Moves(parser.labels)
    table = reference.DictWeights.from_trained(parser.weights, moves.n_actions)
    templates = template_array()
    keys = np.zeros(templates.shape[0], dtype=np.uint64)
    small = _memos.new_group_memo(3, moves.n_actions, _beam.GROUPS)
    states = []
    for sentence in sentences[:3]:
        words, tags = parser.encode(sentence)
        actions, _, _ = parser.search(words, tags, 8)
        state = reference.State(len(sentence))
        for action in actions[:6].tolist():
            states.append((state.copy(), words.tolist(), tags.tolist()))
            reference.apply(state, action, moves, parser.root_label)
    assert len(states) > 3 * 3
    for state, words, tags in states + states[::-1]:  # recalled, and computed again after forgetting
        atoms = np.array(features.atoms(state, words, tags), dtype=np.int64)
        acc = np.zeros(moves.n_actions, dtype=np.float32)
        _memos.add_group_scores(0, atoms, templates, parser.weights.table, parser.weights.rows, keys, acc, small, None)
        assert np.array_equal(acc, reference.action_scores(state, words, tags, table))
        # The bound the search passes items over by holds for every action, float32 rounding included.
        entries = np.zeros(_beam.N_GROUPS, dtype=np.int64)
        bound = _memos.group_entries(0, atoms, templates, parser.weights.table, parser.weights.rows, keys, small, entries, None)
        assert bound >= acc.max()
        assert bound == np.float32(sum(np.float32(small[2][g, e, :-1].max()) for g, e in enumerate(entries)))
    assert small[3][_beam.N_GROUPS:2 * _beam.N_GROUPS].max() > 1  # some group forgot its entries on the way


def test_training_matches_reference_weights():
    sentences = list(read_conllu(SAMPLES / "train.sud.conllu"))[:25]
    options = TrainOptions(beam=4)
    _, _, labels, root_label, encoded = prepare(sentences, options)
    moves = Moves(labels)
    order = list(range(len(encoded)))
    # Compiled.
    weights = Weights(moves.n_actions, entries=64, table=128, dense=2)  # small, so growth and rehashing are exercised
    templates = template_array()
    for index in order:
        w, t, gold = encoded[index]
        weights.reserve(2 * len(gold) * len(TEMPLATES))
        actions, length, _ = _beam.search(w, t, len(w) - 1, 4, templates, weights.table, weights.rows,
                                          moves.n_labels, gold, EARLY)
        if length < len(gold) or not np.array_equal(actions, gold):
            _beam.update(w, t, len(w) - 1, gold, actions, length, templates, weights.table, weights.n_used,
                         weights.rows, weights.sums, weights.counts, weights.counter, moves.n_labels, t)
        weights.counter += 1
    # Reference.
    table = reference.DictWeights(moves.n_actions)
    counter = reference.train_epoch(encoded, order, 4, moves, root_label, table, 1)
    assert counter == weights.counter
    assert weights.features == len(table.W) > 500
    assert weights.n_dense[0] > 10  # both sparse and dense features are exercised
    current = TrainedWeights.from_chains(weights.table, *weights.rows).dense_rows(moves.n_actions)
    sums = TrainedWeights.from_chains(weights.table, weights.enext, weights.eact, weights.eu,
                                      weights.dense_u).dense_rows(moves.n_actions)
    zeros = np.zeros(moves.n_actions, dtype=np.float32)  # a feature whose weights are all 0 is not kept
    for key, row in table.W.items():
        assert np.array_equal(current.get(key, zeros), row) and np.array_equal(sums.get(key, zeros), table.U[key])
    # The saved (averaged, packed) weights are the reference's averages, in each of the packed forms
    # (with features of over eight weights dense, as models were saved before, to have dense rows here).
    for trained in weights.averaged(), weights.averaged(most_packed=DENSE_AFTER):
        averaged = trained.dense_rows(moves.n_actions)
        for key, row in table.W.items():
            assert np.array_equal(averaged.get(key, zeros), row - table.U[key] / np.float32(weights.counter))
    payload = trained.table[trained.table[:, 0] != 0, 1]
    assert (payload >= DENSE).sum() > 10 and ((payload & INLINE) != 0).sum() > 100 and len(trained.packed) > 100
