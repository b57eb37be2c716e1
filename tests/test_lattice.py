"""Tag lattices in the arc-standard parser: each word's candidate tags, chosen with the tree."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from hetdep.cli import main
from hetdep.evaluation.attachment import evaluate
from hetdep.learn.perceptron import MAX_VIOLATION, TrainOptions
from hetdep.transition.parser import ArcStandardParser
from hetdep.transition.training import train
from hetdep.treebank.conllu import MISC, UPOS, read_conllu, write_conllu

TRAIN = list(read_conllu(SAMPLES / "train.ud.conllu"))
DEV = list(read_conllu(SAMPLES / "dev.ud.conllu"))
TAGSET = sorted({tag for s in TRAIN for tag in s.column(UPOS)})


def with_wrong_first_tags(sentences, rate, seed=0):
    """Each word's tag replaced, at ``rate``, by a wrong one offered first, the gold one second (MISC TagKBest)."""
    rng = random.Random(seed)
    out = []
    for sentence in sentences:
        tags, miscs = [], []
        for tag, misc in zip(sentence.column(UPOS), sentence.column(MISC)):
            if rng.random() < rate:
                wrong = rng.choice([t for t in TAGSET if t != tag])
                tags.append(wrong)
                kbest = f"TagKBest={wrong}:0.6,{tag}:0.4"
            else:
                tags.append(tag)
                kbest = f"TagKBest={tag}:1"
            miscs.append(kbest if misc == "_" else f"{misc}|{kbest}")
        out.append(sentence.with_column(UPOS, tags).with_column(MISC, miscs))
    return out


@pytest.fixture(scope="module")
def parser():
    return train(TRAIN, DEV[:50], TrainOptions(beam=8, iterations=3)).parser


def test_one_candidate_per_word_is_plain_parsing(parser):
    for sentence in DEV[:30]:
        assert parser.parse_lattice(sentence).heads == parser.parse_sentence(sentence).heads


def test_the_lattice_recovers_tags_and_attachments(parser):
    noisy = with_wrong_first_tags(DEV, 0.2)
    plain = evaluate(DEV, [parser.parse_sentence(s) for s in noisy])
    parsed = [parser.parse_lattice(s) for s in noisy]
    lattice = evaluate(DEV, parsed)
    right = lambda sentences: sum(a == b for s, g in zip(sentences, DEV)  # noqa: E731
                                  for a, b in zip(s.column(UPOS), g.column(UPOS)))
    assert right(parsed) > right(noisy) and lattice.uas > plain.uas + 5
    assert all(s.column(UPOS)[k] in (n.column(UPOS)[k], g.column(UPOS)[k])
               for s, n, g in zip(parsed, noisy, DEV) for k in range(len(s)))


def test_training_on_lattices_saves_and_parses(tmp_path):
    noisy_train = [s.with_column(UPOS, g.column(UPOS)) for s, g in zip(with_wrong_first_tags(TRAIN, 0.1, 1), TRAIN)]
    result = train(noisy_train, with_wrong_first_tags(DEV[:50], 0.1, 2), TrainOptions(beam=8, iterations=2, lattice=True))
    assert result.parser.lattice and max(r.dev_uas for r in result.history) > 60
    result.parser.save(tmp_path / "m")
    loaded = ArcStandardParser.load(tmp_path / "m")
    assert loaded.lattice
    noisy = with_wrong_first_tags(DEV[50:80], 0.1, 3)
    assert [s.heads for s in loaded.parse(noisy)] == [s.heads for s in result.parser.parse(noisy)]
    write_conllu(noisy, tmp_path / "in.conllu")
    out = CliRunner().invoke(main, ["parse", "--model", str(tmp_path / "m"), "--input", str(tmp_path / "in.conllu"),
                                    "--output", str(tmp_path / "out.conllu")])
    assert out.exit_code == 0 and "candidate tags" in out.output
    assert len(list(read_conllu(tmp_path / "out.conllu"))) == 30
    # A large weight on the tagger's log-probabilities keeps its first choice everywhere.
    out = CliRunner().invoke(main, ["parse", "--model", str(tmp_path / "m"), "--input", str(tmp_path / "in.conllu"),
                                    "--output", str(tmp_path / "first.conllu"), "--lattice-weight", "1000"])
    assert out.exit_code == 0
    assert [s.column(UPOS) for s in read_conllu(tmp_path / "first.conllu")] == [s.column(UPOS) for s in noisy]


