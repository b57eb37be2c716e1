"""Projectivity checks and the pseudo-projective transform, on hand-made and real trees."""

from __future__ import annotations

import itertools

import pytest
from conftest import SAMPLES, needs_shared, shared_files

from hetdep.treebank.conllu import find_cycle, read_conllu
from hetdep.treebank.projectivity import (
    deprojectivize,
    is_projective,
    non_projective_arcs,
    projectivize,
)

# "A hearing is scheduled on issue today": 'on' (5) hangs from 'hearing' (2), across 'is' (3), the root.
NON_PROJECTIVE_HEADS = [2, 3, 0, 3, 2, 5, 3]
LABELS = ["det", "nsubj", "root", "aux", "nmod", "case", "obl"]


def all_trees(n):
    """Every single-root head list of n words (for exhaustive checks on short sentences)."""
    for heads in itertools.product(range(n + 1), repeat=n):
        if heads.count(0) == 1 and all(h != i + 1 for i, h in enumerate(heads)) and not find_cycle(list(heads)):
            yield list(heads)


def test_detects_a_crossing_arc():
    assert not is_projective(NON_PROJECTIVE_HEADS)
    assert non_projective_arcs(NON_PROJECTIVE_HEADS) == [5]
    assert is_projective([2, 0, 2])


def test_arc_over_the_root_word_is_non_projective():
    # Word 1 attached to word 3 spans the root word 2.
    assert not is_projective([3, 0, 2])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_crossing_and_dominance_definitions_agree(n):
    for heads in all_trees(n):
        assert is_projective(heads) == (not non_projective_arcs(heads))


def test_lift_goes_to_the_heads_head_and_is_encoded():
    heads, labels = projectivize(NON_PROJECTIVE_HEADS, LABELS, "head")
    assert heads == [2, 3, 0, 3, 3, 5, 3]
    assert labels[4] == "nmod^nsubj"
    assert is_projective(heads)
    heads_p, labels_p = projectivize(NON_PROJECTIVE_HEADS, LABELS, "head+path")
    assert labels_p[1] == "nsubj~" and labels_p[4] == "nmod^nsubj"


@pytest.mark.parametrize("encoding", ["head", "head+path"])
def test_inverse_restores_the_hand_made_tree(encoding):
    back = deprojectivize(*projectivize(NON_PROJECTIVE_HEADS, LABELS, encoding))
    assert back == (NON_PROJECTIVE_HEADS, LABELS)


@pytest.mark.parametrize("n", [4, 5, 6])
def test_every_short_tree_becomes_projective_and_a_tree(n):
    for heads in all_trees(n):
        labels = [f"l{h}" for h in heads]  # labels tell heads apart, so the inverse is exact
        p_heads, p_labels = projectivize(heads, labels)
        assert is_projective(p_heads) and not find_cycle(p_heads)
        assert p_heads.count(0) == 1
        back_heads, back_labels = deprojectivize(p_heads, p_labels)
        assert back_labels == labels
        assert not find_cycle(back_heads)


def test_projective_tree_is_left_alone():
    heads = [2, 0, 2]
    assert projectivize(heads, ["a", "b", "c"]) == (heads, ["a", "b", "c"])


def test_labels_with_marks_are_refused():
    with pytest.raises(ValueError, match="mark lifted arcs"):
        projectivize([0], ["a^b"])


def test_deprojectivize_leaves_unmatched_lifts_and_strips_marks():
    assert deprojectivize([0, 1], ["root", "x^nowhere"]) == ([0, 1], ["root", "x"])


def restored_fraction(path):
    arcs = same = 0
    for sentence in read_conllu(path):
        back = deprojectivize(*projectivize(sentence.heads, sentence.deprels))
        arcs += len(sentence)
        same += sum(a == b for a, b in zip(zip(sentence.heads, sentence.deprels), zip(*back)))
    return same / arcs


def test_sample_trees_come_back_almost_exactly():
    assert restored_fraction(SAMPLES / "train.sud.conllu") > 0.999


@needs_shared
@pytest.mark.parametrize("name", ["fr-sequoia/train.sud.conllu", "fr-sequoia/train.ud.conllu"])
def test_real_trees_come_back_almost_exactly(name):
    assert restored_fraction(shared_files(name)[0]) > 0.999
