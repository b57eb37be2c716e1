"""The POS tagger: features, training, k-best tags, model files, jackknifing and its commands."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES, SHARED_DATA, needs_shared
from hypothesis import given
from hypothesis import strategies as st

from hetdep.cli import main
from hetdep.errors import HetdepError
from hetdep.learn.model_files import ModelFileError
from hetdep.tagger.tagger import BACKWARD, BACKWARD_WEIGHTS, Tagger, ambiguity_classes, casing, shape
from hetdep.tagger.training import TaggerOptions, jackknife, tag_accuracy, train_tagger
from hetdep.treebank.conllu import LEMMA, UPOS, read_conllu
from hetdep.treebank.tags import parse_kbest

TRAIN = list(read_conllu(SAMPLES / "train.ud.conllu"))
DEV = list(read_conllu(SAMPLES / "dev.ud.conllu"))


@pytest.mark.parametrize("word, expected", [("Paris", "Xx"), ("1,234.5", "d,d.d"), ("e-mail", "x-x"), ("EDF", "X"), ("l'", "x'")])
def test_shape(word, expected):
    assert shape(word) == expected


@pytest.mark.parametrize("word, expected", [("Paris", "title"), ("iPhone", "mixed"), ("http://x.com/Ab_Cd", "mixed"),
                                            ("EDF", "upper"), ("2,000", "none"), ("été", "lower")])
def test_casing_sees_the_whole_word(word, expected):
    assert casing(word) == expected


def test_ambiguity_classes_keep_frequent_words_and_common_tags():
    sentences = [s for s in TRAIN if "la" in [f.lower() for f in s.forms]]
    tags_of_la = [t for s in sentences for f, t in zip(s.forms, s.upos) if f.lower() == "la"]
    lexicon = ambiguity_classes(sentences, "upos", min_count=2, min_share=0.0)
    assert lexicon["la"] == "|".join(sorted(set(tags_of_la)))
    rare = ambiguity_classes(sentences, "upos", min_count=len(tags_of_la) + 1)
    assert "la" not in rare
    strict = ambiguity_classes(sentences, "upos", min_count=1, min_share=1.0)
    assert all("|" not in tags for tags in strict.values())  # only a word's every-time tag survives


@pytest.fixture(scope="module")
def trained():
    return train_tagger(TRAIN, DEV[:100], TaggerOptions(iterations=6))


def test_training_learns_and_keeps_the_best_iteration(trained):
    history = trained.history
    assert history[-1].dev_uas > history[0].dev_uas
    assert trained.best_iteration == max(history, key=lambda r: r.dev_uas).iteration
    assert tag_accuracy(DEV[100:], trained.parser.tag(DEV[100:])) > 80.0


def test_tagging_changes_only_the_tag_column(trained):
    tagged = list(trained.parser.tag(DEV[:20]))
    assert len(tagged) == 20
    for before, after in zip(DEV[:20], tagged):
        assert after.forms == before.forms and after.heads == before.heads and after.deprels == before.deprels


def test_same_seed_same_model():
    first = train_tagger(TRAIN[:80], [], TaggerOptions(iterations=2)).parser
    second = train_tagger(TRAIN[:80], [], TaggerOptions(iterations=2)).parser
    assert [s.upos for s in first.tag(DEV[:30])] == [s.upos for s in second.tag(DEV[:30])]


def test_kbest_probabilities(trained):
    tagger = trained.parser
    assert tagger.temperature != 1.0  # fitted on dev
    for word in tagger.kbest(DEV[0].forms, 3):
        probabilities = [p for _, p in word]
        assert 1 <= len(word) <= 3 and probabilities == sorted(probabilities, reverse=True) and sum(probabilities) <= 1.0001
    pruned = tagger.kbest(DEV[0].forms, 3, threshold=0.5)
    assert all(len(word) == 1 for word in pruned)
    (first,) = list(tagger.tag(DEV[:1], k=2))
    pairs = parse_kbest(first.column(9)[0])
    assert pairs and pairs[0][0] == first.upos[0]


def test_the_two_directions_are_trained_and_combined(trained):
    tagger = trained.parser
    backward = tagger.backward
    assert backward is not None and backward.reverse and not tagger.reverse
    assert tagger.backward_weight in BACKWARD_WEIGHTS
    assert tag_accuracy(DEV[100:], backward.tag(DEV[100:])) > 80.0  # the right-to-left tagger tags in input order
    weight = tagger.backward_weight
    try:
        accuracies = [tag_accuracy(DEV[:100], tagger.tag(DEV[:100])) for tagger.backward_weight in BACKWARD_WEIGHTS]
    finally:
        tagger.backward_weight = weight
    assert max(accuracies) == accuracies[BACKWARD_WEIGHTS.index(weight)]  # the weight is the dev-best one
    one_way = train_tagger(TRAIN[:80], [], TaggerOptions(iterations=2, bidirectional=False)).parser
    assert one_way.backward is None


def test_save_load_and_damaged_models(trained, tmp_path):
    trained.parser.save(tmp_path / "t")
    assert (tmp_path / "t" / BACKWARD / "config.json").exists()
    loaded = Tagger.load(tmp_path / "t")
    assert [s.upos for s in loaded.tag(DEV[:30])] == [s.upos for s in trained.parser.tag(DEV[:30])]
    (tmp_path / "t" / BACKWARD / "weights.npz").write_bytes(b"not a zip")
    with pytest.raises(ModelFileError, match="damaged"):
        Tagger.load(tmp_path / "t")
    config = json.loads((tmp_path / "t" / "config.json").read_text())
    config["tags"] = config["tags"][:3]
    (tmp_path / "t" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="tag set"):
        Tagger.load(tmp_path / "t")


def test_a_model_of_other_feature_templates_is_refused(trained, tmp_path):
    """Models saved before the static templates changed (they stored only their count) must not load."""
    trained.parser.save(tmp_path / "t")
    config = json.loads((tmp_path / "t" / "config.json").read_text())
    config["templates"] = len(config["templates"])
    (tmp_path / "t" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="feature templates"):
        Tagger.load(tmp_path / "t")


def test_a_model_of_the_first_templates_keeps_them(tmp_path):
    """Templates are appended; a tagger trained before reads only its own (the shipped lemma
    tagger's configuration cut to the first templates stands for one); fewer than any model had
    are refused."""
    from hetdep.tagger.templates import FIRST_TEMPLATES, STATIC_TEMPLATES

    shipped = SAMPLES.parent / "models" / "fr" / "tagger" / "lemma"
    config = json.loads((shipped / "config.json").read_text())
    assert len(config["templates"]) == STATIC_TEMPLATES.shape[0] > FIRST_TEMPLATES
    for name, templates in (("first", FIRST_TEMPLATES), ("fewer", FIRST_TEMPLATES - 1)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text(json.dumps({**config, "templates": config["templates"][:templates],
                                                                  "backward_weight": 0.0}))
        (tmp_path / name / "weights.npz").write_bytes((shipped / "weights.npz").read_bytes())
    tagger = Tagger.load(tmp_path / "first")
    assert tagger.templates.shape[0] == FIRST_TEMPLATES
    assert next(tagger.tag([DEV[0]])).column(LEMMA) != ["_"] * len(DEV[0].forms)
    with pytest.raises(ModelFileError, match="feature templates"):
        Tagger.load(tmp_path / "fewer")


def test_refuses_a_file_without_the_column():
    with pytest.raises(HetdepError, match="no XPOS column to learn"):
        train_tagger(TRAIN[:10], [], TaggerOptions(column="xpos"))


def test_jackknife_tags_every_sentence_with_an_unseen_tagger():
    sentences = TRAIN[:90]
    tagged = jackknife(sentences, 3, ["upos"], TaggerOptions(iterations=2))
    assert len(tagged) == 90 and all(a.forms == b.forms for a, b in zip(sentences, tagged))
    assert 60.0 < tag_accuracy(sentences, tagged) < 100.0  # tagged by taggers that never saw them
    with pytest.raises(HetdepError, match="folds"):
        jackknife(sentences[:2], 3, ["upos"])


def test_each_fold_is_tagged_by_a_tagger_of_the_other_folds_gold_tags_on_any_number_of_threads():
    sentences = TRAIN[:60]
    options = TaggerOptions(iterations=2)
    tagged = jackknife(sentences, 3, ["upos"], options)
    last_fold = [s for i, s in enumerate(sentences) if i % 3 == 2]
    by_hand = train_tagger([s for i, s in enumerate(sentences) if i % 3 != 2], [],
                           TaggerOptions(iterations=2, patience=2)).parser.tag(last_fold)
    assert [s.column(3) for s in by_hand] == [s.column(3) for i, s in enumerate(tagged) if i % 3 == 2]
    assert [s.to_text() for s in jackknife(sentences, 3, ["upos"], options, threads=3)] == [s.to_text() for s in tagged]


def test_commands(tmp_path):
    run = CliRunner().invoke
    train, dev = str(SAMPLES / "train.ud.conllu"), str(SAMPLES / "dev.ud.conllu")
    result = run(main, ["train-tagger", "--train", train, "--dev", dev, "--model", str(tmp_path / "m"), "--iterations", "2"])
    assert result.exit_code == 0, result.output
    result = run(main, ["tag", "--model", str(tmp_path / "m"), "--input", dev, "--output", str(tmp_path / "o.conllu"), "--k", "2"])
    assert result.exit_code == 0, result.output
    out = list(read_conllu(tmp_path / "o.conllu"))
    assert len(out) == len(DEV) and "TagKBest=" in out[0].column(9)[0]
    result = run(main, ["jackknife", "--train", train, "--output", str(tmp_path / "j.conllu"), "--folds", "2", "--iterations", "1"])
    assert result.exit_code == 0 and len(list(read_conllu(tmp_path / "j.conllu"))) == len(TRAIN)
    result = run(main, ["tag", "--model", str(tmp_path), "--input", dev, "--output", str(tmp_path / "x")])
    assert result.exit_code == 2 and "no tagger model" in result.output


def test_tag_with_a_neural_model_tags_as_its_parse_does(tmp_path):
    """``hetdep tag`` with the shipped (neural) model: the network's UPOS and the FEATS and LEMMA
    its parse gets (its FEATS tagger may read the tree); it once ran the FEATS and LEMMA taggers
    alone, on no UPOS (``dort`` got Gender=Masc)."""
    run = CliRunner().invoke
    text = tmp_path / "t.txt"
    text.write_text("Le chat dort sur le canapé. Les petites maisons sont blanches.\n", encoding="utf-8")
    result = run(main, ["tag", "--model", "fr", "--input", str(text), "--output", str(tmp_path / "t.conllu")])
    assert result.exit_code == 0, result.output
    assert "with upos, feats, lemma" in result.output
    result = run(main, ["parse", "--model", "fr", "--input", str(text), "--output", str(tmp_path / "p.conllu")])
    assert result.exit_code == 0, result.output
    tagged, parsed = list(read_conllu(tmp_path / "t.conllu")), list(read_conllu(tmp_path / "p.conllu"))
    assert [s.forms for s in tagged] == [s.forms for s in parsed] and all(t != "_" for s in tagged for t in s.upos)
    for column in (UPOS, 5, LEMMA):
        assert [s.column(column) for s in tagged] == [s.column(column) for s in parsed]
    assert all(head == "_" for s in tagged for head in s.column(6))  # tags only: no tree written
    result = run(main, ["tag", "--model", "fr", "--k", "2", "--input", str(text), "--output", str(tmp_path / "k.conllu")])
    assert result.exit_code == 2 and "--k is for a perceptron tagger" in result.output
    assert not (tmp_path / "k.conllu").exists()


@pytest.mark.slow
@needs_shared
def test_accuracy_on_real_french():
    folder = SHARED_DATA / "fr-sequoia"
    result = train_tagger(list(read_conllu(folder / "train.ud.conllu")), list(read_conllu(folder / "dev.ud.conllu")))
    test = list(read_conllu(folder / "test.ud.conllu"))
    assert tag_accuracy(test, result.parser.tag(test)) >= 97.5  # issue 7's target; measured 97.62


def test_parse_plain_text_with_the_bundled_tagger(tmp_path):
    run = CliRunner().invoke
    train, dev = str(SAMPLES / "train.ud.conllu"), str(SAMPLES / "dev.ud.conllu")
    assert run(main, ["train-tagger", "--train", train, "--model", str(tmp_path / "t"), "--iterations", "2"]).exit_code == 0
    result = run(main, ["train", "--train", train, "--dev", dev, "--model", str(tmp_path / "p"), "--beam", "2",
                        "--iterations", "1", "--tagger", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    text = tmp_path / "in.txt"
    text.write_text("Le chat dort .\n\n  \nIl pleut sur la ville .\n", encoding="utf-8")
    result = run(main, ["parse", "--model", str(tmp_path / "p"), "--input", str(text), "--output", str(tmp_path / "o.conllu"),
                        "--format", "tokenized"])
    assert result.exit_code == 0, result.output
    parsed = list(read_conllu(tmp_path / "o.conllu", require_heads=True))
    assert [s.forms for s in parsed] == [["Le", "chat", "dort", "."], ["Il", "pleut", "sur", "la", "ville", "."]]
    assert all(tag != "_" for s in parsed for tag in s.upos) and parsed[1].sent_id == "4"


@pytest.mark.parametrize("column, at_least", [("feats", 80.0), ("lemma", 88.0)])
def test_features_and_lemmas_are_learned_and_saved(tmp_path, column, at_least):
    """200 training sentences (full fr-sequoia: bench/raw_text.py); the lemma tagger writes lemmas, not scripts;
    both read the words' UPOS."""
    tagger = train_tagger(TRAIN, DEV, TaggerOptions(column=column, iterations=6, reads="upos")).parser
    tagged = list(tagger.tag(DEV))
    assert tag_accuracy(DEV, tagged, column) > at_least
    tagger.save(tmp_path / column)
    again = Tagger.load(tmp_path / column)
    assert again.reads == "upos" and again.backward.reads == "upos"
    assert [s.to_text() for s in again.tag(DEV[:20])] == [s.to_text() for s in tagged[:20]]
    untagged = [s.with_column(UPOS, ["_"] * len(s)) for s in DEV]  # what it reads changes what it says
    assert tag_accuracy(DEV, again.tag(untagged), column) < tag_accuracy(DEV, tagged, column)
    if column == "lemma":
        assert tagged[0].column(2)[:3] != ["_"] * 3 and not any(lemma.startswith('["') for s in tagged for lemma in s.column(2))


@pytest.mark.slow
def test_malformed_or_empty_feats_are_named_or_left_out_in_one_line(tmp_path):
    broken = [s.with_column(5, ["Number"] + s.column(5)[1:]) if k == 3 else s for k, s in enumerate(TRAIN)]
    with pytest.raises(HetdepError, match=r"train.ud.conllu:\d+: FEATS 'Number' is not Name=Value"):
        train_tagger(broken, [], TaggerOptions(column="feats", iterations=1))
    path = tmp_path / "train.conllu"
    path.write_text("".join(s.to_text() for s in broken[:40]), encoding="utf-8")
    no_lemmas = tmp_path / "no-lemmas.conllu"
    no_lemmas.write_text("".join(s.with_column(2, ["_"] * len(s)).to_text() for s in TRAIN[:40]), encoding="utf-8")
    for train, expected in ((path, r"no FEATS tagger: .*train.conllu:\d+: FEATS 'Number'"),
                            (no_lemmas, r"no LEMMA tagger: .*no-lemmas.conllu leaves LEMMA empty")):
        result = CliRunner().invoke(main, ["train", "--train", str(train), "--dev", str(SAMPLES / "dev.ud.conllu"),
                                           "--model", str(tmp_path / "m"), "--iterations", "1", "--folds", "2",
                                           "--no-tokenizer"])
        assert result.exit_code == 0, result.output
        assert re.search(expected, result.output), result.output
    assert sorted(p.name for p in (tmp_path / "m" / "tagger").iterdir()) == ["feats", "upos"]  # no lemma tagger left over


def test_a_lemma_tagger_prefers_known_lemmas_within_its_margin():
    from hetdep.tagger.lemmas import prefer_known
    from hetdep.treebank.lemma_scripts import edit_script

    scripts = [edit_script("chantera", "chanterer"), edit_script("permettra", "permettre")]
    scores = np.array([[0.0, -1.5]])  # the first script is likelier, and makes an unknown lemma
    known = frozenset({"permettre"})
    assert prefer_known(["permettra"], [0], scores, scripts, known, margin=2.0) == [1]
    assert prefer_known(["permettra"], [0], scores, scripts, known, margin=1.0) == [0]  # too far below
    assert prefer_known(["permettra"], [0], scores, scripts, frozenset(), margin=8.0) == [0]  # nothing known
    others = scripts + [edit_script("est", "être"), edit_script("les", "le")]  # writes its lemma; keeps "di" of "dis"
    scores = np.array([[0.0, -9.0, -0.5, -0.5]])
    assert prefer_known(["dis"], [0], scores, others, frozenset({"être", "di"}), margin=2.0) == [0]  # no edit of "dis"
    tagger = train_tagger(TRAIN, DEV, TaggerOptions(column="lemma", iterations=3)).parser
    assert "le" in tagger.known_lemmas and tagger.lemma_margin in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)


