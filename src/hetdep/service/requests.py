"""What a request asks the service, read and checked before any work: UDPipe 2's fields (``data``,
``model``, ``tokenizer``, ``tagger``, ``parser``, ``input``, ``output``) and ours (``scheme``),
the model a name means (whole, or by a prefix as UDPipe 2 allows), and the text in UTF-8."""

from __future__ import annotations

import os
import tempfile
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

from hetdep.api.model import Model
from hetdep.errors import HetdepError
from hetdep.treebank.conllu import Sentence, read_conllu
from hetdep.treebank.inputs import read_tokenized_text

INPUTS = ("conllu", "horizontal", "vertical")  # UDPipe 2's names: CoNLL-U, one sentence a line, one word a line
OUTPUTS = ("conllu", "horizontal", "vertical", "plaintext")
TOKENIZER_OPTIONS = ("presegmented", "ranges")  # UDPipe 2's: one sentence a line; TokenRange in MISC


class RequestError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Served:
    """A name the service answers to: a loaded model and the scheme its ``result`` is (``fixed``:
    the name says the scheme, NAME-SCHEME, so a request's ``scheme`` field may not say another)."""

    name: str
    model: Model
    scheme: str
    fixed: bool = False


def answered_scheme(model: Model) -> str:
    """The scheme a model's name answers in: UD where the model has it, as UDPipe 2's clients
    expect of a UD model's name; else its first."""
    return next((scheme for scheme in model.schemes if scheme.lower() == "ud"), model.schemes[0])


def served_names(loaded: dict[str, Model]) -> dict[str, Served]:
    """Every model under its name (in UD where it has it), and each scheme of a joint one as NAME-SCHEME;
    a model of several treebanks also as NAME-TREEBANK and NAME-TREEBANK-SCHEME for each of them.
    A name given at start always answers for its own model, whatever another's derived names are;
    two models deriving the same name are refused in one line (which one it meant would hang on
    the order of ``--model``)."""
    derived: dict[str, tuple[str, Served]] = {}
    for name, model in loaded.items():
        as_treebanks = {f"{name}-{treebank}": model.for_treebank(treebank) for treebank in model.treebanks}
        own = {name: Served(name, model, answered_scheme(model))}
        for prefix, chosen in {name: model, **as_treebanks}.items():
            own.setdefault(prefix, Served(prefix, chosen, answered_scheme(chosen)))
            if len(chosen.schemes) > 1:
                own.update({f"{prefix}-{scheme}": Served(f"{prefix}-{scheme}", chosen, scheme, fixed=True)
                            for scheme in chosen.schemes})
        for served_name, served in own.items():
            if served_name != name and served_name in loaded:
                continue  # the name given at start wins
            if served_name in derived and derived[served_name][0] != name:
                raise HetdepError(f"the models named {derived[served_name][0]!r} and {name!r} would both answer to "
                                  f"{served_name!r}: give one of them another name (--model NAME=DIR)")
            derived.setdefault(served_name, (name, served))
    return {served_name: served for served_name, (_, served) in derived.items()}


def choose_model(served: dict[str, Served], requested: str) -> Served:
    """The model a request names: by its whole name, else the first whose name starts with it (UDPipe 2's prefixes)."""
    requested = requested.strip()  # the sender's layout, as for every other field's value
    if requested in served:
        return served[requested]
    for name, model in served.items():
        if requested and name.startswith(requested):
            return model
    raise RequestError(400, f"no model {requested!r}; this server has {', '.join(served)}")


def sentences_from(data: str, input_format: str) -> list[Sentence]:
    """CoNLL-U, horizontal or vertical text sent in a request, read by the same readers as files
    (errors name ``data:LINE``). Vertical text, one word a line and a blank line after each
    sentence, is read as UDPipe reads it: a line's word is its first field (up to a space or a
    tab), the rest of the line being other columns, not words."""
    if input_format == "vertical":
        blocks = data.strip("\n").split("\n\n")
        data = "\n".join(" ".join(line.split()[0] for line in block.split("\n") if line.strip()) for block in blocks) + "\n"
    descriptor, path = tempfile.mkstemp(prefix=".hetdep-request.")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(data)
        reader = read_conllu(path, name="data") if input_format == "conllu" else read_tokenized_text(path, name="data")
        return list(reader)
    finally:
        os.unlink(path)


def check_utf8(query: bytes, body: bytes, content_type: str) -> None:
    """Refuse a request whose fields are not UTF-8 (the form parser would replace the bad bytes or
    read them as Latin-1, and the text parsed would not be the text sent)."""
    def percent_decoded(encoded: bytes) -> None:
        for pair in encoded.split(b"&"):
            for part in pair.split(b"=", 1):
                unquote_to_bytes(part.replace(b"+", b" ")).decode("utf-8")

    try:
        percent_decoded(query)
        if content_type.startswith("application/x-www-form-urlencoded"):
            percent_decoded(body)
        else:  # multipart: its boundaries and headers are ASCII, so a body of UTF-8 has fields of UTF-8
            body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RequestError(400, f"the request is not UTF-8 (byte {error.object[error.start]:#04x}): send text as UTF-8") from None


@dataclass(frozen=True)
class Job:
    """What a request asks, checked before any work: the model, the scheme of ``result``, the steps."""

    served: Served
    scheme: str
    data: str
    input: str
    output: str
    tokenizer: tuple[str, ...] | None  # None: the input is not raw text
    tagger: bool
    parser: bool


def job_of(fields: dict, served: dict[str, Served], default: str) -> Job:
    if "data" not in fields:
        raise RequestError(400, "the request has no 'data' field: send the text or CoNLL-U to process as the form "
                                "field (or query field) 'data'")
    chosen = choose_model(served, fields.get("model") or default)
    scheme = fields.get("scheme", chosen.scheme).strip()
    if scheme not in chosen.model.schemes:
        raise RequestError(400, f"no scheme {scheme!r}: model {chosen.name!r} gives {', '.join(chosen.model.schemes)}")
    if chosen.fixed and scheme != chosen.scheme:
        raise RequestError(400, f"model {chosen.name!r} answers in {chosen.scheme}, not {scheme}: name the model "
                                f"{chosen.name.removesuffix(chosen.scheme)}{scheme}, or leave out 'scheme'")
    # Spaces around a value or an option are the sender's layout, not part of the name (UDPipe 2 clients send "a; b").
    input_format, output = fields.get("input", "conllu").strip(), fields.get("output", "conllu").strip()
    if input_format not in INPUTS and "tokenizer" not in fields:
        raise RequestError(400, f"input {input_format!r} is not one of {', '.join(INPUTS)} (or send 'tokenizer' for raw text)")
    if output not in OUTPUTS:
        raise RequestError(400, f"output {output!r} is not one of {', '.join(OUTPUTS)}")
    tokenizer = None
    if "tokenizer" in fields:
        tokenizer = tuple(option.strip() for option in fields["tokenizer"].replace(",", ";").split(";") if option.strip())
        unknown = [option for option in tokenizer if option not in TOKENIZER_OPTIONS]
        if unknown:
            raise RequestError(400, f"tokenizer option {unknown[0]!r} is not one of {', '.join(TOKENIZER_OPTIONS)}")
    # Text as one form of Unicode (NFC, as the treebanks are) with Unix line ends.
    data = unicodedata.normalize("NFC", fields["data"].replace("\r\n", "\n"))
    return Job(chosen, scheme, data, input_format, output, tokenizer, "tagger" in fields, "parser" in fields)
