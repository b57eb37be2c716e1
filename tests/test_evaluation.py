"""Evaluation: hand-worked cases for every number, and agreement with an independent scorer on real files."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import conllu, needs_shared, shared_files, write

from hetdep.errors import InputError
from hetdep.evaluation.attachment import compare_sentences, evaluate, is_punct_form
from hetdep.evaluation.significance import approximate_randomization, compare, paired_bootstrap, paired_t_test, sign_test
from hetdep.treebank.conllu import read_conllu

GOLD = conllu(("Le", "DET", 2, "det"), ("chat", "NOUN", 3, "nsubj:pass"), ("dort", "VERB", 0, "root"), (".", "PUNCT", 3, "punct")) + conllu(("Oui", "INTJ", 0, "root"))
PRED = conllu(("Le", "DET", 3, "det"), ("chat", "NOUN", 3, "nsubj"), ("dort", "VERB", 0, "root"), (".", "PUNCT", 2, "punct")) + conllu(("Oui", "INTJ", 0, "root"))
OTHER = conllu(("Le", "DET", 3, "x"), ("chat", "NOUN", 3, "x"), ("dort", "VERB", 0, "x"), (".", "PUNCT", 3, "x")) + conllu(("Oui", "INTJ", 0, "x"))


def load(tmp_path, name, text):
    return list(read_conllu(write(tmp_path, name, text)))


@pytest.fixture
def files(tmp_path):
    return load(tmp_path, "gold.conllu", GOLD), load(tmp_path, "pred.conllu", PRED), load(tmp_path, "other.conllu", OTHER)


def test_scores_worked_by_hand(files):
    gold, pred, _ = files
    result = evaluate(gold, pred)
    # Scored: Le (head wrong), chat (head right, label wrong), dort (right), Oui (right).
    assert result.words == 4 and result.sentences == 2
    assert result.uas == pytest.approx(75.0)
    assert result.las == pytest.approx(50.0)
    assert result.cm == pytest.approx(50.0) and result.lcm == pytest.approx(50.0)


def test_punctuation_policies(files):
    gold, pred, _ = files
    everything = evaluate(gold, pred, punct="none")
    assert everything.words == 5 and everything.uas == pytest.approx(60.0) and everything.las == pytest.approx(40.0)
    by_form = evaluate(gold, pred, punct="form")
    assert by_form.words == 4 and by_form.uas == pytest.approx(75.0)


def test_form_punctuation_is_unicode_punctuation_only():
    assert is_punct_form(".") and is_punct_form("«") and is_punct_form("...") and is_punct_form("-")
    assert not is_punct_form("$") and not is_punct_form("a.") and not is_punct_form("")


def test_base_labels(files):
    gold, pred, _ = files
    assert evaluate(gold, pred, base_labels=True).las == pytest.approx(75.0)


def test_per_label_precision_recall(files):
    gold, pred, _ = files
    table = evaluate(gold, pred).per_label()
    assert table["root"] == {"precision": 100.0, "recall": 100.0, "f1": 100.0, "gold": 2, "predicted": 2}
    assert table["det"]["precision"] == 0.0 and table["det"]["recall"] == 0.0
    assert table["nsubj"]["gold"] == 0 and table["nsubj"]["predicted"] == 1
    assert table["nsubj:pass"]["gold"] == 1 and table["nsubj:pass"]["predicted"] == 0


def test_by_distance(files):
    gold, pred, _ = files
    table = evaluate(gold, pred).by_distance()
    # Gold lengths: Le 1, chat 1; predicted: Le 2, chat 1; chat is right.
    assert table["1"]["precision"] == 100.0 and table["1"]["recall"] == 50.0
    assert table["1"]["f1"] == pytest.approx(66.6667, abs=1e-3)
    assert table["2"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "gold": 0, "predicted": 1}
    assert table["root"]["f1"] == 100.0 and table["7+"]["gold"] == 0


def test_shared_arcs_split(files):
    gold, pred, other = files
    shared = evaluate(gold, pred, other_gold=other).shared
    # Only Le's gold head differs between the schemes; chat, dort and Oui share theirs.
    assert shared["different"] == {"words": 1, "UAS": 0.0, "LAS": 0.0}
    assert shared["shared"]["words"] == 3 and shared["shared"]["UAS"] == 100.0
    assert shared["shared"]["LAS"] == pytest.approx(66.6667, abs=1e-3)


def test_mismatched_prediction_is_an_error_naming_the_sentence(tmp_path, files):
    gold, _, _ = files
    shorter = load(tmp_path, "short.conllu", PRED.split("\n\n")[0] + "\n\n")
    with pytest.raises(InputError, match="1 predicted sentences for 2 gold sentences") as caught:
        evaluate(gold, shorter)
    assert caught.value.line == 6  # the gold sentence without a prediction
    other_words = load(tmp_path, "words.conllu", PRED.replace("chat", "chien"))
    with pytest.raises(InputError, match="word 2 is 'chien' but 'chat'") as caught:
        evaluate(gold, other_words)
    assert caught.value.line == 2


def test_better_unchanged_worse(files):
    gold, pred, _ = files
    perfect = evaluate(gold, gold)
    assert compare_sentences(perfect, evaluate(gold, pred)) == {"better": 1, "unchanged": 1, "worse": 0}


DIFF = np.array([1, 1, 1, 1, 0, -1], dtype=float)


def test_sign_test_by_hand():
    result = sign_test(DIFF)
    assert (result["better"], result["worse"], result["ties"]) == (4, 1, 1)
    assert result["p"] == pytest.approx(2 * 6 / 32)  # P(X >= 4) doubled, X ~ Bin(5, 1/2)


def test_paired_t_test_by_hand():
    result = paired_t_test(DIFF)
    # mean 0.5, sample sd sqrt(3.5 / 5), t = 0.5 / (sd / sqrt(6)) = 1.4639; df 5 gives p just above 0.2.
    assert result["t"] == pytest.approx(1.4639, abs=1e-4)
    assert 0.2 < result["p"] < 0.21
    assert paired_t_test(np.zeros(5))["p"] == 1.0


def test_approximate_randomization_matches_exact_enumeration():
    # Five non-zero +-1 differences: |sum| >= 3 for 12 of the 32 sign patterns.
    result = approximate_randomization(DIFF, samples=20_000, seed=3)
    assert result["p"] == pytest.approx(12 / 32, abs=0.015)
    assert approximate_randomization(DIFF, samples=2000, seed=3) == approximate_randomization(DIFF, samples=2000, seed=3)


def test_bootstrap_is_small_for_a_consistent_gain_and_large_for_none():
    words = np.full(50, 10.0)
    assert paired_bootstrap(np.ones(50), words, samples=1000)["p"] == pytest.approx(1 / 1001)
    noisy = np.tile([1.0, -1.0], 25)
    assert paired_bootstrap(noisy, words, samples=1000)["p"] == 1.0


def test_compare_reports_all_tests(files):
    gold, pred, _ = files
    report = compare(evaluate(gold, gold), evaluate(gold, pred), samples=500)
    assert report["a"] == 100.0 and report["b"] == 75.0
    assert set(report) >= {"sign_test", "paired_t_test", "approximate_randomization", "paired_bootstrap"}


def independent_scores(gold_path, pred_path):
    """UAS and LAS (gold UPOS PUNCT excluded) computed with the conllu package, not our reader."""
    conllu_package = pytest.importorskip("conllu")
    with open(gold_path, encoding="utf-8") as g, open(pred_path, encoding="utf-8") as p:
        gold, pred = conllu_package.parse(g.read()), conllu_package.parse(p.read())
    total = heads = labeled = 0
    for gs, ps in zip(gold, pred, strict=True):
        gw = [t for t in gs if isinstance(t["id"], int)]
        pw = [t for t in ps if isinstance(t["id"], int)]
        for gt, pt in zip(gw, pw, strict=True):
            if gt["upos"] == "PUNCT":
                continue
            total += 1
            heads += gt["head"] == pt["head"]
            labeled += gt["head"] == pt["head"] and gt["deprel"] == pt["deprel"]
    return 100 * heads / total, 100 * labeled / total


def perturbed(sentence):
    """A different but valid tree: every fifth leaf moves to the root word, every third label becomes dep."""
    heads, labels = list(sentence.heads), list(sentence.deprels)
    root = heads.index(0) + 1
    leaves = set(range(1, len(heads) + 1)) - set(heads)
    for word in sorted(leaves)[::5]:
        if word != root:
            heads[word - 1] = root
    for k in range(0, len(labels), 3):
        labels[k] = "dep"
    return sentence.with_tree(heads, labels)


@needs_shared
@pytest.mark.parametrize("gold_path", [p for p in shared_files() if not p.name.startswith("train")], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_agrees_with_an_independent_scorer(gold_path, tmp_path):
    from hetdep.treebank.conllu import write_conllu

    pred_path = tmp_path / "pred.conllu"
    write_conllu((perturbed(s) for s in read_conllu(gold_path)), pred_path)
    ours = evaluate(read_conllu(gold_path), read_conllu(pred_path))
    uas, las = independent_scores(gold_path, pred_path)
    assert ours.uas < 100 and ours.las < ours.uas
    assert round(ours.uas, 2) == round(uas, 2)
    assert round(ours.las, 2) == round(las, 2)


def test_longer_predictions_and_other_schemes_are_refused_and_no_other_means_no_split(tmp_path, files):
    gold, pred, other = files
    assert evaluate(gold, pred).shared is None  # no other scheme given: no Table 5 split
    longer = load(tmp_path, "long.conllu", PRED + PRED.split("\n\n")[0] + "\n\n")
    with pytest.raises(InputError, match="3 predicted sentences for 2 gold sentences") as caught:
        evaluate(gold, longer)
    assert caught.value.path.endswith("long.conllu")
    shorter_other = load(tmp_path, "short-other.conllu", PRED.split("\n\n")[0] + "\n\n")
    with pytest.raises(InputError, match="1 other-scheme sentences for 2 gold sentences"):
        evaluate(gold, pred, other_gold=shorter_other)


def test_evaluation_streams_its_inputs(files):
    """Sentences are taken one pair at a time (a file is never held whole): when a prediction is
    read, at most one gold sentence beyond it has been read."""
    gold, pred, _ = files
    taken = {"gold": 0, "pred": 0}

    def counted(name, sentences):
        for sentence in sentences:
            taken[name] += 1
            assert taken["gold"] - taken["pred"] <= 1 and taken["pred"] - taken["gold"] <= 1
            yield sentence

    streamed = evaluate(counted("gold", gold * 50), counted("pred", pred * 50))
    assert streamed.sentences == 100 and streamed.summary() == evaluate(gold * 50, pred * 50).summary()