@given(st.lists(st.sampled_from([-1.5, 0.0, 0.25, 2.0, 7.0]) | st.floats(-10, 10), min_size=1, max_size=60),
       st.integers(1, 8))
def test_the_beam_s_top_candidates_are_those_a_stable_sort_puts_first(values, k):
    """The compiled selection against its reference, NumPy's stable sort (ties, with repeated
    values drawn often, keep their order)."""
    from hetdep.tagger._search import top

    values = np.array(values, dtype=np.float64)
    order = np.zeros(k, dtype=np.int64)
    size = top(values, len(values), k, order)
    assert order[:size].tolist() == np.argsort(-values, kind="stable")[:k].tolist()


def test_the_plain_search_tags_and_scores_as_the_compiled_one():
    """The shipped model's FEATS taggers (inline, packed and dense weights; right to left too) on
    sample sentences: the same tags and the same float32 scores from both searches."""
    from hetdep.tagger import reference
    from hetdep.tagger._search import search
    from hetdep.tagger.tagger import encode, load_taggers

    forward = next(tagger for tagger in load_taggers(SAMPLES.parent / "models" / "fr" / "tagger") if tagger.column == "feats")
    for tagger in forward, forward.backward:
        for sentence in DEV[:15]:
            given = sentence.column(UPOS)
            atoms = encode(tagger.strings, tagger.lexicon, sentence.forms, given, tagger.tree(sentence, given))
            n, n_tags = len(atoms), len(tagger.tags)
            extra = np.random.default_rng(n).normal(size=(n, n_tags)).astype(np.float32)
            tags, scores = reference.search(atoms, 4, tagger.templates, tagger.weights.plain, n_tags, extra)
            compiled_tags, _, compiled_scores = search(atoms, n, 4, tagger.templates, tagger.weights.table,
                                                       tagger.weights.rows, n_tags, np.zeros(n, dtype=np.int64), False,
                                                       extra)
            assert tags.tolist() == compiled_tags.tolist() and np.array_equal(scores, compiled_scores)


