"""hetdep over HTTP: UDPipe 2's REST interface, pictures, and a web page, on Starlette via FastAPI.

``GET /models`` and ``GET``/``POST /process`` take and give what UDPipe 2's service does (form or
query fields ``data``, ``model``, ``tokenizer``, ``tagger``, ``parser``, ``input``, ``output``; a
JSON answer whose ``result`` is the output), so its own client works unchanged. Every scheme of a
joint model is also served as a model of its own (``NAME-ud``), and a model name may be given by a
prefix, as UDPipe 2 allows; ``results`` holds every scheme's output and the field ``scheme``
chooses ``result`` (what a request asks: :mod:`hetdep.service.requests`). ``POST /render`` answers with an HTML page of the trees, and ``GET /`` is a
page (a plain form, no script) where a person types text, sees both trees and downloads the CoNLL-U.

Models are loaded once, at start. A request's sentences are parsed in batches of about
BATCH_WORDS words, each a unit of work for one of ``workers`` threads, short requests' first
(:mod:`hetdep.service.turns`), so a short request waits for the batches already running, never
for a long request; the small batches of requests that wait together are parsed as one
(:mod:`hetdep.service.gather`); ``timeout`` bounds each
batch, a request whose client went away stops between batches, and no more than ``max_queued``
batches wait at once (503 beyond). The body is counted while it is read (413 past
``max_bytes``). Every error is the same JSON (or the page, for the page) with a 4xx/5xx status.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from html import escape
from urllib.parse import quote

import anyio
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException

from hetdep.api.document import Document
from hetdep.api.model import Model
from hetdep.errors import HetdepError
from hetdep.service.gather import Gatherer
from hetdep.service.requests import Job, RequestError, check_utf8, job_of, sentences_from, served_names
from hetdep.service.turns import Turns
from hetdep.threads import limit_blas_threads, usable_cores
from hetdep.tokenizer.text import rebuild_text
from hetdep.treebank.conllu import Sentence

BATCH_WORDS = 2000  # words a unit of work parses (about a second on one core)
PAGE_READS = 4  # the page reads a body this many times the limit, to give back the text it refuses


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 4 << 20  # UDPipe 2's limit
    max_words: int = 250
    timeout: float = 60.0  # seconds for one batch of work
    workers: int = 2
    max_queued: int = 1024  # units of work (a request's reading, its batches) waiting for a thread: 200 clients at once fit


def _written(trees: list[Sentence], output: str) -> str:
    """Sentences in one of UDPipe 2's output formats."""
    if output == "conllu":
        return "".join(tree.to_text() for tree in trees)
    if output == "horizontal":
        return "".join(" ".join(tree.forms) + "\n" for tree in trees)
    if output == "vertical":
        return "".join("".join(form + "\n" for form in tree.forms) + "\n" for tree in trees)
    return rebuild_text(trees)


@dataclass
class Outcome:
    results: dict[str, str]  # per scheme, in the output format asked for
    document: Document | None  # when parsed for drawing
    warnings: list[str]


def _read(job: Job, limits: Limits) -> list[Sentence]:
    """The request's sentences (run in a worker thread: tokenizing a long text takes seconds)."""
    if job.tokenizer is not None:
        sentences = job.served.model.tokenize(job.data, presegmented="presegmented" in job.tokenizer,
                                              ranges="ranges" in job.tokenizer)
    else:
        sentences = sentences_from(job.data, job.input)
    for sentence in sentences:
        if len(sentence) > limits.max_words:
            raise RequestError(413, f"a sentence of {len(sentence)} words (sent_id {sentence.sent_id}) is longer than "
                                    f"this server's limit of {limits.max_words}")
    return sentences


@dataclass
class Done:
    """One batch done: each scheme's output text, the words unknown to the model, those of sentences
    that look like another language, and the parsed sentences when they are drawn."""

    texts: list[str]
    unknown_words: int
    foreign: Counter  # words of foreign-looking sentences, by the language they look like
    sentences: list


