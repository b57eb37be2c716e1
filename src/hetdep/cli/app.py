"""The ``hetdep`` group and what its commands share: the error boundary, option texts, file reading."""

from __future__ import annotations

import importlib
import sys

import click

from hetdep import interrupts
from hetdep.errors import HetdepError
from hetdep.treebank.conllu import read_conllu

PUNCT_HELP = (
    "Which words are not scored: 'upos' (gold UPOS is PUNCT, the default), "
    "'form' (CoNLL-X convention: the form is all punctuation), 'none' (score every word)."
)


# Each command's module, imported only when the command runs or help lists it: a parse need not
# import training's numba loops (a third of a second of a one-sentence parse).
COMMANDS = {
    "eval": "scoring:eval_command", "compare": "scoring:compare_command", "validate": "scoring:validate_command",
    "projectivity": "scoring:projectivity_command",
    "train": "training:train_command", "train-tagger": "training:train_tagger_command",
    "jackknife": "training:jackknife_command", "train-tokenizer": "training:train_tokenizer_command",
    "parse": "parsing:parse_command", "tag": "parsing:tag_command", "tokenize": "parsing:tokenize_command",
    "info": "parsing:info_command", "render": "rendering:render_command", "serve": "serving:serve_command",
    "convert": "converting:convert_command", "experiment": "experiments:experiment_group",
    "compact": "packaging:compact_command", "package": "packaging:package_command", "models": "packaging:models_command",
}


class _Group(click.Group):
    """Turn hetdep's own errors into one line on stderr and exit status 2, never a traceback; find
    each command in its module (``COMMANDS``) when it is asked for."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, command = COMMANDS[name].split(":")
        return getattr(importlib.import_module(f"hetdep.cli.{module}"), command)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except HetdepError as error:
            click.echo(f"hetdep: error: {error}", err=True)
            sys.exit(2)
        except BrokenPipeError:
            sys.exit(1)
        except SystemExit:  # a command that ends itself has said why (an interrupted training, its own line)
            raise
        except BaseException as error:
            if not interrupts.is_interrupt(error):
                raise
            click.echo(interrupts.message(), err=True)
            interrupts.exit_now(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="hetdep")
def main():
    """hetdep: heterogeneous dependency parsing (several annotation schemes, one sentence)."""


class SectionedCommand(click.Command):
    """A command whose ``--help`` lists the everyday options first and, under a heading of their
    own after them, the options of the papers' experiments (``later``: their parameter names)."""

    def __init__(self, *args, later: tuple[str, ...] = (), later_heading: str = "Options of the papers' experiments", **kwargs):
        super().__init__(*args, **kwargs)
        self.later, self.later_heading = frozenset(later), later_heading

    def format_options(self, ctx, formatter):
        records = [(param.name in self.later, param.get_help_record(ctx)) for param in self.get_params(ctx)]
        for heading, later in (("Options", False), (self.later_heading, True)):
            chosen = [record for is_later, record in records if record and is_later == later]
            if chosen:
                with formatter.section(heading):
                    formatter.write_dl(chosen)


def counted(number: int, noun: str) -> str:
    """``number`` and ``noun``, plural but for one: "1 problem", "2 problems", "1,204 words"."""
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


class FiniteFloat(click.FloatRange):
    """A number option: finite (``nan`` and ``inf`` refused in one line before any work, where a range
    check alone lets them through) and within its range, if it has one."""

    def convert(self, value, param, ctx):
        import math

        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


class ModelParam(click.ParamType):
    """A model given by directory or by name (an installed model package, or the shipped model's
    name), turned into its directory; a name nothing answers to is one error listing the installed models."""

    name = "model"

    def convert(self, value, param, ctx):
        from hetdep.models.names import find_model

        return str(find_model(value))


class NamedModelParam(click.ParamType):
    """A model to parse with: as :class:`ModelParam`, or a name with the treebank or scheme after it
    as the service offers it (``fr-ud``, ``fr-parisstories-sud``): a :class:`hetdep.models.names.ModelName`."""

    name = "model"

    def convert(self, value, param, ctx):
        from hetdep.models.names import ModelName, model_name

        return value if isinstance(value, ModelName) else model_name(value)


MODEL = ModelParam()
NAMED_MODEL = NamedModelParam()
MODEL_HELP = "a model directory from 'hetdep train' or an installed model's name ('hetdep models')"


def shipped_or(model_dir: str | None) -> str:
    """The model to use: the one given, else the model shipped with hetdep."""
    from hetdep.models.names import find_model

    return model_dir if model_dir is not None else str(find_model(None))


def refuse_options(given: dict[str, object], what: str) -> None:
    """Refuse every option in ``given`` (name -> value) that was set: none of them applies to ``what``."""
    used = [name for name, value in given.items() if value]
    if used:
        raise HetdepError(f"{', '.join(used)} {'does' if len(used) == 1 else 'do'} not apply to {what}")


def read_all(path: str, **options) -> list:
    """Every sentence of a CoNLL-U file (its errors name the file and line)."""
    return list(read_conllu(path, **options))


def t_values(text: str) -> tuple[int, ...]:
    """The comma-separated values of t an experiment trains, parsed (at least one)."""
    from hetdep.joint.schedule import parse_t

    values = tuple(parse_t(value) for value in text.split(",") if value.strip())
    if not values:
        raise HetdepError(f"no value of t in {text!r}: give one or more, comma-separated (e.g. inf,3,-1)")
    return values


TAG_COLUMN_CHOICE = click.Choice(["upos", "xpos"])
WORD_COLUMN_CHOICE = click.Choice(["upos", "xpos", "feats", "lemma"])  # what a tagger can learn