AGREEMENT = """# text = Les petites maisons que Marie voit sont blanches
1	Les	le	DET	_	_	3	det	_	_
2	petites	petit	ADJ	_	_	3	amod	_	_
3	maisons	maison	NOUN	_	_	8	nsubj	_	_
4	que	que	PRON	_	_	6	obj	_	_
5	Marie	Marie	PROPN	_	_	6	nsubj	_	_
6	voit	voir	VERB	_	_	3	acl:relcl	_	_
7	sont	être	AUX	_	_	8	cop	_	_
8	blanches	blanc	ADJ	_	_	0	root	_	_

"""


def test_the_tree_atoms_name_the_words_that_agreement_reads(tmp_path):
    from hetdep.tagger.tree_context import NO_TREE, tree_strings

    (tmp_path / "s.conllu").write_text(AGREEMENT, encoding="utf-8")
    sentence = next(read_conllu(tmp_path / "s.conllu"))
    atoms = dict(zip(sentence.forms, tree_strings(sentence, sentence.upos)))
    relation, head, head_tag, head_end, subject, left, determiner, head_subject, head_determiner = atoms["petites"]
    assert (relation, head, head_tag, head_end) == ("r:amod", "hl:maisons", "hg:NOUN", "hs:ons")
    assert head_determiner == "hd:les" and determiner == "dt:" and subject == "sj:"  # the noun's determiner, lower-cased
    assert left == "lf:" and head_subject == "hj:"
    assert atoms["maisons"][4:7] == ("sj:", "lf:amod=petites", "dt:les")  # the nearest left dependent, and the first det
    assert atoms["voit"][4] == "sj:marie" and atoms["voit"][7] == "hj:"
    assert atoms["blanches"][4] == "sj:maisons" and atoms["blanches"][1:3] == ("hl:<root>", "hg:<root>")
    untreed = sentence.with_tree([-1] * len(sentence), ["_"] * len(sentence))
    assert tree_strings(untreed, untreed.upos) == [NO_TREE] * len(sentence)
    sud = sentence.with_tree(sentence.heads, [{"nsubj": "subj"}.get(r, r) for r in sentence.deprels])
    assert tree_strings(sud, sud.upos)[5][4] == "sj:marie"  # SUD's subj is a subject too


