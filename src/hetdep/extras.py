"""Packages only some uses need, installed as hetdep's extras (``pip install 'hetdep[serve]'``), so
that ``pip install hetdep`` parses without them: each use asks for its extra here first and, when a
package is missing, says in one line which extra brings it, before any work."""

from __future__ import annotations

import importlib.util

from hetdep.errors import HetdepError

# Each extra of pyproject.toml and the modules its uses import (the extra's packages, by import name).
EXTRAS = {
    "serve": ("fastapi", "starlette", "uvicorn", "multipart", "anyio"),
    "cluster": ("dask", "distributed"),
    "stats": ("scipy",),
    "experiments": ("scipy", "matplotlib"),
    "transformer": ("tokenizers", "safetensors"),
    "int8": ("onnx",),
}


def require(extra: str, use: str) -> None:
    """Refuse ``use`` in one line naming ``extra`` when a package it needs is not installed."""
    missing = [module for module in EXTRAS[extra] if importlib.util.find_spec(module) is None]
    if missing:
        raise HetdepError(f"{use} needs {', '.join(missing)}, which 'pip install hetdep' leaves out: "
                          f"pip install 'hetdep[{extra}]'")
