"""Parsing from raw text, end to end: accuracy as the CoNLL 2018 shared task scored it, and speed.

The raw text is a test set's sentences (their ``# text``) joined by single spaces, with a blank line
where the treebank marks a new paragraph or document, as the shared task's text files were; the model's own tokenizer, tagger and parser take it from there (``hetdep parse
--input raw.txt``, timed as a whole process, start-up included). The output is scored against the
gold file with ``hetdep eval --conll18``: every metric of the shared task, as F1.
The tokenizer's speed alone is measured in process, on the same text.

    python bench/raw_text.py --model MODEL --gold test.ud.conllu [--gold-b test.sud.conllu] [--threads 2] [--treebank NAME]
        [--precision int8|float32 | --compare-precisions ROUNDS | --against OTHER_MODEL --rounds ROUNDS]

A joint model needs --gold-b (scheme b's gold) and writes both schemes' trees; a model of several
treebanks parses as --treebank (default: its first). ``--compare-precisions`` parses in int8 and in
float32 in turns (issue 91): both figures, and how many sentences' trees or tags differ.
``--against`` parses with another model in turns with --model (issue 90: a model with a graph head
against the same recipe's without): both figures and --model's speed as a share of the other's.
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
from hetdep.neural.int8 import PRECISIONS
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
    parser.add_argument("--precision", choices=PRECISIONS, help="a neural model's arithmetic (default: the model's own)")
    parser.add_argument("--compare-precisions", type=int, metavar="ROUNDS", default=0,
                        help="parse in int8 and in float32 in turns, ROUNDS times each: both figures (words/s the best "
                             "round's), and the sentences whose trees or tags differ between them")
    parser.add_argument("--against", metavar="MODEL",
                        help="parse with this model too, in turns with --model: both figures (words/s the best round's) "
                             "and --model's speed as a share of this one's")
    parser.add_argument("--rounds", type=int, default=3, help="with --against: parses of each model  [default: 3]")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    if args.against and (args.compare_precisions or args.against == args.model):
        parser.error("--against: another model than --model's, and not with --compare-precisions")

    text = document_text(read_conllu(args.gold))
    # Each run's name (a precision, or a model's path), its model and precision.
    variants = ([(precision, args.model, precision) for precision in PRECISIONS] if args.compare_precisions else
                [(model, model, args.precision) for model in (args.model, args.against)] if args.against else
                [(args.precision, args.model, args.precision)])
    rounds = args.compare_precisions or (args.rounds if args.against else 1)
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.txt"
        raw.write_text(text + "\n", encoding="utf-8")
        timed: dict = {name: [] for name, _, _ in variants}
        for _ in range(rounds):
            for k, (name, model, precision) in enumerate(variants):
                timed[name].append(_parse(args, model, raw, Path(tmp) / str(k), precision))
        runs = {name: (outputs, min(seconds for _, seconds, _ in found), said)
                for name, found in timed.items() for outputs, _, said in found[-1:]}
        figures = {name: _figures(args, model, text, *runs[name]) for name, model, _ in variants}
        if args.compare_precisions:
            int8, float32 = (runs[precision][0] for precision in PRECISIONS)
            figures["differing_sentences"] = {Path(gold).name: _differing(a, b)
                                              for gold, a, b in zip([args.gold, args.gold_b], int8, float32)}
    tokenizer = load_tokenizer(find_model(args.model))  # a path or a name (fr, en)
    runs_done, started = 0, time.perf_counter()
    while runs_done < 3 or time.perf_counter() - started < 2.0:
        tokenizer.tokenize(text)
        runs_done += 1
    characters_per_second = round(runs_done * len(text) / (time.perf_counter() - started))
    print(f"{args.model}: {len(text):,} characters; tokenizer alone {characters_per_second:,} characters/s; "
          f"NumPy's BLAS: {blas_kernels()}")
    for name, _, precision in variants:
        _show(figures[name], precision)
        figures[name]["tokenizer_characters_per_second"] = characters_per_second
    if args.against:
        share = figures[args.model]["words_per_second"] / figures[args.against]["words_per_second"]
        figures["speed_share"] = round(share, 3)
        print(f"{args.model}: {share:.3f}x the words/s of {args.against} (best of {rounds} rounds each, in turns)")
    if args.compare_precisions:
        for name, (count, total) in figures["differing_sentences"].items():
            print(f"{name}: {count} of {total} sentences differ between int8 and float32 (a head, a label, a tag or a lemma)")
    if args.json:
        written = figures if args.compare_precisions or args.against else figures[args.precision]
        Path(args.json).write_text(json.dumps(written, indent=1), encoding="utf-8")


def _parse(args, model: str, raw: Path, folder: Path, precision: str | None) -> tuple[list[Path], float, str]:
    """The model's output files for the raw text, the whole process's seconds, what it said."""
    folder.mkdir(exist_ok=True)
    outputs = [folder / "a.conllu"] + ([folder / "b.conllu"] if args.gold_b else [])
    named = [_named(gold, output) for gold, output in zip([args.gold, args.gold_b], outputs)]
    command = [sys.executable, "-m", "hetdep", "parse", "--model", model, "--input", str(raw),
               "--output", named[0]] + (["--output-b", named[1]] if args.gold_b else [])
    command += ["--beam", str(args.beam)] if args.beam else []
    command += ["--threads", str(args.threads)] if args.threads else []
    command += ["--treebank", args.treebank] if args.treebank else []
    command += ["--precision", precision] if precision else []
    started = time.perf_counter()
    said = subprocess.run(command, check=True, stderr=subprocess.PIPE, text=True).stderr
    return outputs, time.perf_counter() - started, said


def _figures(args, model: str, text: str, outputs: list[Path], seconds: float, said: str) -> dict:
    chosen = next((line for line in said.splitlines() if line.startswith("parsing as ")), "")
    words = sum(len(s) for s in read_conllu(outputs[0]))
    figures = {"model": model, "characters": len(text), "words": words, "seconds": round(seconds, 2),
               "words_per_second": round(words / seconds), "schemes": {},
               **({"treebank": chosen.split()[2].rstrip(",")} if chosen else {})}
    for gold, output in zip([args.gold, args.gold_b], outputs):
        scores = evaluate_conll18(gold, output)
        figures["schemes"][Path(gold).name] = {name: round(score.f1, 2) for name, score in scores.items()}
    return figures


def _show(figures: dict, precision: str | None) -> None:
    print(f"{figures['model']}{f' in {precision}' if precision else ''}: {figures['words']:,} words parsed from raw "
          f"text in {figures['seconds']:.1f} s (whole process): {figures['words_per_second']:,} words/s"
          + (f"; parsed as {figures['treebank']} (--treebank auto)" if "treebank" in figures else ""))
    shown = METRICS + tuple(m for m in ENHANCED_METRICS if any(m in scores for scores in figures["schemes"].values()))
    print(f"{'gold':<20}" + "".join(f"{m:>10}" for m in shown))
    for name, scores in figures["schemes"].items():
        print(f"{name:<20}" + "".join(f"{scores[m]:>10.2f}" if m in scores else f"{'':>10}" for m in shown))


def _differing(a: Path, b: Path) -> tuple[int, int]:
    """How many sentences of two parses of the same text differ in any column (a head, a label, a
    tag, a lemma), of how many."""
    first, second = list(read_conllu(a)), list(read_conllu(b))
    assert len(first) == len(second), "the two precisions' tokenizers split the text alike"
    return sum(x.rows != y.rows for x, y in zip(first, second)), len(first)


def _named(gold: str | None, output: Path) -> str:
    """The output for a gold file named by its scheme (test.ud.conllu: ud=OUTPUT), so the parse
    compared with it is that scheme's whatever the model's order; else the plain file."""
    parts = Path(gold).name.split(".") if gold else []
    return f"{parts[-2]}={output}" if len(parts) >= 3 and parts[-1] == "conllu" and parts[-2].isalpha() else str(output)


if __name__ == "__main__":
    main()
