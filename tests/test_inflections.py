"""The inflection lexicon (hetdep.tagger.inflections) and a FEATS tagger that reads it."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from conftest import SAMPLES

from hetdep.learn.model_files import ModelFileError
from hetdep.learn.vocab import UNKNOWN
from hetdep.tagger.inflections import UNLISTED, InflectionLexicon, has_inflections, inflection_lexicon, inflections_blob
from hetdep.tagger.tagger import Tagger, encode, word_strings
from hetdep.tagger.templates import NOMINAL, STATIC_TEMPLATES, TREE_TEMPLATES, VERBAL
from hetdep.tagger.training import TaggerOptions, train_tagger
from hetdep.treebank.conllu import FEATS, UPOS, read_conllu

TRAIN = list(read_conllu(SAMPLES / "train.ud.conllu"))
DEV = list(read_conllu(SAMPLES / "dev.ud.conllu"))


def test_a_lexicon_file_gives_each_form_its_readings_whatever_its_case(tmp_path):
    entries = {"troupes": ("NOM:f:p", ""), "dort": ("", "ind:pre:3s"), "mangée": ("VER:f:s", "par:pas")}
    lexicon = InflectionLexicon(inflections_blob(entries), "l")
    assert len(lexicon) == 3
    assert lexicon.strings("Troupes") == ("in:NOM:f:p", "iv:")
    assert lexicon.strings("MANGÉE") == ("in:VER:f:s", "iv:par:pas")
    assert lexicon.strings("dorment") == UNLISTED
    with pytest.raises(ValueError, match="tab"):
        inflections_blob({"a\tb": ("", "")})


def test_the_shipped_french_lexicon_knows_the_genders_a_treebank_lacks():
    assert has_inflections("fr") and not has_inflections("xx") and not has_inflections(None)
    lexicon = inflection_lexicon("fr")
    assert len(lexicon) > 100_000
    assert lexicon.strings("troupes")[0] == "in:NOM:f:p" and lexicon.strings("voix")[0] == "in:NOM:f:_"
    assert lexicon.strings("dort")[1] == "iv:ind:pre:3s"


@pytest.fixture(scope="module")
def lexicon_feats():
    return train_tagger(TRAIN, DEV[:60], TaggerOptions(column="feats", reads="upos", reads_tree=True, iterations=3,
                                                       inflections="fr")).parser


def test_a_feats_tagger_reading_the_lexicon_has_its_atoms_and_templates(lexicon_feats):
    assert lexicon_feats.templates.shape[0] > TREE_TEMPLATES.shape[0] > STATIC_TEMPLATES.shape[0]
    assert lexicon_feats.backward.inflections == "fr"
    sentence = DEV[70]
    given = sentence.column(UPOS)
    tree = lexicon_feats.tree(sentence, given)
    read = encode(lexicon_feats.strings, lexicon_feats.lexicon, sentence.forms, given, tree, inflection_lexicon("fr"))
    unread = encode(lexicon_feats.strings, lexicon_feats.lexicon, sentence.forms, given, tree)
    assert not np.array_equal(read[:, [NOMINAL, VERBAL]], unread[:, [NOMINAL, VERBAL]])
    assert np.array_equal(np.delete(read, [NOMINAL, VERBAL], axis=1), np.delete(unread, [NOMINAL, VERBAL], axis=1))


def test_a_feats_tagger_reading_the_lexicon_saves_and_loads_so(lexicon_feats, tmp_path):
    sentences = DEV[60:90]
    lexicon_feats.save(tmp_path / "t")
    config = json.loads((tmp_path / "t" / "config.json").read_text())
    assert config["inflections"] == "fr"
    loaded = Tagger.load(tmp_path / "t")
    assert [s.column(FEATS) for s in loaded.tag(sentences)] == [s.column(FEATS) for s in lexicon_feats.tag(sentences)]
    (tmp_path / "t" / "config.json").write_text(json.dumps({**config, "inflections": "xx"}))
    with pytest.raises(ModelFileError, match="inflection lexicon of 'xx'"):
        Tagger.load(tmp_path / "t")
    (tmp_path / "t" / "config.json").write_text(json.dumps({**config, "templates": config["templates"][:-1]}))
    with pytest.raises(ModelFileError, match="feature templates"):
        Tagger.load(tmp_path / "t")


def test_the_plain_search_reads_the_lexicon_as_the_compiled_one(lexicon_feats):
    from hetdep.tagger import reference
    from hetdep.tagger._search import search

    for sentence in DEV[:10]:
        given = sentence.column(UPOS)
        atoms = encode(lexicon_feats.strings, lexicon_feats.lexicon, sentence.forms, given,
                       lexicon_feats.tree(sentence, given), inflection_lexicon("fr"))
        n, n_tags = len(atoms), len(lexicon_feats.tags)
        extra = np.zeros((n, n_tags), dtype=np.float32)
        tags, scores = reference.search(atoms, 4, lexicon_feats.templates, lexicon_feats.weights.plain, n_tags, extra)
        compiled_tags, _, compiled_scores = search(atoms, n, 4, lexicon_feats.templates, lexicon_feats.weights.table,
                                                   lexicon_feats.weights.rows, n_tags, np.zeros(n, dtype=np.int64), False,
                                                   extra)
        assert tags.tolist() == compiled_tags.tolist() and np.array_equal(scores, compiled_scores)


def test_a_form_s_atoms_kept_between_sentences_are_those_its_strings_give(lexicon_feats):
    """encode's memo against the strings themselves, every atom: given tags, the tree and the
    lexicon's readings read, and without them; the forms repeat across the sentences."""
    strings, lexicon, readings = lexicon_feats.strings, lexicon_feats.lexicon, inflection_lexicon("fr")
    memo: dict = {}
    for sentence in DEV[60:90] * 2:
        given = sentence.column(UPOS)
        tree = lexicon_feats.tree(sentence, given)
        expected = [[strings.index.get(s, UNKNOWN) for s in word_strings(form, lexicon, tag, context, readings.strings(form))]
                    for form, tag, context in zip(sentence.forms, given, tree)]
        assert encode(strings, lexicon, sentence.forms, given, tree, readings, memo).tolist() == expected
        plain = [[strings.index.get(s, UNKNOWN) for s in word_strings(form, lexicon)] for form in sentence.forms]
        assert encode(strings, lexicon, sentence.forms, memo={}).tolist() == plain
    assert 0 < len(memo) < sum(len(s) for s in DEV[60:90])


