"""Interrupts at random moments: SIGINT and SIGTERM sent to `hetdep parse` and to every stage of
`hetdep train` (tokenizer, tagger, jackknifing, parser; the perceptron pipeline and the neural
one), each run checked for a clean end.

Each command is first run once whole to learn how long it takes; then each trial starts one
command, waits a random time within that span, sends SIGINT or SIGTERM, and checks: exit status
130 within 10 seconds of the signal, no traceback (nor ctypes' "Exception ignored", printed when a
signal lands in numba's compiler), the last line of standard error saying it was interrupted and
no other line saying so, no output file of `parse` unless it was put in place whole before the
signal came, no temporary file left, and a model directory of `train` either absent or whole (it
loads: an interrupt in the parser stage keeps the best finished iteration) or holding the state of
the interrupted training, which `train --resume` must take to the very model an uninterrupted run
gives, in the folder given to it: half the resumed trainings go on from a copy of the interrupted
folder or from the folder moved elsewhere (the copy's original must stay as it was, the moved
folder's old place empty). Half the trials start with an empty numba cache, so that signals land
while it compiles. The stage the signal reached is read off the progress lines. The trainings:
the perceptron pipeline, the neural one, and a neural one of several treebanks (the sample as a
SUD + UD pair and a UD treebank of other sentences, each with its own FEATS tagger).

    python bench/interrupts.py [--trials 50] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import hetdep

SAMPLES = Path(hetdep.__file__).parent / "samples" / "fr-sequoia"
TEXT = Path(hetdep.__file__).parent / "samples" / "text" / "fr-paragraph.txt"
HETDEP = [sys.executable, "-m", "hetdep"]
STAGES = ("tokenizer", "tagger", "jackknifing", "parser")
ENDS_WITHIN = 10.0  # seconds from the signal to the end of the command
KINDS = {"perceptron": ["--beam", "4", "--iterations", "3", "--folds", "3"],  # the trained kinds' options
         "neural": ["--parser", "neural", "--iterations", "2", "--final-epochs", "1", "--threads", "1"],
         "treebanks": ["--parser", "neural", "--iterations", "2", "--final-epochs", "1", "--threads", "1"]}
PAIR = ("--train", "train.sud", "--train-b", "train.ud", "--dev", "dev.sud", "--dev-b", "dev.ud")


def train_command(model: Path, kind: str, work: Path) -> list[str]:
    """The training of ``kind``; a model of several treebanks reads the other treebank's files from ``work``."""
    if kind == "treebanks":
        files = [*_treebank("seq", "sud", SAMPLES / "train.sud.conllu", SAMPLES / "dev.sud.conllu"),
                 *_treebank("seq", "ud", SAMPLES / "train.ud.conllu", SAMPLES / "dev.ud.conllu"),
                 *_treebank("other", "ud", work / "other-train.ud.conllu", work / "other-dev.ud.conllu")]
    else:
        files = [str(SAMPLES / f"{item}.conllu") if item.startswith(("train", "dev")) else item for item in PAIR]
    return HETDEP + ["train", *files, "--model", str(model), *KINDS[kind]]


def _treebank(name: str, scheme: str, train: Path, dev: Path) -> list[str]:
    return ["--treebank", name, scheme, str(train), str(dev)]


def other_treebank(work: Path) -> None:
    """The other treebank's files: sentences of the sample's dev file, 120 to train and 40 to tune on."""
    sentences = (SAMPLES / "dev.ud.conllu").read_text(encoding="utf-8").split("\n\n")
    (work / "other-train.ud.conllu").write_text("\n\n".join(sentences[:120]) + "\n\n", encoding="utf-8")
    (work / "other-dev.ud.conllu").write_text("\n\n".join(sentences[120:160]) + "\n\n", encoding="utf-8")


def model_parts(model: Path) -> list[Path]:
    """The weights of every part of a trained model, which a resumed training must give again byte for byte."""
    return sorted(path.relative_to(model) for path in model.rglob("weights.npz"))


def parse_command(model: Path, text: Path, folder: Path) -> list[str]:
    return HETDEP + ["parse", "--model", str(model), "--input", str(text), "--output", str(folder / "a.conllu"),
                     "--output-b", str(folder / "b.conllu"), "--beam", "64"]


def timed_run(command: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"calibration run failed: {' '.join(command)}\n{done.stderr[-2000:]}")
    return time.perf_counter() - started


def stage_reached(stderr: str) -> str:
    """The training stage a signal arrived in, from the progress lines ("[2/4] tagger (upos) ...")."""
    started = [stage for stage in STAGES if f"] {stage}" in stderr]
    return started[-1] if started else "start-up"


