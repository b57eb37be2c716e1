"""The tokenizer: the compiled classifier against its reference, what it learns, and that no text is ever lost."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import SAMPLES, SHARED_DATA, needs_shared
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hetdep.evaluation.conll18 import evaluate_conll18
from hetdep.learn.clusters import COARSE_SHIFT, WordClusters
from hetdep.learn.model_files import ModelFileError
from hetdep.tokenizer import _boundaries, reference, templates
from hetdep.tokenizer.addresses import address_spans
from hetdep.tokenizer.boundary_weights import BoundaryWeights
from hetdep.tokenizer.learning import SENTENCE_END_BIASES, TokenizerOptions
from hetdep.tokenizer.multiword import MultiwordExpander
from hetdep.tokenizer.spaced import SpacedTokens
from hetdep.tokenizer.text import gold_text, rebuild_text, sentence_text, sentence_tokens, without_final_punctuation
from hetdep.tokenizer.tokenizer import MAX_TOKENS, TREEBANK_BIASES, TREEBANK_SHARES, Tokenizer
from hetdep.treebank.conllu import FORM, MISC, read_conllu, write_conllu


@pytest.fixture(scope="module")
def sample_tokenizer() -> Tokenizer:
    return Tokenizer.train(list(read_conllu(SAMPLES / "train.ud.conllu")), options=TokenizerOptions(iterations=5))


def _raw(path) -> str:
    return " ".join(sentence_text(s) for s in read_conllu(path))


def made_up_clusters(sentences) -> WordClusters:
    """Word clusters by a word's length and first letter; and "?!" a word without a letter."""
    words = sorted({form.lower() for sentence in sentences for form in sentence.forms} | {"?!"})
    return WordClusters({word: ((len(word) % 3 + 1) << COARSE_SHIFT) + ord(word[0]) % 7 for word in words})


@pytest.fixture(scope="module")
def clustered_tokenizer() -> tuple[Tokenizer, WordClusters]:
    train = list(read_conllu(SAMPLES / "train.ud.conllu"))
    clusters = made_up_clusters(train)
    return Tokenizer.train(train, options=TokenizerOptions(iterations=3), clusters=clusters), clusters


@pytest.mark.parametrize("clustered", [False, True])
def test_compiled_classifier_equals_the_reference(sample_tokenizer, clustered_tokenizer, clustered):
    tokenizer = clustered_tokenizer[0] if clustered else sample_tokenizer
    clusters = reference.word_table(clustered_tokenizer[1].codes) if clustered else None
    text = (_raw(SAMPLES / "dev.ud.conllu")[:3000] + "  Tab\tend\n\nÉtat-major l'an 2000, etc. AUTRE(S) MISE(S) "
            "EN  GARDE 2 flacons\tLes 5 mg / 100 ml ; M. Dupont « (Le) » ... -- L'")
    arrays = tokenizer.words.arrays(text)
    assert arrays.clusters.any() == clustered
    labels, scores = tokenizer.words.classify(arrays, tokenizer.weights)
    out = np.empty(tokenizer.words.templates, np.int64)
    for i in (i for i, char in enumerate(text) if not char.isspace()):  # every boundary the classifier scores
        expected = reference.feature_rows(text, i, tokenizer.weights.buckets, clusters)
        count = _boundaries.features(arrays.codes, arrays.lower, arrays.classes, arrays.chunk_start, arrays.chunk_end,
                                     arrays.clusters, i, np.uint64(tokenizer.weights.buckets - 1), out)
        assert out[:count].tolist() == expected
    ref_labels, ref_scores = reference.classify(text, tokenizer.weights, clusters)
    assert labels.tolist() == ref_labels
    assert scores.tolist() == ref_scores


def test_sample_dev_text_is_tokenized_well_and_given_back_exactly(sample_tokenizer, tmp_path):
    text = _raw(SAMPLES / "dev.ud.conllu")
    sentences = sample_tokenizer.tokenize(text)
    assert rebuild_text(sentences) == text
    system = tmp_path / "dev.tok.conllu"
    write_conllu(sentences, system)
    scores = evaluate_conll18(SAMPLES / "dev.ud.conllu", system)
    assert scores["Tokens"].f1 > 96.5 and scores["Words"].f1 > 96.0  # 200 training sentences (full fr-sequoia: bench/)
    assert scores["Sentences"].f1 > 70.0


