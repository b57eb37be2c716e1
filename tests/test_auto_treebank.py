"""--treebank auto, the default: a model of several treebanks parses a text as the treebank whose
conventions fit it best (the shipped French model: spoken French as ParisStories), says so, and
still parses an input of one word."""

from __future__ import annotations

from click.testing import CliRunner
from conftest import SAMPLES, SHARED_DATA, needs_shared

import hetdep
from hetdep.cli import main
from hetdep.models.kinds.neural import AUTO_SENTENCES
from hetdep.treebank.conllu import read_conllu


def _models():
    return hetdep.load("fr")._models


def test_written_french_of_the_sample_fits_the_default_treebank():
    assert _models().fitting(list(read_conllu(SAMPLES / "dev.ud.conllu"))[:100]).choice.treebank == "sequoia"


@needs_shared
def test_spoken_french_fits_parisstories_and_written_french_the_default():
    """The first 50 sentences of each test file (gold words): what the shipped model picks, as
    bench/raw_text.py measured from raw text (fr-parisstories test UD LAS 76.26 as Sequoia, 78.12 so;
    the written treebanks' text parsed as before)."""
    models = _models()
    for treebank, expected in [("fr-parisstories", "parisstories"), ("fr-gsd", "sequoia"), ("fr-sequoia", "sequoia")]:
        sentences = list(read_conllu(SHARED_DATA / treebank / "test.ud.conllu"))[:50]
        assert models.fitting(sentences).choice.treebank == expected, treebank


def test_the_command_says_which_treebank_it_chose_and_a_given_one_wins(tmp_path):
    for text, extra, said in [("Bonjour\n", [], "parsing as"), ("Bonjour\n", ["--treebank", "auto"], "parsing as"),
                              ("Bonjour\n", ["--treebank", "gsd"], None)]:
        source = tmp_path / "t.txt"
        source.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", "--input", str(source), "--output", str(tmp_path / "o.conllu"), *extra])
        assert result.exit_code == 0 and len(list(read_conllu(tmp_path / "o.conllu"))) == 1, result.output
        assert (said in result.output) if said else "parsing as" not in result.output


def test_the_treebanks_fits_read_at_once_are_those_read_one_by_one():
    """fits() encodes each batch's rows once per treebank in one encoding: each treebank's fit
    is what reading the sentences as that treebank alone gives (float32, within rounding)."""
    from hetdep.neural.fitting import fits

    parser = hetdep.load("fr", precision="float32")._models.parser
    sentences = list(read_conllu(SAMPLES / "dev.ud.conllu"))[:30]
    together = fits(parser, sentences, parser.treebank_names)
    assert len(set(together.values())) == len(together)  # the treebanks' conventions differ
    for name in parser.treebank_names:
        assert abs(fits(parser, sentences, [name])[name] - together[name]) < 1e-5, name


def test_text_the_default_treebank_fits_is_parsed_as_when_it_is_named(tmp_path, monkeypatch):
    """The chosen default reads on from the sentences it was judged on, and from their encodings
    as it (hetdep.neural.fitting): those sentences are not encoded again, and in float32 the output
    is byte for byte that of --treebank sequoia (in int8 a batch's 8-bit scale is its own, so a
    judged batch's rounding may differ)."""
    from hetdep.neural.inference import NumpyNetwork
    from hetdep.tokenizer.text import document_text

    encode = NumpyNetwork.encode
    rows: list[int] = []

    def counted(network, batch):
        rows.append(len(batch.words))
        return encode(network, batch)

    monkeypatch.setattr(NumpyNetwork, "encode", counted)
    source = tmp_path / "t.txt"
    source.write_text(document_text(list(read_conllu(SAMPLES / "dev.ud.conllu"))[:80]) + "\n", encoding="utf-8")
    outputs, encoded = [], []
    for extra in ([], ["--treebank", "sequoia"]):
        out = tmp_path / f"o{len(outputs)}.conllu"
        rows.clear()
        result = CliRunner().invoke(main, ["parse", "--input", str(source), "--output", str(out), "--threads", "2",
                                           "--precision", "float32", *extra])
        assert result.exit_code == 0, result.output
        assert ("parsing as sequoia" in result.output) == (not extra)
        outputs.append(out.read_bytes())
        encoded.append(sum(rows))
    sentences = outputs[0].count(b"# sent_id")
    assert outputs[0] == outputs[1] and sentences >= 70
    assert encoded == [3 * AUTO_SENTENCES + sentences - AUTO_SENTENCES, sentences]  # judged as three treebanks, then the rest


@needs_shared
def test_spoken_text_is_read_again_by_the_chosen_treebanks_tokenizer(tmp_path):
    from hetdep.tokenizer.text import document_text

    source = tmp_path / "t.txt"
    source.write_text(document_text(list(read_conllu(SHARED_DATA / "fr-parisstories" / "test.ud.conllu"))[:80]) + "\n",
                      encoding="utf-8")
    outputs = []
    for extra in ([], ["--treebank", "parisstories"]):
        out = tmp_path / f"o{len(outputs)}.conllu"
        result = CliRunner().invoke(main, ["parse", "--input", str(source), "--output", str(out), *extra])
        assert result.exit_code == 0, result.output
        outputs.append(out.read_bytes())
        if not extra:
            assert "parsing as parisstories" in result.output
    assert outputs[0] == outputs[1]
