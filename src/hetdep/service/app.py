"""hetdep over HTTP: UDPipe 2's REST interface, pictures, and a web page, on Starlette via FastAPI.

``GET /models`` and ``POST /process`` take and give what UDPipe 2's service does (form or query
fields ``data``, ``model``, ``tokenizer``, ``tagger``, ``parser``, ``input``, ``output``; a JSON
answer whose ``result`` is CoNLL-U), so clients written for it work unchanged; a joint model's
answer adds ``results``, every scheme's CoNLL-U, and ``result`` is the scheme named by the field
``scheme`` (the model's first by default). ``POST /render`` answers the same request with an
HTML page of the trees, and ``GET /`` is a page (a plain form, no script) where a person types
text, sees both trees and downloads the CoNLL-U.

Models are loaded once, at start. Parsing runs in worker threads, at most ``workers`` at a time,
never on the event loop; a request larger than ``max_bytes`` gets 413, a sentence longer than
``max_words`` or a parse longer than ``timeout`` seconds an error; every error is JSON (or the
page, for the page) with a 4xx status, so no input takes the server down.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from html import escape
from urllib.parse import quote, unquote_to_bytes

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse

from hetdep.api.document import Document
from hetdep.api.model import Model
from hetdep.errors import HetdepError
from hetdep.treebank.conllu import Sentence, read_conllu, read_tokenized_text

INPUTS = ("conllu", "horizontal")  # UDPipe 2's names: CoNLL-U, or one tokenized sentence a line


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 1 << 20
    max_words: int = 250
    timeout: float = 60.0
    workers: int = 2


class RequestError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def _sentences_from(data: str, input_format: str) -> list[Sentence]:
    """CoNLL-U or tokenized text sent in a request, read by the same readers as files (errors name ``data:LINE``)."""
    descriptor, path = tempfile.mkstemp(prefix=".hetdep-request.")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(data)
        reader = read_conllu(path, name="data") if input_format == "conllu" else read_tokenized_text(path, name="data")
        return list(reader)
    finally:
        os.unlink(path)


def _check_utf8(query: bytes, body: bytes, content_type: str) -> None:
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
class Outcome:
    conllu: dict[str, str]  # per scheme
    document: Document | None  # when parsed


def _process(model: Model, fields: dict, limits: Limits) -> Outcome:
    """What one request asks of a model (run in a worker thread)."""
    data = fields.get("data", "")
    if "tokenizer" in fields:
        sentences = model.tokenize(data)
    else:
        input_format = fields.get("input", "conllu")
        if input_format not in INPUTS:
            raise RequestError(400, f"input {input_format!r} is not one of {', '.join(INPUTS)} (or send 'tokenizer' for raw text)")
        sentences = _sentences_from(data, input_format)
    for sentence in sentences:
        if len(sentence) > limits.max_words:
            raise RequestError(413, f"a sentence of {len(sentence)} words (sent_id {sentence.sent_id}) is longer than "
                                    f"this server's limit of {limits.max_words}")
    if "parser" not in fields:
        tagged = model.tag(sentences) if "tagger" in fields else sentences
        return Outcome({model.schemes[0]: "".join(s.to_text() for s in tagged)}, None)
    document = model.parse_sentences(sentences)
    return Outcome({scheme: document.to_conllu(scheme) for scheme in document.schemes}, document)


def create_app(models: dict[str, str], limits: Limits = Limits()) -> FastAPI:
    """The service for ``models`` (name -> model directory), loaded now; the first is the default."""
    if not models:
        raise HetdepError("give at least one model: --model NAME=DIR")
    loaded = {name: Model(path, quiet=True) for name, path in models.items()}  # warnings go into the answers
    default = next(iter(loaded))
    pool = anyio.CapacityLimiter(limits.workers)
    app = FastAPI(title="hetdep", description="Heterogeneous dependency parsing; UDPipe 2's REST interface.")

    async def fields_of(request: Request) -> dict:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limits.max_bytes:
            raise RequestError(413, f"the request has {int(length):,} bytes; this server takes at most {limits.max_bytes:,}")
        body = await request.body()
        if len(body) > limits.max_bytes:
            raise RequestError(413, f"the request has {len(body):,} bytes; this server takes at most {limits.max_bytes:,}")
        _check_utf8(request.scope.get("query_string", b""), body, request.headers.get("content-type", ""))
        fields = dict(request.query_params)
        if body:
            try:
                form = await request.form()
            except Exception as error:  # a malformed form body: the client's mistake, said in one line
                raise RequestError(400, f"the request body is not a form: {error}") from None
            try:
                fields.update({key: value if isinstance(value, str) else (await value.read()).decode("utf-8")
                               for key, value in form.items()})
            except UnicodeDecodeError as error:
                raise RequestError(400, f"a form field is not UTF-8: {error}") from None
        return fields

    async def run(fields: dict):
        if "data" not in fields:
            raise RequestError(400, "the request has no 'data' field: send the text or CoNLL-U to process as the form "
                                    "field (or query field) 'data'")
        name = fields.get("model", default)
        if name not in loaded:
            raise RequestError(400, f"no model {name!r}; this server has {', '.join(loaded)}")
        if fields.get("output", "conllu") != "conllu":
            raise RequestError(400, f"output {fields['output']!r}: this server writes conllu")
        with anyio.fail_after(limits.timeout):
            result = await anyio.to_thread.run_sync(_process, loaded[name], fields, limits, limiter=pool, abandon_on_cancel=True)
        return name, result

    def error_response(error: Exception, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=getattr(error, "status", status))

    async def answer(fields: dict) -> tuple[str, Outcome] | JSONResponse:
        """The outcome of a request, or the error response to send instead."""
        try:
            return await run(fields)
        except RequestError as error:
            return error_response(error)
        except (HetdepError, UnicodeDecodeError) as error:
            return error_response(error, 400)
        except TimeoutError:
            return error_response(RequestError(503, f"parsing took longer than this server's limit of {limits.timeout:g} s"))

    async def answer_request(request: Request) -> tuple[str, Outcome] | JSONResponse:
        try:
            fields = await fields_of(request)
        except RequestError as error:
            return error_response(error)
        return await answer(fields)

    @app.get("/models")
    async def models_route():
        return {"models": {name: ["tokenizer", "tagger", "parser"] if m.has_tokenizer else ["tagger", "parser"]
                           for name, m in loaded.items()},
                "default_model": default,
                "schemes": {name: list(m.schemes) for name, m in loaded.items()}}

    @app.post("/process")
    async def process_route(request: Request):
        answered = await answer_request(request)
        if isinstance(answered, JSONResponse):
            return answered
        name, outcome = answered
        scheme = (await fields_of(request)).get("scheme", next(iter(outcome.conllu)))
        if scheme not in outcome.conllu:
            return error_response(RequestError(400, f"no scheme {scheme!r}: model {name!r} gives {', '.join(outcome.conllu)}"))
        answer = {"model": name, "acknowledgements": ["hetdep"], "result": outcome.conllu[scheme], "results": outcome.conllu}
        if outcome.document is not None and outcome.document.warnings:
            answer["warning"] = " ".join(outcome.document.warnings)
        return answer

    @app.post("/render")
    async def render_route(request: Request):
        answered = await answer_request(request)
        if isinstance(answered, JSONResponse):
            return answered
        outcome = answered[1]
        if outcome.document is None:
            return error_response(RequestError(400, "/render draws trees: send 'parser' too"))
        return HTMLResponse(outcome.document.render())

    @app.get("/", response_class=HTMLResponse)
    async def page_route():
        return _page(list(loaded), default, "", None, "")

    @app.post("/", response_class=HTMLResponse)
    async def page_submit(request: Request):
        try:
            fields = await fields_of(request)
        except RequestError as error:
            return HTMLResponse(_page(list(loaded), default, "", None, error.message), status_code=error.status)
        text, name = fields.get("data", ""), fields.get("model", default)
        if not text.strip():
            return HTMLResponse(_page(list(loaded), name, text, None, "Type some text first."), status_code=400)
        answered = await answer(fields | {"tokenizer": "", "parser": ""})
        if isinstance(answered, JSONResponse):
            message = answered.body.decode("utf-8")
            return HTMLResponse(_page(list(loaded), name, text, None, message), status_code=answered.status_code)
        return HTMLResponse(_page(list(loaded), name, text, answered[1], ""))

    return app


def _page(names: list[str], chosen: str, text: str, outcome: Outcome | None, error: str) -> str:
    """The web page: a form, and after a submission the trees and the CoNLL-U to download."""
    options = "".join(f'<option{" selected" if n == chosen else ""}>{escape(n)}</option>' for n in names)
    parts = ["<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>hetdep</title><style>"
             "body{font-family:sans-serif;margin:1.5em;max-width:100%} textarea{width:100%;max-width:60em;height:6em}"
             " figure{margin:0 0 1.5em;overflow-x:auto} .error{color:#b00}</style></head><body>",
             "<h1>hetdep</h1><p>Type or paste text; both schemes' trees are drawn, one above the words, one below.</p>",
             f'<form method="post" action="/"><textarea name="data" id="data">{escape(text)}</textarea><br>'
             f'<label>Model <select name="model" id="model">{options}</select></label> '
             '<button type="submit" id="parse">Parse</button></form>']
    if error:
        parts.append(f'<p class="error" id="error">{escape(error)}</p>')
    if outcome is not None:
        for scheme, conllu in outcome.conllu.items():
            parts.append(f'<p><a id="download-{escape(scheme)}" download="hetdep-{escape(scheme)}.conllu" '
                         f'href="data:text/plain;charset=utf-8,{quote(conllu)}">Download the {escape(scheme)} CoNLL-U</a></p>')
        parts += [f"<figure>{sentence.render()}</figure>" for sentence in outcome.document]
    parts.append("</body></html>")
    return "".join(parts)