def test_multiword_tokens_expand_in_context(sample_tokenizer):
    [sentence] = sample_tokenizer.tokenize("Il parle du livre de l'auteur au public.")
    assert sentence.forms == ["Il", "parle", "de", "le", "livre", "de", "l'", "auteur", "à", "le", "public", "."]
    assert [row[1] for row in sentence.rows if "-" in row[0]] == ["du", "au"]


def test_rules_expand_unseen_forms_and_keep_case():
    expander = MultiwordExpander.train([[("du", ["de", "le"]), ("aux", ["à", "les"]), ("auxquels", ["à", "lesquels"]),
                                         ("don't", ["do", "n't"]), ("can't", ["ca", "n't"]), ("livre", None)]])
    assert expander.rule("auxquelles") == ("prefix:aux", ["à", "lesquelles"])
    assert expander.rule("wouldn't") == ("suffix:n't", ["would", "n't"])
    assert expander.rule("livre") is None
    assert expander.expand(["Du", "Wouldn't", "DU"]) == [["De", "le"], ["Would", "n't"], ["DE", "LE"]]


def test_a_rule_learns_its_worth_from_forms_seen_once():
    """Possessives each seen once teach the "'s" rule to split an unseen name's (before, the rule
    met only the plurals it should not split, "80's", and never split anything)."""
    names = ["Wei", "Carter", "Ralph", "Google", "Hackney", "Buffett", "Laden", "Tenet"]
    sentences = [[("the", None), (f"{name}'s", [name, "'s"]), (noun, None)]
                 for name, noun in zip(names, ["dog", "car", "idea", "news"] * 2)]
    sentences += [[("the", None), (plural, None), ("music", None)] for plural in ("80's", "CD's", "90's")]
    sentences += [[("I", None), ("wanna", None), ("go", None)]] * 12 + [[("wanna", ["wan", "na"])]]
    expander = MultiwordExpander.train(sentences)
    assert expander.expand(["the", "Chicago's", "mayor"]) == [None, ["Chicago", "'s"], None]
    assert expander.expand(["I", "wanna", "go"]) == [None, None, None]
    assert expander.rule("wei's") == ("lexicon", ["wei", "'s"])
    assert expander.rule("wei's", unseen=True) == ("suffix:'s", ["wei", "'s"])


@needs_shared
def test_des_and_du_are_split_or_kept_as_their_context_says():
    """"des" is "de les" after "près" or "la plupart" but a determiner before a noun: learned from
    fr-sequoia's and fr-parisstories' training tokens, the choice reads the two words before it
    and the ends of its neighbours. On the three French test sets it goes wrong 63 times (85 when
    it read only the word before it)."""
    train = [sentence_tokens(s) for name in ("fr-sequoia", "fr-parisstories")
             for s in read_conllu(SHARED_DATA / name / "train.ud.conllu")]
    expander = MultiwordExpander.train(train)
    wrong = 0
    for name in ("fr-sequoia", "fr-gsd", "fr-parisstories"):
        for tokens in (sentence_tokens(s) for s in read_conllu(SHARED_DATA / name / "test.ud.conllu")):
            chosen = expander.expand([form for form, _ in tokens])
            wrong += sum([w.lower() for w in words or []] != [w.lower() for w in got or []]
                         for (form, words), got in zip(tokens, chosen) if expander.rule(form.lower()) is not None)
    assert wrong <= 68


def _every_cut_rule(expander: MultiwordExpander, lower: str):
    """MultiwordExpander.rule as it was first written: every cut tried, longest first (quadratic in the form's length)."""
    if lower in expander.lexicon:
        return "lexicon", expander.lexicon[lower]
    for cut in range(len(lower) - 1, 0, -1):
        words = expander.prefix_rules.get(lower[:cut])
        if words:
            return f"prefix:{lower[:cut]}", words[:-1] + [words[-1] + lower[cut:]]
        words = expander.suffix_rules.get(lower[len(lower) - cut:])
        if words:
            return f"suffix:{lower[len(lower) - cut:]}", [lower[:len(lower) - cut] + words[0]] + words[1:]
    return None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["aux", "du", "n't", "quels", "a", "x", "'", "don"]), max_size=8).map("".join))
