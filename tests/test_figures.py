"""The figures README.md, docs/models.md and docs/accuracy.md quote for the shipped models agree
with the models themselves: each model's card (its scores from raw text and its network's training, written by
bench/build_shipped_model.py when it built the model), its size on disk and its digest. A rebuilt
model with stale docs fails here. The command line's help quotes no measured figure: it points to
docs/models.md, so there is one place to keep them."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from hetdep.models.compact import folder_bytes
from hetdep.models.names import shipped_models

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MODELS_DOC = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
ACCURACY_DOC = (ROOT / "docs" / "accuracy.md").read_text(encoding="utf-8")
COLUMNS = ("Sentences", "Words", "UPOS", "UFeats", "Lemmas")  # then UD LAS and SUD LAS, as docs/models.md's tables have them


@pytest.mark.parametrize("model", shipped_models(), ids=lambda model: model.name)
def test_readme_gives_the_shipped_model_s_size(model):
    assert f"(`{model.name}`, {folder_bytes(model.path) / 1e6:.0f} MB" in README


@pytest.mark.parametrize("model", shipped_models(), ids=lambda model: model.name)
def test_the_docs_tables_quote_the_model_s_card(model):
    card = json.loads((model.path / "card.json").read_text(encoding="utf-8"))
    assert card["name"] == model.name and card["from_raw_text"]
    for label, schemes in card["from_raw_text"].items():
        rows = [line for line in MODELS_DOC.splitlines() if line.startswith(f"| {label} | shipped |")]
        assert len(rows) == 1, f"docs/models.md: one row '| {label} | shipped |' wanted, {len(rows)} found"
        cells = [cell.strip().strip("*") for cell in rows[0].split("|")[3:-1]]
        first = next(iter(schemes.values()))
        wanted = [first[metric] for metric in COLUMNS] + [schemes["ud"]["LAS"], schemes["sud"]["LAS"]]
        assert cells == [f"{value:.2f}" for value in wanted], f"docs/models.md's {label} row against {model.name}'s card"


@pytest.mark.parametrize("model", shipped_models(), ids=lambda model: model.name)
def test_the_accuracy_page_quotes_the_model_s_card(model):
    """docs/accuracy.md's rows of a shipped model (UD LAS, SUD LAS, Sentences, UPOS, Lemmas) are its card's."""
    card = json.loads((model.path / "card.json").read_text(encoding="utf-8"))
    for label, schemes in card["from_raw_text"].items():
        rows = [line for line in ACCURACY_DOC.splitlines()
                if re.match(rf"\| {re.escape(label)}( \(.*\))? \| shipped `{model.name}`", line)]
        assert len(rows) == 1, f"docs/accuracy.md: one row of {label} for the shipped {model.name} wanted, {len(rows)} found"
        cells = [cell.strip() for cell in rows[0].split("|")[3:8]]
        first = next(iter(schemes.values()))
        wanted = [schemes["ud"]["LAS"], schemes["sud"]["LAS"], first["Sentences"], first["UPOS"], first["Lemmas"]]
        assert cells == [f"{value:.2f}" for value in wanted], f"docs/accuracy.md's {label} row against {model.name}'s card"


@pytest.mark.parametrize("model", shipped_models(), ids=lambda model: model.name)
def test_the_docs_quote_the_model_s_training_and_digest(model):
    card = json.loads((model.path / "card.json").read_text(encoding="utf-8"))
    network = card["network"]
    assert f"the network {network['epochs']} epochs in {network['minutes']} minutes" in MODELS_DOC
    lines = [f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.relative_to(model.path)}"
             for path in sorted(model.path.rglob("*")) if path.is_file()]  # as bench/build_shipped_model.py prints them
    assert f"`{hashlib.sha256(chr(10).join(lines).encode()).hexdigest()}`" in MODELS_DOC


MEASURED = re.compile(r"\b(LAS|UAS|F1) \d|\d MB\b|\d minutes|words/s|\d hours?\b")


def _help_texts(command, path=("hetdep",)):
    import click

    yield " ".join(path), command.help or "", [(param.name, param.help or "") for param in command.params
                                               if isinstance(param, click.Option)]
    for name, sub in getattr(command, "commands", {}).items():
        yield from _help_texts(sub, (*path, name))


def test_help_texts_quote_no_measured_figure():
    from hetdep.cli import main

    found = [(command, name, MEASURED.search(text).group(0)) for command, text, options in _help_texts(main)
             for name, text in [("(the command)", text), *options] if MEASURED.search(text)]
    assert not found, f"figures in --help texts (docs/models.md keeps them): {found}"