@pytest.fixture(scope="module")
def tree_feats():
    return train_tagger(TRAIN, DEV[:60], TaggerOptions(column="feats", reads="upos", reads_tree=True, iterations=3)).parser


def test_a_feats_tagger_reading_the_tree_tags_by_it_and_saves_so(tree_feats, tmp_path):
    from hetdep.tagger.templates import STATIC_TEMPLATES, TREE_TEMPLATES

    assert tree_feats.templates.shape[0] == TREE_TEMPLATES.shape[0] > STATIC_TEMPLATES.shape[0]
    assert tree_feats.backward.reads_tree and tree_feats.backward.templates.shape == TREE_TEMPLATES.shape
    sentences = DEV[60:90]
    scores = [tree_feats.log_probabilities(s) for s in sentences]
    flat = [s.with_tree([0] + [1] * (len(s) - 1), ["root"] + ["dep"] * (len(s) - 1)) for s in sentences]
    assert any(not np.allclose(a, tree_feats.log_probabilities(s)) for a, s in zip(scores, flat))  # the tree is read
    untreed = [s.with_tree([-1] * len(s), ["_"] * len(s)) for s in sentences]
    assert all(len(t) == len(s) for t, s in zip(tree_feats.tag(untreed), sentences))  # no tree: tagged all the same
    tree_feats.save(tmp_path / "t")
    assert json.loads((tmp_path / "t" / "config.json").read_text())["reads_tree"] is True
    loaded = Tagger.load(tmp_path / "t")
    assert [s.column(5) for s in loaded.tag(sentences)] == [s.column(5) for s in tree_feats.tag(sentences)]
    config = json.loads((tmp_path / "t" / "config.json").read_text())
    (tmp_path / "t" / "config.json").write_text(json.dumps({**config, "templates": config["templates"][:-1]}))
    with pytest.raises(ModelFileError, match="feature templates"):  # a tree tagger has every tree template
        Tagger.load(tmp_path / "t")


