"""The neural phrase-structure parser on the WSJ sample (issue 59): test F1 without gold tags, and
with ``--dependency`` both trees from one network against each trained alone.

    python bench/neural_constituency.py --out OUT [--variants phrases joint dependency] [--seeds 1 2 3] [--embeddings FILE]
        [--encoder FOLDER [--fine-tune]] [--epochs N] [--final-epochs N]

Splits as ``hetdep experiment constituency`` (train wsj_0001-0159, dev 0160-0179, test 0180-0199),
written as bracketed trees and their Penn2Malt conversion. Each variant and seed is
trained with ``hetdep train`` (kept in OUT and reused by a rerun, an interrupted one resumed), then parses the test words
alone (``--format tokenized``: no gold tags) with ``hetdep parse``, scored by ``hetdep eval
--const`` (EVALB, COLLINS.prm) and ``hetdep eval`` (UAS/LAS, punctuation excluded, against the
converted test trees). Variants:

- ``phrases``: ``--parser constituency-neural``;
- ``joint``: the same with ``--dependency penn2malt``: phrase structure and dependencies;
- ``dependency``: ``--parser neural`` on the Penn2Malt conversion alone;
- ``joint-ewt``: ``joint`` with en-ewt's UD treebank (train and dev, beside ``--data`` in
  ../shared/data) learned beside by the same encoder (``--treebank ewt ud``): other sentences,
  other guidelines, more words; ``--ewt-sentences N``: the first N of its training sentences
  (and of its dev ones a tenth as many), for an epoch of less than its 204,577 words.

``--embeddings FILE`` trains with those pretrained vectors instead of the default (the shipped
English model's); its models are named after the file (``phrases-glove-6b-50d-seed1``).
``--encoder FOLDER`` trains each variant on that pretrained transformer too (``hetdep train
--encoder``; bench/encoder_check.py extracts all-MiniLM-L6-v2), its models named after the folder
(``joint-all-MiniLM-L6-v2-seed1``); with ``--fine-tune`` the transformer is trained too (``hetdep
train --fine-tune``; ``joint-all-MiniLM-L6-v2-tuned-seed1``).

Prints each model's dev score, test F1 / UAS / LAS, tagging accuracy, training minutes and the
whole process's words/s for the test split, then per variant the mean and range over the seeds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from hetdep.convert.headrules import load_table, tree_sentence
from hetdep.experiments.constituency import wsj_splits
from hetdep.learn.checkpoint import STATE
from hetdep.learn.model_files import read_config
from hetdep.treebank.conllu import write_conllu

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "en-wsj-sample"
VARIANTS = {"phrases": ["--parser", "constituency-neural"],
            "joint": ["--parser", "constituency-neural", "--dependency", "penn2malt"],
            "dependency": ["--parser", "neural", "--no-tokenizer"]}
VARIANTS["joint-ewt"] = [*VARIANTS["joint"], "--treebank", "ewt", "ud", "{ewt}/train.ud.conllu", "{ewt}/dev.ud.conllu"]


def hetdep(*arguments: str) -> str:
    done = subprocess.run([sys.executable, "-m", "hetdep", *arguments], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"hetdep {' '.join(arguments)} failed:\n{done.stderr}")
    return done.stdout


def write_splits(data: Path, folder: Path) -> dict[str, int]:
    """Each split's trees (.mrg), their Penn2Malt conversion (.conllu) and words (.txt); word counts."""
    table = load_table("penn2malt")
    words = {}
    for name, items in wsj_splits(data).items():
        # as read (function tags, empty elements): Penn2Malt's labels come partly from function tags (SBJ, PRD)
        (folder / f"{name}.mrg").write_text("".join(f"( {item.tree.root.to_text()} )\n" for item in items), encoding="utf-8")
        sentences = [tree_sentence(item.root, table, [], item.tree.path, item.tree.line) for item in items]
        write_conllu(sentences, folder / f"{name}.conllu")
        (folder / f"{name}.txt").write_text("".join(" ".join(s.forms) + "\n" for s in sentences), encoding="utf-8")
        words[name] = sum(len(s) for s in sentences)
    return words


