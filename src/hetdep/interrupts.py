"""Ctrl-C (SIGINT) and SIGTERM, recognised however they reach the code that must stop.

A signal can arrive anywhere: in Python code (a KeyboardInterrupt), inside a compiled numba
function (numba raises a SystemError, sometimes several nested, whose cause or context is the
KeyboardInterrupt), while numba compiles or its types are freed (LLVM calls Python back through
ctypes, and the garbage collector runs numba's weak-reference callbacks, where Python would print
the exception and drop it: a signal that comes there is sent again once it is out), on a
worker thread's watch (the main thread sees it later), or in the instant after the work finished. So the command installs :func:`install`, whose handler records the signal
before it raises; whatever exception then ends the work, :func:`is_interrupt` knows it for an
interrupt, and outputs are not put in place once a signal was received (:func:`check`), even if
the work itself ran to its end; once the command has ended, signals are ignored (:func:`hold`).
"""

from __future__ import annotations

import signal

_received: list[int] = []  # the signals that arrived while the command ran
_holding: list[bool] = []  # set once the command has ended
_written: list[bool] = []  # set once an output was put in place whole
_installed: list[bool] = []  # set once this process's handlers are ours (the command line)


_raised: list[bool] = []  # set once the handler raised its KeyboardInterrupt
REDELIVERY = 0.05  # seconds after which a signal that came during compilation is sent again
# Where Python prints an exception as 'ignored' and drops it: the ctypes callbacks through which LLVM
# calls Python while numba compiles (its object cache's hooks), numba's weak-reference callback run
# when the garbage collector frees one of its types, and any finalizer.
_CALLBACKS = ("_raw_object_cache_notify", "_raw_object_cache_getbuffer", "_on_type_disposal", "__del__")


def _handler(signum, frame) -> None:
    if _holding:
        return
    _received.append(signum)
    if _raised:  # a second signal while the first one's clean-up runs only adds to the record
        return
    if _in_callback(frame):  # there ctypes would print the exception as 'ignored' and swallow it
        _send_again(signum)
        return
    _raised.append(True)
    raise KeyboardInterrupt


def _in_callback(frame) -> bool:
    """Whether the signal came inside one of ``_CALLBACKS`` (a few milliseconds each)."""
    while frame is not None:
        if frame.f_code.co_name in _CALLBACKS:
            return True
        frame = frame.f_back
    return False


def _send_again(signum: int) -> None:
    """The signal sent to this process again shortly, until it comes outside the callbacks."""
    import os
    import threading

    timer = threading.Timer(REDELIVERY, os.kill, (os.getpid(), signum))
    timer.daemon = True
    timer.start()


def wrote() -> None:
    """Record that an output was put in place whole (so an interrupt after it is not said to have prevented it)."""
    _written.append(True)


def message() -> str:
    """The one line an interrupted command ends with."""
    return ("hetdep: interrupted (the outputs finished before the signal were written whole)" if _written
            else "hetdep: interrupted (no output was written)")


def hold() -> None:
    """From now on a signal is ignored: the command has ended, and an interrupt now could only
    turn its exit into a traceback (or, once the interpreter has put back the default handlers
    while it ends, kill it)."""
    _holding.append(True)
    if _installed:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def install() -> None:
    """Handle SIGINT and SIGTERM as interrupts (the command line does; a library caller keeps its own handlers)."""
    signal.signal(signal.SIGINT, _handler)
    signal.signal(signal.SIGTERM, _handler)
    _installed.append(True)


def received() -> bool:
    """Whether an interrupt signal arrived since :func:`install` (or :func:`reset`)."""
    return bool(_received)


def reset() -> None:
    _received.clear()
    _raised.clear()
    _holding.clear()
    _written.clear()


def check() -> None:
    """Raise KeyboardInterrupt if a signal was received: called before an output is put in place."""
    if _received:
        raise KeyboardInterrupt


def is_interrupt(error: BaseException) -> bool:
    """Whether ``error`` ends the work because of an interrupt: a signal was received, or the
    error is a KeyboardInterrupt or has one anywhere in its chain of causes and contexts (numba
    wraps it in SystemErrors, one inside another)."""
    if _received:
        return True
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        pending += [current.__cause__, current.__context__]
    return False


def exit_now(status: int = 130) -> None:
    """End the command at once, after the exit handlers ran (temporary files of URL inputs and
    cluster chunks are removed by them) and the standard streams were flushed, without the
    interpreter's own ending: after an interrupt, that would turn an interrupt a library's start-up
    code saw into death by SIGINT, and a second signal during its teardown printed numba's
    tracebacks; after a command that ended, it only frees every object one by one (a model's arrays
    and vocabularies: 30 ms of a one-sentence parse's 0.59 s, medians of twelve in turns)."""
    import atexit
    import os
    import sys

    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
