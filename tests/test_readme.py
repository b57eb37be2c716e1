"""The README's commands work as it says: its main job prints what it shows, its commands on
concrete files run, and every other command it names has the options it gives them.
(The Python blocks are run by tests/test_api.py.)"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from hetdep.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]+\b|\.\.\.|\[|\\\|")  # MODEL, FILE, [--output-b OUT_B]: not a command to run as it is
RUN_BARE = {"models", "info"}  # a bare command name elsewhere is a mention (`hetdep tag`), not a command
RUN_ELSEWHERE = {"serve": "runs until stopped: tests/test_service.py runs the service in process",
                 "train": "a whole training: the slow tests train every kind through the command line"}
# Placeholders of the README's command forms, each given a concrete value in the main job's folder
# (demo.ud.conllu is the main job's output; text.txt a copy of its raw input).
CONCRETE = {"MODEL": "fr", "FILE": "demo.ud.conllu", "GOLD": "demo.ud.conllu", "PRED": "demo.sud.conllu",
            "A": "demo.ud.conllu", "B": "demo.sud.conllu", "OUT": "out.conllu", "OUT_B": "out_b.conllu",
            "IN": "demo.ud.conllu", "DIR": "small-dir", "SMALL": "small", "DIST": "dist", "NAME": "readme-model"}
FORMS_ELSEWHERE = {"--from ptb": "bracketed trees in: tests/test_convert.py", "--const": "bracketed trees in: tests/test_evaluation.py",
                   "\\|": "a choice of subcommands: tests/test_experiments.py"}

pytest.importorskip("torch", reason="the shipped model is a neural one: it needs PyTorch ('hetdep[neural]')")


def _main_job() -> tuple[str, list[str]]:
    """The set-up's first command without its install step, and the output block shown after it."""
    setup = re.search(r"## Set-up.*?```bash\n(.*?)\n", README, flags=re.S).group(1)
    job = setup.split(" && ", 1)[1]
    shown = re.search(r"## Set-up.*?```bash.*?```.*?```\n(.*?)```", README, flags=re.S).group(1)
    return job, [line for line in shown.splitlines() if line != "..."]


def _inline_commands() -> list[str]:
    spans = re.findall(r"`(hetdep [^`]+)`", README.replace("\n", " "))
    return sorted({re.sub(r"\s+", " ", span) for span in spans})


@pytest.fixture(scope="module")
def main_job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("readme")
    job, shown = _main_job()
    job = job.replace("src/hetdep/samples/", f"{ROOT}/src/hetdep/samples/")
    done = subprocess.run(["bash", "-c", job], cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return folder, done.stdout.splitlines(), shown


def test_the_main_job_prints_what_the_readme_shows(main_job):
    _, printed, shown = main_job
    assert len(shown) >= 8
    assert printed[:len(shown)] == shown


def test_the_readme_commands_on_concrete_files_run(main_job, monkeypatch):
    folder, _, _ = main_job
    monkeypatch.chdir(folder)
    ran = []
    for command in _inline_commands():
        words = shlex.split(command)
        if (PLACEHOLDER.search(command) or len(words) < 2 or words[1] in RUN_ELSEWHERE
                or len(words) == 2 and words[1] not in RUN_BARE):
            continue
        result = CliRunner().invoke(main, words[1:])
        assert result.exit_code == 0, (command, result.output)
        ran.append(words[1])
    assert {"render", "models", "info"} <= set(ran)
    assert (folder / "trees.html").stat().st_size > 1000


def _forms(command: str) -> list[str] | None:
    """A README command form made concrete, without its optional parts and with all of them; None
    when a placeholder has no concrete value."""
    bare, whole = re.sub(r"\s*\[[^]]*\]", "", command), re.sub(r"[][]", "", command)
    forms = []
    for form in dict.fromkeys((bare, whole)):
        form = re.sub(r"\b[A-Z][A-Z_]*\b", lambda m: CONCRETE.get(m.group(), m.group()), form)
        if PLACEHOLDER.search(form):
            return None
        forms.append(form)
    return forms


def test_every_readme_command_form_runs_with_concrete_files(main_job, monkeypatch):
    """The forms with placeholders (`hetdep parse --input FILE --output OUT [--output-b OUT_B]`) run
    as they stand, each without its optional parts and with all of them."""
    folder, _, _ = main_job
    monkeypatch.chdir(folder)
    (folder / "text.txt").write_bytes((ROOT / "src/hetdep/samples/text/fr-paragraph.txt").read_bytes())
    ran = []
    for command in _inline_commands():
        words = command.split()
        if (not PLACEHOLDER.search(command) or words[1] in RUN_ELSEWHERE
                or any(form in command for form in FORMS_ELSEWHERE)):
            continue
        forms = _forms(command)
        assert forms is not None, f"{command}: a placeholder without a concrete value in CONCRETE"
        for form in forms:
            for made in ("out.conllu", "out_b.conllu", "a.conllu", "b.conllu", "small", "small-dir", "dist"):
                subprocess.run(["rm", "-rf", made], check=True)
            result = CliRunner().invoke(main, shlex.split(form)[1:])
            assert result.exit_code == 0, (form, result.output)
            ran.append(form)
    assert "hetdep parse --input text.txt --output a.conllu" in ran  # the basic form, a joint model to --output alone
    assert {form.split()[1] for form in ran} >= {"parse", "eval", "compare", "validate", "convert", "compact", "package", "info"}


def test_every_other_readme_command_has_the_options_it_gives():
    checked = set()
    for command in _inline_commands():
        words = shlex.split(command.replace("\\|", "|"))
        if len(words) < 2 or not words[1].isidentifier() and "-" not in words[1]:
            continue
        group = CliRunner().invoke(main, [words[1], "--help"])
        assert group.exit_code == 0, (command, group.output)
        for option in (w.strip("[]") for w in words[2:] if w.strip("[]").startswith("--")):
            assert option.split("=")[0] in group.output, (command, option)
        checked.add(words[1])
    assert {"train", "parse", "serve", "compact", "package", "eval", "convert"} <= checked