def test_a_full_memo_starts_afresh_and_encodes_the_same(lexicon_feats, monkeypatch):
    import hetdep.tagger.tagger as tagger_module

    monkeypatch.setattr(tagger_module, "MEMO_FORMS", 5)
    strings, lexicon, memo = lexicon_feats.strings, lexicon_feats.lexicon, {}
    for sentence in DEV[60:70]:
        assert encode(strings, lexicon, sentence.forms, memo=memo).tolist() == encode(strings, lexicon, sentence.forms).tolist()
        assert len(memo) <= 5


def test_a_shipped_lexicon_is_inflated_once_per_user_and_again_when_its_file_changes(tmp_path, monkeypatch):
    from hetdep.tagger.inflections import FILE, LEXICONS
    from hetdep.user_cache import gunzipped

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shipped = LEXICONS / "fr" / FILE
    assert gunzipped(shipped) == gunzipped(shipped) == gzip.decompress(shipped.read_bytes())
    assert len(list((tmp_path / "cache" / "hetdep").iterdir())) == 1
    copy = tmp_path / "fr" / FILE
    copy.parent.mkdir()
    copy.write_bytes(gzip.compress(inflections_blob({"troupes": ("NOM:f:p", "")})))
    assert InflectionLexicon(gunzipped(copy), str(copy)).strings("troupes") == ("in:NOM:f:p", "iv:")
    assert len(list((tmp_path / "cache" / "hetdep").iterdir())) == 2
