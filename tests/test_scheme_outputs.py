"""Outputs named by scheme, never by position: ``--output ud=FILE`` writes UD for every shipped
model and every treebank it parses as, the command says which scheme went where, a plain
``--output`` gets the model's first scheme whatever the treebank, and the service's names
(fr-ud, fr-parisstories-sud) mean the same on the command line."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import hetdep
from hetdep.cli import main
from hetdep.treebank.conllu import read_conllu

TEXTS = {"fr": "Le conseil municipal s'est réuni hier. Il a voté le budget de la ville.\n",
         "en": "The council met yesterday. It voted for the budget of the city.\n"}
SUD_ONLY = {"subj", "comp:obj", "comp:aux", "udep", "mod", "comp:pred"}  # base labels UD does not have
UD_ONLY = {"nsubj", "obj", "case", "aux", "amod", "nmod", "obl"}


def _labels(path) -> set[str]:
    return {label.split("@")[0] for sentence in read_conllu(path) for label in sentence.deprels}


def _cases() -> list[tuple[str, str | None]]:
    return [("fr", None), ("fr", "sequoia"), ("fr", "gsd"), ("fr", "parisstories"), ("en", None)]


@pytest.mark.parametrize("model, treebank", _cases())
def test_a_file_named_for_a_scheme_gets_that_scheme_for_every_model_and_treebank(tmp_path, model, treebank):
    text = tmp_path / "t.txt"
    text.write_text(TEXTS[model], encoding="utf-8")
    extra = ["--treebank", treebank] if treebank else []
    for ud, sud in [("ud", "sud"), ("UD", "Sud")]:
        for first, second in [(f"{ud}={tmp_path / 'u.conllu'}", f"{sud}={tmp_path / 's.conllu'}"),
                              (f"{sud}={tmp_path / 's.conllu'}", f"{ud}={tmp_path / 'u.conllu'}")]:
            result = CliRunner().invoke(main, ["parse", "--model", model, "--input", str(text), "--output", first,
                                               "--output-b", second, *extra])
            assert result.exit_code == 0, result.output
            assert not _labels(tmp_path / "u.conllu") & SUD_ONLY and _labels(tmp_path / "u.conllu") & UD_ONLY
            assert not _labels(tmp_path / "s.conllu") & UD_ONLY and _labels(tmp_path / "s.conllu") & SUD_ONLY
            assert f"ud trees in {tmp_path / 'u.conllu'}" in result.output and f"sud trees in {tmp_path / 's.conllu'}" in result.output
    alone = CliRunner().invoke(main, ["parse", "--model", model, "--input", str(text), "--output", f"ud={tmp_path / 'one.conllu'}",
                                      *extra])
    assert alone.exit_code == 0 and (tmp_path / "one.conllu").read_text(encoding="utf-8") == (
        tmp_path / "u.conllu").read_text(encoding="utf-8")
    chosen = next((line.split()[2].rstrip(",") for line in alone.output.splitlines() if line.startswith("parsing as ")),
                  treebank)  # without --treebank, the one that fits the text (tests/test_auto_treebank.py)
    loaded = hetdep.load(model, treebank=chosen)
    assert loaded.schemes == hetdep.load(model).schemes  # one order whatever the treebank
    assert loaded(TEXTS[model]).to_conllu("ud") == (tmp_path / "u.conllu").read_text(encoding="utf-8")


def test_a_plain_output_gets_the_model_s_first_scheme_whatever_the_treebank(tmp_path):
    """What a new user met: --treebank parisstories flipped the files, UD into --output."""
    text = tmp_path / "t.txt"
    text.write_text(TEXTS["fr"], encoding="utf-8")
    for extra in ([], ["--treebank", "parisstories"]):
        result = CliRunner().invoke(main, ["parse", "--input", str(text), "--output", str(tmp_path / "a.conllu"),
                                           "--output-b", str(tmp_path / "b.conllu"), *extra])
        assert result.exit_code == 0, result.output
        assert _labels(tmp_path / "a.conllu") & SUD_ONLY and _labels(tmp_path / "b.conllu") & UD_ONLY
        assert result.output.splitlines()[-1] == f"sud trees in {tmp_path / 'a.conllu'}, ud trees in {tmp_path / 'b.conllu'}"


@pytest.mark.parametrize("name, treebank, scheme", [("fr-ud", None, "ud"), ("fr-parisstories", "parisstories", "sud"),
                                                    ("fr-parisstories-ud", "parisstories", "ud"), ("fr-gsd-sud", "gsd", "sud")])
def test_the_service_s_model_names_parse_on_the_command_line(tmp_path, name, treebank, scheme):
    text = tmp_path / "t.txt"
    text.write_text(TEXTS["fr"], encoding="utf-8")
    named, plain = tmp_path / "named.conllu", tmp_path / "plain.conllu"
    result = CliRunner().invoke(main, ["parse", "--model", name, "--input", str(text), "--output", str(named)])
    assert result.exit_code == 0, result.output
    given = CliRunner().invoke(main, ["parse", "--input", str(text), "--output", f"{scheme}={plain}",
                                      *(["--treebank", treebank] if treebank else [])])
    assert given.exit_code == 0 and named.read_text(encoding="utf-8") == plain.read_text(encoding="utf-8")


@pytest.mark.parametrize("args, message", [
    (["--output", "xx=OUT"], "no scheme 'xx': fr has sud, ud"),
    (["--output", "ud=OUT", "--output-b", "UD=OUT2"], "both name the scheme ud"),
    (["--output", "ud=OUT", "--scheme", "sud"], "name two schemes"),
    (["--output", "OUT", "--scheme", "Ud2"], "no scheme 'Ud2': fr has sud, ud"),
    (["--output", "OUT", "--model", "fr-xx"], "no model named 'fr-xx': 'fr' has the schemes sud, ud and the treebanks"),
    (["--output", "OUT", "--model", "fr-gsd", "--treebank", "sequoia"], "parses as gsd, not as --treebank sequoia"),
])
def test_a_scheme_or_name_the_model_lacks_is_one_line_naming_what_it_has(tmp_path, args, message):
    text = tmp_path / "t.txt"
    text.write_text(TEXTS["fr"], encoding="utf-8")
    args = [arg.replace("OUT", str(tmp_path / "o.conllu")) for arg in args]
    result = CliRunner().invoke(main, ["parse", "--input", str(text), *args])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and message in result.output, result.output
    assert not list(tmp_path.glob("o.conllu*"))
