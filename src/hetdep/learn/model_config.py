"""The fields of a model's config.json, checked by type and range the same way for every part of a
model directory (parser, joint model, tagger, tokenizer, graph-based and constituency parsers).

Every config.json is read through :func:`check_fields` before any part uses it, so a field of the
wrong type (a history entry that is not an object, a tag column no model has, labels that are not
a list of strings) is refused in one line naming the file and the field, whether the config is
read to parse, to train further or only to describe the model (``hetdep info``). A field a kind
needs but lacks is its loader's to name; here only the fields present are judged.
"""

from __future__ import annotations

from numbers import Real
from pathlib import Path
from typing import Callable

from hetdep.errors import HetdepError
from hetdep.learn import MAX_BEAM
from hetdep.treebank.tags import TAG_COLUMNS, WORD_COLUMNS


class ModelFileError(HetdepError):
    """A model directory that is missing, of the wrong kind, or damaged."""


Check = Callable[[object], bool]
MODEL_KINDS = ("arc-standard", "joint", "dep1", "dep2", "constituency", "tagger", "tokenizer", "neural",
               "constituency-neural")  # what config.json's kind may be


def _whole(low: int, high: float = float("inf")) -> Check:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _number(v: object) -> bool:
    return isinstance(v, Real) and not isinstance(v, bool)


def _optional(check: Check) -> Check:
    return lambda v: v is None or check(v)


def _strings(v: object) -> bool:
    return isinstance(v, list) and set(map(type, v)) <= {str}  # JSON's strings are str itself; one pass in C


def _distinct_strings(v: object) -> bool:
    return _strings(v) and len(set(v)) == len(v)


def _numbers(v: object) -> bool:
    """A dict of scores: names to numbers (or null, a score that was not measured)."""
    return isinstance(v, dict) and all(isinstance(k, str) and (x is None or _number(x)) for k, x in v.items())


_HISTORY_FIELDS: dict[str, Check] = {
    "iteration": _whole(1), "seconds": _number, "updates": _whole(0), "features": _whole(0), "mistakes": _whole(0),
    "dev_uas": _optional(_number), "dev_las": _optional(_number), "dev_detail": _numbers, "dev": _numbers,
}
_FILE_FIELDS: dict[str, Check] = {"role": lambda v: isinstance(v, str), "path": lambda v: isinstance(v, str),
                                  "sentences": _whole(0), "sha256": lambda v: isinstance(v, str)}


def _records(fields: dict[str, Check], required: tuple[str, ...] = ()) -> Check:
    """A list of objects whose known fields pass their checks and which hold ``required``."""
    def check(v: object) -> bool:
        return isinstance(v, list) and all(
            isinstance(item, dict) and all(key in item for key in required)
            and all(fields[key](value) for key, value in item.items() if key in fields) for item in v)
    return check


_PIPELINE_FIELDS: dict[str, Check] = {
    "tokenizer": _optional(lambda v: isinstance(v, dict) and _numbers(v.get("dev", {}))
                           and _optional(_whole(1))(v.get("best_iteration"))),
    "tagger": lambda v: isinstance(v, str), "columns": _strings, "taggers": _distinct_strings, "jackknife_folds": _whole(1),
    "jackknifed_tags_kept": _numbers, "choice": lambda v: isinstance(v, dict),
}


def _pipeline(v: object) -> bool:
    return v is None or (isinstance(v, dict) and all(_PIPELINE_FIELDS[k](x) for k, x in v.items() if k in _PIPELINE_FIELDS))


def _treebanks(value) -> bool:
    """A neural model's treebanks: each a name, its schemes' names and their scheme heads."""
    return isinstance(value, list) and all(
        isinstance(t, dict) and set(t) == {"name", "schemes", "heads"} and isinstance(t["name"], str)
        and _strings(t["schemes"]) and isinstance(t["heads"], list) and all(_whole(0)(h) for h in t["heads"])
        for t in value)


