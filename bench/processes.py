"""How the benchmarks start hetdep: as a user's installed copy runs, its Python bytecode cached.

pip compiles an installed package's modules to bytecode, and an editable install writes them on
first import; a machine that sets PYTHONDONTWRITEBYTECODE (this workplace does) would make every
timed process compile hetdep's 300 modules again, 0.3-0.6 s of a one-sentence parse (1.30-1.79 s
against 0.81-1.00 s, `python bench/startup.py --runs 5`, in turns, 2026-12-02). So the timed
processes run without it, after their package's bytecode was written as pip writes it."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

import hetdep


def user_environment(src: Path | None = None, **extra: str) -> dict[str, str]:
    """This process's environment for a timed hetdep process, bytecode written and read as an
    installed hetdep's is; the package in ``src`` (else the one imported here) compiled first."""
    package = src / "hetdep" if src is not None else Path(hetdep.__file__).parent
    compileall.compile_dir(str(package), quiet=1)
    return {**{name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}, **extra}