def _work(job: Job, batch: list[Sentence], drawn: bool) -> Done:
    """One batch of a request's sentences tagged or parsed and written out (run in a worker thread)."""
    model = job.served.model
    if not job.parser:
        return Done([_written(model.tag(batch) if job.tagger else batch, job.output)], 0, Counter(), [])
    return _done(job, model.parse_sentences(batch, keep_tags=not job.tagger), drawn)  # no tagger asked for: the input's tags stay


def _work_together(units: list[tuple[Job, list[Sentence], bool]]) -> list[Done]:
    """Batches of several requests to parse with one model and the same tagger choice, parsed as
    one (:mod:`hetdep.service.gather`), each written out as its request asks."""
    first = units[0][0]
    documents = first.served.model.parse_parts([batch for _, batch, _ in units], keep_tags=not first.tagger)
    return [_done(job, document, drawn) for (job, _, drawn), document in zip(units, documents, strict=True)]


def _done(job: Job, document: Document, drawn: bool) -> Done:
    texts = [_written([sentence.tree(scheme) for sentence in document], job.output) for scheme in job.served.model.schemes]
    return Done(texts, document.unknown_words, document.foreign, list(document) if drawn else [])


def batches(sentences: list[Sentence], words: int | None = None) -> list[list[Sentence]]:
    """Consecutive sentences in batches of about ``words`` words (BATCH_WORDS; one sentence at least)."""
    words = words or BATCH_WORDS
    cut, current, count = [], [], 0
    for sentence in sentences:
        if current and count + len(sentence) > words:
            cut.append(current)
            current, count = [], 0
        current.append(sentence)
        count += len(sentence)
    return cut + ([current] if current else [])


