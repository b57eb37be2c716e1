"""UDPipe 1 against hetdep from raw text in one run: words/s of both, whole process, in turns.

Issue 58's speed target is UDPipe 1's (a C++ pipeline: tokenizer, tagger, transition parser), so it
is measured here on the same text and machine, each run a fresh process, the two taking turns
(this machine's speed varies by a factor of two from day to day). UDPipe 1 is trained on the
treebank's training file with its default options (``ufal.udpipe``, ``pip install 'hetdep[bench]'``,
never a dependency of hetdep itself); the trained model is kept in ``--out`` and reused (its training:
16 minutes on fr-sequoia).

    python bench/udpipe1_speed.py --train ../shared/data/fr-sequoia/train.ud.conllu \
        --dev ../shared/data/fr-sequoia/dev.ud.conllu --gold ../shared/data/fr-sequoia/test.ud.conllu \
        --out OUT [--model fr] [--threads 2] [--rounds 3] [--precisions int8 float32]

``--precisions`` times hetdep in each arithmetic of a neural model (``hetdep parse --precision``),
all in turns with UDPipe 1 in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hetdep.evaluation.conll18 import evaluate_conll18
from hetdep.threads import blas_kernels
from hetdep.tokenizer.text import document_text
from hetdep.treebank.conllu import read_conllu

UDPIPE1_RUN = """
import sys, ufal.udpipe as u
model = u.Model.load(sys.argv[1])
pipeline = u.Pipeline(model, "tokenize", u.Pipeline.DEFAULT, u.Pipeline.DEFAULT, "conllu")
error = u.ProcessingError()
out = pipeline.process(open(sys.argv[2], encoding="utf-8").read(), error)
if error.occurred():
    sys.exit(error.message)
open(sys.argv[3], "w", encoding="utf-8").write(out)
"""


def train_udpipe1(train: Path, dev: Path, model_path: Path) -> None:
    """UDPipe 1's default tokenizer, tagger and parser, as ``udpipe --train`` makes them."""
    from ufal import udpipe

    def sentences(path: Path):
        reader = udpipe.InputFormat.newConlluInputFormat()
        reader.setText(path.read_text(encoding="utf-8"))
        found, sentence, error = [], udpipe.Sentence(), udpipe.ProcessingError()
        while reader.nextSentence(sentence, error):
            found.append(sentence)
            sentence = udpipe.Sentence()
        if error.occurred():
            sys.exit(f"{path}: {error.message}")
        return found

    error = udpipe.ProcessingError()
    trained = udpipe.Trainer.train("morphodita_parsito", sentences(train), sentences(dev), udpipe.Trainer.DEFAULT,
                                   udpipe.Trainer.DEFAULT, udpipe.Trainer.DEFAULT, error)
    if error.occurred():
        sys.exit(f"UDPipe 1 training failed: {error.message}")
    model_path.write_bytes(trained.encode("latin-1") if isinstance(trained, str) else trained)


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", type=Path, required=True, help="UDPipe 1's training file (CoNLL-U)")
    parser.add_argument("--dev", type=Path, required=True, help="UDPipe 1's held-out file")
    parser.add_argument("--gold", type=Path, required=True, help="the test file whose # text is parsed and scored")
    parser.add_argument("--out", type=Path, required=True, help="folder for UDPipe 1's model and the outputs")
    parser.add_argument("--model", default="fr", help="hetdep's model (default: the shipped fr)")
    parser.add_argument("--gold-is", choices=["a", "b"], default="b",
                        help="which of hetdep's two trees is in --gold's scheme (b: UD for the shipped fr)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--precisions", nargs="+", choices=["int8", "float32"], default=[],
                        help="time hetdep in each of these (default: the model's own, once a round)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    model_path = args.out / "udpipe1.model"
    if not model_path.exists():
        start = time.perf_counter()
        train_udpipe1(args.train, args.dev, model_path)
        print(f"UDPipe 1 trained in {time.perf_counter() - start:.0f} s: {model_path}")
    gold = list(read_conllu(args.gold))
    words = sum(len(sentence) for sentence in gold)
    with tempfile.TemporaryDirectory() as work:
        raw = Path(work) / "raw.txt"
        raw.write_text(document_text(gold), encoding="utf-8")
        theirs = args.out / "udpipe1.conllu"
        ours, commands = {}, {}
        for precision in args.precisions or [None]:  # hetdep makes both trees of each sentence, as issue 58's target counts it
            name = f"hetdep {precision}" if precision else "hetdep"
            ours[name] = {scheme: args.out / f"{name.replace(' ', '.')}.{scheme}.conllu" for scheme in "ab"}
            commands[name] = ["hetdep", "parse", "--model", args.model, "--input", str(raw), "--output", str(ours[name]["a"]),
                              "--output-b", str(ours[name]["b"]), "--threads", str(args.threads), "--quiet",
                              *(["--precision", precision] if precision else [])]
        commands["UDPipe 1"] = [sys.executable, "-c", UDPIPE1_RUN, str(model_path), str(raw), str(theirs)]
        seconds = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, command in commands.items():
                seconds[name].append(timed(command))
    for name, output in [*((name, files[args.gold_is]) for name, files in ours.items()), ("UDPipe 1", theirs)]:
        scores = evaluate_conll18(args.gold, output)
        rates = sorted(words / s for s in seconds[name])
        print(f"{name:15} {rates[0]:,.0f}-{rates[-1]:,.0f} words/s (median {statistics.median(rates):,.0f}), "
              f"LAS {scores['LAS'].f1:.2f} (against {args.gold.name})")
    for name in ours:
        ratio = statistics.median(seconds["UDPipe 1"]) / statistics.median(seconds[name])
        print(f"{name} / UDPipe 1: {ratio:.2f}x (medians of {args.rounds} rounds in turns, {words:,} words; "
              f"NumPy's BLAS: {blas_kernels()})")


if __name__ == "__main__":
    main()