def ewt_part(data: Path, out: Path, sentences: int | None) -> Path:
    """The folder of en-ewt's UD train and dev files the joint-ewt variant reads: all of them, or the
    first ``sentences`` training sentences and a tenth as many dev ones, written under ``out``."""
    if not sentences:
        return data
    folder = out / f"ewt-{sentences}"
    folder.mkdir(exist_ok=True)
    for split, count in (("train", sentences), ("dev", max(1, sentences // 10))):
        blocks = [b for b in (data / f"{split}.ud.conllu").read_text(encoding="utf-8").split("\n\n") if b.strip()]
        (folder / f"{split}.ud.conllu").write_text("\n\n".join(blocks[:count]) + "\n\n", encoding="utf-8")
    return folder


def trained(out: Path, variant: str, seed: int, epochs: int | None, threads: int | None,
            embeddings: Path | None = None, ewt: Path | None = None, encoder: Path | None = None,
            final_epochs: int | None = None, fine_tune: bool = False) -> Path:
    name = variant + (ewt.name.removeprefix("ewt") if variant == "joint-ewt" and ewt and ewt.parent == out else "")
    name += "".join(f"-{part}" for part in (embeddings.stem if embeddings else "", encoder.name if encoder else "",
                                            "tuned" if fine_tune else "") if part)
    model = out / f"{name}-seed{seed}"
    if (model / STATE / "run.json").is_file():  # an interrupted training: it goes on where it stopped
        hetdep("train", "--resume", str(model))
        return model
    if (model / "config.json").is_file():
        return model
    suffix = "conllu" if variant == "dependency" else "mrg"
    hetdep("train", *(option.format(ewt=ewt) for option in VARIANTS[variant]), "--train", str(out / f"train.{suffix}"), "--dev", str(out / f"dev.{suffix}"),
           "--model", str(model), "--seed", str(seed), *(["--iterations", str(epochs)] if epochs else []),
           *(["--final-epochs", str(final_epochs)] if final_epochs is not None else []),
           *(["--threads", str(threads)] if threads else []), *(["--embeddings", str(embeddings)] if embeddings else []),
           *(["--encoder", str(encoder)] if encoder else []), *(["--fine-tune"] if fine_tune else []))
    return model


def scored(out: Path, model: Path, variant: str, words: int) -> dict:
    """The model's test scores and whole-process speed."""
    tree_out, deps_out = model / "test.out.mrg", model / "test.out.conllu"
    both = ["--output", str(tree_out), "--output-b", str(deps_out)]
    outputs = {"phrases": ["--output", str(tree_out)], "joint": both, "joint-ewt": both,
               "dependency": ["--output", str(deps_out)]}[variant]
    started = time.perf_counter()
    hetdep("parse", "--model", str(model), "--input", str(out / "test.txt"), "--format", "tokenized", *outputs)
    seconds = time.perf_counter() - started
    config = read_config(model)
    history = config.get("history") or []
    found = {"words/s": round(words / seconds), "minutes": round(sum(r.get("seconds", 0) for r in history) / 60, 1),
             "best epoch": config.get("best_iteration"),
             "dev": history[config["best_iteration"] - 1].get("dev_detail") if history else None}
    if variant != "dependency":
        brackets = json.loads(hetdep("eval", "--const", "--json", str(out / "test.mrg"), str(tree_out)))
        found.update(F1=brackets["F1"], tags=brackets["tagging_accuracy"])
    if variant != "phrases":
        attachment = json.loads(hetdep("eval", "--json", str(out / "test.conllu"), str(deps_out)))
        found.update(UAS=round(attachment["UAS"], 2), LAS=round(attachment["LAS"], 2))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DEFAULT)
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[1])
    parser.add_argument("--epochs", type=int, default=None, help="hetdep train --iterations (default: its own)")
    parser.add_argument("--threads", type=int, default=None, help="hetdep train --threads (default: its own, every core)")
    parser.add_argument("--ewt-sentences", type=int, default=None, help="joint-ewt: the first N of en-ewt's training sentences")
    parser.add_argument("--embeddings", type=Path, default=None,
                        help="hetdep train --embeddings (default: its own, the shipped English model's vectors)")
    parser.add_argument("--encoder", type=Path, default=None, help="hetdep train --encoder: a pretrained transformer's folder")
    parser.add_argument("--final-epochs", type=int, default=None, help="hetdep train --final-epochs (default: its own)")
    parser.add_argument("--fine-tune", action="store_true", help="hetdep train --fine-tune: the --encoder trained too")
    args = parser.parse_args()
    if args.fine_tune and not args.encoder:
        parser.error("--fine-tune trains the transformer of --encoder: give --encoder")
    args.out.mkdir(parents=True, exist_ok=True)
    words = write_splits(args.data, args.out)
    results: dict[str, list[dict]] = {}
    ewt = ewt_part(args.data.parent / "en-ewt", args.out, args.ewt_sentences)
    for variant in args.variants:
        for seed in args.seeds:
            model = trained(args.out, variant, seed, args.epochs, args.threads, args.embeddings, ewt, args.encoder,
                            args.final_epochs, args.fine_tune)
            found = scored(args.out, model, variant, words["test"])
            results.setdefault(variant, []).append(found)
            print(json.dumps({"variant": variant, "seed": seed, **found}), flush=True)
    for variant, rows in results.items():
        for metric in ("F1", "UAS", "LAS", "tags"):
            values = [row[metric] for row in rows if metric in row]
            if values:
                print(f"{variant} test {metric}: mean {statistics.mean(values):.2f} over {len(values)} seeds "
                      f"({min(values):.2f}-{max(values):.2f})")


if __name__ == "__main__":
    main()
