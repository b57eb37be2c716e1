"""The ``hetdep`` command line: one group (:mod:`hetdep.cli.app`), one module per family of commands.

The commands map options to library calls; which options combine is the library's rule.
"""

from hetdep.cli.app import main

__all__ = ["main"]
