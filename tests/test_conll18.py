"""CoNLL 2018 scoring of raw-text parsing: a hand-computed case, and the shared task's own scorer on real files."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SAMPLES, SHARED_DATA, needs_shared, write

from hetdep.cli.app import main
from hetdep.errors import InputError
from hetdep.evaluation.conll18 import ENHANCED_METRICS, METRICS, evaluate_conll18
from hetdep.treebank.conllu import DEPREL, DEPS, FEATS, FORM, ID, LEMMA, UPOS, XPOS, enhanced_edges, read_conllu

GOLD = """\
# text = Il parle du livre.
1\tIl\til\tPRON\t_\tNumber=Sing|Person=3\t2\tnsubj\t_\t_
2\tparle\tparler\tVERB\t_\t_\t0\troot\t_\t_
3-4\tdu\t_\t_\t_\t_\t_\t_\t_\t_
3\tde\tde\tADP\t_\t_\t5\tcase\t_\t_
4\tle\tle\tDET\t_\t_\t5\tdet\t_\t_
5\tlivre\tlivre\tNOUN\t_\t_\t2\tobl\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

# text = Il dort.
1\tIl\til\tPRON\t_\tNumber=Sing|Person=3\t2\tnsubj\t_\t_
2\tdort\tdormir\tVERB\t_\t_\t0\troot\t_\tSpaceAfter=No
3\t.\t.\tPUNCT\t_\t_\t2\tpunct\t_\t_

"""

# One sentence instead of two, "du" left as one word, "dort" attached to "parle", one label wrong,
# the second "Il" plural, "livre" lemmatized "Livre" (the first "Il"'s extra feature is not a universal one).
SYSTEM = """\
1\tIl\til\tPRON\t_\tNumber=Sing|Person=3|Xtra=1\t2\tnsubj\t_\t_
2\tparle\tparler\tVERB\t_\t_\t0\troot\t_\t_
3\tdu\tdu\tDET\t_\t_\t4\tdet\t_\t_
4\tlivre\tLivre\tNOUN\t_\t_\t2\tobl:arg\t_\t_
5\t.\t.\tPUNCT\t_\t_\t2\tdep\t_\t_
6\tIl\til\tPRON\t_\tNumber=Plur|Person=3\t7\tnsubj\t_\t_
7\tdort\tdormir\tVERB\t_\t_\t2\tparataxis\t_\t_
8\t.\t.\tPUNCT\t_\t_\t7\tpunct\t_\t_

