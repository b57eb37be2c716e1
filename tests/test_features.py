"""Feature extraction, atom by atom on hand-built states, and compiled = reference on real sentences."""

from __future__ import annotations

import random

import numpy as np
from conftest import SAMPLES

from hetdep.learn import _keys
from hetdep.learn.keys import feature_hash
from hetdep.learn.vocab import Vocab
from hetdep.transition import _beam
from hetdep.transition.features import ATOMS, TEMPLATE_NAMES, TEMPLATES, atoms, features
from hetdep.transition.parser import template_array
from hetdep.transition.system import Moves, State, apply, is_valid, oracle
from hetdep.treebank.conllu import read_conllu
from hetdep.treebank.projectivity import projectivize

MOVES = Moves(["det", "nsubj", "obj", "root", "x"])
WORDS = [0, 11, 12, 13, 14, 15]
TAGS = [0, 21, 22, 23, 24, 25]


def state_after(n, names):
    state = State(n)
    for name in names:
        apply(state, MOVES.parse(name), MOVES, MOVES.index["root"])
    return state


def atom_dict(state):
    return dict(zip(ATOMS, atoms(state, WORDS, TAGS)))


def test_there_are_the_70_templates_of_table_1():
    assert len(TEMPLATES) == 70 and len(set(TEMPLATE_NAMES)) == 70
    assert TEMPLATE_NAMES[:3] == ("S0w", "S0t", "S0w+S0t") and TEMPLATE_NAMES[-1] == "S1t+S1sl"


def test_atoms_of_a_hand_built_state():
    # "Le chat mange la souris" with stack [mange, souris] and the queue empty.
    got = atom_dict(state_after(5, ["SH", "SH", "AL(det)", "SH", "AL(nsubj)", "SH", "SH", "AL(det)"]))
    expected = {name: 0 for name in ATOMS}
    expected.update(
        S0w=15, S0t=25, S1w=13, S1t=23,
        S0lw=14, S0lt=24, S0ll=1, S0vl=1, S0sl=1 << 0,
        S1lw=12, S1lt=22, S1ll=2, S1vl=1, S1sl=1 << 1,
    )
    assert got == expected


def test_second_children_queue_and_right_side():
    # Word 3 takes 2 then 1 as left children; then 4 is shifted: S0 = 4, S1 = 3.
    got = atom_dict(state_after(5, ["SH", "SH", "SH", "AL(x)", "AL(det)", "SH"]))
    assert (got["S1lw"], got["S1ll"], got["S1l2w"], got["S1l2l"]) == (11, 1, 12, 5)
    assert got["S1vl"] == 2 and got["S1sl"] == (1 << 0) | (1 << 4)
    assert (got["S0w"], got["N0w"], got["N0t"], got["N1w"]) == (14, 15, 25, 0)
    # Now 3 takes 4 and, after a shift, 5 as right children: rightmost 5, second 4.
    got = atom_dict(state_after(5, ["SH", "SH", "SH", "AL(x)", "AL(det)", "SH", "AR(obj)", "SH", "AR(nsubj)"]))
    assert (got["S0w"], got["S0rw"], got["S0rl"], got["S0r2w"], got["S0r2l"], got["S0vr"]) == (13, 15, 2, 14, 3, 2)
    assert got["S0sr"] == (1 << 1) | (1 << 2) and got["S1w"] == 0


def test_feature_keys_differ_by_template_and_value():
    assert feature_hash(0, [5]) != feature_hash(1, [5])
    assert feature_hash(0, [5]) != feature_hash(0, [6])
    assert feature_hash(3, [0, 0]) != 0


def compiled_atoms_and_keys(words, tags, n, actions, n_labels):
    stk = np.zeros((1, n + 1, _beam.FIELDS), dtype=np.int64)
    slen = np.zeros(1, dtype=np.int64)
    nxt = np.ones(1, dtype=np.int64)
    for action in actions:
        _beam.apply(stk, slen, nxt, 0, action, n_labels)
    out = np.zeros(_beam.N_ATOMS, dtype=np.int64)
    _beam.fill_atoms(stk, slen, nxt, 0, np.asarray(words), np.asarray(tags), n, out)
    keys = np.zeros(len(TEMPLATES), dtype=np.uint64)
    _keys.feature_keys(out, template_array(), 0, len(TEMPLATES), 0, keys)
    return out.tolist(), [int(k) for k in keys]


def test_compiled_atoms_and_keys_equal_the_reference_on_real_sentences():
    sentences = list(read_conllu(SAMPLES / "train.sud.conllu"))[:60]
    labels = sorted({label for s in sentences for label in projectivize(s.heads, s.deprels)[1]})
    moves = Moves(labels)
    vocab = Vocab(form for s in sentences for form in s.forms)
    tag_vocab = Vocab(tag for s in sentences for tag in s.upos)
    rng = random.Random(7)
    checked = 0
    for sentence in sentences:
        words, tags = vocab.encode(sentence.forms).tolist(), tag_vocab.encode(sentence.upos).tolist()
        n = len(sentence)
        heads, tree_labels = projectivize(sentence.heads, sentence.deprels)
        gold = oracle(heads, [moves.index[label] for label in tree_labels], moves)
        # Along the gold path, and along a random valid path.
        for path in ("gold", "random"):
            state, done = State(n), []
            for step in range(2 * n):
                ref_atoms = atoms(state, words, tags)
                got_atoms, got_keys = compiled_atoms_and_keys(words, tags, n, done, moves.n_labels)
                assert got_atoms == ref_atoms, (sentence.describe(), step, [moves.name(a) for a in done])
                assert got_keys == features(state, words, tags)
                checked += 1
                if path == "gold":
                    action = gold[step]
                else:
                    action = rng.choice([a for a in range(moves.n_actions) if is_valid(state, a, moves)])
                apply(state, action, moves, 0)
                done.append(action)
    assert checked > 2000
