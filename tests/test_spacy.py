"""The spaCy component: a hetdep model's trees on spaCy's tokens, one scheme as spaCy's own, every scheme as extensions."""

from __future__ import annotations

import pytest

import hetdep

spacy = pytest.importorskip("spacy", reason="spaCy (pip install 'hetdep[spacy]') is needed for its component")


def test_the_component_sets_spacys_tree_and_keeps_every_scheme(pipeline_model):
    nlp = spacy.blank("fr")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("hetdep", config={"model": str(pipeline_model), "scheme": "ud"})
    doc = nlp("Le ministre parle de le budget. Les élèves visitent le musée.")
    sentences = [[t.text for t in s] for s in doc.sents]
    assert len(sentences) == 2
    expected = hetdep.load(pipeline_model).parse(tokens=sentences)
    offset = 0
    for tokens, sentence in zip(sentences, expected):
        for k, word in enumerate(sentence.words):
            token = doc[offset + k]
            assert token.dep_ == word.deprel["ud"] and token._.hetdep_deprels == word.deprel
            for scheme in ("sud", "ud"):
                head = word.head[scheme]
                assert token._.hetdep_heads[scheme] == (offset + head - 1 if head else token.i)
            assert token.head.i == token._.hetdep_heads["ud"] and token.pos_ == word.upos
        offset += len(tokens)


def test_without_sentences_the_doc_is_one_and_a_wrong_scheme_is_refused(pipeline_model):
    nlp = spacy.blank("fr")
    nlp.add_pipe("hetdep", config={"model": str(pipeline_model)})  # scheme a by default
    doc = nlp("Le chat dort .")
    assert sum(t.head.i == t.i for t in doc) == 1 and doc[0]._.hetdep_heads.keys() == {"sud", "ud"}
    with pytest.raises(ValueError, match="not 'xyz'"):
        spacy.blank("fr").add_pipe("hetdep", config={"model": str(pipeline_model), "scheme": "xyz"})
