"""``python -m hetdep`` is the ``hetdep`` command."""

from hetdep.console import run

run()
