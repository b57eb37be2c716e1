"""Network variants of a recipe of several treebanks (by default "fr": fr-sequoia, fr-gsd's dev
split, fr-parisstories), the network alone: no tokenizer, no taggers, so a variant costs only its
epochs. Per variant: its dev curve, its training time, and its test UAS/LAS from gold tokens per
treebank and scheme (punctuation excluded, parsed as that treebank), the network's UPOS beside.

    python bench/treebank_variants.py --out OUT --vectors VECTORS_FOLDER \
        --variant per-scheme:sharing=per-scheme [--variant deep:layers=3 ...] [--threads 1]
        [--recipe en] [--train-sentences N]

A variant is NAME:FIELD=VALUE,... over hetdep.neural.training.NeuralOptions; the recipe's own
options (its epochs) come first, then the variant's. A model already in OUT/NAME is scored again,
not trained again. The table goes to standard output and OUT/NAME.json. ``--train-sentences``
trains on the first N sentences of each training split (a cheaper comparison, said in the record).

Whether the basic trees and the enhanced graph help each other (issue 90) is three variants of the
"en" recipe: ``joint:enhanced=true``, ``graph-alone:enhanced=true,detached=trees`` (the trees'
loss trains their scorers, not the encoder: it learns from the graph and the tags) and
``trees-alone:enhanced=true,detached=graph``; their test ELAS and LAS side by side.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from recipes import ALL_RECIPES, TreebanksRecipe, vectors_file

from hetdep.neural.parser import NeuralParser
from hetdep.neural.training import NeuralOptions, train_treebanks, treebank_scores
from hetdep.neural.treebanks import Treebank
from hetdep.treebank.conllu import read_conllu


def variant_options(recipe: TreebanksRecipe, spec: str, threads: int, embeddings: Path) -> tuple[str, NeuralOptions]:
    """``NAME:FIELD=VALUE,...`` as its name and options (each value of the field's own type)."""
    name, _, assignments = spec.partition(":")
    given = dict(zip(recipe.options[::2], recipe.options[1::2]))
    values = {"epochs": int(given.get("--iterations", NeuralOptions.epochs)), "threads": threads,
              "embeddings": str(embeddings)}
    types = {field.name: int if field.default is dataclasses.MISSING else str if field.default is None else type(field.default)
             for field in dataclasses.fields(NeuralOptions)}  # None: an optional file (embeddings)
    for assignment in filter(None, assignments.split(",")):
        key, _, value = assignment.partition("=")
        if key not in types:
            sys.exit(f"bench/treebank_variants.py: {key!r} is not a field of NeuralOptions ({', '.join(types)})")
        values[key] = value.lower() in ("1", "true", "yes") if types[key] is bool else types[key](value)
    return name, NeuralOptions(**values)


def treebanks(recipe: TreebanksRecipe, out: Path, split: str, train_sentences: int | None = None) -> list[Treebank]:
    """The recipe's treebanks with ``split`` as their dev files (test: to score on), each training
    split's first ``train_sentences`` sentences (None: all)."""
    found = []
    for part in recipe.parts:
        part.prepare(out)
        train = [list(read_conllu(path, require_heads=True))[:train_sentences] for path in part.files(out, "train")]
        held = [list(read_conllu(path, require_heads=True)) for path in part.files(out, split)]
        found.append(Treebank(part.name, part.schemes, train, held))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--recipe", default="fr", choices=[n for n, r in ALL_RECIPES.items() if isinstance(r, TreebanksRecipe)])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--vectors", type=Path, help="folder of the recipe's vectors file")
    parser.add_argument("--variant", action="append", required=True, help="NAME:FIELD=VALUE,... (NeuralOptions)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--train-sentences", type=int, help="train on the first N sentences of each training split")
    args = parser.parse_args()
    recipe = ALL_RECIPES[args.recipe]
    embeddings = vectors_file(recipe, args.vectors) if recipe.vectors else None
    training = treebanks(recipe, args.out, "dev", args.train_sentences)
    testing = treebanks(recipe, args.out, "test")
    for spec in args.variant:
        name, options = variant_options(recipe, spec, args.threads, embeddings)
        model = args.out / name
        record = {"variant": spec, "options": dataclasses.asdict(options), "train_sentences": args.train_sentences}
        if (model / "config.json").is_file():
            network = NeuralParser.load(model)
            earlier = args.out / f"{name}.json"
            if earlier.is_file():
                record["training"] = json.loads(earlier.read_text(encoding="utf-8")).get("training", {})
        else:
            started = time.perf_counter()
            result = train_treebanks(training, options)
            seconds = time.perf_counter() - started
            network = result.parser
            network.save(model)
            record["training"] = {"seconds": round(seconds, 1), "best_epoch": result.best_iteration,
                                  "curve": [{"epoch": r.iteration, "dev_las": r.dev_las, "seconds": round(r.seconds, 1),
                                             **r.dev_detail} for r in result.history]}
        record["test"] = treebank_scores(network, testing)
        (args.out / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        trained = record.get("training", {})
        print(f"{name}: trained in {trained.get('seconds', '?')} s, best epoch {trained.get('best_epoch', '?')}")
        for key, value in record["test"].items():
            print(f"  test {key:24} {value:6.2f}")


if __name__ == "__main__":
    main()
