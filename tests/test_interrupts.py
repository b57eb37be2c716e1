"""Interrupts recognised however they arrive (hetdep.interrupts); bench/interrupts.py sends real signals at random moments."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from conftest import SAMPLES

from hetdep import interrupts
from hetdep.treebank.outputs import output_files


@pytest.fixture
def no_signal_yet():
    interrupts.reset()
    yield
    interrupts.reset()


def _wrapped(depth: int) -> BaseException:
    """A KeyboardInterrupt inside ``depth`` SystemErrors, as numba's dispatcher nests them."""
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as interrupt:
            error: BaseException = interrupt
            for _ in range(depth):
                try:
                    raise SystemError("returned a result with an exception set") from error
                except SystemError as wrapper:
                    error = wrapper
            raise error
    except BaseException as final:
        return final


@pytest.mark.parametrize("depth", [0, 1, 2, 5])
def test_a_keyboard_interrupt_is_recognised_however_deeply_wrapped(no_signal_yet, depth):
    assert interrupts.is_interrupt(_wrapped(depth))
    assert not interrupts.is_interrupt(SystemError("something else"))
    assert not interrupts.is_interrupt(ValueError("x"))


def test_after_a_signal_any_error_is_an_interrupt_and_no_output_is_put_in_place(no_signal_yet, tmp_path):
    interrupts._received.append(signal.SIGTERM)  # as the handler records it, when the signal's exception was lost
    assert interrupts.is_interrupt(ValueError("what a swallowed interrupt left behind"))
    with pytest.raises(KeyboardInterrupt):
        with output_files(tmp_path / "out.conllu") as (out,):
            out.write("1\tx\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("url", [False, True])
def test_sigterm_during_parsing_is_an_interrupt(tmp_path, url):
    """SIGTERM as Ctrl-C: exit 130, one line, no output and no temporary file (nor the local copy
    of an input given as a URL, which an exit handler removes)."""
    import time

    spool = tmp_path / "tmp"
    spool.mkdir()
    big = tmp_path / "big.conllu"
    big.write_text((SAMPLES / "dev.ud.conllu").read_text(encoding="utf-8") * 30, encoding="utf-8")
    model = tmp_path / "m"
    subprocess.run([sys.executable, "-m", "hetdep", "train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev",
                    str(SAMPLES / "dev.ud.conllu"), "--model", str(model), "--beam", "2", "--iterations", "1",
                    "--gold-tags", "--no-tokenizer"], check=True, capture_output=True)
    output = tmp_path / "out.conllu"
    process = subprocess.Popen([sys.executable, "-m", "hetdep", "parse", "--model", str(model), "--input",
                                big.as_uri() if url else str(big), "--output", str(output), "--beam", "64"],
                               stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(spool)})
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".out.conllu.*.part")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGTERM)
    stderr = process.communicate(timeout=60)[1].decode("utf-8", "replace")
    assert process.returncode == 130 and "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == "hetdep: interrupted (no output was written)"
    assert not output.exists() and list(tmp_path.glob(".*.part")) == [] and list(spool.iterdir()) == []


