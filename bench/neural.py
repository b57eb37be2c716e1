"""The neural parser on a treebank pair: joint against separate models, from gold tokens and from raw text.

Trains (or reuses, when OUT/models/NAME holds one) three models with ``hetdep train --parser
neural``: the joint model of both schemes and one model per scheme; then, on the test set:

- gold tokens: UAS/LAS of every model on each scheme, UPOS accuracy, and the joint model against
  the separate one with ``hetdep compare``'s significance tests;
- raw text: the test sentences' ``# text`` as the shared task's text files had them through ``hetdep parse`` (tokenizer and
  network), scored as the CoNLL 2018 shared task did (``hetdep eval --conll18``), timed as a whole
  process on the machine's cores, with its peak memory;
- dev LAS by epoch (the learning curves) and training time, from each model's history.

    python bench/neural.py --treebank ../shared/data/fr-sequoia --schemes sud,ud --out runs/neural [--epochs 30]
        [--embeddings fr-vectors.txt]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hetdep.evaluation.attachment import evaluate
from hetdep.evaluation.conll18 import evaluate_conll18
from hetdep.tokenizer.text import document_text
from hetdep.treebank.conllu import read_conllu

HETDEP = [sys.executable, "-m", "hetdep"]


def train(treebank: Path, schemes: list[str], model: Path, epochs: int, embeddings: Path | None) -> None:
    if (model / "config.json").exists():
        return
    files = ["--train", treebank / f"train.{schemes[0]}.conllu", "--dev", treebank / f"dev.{schemes[0]}.conllu"]
    if len(schemes) == 2:
        files += ["--train-b", treebank / f"train.{schemes[1]}.conllu", "--dev-b", treebank / f"dev.{schemes[1]}.conllu"]
    subprocess.run(HETDEP + ["train", "--parser", "neural", *map(str, files), "--model", str(model), "--iterations",
                             str(epochs)] + (["--embeddings", str(embeddings)] if embeddings else []), check=True)


def parse(model: Path, source: Path, outputs: list[Path], input_format: str) -> tuple[float, int]:
    """Seconds of a whole ``hetdep parse`` process and its peak memory (kB)."""
    command = HETDEP + ["parse", "--model", str(model), "--input", str(source), "--format", input_format,
                        "--output", str(outputs[0])] + (["--output-b", str(outputs[1])] if len(outputs) > 1 else [])
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebank", required=True, type=Path)
    parser.add_argument("--schemes", default="sud,ud")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--embeddings", type=Path, help="pretrained vectors every model reads (bench/vectors_from_spacy.py)")
    args = parser.parse_args()
    schemes = args.schemes.split(",")
    models = {"joint": schemes} if len(schemes) == 2 else {}
    models.update({scheme: [scheme] for scheme in schemes})
    figures: dict = {"treebank": str(args.treebank), "models": {}}
    for name, trained in models.items():
        model = args.out / "models" / name
        train(args.treebank, trained, model, args.epochs, args.embeddings)
        config = json.loads((model / "config.json").read_text(encoding="utf-8"))
        history = config["history"]
        figures["models"][name] = {"best_epoch": config["best_iteration"], "epochs": len(history),
                                   "training_seconds": round(sum(h["seconds"] for h in history)),
                                   "dev_las_by_epoch": [h["dev_las"] for h in history]}
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        gold = {scheme: args.treebank / f"test.{scheme}.conllu" for scheme in schemes}
        raw = tmp / "raw.txt"
        raw.write_text(document_text(read_conllu(gold[schemes[0]])) + "\n",
                       encoding="utf-8")
        predictions: dict = {}
        for name, trained in models.items():
            record = figures["models"][name]
            outputs = [tmp / f"{name}.{scheme}.gold-tokens.conllu" for scheme in trained]
            seconds, _ = parse(args.out / "models" / name, gold[trained[0]], outputs, "conllu")
            words = sum(len(s) for s in read_conllu(outputs[0]))
            record["gold_tokens"] = {"seconds": round(seconds, 2), "words_per_second": round(words / seconds)}
            for scheme, output in zip(trained, outputs):
                result = evaluate(list(read_conllu(gold[scheme])), list(read_conllu(output)))
                upos = evaluate_conll18(gold[scheme], output)["UPOS"].f1
                record["gold_tokens"][scheme] = {"UAS": round(result.uas, 2), "LAS": round(result.las, 2),
                                                 "UPOS": round(upos, 2)}
                predictions[(name, scheme)] = output
            raw_outputs = [tmp / f"{name}.{scheme}.raw.conllu" for scheme in trained]
            seconds, peak = parse(args.out / "models" / name, raw, raw_outputs, "raw")
            words = sum(len(s) for s in read_conllu(raw_outputs[0]))
            record["raw_text"] = {"seconds": round(seconds, 2), "words_per_second": round(words / seconds),
                                  "peak_memory_mb": round(peak / 1024)}
            for scheme, output in zip(trained, raw_outputs):
                scores = evaluate_conll18(gold[scheme], output)
                record["raw_text"][scheme] = {m: round(scores[m].f1, 2) for m in ("Tokens", "Sentences", "Words", "UPOS",
                                                                                  "UAS", "LAS")}
        if "joint" in models:
            figures["compare"] = {}
            for scheme in schemes:
                done = subprocess.run(HETDEP + ["compare", str(gold[scheme]), str(predictions[(scheme, scheme)]),
                                                str(predictions[("joint", scheme)])], capture_output=True, text=True)
                figures["compare"][scheme] = done.stdout.strip()
    print(json.dumps(figures, indent=1))
    (args.out / "neural.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
