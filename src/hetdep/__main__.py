"""``python -m hetdep`` is the ``hetdep`` command."""

from hetdep.cli import main

main()