def test_a_command_that_ends_runs_its_exit_handlers_and_flushes_its_output(tmp_path):
    """A finished command exits at once (no teardown of the interpreter), yet as it would have:
    its status, its whole output on standard output, and the local copy of an input given as a
    URL removed by its exit handler."""
    spool = tmp_path / "tmp"
    spool.mkdir()
    gold = SAMPLES / "dev.ud.conllu"
    done = subprocess.run([sys.executable, "-m", "hetdep", "parse", "--input", gold.as_uri(), "--output", "-",
                           "--treebank", "sequoia"], capture_output=True, text=True, env={**os.environ, "TMPDIR": str(spool)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n\n") == gold.read_text(encoding="utf-8").count("\n\n")
    assert list(spool.glob(".hetdep-input.*")) == []  # (onnxruntime leaves a file of its own there, exit or not)
    refused = subprocess.run([sys.executable, "-m", "hetdep", "eval", str(gold)], capture_output=True, text=True)
    assert refused.returncode == 2 and "Missing argument" in refused.stderr


@pytest.mark.parametrize("callback", ["_raw_object_cache_notify", "_on_type_disposal", "__del__"])
def test_a_signal_in_llvms_callbacks_is_sent_again_until_it_comes_after(no_signal_yet, callback):
    """While numba compiles, LLVM calls Python back through ctypes, and while it frees a type the
    garbage collector runs numba's weak-reference callback; Python prints an exception raised there
    as 'ignored' and drops it (CI saw numba's): there the handler raises nothing, and the signal comes again."""
    import time

    previous = signal.signal(signal.SIGINT, interrupts._handler)
    try:
        def receive():
            interrupts._handler(signal.SIGINT, sys._getframe())

        receive.__code__ = receive.__code__.replace(co_name=callback)  # named as llvmlite's, numba's or a finalizer is
        receive()  # raises nothing there
        assert interrupts.received() and not interrupts._raised
        with pytest.raises(KeyboardInterrupt):
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                time.sleep(0.01)
        assert interrupts._raised
    finally:
        signal.signal(signal.SIGINT, previous)


def _long_training(model, *kind: str) -> subprocess.Popen:
    """A training of the sample treebank long enough to interrupt (200 iterations), its stderr piped."""
    return subprocess.Popen([sys.executable, "-m", "hetdep", "train", "--train", str(SAMPLES / "train.ud.conllu"),
                             "--dev", str(SAMPLES / "dev.ud.conllu"), "--model", str(model), *kind,
                             "--iterations", "200", "--patience", "200", "--no-tokenizer"], stderr=subprocess.PIPE)


def _interrupt_when(process, marker: str, timeout: float = 120.0) -> str:
    """Send Ctrl-C (SIGINT) to ``process`` once ``marker`` appears on its stderr; returns all of stderr."""
    import os
    import signal
    import time

    os.set_blocking(process.stderr.fileno(), False)
    seen, deadline = "", time.monotonic() + timeout
    while marker not in seen and time.monotonic() < deadline and process.poll() is None:
        chunk = process.stderr.read()
        seen += chunk.decode("utf-8", "replace") if chunk else ""
        time.sleep(0.05)
    assert marker in seen, f"{marker!r} never appeared: {seen[-500:]}"
    process.send_signal(signal.SIGINT)
    process.signalled = time.monotonic()
    process.wait(timeout=60)
    os.set_blocking(process.stderr.fileno(), True)
    return seen + process.stderr.read().decode("utf-8", "replace")


@pytest.mark.parametrize("kind, marker", [
    (["--beam", "4", "--gold-tags"], "iteration 3"),
    pytest.param(["--parser", "neural", "--threads", "1"], "epoch 2 done", marks=pytest.mark.slow),  # its taggers train first
])
def test_ctrl_c_during_training_keeps_the_best_finished_iteration(tmp_path, kind, marker):
    """The best finished iteration is written at once (within seconds of the signal), and the
    command says so in one line, its last."""
    import time

    if "neural" in kind:
        pytest.importorskip("torch", reason="training the neural parser needs PyTorch")
    model = tmp_path / "m"
    process = _long_training(model, *kind)
    stderr = _interrupt_when(process, marker, timeout=300)
    assert process.returncode == 130 and "Traceback" not in stderr and "SystemError" not in stderr
    assert "1:" in stderr and "interrupted during iteration" in stderr
    assert "parser done" not in stderr and "parser interrupted after" in stderr  # never "done" for what it did not finish
    said = [line for line in stderr.splitlines() if line.startswith("hetdep: interrupted")]
    assert len(said) == 1 and stderr.strip().splitlines()[-1] == said[0]
    assert time.monotonic() - process.signalled < 10
    assert (model / "config.json").exists() and (model / "weights.npz").exists()


@pytest.mark.slow
def test_an_interrupted_training_resumed_gives_the_model_of_an_uninterrupted_run(tmp_path):
    """Tokenizer, tagger and jackknifing kept, the parser resumed after its last finished iteration."""
    import json

    args = ["train", "--train", str(SAMPLES / "train.sud.conllu"), "--train-b", str(SAMPLES / "train.ud.conllu"),
            "--dev", str(SAMPLES / "dev.sud.conllu"), "--dev-b", str(SAMPLES / "dev.ud.conllu"), "--beam", "4",
            "--iterations", "4", "--patience", "4", "--folds", "3"]
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    subprocess.run([sys.executable, "-m", "hetdep", *args, "--model", str(whole)], check=True, capture_output=True)
    assert not (whole / ".training-state").exists()
    process = subprocess.Popen([sys.executable, "-m", "hetdep", *args, "--model", str(resumed)], stderr=subprocess.PIPE)
    stderr = _interrupt_when(process, "iteration 2 done")
    assert process.returncode == 130 and "Traceback" not in stderr and f"hetdep train --resume {resumed}" in stderr
    kept = resumed / ".training-state"
    assert (kept / "tokenizer").is_dir() and (kept / "tagger" / "upos").is_dir() and (kept / "jackknifed.conllu").is_file()
    again = subprocess.run([sys.executable, "-m", "hetdep", "train", "--resume", str(resumed)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert again.stderr.count("finished by the interrupted training, kept") == 5  # tokenizer, 3 taggers, jackknifing
    assert not kept.exists()
    for part in ("weights.npz", "tokenizer/weights.npz", "tagger/upos/weights.npz", "tagger/feats/weights.npz",
                 "tagger/lemma/weights.npz"):
        assert (whole / part).read_bytes() == (resumed / part).read_bytes(), part

    def scores(model):
        config = json.loads((model / "config.json").read_text(encoding="utf-8"))
        return config["best_iteration"], [(r["dev_uas"], r["dev_las"], r["updates"]) for r in config["history"]]

    assert scores(whole) == scores(resumed)


def test_a_refused_resume_leaves_the_kept_state_as_it_was(tmp_path):
    """A kept state that --resume refuses (damaged here; in use, often one kept by another
    version of hetdep, which can still go on with it) stays as it was."""
    model = tmp_path / "m"
    process = _long_training(model, "--beam", "4", "--gold-tags")
    _interrupt_when(process, "iteration 2 done")
    assert process.returncode == 130
    kept = model / ".training-state"
    [loop] = kept.rglob("loop/state.json")
    loop.write_text("{", encoding="utf-8")

    def contents():
        return {path.relative_to(kept): path.read_bytes() for path in kept.rglob("*") if path.is_file()}

    before = contents()
    for _ in range(2):
        again = subprocess.run([sys.executable, "-m", "hetdep", "train", "--resume", str(model)], capture_output=True,
                               text=True)
        assert again.returncode == 2 and "Traceback" not in again.stderr
        assert f"{loop.parent}: the kept training state is damaged" in again.stderr
        assert contents() == before


def test_resume_needs_an_interrupted_training_and_no_other_option(tmp_path):
    from click.testing import CliRunner

    from hetdep.cli import main

    result = CliRunner().invoke(main, ["train", "--resume", str(tmp_path)])
    assert result.exit_code == 2 and "no interrupted training to go on with here" in result.output
    result = CliRunner().invoke(main, ["train", "--resume", str(tmp_path), "--beam", "8"])
    assert result.exit_code == 2 and "drop --beam" in result.output
    (tmp_path / ".training-state").mkdir()
    (tmp_path / ".training-state" / "run.json").write_text('{"beam": 8, "nonsense": 1}', encoding="utf-8")
    result = CliRunner().invoke(main, ["train", "--resume", str(tmp_path)])
    assert result.exit_code == 2 and "damaged record of the interrupted training" in result.output
    result = CliRunner().invoke(main, ["train", "--beam", "8"])
    assert result.exit_code == 2 and "give --train, --dev and --model" in result.output


def test_a_resumed_training_may_go_on_with_other_threads(tmp_path, monkeypatch):
    """--threads is how many cores go on with it (another machine's), not what is trained: the
    kept options with that one changed."""
    import json

    from click.testing import CliRunner

    from hetdep.cli import main
    from hetdep.models import training

    kept = {"parser_kind": "arc-standard", "beam": 8, "threads": 1, "train_path": str(SAMPLES / "train.ud.conllu"),
            "dev_path": str(SAMPLES / "dev.ud.conllu")}
    (tmp_path / ".training-state").mkdir()
    (tmp_path / ".training-state" / "run.json").write_text(json.dumps(kept), encoding="utf-8")
    seen = {}

    def run_seen(**params):  # what the training would run with, then no training
        seen.update(params)
        raise SystemExit(0)

    monkeypatch.setattr(training, "TrainingRun", run_seen)
    CliRunner().invoke(main, ["train", "--resume", str(tmp_path), "--threads", "2"])
    assert seen["threads"] == 2 and seen["beam"] == 8 and seen["model_dir"] == str(tmp_path)
    CliRunner().invoke(main, ["train", "--resume", str(tmp_path)])
    assert seen["threads"] == 1


def test_a_resumed_training_goes_on_in_the_folder_given_wherever_it_now_lies(tmp_path):
    """Found by the fuzzer: after ``cp -r A C``, ``--resume C`` wrote the model into A and took A's
    state; after ``mv E F``, ``--resume F`` trained anew into E. The folder given is where it goes on."""
    import shutil

    args = ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"), "--beam", "4",
            "--gold-tags", "--no-tokenizer", "--iterations", "4", "--patience", "4"]
    whole, started = tmp_path / "whole", tmp_path / "started"
    subprocess.run([sys.executable, "-m", "hetdep", *args, "--model", str(whole)], check=True, capture_output=True)
    process = subprocess.Popen([sys.executable, "-m", "hetdep", *args, "--model", str(started)], stderr=subprocess.PIPE)
    _interrupt_when(process, "iteration 2 done")
    assert process.returncode == 130

    def contents(folder):
        return {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*") if path.is_file()}

    copied, moved = tmp_path / "copied", tmp_path / "moved"
    shutil.copytree(started, copied)
    before = contents(started)
    for folder in (copied, moved):
        if folder == moved:
            started.rename(moved)
        again = subprocess.run([sys.executable, "-m", "hetdep", "train", "--resume", str(folder)], capture_output=True,
                               text=True)
        assert again.returncode == 0, again.stderr
        assert "iteration 1 done" not in again.stderr and not (folder / ".training-state").exists()  # went on, not anew
        assert (folder / "weights.npz").read_bytes() == (whole / "weights.npz").read_bytes()
        assert contents(started) == before if folder == copied else not started.exists()
