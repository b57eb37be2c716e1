"""The joint model: the schedule of t, the joint oracle, guided atoms, training, model files and CLI."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from hetdep.cli import main
from hetdep.errors import HetdepError
from hetdep.joint import _search
from hetdep.joint.parser import JointParser
from hetdep.joint.schedule import INFINITE, interleave, parse_t, schedule
from hetdep.joint.training import train_joint
from hetdep.learn import _keys
from hetdep.learn.perceptron import TrainOptions
from hetdep.transition import _beam
from hetdep.transition.system import Moves
from hetdep.transition.training import scheme_oracles
from hetdep.treebank.conllu import read_conllu
from hetdep.treebank.pairs import read_pairs
from hetdep.treebank.projectivity import projectivize

A_TRAIN, B_TRAIN = SAMPLES / "train.sud.conllu", SAMPLES / "train.ud.conllu"
A_DEV, B_DEV = SAMPLES / "dev.sud.conllu", SAMPLES / "dev.ud.conllu"


FOUR_LABELS = Moves(["dep", "nsubj", "obj", "obl"])  # the label set of the hand-built states below


def moves(*names):
    """Action ids of moves named as a reader writes them: "SH", "PR", "AL(nsubj)", "AR(obj)"."""
    return [FOUR_LABELS.parse(name) for name in names]


def letters(who):
    return "".join("ab"[s] for s in who)


def test_schedules_of_the_paper():
    assert letters(schedule(2, 1)) == "abababab"
    assert letters(schedule(2, 2)) == "aabababb"
    assert letters(schedule(2, -1)) == "babababa"
    assert letters(schedule(2, INFINITE)) == "aaaabbbb"
    assert letters(schedule(2, -INFINITE)) == "bbbbaaaa"
    for t in (1, 2, 3, 4, -1, -3, INFINITE, -INFINITE):
        who = schedule(5, t)
        assert (who == 0).sum() == 10 and (who == 1).sum() == 10


def test_t_from_the_command_line():
    assert parse_t("inf") == INFINITE and parse_t("+inf") == INFINITE and parse_t("-inf") == -INFINITE
    assert parse_t("3") == 3 and parse_t(-2) == -2
    for bad in ("0", "x", "1.5"):
        with pytest.raises(HetdepError, match="t must"):
            parse_t(bad)


@pytest.mark.parametrize("t", [1, 2, -1, -4, INFINITE, -INFINITE])
def test_joint_oracle_rebuilds_both_trees(t):
    pairs = read_pairs(A_TRAIN, B_TRAIN)[:80]
    options = TrainOptions()
    oracles = [scheme_oracles([getattr(p, s) for p in pairs], options) for s in ("a", "b")]
    for k, pair in enumerate(pairs):
        n = len(pair.a)
        who = schedule(n, t)
        joint = interleave(oracles[0][2][k], oracles[1][2][k], who)
        items = _search.new_items(1, n)
        for step, action in enumerate(joint):
            s = who[step]
            stk, slen, nxt, _ = _search.scheme_state(items, s)
            _search.joint_apply(stk, slen, nxt, items.hd, items.lb, 0, s, action, len(oracles[s][0]))
        for s, sentence in ((0, pair.a), (1, pair.b)):
            heads, labels = projectivize(sentence.heads, sentence.deprels)
            assert items.hd[0, s, 1:].tolist() == heads
            rebuilt, _ = _beam.actions_to_tree(joint[who == s], n, len(oracles[s][0]), oracles[s][1])
            assert rebuilt.tolist() == heads


def test_guided_atoms_read_the_other_partial_tree():
    # 3 words. Scheme b (other) already has 2 <- 1 (label 4) and 3 <- 2 (label 6); scheme a has S1 = 1, S0 = 2.
    n = 3
    items = _search.new_items(1, n)
    stk_a, slen_a, nxt_a, _, _, nxt_b, hd, lb = items
    nxt_b[0] = n + 1  # b has shifted every word
    hd[0, 1, 1], lb[0, 1, 1] = 2, 5
    hd[0, 1, 2], lb[0, 1, 2] = 3, 7
    for action in moves("SH", "SH"):
        _search.joint_apply(stk_a, slen_a, nxt_a, hd, lb, 0, 0, action, FOUR_LABELS.n_labels)
    words = np.array([0, 11, 12, 13]), np.array([0, 21, 22, 23])
    out = np.zeros(_search.N_JOINT_ATOMS, dtype=np.int64)
    _search.joint_atoms(stk_a, slen_a, nxt_a, nxt_b, hd, lb, 0, 0, *words, n, False, out)
    assert out[_search.H_GUIDE] == 1  # S0 (2) heads S1 (1) in scheme b
    assert out[_search.L0_GUIDE] == 7 and out[_search.L1_GUIDE] == 5
    hd[0, 1, 2] = -1  # S0 has no head in b yet: no relation
    _search.joint_atoms(stk_a, slen_a, nxt_a, nxt_b, hd, lb, 0, 0, *words, n, False, out)
    assert out[_search.H_GUIDE] == 0
    # A word b has not shifted has no head there, whatever its (uncopied) entries hold.
    hd[0, 1, 2], nxt_b[0] = 3, 2
    _search.joint_atoms(stk_a, slen_a, nxt_a, nxt_b, hd, lb, 0, 0, *words, n, False, out)
    assert out[_search.H_GUIDE] == 0 and out[_search.L0_GUIDE] == 0 and out[_search.L1_GUIDE] == 5


def test_rich_guide_atoms_see_siblings_grandparents_head_places_and_pending_dependents():
    # 6 words; scheme a (acting) has shifted 1..4 with S1 = 2, S0 = 4 (3 is 4's left child), N0 = 5.
    # Scheme b (other, finished): 1 <- 2, 2 <- 0 (root), 3 <- 2, 4 <- 2, 5 <- 4, 6 <- 5.
    n = 6
    items = _search.new_items(1, n)
    stk_a, slen_a, nxt_a, _, _, nxt_b, hd, lb = items
    for action in moves("SH", "SH", "SH", "SH", "AL(dep)"):  # S0 (4) heads S1 (3)
        _search.joint_apply(stk_a, slen_a, nxt_a, hd, lb, 0, 0, action, FOUR_LABELS.n_labels)
    nxt_b[0] = n + 1
    hd[0, 1, 1:] = [2, 0, 2, 2, 4, 5]
    lb[0, 1, 1:] = [1, 2, 3, 4, 5, 6]
    words = np.arange(n + 1), np.arange(n + 1) + 100
    out = np.zeros(_search.N_JOINT_ATOMS, dtype=np.int64)

    def atoms():
        known = _search.joint_atoms(stk_a, slen_a, nxt_a, nxt_b, hd, lb, 0, 0, *words, n, True, out)
        return known, [int(out[a]) for a in (_search.H_GUIDE, _search.G_GUIDE, _search.P0_GUIDE, _search.P1_GUIDE, _search.C_GUIDE)]

    # S1 (2) heads S0 (4) in b; S0's head is its partner, S1's is the root; S0 has 5 (= N0) pending.
    assert atoms() == (True, [2, 2, 2, 1, 1 | 2])
    hd[0, 1, 4] = 3  # S0 now under 3, which is under S1: S1 is S0's grandparent, S0's head between them
    assert atoms() == (True, [3, 5, 4, 1, 1 | 2])
    hd[0, 1, 2], hd[0, 1, 4] = 6, 6  # siblings under 6, deeper in the queue than N0; nobody pending
    hd[0, 1, 5] = 1
    assert atoms() == (True, [3, 3, 7, 7, 1])
    hd[0, 1, 4], hd[0, 1, 6] = 2, 4  # S1 (2) heads S0 (4) again, and S0's dependent 6 is pending
    assert atoms() == (True, [2, 2, 2, 7, 1 | 2])
    hd[0, 1, 6] = 2  # S1's dependent 6 is still in a's queue
    assert atoms() == (True, [2, 2, 2, 7, 1 | 4])
    nxt_b[0] = 2  # b has shifted only word 1: nothing known of S0, S1 or the queue, and the guide is silent
    assert atoms() == (False, [0, 0, 0, 0, 0])
    # The paper's guide leaves the rich atoms at 0.
    nxt_b[0] = n + 1
    _search.joint_atoms(stk_a, slen_a, nxt_a, nxt_b, hd, lb, 0, 0, *words, n, False, out)
    assert out[_search.H_GUIDE] == 2 and not out[_search.G_GUIDE:].any()


def test_items_copied_between_beam_slots_keep_the_guide():
    # The search copies only the shifted words' heads when an item moves to another beam slot;
    # slots hold stale entries from earlier items. Along a gold joint sequence (t = 1, both
    # schemes' partial trees interleaved), an item copied to a dirty slot after every action
    # must give the same guided atoms as one built in place.
    pair = read_pairs(A_TRAIN, B_TRAIN)[3]
    options = TrainOptions()
    oracles = [scheme_oracles([getattr(pair, s)], options) for s in ("a", "b")]
    n = len(pair.a)
    who = schedule(n, 1)
    joint = interleave(oracles[0][2][0], oracles[1][2][0], who)
    words, tags = np.arange(n + 1), np.arange(n + 1) + 100
    clean = _search.new_items(1, n)
    slots = [_search.new_items(1, n), _search.new_items(1, n)]
    for side in slots:
        side[6][:], side[7][:] = 5, 9  # stale entries
    for step, action in enumerate(joint):
        s = who[step]
        n_labels = len(oracles[s][0])
        for items in (clean, slots[step % 2]):
            stk, slen, nxt, _ = _search.scheme_state(items, s)
            _search.joint_apply(stk, slen, nxt, items.hd, items.lb, 0, s, action, n_labels)
        _search.copy_item(slots[step % 2], slots[1 - step % 2], 0, 0)
        moved = slots[1 - step % 2]
        for scheme in (0, 1):
            atoms = []
            for items in (clean, moved):
                out = np.zeros(_search.N_JOINT_ATOMS, dtype=np.int64)
                stk, slen, nxt, other_nxt = _search.scheme_state(items, scheme)
                _search.joint_atoms(stk, slen, nxt, other_nxt, items.hd, items.lb, 0, scheme, words, tags, n, True, out)
                atoms.append(out.tolist())
            assert atoms[0] == atoms[1], f"step {step}, scheme {scheme}"


@pytest.fixture(scope="module")
def trained():
    return train_joint(read_pairs(A_TRAIN, B_TRAIN), read_pairs(A_DEV, B_DEV)[:80], TrainOptions(beam=4, iterations=3), t=1)


def test_joint_training_learns_both_schemes(trained):
    first, last = trained.history[0].dev_detail, max(trained.history, key=lambda r: r.dev_uas).dev_detail
    assert last["UAS_a"] > first["UAS_a"] and last["UAS_b"] > first["UAS_b"]
    assert last["UAS_a"] > 65 and last["UAS_b"] > 65


def test_joint_save_load_same_parses(trained, tmp_path):
    trained.parser.save(tmp_path / "joint")
    loaded = JointParser.load(tmp_path / "joint")
    dev = list(read_conllu(B_DEV))[:15]
    assert [(a.to_text(), b.to_text()) for a, b in loaded.parse(dev)] == \
        [(a.to_text(), b.to_text()) for a, b in trained.parser.parse(dev)]
    assert loaded.t == 1 and loaded.guide == "rich"  # the default guide, kept in the model files


@pytest.mark.parametrize("t", [2, INFINITE])
def test_rich_guide_scores_exactly_the_features_it_learns(t):
    # The update learns the keys of templates 0..stop-1, where stop drops the guided templates
    # when they do not fire (the rich guide: the other scheme has not shifted S0 or S1). Along a
    # gold sequence, the search's scores of each item must be the sum of those keys' weights.
    from hetdep.learn import _weights

    pairs = read_pairs(A_TRAIN, B_TRAIN)[:40]
    parser = train_joint(pairs, [], TrainOptions(beam=4, iterations=1), t=t, guide="rich").parser
    table, rows, templates = parser.weights.table, parser.weights.rows, parser.templates
    oracles = [scheme_oracles([getattr(p, s) for p in pairs], TrainOptions()) for s in ("a", "b")]
    pair, k = pairs[5], 5
    n = len(pair.a)
    words, tags = parser.encode(pair.a)
    who = schedule(n, t)
    joint = interleave(oracles[0][2][k], oracles[1][2][k], who)
    items = _search.new_items(1, n)
    silent = 0
    for step, action in enumerate(joint):
        s = who[step]
        n_labels = len(parser.labels[s])
        stk, slen, nxt, other_nxt = _search.scheme_state(items, s)
        acc = _search.scheme_scores(len(parser.labels[0]), len(parser.labels[1]))[s]
        guided = _search.scheme_scores(len(parser.labels[0]), len(parser.labels[1]))[s]
        first, last, extra = _search.joint_score(stk, slen, nxt, other_nxt, items.hd, items.lb, 0, s, n, words, tags,
                                                templates, parser.rich, table, rows,
                                                np.zeros(_search.N_JOINT_ATOMS, dtype=np.int64),
                                                np.zeros(len(templates), dtype=np.uint64), acc, guided,
                                                _search.joint_memo(1, 1, len(acc), parser.rich))
        atoms = np.zeros(_search.N_JOINT_ATOMS, dtype=np.int64)
        known = _search.joint_atoms(stk, slen, nxt, other_nxt, items.hd, items.lb, 0, s, words, tags, n, True, atoms)
        stop = len(templates) if known else _search.N_BASELINE_TEMPLATES
        silent += not known
        keys = np.zeros(len(templates), dtype=np.uint64)
        _keys.feature_keys(atoms, templates, 0, stop, s, keys)
        expected = np.zeros_like(acc)
        for key in keys[:stop]:
            _weights.add_scores(np.uint64(_weights.lookup(table, key)), rows, expected, last > first, extra)
        valid = list(range(first, last)) + ([extra] if extra >= 0 else [])
        assert np.allclose(acc[valid], expected[valid], atol=1e-4), f"step {step}"
        _search.joint_apply(stk, slen, nxt, items.hd, items.lb, 0, s, action, n_labels)
    assert silent >= (2 * n if t == INFINITE else 1)  # at t = +inf the whole first pass is unguided


def test_without_guided_features_has_only_the_baseline_templates():
    result = train_joint(read_pairs(A_TRAIN, B_TRAIN)[:30], [], TrainOptions(beam=2, iterations=1), guide="none")
    assert len(result.parser.templates) == 70


def train_on_the_sample(model, *options):
    """``hetdep train`` of a joint model alone (no tokenizer, no tagger) on the sample, beam 2, one iteration."""
    return CliRunner().invoke(main, ["train", "--train", str(A_TRAIN), "--train-b", str(B_TRAIN), "--dev", str(A_DEV),
                                     "--dev-b", str(B_DEV), "--model", str(model), "--beam", "2", "--iterations", "1",
                                     "--gold-tags", "--no-tokenizer", *options])


def test_cli_joint_train_and_parse(tmp_path):
    model = tmp_path / "joint"
    run = train_on_the_sample(model, "--t", "-inf")
    assert run.exit_code == 0, run.output
    assert "UAS_a" in run.output
    out_a, out_b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    run = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(B_DEV), "--output", str(out_a),
                                    "--output-b", str(out_b)])
    assert run.exit_code == 0, run.output
    assert len(list(read_conllu(out_a))) == len(list(read_conllu(out_b))) == 200
    both_a = out_a.read_text(encoding="utf-8")
    alone = tmp_path / "alone.conllu"
    run = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(B_DEV), "--output", str(alone)])
    assert run.exit_code == 0 and alone.read_text(encoding="utf-8") == both_a  # --output alone: scheme a's trees
    run = CliRunner().invoke(main, ["train", "--train", str(A_TRAIN), "--train-b", str(B_TRAIN), "--dev", str(A_DEV),
                                    "--model", str(model)])
    assert run.exit_code == 2 and "--dev-b" in run.output


def test_cli_rich_guide_and_conversion_against_the_schedule(tmp_path):
    model = tmp_path / "rich"
    run = train_on_the_sample(model, "--guide", "rich")
    assert run.exit_code == 0, run.output
    loaded = JointParser.load(model)
    assert loaded.guide == "rich" and len(loaded.templates) == 70 + 18 + 21
    out = tmp_path / "converted.conllu"
    # t = +inf parses scheme a before b: a given b tree cannot guide it, and the user is told.
    run = CliRunner().invoke(main, ["parse", "--model", str(model), "--gold-b", str(B_DEV), "--output", str(out)])
    assert run.exit_code == 0 and "cannot guide it" in run.output and "--t -inf" in run.output
    assert len(list(read_conllu(out))) == 200
    run = CliRunner().invoke(main, ["parse", "--model", str(model), "--gold-a", str(A_DEV), "--output", str(out)])
    assert run.exit_code == 0 and "cannot guide" not in run.output
    run = CliRunner().invoke(main, ["train", "--train", str(A_TRAIN), "--train-b", str(B_TRAIN), "--dev", str(A_DEV),
                                    "--dev-b", str(B_DEV), "--model", str(model), "--guide", "fancy"])
    assert run.exit_code == 2 and "fancy" in run.output


def test_mismatched_scheme_files_are_refused(tmp_path):
    run = CliRunner().invoke(main, ["train", "--train", str(A_TRAIN), "--train-b", str(B_DEV), "--dev", str(A_DEV),
                                    "--dev-b", str(B_DEV), "--model", str(tmp_path / "m")])
    assert run.exit_code == 2 and "dev.ud.conllu:1: sentence has 34 words but its pair" in run.output


def test_conversion_keeps_the_given_tree_and_parses_the_other(trained, tmp_path):
    model = tmp_path / "joint"
    trained.parser.save(model)
    out = tmp_path / "converted.conllu"
    run = CliRunner().invoke(main, ["parse", "--model", str(model), "--gold-a", str(A_DEV), "--output", str(out)])
    assert run.exit_code == 0, run.output
    converted = list(read_conllu(out))
    gold_b = list(read_conllu(B_DEV))
    assert len(converted) == 200 and [s.forms for s in converted] == [s.forms for s in gold_b]
    # The given scheme-a tree steers the scheme-b search: the forced actions rebuild it exactly.
    sentence = list(read_conllu(A_DEV))[3]
    kept, _ = trained.parser.parse_sentence(sentence, given=0)
    assert kept is sentence
    run = CliRunner().invoke(main, ["parse", "--model", str(model), "--gold-a", str(A_DEV), "--input", str(A_DEV),
                                    "--output", str(out)])
    assert run.exit_code == 2 and "give one of --input, --gold-a and --gold-b" in run.output


def test_conversion_counts_labels_the_model_does_not_know(trained, tmp_path):
    text = "1\tOui\toui\tINTJ\t_\t_\t0\troot\t_\t_\n2\t!\t!\tPUNCT\t_\t_\t1\tLABEL\t_\t_\n\n"
    path = tmp_path / "odd.conllu"
    before = trained.parser.stats.unknown_labels
    for label in ("not-a-label", "comp:obj@never-seen"):
        path.write_text(text.replace("LABEL", label))
        [(kept, other)] = list(trained.parser.parse(read_conllu(path), given=0))
        assert kept.deprels[1] == label and len(other) == 2
    assert trained.parser.stats.unknown_labels == before + 2
