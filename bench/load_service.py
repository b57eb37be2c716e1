"""Load test of `hetdep serve`: many concurrent clients against a local server, against in-process parsing.

Starts `hetdep serve` on 127.0.0.1 with one model, sends REQUESTS `POST /process` requests (raw
text, tokenizer + tagger + parser) from CLIENTS concurrent clients, each request a few sentences
of a test set's `# text`, and prints errors, p50 and p99 latency, throughput in words/second,
the same texts parsed in process with `hetdep.load` (same machine, same run), and the server's
peak memory (VmHWM).

    python bench/load_service.py --model MODEL --gold test.ud.conllu [--requests 1000] [--clients 50]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import hetdep
from hetdep.tokenizer.tokenizer import sentence_text
from hetdep.treebank.conllu import read_conllu


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _post(url: str, text: str) -> tuple[int, float, int]:
    body = urllib.parse.urlencode({"data": text, "tokenizer": "", "tagger": "", "parser": ""}).encode()
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=300) as response:
            result = json.loads(response.read())["result"]
            words = sum(1 for line in result.splitlines() if line and line[0].isdigit() and "\t" in line
                        and line.split("\t", 1)[0].isdigit())
            return response.status, time.perf_counter() - started, words
    except urllib.error.HTTPError as error:
        return error.code, time.perf_counter() - started, 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--gold", required=True, help="a test set whose '# text' lines make the requests")
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--sentences", type=int, default=3, help="sentences per request")
    parser.add_argument("--workers", type=int, default=2, help="the server's --workers")
    args = parser.parse_args()

    texts = [sentence_text(s) for s in read_conllu(args.gold)]
    k = args.sentences
    requests = [" ".join(texts[(i * k + j) % len(texts)] for j in range(k)) for i in range(args.requests)]
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "hetdep", "serve", "--model", f"m={args.model}", "--port", str(port),
                               "--workers", str(args.workers)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/models", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start")
                time.sleep(0.2)
        _post(f"http://127.0.0.1:{port}/process", requests[0])  # warm up
        started = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            answers = list(pool.map(lambda text: _post(f"http://127.0.0.1:{port}/process", text), requests))
        served_seconds = time.perf_counter() - started
        status = Path(f"/proc/{server.pid}/status").read_text()
        peak = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))
    finally:
        server.terminate()
        server.wait(30)

    nlp = hetdep.load(args.model)
    nlp(requests[0])  # warm up, as the server was
    started = time.perf_counter()
    words_in_process = sum(len(nlp(text).words) for text in requests)
    in_process_seconds = time.perf_counter() - started

    errors = sum(status != 200 for status, _, _ in answers)
    latencies = sorted(seconds for _, seconds, _ in answers)
    words = sum(w for _, _, w in answers)
    served_rate, in_process_rate = words / served_seconds, words_in_process / in_process_seconds
    print(f"{args.requests} requests from {args.clients} clients, {k} sentences each ({words:,} words), server --workers {args.workers}")
    print(f"errors {errors}; latency p50 {statistics.median(latencies) * 1000:.0f} ms, "
          f"p99 {latencies[int(0.99 * (len(latencies) - 1))] * 1000:.0f} ms")
    print(f"served {served_rate:,.0f} words/s; in process {in_process_rate:,.0f} words/s; ratio {served_rate / in_process_rate:.2f}")
    print(f"server peak memory {int(peak) / 1024:,.0f} MB")


if __name__ == "__main__":
    main()
