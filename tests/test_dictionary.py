"""The lemma dictionary beside the lemma tagger (hetdep.tagger.dictionary): unseen forms get real
lemmas, seen forms and proper nouns keep the tagger's, and dev decides whether a tagger uses it."""

from __future__ import annotations

import pytest
from conftest import SAMPLES
from hypothesis import given
from hypothesis import strategies as st

from hetdep.models.names import find_model
from hetdep.tagger.dictionary import lemma_dictionary
from hetdep.tagger.lemmas import KnownLemmas
from hetdep.tagger.tagger import Tagger
from hetdep.tagger.training import fit_dictionary, tag_accuracy
from hetdep.treebank.conllu import read_conllu
from hetdep.treebank.lemma_scripts import edit_script
from hetdep.treebank.tags import lemma_of

FRENCH = lemma_dictionary("fr")


@pytest.fixture(scope="module")
def lemma_tagger() -> Tagger:
    return Tagger.load(find_model(None) / "tagger" / "lemma")


def test_the_french_dictionary_knows_forms_no_treebank_gave(lemma_tagger):
    assert FRENCH.lemma("dort") == "dormir" and FRENCH.lemma("pleut") == "pleuvoir" and FRENCH.lemma("gares") == "gare"
    assert FRENCH.lemma("xqzvw") is None and "dormir" in FRENCH.lemmas
    assert not lemma_tagger.has_seen("suggérez") and lemma_tagger.has_seen("est")


def test_no_dictionary_for_no_language_or_an_unknown_one():
    assert lemma_dictionary(None) is None and lemma_dictionary("xx") is None


def test_only_unseen_forms_without_a_real_lemma_take_the_dictionarys(lemma_tagger):
    forms = ["est", "suggérez", "investit", "arrêtées", "Vitré", "dort"]
    assert [lemma_tagger.has_seen(form) for form in forms] == [True, False, False, False, False, False]
    scripts = [edit_script(f, lemma) for f, lemma in
               [("est", "être"), ("suggérez", "faire"), ("investit", "investire"), ("arrêtées", "arrêter"), ("Vitré", "Vitré"),
                ("dort", "sort")]]
    known = KnownLemmas(lemma_tagger.known_lemmas, FRENCH.lemmas)
    filled = FRENCH.fill_unseen(forms, scripts, lemma_tagger.has_seen, known, ["AUX", "VERB", "VERB", "VERB", "PROPN", "VERB"])
    assert [lemma_of(f, s) for f, s in zip(forms, filled)] == ["être", "suggérer", "investir", "arrêter", "Vitré", "dormir"]
    # seen "est" keeps the tagger's; "suggérez" had a whole lemma, not made from the form; "investire" is no
    # lemma; "arrêter" is a real lemma made from the form (the dictionary's adjective "arrêté" would be
    # wrong for the verb); a proper noun keeps its form; "sort" is a real lemma, but made by changing the
    # form's start, which inflection does not


def test_dev_decides_whether_a_tagger_uses_the_dictionary(lemma_tagger):
    dev = list(read_conllu(SAMPLES / "dev.ud.conllu"))
    lemma_tagger.dictionary = None
    without = tag_accuracy(dev, lemma_tagger.tag(dev), "lemma")
    lemma_tagger.dictionary = "fr"
    with_it = tag_accuracy(dev, lemma_tagger.tag(dev), "lemma")
    said = fit_dictionary(lemma_tagger, dev, "fr")
    assert (lemma_tagger.dictionary == "fr") == (with_it > without)
    assert said.startswith(f"the fr lemma dictionary {'kept' if with_it > without else 'left out'}")
    assert fit_dictionary(lemma_tagger, dev, "xx") == "no lemma dictionary for xx" and lemma_tagger.dictionary is None


def test_a_saved_tagger_keeps_its_dictionary(lemma_tagger, tmp_path):
    lemma_tagger.dictionary = "fr"
    lemma_tagger.save(tmp_path / "lemma")
    assert Tagger.load(tmp_path / "lemma").dictionary == "fr"
    sentence = next(iter(read_conllu(SAMPLES / "dev.ud.conllu")))
    assert [w for w in Tagger.load(tmp_path / "lemma").tag([sentence])][0].column(2) == \
           [w for w in lemma_tagger.tag([sentence])][0].column(2)


def test_its_lemmas_are_simplemmas_own():
    import simplemma

    forms = sorted({form for sentence in read_conllu(SAMPLES / "dev.ud.conllu") for form in sentence.forms})
    assert [FRENCH.lemma(form) for form in forms] == [
        simplemma.lemmatize(form, lang="fr") if simplemma.is_known(form, lang="fr") else None for form in forms]


def test_the_unpacked_dictionary_is_kept_in_the_user_s_cache_and_read_back_the_same(tmp_path, monkeypatch):
    from hetdep.tagger.dictionary import LemmaDictionary

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    made, read = LemmaDictionary("fr"), LemmaDictionary("fr")  # the first unpacks and keeps, the second reads
    assert [path.name for path in (tmp_path / "hetdep").iterdir()][0].endswith("-fr-lines")
    forms = ["dort", "pleut", "gares", "arrêtées", "xqzvw", "Paris"]
    assert [made.lemma(form) for form in forms] == [read.lemma(form) for form in forms] == [FRENCH.lemma(form) for form in forms]
    assert list(made.lemmas) == list(read.lemmas) == list(FRENCH.lemmas) == sorted(set(list(made.lemmas)), key=str.encode)
    assert "dormir" in read.lemmas and "dormirr" not in read.lemmas and "" not in read.lemmas


@given(st.dictionaries(st.text(st.characters(blacklist_characters="\n"), max_size=6),
                       st.text(st.characters(blacklist_characters="\n"), max_size=6), max_size=30),
       st.lists(st.text(max_size=6), max_size=10))
def test_sorted_pairs_answer_as_the_dict_of_their_pairs(pairs, asked):
    from hetdep.tagger.dictionary import SortedPairs

    kept = sorted((form.encode("utf-8", "surrogatepass"), lemma.encode("utf-8", "surrogatepass")) for form, lemma in pairs.items())
    found = SortedPairs(b"\n".join(f for f, _ in kept), b"\n".join(lemma for _, lemma in kept)) if kept else None
    for form in [*pairs, *asked]:
        key = form.encode("utf-8", "surrogatepass")
        assert (found.get(key) if found else None) == dict(kept).get(key)
    assert found is None or list(found) == [f for f, _ in kept]


def test_the_lemmatizer_is_imported_ahead_only_where_the_dictionary_is_kept(tmp_path):
    """Where the dictionary is not kept yet, a model's opening leaves simplemma's import to the
    threads that unpack it (two threads importing at once trip CPython 3.11's AST check)."""
    import os
    import subprocess
    import sys

    script = ("import sys; from hetdep.tagger.dictionary import import_lemmatizer, lemma_dictionary; "
              "import_lemmatizer('fr'); print('simplemma' in sys.modules); lemma_dictionary('fr')")
    environment = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, check=True)
            for _ in range(2)]
    assert [run.stdout.strip() for run in runs] == ["False", "True"]
