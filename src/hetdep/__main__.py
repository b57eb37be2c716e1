"""``python -m hetdep`` is the ``hetdep`` command."""

try:
    from hetdep.console import run
except KeyboardInterrupt:  # before the command line's own handler is in place
    import sys

    sys.stderr.write("hetdep: interrupted (no output was written)\n")
    sys.exit(130)

run()