def test_rules_found_at_the_longest_cuts_only_are_the_rules_every_cut_finds(form):
    expander = MultiwordExpander.train([[("du", ["de", "le"]), ("aux", ["à", "les"]), ("auxquels", ["à", "lesquels"]),
                                         ("don't", ["do", "n't"]), ("can't", ["ca", "n't"])]])
    assert expander.rule(form) == _every_cut_rule(expander, form)
    assert expander.rule(form + "x" * 2000) == _every_cut_rule(expander, form + "x" * 2000)


@pytest.mark.parametrize("text", [
    "", "   \n\t ", "!!! ... ?!", "\ufeffBonjour.", "a\x00b \x07c\x1fd.", "Ceci est du 中文 mélangé avec English, ok ? Oui !",
    "Pas de fin " * 9000, "ligne\r\nsuivante\u2028 fin\u00a0ici.",
])
def test_no_text_is_lost(sample_tokenizer, tmp_path, text):
    sentences = sample_tokenizer.tokenize(text)
    assert rebuild_text(sentences) == (text if text.strip() else "")
    kept = "".join(sentence_text(s) for s in sentences)
    assert "".join(kept.split()) == "".join(text.split())  # # text holds every non-space character, in order
    assert all(len(s.rows) <= 2 * MAX_TOKENS for s in sentences)
    path = tmp_path / "out.conllu"
    write_conllu(sentences, path)
    assert len(list(read_conllu(path))) == len(sentences)  # valid CoNLL-U


def test_saved_tokenizer_gives_the_same_output_and_damage_is_refused(sample_tokenizer, tmp_path):
    sample_tokenizer.save(tmp_path / "tok")
    loaded = Tokenizer.load(tmp_path / "tok")
    text = _raw(SAMPLES / "dev.ud.conllu")[:2000]
    assert [s.to_text() for s in loaded.tokenize(text)] == [s.to_text() for s in sample_tokenizer.tokenize(text)]
    weights = tmp_path / "tok" / "weights.npz"
    weights.write_bytes(weights.read_bytes()[:-10])
    with pytest.raises(ModelFileError, match="weights.npz"):
        Tokenizer.load(tmp_path / "tok")


def _rewrite_weights(folder, change) -> None:
    """Change a saved tokenizer's arrays and give config.json their new digest (damage a checksum misses)."""
    from hetdep.learn.model_files import file_sha256

    path = folder / "weights.npz"
    with np.load(path) as archive:
        arrays = change(dict(archive))
    np.savez_compressed(path, **arrays)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config["weights_sha256"] = file_sha256(path)
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")


def test_word_clusters_are_read_saved_and_checked(clustered_tokenizer, sample_tokenizer, tmp_path):
    """A tokenizer with word clusters reads each chunk's word's cluster (the first letter to the
    last, lower-cased), keeps them in its weights file and tokenizes alike once loaded; damaged
    clusters are refused in one line."""
    tokenizer, clusters = clustered_tokenizer
    text = "Vu « LE chat » et l'ex-chef, ?! M. Dupont. 3,5 kg."
    arrays = tokenizer.words.arrays(text)
    expected = [reference.word_table(clusters.codes).get(reference.word_key(reference._word(text, i)), 0) if not char.isspace() else 0
                for i, char in enumerate(text)]
    assert arrays.clusters.tolist() == expected and expected[text.index("chat")] == clusters.codes["chat"]
    assert expected[text.index("?!")] == 0  # no letter: no word, though "?!" has a cluster
    table, plain = reference.word_table(clusters.codes), tokenizer.words.table  # what both the compiled loop and the reference read
    assert all(plain.get(key) == code for key, code in table.items()) and plain.get(2**64 - 1) == plain.get(2) == 0
    assert tokenizer.words.templates == sample_tokenizer.words.templates + templates.N_CLUSTER_TEMPLATES == 41
    tokenizer.save(tmp_path / "tok")
    loaded = Tokenizer.load(tmp_path / "tok")
    sample = _raw(SAMPLES / "dev.ud.conllu")[:3000]
    assert [s.to_text() for s in loaded.tokenize(sample)] == [s.to_text() for s in tokenizer.tokenize(sample)]
    assert np.array_equal(loaded.words.arrays(text).clusters, arrays.clusters)
    for change in (lambda a: {**a, "cluster_codes": a["cluster_codes"][:-1]},
                   lambda a: {**a, "cluster_keys": np.zeros_like(a["cluster_keys"])},
                   lambda a: {**a, "cluster_keys": np.repeat(a["cluster_keys"][:1], len(a["cluster_keys"]))}):
        tokenizer.save(tmp_path / "bad")
        _rewrite_weights(tmp_path / "bad", change)
        with pytest.raises(ModelFileError, match="word clusters that do not fit together"):
            Tokenizer.load(tmp_path / "bad")
    tokenizer.save(tmp_path / "bad")
    _rewrite_weights(tmp_path / "bad", lambda a: {k: v for k, v in a.items() if k != "cluster_keys"})
    with pytest.raises(ModelFileError, match="damaged weights file"):
        Tokenizer.load(tmp_path / "bad")


