"""The HTTP service through real HTTP on 127.0.0.1: UDPipe 2's interface, pictures, the page, limits and bad requests."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
import uvicorn
from conftest import SAMPLES, SHARED_DATA

import hetdep
from hetdep.service.app import Limits, create_app
from hetdep.treebank.conllu import read_conllu

TEXT = "Le ministre parle du budget au public. Les élèves visitent le musée."


def _serving(app):
    """The app served on a free port of 127.0.0.1 in a thread: its URL, then stopped."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    instance = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not instance.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def server(pipeline_model):
    yield from _serving(create_app({"joint": str(pipeline_model)},
                                   Limits(max_bytes=20_000, max_words=60, timeout=30, workers=2)))


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
    assert answer["result"] == expected.to_conllu("ud") and answer["results"]["sud"] == expected.to_conllu("sud")  # UD, as UDPipe 2
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
    assert "<figcaption>Le ministre parle du budget au public.</figcaption>" in page


@pytest.mark.parametrize("fields, status, error", [
    ({"data": TEXT, "model": "nope"}, 400, "No model 'nope'; this server has joint, joint-sud, joint-ud."),
    ({"data": "mot " * 6_000, "model": "joint"}, 413, "The text has 24,017 bytes; this server takes at most 20,000."),
])
def test_the_page_keeps_the_text_and_says_what_went_wrong(server, fields, status, error):
    from html import escape

    got, page = _request(f"{server}/", fields)
    assert got == status and f'id="data">{escape(fields["data"])}</textarea>' in page
    assert escape(error) in page and '{"error"' not in page