def test_the_plain_search_reads_the_tree_as_the_compiled_one(tree_feats):
    from hetdep.tagger import reference
    from hetdep.tagger._search import search
    from hetdep.tagger.tagger import encode

    for sentence in DEV[:10]:
        given = sentence.column(UPOS)
        atoms = encode(tree_feats.strings, tree_feats.lexicon, sentence.forms, given, tree_feats.tree(sentence, given))
        n, n_tags = len(atoms), len(tree_feats.tags)
        extra = np.zeros((n, n_tags), dtype=np.float32)
        tags, scores = reference.search(atoms, 4, tree_feats.templates, tree_feats.weights.plain, n_tags, extra)
        compiled_tags, _, compiled_scores = search(atoms, n, 4, tree_feats.templates, tree_feats.weights.table,
                                                   tree_feats.weights.rows, n_tags, np.zeros(n, dtype=np.int64), False, extra)
        assert tags.tolist() == compiled_tags.tolist() and np.array_equal(scores, compiled_scores)


def test_a_tagger_s_beam_is_set_for_both_directions(tree_feats):
    wide = tree_feats.beam
    try:
        tree_feats.set_beam(2)
        assert tree_feats.beam == tree_feats.backward.beam == 2
    finally:
        tree_feats.set_beam(wide)