def test_cli_jackknife_keeps_gold_tags_and_writes_candidates(tmp_path):
    sample = tmp_path / "train.conllu"
    write_conllu(TRAIN[:60], sample)
    result = CliRunner().invoke(main, ["jackknife", "--train", str(sample), "--output", str(tmp_path / "jk.conllu"),
                                       "--folds", "3", "--iterations", "2", "--k", "3"])
    assert result.exit_code == 0, result.output
    tagged = list(read_conllu(tmp_path / "jk.conllu"))
    assert [s.column(UPOS) for s in tagged] == [s.column(UPOS) for s in TRAIN[:60]]
    assert all("TagKBest=" in misc for s in tagged for misc in s.column(MISC))
    refused = CliRunner().invoke(main, ["train", "--parser", "dep1", "--train", str(sample), "--dev", str(sample),
                                        "--model", str(tmp_path / "x"), "--lattice"])
    assert refused.exit_code == 2 and "--lattice is for the arc-standard parser and the joint model" in refused.output


def test_joint_model_over_lattices():
    from hetdep.joint.parser import JointParser
    from hetdep.joint.training import train_joint
    from hetdep.treebank.pairs import read_pairs

    pairs = read_pairs(SAMPLES / "train.sud.conllu", SAMPLES / "train.ud.conllu")
    dev = read_pairs(SAMPLES / "dev.sud.conllu", SAMPLES / "dev.ud.conllu")
    plain = train_joint(pairs[:120], dev[:30], TrainOptions(beam=4, iterations=2)).parser
    single = JointParser(plain.words, plain.tags, plain.labels, plain.root_labels, plain.weights, t=plain.t, beam=4,
                         lattice=True)
    for pair in dev[30:45]:  # one candidate per word: the same trees as without a lattice
        assert [tree.heads for tree in single.parse_sentence(pair.a)] == [tree.heads for tree in plain.parse_sentence(pair.a)]
    noisy_train = [type(p)(s.with_column(UPOS, p.a.column(UPOS)), p.b) for p, s in
                   zip(pairs[:120], with_wrong_first_tags([p.a for p in pairs[:120]], 0.1, 4))]
    noisy_dev = [type(p)(s, p.b) for p, s in zip(dev[:30], with_wrong_first_tags([p.a for p in dev[:30]], 0.1, 5))]
    result = train_joint(noisy_train, noisy_dev, TrainOptions(beam=4, iterations=2, lattice=True))
    assert result.parser.lattice and max(r.dev_uas for r in result.history) > 50
    noisy = with_wrong_first_tags([p.a for p in dev[30:60]], 0.2, 6)
    for sentence, (tree_a, tree_b) in zip(noisy, result.parser.parse(noisy)):
        assert tree_a.column(UPOS) == tree_b.column(UPOS)  # one tag per word for both schemes
        offered = [[tag for tag in misc.split("TagKBest=")[1].split("|")[0].split(",")] for misc in sentence.column(MISC)]
        assert all(any(option.startswith(tag + ":") for option in options)
                   for tag, options in zip(tree_a.column(UPOS), offered))


def test_max_violation_charges_the_gold_path_the_tagger_cost_the_beam_pays():
    """With a tagger weight and an untrained model, every item's score is that weight times its
    tags' log-probabilities; the gold path, taking each word's second candidate, scores lower than
    the beam's best, which is a violation to learn from, in both the arc-standard and the joint
    search (counting no tagger cost for the gold path, none was ever found)."""
    from hetdep.joint import _lattice as joint_lattice
    from hetdep.joint.schedule import INFINITE, interleave, schedule
    from hetdep.learn.weights import Weights
    from hetdep.transition import _lattice
    from hetdep.transition.features import GUIDED_TEMPLATES, TEMPLATES
    from hetdep.transition.parser import template_array
    from hetdep.transition.training import lattice_example, prepare

    options = TrainOptions(beam=16, lattice=True, lattice_weight=1.0, update="max-violation")
    gold_tagged = next(s for s in TRAIN if len(s) >= 8)
    sentence = with_wrong_first_tags([gold_tagged], 1.0)[0].with_column(UPOS, gold_tagged.column(UPOS))
    words, tags, labels, _, encoded = prepare([sentence], options)
    w, _, gold = encoded[0]
    n = len(w) - 1
    candidates, counts, logp, gold_tags = lattice_example(sentence, tags, options)
    weights = Weights(2 + 2 * len(labels))
    _, _, _, learned_tags = _lattice.search(w, candidates, counts, logp, 1.0, n, 16, template_array(), weights.table,
                                            weights.rows, len(labels), gold, gold_tags, MAX_VIOLATION)
    assert list(learned_tags[1:n + 1]) != list(gold_tags[1:n + 1])
    who = schedule(n, INFINITE)  # the same tree in both schemes will do
    _, _, _, learned_tags = joint_lattice.joint_search(w, candidates, counts, logp, 1.0, n, 16,
                                                       template_array(TEMPLATES + GUIDED_TEMPLATES), False, weights.table,
                                                       weights.rows,
                                                       len(labels), len(labels), who, interleave(gold, gold, who), gold_tags,
                                                       MAX_VIOLATION)
    assert list(learned_tags[1:n + 1]) != list(gold_tags[1:n + 1])
