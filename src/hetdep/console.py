"""The ``hetdep`` command as installed: the command line, where Ctrl-C during start-up (while the
command line's modules are imported) ends as quietly as Ctrl-C later does."""

from __future__ import annotations

import sys


def run() -> None:
    try:
        from hetdep.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("hetdep: interrupted (no output was written)\n")
        sys.exit(130)
    main()