"""


def test_hand_computed_counts(tmp_path):
    scores = evaluate_conll18(write(tmp_path, "gold.conllu", GOLD), write(tmp_path, "system.conllu", SYSTEM))
    counts = {name: (s.gold, s.system, s.correct) for name, s in scores.items()}
    assert counts == {
        "Tokens": (8, 8, 8),
        "Sentences": (2, 1, 0),  # the system's one sentence starts where the first does but ends elsewhere
        "Words": (9, 8, 7),  # de + le against du: no form in common
        "UPOS": (9, 8, 7),
        "XPOS": (9, 8, 7),
        "UFeats": (9, 8, 6),
        "AllTags": (9, 8, 6),
        "Lemmas": (9, 8, 6),
        "UAS": (9, 8, 6),  # dort is the root in gold
        "LAS": (9, 8, 5),  # obl:arg counts as obl; dep is not punct
        "CLAS": (5, 6, 4),  # content words: Il parle livre Il dort, and the system's dep-labelled "." too
        "MLAS": (5, 6, 2),  # livre has the functional children de + le in gold, du alone in the system
        "BLEX": (5, 6, 3),
    }
    assert scores["Words"].f1 == pytest.approx(200 * 7 / 17)
    assert scores["UAS"].aligned_accuracy == pytest.approx(100 * 6 / 7)


def test_other_text_is_refused_naming_the_system_line(tmp_path):
    gold = write(tmp_path, "gold.conllu", GOLD)
    system = write(tmp_path, "system.conllu", SYSTEM.replace("dort", "mange"))
    with pytest.raises(InputError) as error:
        evaluate_conll18(gold, system)
    assert error.value.path == str(system) and error.value.line == 7 and "'mange" in error.value.message


def test_enhanced_graphs_are_scored_when_the_gold_has_them(tmp_path):
    """ELAS: the whole relation (obl:de), EULAS: its part before the colon; the root edge counts."""
    gold = GOLD.replace("\tobl\t_", "\tobl\t2:obl:de").replace("\troot\t_\t", "\troot\t0:root\t")
    system = SYSTEM.replace("\tobl:arg\t_", "\tobl:arg\t2:obl:du").replace("\troot\t_\t_", "\troot\t0:root\t_")
    files = write(tmp_path, "gold.conllu", gold), write(tmp_path, "system.conllu", system)
    scores = evaluate_conll18(*files)
    assert (scores["ELAS"].gold, scores["ELAS"].system, scores["ELAS"].correct) == (3, 2, 1)  # the system gives dort no enhanced edge
    assert scores["EULAS"].correct == 2
    assert "ELAS" not in evaluate_conll18(write(tmp_path, "plain.conllu", GOLD), files[1])
    result = CliRunner().invoke(main, ["eval", "--conll18", *map(str, files)])
    assert [line.split()[0] for line in result.output.splitlines()[1:]] == list(METRICS + ENHANCED_METRICS)


def test_cli_prints_the_table_and_points_plain_eval_to_it(tmp_path):
    gold, system = write(tmp_path, "gold.conllu", GOLD), write(tmp_path, "system.conllu", SYSTEM)
    result = CliRunner().invoke(main, ["eval", "--conll18", str(gold), str(system)])
    assert result.exit_code == 0, result.output
    assert [line.split()[0] for line in result.output.splitlines()[1:]] == list(METRICS)
    plain = CliRunner().invoke(main, ["eval", str(gold), str(system)])
    assert plain.exit_code == 2 and "--conll18" in plain.output


# --- cross-check against the shared task's scorer (udtools.udeval, test-only: GPL) ---------------

class _Word:
    __slots__ = ("form", "lemma", "upos", "xpos", "feats", "deprel", "head", "deps")

    def __init__(self, form, lemma, upos, xpos, feats, deprel):
        self.form, self.lemma, self.upos, self.xpos, self.feats, self.deprel = form, lemma, upos, xpos, feats, deprel
        self.head = None
        self.deps = []  # enhanced edges: (head word, None for the root; relation)


def _tokens(sentence) -> list[tuple[str, list[_Word]]]:
    """A sentence as (token form, its words), heads as references to words (None: the root)."""
    words = [_Word(row[FORM], row[LEMMA], row[UPOS], row[XPOS], row[FEATS], row[DEPREL])
             for row in (sentence.rows[i] for i in sentence.word_rows)]
    for word, head in zip(words, sentence.heads):
        word.head = words[head - 1] if head > 0 else None
    for word, k in zip(words, sentence.word_rows):  # edges from empty nodes left out: the scorers leave them out
        word.deps = [(words[int(head) - 1] if head != "0" else None, relation)
                     for head, relation in enhanced_edges(sentence.rows[k][DEPS]) if "." not in head]
    tokens, k, left = [], 0, 0
    for row in sentence.rows:
        if "-" in row[ID]:
            low, high = map(int, row[ID].split("-"))
            tokens.append((row[FORM], words[k:k + high - low + 1]))
            k, left = k + high - low + 1, high - low + 1
        elif "." not in row[ID]:
            if left:
                left -= 1
            else:
                tokens.append((row[FORM], [words[k]]))
                k += 1
    return tokens


def _text(sentences: list[list[tuple[str, list[_Word]]]]) -> str:
    out = []
    for tokens in sentences:
        index = {id(w): i for i, w in enumerate((w for _, ws in tokens for w in ws), 1)}
        n = 1
        for form, words in tokens:
            if len(words) > 1:
                out.append(f"{n}-{n + len(words) - 1}\t{form}" + "\t_" * 8)
            for w in words:
                head = index[id(w.head)] if w.head is not None else 0
                deps = "|".join(f"{h}:{r}" for h, r in sorted((index[id(d)] if d is not None else 0, r) for d, r in w.deps))
                out.append(f"{n}\t{w.form}\t{w.lemma}\t{w.upos}\t{w.xpos}\t{w.feats}\t{head}\t{w.deprel}\t{deps or '_'}\t_")
                n += 1
        out.append("")
    return "\n".join(out) + "\n"


def _system_from(gold_path: Path, seed: int) -> str:
    """The gold file damaged as a raw-text parser would: sentences merged, multiword tokens left
    whole, words split in two, leaves attached elsewhere, tags, labels, lemmas and features changed,
    content and functional relations swapped."""
    rng = random.Random(seed)
    sentences = [_tokens(s) for s in read_conllu(gold_path)]
    merged = []
    for tokens in sentences:
        if merged and rng.random() < 0.3:
            root = next(w for _, ws in tokens for w in ws if w.head is None)
            root.head = next(w for _, ws in merged[-1] for w in ws if w.head is None)
            merged[-1] = merged[-1] + tokens
        else:
            merged.append(tokens)
    for k, tokens in enumerate(merged):
        words = [w for _, ws in tokens for w in ws]
        changed = []
        for form, ws in tokens:
            outside = {id(w.head) for w in ws if w.head not in ws}
            if len(ws) > 1 and len(outside) == 1 and rng.random() < 0.5:  # a multiword token kept as one word
                whole = ws[0]
                whole.head = next(w.head for w in ws if w.head not in ws)
                for w in words:
                    if w.head in ws[1:]:
                        w.head = whole
                    w.deps = [(whole if d in ws[1:] else d, r) for d, r in w.deps]
                whole.form = form
                changed.append((form, [whole]))
            elif len(ws) == 1 and len(form) >= 2 and " " not in form and rng.random() < 0.05:  # split in two
                half = len(form) // 2
                rest = _Word(form[half:], "_", "X", "_", "_", "dep")
                rest.head, ws[0].form, rest.deps = ws[0], form[:half], [(ws[0], "dep")]
                changed += [(form[:half], ws), (form[half:], [rest])]
            else:
                changed.append((form, ws))
        merged[k] = tokens = changed
        words = [w for _, ws in tokens for w in ws]
        has_child = {id(w.head) for w in words}
        for w in words:
            if rng.random() < 0.1 and id(w) not in has_child and w.head is not None:
                w.head = rng.choice([v for v in words if v is not w])  # a leaf can hang anywhere without a cycle
                has_child.add(id(w.head))
            if rng.random() < 0.05:
                w.upos, w.deprel = "X", "dep:x"
            if rng.random() < 0.05:
                w.lemma = rng.choice(["_", w.lemma + "x", w.lemma.upper()])
            if rng.random() < 0.05:  # features dropped, one removed, or a non-universal one added
                features = [f for f in w.feats.split("|") if f != "_"]
                w.feats = rng.choice(["_", "|".join(features[1:]) or "_", "|".join(sorted(features + ["Xtra=Yes"]))])
            if rng.random() < 0.03 and w.deprel in ("det", "case", "nsubj"):  # a functional child or not
                w.deprel = {"det": "nmod", "case": "mark", "nsubj": "det"}[w.deprel]
            if w.deps and rng.random() < 0.1:  # an enhanced edge dropped, its case marker or relation changed, or moved
                k = rng.randrange(len(w.deps))
                d, r = w.deps.pop(k)
                change = rng.randrange(4)
                if change:
                    w.deps.insert(k, (d, r.split(":")[0] + ":x") if change == 1 else (d, "dep:" + r) if change == 2
                                  else (rng.choice(words), r))
    return _text(merged)


def _official(gold: Path, system: Path) -> dict[str, tuple]:
    udeval = pytest.importorskip("udtools.udeval", reason="the shared task's scorer (pip install udtools) is a test-only cross-check")
    scores = udeval.evaluate(udeval.load_conllu_file(str(gold)), udeval.load_conllu_file(str(system)))
    enhanced = ENHANCED_METRICS if scores["ELAS"].gold_total else ()
    return {name: (scores[name].gold_total, scores[name].system_total, scores[name].correct) for name in METRICS + enhanced}


def _check_against_official(gold: Path, tmp_path: Path, seed: int) -> None:
    system = write(tmp_path, "system.conllu", _system_from(gold, seed))
    ours = {name: (s.gold, s.system, s.correct) for name, s in evaluate_conll18(gold, system).items()}
    assert ours == _official(gold, system)
    assert ours["Words"][2] < ours["Words"][0] and ours["Sentences"][2] < ours["Sentences"][0]  # the damage was scored
    for name in ("UFeats", "Lemmas", "CLAS", "MLAS", "BLEX") + (ENHANCED_METRICS if "ELAS" in ours else ()):
        assert 0 < ours[name][2] < min(ours[name][:2]), name
    return ours


@pytest.mark.parametrize("seed", [1, 2])
def test_same_counts_as_the_shared_task_scorer_on_the_sample(tmp_path, seed):
    _check_against_official(SAMPLES / "dev.ud.conllu", tmp_path, seed)


@needs_shared
@pytest.mark.parametrize("name", ["fr-sequoia/test.ud.conllu", "en-ewt/test.ud.conllu", "zh-beginner/test.sud.conllu"])
def test_same_counts_as_the_shared_task_scorer_on_real_test_sets(tmp_path, name):
    ours = _check_against_official(SHARED_DATA / name, tmp_path, 3)
    assert ("ELAS" in ours) == name.startswith("en-ewt")  # en-ewt's gold files have enhanced graphs, scored as IWPT's
    if "ELAS" in ours:
        assert ours["EULAS"][2] > ours["ELAS"][2]  # a changed case marker is wrong for ELAS alone
