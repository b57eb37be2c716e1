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