def test_train_tokenizer_clusters_the_words_of_given_vectors(tmp_path):
    from click.testing import CliRunner

    from hetdep.cli import main

    rng = np.random.default_rng(0)
    words = sorted({form.lower() for s in read_conllu(SAMPLES / "train.ud.conllu") for form in s.forms})[:300]
    vectors = tmp_path / "vectors.txt"
    vectors.write_text(f"{len(words)} 8\n" + "".join(f"{w} " + " ".join(f"{v:.3f}" for v in rng.normal(size=8)) + "\n"
                                                    for w in words), encoding="utf-8")
    result = CliRunner().invoke(main, ["train-tokenizer", "--train", str(SAMPLES / "train.ud.conllu"), "--model",
                                       str(tmp_path / "tok"), "--iterations", "2", "--embeddings", str(vectors)])
    assert result.exit_code == 0, result.output
    loaded = Tokenizer.load(tmp_path / "tok")
    assert loaded.words.templates == templates.N_TEMPLATES + templates.N_CLUSTER_TEMPLATES
    assert 0 < len(loaded.words.keys) <= len(words)
    vectors.write_text("la 1 2\nle 1 x\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["train-tokenizer", "--train", str(SAMPLES / "train.ud.conllu"), "--model",
                                       str(tmp_path / "tok2"), "--embeddings", str(vectors)])
    assert result.exit_code != 0 and f"{vectors}:2" in result.output and "not a number" in result.output
    assert not (tmp_path / "tok2").exists()


def test_each_treebank_gets_the_table_best_on_its_dev_and_keeps_it_when_saved(sample_tokenizer, tmp_path):
    """Of the tables of the trained shares of unpunctuated sentences, each treebank gets the one
    best on its dev (here a blank table against a trained one), moved by its own bias; the tables
    a treebank chose are saved beside the trained one."""
    import copy

    tokenizer = copy.deepcopy(sample_tokenizer)
    trained = tokenizer.weights
    tokenizer.weights, tokenizer.record["unpunctuated"] = BoundaryWeights.of_table(np.zeros((trained.buckets, templates.N_LABELS))), 0.0
    dev = list(read_conllu(SAMPLES / "dev.ud.conllu"))
    biases = tokenizer._choose_for_treebanks({0.0: tokenizer.weights, 0.3: trained}, {"a": dev[:100], "b": dev[100:]})
    assert tokenizer.record[TREEBANK_SHARES] == {"a": 0.3, "b": 0.3} and set(tokenizer.variants) == {0.3}
    for name in ("a", "b"):
        _assert_moved(tokenizer.for_treebank(name).weights, trained, biases[name])
    tokenizer.save(tmp_path / "tok")
    loaded = Tokenizer.load(tmp_path / "tok")
    assert not len(loaded.weights.rows) and set(loaded.variants) == {0.3}
    text = _raw(SAMPLES / "dev.ud.conllu")[:2000]
    assert [s.to_text() for s in loaded.for_treebank("a").tokenize(text)] == [s.to_text() for s in tokenizer.for_treebank("a").tokenize(text)]
    config = json.loads((tmp_path / "tok" / "config.json").read_text(encoding="utf-8"))
    config[TREEBANK_SHARES] = {"a": 0.5}
    (tmp_path / "tok" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelFileError, match=TREEBANK_SHARES):
        Tokenizer.load(tmp_path / "tok")


