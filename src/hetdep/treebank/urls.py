"""Inputs and outputs at fsspec URLs (``s3://bucket/corpus.conllu``, ``memory://...``): for a cluster
whose machines share no folder, and any storage fsspec reaches once its package is installed
(``s3fs`` for ``s3://``, ``gcsfs`` for ``gs://``).

An input URL is copied to a local temporary file first, so reading it names lines as a local
file does (the URL in every message); an output is written to a local temporary file and sent
to its URL only when the whole output succeeded, so a failed command leaves the URL as it was.
"""

from __future__ import annotations

import atexit
import os
import tempfile

from hetdep.errors import HetdepError, InputError, OutputError


def is_url(path: object) -> bool:
    """Whether a path names a place through a protocol (``s3://...``, ``file://...`` too) rather than a local file."""
    text = str(path)
    return "://" in text and text.split("://", 1)[0].isidentifier()


def filesystem(url: str):
    """The fsspec filesystem of a URL, refused in one line when no installed package provides its protocol."""
    import fsspec

    protocol = url.split("://", 1)[0]
    try:
        return fsspec.filesystem(protocol)
    except (ImportError, ValueError) as error:  # a known protocol without its package; an unknown one
        raise HetdepError(f"{url}: no installed filesystem reads or writes '{protocol}://' URLs ({error})") from None


def temporary_file(prefix: str) -> str:
    """A new empty temporary file, removed when the process exits."""
    descriptor, local = tempfile.mkstemp(prefix=prefix)
    os.close(descriptor)
    atexit.register(_remove, local)
    return local


def fetched(url: str) -> str:
    """A local copy of the file at ``url`` (removed when the process exits)."""
    fs = filesystem(url)
    local = temporary_file(".hetdep-input.")
    try:
        fs.get_file(url, local)
    except FileNotFoundError:
        raise InputError(url, None, "cannot open: no such file") from None
    except OSError as error:
        raise InputError(url, None, f"cannot open: {error}") from None
    return local


def send(local: str, url: str) -> None:
    """The local file's bytes written to ``url`` (an OutputError naming the URL if that fails)."""
    try:
        filesystem(url).put_file(local, url)
    except OSError as error:
        raise OutputError(url, f"cannot be written: {error}") from None


def _remove(path: str) -> None:
    if os.path.exists(path):
        os.unlink(path)
