"""The arc-standard system: moves by name, validity, 2n actions, and an oracle that rebuilds every projective tree."""

from __future__ import annotations

import pytest
from conftest import SAMPLES, needs_shared, shared_files

from hetdep.transition.system import PR, SH, Moves, State, apply, is_valid, oracle
from hetdep.treebank.conllu import read_conllu
from hetdep.treebank.projectivity import projectivize

MOVES = Moves(["det", "nsubj", "obj", "root"])
ROOT = MOVES.index["root"]


def run(n, names):
    state = State(n)
    for name in names:
        action = MOVES.parse(name)
        assert is_valid(state, action, MOVES), f"{name} should be valid in {state}"
        apply(state, action, MOVES, ROOT)
    return state


def test_move_names_round_trip():
    for action in range(MOVES.n_actions):
        assert MOVES.parse(MOVES.name(action)) == action
    assert MOVES.name(SH) == "SH" and MOVES.name(PR) == "PR"
    assert MOVES.name(MOVES.arc_left(1)) == "AL(nsubj)" and MOVES.name(MOVES.arc_right(2)) == "AR(obj)"
    assert MOVES.n_actions == 10


def test_le_chat_mange_la_souris():
    state = run(5, ["SH", "SH", "AL(det)", "SH", "AL(nsubj)", "SH", "SH", "AL(det)", "AR(obj)", "PR"])
    assert state.done
    assert state.heads == {1: 2, 2: 3, 4: 5, 5: 3, 3: 0}
    assert [MOVES.labels[state.labels[w]] for w in range(1, 6)] == ["det", "nsubj", "root", "det", "obj"]


def test_validity():
    state = State(2)
    assert is_valid(state, SH, MOVES)
    assert not is_valid(state, PR, MOVES)
    assert not is_valid(state, MOVES.parse("AL(det)"), MOVES)
    apply(state, SH, MOVES, ROOT)
    assert not is_valid(state, MOVES.parse("AR(obj)"), MOVES)  # one item on the stack
    assert not is_valid(state, PR, MOVES)  # queue not empty
    apply(state, SH, MOVES, ROOT)
    assert not is_valid(state, SH, MOVES)  # queue empty
    assert is_valid(state, MOVES.parse("AR(obj)"), MOVES)


def test_accessors():
    state = run(5, ["SH", "SH", "AL(det)", "SH"])
    assert (state.S(0), state.S(1), state.S(2), state.N(0), state.N(1)) == (3, 2, 0, 4, 5)
    state = run(3, ["SH", "SH", "SH"])
    assert state.N(0) == 0


def rebuilds(heads, labels):
    moves = Moves(sorted(set(labels)))
    label_ids = [moves.index[label] for label in labels]
    actions = oracle(heads, label_ids, moves)
    state = State(len(heads))
    for action in actions:
        assert is_valid(state, action, moves)
        apply(state, action, moves, moves.index[labels[heads.index(0)]])
    assert len(actions) == 2 * len(heads) and state.done
    assert [state.heads[w] for w in range(1, len(heads) + 1)] == heads
    assert [moves.labels[state.labels[w]] for w in range(1, len(heads) + 1)] == labels


def test_oracle_rebuilds_every_sample_tree_after_projectivization():
    for name in ("train.ud.conllu", "train.sud.conllu"):
        for sentence in read_conllu(SAMPLES / name):
            rebuilds(*projectivize(sentence.heads, sentence.deprels))


def test_oracle_refuses_a_non_projective_tree():
    with pytest.raises(ValueError, match="not projective"):
        oracle([3, 0, 2], [0, 0, 0], Moves(["x"]))


@needs_shared
@pytest.mark.parametrize("name", ["fr-sequoia/train.sud.conllu", "fr-sequoia/train.ud.conllu", "zh-beginner/train.sud.conllu"])
def test_oracle_rebuilds_every_real_tree(name):
    for sentence in read_conllu(shared_files(name)[0]):
        rebuilds(*projectivize(sentence.heads, sentence.deprels))
