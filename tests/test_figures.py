"""The figures README.md and docs/models.md quote for the shipped models agree with the models
themselves: each model's card (its scores from raw text, written by bench/build_shipped_model.py
when it built the model) and its size on disk. A rebuilt model with stale docs fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hetdep.models.compact import folder_bytes
from hetdep.models.names import shipped_models

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MODELS_DOC = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
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
