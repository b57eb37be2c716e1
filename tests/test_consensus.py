"""Joint inference between two dep1 parsers trained on different treebanks (zhou-zhao2013)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES, SHARED_DATA, needs_shared

from hetdep.cli import main
from hetdep.errors import HetdepError
from hetdep.evaluation.attachment import evaluate
from hetdep.graph.consensus import SUPPORT, ConsensusOptions, check_compatible, error_support, joint_parse, start, tune
from hetdep.graph.parser import GraphParser, agreement_bins, related, train_graph
from hetdep.learn.model_files import ModelFileError
from hetdep.learn.perceptron import TrainOptions
from hetdep.treebank.conllu import read_conllu

UD_TRAIN = list(read_conllu(SAMPLES / "train.ud.conllu"))
SUD_TRAIN = list(read_conllu(SAMPLES / "train.sud.conllu"))
DEV = list(read_conllu(SAMPLES / "dev.ud.conllu"))


@pytest.fixture(scope="module")
def parsers():
    # Two "treebanks": the first half of the sample in UD, the second half in SUD.
    a = train_graph(UD_TRAIN[:100], [], TrainOptions(iterations=2)).parser
    b = train_graph(SUD_TRAIN[100:], [], TrainOptions(iterations=2)).parser
    return a, b


def test_without_weights_each_parser_parses_alone(parsers):
    a, b = parsers
    pairs = list(joint_parse(a, b, DEV[:15], ConsensusOptions(), ConsensusOptions()))
    assert [x.heads for x, _ in pairs] == [s.heads for s in a.parse(DEV[:15])]
    assert [y.heads for _, y in pairs] == [s.heads for s in b.parse(DEV[:15])]


def test_posterior_mass_and_strong_consensus(parsers):
    a, b = parsers
    options = ConsensusOptions(k=8, temperature=50.0)
    state = start(a, b, DEV[0], options, options).list_b
    mass = state.arc_mass()
    assert mass[:, 1:].sum(axis=0) == pytest.approx([1.0] * state.n)
    # With a peaked posterior and an overwhelming edge weight, a takes b's best tree.
    follow = ConsensusOptions(edge=1e6, root=1e6, k=8, iterations=1, temperature=1e-3)
    for sentence in DEV[:10]:
        tree_a, tree_b = next(joint_parse(a, b, [sentence], follow, ConsensusOptions(k=8, iterations=1, temperature=1e-3)))
        assert tree_a.heads == tree_b.heads


def test_sibling_and_grandparent_consensus(parsers):
    a, b = parsers
    options = ConsensusOptions(k=8, temperature=50.0)
    state = start(a, b, DEV[1], options, options).list_b
    siblings, grands = state.second_order_mass()
    attached = state.n - 1  # every word but the root's child has one sibling part and one grandparent chain
    assert siblings.sum() == pytest.approx(attached) and grands.sum() == pytest.approx(attached)
    # Overwhelming sibling and grandparent weights alone make dep1 parser a (second-order search,
    # its own second-order scores zero) take b's best tree.
    follow = ConsensusOptions(sibling=1e6, grand=1e6, k=4, iterations=1, temperature=1e-3)
    for sentence in DEV[:8]:
        tree_a, tree_b = next(joint_parse(a, b, [sentence], follow, ConsensusOptions(k=4, iterations=1, temperature=1e-3)))
        assert tree_a.heads == tree_b.heads


def test_tune_is_one_pass_of_coordinate_ascent(parsers):
    """Each weight in turn takes its grid value with the best dev UAS (the first on a tie), the
    others staying; recomputed here by parsing with every candidate directly."""
    a, b = parsers
    dev, base = DEV[:30], ConsensusOptions(k=4, iterations=1)
    options, uas = tune(a, b, dev, {"edge": (0.0, 5.0), "grand": (0.0, 2.0)}, base=base)

    def dev_uas(**weights) -> float:
        return evaluate(dev, [x for x, _ in joint_parse(a, b, dev, replace(base, **weights), base)]).uas

    edge = max((0.0, 5.0), key=lambda value: (dev_uas(edge=value), -value))
    grand = max((0.0, 2.0), key=lambda value: (dev_uas(edge=edge, grand=value), -value))
    assert (options.edge, options.grand, options.root, options.sibling) == (edge, grand, 0.0, 0.0)
    assert uas == dev_uas(edge=edge, grand=grand) >= dev_uas()


def test_incompatible_tag_columns_are_refused(parsers):
    a, b = parsers
    b.tag_column = "xpos"
    try:
        with pytest.raises(HetdepError, match="reads tags from UPOS"):
            check_compatible(a, b)
    finally:
        b.tag_column = "upos"


def test_cli_parse_with(parsers, tmp_path):
    a, b = parsers
    a.save(tmp_path / "a")
    b.save(tmp_path / "b")
    dev = str(SAMPLES / "dev.ud.conllu")
    result = CliRunner().invoke(main, ["parse", "--model", str(tmp_path / "a"), "--with", str(tmp_path / "b"), "--input", dev,
                                       "--output", str(tmp_path / "a.conllu"), "--output-b", str(tmp_path / "b.conllu"),
                                       "--k", "4", "--consensus-iterations", "1"])
    assert result.exit_code == 0, result.output
    assert len(list(read_conllu(tmp_path / "a.conllu"))) == len(list(read_conllu(tmp_path / "b.conllu"))) == len(DEV)


@needs_shared
@pytest.mark.parametrize("setting, sizes", [("fr", ((2231, 412, 456), (1276, 200, 416))),
                                            ("en", ((12544, 2001, 2077), None))])
def test_settings_split_as_documented(setting, sizes):
    from hetdep.experiments.consensus import consensus_setting

    a, b = consensus_setting(setting, SHARED_DATA)
    assert (len(a.train), len(a.dev), len(a.test)) == sizes[0]
    if sizes[1]:
        assert (len(b.train), len(b.dev), len(b.test)) == sizes[1]
    else:  # WSJ sample: 3,914 sentences split by file number, one label
        assert len(b.train) + len(b.dev) + len(b.test) == 3914 and min(len(b.dev), len(b.test)) > 100
        assert {label for s in b.train for label in s.deprels} == {"dep"}


def test_learned_agreement_features(parsers, tmp_path):
    a, b = parsers
    helped = train_graph(UD_TRAIN[:100], DEV[:20], TrainOptions(iterations=2), helper=b).parser
    assert helped.helped and helped.helper is b
    helped.save(tmp_path / "h")
    loaded = GraphParser.load(tmp_path / "h")
    assert loaded.helped and loaded.helper is None
    with pytest.raises(HetdepError, match="parse with that parser beside it"):
        loaded.parse_sentence(DEV[0])
    loaded.helper = b
    assert [s.heads for s in loaded.parse(DEV[:20])] == [s.heads for s in helped.parse(DEV[:20])]
    # The agreement features are read: another helper's lists give other trees.
    loaded.helper = a
    assert [s.heads for s in loaded.parse(DEV[:20])] != [s.heads for s in helped.parse(DEV[:20])]
    # Joint inference re-scores the helped parser's arcs with the other's current list.
    pairs = list(joint_parse(helped, b, DEV[:10], ConsensusOptions(iterations=2), ConsensusOptions(iterations=2)))
    assert [x.heads for x, _ in pairs] == [s.heads for s in helped.parse(DEV[:10])]  # b does not listen: one exchange
    result = CliRunner().invoke(main, ["parse", "--model", str(tmp_path / "h"), "--input", str(SAMPLES / "dev.ud.conllu"),
                                       "--output", str(tmp_path / "o.conllu")])
    assert result.exit_code != 0 and "parse with that parser beside it" in result.output
    # A helped model saved with other agreement features (before their reverse, grandparent and
    # sibling bits) is refused, not read wrongly.
    config = json.loads((tmp_path / "h" / "config.json").read_text())
    del config["agreement_features"]
    (tmp_path / "h" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="other agreement features"):
        GraphParser.load(tmp_path / "h")


def test_agreement_bins_see_the_reverse_arc_the_grandparent_and_the_sibling():
    # The other parser's one tree over 3 words: 0 -> 2, 2 -> 1, 1 -> 3 (all of the mass).
    bins = agreement_bins(np.array([[0, 2, 0, 1]]), np.array([1.0]))
    assert bins[2, 1] == 4  # the arc itself: top mass bin, nothing else
    assert bins[1, 2] == 1 + 4  # the reverse of 2 -> 1
    assert bins[2, 3] == 1 + 8  # 2 is 3's grandparent
    assert bins[3, 2] == 1  # 3 and 2 are not siblings (heads 1 and 0), 3 is not 2's head
    siblings = agreement_bins(np.array([[0, 2, 0, 2]]), np.array([0.6]))
    assert siblings[1, 3] == siblings[3, 1] == 1 + 16  # both hang from 2 (mass 0.6 >= 0.5); the arc mass 0 bins to 1
    assert siblings[2, 1] == 3  # mass 0.6 lies in the third bin


def test_related_reads_every_relation_of_the_bins():
    # Other tree over 4 words: 0 -> 2, 2 -> 1, 1 -> 3, 2 -> 4 (all of the mass).
    bins = agreement_bins(np.array([[0, 2, 0, 1, 2]]), np.array([1.0]))
    found = related(bins)
    assert found[2, 1] and found[1, 2] and found[2, 3] and found[1, 4] and found[0, 1]  # arc, reverse, grandparents, siblings
    assert not found[3, 4] and not found[4, 3] and not found[0, 3]  # cousins; a great-grandparent
    weak = related(agreement_bins(np.array([[0, 2, 0]]), np.array([0.4])))  # below half the mass: nothing
    assert not weak.any()


def test_error_support_sorts_every_wrong_head(parsers):
    a, b = parsers
    support = error_support(a, b, DEV[:30], k=4)
    assert set(support) == set(SUPPORT)
    wrong = sum(g != p and u != "PUNCT" for s, t in zip(DEV[:30], a.parse(DEV[:30]))
                for g, p, u in zip(s.heads, t.heads, s.upos))
    assert sum(support.values()) == wrong > 0
    # A helper that parses exactly like the parser relates the wrong head, never the gold one alone.
    echo = error_support(a, a, DEV[:30], k=1)
    assert echo["gold head only"] == 0 and echo["predicted head only"] + echo["both"] == wrong
