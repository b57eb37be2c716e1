"""`pip install hetdep` parses; what needs an extra says which, in one line, before any work."""

from __future__ import annotations

import importlib.util

import pytest
from click.testing import CliRunner

from hetdep.cli import main
from hetdep.errors import HetdepError
from hetdep.extras import EXTRAS, require


def test_every_extra_of_the_code_is_one_of_pyproject_s():
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert set(EXTRAS) <= set(project["optional-dependencies"])
    assert not any(name.split(">=")[0].split("[")[0] in ("fastapi", "dask", "scipy", "matplotlib", "uvicorn")
                   for name in project["dependencies"])


@pytest.mark.parametrize("args, extra", [
    (["serve"], "serve"), (["compare", "a", "b", "c"], "stats"),
    (["parse", "--input", "x.txt", "--output", "o.conllu", "--workers", "2"], "cluster"),
])
def test_a_use_whose_extra_is_missing_says_which_to_install(monkeypatch, tmp_path, args, extra):
    missing = EXTRAS[extra][0]
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == missing else found(name, *rest))
    with pytest.raises(HetdepError, match=rf"needs {missing}.*pip install 'hetdep\[{extra}\]'"):
        require(extra, "this")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and f"pip install 'hetdep[{extra}]'" in result.output and result.output.count("\n") == 1
    assert not (tmp_path / "o.conllu").exists()