FIELDS: dict[str, tuple[Check, str]] = {
    "kind": (lambda v: isinstance(v, str) and v in MODEL_KINDS, f"a kind of model this hetdep knows ({', '.join(MODEL_KINDS)})"),
    "format_version": (_whole(1), "a whole number"),
    "weights_sha256": (lambda v: isinstance(v, str) and len(v) == 64, "a sha256 digest (64 hexadecimal digits)"),
    "beam": (_whole(1, MAX_BEAM), f"a whole number from 1 to {MAX_BEAM}"),
    "tag_column": (lambda v: isinstance(v, str) and v in TAG_COLUMNS, f"one of {', '.join(sorted(TAG_COLUMNS))}"),
    "column": (lambda v: isinstance(v, str) and v in WORD_COLUMNS, f"one of {', '.join(sorted(WORD_COLUMNS))}"),
    "words": (_strings, "a list of strings"), "tags": (_strings, "a list of strings"),
    "strings": (_strings, "a list of strings"), "labels": (_strings, "a list of strings"),
    "labels_a": (_strings, "a list of strings"), "labels_b": (_strings, "a list of strings"),
    "schemes": (_strings, "a list of strings"),
    "unaries": (lambda v: isinstance(v, list), "a list"),
    "lattice": (lambda v: isinstance(v, bool), "true or false"), "dp": (lambda v: isinstance(v, bool), "true or false"),
    "reads_tree": (lambda v: isinstance(v, bool), "true or false"), "reverse": (lambda v: isinstance(v, bool), "true or false"),
    "backward_weight": (_number, "a number"),
    "lattice_weight": (_number, "a number"), "temperature": (_number, "a number"),
    "sentence_end_bias": (_number, "a number"), "lemma_margin": (_number, "a number"),
    "known_lemmas": (_strings, "a list of strings"), "reads": (lambda v: v is None or (isinstance(v, str) and v in WORD_COLUMNS), "a column or null"),
    "templates": (lambda v: _whole(0)(v) or isinstance(v, list), "a whole number or a list"),
    "history": (_records(_HISTORY_FIELDS), "a list of objects with numeric scores"),
    "best_iteration": (_optional(_whole(1)), "a whole number from 1"),
    "training_options": (_optional(lambda v: isinstance(v, dict)), "an object"),
    "pipeline": (_pipeline, "an object describing the tokenizer and tagger trained with the parser"),
    "options": (lambda v: isinstance(v, dict), "an object"),
    "multiword": (lambda v: isinstance(v, dict), "an object"),
    "decoder": (lambda v: v in ("mst", "eisner"), "mst or eisner"),
    "quantized": (_distinct_strings, "a list of distinct strings"),
    "neural_options": (_optional(lambda v: isinstance(v, dict)), "an object"),
    "language": (_optional(lambda v: isinstance(v, str) and 2 <= len(v) <= 3 and v.isalpha() and v.islower()),
                 "a language code (fr, en, zh) or null"),
    "dictionary": (_optional(lambda v: isinstance(v, str) and 2 <= len(v) <= 3 and v.isalpha() and v.islower()),
                   "a language code (fr, en) or null"),
    "network": (lambda v: isinstance(v, dict) and all(_whole(1)(x) or _number(x) or (isinstance(x, list) and all(
        _whole(1)(y) for y in x)) for x in v.values()), "an object of sizes"),
    "vocabularies": (lambda v: isinstance(v, dict) and all(
        _strings(x) or (isinstance(x, list) and all(_strings(y) for y in x)) for k, x in v.items()
        if k not in ("treebanks", "graph_heads")) and _treebanks(v.get("treebanks", []))
        and isinstance(v.get("graph_heads", []), list) and all(_whole(0)(x) for x in v.get("graph_heads", [])),
        "an object of string lists (and its treebanks: objects with a name, schemes and heads; its graph heads: whole numbers)"),
    "training_files": (_records(_FILE_FIELDS, required=("role", "path")), "a list of objects with a role and a path"),
}


def check_fields(config: dict, path: str | Path) -> dict:
    """``config`` itself, once every field it has that :data:`FIELDS` knows has passed its check;
    else a :class:`ModelFileError` naming ``path`` and the first field that did not."""
    for key, (check, wanted) in FIELDS.items():
        if key in config and not check(config[key]):
            shown = repr(config[key])
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise ModelFileError(f"{path}: {key} {shown} is not {wanted} (a damaged or hand-edited model configuration)")
    return config