def test_a_tokenizer_of_other_boundary_features_is_refused(sample_tokenizer, tmp_path):
    sample_tokenizer.save(tmp_path / "tok")
    config = json.loads((tmp_path / "tok" / "config.json").read_text(encoding="utf-8"))
    del config["templates"]  # as an earlier hetdep wrote it, with 33 templates
    (tmp_path / "tok" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelFileError, match="earlier hetdep.*train it again"):
        Tokenizer.load(tmp_path / "tok")


def test_each_treebank_s_sentence_end_bias_is_fitted_on_its_dev_and_a_damaged_one_refused(sample_tokenizer, tmp_path):
    import copy

    tokenizer = copy.deepcopy(sample_tokenizer)
    dev = list(read_conllu(SAMPLES / "dev.ud.conllu"))
    biases = tokenizer.fit_treebank_biases({"a": dev[:100], "b": dev[100:], "none": []})
    assert set(biases) == {"a", "b"}  # a treebank without dev text gets no bias of its own
    tokenizer.save(tmp_path / "tok")
    loaded = Tokenizer.load(tmp_path / "tok")
    assert loaded.record[TREEBANK_BIASES] == biases and loaded.for_treebank("none") is loaded
    text = _raw(SAMPLES / "dev.ud.conllu")[:2000]
    for name, bias in biases.items():
        assert (loaded.for_treebank(name) is loaded) == (bias == 0)
        assert loaded.for_treebank(name).for_treebank("none") is loaded  # each move starts from the trained tokenizer
        assert ([s.to_text() for s in loaded.for_treebank(name).tokenize(text)]
                == [s.to_text() for s in tokenizer.for_treebank(name).tokenize(text)])
    _assert_moved(loaded.for_treebank("a").weights, tokenizer.weights, biases["a"])
    config = json.loads((tmp_path / "tok" / "config.json").read_text(encoding="utf-8"))
    config[TREEBANK_BIASES] = {"a": "high"}
    (tmp_path / "tok" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelFileError, match=TREEBANK_BIASES):
        Tokenizer.load(tmp_path / "tok")


def test_boundary_weights_keep_a_dense_table_s_rows_and_move_the_bias_in_or_beside_them():
    rng = np.random.default_rng(3)
    table = np.where(rng.random((64, templates.N_LABELS)) < 0.05, rng.normal(size=(64, templates.N_LABELS)), 0).astype(np.float32)
    row = int(templates.constant_row(64))
    table[row] = 0.0
    weights = BoundaryWeights.of_table(table)
    assert np.array_equal(weights.lookup(range(64)), table) and len(weights.rows) == int(np.any(table != 0, axis=1).sum())
    moved = weights.with_bias(2.5)  # its row was not used: it is put in its place
    table[row, templates.SENTENCE_END] = 2.5
    assert np.array_equal(moved.lookup(range(64)), table) and np.all(moved.rows[1:] > moved.rows[:-1])
    assert moved.with_bias(-1.0).lookup([row])[0, templates.SENTENCE_END] == 1.5 and weights == BoundaryWeights.of_table(
        np.where(np.arange(64)[:, None] == row, 0, table))


def _assert_moved(moved: BoundaryWeights, base: BoundaryWeights, bias: float) -> None:
    """``moved`` is ``base`` with its sentence-end bias moved by ``bias``, every other weight the same."""
    row = int(templates.constant_row(base.buckets))
    assert moved.lookup([row])[0, templates.SENTENCE_END] == base.lookup([row])[0, templates.SENTENCE_END] + np.float32(bias)
    kept, base_kept = moved.rows != row, base.rows != row
    assert np.array_equal(moved.rows[kept], base.rows[base_kept]) and np.array_equal(moved.values[kept], base.values[base_kept])
    assert np.array_equal(np.delete(moved.values[~kept], templates.SENTENCE_END, axis=1),
                          np.delete(base.lookup([row]), templates.SENTENCE_END, axis=1))


