"""``python -m hetdep`` is the ``hetdep`` command."""

from .cli import main

main()
