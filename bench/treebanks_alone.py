"""Issue 57's comparison: a model of several treebanks (by default the shipped ``fr``) against the
same recipe's network trained on each treebank alone, each scored on that treebank's test set from
gold tokens (the network's own tags; punctuation excluded), with ``hetdep compare``'s significance
tests (sign test, paired t-test, approximate randomization, paired bootstrap).

    python bench/treebanks_alone.py --out OUT --vectors VECTORS_FOLDER [--model MODEL] [--recipe fr] \
        [--treebank sequoia ...] [--threads 2]

Each alone network trains with the recipe's options (its epochs, then the final ones; no tokenizer
or taggers, which gold tokens do not need) into OUT/alone-NAME, reused by a rerun, and is made
8-bit as the shipped model's network is (``hetdep compact``: the same rounding on both sides). The
table goes to standard output and OUT/report.md, the figures to OUT/scores.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

from recipes import ALL_RECIPES, RECIPES, TreebanksRecipe, vectors_file
from treebank_variants import treebanks, variant_options

from hetdep.evaluation.attachment import evaluate
from hetdep.experiments.common import significance_table
from hetdep.models.names import shipped_model_path
from hetdep.neural.parser import NeuralParser
from hetdep.neural.training import train_treebanks


def alone(name: str, training: list, options, out: Path, threads: int) -> tuple[NeuralParser, dict]:
    """The network of treebank ``name`` alone (trained unless OUT/alone-NAME has it), 8-bit, and its training record."""
    folder, small = out / f"alone-{name}", out / f"alone-{name}-8bit"
    record_file = out / f"alone-{name}.json"
    if not (small / "config.json").is_file():
        started = time.perf_counter()
        result = train_treebanks([treebank for treebank in training if treebank.name == name], options)
        result.parser.save(folder, history=[vars(r) for r in result.history], best_iteration=result.best_iteration)
        record = {"seconds": round(time.perf_counter() - started, 1), "best_epoch": result.best_iteration,
                  "curve": [r.dev_las for r in result.history]}
        record_file.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        subprocess.run([sys.executable, "-m", "hetdep", "compact", str(folder), "--output", str(small)], check=True)
    return NeuralParser.load(small), json.loads(record_file.read_text(encoding="utf-8"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--recipe", default="fr", choices=[n for n, r in ALL_RECIPES.items() if isinstance(r, TreebanksRecipe)])
    parser.add_argument("--model", help="the model of several treebanks (default: the shipped one of the recipe's name)")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--vectors", type=Path, help="folder of the recipe's vectors file")
    parser.add_argument("--treebank", action="append", help="only these of the recipe's treebanks (default: all)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not args.model and args.recipe not in RECIPES:
        sys.exit(f"bench/treebanks_alone.py: {args.recipe} is a recipe under trial, with no shipped model: give --model")
    recipe = ALL_RECIPES[args.recipe]
    model = Path(args.model) if args.model else shipped_model_path(args.recipe)
    together = NeuralParser.load(model)
    args.out.mkdir(parents=True, exist_ok=True)
    embeddings = vectors_file(recipe, args.vectors) if recipe.vectors else None
    _, options = variant_options(recipe, "recipe", args.threads, embeddings)
    training, testing = treebanks(recipe, args.out, "dev"), treebanks(recipe, args.out, "test")
    rows, compared, record = [], [], {}
    for test in testing:
        if args.treebank and test.name not in args.treebank:
            continue
        single, trained = alone(test.name, training, options, args.out, args.threads)
        parsed = {"alone": list(single.parse(test.dev[0])), "together": list(together.for_treebank(test.name).parse(test.dev[0]))}
        for k, scheme in enumerate(test.schemes):
            label = f"{test.name} {scheme}"
            scores = {side: evaluate(test.dev[k], [trees[k] if isinstance(trees, tuple) else trees for trees in found])
                      for side, found in parsed.items()}
            compared.append((label, scores["together"], scores["alone"]))
            rows.append(f"| {label} | {len(training[[t.name for t in training].index(test.name)].train[0])} "
                        f"| {scores['alone'].uas:.2f} / {scores['alone'].las:.2f} "
                        f"| {scores['together'].uas:.2f} / {scores['together'].las:.2f} |")
            record[label] = {side: {"UAS": round(s.uas, 2), "LAS": round(s.las, 2)} for side, s in scores.items()}
        record[f"{test.name} training"] = trained
    table, significance = significance_table(compared, system="together", against="alone")
    named = f"`{args.model}`" if args.model else f"The shipped `{args.recipe}` model"
    lines = [f"# {named} against each of its treebanks alone", "",
             f"`python bench/treebanks_alone.py --out {args.out}" + (f" --vectors {args.vectors}" if args.vectors else "")
             + f" --recipe {args.recipe}"
             + (f" --model {args.model}" if args.model else "") + "".join(f" --treebank {name}" for name in args.treebank or ())
             + f" --threads {args.threads}`; alone: the recipe's "
             f"network options ({json.dumps({k: v for k, v in dataclasses.asdict(options).items() if k in ('epochs', 'final_epochs', 'patience', 'seed')})}), "
             "8-bit. Test sets from gold tokens, the network's own tags, punctuation excluded.", "",
             "| test set, scheme | training sentences | alone UAS / LAS | together UAS / LAS |", "|---|---|---|---|",
             *rows, "", *table]
    (args.out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (args.out / "scores.json").write_text(json.dumps({"scores": record, "significance": significance}, indent=1) + "\n",
                                          encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