def _sentences_f1(tokenizer: Tokenizer, gold) -> float:
    """CoNLL 2018 Sentences F1 of the tokenizer's sentences of ``gold.text`` (both ends right)."""
    found = set()
    for sentence in tokenizer.tokenize(gold.text, ranges=True):
        ranges = [row[MISC].split("TokenRange=")[1].split("|")[0].split(":") for row in sentence.rows
                  if "TokenRange=" in row[MISC]]
        found.add((int(ranges[0][0]), int(ranges[-1][1])))
    return 2 * len(found & set(gold.sentence_spans)) / (len(found) + len(gold.sentence_spans))


def test_the_sentence_end_bias_is_the_best_of_its_grid_on_dev():
    train, dev = list(read_conllu(SAMPLES / "train.ud.conllu")), list(read_conllu(SAMPLES / "dev.ud.conllu"))
    fitted = Tokenizer.train(train, dev, TokenizerOptions(iterations=3, unpunctuated=(0.0,)))
    bias = fitted.record["sentence_end_bias"]
    assert bias in SENTENCE_END_BIASES
    gold = gold_text(dev)
    found = {}
    for other in SENTENCE_END_BIASES:
        found[other] = _sentences_f1(Tokenizer(fitted.weights.with_bias(other - bias), fitted.multiword), gold)
    assert found[bias] == max(found.values())


def test_sentences_without_final_punctuation_are_made_and_learned_from():
    train, dev = list(read_conllu(SAMPLES / "train.ud.conllu")), list(read_conllu(SAMPLES / "dev.ud.conllu"))
    stopped = next(s for s in train if s.rows[-1][FORM] == "." and "SpaceAfter=No" in s.rows[-2][MISC])
    bare = without_final_punctuation(stopped)
    assert bare.forms == stopped.forms[:-1] and len(bare.heads) == len(stopped.heads) - 1
    assert sentence_text(bare) == sentence_text(stopped)[:-1].rstrip()
    assert "SpaceAfter=No" not in bare.rows[-1][MISC]  # the last word no longer touches a full stop
    assert gold_text([bare]).text == sentence_text(bare)
    closing = next(s for s in train if s.rows[-1][FORM] in ('"', ")", "»"))
    assert without_final_punctuation(closing) is None  # only Unicode's "other punctuation" is dropped
    # each share trains a tokenizer, the best on dev is kept, and its record says which
    both = Tokenizer.train(train, dev, TokenizerOptions(iterations=3, unpunctuated=(0.0, 0.5)))
    chosen = both.record["unpunctuated"]
    alone = Tokenizer.train(train, dev, TokenizerOptions(iterations=3, unpunctuated=(chosen,)))
    other = Tokenizer.train(train, dev, TokenizerOptions(iterations=3, unpunctuated=({0.0: 0.5, 0.5: 0.0}[chosen],)))
    assert both.weights == alone.weights
    gold = gold_text(dev)
    assert _sentences_f1(alone, gold) + _token_ends_f1(alone, gold) >= _sentences_f1(other, gold) + _token_ends_f1(other, gold)
    assert alone.weights != other.weights


def _token_ends_f1(tokenizer: Tokenizer, gold) -> float:
    labels, _ = tokenizer.words.classify(tokenizer.words.arrays(gold.text), tokenizer.weights)
    ends, guessed = gold.labels >= templates.TOKEN_END, labels >= templates.TOKEN_END
    return 2 * int((ends & guessed).sum()) / int(ends.sum() + guessed.sum())


def test_dev_paragraph_breaks_end_sentences_as_blank_lines_do():
    dev = list(read_conllu(SAMPLES / "dev.ud.conllu"))[:6]
    for k in (2, 4):
        dev[k].comments.insert(0, "# newpar")
    gold = gold_text(dev)
    assert gold.paragraph_ends.tolist() == [gold.sentence_spans[k - 1][1] - 1 for k in (2, 4)]


