"""Inputs and outputs at URLs (hetdep.treebank.urls): a protocol fsspec knows but that cannot serve
a file here is one line, never a traceback, and an output that cannot be written is refused
before any work (tests/test_cluster.py parses through memory:// and file:// URLs)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import SAMPLES

from hetdep.cli import main
from hetdep.errors import OutputError
from hetdep.treebank.outputs import output_files

DEV = SAMPLES / "dev.ud.conllu"


@pytest.mark.parametrize("url", ["ftp://::", "ftp://127.0.0.1:1/a.conllu", "zip://a.conllu", "tar://a.conllu",
                                 "reference://a.conllu", "dir://a.conllu", "data://out", "nosuchfs://bucket/a.conllu",
                                 "dask://a.zip::file://x", "file://a::dask://b"])  # found by bench/fuzz.py: threads without end
@pytest.mark.parametrize("role", ["--input", "--output"])
def test_a_url_that_cannot_serve_a_file_is_one_line(pipeline_model, tmp_path, capfd, url, role):
    files = {"--input": str(DEV), "--output": str(tmp_path / "out.conllu"), role: url}
    result = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--input", files["--input"],
                                       "--output", files["--output"], "--scheme", "a"])
    assert result.exit_code == 2 and result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.output.startswith("hetdep: error: ") and result.output.count("\n") == 1 and url in result.output
    assert "Exception ignored" not in capfd.readouterr().err  # a half-made filesystem's destructor says nothing
    assert not (tmp_path / "out.conllu").exists()


def test_a_read_only_output_is_refused_before_any_work(tmp_path):
    with pytest.raises(OutputError, match="data://out: cannot be written"):
        with output_files(tmp_path / "first.conllu", "data://out"):
            pytest.fail("the work began")
    assert list(tmp_path.iterdir()) == []


def test_the_writability_check_leaves_nothing_behind():
    import fsspec

    memory = fsspec.filesystem("memory")
    with output_files("memory://checked/out.conllu") as (out,):
        assert not memory.exists("memory://checked") or memory.ls("memory://checked") == []  # no probe left
        out.write("1\tx\n")
    assert [entry["name"] for entry in memory.ls("memory://checked")] == ["/checked/out.conllu"]
    memory.rm("memory://checked", recursive=True)


@pytest.mark.parametrize("url", ["data:text/plain;base64,TGUgY2hhdCBkb3J0Lg==", "data://text/plain;base64,TGUgY2hhdCBkb3J0Lg==",
                                 "data:,Le%20chat%20dort."])
def test_a_data_url_is_read(tmp_path, url):
    """Found by the fuzzer: a valid data: URL was refused with an internal error's text (fsspec's
    data filesystem has no file info to give, which reading by get_file asked for first)."""
    out = tmp_path / "o.conllu"
    result = CliRunner().invoke(main, ["parse", "--input", url, "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert [line.split("\t")[1] for line in out.read_text(encoding="utf-8").splitlines() if line[:1].isdigit()] == \
        ["Le", "chat", "dort", "."]
