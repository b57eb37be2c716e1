"""Errors a user can act on: every one names the file and the line it is about."""

from __future__ import annotations


class HetdepError(Exception):
    """Base of every error hetdep reports to a user (the CLI prints these without a traceback)."""


class InputError(HetdepError):
    """A problem in an input file, located by path and 1-based line number."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")

    def __reduce__(self):  # rebuilt from its parts when it crosses processes (a Dask worker's error)
        return type(self), (self.path, self.line, self.message)


class MismatchError(InputError):
    """Two files meant to hold the same sentences and words do not (the first difference is named)."""


class OutputError(HetdepError):
    """An output that cannot be written where it was asked for (a missing folder, no permission)."""

    def __init__(self, path: str, message: str):
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")

    def __reduce__(self):
        return type(self), (self.path, self.message)
