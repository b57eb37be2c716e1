"""Parsing from raw text, end to end: accuracy as the CoNLL 2018 shared task scored it, and speed.

The raw text is a test set's sentences (their ``# text``) joined by single spaces, with a blank line
where the treebank marks a new paragraph or document, as the shared task's text files were; the model's own tokenizer, tagger and parser take it from there (``hetdep parse
--input raw.txt``, timed as a whole process, start-up included). The output is scored against the
gold file with ``hetdep eval --conll18``: every metric of the shared task, as F1.
The tokenizer's speed alone is measured in process, on the same text.

    python bench/raw_text.py --model MODEL --gold test.ud.conllu [--gold-b test.sud.conllu] [--threads 2] [--treebank NAME]

A joint model needs --gold-b (scheme b's gold) and writes both schemes' trees; a model of several
treebanks parses as --treebank (default: its first).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hetdep.evaluation.conll18 import ENHANCED_METRICS, METRICS, evaluate_conll18
from hetdep.models.names import find_model
from hetdep.models.parsing import load_tokenizer
from hetdep.threads import blas_kernels
from hetdep.tokenizer.text import document_text
from hetdep.treebank.conllu import read_conllu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--gold", required=True, help="gold test file (scheme a of a joint model)")
    parser.add_argument("--gold-b", help="a joint model: the same test sentences in scheme b")
    parser.add_argument("--beam", type=int, help="parsing beam (default: the model's)")
    parser.add_argument("--threads", type=int, help="parse with this many threads (default: the command's, one)")
    parser.add_argument("--treebank", help="a model of several treebanks: parse as this one")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    text = document_text(read_conllu(args.gold))
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.txt"
        raw.write_text(text + "\n", encoding="utf-8")
        outputs = [Path(tmp) / "a.conllu"] + ([Path(tmp) / "b.conllu"] if args.gold_b else [])
        named = [_named(gold, output) for gold, output in zip([args.gold, args.gold_b], outputs)]
        command = [sys.executable, "-m", "hetdep", "parse", "--model", args.model, "--input", str(raw),
                   "--output", named[0]] + (["--output-b", named[1]] if args.gold_b else [])
        command += ["--beam", str(args.beam)] if args.beam else []
        command += ["--threads", str(args.threads)] if args.threads else []
        command += ["--treebank", args.treebank] if args.treebank else []
        started = time.perf_counter()
        said = subprocess.run(command, check=True, stderr=subprocess.PIPE, text=True).stderr
        seconds = time.perf_counter() - started
        chosen = next((line for line in said.splitlines() if line.startswith("parsing as ")), "")
        words = sum(len(s) for s in read_conllu(outputs[0]))
        figures = {"model": args.model, "characters": len(text), "words": words, "seconds": round(seconds, 2),
                   "words_per_second": round(words / seconds), "schemes": {},
                   **({"treebank": chosen.split()[2].rstrip(",")} if chosen else {})}
        for gold, output in zip([args.gold, args.gold_b], outputs):
            scores = evaluate_conll18(gold, output)
            figures["schemes"][Path(gold).name] = {name: round(score.f1, 2) for name, score in scores.items()}

    tokenizer = load_tokenizer(find_model(args.model))  # a path or a name (fr, en)
    runs, started = 0, time.perf_counter()
    while runs < 3 or time.perf_counter() - started < 2.0:
        tokenizer.tokenize(text)
        runs += 1
    figures["tokenizer_characters_per_second"] = round(runs * len(text) / (time.perf_counter() - started))

    print(f"{args.model}: {len(text):,} characters, {words:,} words parsed from raw text in {seconds:.1f} s "
          f"(whole process): {figures['words_per_second']:,} words/s; tokenizer alone "
          f"{figures['tokenizer_characters_per_second']:,} characters/s; NumPy's BLAS: {blas_kernels()}"
          + (f"; parsed as {figures['treebank']} (--treebank auto)" if "treebank" in figures else ""))
    shown = METRICS + tuple(m for m in ENHANCED_METRICS if any(m in scores for scores in figures["schemes"].values()))
    print(f"{'gold':<20}" + "".join(f"{m:>10}" for m in shown))
    for name, scores in figures["schemes"].items():
        print(f"{name:<20}" + "".join(f"{scores[m]:>10.2f}" if m in scores else f"{'':>10}" for m in shown))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1), encoding="utf-8")


def _named(gold: str | None, output: Path) -> str:
    """The output for a gold file named by its scheme (test.ud.conllu: ud=OUTPUT), so the parse
    compared with it is that scheme's whatever the model's order; else the plain file."""
    parts = Path(gold).name.split(".") if gold else []
    return f"{parts[-2]}={output}" if len(parts) >= 3 and parts[-1] == "conllu" and parts[-2].isalpha() else str(output)


if __name__ == "__main__":
    main()
