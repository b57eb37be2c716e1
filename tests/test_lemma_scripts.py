"""Lemmas as edit scripts of their forms: every lemma comes back, and a script generalizes to forms never seen."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hetdep.treebank.conllu import LEMMA, Sentence
from hetdep.treebank.lemma_scripts import apply_script, edit_script, edits_start, kept_characters
from hetdep.treebank.tags import annotated, with_word_classes, word_classes


@given(form=st.text(min_size=1, max_size=80), lemma=st.text(min_size=1, max_size=80))
def test_a_script_gives_back_its_lemma(form, lemma):
    assert apply_script(form, edit_script(form, lemma)) == lemma


@given(form=st.text(min_size=1, max_size=20), other=st.text(min_size=1, max_size=20), lemma=st.text(min_size=1, max_size=20))
def test_no_script_makes_an_empty_lemma(form, other, lemma):
    assert apply_script(other, edit_script(form, lemma)) != ""


def test_scripts_generalize_over_endings_and_casing():
    assert apply_script("dansaient", edit_script("chantaient", "chanter")) == "danser"
    assert apply_script("Rivières", edit_script("Maisons", "maison")) == "rivière"
    assert apply_script("LONDRES", edit_script("PARIS", "Paris")) == "Londres"
    assert apply_script("walked", edit_script("played", "play")) == "walk"


def test_a_separator_inside_the_form_is_deleted_by_one_rule():
    assert apply_script("6,363,217", edit_script("2,000", "2000")) == "6363217"
    assert apply_script("60's", edit_script("50's", "50s")) == "60s"
    assert kept_characters("6,363,217", edit_script("2,000", "2000")) == 7
    assert edit_script("cats", "cat") == edit_script("dogs", "dog")  # a suffix cut stays one
    assert edit_script("'s", "s") != edit_script("2,000", "2000")  # not a separator inside the form


def test_an_irregular_lemma_is_written_whole():
    assert edit_script("est", "être") == edit_script("ai", "être")  # "t" in common is no rule
    assert apply_script("fut", edit_script("est", "être")) == "être"


def test_a_script_keeps_what_it_does_not_cut_of_the_form():
    assert kept_characters("dansaient", edit_script("chantaient", "chanter")) == 4  # "dans" + "er"
    assert kept_characters("fut", edit_script("est", "être")) == 0
    assert kept_characters("a", edit_script("chantaient", "chanter")) == 0


def test_a_script_that_cuts_more_than_the_form_has_keeps_the_form():
    assert apply_script("a", edit_script("chantaient", "chanter")) == "a"
    assert apply_script("-", edit_script("là-", "là")) == "-"  # cutting the last character of one would leave nothing


def test_lemma_classes_skip_empty_lemmas_and_fill_the_column():
    rows = [["1", "Chats", "chat", "NOUN", "_", "Number=Plur", "0", "root", "_", "_"],
            ["2", "_", "_", "SYM", "_", "_", "1", "dep", "_", "_"],
            ["3", "dorment", "_", "VERB", "_", "_", "1", "dep", "_", "_"]]
    sentence = Sentence([], rows, [0, 1, 2], [0, 1, 1])
    scripts = word_classes(sentence, "lemma")
    assert scripts[2] is None and scripts[1] is not None  # an underscore form may have "_" as its lemma
    assert with_word_classes(sentence, "lemma", [scripts[0], scripts[1], scripts[0]]).column(LEMMA) == ["chat", "_", "dormen"]  # the plural rule, as taught
    assert word_classes(sentence, "feats") == ["Number=Plur", "_", "_"] and annotated([sentence], "feats")


def test_a_script_that_changes_the_form_s_start_is_told_apart():
    assert edits_start(edit_script("dort", "sort")) and edits_start(edit_script("défaire", "faire"))
    assert not edits_start(edit_script("chantaient", "chanter")) and not edits_start(edit_script("est", "être"))
    assert not edits_start(edit_script("2,000", "2000")) and not edits_start(edit_script("Paris", "Paris"))
