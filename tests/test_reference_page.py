"""docs/reference.md is the command line's own help, written by hetdep.cli.reference: the page and
``--help`` cannot disagree, no line of it is long, and each example uses options its command has."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from hetdep.cli.reference import EXAMPLES, WIDTH, commands, reference

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference.md"


def test_the_committed_page_is_the_help_of_today_s_commands():
    assert PAGE.read_text(encoding="utf-8") == reference(), "run: python -m hetdep.cli.reference > docs/reference.md"


def test_no_line_of_the_page_is_over_its_width():
    assert max(map(len, PAGE.read_text(encoding="utf-8").splitlines())) <= WIDTH + 1


def test_each_example_is_of_a_command_there_and_gives_only_its_options():
    from hetdep.cli import main

    root = click.Context(main, info_name="hetdep")
    found = {" ".join(words): command for words, command, _ in commands(main, root)}
    for name, example in EXAMPLES.items():
        command = found[name]
        words = shlex.split(example)
        assert " ".join(words[1:1 + len(name.split())]) == name
        options = {option for param in command.params for option in getattr(param, "opts", [])}
        assert {word for word in words if word.startswith("--")} <= options, example
