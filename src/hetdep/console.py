"""The ``hetdep`` command as installed: the command line, with SIGINT and SIGTERM handled as
interrupts from the first instant (:mod:`hetdep.interrupts`): whenever one arrives, during
start-up or in compiled code, the command says so in one line, puts no unfinished output in
place and exits with status 130."""

from __future__ import annotations

import sys

from hetdep import interrupts


def run() -> None:
    interrupts.install()
    try:
        try:
            from hetdep.cli import main

            main()
        finally:
            interrupts.hold()  # the command has ended: a signal now must not make a traceback at exit
    except SystemExit as done:
        if interrupts.received() and done.code in (0, None):  # the signal's exception was lost on its way
            _interrupted()
        raise
    except BaseException as error:
        if not interrupts.is_interrupt(error):
            raise
        _interrupted()


def _interrupted() -> None:
    sys.stderr.write(interrupts.message() + "\n")
    sys.exit(130)