def test_tokens_with_a_space_inside_are_joined_as_training_wrote_them(sample_tokenizer, tmp_path):
    """ "20 000" is one token where training wrote such numbers as one; a shape its treebank mostly
    writes as two tokens is never joined; the text comes back whole and the tokenizer keeps its shapes."""
    apart = [[("les", None), ("3", None), ("chats", None)]] * 3
    spaced = SpacedTokens.train([[("plus", None), ("de", None), ("20 000", None), ("euros", None)],
                                 [("1 500", None), ("morts", None)], [("300 000", None)], [("2 000", None)],
                                 [("en", None), ("300 000", None)], [("3 chats", None)]] + apart)
    assert spaced.shapes == {"9 999", "999 999"}
    tokenizer = Tokenizer(sample_tokenizer.weights, sample_tokenizer.multiword, dict(sample_tokenizer.record),
                          sample_tokenizer.words, spaced)
    text = "Il a payé 2 500 euros pour 3 chats et 100 000 000 de grains."
    [sentence] = tokenizer.tokenize(text)
    assert "2 500" in sentence.forms and "3" in sentence.forms and "chats" in sentence.forms
    assert rebuild_text([sentence]) == text
    tokenizer.save(tmp_path / "tok")
    assert Tokenizer.load(tmp_path / "tok").spaced.shapes == spaced.shapes
    config = json.loads((tmp_path / "tok" / "config.json").read_text())
    config["spaced"] = ["9999"]
    (tmp_path / "tok" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelFileError, match="shapes of tokens with spaces"):
        Tokenizer.load(tmp_path / "tok")


@needs_shared
def test_spaced_numbers_of_fr_sequoia_test_are_one_token(tmp_path):
    """The shipped tokenizer (made before it learned them) given the shapes of fr-sequoia's
    training tokens: its test from raw text, Tokens 99.62 -> 99.80, Words 99.24 -> 99.42."""
    gold = SHARED_DATA / "fr-sequoia" / "test.ud.conllu"
    text = _raw(gold)
    tokenizer = Tokenizer.load(SAMPLES.parent / "models" / "fr" / "tokenizer").for_treebank("sequoia")
    scores = {}
    for name, spaced in (("without", SpacedTokens()), ("with", SpacedTokens.train(
            [sentence_tokens(s) for s in read_conllu(SHARED_DATA / "fr-sequoia" / "train.ud.conllu")]))):
        tokenizer.spaced = spaced
        sentences = tokenizer.tokenize(text)
        assert rebuild_text(sentences) == text
        write_conllu(sentences, tmp_path / f"{name}.conllu")
        scores[name] = evaluate_conll18(gold, tmp_path / f"{name}.conllu")["Words"].f1
    assert scores["with"] >= scores["without"] + 0.1


@needs_shared
def test_real_test_sets_keep_their_text(sample_tokenizer):
    for name in ("fr-sequoia", "en-ewt", "zh-beginner"):
        text = _raw(SHARED_DATA / name / "test.ud.conllu")
        assert rebuild_text(sample_tokenizer.tokenize(text)) == text, name


def test_a_fixed_seed_gives_the_same_tokenizer(sample_tokenizer):
    again = Tokenizer.train(list(read_conllu(SAMPLES / "train.ud.conllu")), options=TokenizerOptions(iterations=5))
    assert again.weights == sample_tokenizer.weights
    assert again.multiword.config() == sample_tokenizer.multiword.config()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_any_text_comes_back_whole_as_valid_conllu(sample_tokenizer, tmp_path, text):
    sentences = sample_tokenizer.tokenize(text)
    assert rebuild_text(sentences) == (text if text.strip() else "")
    assert "".join("".join(sentence_text(s).split()) for s in sentences) == "".join(text.split())
    path = tmp_path / "out.conllu"
    write_conllu(sentences, path)
    assert [s.forms for s in read_conllu(path)] == [s.forms for s in sentences]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200))
def test_the_end_of_a_text_is_split_as_if_a_line_end_followed(text):
    """A string or a file without a final newline keeps no full stop on its last word."""
    assume(not text.endswith("\n"))
    tokenizer = Tokenizer.load(SAMPLES.parent / "models" / "fr" / "tokenizer")
    sentences = tokenizer.tokenize(text)
    assert [s.forms for s in sentences] == [s.forms for s in tokenizer.tokenize(text + "\n")]
    assert rebuild_text(sentences) == (text if text.strip() else "")


