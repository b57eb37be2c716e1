"""Output files written whole or not at all: a failed or interrupted command leaves no partial output."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from hetdep import interrupts
from hetdep.errors import OutputError
from hetdep.treebank.urls import check_writable, is_url, send


@contextmanager
def output_files(*paths: str | Path | None) -> Iterator[list]:
    """Text files written whole or not at all: each goes to a temporary file beside its path and is
    renamed into place only when the block ends without an error, so a failed or interrupted
    command leaves what the path held before (and no partial output). ``None``: a file whose
    text is discarded; ``"-"``: standard output, and an fsspec URL (:mod:`hetdep.treebank.urls`): written in
    one go once the block has succeeded. A folder that does not exist or cannot be written is an :class:`OutputError`."""
    handles, temporaries = [], []
    try:
        for path in paths:
            if path is None:
                handles.append(open(os.devnull, "w", encoding="utf-8"))
                temporaries.append(None)
                continue
            if str(path) == "-" or is_url(path):  # standard output, a URL: sent whole once everything succeeded
                if str(path) != "-":
                    check_writable(str(path))  # before any work
                descriptor, temporary = tempfile.mkstemp(prefix=".hetdep-output.", suffix=".part")
                temporaries.append(temporary)
                handles.append(os.fdopen(descriptor, "w", encoding="utf-8", newline="\n"))
                continue
            path = Path(path)
            if path.is_dir():
                raise OutputError(str(path), "is a folder: give a file to write")
            if not path.parent.is_dir():
                raise OutputError(str(path), f"cannot be written: the folder {path.parent} does not exist")
            try:
                descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
            except OSError as error:
                raise OutputError(str(path), f"cannot be written ({error.strerror})") from None
            temporaries.append(temporary)
            handles.append(os.fdopen(descriptor, "w", encoding="utf-8", newline="\n"))
        yield handles
        interrupts.check()  # a signal that reached no code able to stop (it ran in compiled code's last instant)
    except BaseException:
        for handle in handles:
            handle.close()
        for temporary in temporaries:
            if temporary is not None and os.path.exists(temporary):
                os.unlink(temporary)
        raise
    for handle in handles:
        handle.close()
    umask = os.umask(0)
    os.umask(umask)
    for temporary, path in zip(temporaries, paths):
        if temporary is not None and str(path) == "-":
            with open(temporary, "rb") as whole:
                shutil.copyfileobj(whole, sys.stdout.buffer)
            sys.stdout.buffer.flush()
            os.unlink(temporary)
        elif temporary is not None and is_url(path):
            try:
                send(temporary, str(path))
            finally:
                os.unlink(temporary)
        elif temporary is not None:
            os.chmod(temporary, 0o666 & ~umask)  # as a plain open() would have made it
            os.replace(temporary, path)
    interrupts.wrote()
