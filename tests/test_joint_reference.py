"""The compiled joint search gives the pure-Python reference's actions, lengths and scores, on real sentences."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLES

from hetdep.joint import _search, reference
from hetdep.joint.schedule import INFINITE, interleave, schedule
from hetdep.joint.training import train_joint
from hetdep.learn.perceptron import DECODE, EARLY, MAX_VIOLATION, TrainOptions
from hetdep.transition.reference import DictWeights
from hetdep.transition.system import Moves
from hetdep.treebank.pairs import read_pairs

TRAIN = read_pairs(SAMPLES / "train.sud.conllu", SAMPLES / "train.ud.conllu")
DEV = [pair for pair in read_pairs(SAMPLES / "dev.sud.conllu", SAMPLES / "dev.ud.conllu") if 4 <= len(pair.a) <= 14][:8]
BEAM = 4
MODES = {None: DECODE, "early": EARLY, "max-violation": MAX_VIOLATION}


@pytest.fixture(scope="module", params=["paper", "rich"])
def model(request):
    """A joint model (t = 2) after one iteration: weights on both schemes' baseline and guided templates."""
    options = TrainOptions(beam=BEAM, iterations=1, update="max-violation")
    return train_joint(TRAIN[:80], [], options, t=2, guide=request.param).parser


def both(model, pair, t, update=None, given=None):
    """The compiled and the reference search of one sentence: (actions, length, score) each."""
    words, tags = model.encode(pair.a)
    n = len(pair.a)
    who = schedule(n, t)
    trees = [model._given_tree_actions(sentence, s) for s, sentence in enumerate(pair)]
    gold = interleave(trees[0], trees[1], who).astype(np.int32)
    forced = np.full(4 * n, -1, dtype=np.int32)
    if given is not None:
        forced[who == given] = trees[given]
    actions, length, score = _search.joint_search(words, tags, n, BEAM, model.templates, model.rich, model.weights.table,
                                                  model.weights.rows, len(model.labels[0]), len(model.labels[1]), who,
                                                  gold, MODES[update], forced)
    moves = (Moves(model.labels[0]), Moves(model.labels[1]))
    weights = DictWeights.from_trained(model.weights, max(m.n_actions for m in moves))
    expected = reference.joint_search(words.tolist(), tags.tolist(), n, BEAM, model.guide, moves,
                                      model.root_labels, who.tolist(), weights, gold.tolist(), update,
                                      forced.tolist() if given is not None else None)
    return (actions[:length].tolist(), length, score), expected


@pytest.mark.parametrize("t", [2, -1, INFINITE])
def test_decoding_matches_the_reference(model, t):
    for pair in DEV:
        compiled, expected = both(model, pair, t)
        assert compiled == expected


@pytest.mark.parametrize("update", ["early", "max-violation"])
def test_training_searches_match_the_reference(model, update):
    stopped = 0
    for pair in DEV:
        compiled, expected = both(model, pair, 2, update)
        assert compiled == expected
        stopped += compiled[1] < 4 * len(pair.a)
    assert stopped  # some searches return a prefix: the compared part includes an update's input


def test_search_given_a_tree_matches_the_reference(model):
    for pair in DEV[:4]:
        for given in (0, 1):
            compiled, expected = both(model, pair, INFINITE if given == 0 else -INFINITE, given=given)
            assert compiled == expected


def test_guided_atoms_agree_with_the_compiled_ones(model):
    """Atom by atom, at every step of the gold sequence of both schemes, for the rich guide's atoms too."""
    from hetdep.transition.system import State, apply

    pair = DEV[0]
    n = len(pair.a)
    who = schedule(n, 2)
    trees = [model._given_tree_actions(sentence, s) for s, sentence in enumerate(pair)]
    gold = interleave(trees[0], trees[1], who)
    moves = (Moves(model.labels[0]), Moves(model.labels[1]))
    words, tags = model.encode(pair.a)
    items = _search.new_items(1, n)
    states = (State(n), State(n))
    out = np.zeros(_search.N_JOINT_ATOMS, dtype=np.int64)
    for step, action in enumerate(gold):
        for s in (0, 1):
            stk, slen, nxt, other_nxt = _search.scheme_state(items, s)
            known = _search.joint_atoms(stk, slen, nxt, other_nxt, items.hd, items.lb, 0, s, words, tags, n, True, out)
            expected, expected_known = reference.guided_atoms(states[s], states[1 - s], rich=True)
            assert out[_search.H_GUIDE:].tolist() == expected and known == expected_known
        s = who[step]
        stk, slen, nxt, _ = _search.scheme_state(items, s)
        _search.joint_apply(stk, slen, nxt, items.hd, items.lb, 0, s, action, len(model.labels[s]))
        apply(states[s], action, moves[s], model.root_labels[s])
