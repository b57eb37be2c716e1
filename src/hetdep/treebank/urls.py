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
import shutil
import sys
import tempfile
import uuid

from hetdep.errors import HetdepError, InputError, OutputError

# fsspec's protocols that reach files through a Dask cluster: outside a worker and with no client,
# dask:// hands each read back to itself through Dask's threads, without end (found by
# bench/fuzz.py: 22,000 threads in one process within a minute, the machine's limit).
THROUGH_A_CLUSTER = ("dask",)


def is_url(path: object) -> bool:
    """Whether a path names a place through a protocol (``s3://...``, ``file://...`` too) rather than a
    local file; a ``data:`` URL (RFC 2397: ``data:,text`` or ``data:text/plain;base64,...``) too,
    unless a local file of that name exists."""
    text = str(path)
    if text.startswith("data:") and "," in text:
        return not os.path.exists(text)
    return "://" in text and text.split("://", 1)[0].isidentifier()


def filesystem(url: str):
    """The fsspec filesystem of a URL and the path within it, refused in one line when it cannot be
    made: no installed package provides the protocol, or the protocol cannot serve a URL alone
    (``zip://`` and ``reference://`` need a second file, ``ftp://`` a server that answers)."""
    import fsspec

    protocol = url.split("://", 1)[0]
    through = [part.split("://", 1)[0] for part in url.split("::") if part.split("://", 1)[0] in THROUGH_A_CLUSTER]
    if through:  # file://a::dask://b too
        raise HetdepError(f"{url}: '{through[0]}://' reaches files through a Dask cluster's workers; give the URL they "
                          "read (s3://..., file://...), which hetdep's own --workers and --scheduler send as needed")
    hook, sys.unraisablehook = sys.unraisablehook, _dropped  # a half-made filesystem's __del__ fails as it goes
    try:
        try:
            return fsspec.core.url_to_fs(url)
        except Exception as error:  # noqa: BLE001 -- each filesystem's constructor raises errors of its own kinds
            failure = _said(error)
    finally:
        sys.unraisablehook = hook
    raise HetdepError(f"{url}: no filesystem here reads or writes this '{protocol}://' URL ({failure})")


def _dropped(unraisable) -> None:
    """An error raised where nothing can catch it (a destructor), left unsaid."""


def check_writable(url: str) -> None:
    """Refuse, before any work, an output URL that cannot be written: an empty file is opened beside
    it without being committed, then discarded (and removed, where the filesystem made it anyway)."""
    fs, path = filesystem(url)
    probe = f"{fs._parent(path)}/.hetdep-probe.{os.getpid()}.{uuid.uuid4().hex}"
    try:
        fs.open(probe, "wb", autocommit=False).discard()
        if fs.exists(probe):
            fs.rm(probe)
    except Exception as error:  # noqa: BLE001 -- as in filesystem(): the filesystem's own kinds of error
        raise OutputError(url, f"cannot be written: {_said(error)}") from None


def _said(error: BaseException) -> str:
    """An error's kind and its text, on one line."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def temporary_file(prefix: str) -> str:
    """A new empty temporary file, removed when the process exits."""
    descriptor, local = tempfile.mkstemp(prefix=prefix)
    os.close(descriptor)
    atexit.register(_remove, local)
    return local


def fetched(url: str) -> str:
    """A local copy of the file at ``url`` (removed when the process exits)."""
    fs, path = filesystem(url)
    local = temporary_file(".hetdep-input.")
    try:  # read whole rather than by get_file, which asks for the file's info first (data:// has none to give)
        with fs.open(path, "rb") as source, open(local, "wb") as copy:
            shutil.copyfileobj(source, copy)
    except FileNotFoundError:
        raise InputError(url, None, "cannot open: no such file") from None
    except Exception as error:  # noqa: BLE001 -- as in filesystem()
        raise InputError(url, None, f"cannot open: {_said(error)}") from None
    return local


def send(local: str, url: str) -> None:
    """The local file's bytes written to ``url`` (an OutputError naming the URL if that fails)."""
    fs, path = filesystem(url)
    try:
        fs.put_file(local, path)
    except Exception as error:  # noqa: BLE001 -- as in filesystem()
        raise OutputError(url, f"cannot be written: {_said(error)}") from None


def _remove(path: str) -> None:
    if os.path.exists(path):
        os.unlink(path)