@pytest.mark.parametrize("fields, body, status, message", [
    ({"data": "x", "model": "nope"}, None, 400, "no model 'nope'"),
    ({"data": "x", "tokenizer": "", "parser": "", "output": "xml"}, None, 400, "output 'xml' is not one of conllu, "),
    ({"data": "1\tLe\n", "parser": ""}, None, 400, "data:1"),
    ({"data": "x", "input": "xml", "parser": ""}, None, 400, "input 'xml'"),
    ({"data": "x", "tokenizer": "normalized_spaces", "parser": ""}, None, 400, "tokenizer option 'normalized_spaces'"),
    ({"data": "x", "model": "joint-xyz"}, None, 400, "no model 'joint-xyz'; this server has joint, joint-sud, joint-ud"),
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
    assert status == 200 and "another language than the model's" in json.loads(text)["warning"]
    status, text = _request(f"{server}/process", {"data": TEXT, "tokenizer": "", "parser": ""})
    assert status == 200 and "warning" not in json.loads(text)


def test_each_scheme_is_a_model_and_names_match_by_prefix(server):
    models = json.loads(_request(f"{server}/models")[1])
    assert list(models["models"]) == ["joint", "joint-sud", "joint-ud"] and models["default_model"] == "joint"
    results = {}
    for name in ("joint", "joint-sud", "joint-ud", "joint-u", "jo"):
        status, text = _request(f"{server}/process", {"data": TEXT, "model": name, "tokenizer": "", "parser": ""})
        answer = json.loads(text)
        assert status == 200
        results[name] = (answer["model"], answer["result"])
    assert results["joint"][1] == results["joint-ud"][1] == results["jo"][1] != results["joint-sud"][1]  # UD, as UDPipe 2's
    assert results["joint-u"] == results["joint-ud"] and results["joint-u"][0] == "joint-ud"


def test_the_last_full_stop_is_a_word_without_a_final_newline():
    pytest.importorskip("torch", reason="the shipped model is a neural one: it needs PyTorch ('hetdep[neural]')")
    from hetdep.models.names import shipped_model_path

    for url in _serving(create_app({"fr": str(shipped_model_path())}, Limits(max_bytes=20_000, max_words=60, timeout=30))):
        status, text = _request(f"{url}/process", {"data": "Il est allé à Paris.", "tokenizer": "", "parser": ""})
        assert status == 200
        forms = [line.split("\t")[1] for line in json.loads(text)["result"].splitlines() if line[:1].isdigit()]
        assert forms[-2:] == ["Paris", "."]


def test_without_a_tagger_the_inputs_tags_stay(server):
    conllu = ("1\tLe\tLEMMA1\tX\tXP\tF=1\t_\t_\t_\t_\n2\tchat\tLEMMA2\tX\tXP\tF=2\t_\t_\t_\t_\n"
              "3\tdort\tLEMMA3\tX\tXP\tF=3\t_\t_\t_\t_\n\n")
    status, text = _request(f"{server}/process", {"data": conllu, "parser": ""})
    rows = [line.split("\t") for line in json.loads(text)["result"].splitlines() if line]
    assert status == 200 and [row[2:6] for row in rows] == [[f"LEMMA{k}", "X", "XP", f"F={k}"] for k in (1, 2, 3)]
    assert all(row[6] != "_" for row in rows)  # parsed all the same
    status, text = _request(f"{server}/process", {"data": conllu, "parser": "", "tagger": ""})
    assert status == 200 and "\tNOUN\t" in json.loads(text)["result"]


def test_udpipe_formats_crlf_nfc_get_and_cors(server):
    ask = lambda **fields: json.loads(_request(f"{server}/process", fields)[1])["result"]  # noqa: E731
    assert ask(data="Le chat dort .\n", input="horizontal", output="vertical") == "Le\nchat\ndort\n.\n\n"
    assert ask(data="Le\nchat\ndort\n\nIl\npleut\n", input="vertical", output="horizontal") == "Le chat dort\nIl pleut\n"
    crlf = "1\tIl\t_\t_\t_\t_\t_\t_\t_\t_\r\n2\tpleut\t_\t_\t_\t_\t_\t_\t_\t_\r\n\r\n"
    assert ask(data=crlf, output="horizontal") == "Il pleut\n"
    decomposed = "Les e\u0301le\u0300ves visitent le muse\u0301e."
    assert ask(data=decomposed, tokenizer="", output="plaintext") == "Les élèves visitent le musée."
    ranges = ask(data="Il pleut. Le chat dort.", tokenizer="ranges")
    assert "TokenRange=0:2" in ranges and "TokenRange=10:12" in ranges
    lines = ask(data="Il pleut. Le chat\nM. Dupont dort.", tokenizer="presegmented", output="horizontal")
    assert lines.splitlines() == ["Il pleut . Le chat", "M. Dupont dort ."]
    spaced = ask(data="Il pleut. Le chat\nM. Dupont dort.", tokenizer=" presegmented; ranges ", input=" conllu")
    assert spaced.count("# text") == 2 and "TokenRange=0:2" in spaced  # options as UDPipe 2 clients space them
    columns = "Le\tDET\nchat NOUN\n  dort\n\nIl pleut\n"  # a vertical line's word is its first field, as UDPipe reads it
    assert ask(data=columns, input="vertical", output="horizontal") == "Le chat dort\nIl\n"
    query = urllib.parse.urlencode({"data": TEXT, "tokenizer": "", "parser": ""})
    request = urllib.request.Request(f"{server}/process?{query}", headers={"Origin": "https://example.org"})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200 and response.headers["Access-Control-Allow-Origin"] == "*"
        assert json.loads(response.read())["result"].count("# text") == 2
    for path, status in [("/nowhere", 404), ("/models?x=1", 200)]:
        got, text = _request(f"{server}{path}")
        assert got == status and (status == 200 or "error" in json.loads(text))
    got, text = _request(f"{server}/render")  # GET where only POST is served
    assert got == 405 and json.loads(text)["error"].startswith("GET /render")


def test_long_inputs_are_parsed_in_batches_and_answered_whole(server, pipeline_model, monkeypatch):
    from hetdep.service import app

    text = " ".join([TEXT] * 100)  # 200 sentences, 1,400 words: 28 batches of 50 words
    assert app.batches([s for s in hetdep.load(pipeline_model).tokenize(text)], 50)[0] != []
    seen = []
    work, together = app._work, app._work_together
    monkeypatch.setattr(app, "BATCH_WORDS", 50)
    monkeypatch.setattr(app, "_work", lambda job, batch, drawn: seen.append(len(batch)) or work(job, batch, drawn))
    monkeypatch.setattr(app, "_work_together", lambda units: seen.extend(len(batch) for _, batch, _ in units) or together(units))
    status, answer = _request(f"{server}/process", {"data": text, "tokenizer": "", "tagger": "", "parser": ""})
    assert status == 200 and len(seen) >= 25 and sum(seen) == 200
    expected = hetdep.load(pipeline_model, quiet=True)(text).to_conllu("ud")
    assert json.loads(answer)["result"] == expected


PEER_CLIENT = SHARED_DATA.parent / "peers" / "udpipe2_client.py"


@pytest.mark.skipif(not PEER_CLIENT.is_file(), reason=f"UDPipe 2's client is not at {PEER_CLIENT} (../shared/peers)")
def test_udpipe2s_own_client_reaches_every_scheme_and_format(server, pipeline_model, tmp_path):
    """UDPipe 2's client, unchanged (MPL 2.0, a test fixture in ../shared/peers, never copied here)."""
    def client(*options: str, text: str = TEXT) -> str:
        (tmp_path / "in.txt").write_text(text, encoding="utf-8", newline="")
        done = subprocess.run([sys.executable, str(PEER_CLIENT), "--service", server, *options, str(tmp_path / "in.txt")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    listed = subprocess.run([sys.executable, str(PEER_CLIENT), "--service", server, "--list_models"],
                            capture_output=True, text=True, timeout=60).stdout.splitlines()
    assert listed == ["joint", "joint-sud", "joint-ud", "Default model: joint"]
    expected = hetdep.load(pipeline_model, quiet=True)(TEXT)
    everything = ("--tokenizer=", "--tagger=", "--parser=")
    assert client(*everything) == expected.to_conllu("ud")  # what a UD model's name answers in UDPipe 2
    assert client("--model", "joint-sud", *everything) == expected.to_conllu("sud")
    assert client("--model", "joint-u", *everything) == expected.to_conllu("ud")  # a prefix, as UDPipe 2 allows
    assert client("--tokenizer=", "--output", "horizontal") == "".join(
        " ".join(s.tree("sud").forms) + "\n" for s in expected)
    assert client("--input", "horizontal", "--output", "vertical", text="Le chat dort .\r\n") == "Le\nchat\ndort\n.\n\n"
    assert client("--tokenizer=presegmented;ranges", text="Il pleut. Le chat\nM. Dupont dort.").count("# text") == 2
    crlf = expected.to_conllu("ud").replace("\n", "\r\n")
    assert client("--model", "joint-ud", "--parser=", text=crlf).count("# text") == 2
    (tmp_path / "in.txt").write_text(TEXT, encoding="utf-8")
    failed = subprocess.run([sys.executable, str(PEER_CLIENT), "--service", server, "--model", "nope", str(tmp_path / "in.txt")],
                            capture_output=True, text=True, timeout=60)
    assert failed.returncode != 0 and "no model 'nope'" in failed.stderr


def test_a_form_field_of_megabytes_is_read_whole(pipeline_model):
    """UDPipe 2 takes 4 MiB in one field; the form reader's own part limit (1 MiB) must not cut it."""
    sentences = 120_000  # 1.6 MB of text
    text = "Le chat dort. " * sentences
    for url in _serving(create_app({"joint": str(pipeline_model)}, Limits(workers=1))):
        status, answer = _request(f"{url}/process", {"data": text, "tokenizer": "", "output": "horizontal"}, multipart=True)
        assert status == 200, answer
        assert json.loads(answer)["result"] == "Le chat dort .\n" * sentences


def test_a_chunked_upload_past_the_limit_is_a_413(server):
    import http.client

    host, port = server.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    chunks = (b"data=" if k == 0 else b"mot+" * 250 for k in range(40))  # 39,005 bytes, no Content-Length
    connection.request("POST", "/process", body=chunks, encode_chunked=True,
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    assert response.status == 413 and "more than 20,000 bytes" in json.loads(response.read())["error"]
    connection.close()
    assert _request(f"{server}/models")[0] == 200


def test_the_work_of_a_client_that_went_away_stops(server, monkeypatch):
    from hetdep.service import app

    done = []
    work = app._work

    def slow_work(job, batch, drawn):
        time.sleep(0.2)
        done.append(len(batch))
        return work(job, batch, drawn)

    monkeypatch.setattr(app, "BATCH_WORDS", 10)
    monkeypatch.setattr(app, "_work", slow_work)
    body = urllib.parse.urlencode({"data": " ".join([TEXT] * 40), "tokenizer": "", "parser": ""}).encode()  # 80 batches
    host, port = server.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as client:
        client.sendall(b"POST /process HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                       + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        time.sleep(1.5)
    time.sleep(1.0)
    stopped_at = len(done)
    time.sleep(1.5)
    assert 0 < stopped_at < 40 and len(done) <= stopped_at + 1  # at most the batch at work when it went
    assert _request(f"{server}/models")[0] == 200


def test_work_past_the_queue_bound_is_a_503_and_the_server_goes_on(pipeline_model, monkeypatch):
    from hetdep.service import app

    work = app._work
    monkeypatch.setattr(app, "_work", lambda job, batch, drawn: time.sleep(0.5) or work(job, batch, drawn))
    served = _serving(create_app({"joint": str(pipeline_model)}, Limits(workers=1, max_queued=2)))
    url = next(served)
    fields = {"data": "Le chat dort .\n", "input": "horizontal", "parser": ""}
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: _request(f"{url}/process", fields), range(8)))
    statuses = sorted(status for status, _ in answers)
    assert statuses[0] == 200 and statuses[-1] == 503
    busy = next(json.loads(text)["error"] for status, text in answers if status == 503)
    assert busy.startswith("the server is busy")
    assert _request(f"{url}/process", fields)[0] == 200
    next(served, None)


def test_turns_go_to_short_requests_first_and_a_cancelled_waiter_gives_its_turn_back():
    import anyio

    from hetdep.service.turns import Turns

    async def scenario():
        turns, order = Turns(1), []

        async def unit(name: str, size: int, hold: float = 0.05):
            async with turns.turn(size):
                order.append(name)
                await anyio.sleep(hold)

        async with anyio.create_task_group() as group:
            group.start_soon(unit, "running", 10, 0.2)  # takes the only thread
            await anyio.sleep(0.05)
            for name, size in (("large", 50_000), ("larger", 90_000), ("short", 3_000), ("shorter later", 60),
                               ("medium", 20_000)):
                group.start_soon(unit, name, size)
                await anyio.sleep(0.01)
            with anyio.move_on_after(0.05):  # waits, then is cancelled: its place must not be lost
                await unit("cancelled", 1)
        assert order == ["running", "short", "shorter later", "medium", "large", "larger"]  # short ones by arrival
        assert turns.free == 1 and turns.waiters == 0

    anyio.run(scenario)


def test_the_shipped_model_is_served_under_each_of_its_treebanks_and_schemes():
    """UDPipe 2's clients name a model: the shipped one answers as fr, and as each treebank it
    learned from (fr-sequoia, its former name, parses as before) and each of their schemes."""
    from fastapi.testclient import TestClient

    client = TestClient(create_app({"fr": "fr"}))
    names = set(client.get("/models").json()["models"])
    assert {"fr", "fr-sud", "fr-ud", "fr-sequoia", "fr-sequoia-ud", "fr-gsd-sud", "fr-parisstories",
            "fr-parisstories-ud", "fr-parisstories-sud"} <= names
    spoken = client.post("/process", data={"data": "alors euh on est allés à la gare", "model": "fr-parisstories",
                                           "tokenizer": "", "tagger": "", "parser": ""}).json()
    assert spoken["model"] == "fr-parisstories" and "\tdiscourse\t" in spoken["result"]  # its UD scheme, first


def test_small_requests_that_wait_together_are_parsed_as_one_batch_each_answered_its_own(server, pipeline_model,
                                                                                         monkeypatch):
    """30 concurrent requests on 2 workers: the units that waited joined groups, and each answer is
    exactly what its own text parses to alone."""
    from hetdep.service import app

    groups = []
    together = app._work_together
    monkeypatch.setattr(app, "_work_together", lambda units: groups.append(len(units)) or together(units))
    texts = [f"Le ministre {k} parle du budget au public." for k in range(30)]
    nlp = hetdep.load(pipeline_model, quiet=True)
    with ThreadPoolExecutor(30) as pool:
        answers = list(pool.map(lambda text: _request(f"{server}/process", {"data": text, "tokenizer": "", "tagger": "",
                                                                            "parser": ""}), texts))
    assert all(status == 200 for status, _ in answers)
    assert [json.loads(answer)["result"] for _, answer in answers] == [nlp(text).to_conllu("ud") for text in texts]
    assert sum(groups) == 30 and max(groups) > 1


def test_a_unit_whose_work_fails_fails_alone():
    """The group's work fails: each unit is worked alone, the failing one gets its own error; a
    busy answer (the group never ran) is every unit's."""
    import anyio

    from hetdep.service.gather import Gatherer

    async def scenario(busy: bool):
        gatherer, gate, calls, answers = Gatherer(100), anyio.Event(), [], {}

        def work(units):
            calls.append(list(units))
            if "bad" in units:
                raise ValueError("bad unit")
            return [unit.upper() for unit in units]

        async def in_thread(function):
            await gate.wait()  # the leader waits for a worker: the others join its group meanwhile
            if busy:
                raise TimeoutError("busy")
            return await anyio.to_thread.run_sync(function)

        async def one(unit):
            try:
                answers[unit] = await gatherer.run("model", unit, 1, work, in_thread)
            except Exception as error:  # noqa: BLE001 - the answer under test
                answers[unit] = type(error).__name__

        async with anyio.create_task_group() as tasks:
            for unit in ("a", "bad", "c"):
                tasks.start_soon(one, unit)
            await anyio.sleep(0.05)
            gate.set()
        return answers, calls

    answers, calls = anyio.run(scenario, False)
    assert answers == {"a": "A", "bad": "ValueError", "c": "C"}
    assert calls[0] == ["a", "bad", "c"] and sorted(map(tuple, calls[1:])) == [("a",), ("bad",), ("c",)]
    answers, calls = anyio.run(scenario, True)
    assert answers == {"a": "TimeoutError", "bad": "TimeoutError", "c": "TimeoutError"} and calls == []


def test_a_name_given_at_start_always_answers_for_its_own_model(pipeline_model):
    """Found by the fuzzer: ``x-sequoia-ud=DIR1`` was shadowed by ``x=DIR2``'s derived names, so the
    user's model could not be reached. Whatever the order of ``--model``, the named one answers;
    two models deriving one name are refused at start in one line."""
    from fastapi.testclient import TestClient

    from hetdep.errors import HetdepError

    fields = {"data": TEXT, "tokenizer": "", "parser": ""}
    alone = TestClient(create_app({"only": str(pipeline_model)})).post("/process", data={**fields, "model": "only"}).json()
    for models in ({"x-sud": str(pipeline_model), "x": "fr"}, {"x": "fr", "x-sud": str(pipeline_model)}):
        answer = TestClient(create_app(models)).post("/process", data={**fields, "model": "x-sud"}).json()
        assert answer["model"] == "x-sud" and answer["result"] == alone["result"]  # not fr's SUD
    with pytest.raises(HetdepError, match="'fr' and 'fr-sequoia' would both answer to 'fr-sequoia-sud'"):
        create_app({"fr": "fr", "fr-sequoia": str(pipeline_model)})  # fr's treebank sequoia in SUD, or the other's SUD?


def test_a_name_that_says_its_scheme_takes_no_other_scheme_and_spaces_around_a_name_are_layout(server):
    status, text = _request(f"{server}/process", {"data": TEXT, "model": "joint-ud", "scheme": "sud", "tokenizer": "",
                                                  "parser": ""})
    assert status == 400 and "answers in ud, not sud" in json.loads(text)["error"]
    spaced = json.loads(_request(f"{server}/process", {"data": TEXT, "model": " joint-ud ", "tokenizer": "", "parser": ""})[1])
    plain = json.loads(_request(f"{server}/process", {"data": TEXT, "model": "joint-ud", "tokenizer": "", "parser": ""})[1])
    assert spaced["result"] == plain["result"] and spaced["model"] == "joint-ud"


def test_ctrl_c_stops_the_service_quietly(pipeline_model):
    """What a new user met: stopping ``serve`` the way it says (Ctrl-C) printed "interrupted (no
    output was written)" and exit 130, as if something had failed."""
    import signal
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "hetdep", "serve", "--model", f"m={pipeline_model}", "--port", str(port)],
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    stderr = process.communicate(timeout=30)[1]
    assert process.returncode == 0 and stderr.splitlines()[-1] == "hetdep: the service stopped", stderr
    assert "interrupted" not in stderr and "Traceback" not in stderr


def test_in_float32_a_sentence_gets_the_same_tree_whatever_is_parsed_beside_it():
    """``hetdep serve --precision float32``: a sentence's tree does not depend on the text around it
    nor on the requests parsed with it (in int8 each batch's rounding is its own: of the sample's
    first 8 sentences, 2 got another head for a word alone than among 30)."""
    pytest.importorskip("torch", reason="the shipped model is a neural one: it needs PyTorch ('hetdep[neural]')")
    from hetdep.models.names import shipped_model_path
    from hetdep.tokenizer.text import sentence_text

    texts = [sentence_text(sentence) for sentence in read_conllu(SAMPLES / "dev.ud.conllu")][:30]

    def trees(url, text):
        status, answer = _request(f"{url}/process", {"data": text, "tokenizer": "", "tagger": "", "parser": ""})
        assert status == 200, answer
        return [block for block in json.loads(answer)["result"].split("\n\n") if block.strip()]

    app = create_app({"fr": str(shipped_model_path())}, Limits(max_bytes=50_000, max_words=100, timeout=60), "float32")
    for url in _serving(app):
        together = trees(url, "\n\n".join(texts))
        alone = [trees(url, text) for text in texts[:8]]
    def columns(block):  # all but MISC, whose last SpaceAfter follows the text around
        return [line.split("\t")[:9] for line in block.splitlines() if not line.startswith("#")]

    assert len(together) == len(texts)
    assert [columns(block[0]) for block in alone] == [columns(block) for block in together[:8]]
