"""Load test of `hetdep serve`: many concurrent clients against a local server, against in-process parsing.

Starts `hetdep serve` on 127.0.0.1 with one model, sends REQUESTS `POST /process` requests (raw
text, tokenizer + tagger + parser, as multipart/form data the way UDPipe 2's client sends them)
from CLIENTS concurrent clients, each request a few sentences of a test set's `# text`, and prints errors, p50 and p99 latency, throughput in words/second,
the same texts parsed in process with `hetdep.load` (same machine, same run), and the server's
peak memory (VmHWM). ``--large-every N`` makes every Nth request a large one (``--large-bytes``,
50 KB by default) and reports the small requests' latency apart (the service's fairness);
``--huge BYTES`` then sends one request of that many bytes (4 MiB: UDPipe 2's limit) and reports
its time and the server's memory. A connection dropped without an answer counts as an error.

    python bench/load_service.py --model MODEL --gold test.ud.conllu [--requests 1000] [--clients 50]
        [--large-every 20] [--huge 4194304] [--precision int8|float32]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import hetdep
from hetdep.tokenizer.text import sentence_text
from hetdep.treebank.conllu import read_conllu


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


BOUNDARY = "hetdep-load-test-boundary"
FIELDS = {"tokenizer": "", "tagger": "", "parser": ""}


def _form(text: str) -> bytes:
    """A multipart/form-data body, as UDPipe 2's client sends (8-bit text, no escaping)."""
    parts = [f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
             for name, value in {**FIELDS, "data": text}.items()]
    return ("".join(parts) + f"--{BOUNDARY}--\r\n").encode("utf-8")


def _post(url: str, text: str, timeout: float = 300) -> tuple[int, float, int]:
    request = urllib.request.Request(url, data=_form(text),
                                     headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            result = json.loads(response.read())["result"]
            words = sum(1 for line in result.splitlines() if line and line[0].isdigit() and "\t" in line
                        and line.split("\t", 1)[0].isdigit())
            return response.status, time.perf_counter() - started, words
    except urllib.error.HTTPError as error:
        return error.code, time.perf_counter() - started, 0
    except OSError:  # dropped without an answer
        return 0, time.perf_counter() - started, 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--gold", required=True, help="a test set whose '# text' lines make the requests")
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--sentences", type=int, default=3, help="sentences per request")
    parser.add_argument("--workers", type=int, default=2, help="the server's --workers")
    parser.add_argument("--precision", choices=["int8", "float32"], help="a neural model's arithmetic (default: its own)")
    parser.add_argument("--large-every", type=int, help="every Nth request is a large one")
    parser.add_argument("--large-bytes", type=int, default=50_000, help="size of the large requests' text")
    parser.add_argument("--huge", type=int, help="afterwards, one request of this many bytes of text")
    args = parser.parse_args()

    texts = [sentence_text(s) for s in read_conllu(args.gold)]
    k = args.sentences
    requests = [" ".join(texts[(i * k + j) % len(texts)] for j in range(k)) for i in range(args.requests)]
    corpus = " ".join(texts)

    def text_of(size: int) -> str:
        """Whole words of the test set's text whose request body is at most ``size`` bytes."""
        text = (corpus * (size // len(corpus.encode()) + 1))[:size]
        while len(_form(text)) > size:
            text = text[:len(text) - (len(_form(text)) - size)]
        return text.rsplit(" ", 1)[0]

    large = set(range(args.large_every - 1, args.requests, args.large_every)) if args.large_every else set()
    for i in large:
        requests[i] = text_of(args.large_bytes)
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "hetdep", "serve", "--model", f"m={args.model}", "--port", str(port),
                               "--workers", str(args.workers), *(["--precision", args.precision] if args.precision else [])],
                              stderr=subprocess.DEVNULL)
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
        peak = _peak_memory(server.pid)
        if args.huge:
            huge = text_of(args.huge)
            huge_answer = _post(f"http://127.0.0.1:{port}/process", huge, timeout=3600)
            huge_peak = _peak_memory(server.pid)
    finally:
        server.terminate()
        server.wait(30)

    nlp = hetdep.load(args.model, quiet=True, precision=args.precision)  # the texts hold English sentences: their warnings are not the measure
    nlp(requests[0])  # warm up, as the server was
    started = time.perf_counter()
    words_in_process = sum(len(nlp(text).words) for text in requests)
    in_process_seconds = time.perf_counter() - started

    errors = sum(status != 200 for status, _, _ in answers)
    latencies = sorted(seconds for _, seconds, _ in answers)
    small = sorted(seconds for i, (_, seconds, _) in enumerate(answers) if i not in large)
    words = sum(w for _, _, w in answers)
    served_rate, in_process_rate = words / served_seconds, words_in_process / in_process_seconds
    print(f"{args.requests} requests from {args.clients} clients, {k} sentences each ({words:,} words), server --workers {args.workers}"
          f"{f', --precision {args.precision}' if args.precision else ''}")
    print(f"errors {errors}; latency p50 {statistics.median(latencies) * 1000:.0f} ms, "
          f"p99 {latencies[int(0.99 * (len(latencies) - 1))] * 1000:.0f} ms")
    print(f"served {served_rate:,.0f} words/s; in process {in_process_rate:,.0f} words/s; ratio {served_rate / in_process_rate:.2f}")
    if large:
        print(f"small requests (all but every {args.large_every}th, {args.large_bytes:,} bytes): p50 "
              f"{statistics.median(small) * 1000:.0f} ms, p99 {small[int(0.99 * (len(small) - 1))] * 1000:.0f} ms")
    print(f"server peak memory {peak:,.0f} MB")
    if args.huge:
        status, seconds, huge_words = huge_answer
        print(f"one request of {args.huge:,} bytes: status {status}, {huge_words:,} words in {seconds:.1f} s; "
              f"server peak memory then {huge_peak:,.0f} MB")


def _peak_memory(pid: int) -> float:
    """A process's peak resident memory so far, in MB (Linux's VmHWM)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) / 1024


if __name__ == "__main__":
    main()