@pytest.mark.parametrize("text, addresses", [
    ("See http://www.4gamer.net/news/a.html. Or not", ["http://www.4gamer.net/news/a.html"]),
    ("(http://en.wikipedia.org/wiki/Mercury_(planet)) and www.adobe.com.", ["http://en.wikipedia.org/wiki/Mercury_(planet)", "www.adobe.com"]),
    ("Mail Kevin.A.Boone@accenture.com, rreynol...@cogeco.ca>", ["Kevin.A.Boone@accenture.com", "rreynol...@cogeco.ca"]),
    ("www. is no address, nor is a@b or http://", []),
    # a long word is looked at once, not from each of its letters (that was quadratic: 17 s for this one)
    pytest.param("x" * 100_000 + " then " + "y" * 100_000 + "@example.org.", ["y" * 100_000 + "@example.org"],
                 id="long-words"),
])
def test_addresses_are_found_without_the_punctuation_after_them(text, addresses):
    assert [text[start:end] for start, end in address_spans(text)] == addresses


def test_the_shipped_tokenizers_keep_addresses_whole():
    """The boundary classifier alone cut en-ewt dev's rarer addresses at their slashes and dots."""
    text = ("Read http://www.4gamer.net/news/image/2005.09/20050919032951_21big.html. Then mail "
            "Kevin.A.Boone@accenture.com (or www.adobe.com).")
    for language in ("en", "fr"):
        tokenizer = Tokenizer.load(SAMPLES.parent / "models" / language / "tokenizer")
        forms = [form for sentence in tokenizer.tokenize(text) for form in sentence.forms]
        assert {"http://www.4gamer.net/news/image/2005.09/20050919032951_21big.html", "Kevin.A.Boone@accenture.com",
                "www.adobe.com", ")", "."} <= set(forms), language
        assert forms[-3:] == ["www.adobe.com", ")", "."], language
        assert rebuild_text(tokenizer.tokenize(text)) == text


@needs_shared
def test_every_address_en_ewt_test_writes_as_one_token_is_one_token():
    tokenizer = Tokenizer.load(SAMPLES.parent / "models" / "en" / "tokenizer")
    whole = found = 0
    for sentence in read_conllu(SHARED_DATA / "en-ewt" / "test.ud.conllu"):
        text = sentence_text(sentence)
        forms = {form for words in tokenizer.tokenize(text, presegmented=True) for form in words.forms}
        for start, end in address_spans(text):
            if text[start:end] in sentence.forms:
                whole += 1
                found += text[start:end] in forms
    assert whole >= 60 and found == whole


def test_other_treebanks_add_to_what_the_tokenizer_learns(tmp_path):
    from click.testing import CliRunner

    from hetdep.cli import main

    train, dev = SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"
    result = CliRunner().invoke(main, ["train-tokenizer", "--train", str(train), "--tokenizer-text", str(dev),
                                       "--model", str(tmp_path / "tok"), "--iterations", "2"])
    assert result.exit_code == 0, result.output
    learned = json.loads((tmp_path / "tok" / "config.json").read_text(encoding="utf-8"))["training_sentences"]
    assert learned == len(list(read_conllu(train))) + len(list(read_conllu(dev)))
    result = CliRunner().invoke(main, ["train", "--train", str(train), "--dev", str(dev), "--model", str(tmp_path / "m"),
                                       "--no-tokenizer", "--tokenizer-text", str(dev)])
    assert result.exit_code != 0 and "--tokenizer-text is for the tokenizer" in result.output


def test_a_document_s_sentences_are_made_as_they_are_read(sample_tokenizer, monkeypatch):
    """tokenize_document classifies a block whole but makes each sentence when it is asked for (a
    long text's sentences held no longer than their reader holds them: 20 MB less at the peak of a
    72,000-word text), the same sentences as tokenize's."""
    text = _raw(SAMPLES / "dev.ud.conllu")
    whole = [sentence.to_text() for sentence in sample_tokenizer.tokenize(text)]
    made = []
    sentence = Tokenizer._sentence
    monkeypatch.setattr(Tokenizer, "_sentence", lambda self, *args, **kwargs: made.append(1) or sentence(self, *args, **kwargs))
    read = sample_tokenizer.tokenize_document(text)
    first = next(read)
    assert len(made) == 1 and len(whole) > 10
    assert [first.to_text(), *(s.to_text() for s in read)] == whole and len(made) == len(whole)
