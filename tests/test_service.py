"""The HTTP service through real HTTP on 127.0.0.1: UDPipe 2's interface, pictures, the page, limits and bad requests."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
import uvicorn

import hetdep
from hetdep.service.app import Limits, create_app

TEXT = "Le ministre parle du budget au public. Les élèves visitent le musée."


@pytest.fixture(scope="module")
def server(pipeline_model):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app({"joint": str(pipeline_model)}, Limits(max_bytes=20_000, max_words=60, timeout=30, workers=2))
    instance = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not instance.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(10)


def _request(url: str, fields: dict | None = None, body: bytes | None = None, multipart: bool = False):
    headers = {}
    if fields is not None and multipart:  # as UDPipe 2's own client sends them
        boundary = "hetdep-test-boundary"
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{v}\r\n'
                 for k, v in fields.items()]
        body = ("".join(parts) + f"--{boundary}--\r\n").encode("utf-8")
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    elif fields is not None:
        body = urllib.parse.urlencode(fields).encode("utf-8")
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=60) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def test_udpipe_clients_get_what_udpipe_gives(server, pipeline_model):
    status, text = _request(f"{server}/models")
    models = json.loads(text)
    assert status == 200 and models["default_model"] == "joint" and models["models"]["joint"] == ["tokenizer", "tagger", "parser"]
    status, text = _request(f"{server}/process", {"data": TEXT, "tokenizer": "", "tagger": "", "parser": ""}, multipart=True)
    answer = json.loads(text)
    assert status == 200 and answer["model"] == "joint" and set(answer["results"]) == {"sud", "ud"}
    expected = hetdep.load(pipeline_model)(TEXT)
    assert answer["result"] == expected.to_conllu("sud") and answer["results"]["ud"] == expected.to_conllu("ud")
    status, text = _request(f"{server}/process", {"data": "Le chat dort .\n", "input": "horizontal", "tagger": "", "parser": ""})
    assert status == 200 and "\tchat\t" in json.loads(text)["result"]
    status, text = _request(f"{server}/process", {"data": "Le chat dort .\n", "input": "horizontal", "tagger": ""})
    row = next(line.split("\t") for line in json.loads(text)["result"].splitlines() if line.startswith("2\t"))
    # "chat": lemma and features filled, as UDPipe's tagger does
    assert status == 200 and row[1:4] == ["chat", "chat", "NOUN"] and "Number=Sing" in row[5]
    status, text = _request(f"{server}/process", {"data": TEXT, "tokenizer": ""})  # tokenize only, as UDPipe does
    tokens_only = json.loads(text)["result"]
    assert status == 200 and "4-5\tdu" in tokens_only and "\tNOUN\t" not in tokens_only


def test_pictures_and_the_page(server):
    status, html = _request(f"{server}/render", {"data": TEXT, "tokenizer": "", "parser": ""})
    assert status == 200 and html.count("<figure>") == 2 and "<script" not in html
    status, page = _request(f"{server}/")
    assert status == 200 and '<form method="post" action="/">' in page and 'name="data"' in page
    status, page = _request(f"{server}/", {"data": TEXT, "model": "joint"})
    assert status == 200 and page.count("<svg") == 2 and 'id="download-sud"' in page and 'id="download-ud"' in page
    assert "<script" not in page


@pytest.mark.parametrize("fields, body, status, message", [
    ({"data": "x", "model": "nope"}, None, 400, "no model 'nope'"),
    ({"data": "x", "tokenizer": "", "parser": "", "output": "xml"}, None, 400, "writes conllu"),
    ({"data": "1\tLe\n", "parser": ""}, None, 400, "data:1"),
    ({"data": "x", "input": "vertical", "parser": ""}, None, 400, "input 'vertical'"),
    ({"data": "mot " * 61, "input": "horizontal", "parser": ""}, None, 413, "longer than this server's limit of 60"),
    ({"data": "a" * 30_000, "tokenizer": ""}, None, 413, "at most 20,000"),
    (None, b"data=%ff%fe&parser=", 400, ""),
    ({"data": "Il pleut.", "tokenizer": "", "parser": "", "scheme": "xyz"}, None, 400, "no scheme 'xyz'"),
])
def test_bad_requests_get_a_json_4xx_and_the_server_lives_on(server, fields, body, status, message):
    got, text = _request(f"{server}/process", fields, body)
    assert got == status and message in json.loads(text)["error"]
    assert _request(f"{server}/models")[0] == 200


def test_concurrent_requests_all_answered_the_same(server):
    fields = {"data": TEXT, "tokenizer": "", "tagger": "", "parser": ""}
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda _: _request(f"{server}/process", fields), range(24)))
    assert {status for status, _ in answers} == {200}
    assert len({json.loads(text)["result"] for _, text in answers}) == 1


def test_a_file_field_that_is_not_utf8_is_a_400(server):
    boundary = "b"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="data"; filename="t.txt"\r\n'
            'Content-Type: text/plain\r\n\r\n').encode() + b"\xff\xfe\xfa" + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(f"{server}/process", data=body, headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=30)
    assert error.value.code == 400 and "not UTF-8" in json.loads(error.value.read())["error"]


@pytest.mark.parametrize("path, body, content_type, message", [
    ("/process?tokenizer=&parser=", "--b\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\nIl pleut \udcff.\r\n--b--\r\n",
     "multipart/form-data; boundary=b", "not UTF-8"),  # a text field of multipart holding the byte 0xff
    ("/process?tokenizer=&parser=&data=Il%20pleut%E9", None, None, "not UTF-8"),  # Latin-1 in the query
    ("/process", b"data=Il+pleut%E9&tokenizer=&parser=", "application/x-www-form-urlencoded", "not UTF-8"),
    ("/process", b"tokenizer=&parser=", "application/x-www-form-urlencoded", "no 'data' field"),
    ("/process", b'{"data": "Il pleut."}', "application/json", "no 'data' field"),
    ("/process", b"Il pleut.", "text/plain", "no 'data' field"),
    ("/render", b"parser=", "application/x-www-form-urlencoded", "no 'data' field"),
])
def test_requests_without_utf8_or_without_data_are_a_400(server, path, body, content_type, message):
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogateescape")
    headers = {"Content-Type": content_type} if content_type else {}
    request = urllib.request.Request(f"{server}{path}", data=body if body is not None else b"", headers=headers)
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=30)
    assert error.value.code == 400 and message in json.loads(error.value.read())["error"]
    assert _request(f"{server}/models")[0] == 200


def test_empty_text_and_a_chosen_scheme(server):
    status, text = _request(f"{server}/process", {"data": "", "tokenizer": "", "parser": ""})
    assert status == 200 and json.loads(text)["result"] == ""
    status, text = _request(f"{server}/process", {"data": TEXT, "tokenizer": "", "parser": "", "scheme": "ud"})
    answer = json.loads(text)
    assert status == 200 and answer["result"] == answer["results"]["ud"] != answer["results"]["sud"]


def test_text_mostly_unknown_to_the_model_gets_a_warning_field(server):
    status, text = _request(f"{server}/process", {"data": "The committee met yesterday to discuss the budget of the "
                                                          "next year with everyone.", "tokenizer": "", "parser": ""})
    assert status == 200 and "unknown to the model" in json.loads(text)["warning"]
    status, text = _request(f"{server}/process", {"data": TEXT, "tokenizer": "", "parser": ""})
    assert status == 200 and "warning" not in json.loads(text)
