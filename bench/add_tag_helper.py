"""Give a neural model trained before its pipeline learned tag helpers the helper `hetdep train`
now trains: a perceptron tagger of a column the network predicts, its weight fitted on dev
(hetdep.models.tag_mixing), written into a copy of the model (so one network is measured with and
without it, and a model need not be trained again to get it).

    hetdep train-tagger --train TRAIN --dev DEV --column upos --model TAGGER
    python bench/add_tag_helper.py --model MODEL --tagger TAGGER/upos --dev DEV --out NEW_MODEL
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from hetdep.learn.model_files import write_config
from hetdep.models.tag_mixing import fit_weight
from hetdep.neural.parser import NeuralParser
from hetdep.tagger.tagger import Tagger
from hetdep.treebank.conllu import read_conllu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--tagger", required=True, type=Path, help="a tagger of a column the network predicts")
    parser.add_argument("--dev", required=True, help="dev file (gold tokens) the weight is fitted on")
    parser.add_argument("--out", required=True, type=Path, help="the new model's folder (must not exist)")
    args = parser.parse_args()
    network, tagger = NeuralParser.load(args.model), Tagger.load(args.tagger)
    weight, accuracy = fit_weight(network, tagger, list(read_conllu(args.dev)))
    print(f"{tagger.column}: weight {weight:g}; dev accuracy by weight: {json.dumps(accuracy)}")
    shutil.copytree(args.model, args.out)
    if weight:
        shutil.copytree(args.tagger, args.out / "tagger" / tagger.column)
    config = json.loads((args.out / "config.json").read_text(encoding="utf-8"))
    pipeline = config.get("pipeline") or {}
    config["pipeline"] = {**pipeline, "tag_weights": {**pipeline.get("tag_weights", {}), tagger.column: weight}}
    write_config(args.out, config)


if __name__ == "__main__":
    main()
