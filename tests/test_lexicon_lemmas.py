"""Lemmas by part of speech from the language's lexicon (hetdep.tagger.lexicon_lemmas): an unseen
word whose lemma is another part of speech's takes the lexicon's, seen words keep the tagger's."""

from __future__ import annotations

import pytest

from hetdep.tagger.dictionary import lemma_dictionary
from hetdep.tagger.lemmas import KnownLemmas
from hetdep.tagger.lexicon_lemmas import LexiconLemmas, lemmas_blob, lexicon_lemmas
from hetdep.treebank.lemma_scripts import edit_script
from hetdep.treebank.tags import lemma_of


def test_a_lexicon_file_gives_a_form_s_lemmas_as_each_part_of_speech_whatever_its_case():
    entries = {"suis": {"AUX": ["être"], "VERB": ["être", "suivre"]}, "pourrait": {"VERB": ["pouvoir"]},
               "arrêtées": {"ADJ": ["arrêté"], "VERB": ["arrêter"]}}
    lexicon = LexiconLemmas(lemmas_blob(entries), "l")
    assert len(lexicon) == 3
    assert lexicon.lemmas("Suis", "VERB") == ("être", "suivre") and lexicon.lemmas("ARRÊTÉES", "ADJ") == ("arrêté",)
    assert lexicon.lemmas("pourrait", "AUX") == ("pouvoir",)  # an auxiliary the lexicon has as a verb only
    assert lexicon.lemmas("pourrait", "NOUN") == () and lexicon.lemmas("dorment", "VERB") == ()
    assert lexicon.lemmas("suis", "PRON") == ()  # a part of speech it does not give
    assert lexicon.chosen("suis", "VERB", "suivre") == "suivre" and lexicon.chosen("suis", "VERB", "suir") == "être"
    assert lexicon.chosen("Arrêtées", "VERB", "Arrêter") == "Arrêter"  # the tagger's lemma, whatever its case
    assert lexicon.chosen("dorment", "VERB", "dormer") is None  # a form it does not know
    with pytest.raises(ValueError, match="'\\|'"):
        lemmas_blob({"a": {"NOUN": ["b|c"]}})


def test_the_shipped_french_lexicon_knows_irregular_forms_by_part_of_speech():
    lexicon = lexicon_lemmas("fr")
    assert len(lexicon) > 100_000 and lexicon_lemmas("xx") is None and lexicon_lemmas(None) is None
    assert lexicon.lemmas("pleut", "VERB") == ("pleuvoir",) and lexicon.lemmas("dort", "VERB") == ("dormir",)
    assert lexicon.lemmas("arrêtées", "VERB") == ("arrêter",) and lexicon.lemmas("arrêtées", "ADJ") == ("arrêté",)
    assert lexicon.lemmas("suis", "AUX") == ("être",) and lexicon.lemmas("gares", "NOUN") == ("gare",)


def test_an_unseen_word_s_real_lemma_of_another_part_of_speech_takes_the_lexicon_s():
    french = lemma_dictionary("fr")
    forms = ["pleut", "pleut", "pleut", "Pleut", "Vitré"]
    scripts = [edit_script(form, "pleur") for form in forms[:4]] + [edit_script("Vitré", "Vitré")]
    known = KnownLemmas(frozenset({"pleur", "Vitré"}), french.lemmas)
    unseen = french.fill_unseen(forms, scripts, lambda form: False, known, ["VERB", "NOUN", "ADJ", "VERB", "PROPN"])
    assert [lemma_of(f, s) for f, s in zip(forms, unseen)] == ["pleuvoir", "pleur", "pleur", "pleuvoir", "Vitré"]
    # the verb takes the lexicon's lemma, sentence-initial too; "pleut" is no noun the lexicon knows, so
    # the tagger's real lemma "pleur" stands as before (nor an adjective); a proper noun keeps its form
    seen = french.fill_unseen(forms, scripts, lambda form: True, known, ["VERB", "NOUN", "ADJ", "VERB", "PROPN"])
    assert seen == scripts  # a seen word keeps the tagger's lemma
    assert french.fill_unseen(forms[:1], scripts[:1], lambda form: False, known) == scripts[:1]  # no UPOS read: as before


def test_the_shipped_model_gives_everyday_unseen_verbs_their_lemmas():
    import hetdep

    words = [word for sentence in hetdep.load()("Il pleut à Paris. Le chat dort.").sentences for word in sentence.words]
    assert {word.form: word.lemma for word in words if word.upos == "VERB"} == {"pleut": "pleuvoir", "dort": "dormir"}