def create_app(models: dict[str, str], limits: Limits = Limits(), precision: str | None = None) -> FastAPI:
    """The service for ``models`` (name -> model directory or installed model's name), loaded now;
    the first is the default; ``precision``: a neural model's arithmetic (by default its own)."""
    if not models:
        raise HetdepError("give at least one model: --model NAME=DIR")
    loaded = {name: Model(path, quiet=True, precision=precision) for name, path in models.items()}  # warnings go into the answers
    limit_blas_threads(usable_cores() // limits.workers)  # each worker's products on its share of the cores
    served = served_names(loaded)
    default = next(iter(loaded))
    turns = Turns(limits.workers)  # short requests' units of work first (hetdep.service.turns)
    queued = [0]  # batches waiting for a thread
    gatherer = Gatherer(BATCH_WORDS)  # small batches of concurrent requests parsed as one (hetdep.service.gather)
    app = FastAPI(title="hetdep", description="Heterogeneous dependency parsing; UDPipe 2's REST interface.")
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET", "POST"])

    async def body_of(request: Request, limit: int) -> bytes:
        """The body, counted as it arrives: past ``limit`` bytes, 413 without reading the rest."""
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            raise RequestError(413, f"the request has {int(length):,} bytes; this server takes at most {limits.max_bytes:,}")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise RequestError(413, f"the request has more than {limits.max_bytes:,} bytes; this server takes at "
                                        f"most {limits.max_bytes:,}")
            chunks.append(chunk)
        return b"".join(chunks)

    async def fields_of(request: Request, body: bytes) -> dict:
        check_utf8(request.scope.get("query_string", b""), body, request.headers.get("content-type", ""))
        fields = dict(request.query_params)
        if body:
            async def replay():
                return {"type": "http.request", "body": body, "more_body": False}

            try:
                form = await Request(request.scope, replay).form(max_part_size=len(body))  # the body is within the limit
            except Exception as error:  # a malformed form body: the client's mistake, said in one line
                raise RequestError(400, f"the request body is not a form: {error}") from None
            try:
                fields.update({key: value if isinstance(value, str) else (await value.read()).decode("utf-8")
                               for key, value in form.items()})
            except UnicodeDecodeError as error:
                raise RequestError(400, f"a form field is not UTF-8: {error}") from None
        return fields

    async def in_thread(size: int, function, *arguments):
        """One unit of work of a request of ``size`` characters on a worker thread, in its turn; it
        is never abandoned, so the threads at work never outnumber ``workers`` (a batch past the
        timeout ends, then 503)."""
        if queued[0] >= limits.max_queued:
            raise RequestError(503, f"the server is busy ({queued[0]} batches of work waiting): try again later")
        queued[0] += 1
        waiting = True
        try:
            async with turns.turn(size):
                queued[0], waiting = queued[0] - 1, False
                with anyio.fail_after(limits.timeout):
                    return await anyio.to_thread.run_sync(function, *arguments, abandon_on_cancel=False)
        finally:
            if waiting:  # cancelled while it waited
                queued[0] -= 1

    async def run(job: Job, request: Request, drawn: bool) -> Outcome | None:
        """The job's outcome; None when the client went away (the work stops between batches).
        Each batch is written out as it is done and its sentences let go, unless ``drawn`` (the
        trees are drawn: the Document is kept)."""
        parts = batches(await in_thread(len(job.data), _read, job, limits))
        schemes = job.served.model.schemes if job.parser else job.served.model.schemes[:1]
        texts: dict[str, list[str]] = {scheme: [] for scheme in schemes}
        kept: list = []
        words = unknown = 0
        foreign: Counter = Counter()
        for k in range(len(parts)):
            batch, parts[k] = parts[k], []  # the input's sentences go with their batch
            if await request.is_disconnected():
                return None
            batch_words = sum(len(sentence) for sentence in batch)
            if job.parser and batch_words < BATCH_WORDS:  # a small batch joins those of other requests that wait
                done = await gatherer.run((id(job.served.model), job.tagger), (job, batch, drawn), batch_words,
                                          _work_together, lambda work: in_thread(len(job.data), work))
            else:
                done = await in_thread(len(job.data), _work, job, batch, drawn)
            words, unknown = words + batch_words, unknown + done.unknown_words
            foreign += done.foreign
            for scheme, text in zip(schemes, done.texts):
                texts[scheme].append(text)
            kept += done.sentences
        warning = job.served.model.foreign_text_warning(foreign, words) if job.parser else None
        warnings = [warning] if warning else []
        document = Document(kept, schemes, warnings, unknown, foreign) if drawn and job.parser else None
        return Outcome({scheme: "".join(pieces) for scheme, pieces in texts.items()}, document, warnings)

    def error_response(error: Exception, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=getattr(error, "status", status))

    async def answer(request: Request, fields: dict | None = None, drawn: bool = False) -> tuple[Job, Outcome] | JSONResponse | None:
        """The job and outcome of a request, the error response to send instead, or None (client gone)."""
        try:
            if fields is None:
                fields = await fields_of(request, await body_of(request, limits.max_bytes))
            job = job_of(fields, served, default)
            outcome = await run(job, request, drawn)
            return None if outcome is None else (job, outcome)
        except RequestError as error:
            return error_response(error)
        except (HetdepError, UnicodeDecodeError) as error:
            return error_response(error, 400)
        except TimeoutError:
            return error_response(RequestError(503, f"a batch of work took longer than this server's limit of "
                                                    f"{limits.timeout:g} s"))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException):  # 404, 405: the same JSON as every error
        return JSONResponse({"error": f"{request.method} {request.url.path}: {error.detail}"}, status_code=error.status_code)

    @app.get("/models")
    async def models_route():
        return {"models": {name: (["tokenizer"] if m.model.has_tokenizer else []) + ["tagger", "parser"]
                           for name, m in served.items()},
                "default_model": default,
                "schemes": {name: list(m.model.schemes) for name, m in served.items()}}

    @app.api_route("/process", methods=["GET", "POST"])
    async def process_route(request: Request):
        answered = await answer(request)
        if answered is None or isinstance(answered, JSONResponse):
            return answered if answered is not None else JSONResponse({"error": "the client went away"}, status_code=499)
        job, outcome = answered
        scheme = job.scheme if job.parser else next(iter(outcome.results))
        reply = {"model": job.served.name, "acknowledgements": ["hetdep"], "result": outcome.results[scheme],
                 "results": outcome.results}
        if outcome.warnings:
            reply["warning"] = " ".join(outcome.warnings)
        return reply

    @app.post("/render")
    async def render_route(request: Request):
        answered = await answer(request, drawn=True)
        if answered is None or isinstance(answered, JSONResponse):
            return answered if answered is not None else JSONResponse({"error": "the client went away"}, status_code=499)
        outcome = answered[1]
        if outcome.document is None:
            return error_response(RequestError(400, "/render draws trees: send 'parser' too"))
        return HTMLResponse(outcome.document.render())

    @app.get("/", response_class=HTMLResponse)
    async def page_route():
        return _page(list(loaded), default, "", None, "")

    @app.post("/", response_class=HTMLResponse)
    async def page_submit(request: Request):
        try:  # read past the limit, to give the text back with the error
            body = await body_of(request, PAGE_READS * limits.max_bytes)
            fields = await fields_of(request, body)
        except RequestError as error:
            return HTMLResponse(_page(list(loaded), default, "", None, error.message + " (the text was too large "
                                      "to give back)" if error.status == 413 else error.message), status_code=error.status)
        text, name = fields.get("data", ""), fields.get("model", default)
        if len(body) > limits.max_bytes:
            return HTMLResponse(_page(list(loaded), name, text, None, f"The text has {len(body):,} bytes; this server "
                                      f"takes at most {limits.max_bytes:,}."), status_code=413)
        if not text.strip():
            return HTMLResponse(_page(list(loaded), name, text, None, "Type some text first."), status_code=400)
        answered = await answer(request, fields | {"tokenizer": "", "tagger": "", "parser": ""}, drawn=True)
        if answered is None:
            return HTMLResponse("", status_code=499)
        if isinstance(answered, JSONResponse):
            message = json.loads(answered.body)["error"]
            return HTMLResponse(_page(list(loaded), name, text, None, message[:1].upper() + message[1:] + "."),
                                status_code=answered.status_code)
        return HTMLResponse(_page(list(loaded), name, text, answered[1], ""))

    return app


