"""The ``hetdep`` command as installed: the command line, with SIGINT and SIGTERM handled as
interrupts from the first instant (:mod:`hetdep.interrupts`): whenever one arrives, during
start-up or in compiled code, the command says so in one line, puts no unfinished output in
place and exits with status 130. A command that ends exits at once too, its exit handlers run
and its streams flushed (:func:`hetdep.interrupts.exit_now`)."""

from __future__ import annotations

import sys

try:  # before anything slow is imported: a signal from here on is an interrupt, never a traceback
    from hetdep import interrupts

    interrupts.install()
except KeyboardInterrupt:
    sys.stderr.write("hetdep: interrupted (no output was written)\n")
    sys.exit(130)


def run() -> None:
    try:
        try:
            from hetdep.cli import main

            main()
        finally:
            interrupts.hold()  # the command has ended: a signal now is ignored
    except SystemExit as done:
        if not interrupts.received():
            if isinstance(done.code, str):  # as the interpreter ends on it: the message, status 1
                sys.stderr.write(done.code + "\n")
            interrupts.exit_now(done.code if isinstance(done.code, int) else 0 if done.code is None else 1)
        if done.code in (0, None):  # the signal's exception was lost on its way
            sys.stderr.write(interrupts.message() + "\n")
        interrupts.exit_now(130)
    except BaseException as error:
        if not interrupts.is_interrupt(error):
            raise
        sys.stderr.write(interrupts.message() + "\n")
        interrupts.exit_now(130)
