"""The language guard (hetdep.models.language) with the shipped model: short everyday French is
not taken for another language, paragraphs of other languages are, and no input makes it fail.
bench/language_guard.py measures it on every test sentence."""

from __future__ import annotations

import pytest

import hetdep
from hetdep.models.language import UNDETERMINED, LanguageGuard
from hetdep.models.names import shipped_model_of
from hetdep.treebank.conllu import Sentence

pytest.importorskip("torch", reason="the shipped model is a neural one: it needs PyTorch ('hetdep[neural]')")

FRENCH = ["Le chat dort sur le canapé.", "Marie a acheté des pommes.", "Il pleut depuis ce matin.",
          "Nous prenons le train de huit heures.", "Ouais, euh, c'est vrai.", "Les gares sont fermées dimanche."]
OTHERS = {
    "en": "The committee met on Tuesday to discuss next year's budget. Most members agreed with the plan, "
          "but a few of them asked for more time to read the report before they vote.",
    "de": "Der Ausschuss hat sich am Dienstag getroffen, um den Haushalt des nächsten Jahres zu besprechen. "
          "Die meisten Mitglieder waren mit dem Plan einverstanden.",
    "es": "El comité se reunió el martes para hablar del presupuesto del año que viene. La mayoría de los "
          "miembros estuvo de acuerdo con el plan.",
    "zh": "委员会星期二开会讨论明年的预算。大多数成员同意这个计划，但是有几个人希望有更多时间阅读报告。",
    "ru": "Комитет собрался во вторник, чтобы обсудить бюджет на следующий год. Большинство членов "
          "согласились с планом.",
}


@pytest.fixture(scope="module")
def nlp():
    return hetdep.load(quiet=True)


@pytest.mark.parametrize("text", FRENCH)
def test_short_everyday_french_is_not_taken_for_another_language(nlp, text):
    document = nlp(text)
    assert document.warnings == () and document.foreign_words == 0


@pytest.mark.parametrize("language", sorted(OTHERS))
def test_paragraphs_of_other_languages_are(nlp, language):
    document = nlp(OTHERS[language])
    assert document.foreign_words == len(document.words)
    assert len(document.warnings) == 1 and "another language than the model's (fr)" in document.warnings[0]


def test_the_warning_proposes_the_shipped_model_of_the_text_s_language(nlp):
    english = shipped_model_of("en")
    assert english is not None and english.name == "en", "the English model ships (bench/build_shipped_model.py --language en)"
    warned = nlp(OTHERS["en"]).warnings[0]
    assert warned.endswith("They look like en: hetdep ships a model of en, --model en (hetdep.load('en'))")
    assert "They look like" not in nlp(OTHERS["de"]).warnings[0]  # no German model ships
    assert hetdep.load("en", quiet=True)(OTHERS["en"]).warnings == ()


def test_each_parse_proposes_the_language_of_its_own_text(nlp):
    """The guard keeps no count between calls (the service's requests share it): English text read
    by other callers meanwhile does not make German text's warning propose the English model."""
    english = nlp(OTHERS["en"] * 3)
    assert english.foreign == {"en": len(english.words)}
    assert sum(nlp._models.guard.foreign_words(nlp.tokenize(OTHERS["en"] * 3)).values()) > 0
    assert "They look like" not in nlp(OTHERS["de"]).warnings[0]


@pytest.mark.parametrize("text", ["", "   \n\n ", "!!! ... ?!", "x" * 5000, "Ceci est du 中文 mélangé avec English, ok ?",
                                  "١٢٣ ٤٥٦", "\u200b\u200b"])
def test_no_input_makes_the_guard_fail(nlp, text):
    document = nlp(text)
    assert all("another language" in warning for warning in document.warnings)


def test_a_model_of_no_recorded_language_is_judged_by_its_unknown_words():
    known = {"le", "chat", "dort", "."}
    guard = LanguageGuard(None, lambda form: form.lower() in known)
    sentence = lambda forms: Sentence([], [[str(k + 1), form] + ["_"] * 8 for k, form in enumerate(forms)],  # noqa: E731
                                      list(range(len(forms))), [-1] * len(forms))
    assert guard.looks_like(sentence(["Le", "chat", "dort", "."])) is None
    assert guard.looks_like(sentence(["The", "cat", "sleeps", "."])) == UNDETERMINED
    assert guard.warning({UNDETERMINED: 3}, 4) and guard.warning({UNDETERMINED: 1}, 4) is None
    assert "They look like" not in guard.warning({UNDETERMINED: 3}, 4)


def test_the_identifier_s_unpacked_model_is_kept_in_the_user_s_cache_and_ranks_as_py3langid_does(tmp_path, monkeypatch):
    import py3langid

    from hetdep.models import language
    from hetdep.user_cache import cache_folder

    texts = [FRENCH[0], OTHERS["en"], OTHERS["zh"], "", "12 34"]
    expected = [py3langid.rank(text) for text in texts]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = cache_folder(language.identifier_cache_name())
    for state in ("built", "read", "damaged"):
        language._identifier.cache_clear()
        if state == "damaged":
            (folder / "nextmove.npy").write_bytes(b"\x93NUMPY")
        assert [language._identifier().rank(text) for text in texts] == expected, state
        assert sorted(path.name for path in folder.iterdir()) == sorted(
            f"{name}.npy" for name in language.IDENTIFIER_ARRAYS)
        assert (folder / "nextmove.npy").stat().st_size > 2**20
    assert [path.name for path in (tmp_path / "hetdep").iterdir()] == [folder.name]  # no staging left
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/none")  # not writable: unpacked each time, still right
    language._identifier.cache_clear()
    assert language._identifier().rank(texts[1]) == expected[1]
    language._identifier.cache_clear()