def trial(command: list[str], delay: float, signum: int, outputs: list[Path], expected: list[Path], model: Path | None,
          folder: Path, cold: bool, relocate: str = "") -> tuple[str, str]:
    """Run ``command``, send ``signum`` after ``delay`` seconds; (verdict, where the signal arrived).
    ``expected``: what ``outputs`` hold after an uninterrupted run (a training: that run's config.json, in its model);
    ``cold``: with an empty numba cache; ``relocate``: a kept training state resumed from a "copied" or
    "moved" folder."""
    env = dict(os.environ)
    if cold:
        (folder / "numba-cache").mkdir()
        env["NUMBA_CACHE_DIR"] = str(folder / "numba-cache")
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=folder, env=env)
    time.sleep(delay)
    if process.poll() is not None:
        process.communicate()
        return "finished before the signal", "after the end"
    process.send_signal(signum)
    signalled = time.perf_counter()
    try:
        stderr = process.communicate(timeout=120)[1].decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        process.kill()
        return "hang: still running 120 s after the signal", "?"
    took = time.perf_counter() - signalled
    shutil.rmtree(folder / "numba-cache", ignore_errors=True)
    where = stage_reached(stderr) if model is not None else "parse"
    where += " (cold cache)" if cold else ""
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    if "Traceback" in stderr or "Exception ignored" in stderr:
        return "traceback", where
    if process.returncode != 130:
        return f"exit {process.returncode}", where
    if not last.startswith("hetdep: interrupted") or stderr.count("hetdep: interrupted") > 1:
        return f"last line: {last[:80]}, {stderr.count('hetdep: interrupted')} lines saying so", where
    if took > ENDS_WITHIN:
        return f"ended {took:.1f} s after the signal", where
    if any(path.exists() for path in outputs):  # put in place before the signal came: then whole
        if [path.read_bytes() for path in outputs if path.exists()] != [whole.read_bytes() for whole in expected]:
            return "partial output", where
        where = "parse, outputs in place"
    if [p for p in folder.rglob("*.part")] + [p for p in folder.rglob(".hetdep-*")]:
        return "temporary file left", where
    if model is not None and model.exists():
        if (model / "config.json").exists() and subprocess.run(HETDEP + ["info", str(model)], capture_output=True).returncode:
            return "damaged model", where
        if (model / ".training-state" / "run.json").exists():  # resumed, it must give the uninterrupted run's model
            given, before = model, None
            if relocate:
                given = folder / f"{relocate}-model"
                if relocate == "copied":
                    shutil.copytree(model, given)
                    before = folder_contents(model)
                else:
                    model.rename(given)
                where += f", resumed {relocate}"
            resumed = subprocess.run(HETDEP + ["train", "--resume", str(given)], capture_output=True, text=True)
            if resumed.returncode != 0:
                return f"resume failed: {resumed.stderr.strip().splitlines()[-1][:80]}", where
            if folder_contents(model) != before if relocate == "copied" else relocate == "moved" and model.exists():
                return f"the resumed training wrote outside the folder given ({relocate})", where
            parts = model_parts(expected[0].parent)
            if model_parts(given) != parts or [(given / p).read_bytes() for p in parts] != [
                    (expected[0].parent / p).read_bytes() for p in parts]:
                return "resumed model differs from the uninterrupted one", where
            return "clean, resumed to the same model", where
    return "clean", where


def folder_contents(folder: Path) -> dict:
    return {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="hetdep-interrupts-"))
    try:
        other_treebank(work)
        models = {kind: work / f"model-{kind}" for kind in KINDS}
        train_seconds = {kind: timed_run(train_command(model, kind, work)) for kind, model in models.items()}
        text = work / "text.txt"
        text.write_text(TEXT.read_text(encoding="utf-8") * 300, encoding="utf-8")
        model = models["perceptron"]
        parse_seconds = timed_run(parse_command(model, text, work))
        print(f"whole runs: train {', '.join(f'{k} {v:.1f} s' for k, v in train_seconds.items())}, parse {parse_seconds:.1f} s "
              f"({len(text.read_text().split())} words)")
        verdicts: Counter = Counter()
        places: Counter = Counter()
        for number in range(args.trials):
            folder = work / f"trial-{number}"
            folder.mkdir()
            signum = rng.choice([signal.SIGINT, signal.SIGTERM])
            cold = number // 4 % 2 == 1  # half the trials of each command and kind with an empty numba cache
            if number % 2:
                outputs = [folder / "a.conllu", folder / "b.conllu"]
                verdict, where = trial(parse_command(model, text, folder), rng.uniform(0.05, 0.95 * parse_seconds), signum,
                                       outputs, [work / "a.conllu", work / "b.conllu"], None, folder, cold)
            else:
                kind = list(KINDS)[number // 2 % len(KINDS)]
                trained = folder / "model"
                relocate = ["", "", "copied", "moved"][number // 2 % 4]  # half the resumes from elsewhere
                verdict, where = trial(train_command(trained, kind, work), rng.uniform(0.05, 0.95 * train_seconds[kind]),
                                       signum, [], [models[kind] / "config.json"], trained, folder, cold, relocate)
                where = f"{kind} {where}"
            verdicts[verdict] += 1
            places[where] += 1
            if verdict != "clean":
                print(f"trial {number}: {signal.Signals(signum).name} in {where}: {verdict}", flush=True)
            shutil.rmtree(folder)
        print(f"{args.trials} signals; where they arrived: " + ", ".join(f"{k} {v}" for k, v in sorted(places.items())))
        for verdict, count in verdicts.most_common():
            print(f"{count:4d}  {verdict}")
        good = sum(count for verdict, count in verdicts.items() if verdict.startswith("clean") or verdict.startswith("finished"))
        sys.exit(0 if good == args.trials else 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