def _page(names: list[str], chosen: str, text: str, outcome: Outcome | None, error: str) -> str:
    """The web page: a form, and after a submission the trees and the CoNLL-U to download."""
    options = "".join(f'<option{" selected" if n == chosen else ""}>{escape(n)}</option>' for n in names)
    parts = ["<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>hetdep</title><style>"
             "body{font-family:sans-serif;margin:1.5em;max-width:100%} textarea{width:100%;max-width:60em;height:6em}"
             " figure{margin:0 0 1.5em;max-width:100%;overflow-x:auto} figure svg{display:block}"
             " figcaption{margin-bottom:.3em} .error{color:#b00}</style></head><body>",
             "<h1>hetdep</h1><p>Type or paste text; both schemes' trees are drawn, one above the words, one below.</p>",
             f'<form method="post" action="/"><textarea name="data" id="data">{escape(text)}</textarea><br>'
             f'<label>Model <select name="model" id="model">{options}</select></label> '
             '<button type="submit" id="parse">Parse</button></form>']
    if error:
        parts.append(f'<p class="error" id="error">{escape(error)}</p>')
    if outcome is not None:
        for scheme, conllu in outcome.results.items():
            parts.append(f'<p><a id="download-{escape(scheme)}" download="hetdep-{escape(scheme)}.conllu" '
                         f'href="data:text/plain;charset=utf-8,{quote(conllu)}">Download the {escape(scheme)} CoNLL-U</a></p>')
        parts += [f"<figure><figcaption>{escape(sentence.text or ' '.join(w.form for w in sentence.words))}</figcaption>"
                  f"{sentence.render()}</figure>" for sentence in outcome.document]
    parts.append("</body></html>")
    return "".join(parts)
