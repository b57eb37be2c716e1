"""Generated bad (and good) input at volume, counted by what became of it.

(Over 450 lines: ten generators of a few dozen lines each and the one runner they share, each
generator read beside its oracle.)

Ten generators, each with its own oracle:

- ``conllu``: CoNLL-U documents of random trees, half of them given one damage that makes them
  invalid (a missing column, a bad ID or HEAD, a self-loop, an empty field, CRLF, a BOM, bytes
  that are not UTF-8, a DEPS that breaks its syntax), half with enhanced graphs in DEPS; the
  reader must read the sound ones whole and name the damaged line.
- ``sniffing``: sound and damaged CoNLL-U whose comments hold other line separators (U+2028,
  U+0085, form feeds, bare CR...), with a BOM (at the start, or before a later comment) or
  full-width IDs, read with ``--format auto``: it must never come back as text.
- ``raw-text``: random text (scripts, spaces, controls, tokens of up to 1 MB) through the tokenizer,
  which must give back every character as valid CoNLL-U; some through the API's whole parse (one
  tree pair per sentence), some with lone surrogates (refused).
- ``brackets``: random phrase-structure trees, half with unbalanced brackets, an empty
  preterminal or bad bytes; read whole, or the damage named.
- ``model-dirs``: a small model directory of each kind (a compact neural one, one of several
  treebanks with their own taggers and a neural phrase-structure one too) with one part
  damaged (a config field of another type, a list naming an item twice, a wrong field inside an
  object, weights cut, flipped or replaced with the digest made to match or not, a file removed or
  made a folder, a whole part such as a tagger removed, a tagger's right-to-left companion given
  weight 0 and cut, a quantized scale past float32); loading, parsing and ``info`` must refuse it
  in one line or work, with no warning printed on the way.
- ``http``: requests to the service (any method, path, body encoding, fields, bad bytes); no 5xx,
  errors as JSON, 400 for a request without ``data`` or not UTF-8; sound tokenizer options and
  formats spaced as UDPipe 2 clients send them, and vertical input with columns, never refused.
- ``cli``: ``hetdep parse`` over sound, damaged and empty input into outputs that already exist,
  ``convert --from ud --to sud`` of folders, and ``compact``/``package`` with ``--output`` inside
  the model: a failed run leaves the outputs (and the model) as they were, a good one writes one
  tree per sentence, an empty input says so.
- ``urls``: ``parse`` with ``--input`` or ``--output`` a URL of every fsspec protocol that reaches
  no other machine (remote ones only at the loopback address): a parse where it names a readable
  file, else one line, and no output spoiled.
- ``signals``: SIGINT or SIGTERM to ``hetdep parse`` while numba compiles (an empty cache): exit 130
  and one line, never a traceback or ctypes' "Exception ignored".
- ``training``: ``hetdep train`` (constituency, arc-standard, dep1) on a few generated trees, some
  of one word: a model or one line.
- ``options``: ``hetdep train`` with one option out of its range or blank (``--temperature nan``,
  a treebank or scheme name of spaces, a newline or a slash, an empty dev file, ...) refused in one
  line within seconds and nothing written; ``parse --treebank`` of a model of several treebanks
  with its own names (parsed) and others (one line naming its treebanks).
- ``names``: the service given models under names that are prefixes, suffixes and derived names
  of each other's (``x``, ``x-seq``, ``x-sud``, ``x-seq-ud``), in any order: each name given answers
  with its own model's trees, or the start is refused in one line naming the clash.

Outcomes: ``ok``, ``threads left`` (a case that leaves threads running), ``threads leaked`` (the worker past THREADS_BOUND native threads: its batch stops there), ``traceback`` (an exception that is not hetdep's own error), ``signal`` (a
worker process died), ``hang`` (a case over its time limit twice running: 10 s; the first run of
a search compiles it; a 1 MB token over 8x the time of a quarter of it, the least of three timings, or over 20 s),
``silent acceptance`` (bad input taken without a word), ``lost data`` (text or trees missing from
the output, or an existing output spoiled by a failed run), ``valid input refused``.

    python bench/fuzz.py [--cases 100000] [--seed 1] [--workers 2] [--only options,names]
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import os
import random
import shutil
import tempfile
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import hetdep

SAMPLES = Path(hetdep.__file__).parent / "samples" / "fr-sequoia"
SHARES = {"conllu": 0.3399, "sniffing": 0.10, "raw-text": 0.30, "brackets": 0.143, "model-dirs": 0.015, "http": 0.075,
          "cli": 0.01, "training": 0.002, "urls": 0.01, "signals": 0.0001, "options": 0.004, "names": 0.001}
BATCH = {"model-dirs": 10, "cli": 10, "http": 100, "training": 10, "urls": 50, "signals": 1, "options": 10,
         "names": 5}  # cases a task runs (others: 500)
HANG_SECONDS = 10.0
LONG_TOKEN_SECONDS = 20.0  # a 1 MB token takes 0.75-1.0 s (measured with both cores busy), a quarter of it 0.2 s
SEPARATORS = ["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\r"]
ALPHABET = "abcdeéèàçôüßøñ中文日本語한국어ДЖЯعربΩπ0123456789.,;:!?'\"«»()[]{}-–—/\\@#$%&*+=_~^|<>"


class Verdict(Exception):
    """A case's outcome other than ok."""

    def __init__(self, outcome: str, detail: str = ""):
        super().__init__(outcome)
        self.outcome, self.detail = outcome, detail


# --- generated documents ------------------------------------------------------------------------


def random_word(rng: random.Random, longest: int = 8) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, longest)))


def random_heads(rng: random.Random, n: int) -> list[int]:
    """The heads of a random tree over words 1..n (one root)."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [0] * (n + 1)
    for k, word in enumerate(order):
        heads[word] = 0 if k == 0 else rng.choice(order[:k])
    return heads[1:]


def conllu_lines(rng: random.Random, sentences: int) -> tuple[list[str], list[tuple[int, int]]]:
    """Lines of a sound CoNLL-U document and each sentence's (first, last) token line (1-based)."""
    lines, spans = [], []
    for number in range(1, sentences + 1):
        lines.append(f"# sent_id = {number}")
        if rng.random() < 0.5:
            lines.append("# text = " + " ".join(random_word(rng) for _ in range(3)))
        n = rng.randint(1, 12)
        first = len(lines) + 1
        graph = rng.random() < 0.5  # an enhanced graph in DEPS: each basic edge, sometimes one more
        for word, head in enumerate(random_heads(rng, n), 1):
            form = random_word(rng).replace("\t", "")
            label = "root" if head == 0 else rng.choice(["nsubj", "obj", "det", "punct"])
            edges = {(head, label)} | ({(rng.randint(0, n), "nsubj:xsubj")} if graph and rng.random() < 0.3 else set())
            deps = "|".join(f"{h}:{r}" for h, r in sorted(edges) if h != word) or f"{head}:{label}" if graph else "_"
            lines.append("\t".join([str(word), form, "_", rng.choice(["NOUN", "VERB", "DET", "PUNCT"]), "_", "_", str(head),
                                    label, deps, "_"]))
        spans.append((first, len(lines)))
        lines.append("")
    return lines, spans


def damage_conllu(rng: random.Random, lines: list[str], spans: list[tuple[int, int]]) -> tuple[bytes, tuple[int, int], str]:
    """The document with one damage that makes it invalid, the lines an error may name, and the damage's name."""
    first, last = rng.choice(spans)
    at = rng.randint(first, last)
    fields = lines[at - 1].split("\t")
    kind = rng.choice(["column", "id", "head", "loop", "empty", "crlf", "utf8", "bom", "fullwidth", "deps"])
    if kind == "column":
        del fields[rng.randrange(10)]
    elif kind == "id":
        fields[0] = rng.choice(["x", "1.x", "-1", "0", "1--2"])
    elif kind == "head":
        fields[6] = rng.choice(["x", "-2", str(last - first + 5), "1.5", ""])
    elif kind == "loop":
        fields[6] = fields[0]
    elif kind == "empty":
        fields[rng.choice([1, 3, 7])] = ""
    elif kind == "deps":  # an enhanced graph that breaks DEPS's syntax
        words = last - first + 1
        fields[8] = rng.choice([f"{words + 3}:dep", "1.1:dep", "_|0:root", "0:root|_", "x:dep", "2", "1:", f"{words}:a|0:b",
                                "0:ro ot"])
    elif kind == "fullwidth":
        fields[0] = "".join(chr(ord(c) - ord("0") + 0xFF10) for c in fields[0])
    damaged = list(lines)
    damaged[at - 1] = "\t".join(fields)
    text = "\n".join(damaged) + "\n"
    data = text.encode("utf-8")
    if kind == "crlf":
        data = ("\n".join(damaged[:at - 1]) + ("\n" if at > 1 else "") + damaged[at - 1] + "\r\n"
                + "\n".join(damaged[at:]) + "\n").encode("utf-8")
    elif kind == "utf8":
        prefix = ("\n".join(damaged[:at - 1]) + ("\n" if at > 1 else "")).encode("utf-8")
        data = prefix + b"\xff\xfe" + data[len(prefix):]
    elif kind == "bom":
        data = b"\xef\xbb\xbf" + data
        first, last = 1, 1
    lowest = 1 if kind in ("loop", "head") else first - 3  # a tree's problems may name the sentence's first line
    return data, (max(1, lowest), last), kind


# --- the cases ----------------------------------------------------------------------------------


def case_conllu(rng: random.Random, work: Path, setup: dict) -> None:
    from hetdep.errors import InputError
    from hetdep.treebank.conllu import read_conllu

    lines, spans = conllu_lines(rng, rng.randint(1, 4))
    path = work / "in.conllu"
    damaged = rng.random() < 0.5
    if damaged:
        data, (low, high), kind = damage_conllu(rng, lines, spans)
    else:
        data, kind = ("\n".join(lines) + "\n").encode("utf-8"), "sound"
    path.write_bytes(data)
    try:
        read = list(read_conllu(path, require_heads=True))
    except InputError as error:
        if not damaged:
            raise Verdict("valid input refused", str(error)) from None
        if error.path != str(path) or error.line is None or not low <= error.line <= high:
            raise Verdict("silent acceptance", f"{kind}: named {error.line}, damage at {low}..{high}") from None
        return
    if damaged:
        raise Verdict("silent acceptance", f"{kind} read as {len(read)} sentences")
    if len(read) != len(spans):
        raise Verdict("lost data", f"{len(spans)} sentences written, {len(read)} read")


def case_sniffing(rng: random.Random, work: Path, setup: dict) -> None:
    from hetdep.cli.parsing import read_input
    from hetdep.errors import InputError

    lines, spans = conllu_lines(rng, rng.randint(1, 3))
    separator = rng.choice(SEPARATORS)
    lines[0] = f"# sent_id = 1{separator}more of the comment{separator}end"  # a CR last would make a CRLF line end
    if rng.random() < 0.2:  # a stray byte-order mark before a later comment: still CoNLL-U, that line named
        lines.insert(1, "\ufeff# text = a comment behind a byte-order mark")
        spans = [(first + 1, last + 1) for first, last in spans]
    path = work / "in.txt"
    damaged = rng.random() < 0.3
    data = ("\n".join(lines) + "\n").encode("utf-8")
    bom_inside = "\n\ufeff#" in data.decode("utf-8", "replace")
    if damaged:
        data, _, kind = damage_conllu(rng, lines, spans)
    path.write_bytes(data)
    try:
        read = list(read_input(str(path), "auto", setup["tokenizer"]))
    except InputError:
        if not damaged and not bom_inside:
            raise Verdict("valid input refused", separator.encode("unicode_escape").decode()) from None
        return
    if damaged or bom_inside:
        raise Verdict("silent acceptance", f"{'damaged CoNLL-U' if damaged else 'a byte-order mark inside'} read as "
                                           f"{len(read)} sentences")
    if len(read) != len(spans):
        raise Verdict("silent acceptance", f"CoNLL-U with {separator!r} in a comment read as text")


def random_text(rng: random.Random) -> str:
    pieces = []
    for _ in range(rng.randint(0, 40)):
        roll = rng.random()
        if roll < 0.6:
            pieces.append(random_word(rng, 12))
        elif roll < 0.85:
            pieces.append(rng.choice([" ", "  ", "\n", "\n\n", "\t", "\u00a0", "\u3000", "\r\n", "\u2028"]))
        elif roll < 0.95:
            pieces.append(rng.choice([". ", "? ", "! ", "... ", "M. ", "12,5 ", "https://a.b/c?d=1 ", "a-t-il "]))
        else:
            pieces.append("".join(chr(rng.randint(1, 0x2FFFF)) for _ in range(rng.randint(1, 5))).replace("\ud800", ""))
    text = "".join(pieces)
    return "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF)


def case_raw_text(rng: random.Random, work: Path, setup: dict) -> None:
    from hetdep.errors import HetdepError
    from hetdep.tokenizer.text import rebuild_text, sentence_text
    from hetdep.treebank.conllu import read_conllu, write_conllu

    roll = rng.random()
    if roll < 0.002:  # a token of 1 MB: linear time (against a quarter of it, timed just before, so that a
        # loaded machine slows both: 4x is linear, 16x quadratic; the least of three timings each where it
        # looks slow, as a burst of other work can land on one), and never past LONG_TOKEN_SECONDS
        text = "".join(rng.choice("abcdefgh") for _ in range(1 << 20))
        quarter = whole = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            list(setup["tokenizer"].tokenize_document(text[: 1 << 18]))
            quarter, started = min(quarter, time.perf_counter() - started), time.perf_counter()
            sentences = list(setup["tokenizer"].tokenize_document(text))
            whole = min(whole, time.perf_counter() - started)
            if whole <= 1.0 or whole <= 8 * quarter or whole > LONG_TOKEN_SECONDS:
                break
        if whole > LONG_TOKEN_SECONDS or (whole > 1.0 and whole > 8 * quarter):
            raise Verdict("hang", f"a 1 MB token took {whole:.1f} s, a quarter of it {quarter:.2f} s")
    else:
        text = random_text(rng)
        if roll < 0.05:  # a lone surrogate: refused by the API
            cut = rng.randint(0, len(text))
            try:
                setup["model"](text[:cut] + chr(rng.randint(0xD800, 0xDFFF)) + text[cut:])
            except HetdepError:
                return
            raise Verdict("silent acceptance", "text with a lone surrogate parsed")
        sentences = list(setup["tokenizer"].tokenize_document(text))
    if rebuild_text(sentences) != (text if text.strip() else ""):
        raise Verdict("lost data", "the tokens and spaces do not give the text back")
    if "".join("".join(sentence_text(s).split()) for s in sentences) != "".join(text.split()):
        raise Verdict("lost data", "# text lacks characters")
    path = work / "out.conllu"
    write_conllu(sentences, path)
    if [s.forms for s in read_conllu(path)] != [s.forms for s in sentences]:
        raise Verdict("lost data", "the CoNLL-U written does not read back")
    if roll > 0.9 and sentences:  # the whole pipeline: one pair of trees per sentence, every word
        document = setup["model"](text)
        if [len(s.words) for s in document] != [len(s) for s in sentences]:
            raise Verdict("lost data", "the parse has other sentences or words than the tokenizer")


def random_tree(rng: random.Random, depth: int = 0) -> str:
    if depth > 3 or rng.random() < 0.35:
        word = random_word(rng).replace("(", "-LRB-").replace(")", "-RRB-")
        return f"({rng.choice(['NN', 'VB', 'DT', 'JJ', ',', '.'])} {word})"
    children = " ".join(random_tree(rng, depth + 1) for _ in range(rng.randint(1, 3)))
    return f"({rng.choice(['S', 'NP', 'VP', 'PP', 'ADJP'])} {children})"


def case_brackets(rng: random.Random, work: Path, setup: dict) -> None:
    from hetdep.errors import InputError
    from hetdep.treebank.ptb import read_trees

    trees = [f"( {random_tree(rng)})" for _ in range(rng.randint(1, 4))]
    damaged = rng.random() < 0.5
    kind = "sound"
    if damaged:
        k = rng.randrange(len(trees))
        kind = rng.choice(["open", "close", "empty", "utf8"])
        if kind == "open":
            trees[k] = "(" + trees[k]
        elif kind == "close":
            trees[k] = trees[k][:-1]
        elif kind == "empty":
            trees[k] = trees[k].replace(")", " (NN ))", 1)
    data = "\n".join(trees).encode("utf-8") + b"\n"
    if kind == "utf8":
        data = data[:3] + b"\xff" + data[3:]
    path = work / "in.mrg"
    path.write_bytes(data)
    try:
        read = list(read_trees(path))
    except InputError as error:
        if not damaged:
            raise Verdict("valid input refused", str(error)) from None
        if error.line is None:
            raise Verdict("silent acceptance", f"{kind}: no line named")
        return
    if damaged:
        raise Verdict("silent acceptance", f"{kind} read as {len(read)} trees")
    if len(read) != len(trees):
        raise Verdict("lost data", f"{len(trees)} trees written, {len(read)} read")


WRONG_VALUES = [None, "x", 3.5, -1, 10**12, [], {}, [1, "a"], {"a": None}, True, "", [[]]]


def damage_model(rng: random.Random, model: Path) -> str:
    """One damage to one part of ``model``; returns its name ("digest" damages must be refused)."""
    from hetdep.learn.model_files import file_sha256

    parts = [p.parent for p in model.rglob("config.json")]
    part = rng.choice(parts)
    config_path = part / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    kind = rng.choice(["field", "field", "field", "cut", "flip", "replace", "remove", "folder", "twice", "nested",
                       "part", "unweighted", "scale"])
    weights = part / "weights.npz"
    lists = sorted(key for key, value in config.items() if isinstance(value, list) and value)
    objects = sorted(key for key, value in config.items() if isinstance(value, dict) and value)
    if kind == "field" or kind == "twice" and not lists or kind == "nested" and not objects:
        key = rng.choice(sorted(config))
        config[key] = rng.choice(WRONG_VALUES)
        config_path.write_text(json.dumps(config), encoding="utf-8")
        return f"field {key}"
    if kind in ("twice", "nested"):  # an item of a list named twice; a field of an object given a wrong value
        key = rng.choice(lists if kind == "twice" else objects)
        if kind == "twice":
            config[key].append(rng.choice(config[key]))
        else:
            config[key][rng.choice(sorted(config[key]))] = rng.choice(WRONG_VALUES)
        config_path.write_text(json.dumps(config), encoding="utf-8")
        return f"{kind} {key}"
    if kind == "part":  # a whole part of the model (its tokenizer, one of its taggers) left out: must be refused
        removable = [p for p in parts if p != model and p.name != "backward"]  # a backward tagger: "unweighted"
        if removable:
            target = rng.choice(removable)
            shutil.rmtree(target)
            return f"part {target.relative_to(model)}"
        kind = "cut"
    if kind == "unweighted":  # a tagger's right-to-left companion given weight 0, then cut: still read, so refused
        taggers = [p for p in parts if (p / "backward" / "weights.npz").is_file()]
        if taggers:
            tagger = rng.choice(taggers)
            tagger_config = json.loads((tagger / "config.json").read_text(encoding="utf-8"))
            tagger_config["backward_weight"] = 0.0
            (tagger / "config.json").write_text(json.dumps(tagger_config), encoding="utf-8")
            backward = tagger / "backward" / "weights.npz"
            backward.write_bytes(backward.read_bytes()[:rng.randrange(1, backward.stat().st_size)])
            return f"digest unweighted {backward.relative_to(model)}"
        kind = "cut"
    if kind == "scale" and config.get("quantized"):  # a quantized array's scale past float32's range, digest matched
        import numpy as np

        with np.load(weights) as loaded:
            arrays = {name: loaded[name].copy() for name in loaded.files}
        arrays[rng.choice(config["quantized"]) + ".scale"].flat[0] = rng.choice([3e38, np.inf, np.nan])
        np.savez(weights, **arrays)
        config["weights_sha256"] = file_sha256(weights)
        config_path.write_text(json.dumps(config), encoding="utf-8")
        return f"part scale {weights.relative_to(model)}"
    if kind == "scale":
        kind = "flip"
    data = weights.read_bytes()
    if kind == "cut":
        weights.write_bytes(data[:rng.randrange(len(data))])
    elif kind == "flip":
        at = rng.randrange(len(data))
        weights.write_bytes(data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:])
    elif kind == "replace":
        import numpy as np

        buffer = io.BytesIO()
        np.savez(buffer, **{name: rng.choice([np.zeros(3), np.array(5), np.zeros((2, 2), np.int64), np.array(["a"])])
                            for name in rng.sample(["rows", "values", "buckets", "features", "packed", "dense"], 3)})
        weights.write_bytes(buffer.getvalue())
    elif kind in ("remove", "folder"):
        target = rng.choice([weights, config_path])
        target.unlink()
        if kind == "folder":
            target.mkdir()
        return f"{kind} {target.relative_to(model)}"
    if rng.random() < 0.5:  # the digest made to match: the arrays' own checks must hold
        config["weights_sha256"] = file_sha256(weights)
        config_path.write_text(json.dumps(config), encoding="utf-8")
        return f"{kind} {weights.relative_to(model)}, digest matched"
    return f"digest {kind} {weights.relative_to(model)}"


def case_model_dirs(rng: random.Random, work: Path, setup: dict) -> None:
    import warnings

    from hetdep.errors import HetdepError
    from hetdep.models.info import summary

    source = Path(rng.choice(setup["models"]))
    model = work / "model"
    shutil.rmtree(model, ignore_errors=True)
    shutil.copytree(source, model)
    damage = damage_model(rng, model)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always", RuntimeWarning)  # numpy's overflow warnings before a refusal are noise
        try:
            summary(model)
            treebank = rng.choice(TREEBANK_NAMES) if source.name == "treebanks" and rng.random() < 0.5 else None
            loaded = (hetdep.load(model, to_dependency="penn2malt") if "constituency" in source.name
                      else hetdep.load(model, treebank=treebank))
            if loaded.has_tagger:
                loaded.parse(tokens=[["Le", "chat", "dort", "."]])
        except HetdepError as error:
            if str(error).count("\n"):
                raise Verdict("traceback", f"{damage}: an error of several lines") from None
            refused = True
        else:
            refused = False
    if warned:
        raise Verdict("traceback", f"{damage}: a warning ({warned[0].message}) on the way")
    if not refused and damage.startswith(("digest", "remove", "folder", "part")):
        raise Verdict("silent acceptance", damage)


def case_http(rng: random.Random, work: Path, setup: dict) -> None:
    client = setup["client"]
    method = rng.choice(["POST"] * 6 + ["GET", "PUT", "DELETE"])
    path = rng.choice(["/process"] * 6 + ["/models", "/render", "/", "/nope"])
    fields = {}
    for name in rng.sample(["data", "model", "tokenizer", "tagger", "parser", "input", "output", "scheme"], rng.randint(0, 8)):
        fields[name] = rng.choice(["", "joint", "conllu", "horizontal", "sud", "ud", "x", random_text(rng)[:200]])
    if rng.random() < 0.2:  # sound option strings, spaced as UDPipe 2 clients send them: never refused
        return _http_options(rng, client)
    bad_bytes = rng.random() < 0.15
    encoding = rng.choice(["form", "multipart", "json", "plain", "query"])
    headers, content = {}, None
    if encoding == "form":
        from urllib.parse import urlencode

        content = urlencode(fields).encode("utf-8")
        headers["content-type"] = "application/x-www-form-urlencoded"
        if bad_bytes:
            content += b"&data=%ff%fe" if rng.random() < 0.5 else b"%c3"
    elif encoding == "multipart":
        parts = b"".join(b'--b\r\nContent-Disposition: form-data; name="' + k.encode() + b'"\r\n\r\n' + v.encode("utf-8")
                         + b"\r\n" for k, v in fields.items())
        if bad_bytes:
            parts += b'--b\r\nContent-Disposition: form-data; name="data"\r\n\r\n\xff\xfe\r\n'
        content = parts + (b"--b--\r\n" if rng.random() < 0.9 else b"")
        headers["content-type"] = "multipart/form-data; boundary=b"
    elif encoding == "json":
        content = json.dumps(fields).encode("utf-8")
        headers["content-type"] = "application/json"
    elif encoding == "plain":
        content = fields.get("data", "").encode("utf-8") + (b"\xff" if bad_bytes else b"")
        headers["content-type"] = "text/plain"
    query = ""
    if encoding == "query":
        from urllib.parse import urlencode

        query = "?" + urlencode(fields) + ("&data=%E9" if bad_bytes else "")
    response = client.request(method, path + query, content=content, headers=headers)
    if response.status_code >= 500:
        raise Verdict("traceback", f"{method} {path} {encoding}: status {response.status_code}")
    if path in ("/process", "/render") and method in ("POST", "GET"):
        sent_data = encoding in ("form", "multipart", "query") and "data" in fields
        if path == "/process" and method == "POST" and bad_bytes and encoding != "json" and response.status_code != 400:
            raise Verdict("silent acceptance", f"bytes that are not UTF-8 ({encoding}): status {response.status_code}")
        if method == "POST" and not sent_data and not bad_bytes and response.status_code == 200:
            raise Verdict("silent acceptance", f"no 'data' field ({encoding}): status 200")
    if response.status_code >= 400 and path in ("/process", "/render", "/models") and method == "POST":
        try:
            body = response.json()
        except ValueError:
            raise Verdict("traceback", f"an error that is not JSON: {response.text[:60]!r}") from None
        if "error" not in body and "detail" not in body:
            raise Verdict("traceback", f"an error without a message: {body}")


# fsspec's protocols that reach no other machine (the fuzzer sends no traffic off this one: a remote
# protocol's host is the loopback address at most), and one no package provides.
LOCAL_PROTOCOLS = ["memory", "file", "local", "data", "zip", "tar", "reference", "dir", "simplecache", "filecache",
                   "blockcache", "cached", "async_wrapper", "asynclocal", "libarchive", "generic", "dask", "ftp", "http",
                   "nosuchfs"]


def small_conllu(work: Path) -> Path:
    """Two sentences of the sample in the case's folder: an input quick to parse, and nobody's to spoil."""
    path = work / "small.conllu"
    if not path.exists():
        path.write_bytes(b"\n\n".join((SAMPLES / "dev.ud.conllu").read_bytes().split(b"\n\n")[:2]) + b"\n\n")
    return path


def random_url(rng: random.Random, work: Path) -> tuple[str, bool]:
    """A URL of any protocol fsspec lists (with host, path, archive or nothing after it), and whether
    it names a CoNLL-U file that can be read here."""
    protocol = rng.choice(LOCAL_PROTOCOLS)
    if protocol == "memory" and rng.random() < 0.5:
        import fsspec

        url = f"memory://fuzz/{rng.randrange(10**9)}.conllu"
        fsspec.filesystem("memory").pipe(url, small_conllu(work).read_bytes())
        return url, True
    if protocol == "file" and rng.random() < 0.5:
        return small_conllu(work).resolve().as_uri(), True
    rest = rng.choice(["", "x", "127.0.0.1:1/a.conllu", "bucket/out.conllu", ",Hello", "a.zip::file://x",
                       str(work / "w.conllu"), "::", "%00", random_word(rng)])
    return f"{protocol}://{rest}", False


def case_urls(rng: random.Random, work: Path, setup: dict) -> None:
    """``parse`` with ``--input`` or ``--output`` a URL of any protocol: a parse, or one line before any
    work, and no output where the run failed."""
    from click.testing import CliRunner

    from hetdep.cli import main

    url, readable = random_url(rng, work)
    local_out = work / "out.conllu"
    local_out.write_text("what was there before\n", encoding="utf-8")
    as_input = readable or rng.random() < 0.5  # a readable URL names a file to keep: never an output
    source, target = (url, str(local_out)) if as_input else (str(small_conllu(work)), url)
    result = CliRunner().invoke(main, ["parse", "--model", setup["models"][0], "--input", source, "--output", target,
                                       "--scheme", "a", "--format", "conllu"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise Verdict("traceback", f"{url}: {result.exception!r}")
    if result.exit_code == 2:
        lines = result.output.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("hetdep: error: "):
            raise Verdict("traceback", f"{url}: {result.output.strip()[-160:]!r}")
        if as_input and readable:
            raise Verdict("valid input refused", f"{url}: {lines[0][:120]}")
        if local_out.read_text(encoding="utf-8") != "what was there before\n":
            raise Verdict("lost data", f"{url}: a failed run changed an existing output")
        return
    if result.exit_code != 0:
        raise Verdict("traceback", f"{url}: exit {result.exit_code}")
    if as_input and local_out.read_text(encoding="utf-8").count("# sent_id") == 0 and "no sentence in" not in result.output:
        raise Verdict("silent acceptance", f"{url}: exit 0, nothing parsed and nothing said")


def _output_inside_model(rng: random.Random, work: Path, setup: dict) -> None:
    """``compact`` or ``package`` with ``--output`` inside the model or beside it: one line, the model untouched."""
    from click.testing import CliRunner

    from hetdep.cli import main

    model = work / "model"
    shutil.rmtree(model, ignore_errors=True)
    shutil.copytree(setup["models"][0], model)
    before = sorted(str(p.relative_to(model)) for p in model.rglob("*"))
    inside = rng.random() < 0.7
    output = (model / rng.choice([".", "x", "tagger", "tagger/new", "tokenizer"])) if inside else work / f"out{rng.randrange(10**6)}"
    command = rng.choice([["compact"], ["package", "--name", "fuzz"]])
    result = CliRunner().invoke(main, [command[0], str(model), *command[1:], "--output", str(output)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise Verdict("traceback", f"{command[0]} --output {output}: {result.exception!r}")
    if sorted(str(p.relative_to(model)) for p in model.rglob("*")) != before:
        raise Verdict("lost data", f"{command[0]} --output {output} changed the model")
    if inside and result.exit_code != 2:
        raise Verdict("silent acceptance", f"{command[0]} --output {output} inside the model: exit {result.exit_code}")
    if not inside and result.exit_code != 0:
        raise Verdict("valid input refused", f"{command[0]} --output {output}: {result.output.strip()[:100]}")
    shutil.rmtree(output, ignore_errors=True)


def _http_options(rng: random.Random, client) -> None:
    """Tokenizer options and formats with spaces around them, and vertical input with columns: a 200."""
    def spaced(value: str) -> str:
        return rng.choice(["", " ", "  "]) + value + rng.choice(["", " ", "\t"])

    options = rng.sample(["presegmented", "ranges"], rng.randint(0, 2))
    fields = {"tokenizer": rng.choice([";", ",", "; "]).join(spaced(option) for option in options), "parser": "",
              "data": "Le chat dort. Il pleut.", "output": spaced(rng.choice(["conllu", "horizontal", "vertical", "plaintext"]))}
    if rng.random() < 0.4:
        del fields["tokenizer"]
        fields.update(input=spaced("vertical"), output=spaced("horizontal"), data="Le\tDET\nchat NOUN x\n dort\n\nIl\npleut\n")
    response = client.post("/process", data=fields)
    if response.status_code != 200:
        raise Verdict("valid input refused", f"{fields}: {response.status_code} {response.text[:120]}")
    if "input" in fields and response.json()["result"] != "Le chat dort\nIl pleut\n":
        raise Verdict("lost data", f"vertical input: {response.json()['result'][:120]!r}")


def case_cli(rng: random.Random, work: Path, setup: dict) -> None:
    from click.testing import CliRunner

    from hetdep.cli import main

    roll = rng.random()
    if roll < 0.3:
        return _convert_folder(rng, work)
    if roll < 0.34:
        return _output_inside_model(rng, work, setup)
    if roll < 0.39:  # an input without a sentence: empty outputs and one line saying so
        source = work / "empty.txt"
        source.write_text(rng.choice(["", "\n\n", " \t \n"]), encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", "--model", setup["models"][0], "--input", str(source), "--output",
                                           str(work / "a.conllu"), "--output-b", str(work / "b.conllu")])
        if result.exit_code != 0 or f"no sentence in {source}" not in result.output:
            raise Verdict("silent acceptance", f"an empty input: exit {result.exit_code}, {result.output.strip()[:80]!r}")
        return
    lines, spans = conllu_lines(rng, rng.randint(1, 3))
    damaged = rng.random() < 0.5
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if damaged:
        data = damage_conllu(rng, lines, spans)[0]
    source = work / "in.conllu"
    source.write_bytes(data)
    out_a, out_b = work / "a.conllu", work / "b.conllu"
    for out in (out_a, out_b):
        out.write_text("what was there before\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["parse", "--model", setup["models"][0], "--input", str(source), "--format", "conllu",
                                       "--output", str(out_a), "--output-b", str(out_b)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise Verdict("traceback", repr(result.exception))
    if result.exit_code != 0:
        if not damaged:
            raise Verdict("valid input refused", result.output.strip()[:100])
        if any(out.read_text(encoding="utf-8") != "what was there before\n" for out in (out_a, out_b)):
            raise Verdict("lost data", "a failed run changed an existing output")
        return
    if damaged:
        raise Verdict("silent acceptance", "damaged CoNLL-U parsed")
    if any(out.read_text(encoding="utf-8").count("# sent_id") != len(spans) for out in (out_a, out_b)):
        raise Verdict("lost data", "not one tree per input sentence")


def _convert_folder(rng: random.Random, work: Path) -> None:
    """``convert --from ud --to sud`` of a folder into one holding older files: all or nothing."""
    from click.testing import CliRunner

    from hetdep.cli import main

    source, out = work / "ud", work / "out"
    shutil.rmtree(source, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    source.mkdir()
    out.mkdir()
    damaged = False
    for name in ("a", "b", "c")[:rng.randint(1, 3)]:
        lines, spans = conllu_lines(rng, rng.randint(1, 3))
        data = ("\n".join(lines) + "\n").encode("utf-8")
        if rng.random() < 0.3:
            data, damaged = damage_conllu(rng, lines, spans)[0], True
        (source / f"{name}.ud.conllu").write_bytes(data)
        (out / f"{name}.sud.conllu").write_text("older\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", "--from", "ud", "--to", "sud", str(source), str(out)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise Verdict("traceback", repr(result.exception))
    if damaged != (result.exit_code != 0):
        raise Verdict("silent acceptance" if damaged else "valid input refused", result.output.strip()[:100])
    if damaged and sorted(p.read_text(encoding="utf-8") for p in out.iterdir()) != ["older\n"] * len(list(out.iterdir())):
        raise Verdict("lost data", "a failed conversion changed the output folder")


def case_training(rng: random.Random, work: Path, setup: dict) -> None:
    """``train`` on a few generated trees (some of one word): a model, or one line; never a traceback."""
    from click.testing import CliRunner

    from hetdep.cli import main

    model = work / "model"
    shutil.rmtree(model, ignore_errors=True)
    if rng.random() < 0.5:
        trees = [f"( {random_tree(rng)})" if rng.random() < 0.6 else f"( (NP ({rng.choice(['NN', 'UH'])} w)))"
                 for _ in range(rng.randint(1, 12))]
        train = work / "train.mrg"
        train.write_text("\n".join(trees) + "\n", encoding="utf-8")
        args = ["--parser", "constituency", "--gold-tags", "--beam", "2"]
    else:
        lines, _ = conllu_lines(rng, rng.randint(1, 12))
        train = work / "train.conllu"
        train.write_text("\n".join(lines) + "\n", encoding="utf-8")
        args = ["--parser", rng.choice(["arc-standard", "dep1"]), "--gold-tags", "--no-tokenizer"]
        args += ["--beam", "2"] if args[1] == "arc-standard" else []
    result = CliRunner().invoke(main, ["train", "--train", str(train), "--dev", str(train), "--model", str(model),
                                       "--iterations", "2", *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise Verdict("traceback", f"{args[1]}: {result.exception!r}")
    if result.exit_code not in (0, 2) or (result.exit_code == 2 and not result.output.strip().splitlines()[-1].startswith(
            "hetdep: error: ")):
        raise Verdict("traceback", f"{args[1]}: exit {result.exit_code}: {result.output.strip()[-100:]!r}")


def case_signals(rng: random.Random, work: Path, setup: dict) -> None:
    """SIGINT or SIGTERM to ``hetdep parse`` while numba compiles its searches (an empty cache): exit
    130 and one line, or a whole parse if it came after; never a traceback or ctypes' 'Exception ignored'."""
    import signal
    import subprocess
    import sys

    cache = work / f"numba-cache-{rng.randrange(10**9)}"
    cache.mkdir()
    out = work / "signalled.conllu"
    out.unlink(missing_ok=True)
    process = subprocess.Popen([sys.executable, "-m", "hetdep", "parse", "--model", setup["models"][0], "--input",
                                str(SAMPLES / "dev.ud.conllu"), "--output", str(out), "--scheme", "a"],
                               stderr=subprocess.PIPE, env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    time.sleep(rng.uniform(0.2, 8.0))
    process.send_signal(rng.choice([signal.SIGINT, signal.SIGTERM]))
    try:
        stderr = process.communicate(timeout=60)[1].decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        stacks = _stacks(process.pid)
        process.kill()
        raise Verdict("hang", f"no end within 60 s of the signal{stacks}") from None
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if process.returncode < 0:
        raise Verdict("signal", f"died by signal {-process.returncode}")
    if "Traceback" in stderr or "Exception ignored" in stderr or process.returncode not in (0, 130):
        raise Verdict("traceback", f"exit {process.returncode}: {stderr.strip()[-300:]!r}")
    if process.returncode == 130 and (out.exists() or not stderr.strip().splitlines()[-1].startswith("hetdep: interrupted")):
        raise Verdict("lost data", "an interrupted parse left an output, or did not say so last")


def _stacks(pid: int) -> str:
    """Where a hung process's threads are, written by py-spy (when installed) to a file kept for
    the report: '; stacks in PATH', or '' without py-spy."""
    import subprocess

    if shutil.which("py-spy") is None:
        return ""
    kept = Path(tempfile.gettempdir()) / "hetdep-fuzz-hangs"
    kept.mkdir(exist_ok=True)
    target = kept / f"{pid}.txt"
    with open(target, "wb") as out:
        subprocess.run(["py-spy", "dump", "--native", "--pid", str(pid)], stdout=out, stderr=subprocess.STDOUT, timeout=60,
                       check=False)
    return f"; stacks in {target}"


TREEBANK_NAMES = ("seq", "other")  # the treebanks of build_models' model of several


def _treebank(name: str, scheme: str, split: str = "") -> list[str]:
    """``--treebank NAME SCHEME TRAIN DEV`` on the shipped sample (``split``: another file of the same scheme)."""
    return ["--treebank", name, scheme, str(SAMPLES / f"train.{scheme}.conllu"), split or str(SAMPLES / f"dev.{scheme}.conllu")]


BLANK_NAMES = ["", " ", "\t", "a b", "a\nb", "x\n", " x", "../x", "a/b", ".", "\u200b", "-x"]


def case_options(rng: random.Random, work: Path, setup: dict) -> None:
    """``train`` with one option out of range or blank: refused in one line, exit 2, before any work
    (within seconds: a tokenizer alone trains for longer), and no model folder made; or ``parse
    --treebank`` of the model of several treebanks: its names parse, others get one line naming them."""
    from click.testing import CliRunner

    from hetdep.cli import main

    if rng.random() < 0.3:
        name = rng.choice([*TREEBANK_NAMES, *BLANK_NAMES, "gsd", "SEQ", "seq ", random_word(rng)])
        out = work / "tb.conllu"
        out.unlink(missing_ok=True)
        model = next(path for path in setup["models"] if Path(path).name == "treebanks")
        text = work / "tb.txt"
        text.write_text("Le chat dort. Il pleut.\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", "--model", model, "--input", str(text), "--output", str(out),
                                           "--treebank", name])
        if name in TREEBANK_NAMES and (result.exit_code != 0 or out.read_text(encoding="utf-8").count("# sent_id") != 2):
            raise Verdict("valid input refused", f"--treebank {name!r}: {result.output.strip()[-100:]!r}")
        if name not in TREEBANK_NAMES and (result.exit_code != 2 or out.exists() or "seq, other" not in result.output):
            raise Verdict("silent acceptance", f"--treebank {name!r}: exit {result.exit_code}")
        return
    empty = work / "empty.conllu"
    empty.write_text(rng.choice(["", "\n", "\n\n", "# text = x\n"]), encoding="utf-8")
    bad = rng.choice([
        ["--temperature", rng.choice(["nan", "inf", "-inf", "0", "-1", "1e400", "x", "NaN"])],
        ["--treebank", rng.choice(BLANK_NAMES), "ud", str(SAMPLES / "dev.ud.conllu"), str(SAMPLES / "dev.ud.conllu")],
        ["--treebank", "other", rng.choice(BLANK_NAMES), str(SAMPLES / "dev.ud.conllu"), str(SAMPLES / "dev.ud.conllu")],
        _treebank("other", "ud", str(empty)),
        ["--iterations", rng.choice(["0", "-1", "x", "1.5"])], ["--patience", rng.choice(["0", "-3"])],
        ["--threads", rng.choice(["0", "257", "-1"])], ["--final-epochs", rng.choice(["-1", "x"])],
        ["--sharing", rng.choice(["", "x", "per-SCHEME"])], ["--decoder", "cky"],
        ["--tokenizer-treebank", rng.choice(BLANK_NAMES + ["gsd"]), str(SAMPLES / "train.ud.conllu"), str(empty)],
    ])
    if rng.random() < 0.3:  # --train/--dev rather than --treebank
        dev = empty if rng.random() < 0.5 else SAMPLES / "dev.ud.conllu"
        files = ["--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(dev)]
        bad = [] if dev == empty else bad  # the empty dev file alone
    else:
        files = _treebank("seq", "ud")
    model = work / "model"
    shutil.rmtree(model, ignore_errors=True)
    started = time.perf_counter()
    result = CliRunner().invoke(main, ["train", *files, *bad, "--model", str(model), "--parser", "neural"])
    seconds = time.perf_counter() - started
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise Verdict("traceback", f"{bad}: {result.exception!r}")
    if result.exit_code != 2:
        raise Verdict("silent acceptance", f"{bad or files}: exit {result.exit_code}")
    if seconds > 5 or model.exists():
        raise Verdict("silent acceptance", f"{bad or files}: refused after {seconds:.1f} s of work, or a model folder left")


def case_names(rng: random.Random, work: Path, setup: dict) -> None:
    """The service's models under names that are each other's prefixes, suffixes or derived names:
    each name given answers with its own model's trees (as that model served alone), whatever the
    order; or the start is refused in one line naming both models and the name they share."""
    from fastapi.testclient import TestClient

    from hetdep.errors import HetdepError
    from hetdep.service.app import create_app

    paths = {Path(path).name: path for path in setup["models"]}
    chosen = rng.sample(["joint", "neural", "treebanks"], rng.randint(2, 3))
    names = rng.sample(["x", "x-seq", "x-sud", "x-ud", "x-seq-ud", "x-other", "x-other-ud", "y", "x-x"], len(chosen))
    named = dict(zip(names, (paths[kind] for kind in chosen)))
    fields = {"data": "Le chat dort .\nIl pleut .\n", "input": "horizontal", "tagger": "", "parser": ""}
    try:
        client = TestClient(create_app(named))
    except HetdepError as error:
        if "would both answer to" not in str(error) or str(error).count("\n"):
            raise Verdict("traceback", f"{named}: {error}") from None
        return
    for name, path in named.items():
        answer = client.post("/process", data={**fields, "model": name}).json()
        alone = setup.setdefault("alone", {})
        if path not in alone:
            alone[path] = TestClient(create_app({"only": path})).post("/process", data={**fields, "model": "only"}).json()
        if answer.get("model") != name or answer.get("result") != alone[path].get("result"):
            raise Verdict("lost data", f"{named}: {name!r} answered as {answer.get('model')!r}, not as its own model")


CASES = {"conllu": case_conllu, "sniffing": case_sniffing, "raw-text": case_raw_text, "brackets": case_brackets,
         "model-dirs": case_model_dirs, "http": case_http, "cli": case_cli, "training": case_training, "urls": case_urls,
         "signals": case_signals, "options": case_options, "names": case_names}


# --- running ------------------------------------------------------------------------------------

_SETUP: dict = {}


def _worker_setup(models: list[str]) -> None:
    import warnings

    warnings.simplefilter("ignore")  # the test client's deprecation notices, once per worker
    from fastapi.testclient import TestClient

    from hetdep.models.parsing import load_tokenizer
    from hetdep.service.app import Limits, create_app

    _SETUP["models"] = models
    _SETUP["tokenizer"] = load_tokenizer(models[0])
    _SETUP["model"] = hetdep.load(models[0])
    _SETUP["client"] = TestClient(create_app({"joint": models[0]}, Limits(max_bytes=200_000, timeout=30)))


def _one_case(kind: str, seed: int, work: Path) -> tuple[str, str, float]:
    """(outcome, detail, seconds) of the case ``seed`` of generator ``kind``."""
    import threading

    started, threads = time.perf_counter(), threading.active_count()
    try:
        CASES[kind](random.Random(seed), work, _SETUP)
        outcome, detail = "ok", ""
        if threading.active_count() > threads + 1:  # one may be a library's lasting worker, started once
            outcome, detail = "threads left", f"{threading.active_count() - threads} threads still running after the case"
    except Verdict as verdict:
        outcome, detail = verdict.outcome, verdict.detail
    except Exception as error:  # noqa: BLE001 - what this bench is here to count
        outcome, detail = "traceback", "".join(traceback.format_exception_only(type(error), error)).strip()
    return outcome, detail, time.perf_counter() - started


THREADS_BOUND = 200  # native threads in a worker past which a case counts as leaking them (a worker has 4-7)


def native_threads() -> int:
    """This process's threads as the system counts them (Python's and every library's), 0 where /proc is absent."""
    tasks = Path("/proc/self/task")
    return len(os.listdir(tasks)) if tasks.is_dir() else 0


def run_batch(kind: str, seed: int, count: int) -> tuple[str, Counter, list[str], int]:
    """``count`` cases of one generator, from ``seed``; outcome counts, the first few failures and
    the worker's native threads after them (a leak of threads shows there before it exhausts the system)."""
    outcomes: Counter = Counter()
    examples: list[str] = []
    work = Path(tempfile.mkdtemp(prefix="hetdep-fuzz-"))
    os.chdir(work)  # a relative URL (file://x) names a file of the case's own folder
    try:
        for number in range(count):
            outcome, detail, seconds = _one_case(kind, seed * 1_000_003 + number, work)
            if outcome == "ok" and seconds > HANG_SECONDS:  # again: the first run of a search also compiles it
                outcome, detail, again = _one_case(kind, seed * 1_000_003 + number, work)
                if outcome == "ok" and again > HANG_SECONDS:
                    outcome, detail = "hang", f"{seconds:.1f} s, then {again:.1f} s"
            if outcome == "threads left":  # again: a library's lasting workers start once (fsspec's async
                # wrapper starts its event loop's thread and an executor's), a leak starts more each time
                outcome, detail, _ = _one_case(kind, seed * 1_000_003 + number, work)
            if native_threads() > THREADS_BOUND:  # threads left behind where Python does not see them: the
                # batch stops at the case that passed the bound, before the worker exhausts the system
                outcome, detail = "threads leaked", f"{native_threads()} native threads in the worker after it"
            outcomes[outcome] += 1
            if outcome != "ok" and len(examples) < 3:
                examples.append(f"{kind} seed {seed} case {number}: {outcome}: {detail[:300]}")
            if outcome == "threads leaked":
                break
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return kind, outcomes, examples, native_threads()


def build_models(folder: Path) -> list[str]:
    """Small models of each kind, trained on the shipped sample: the pipeline joint model first."""
    from click.testing import CliRunner

    from hetdep.cli import main

    runs = {
        "joint": ["--train", SAMPLES / "train.sud.conllu", "--train-b", SAMPLES / "train.ud.conllu", "--dev",
                  SAMPLES / "dev.sud.conllu", "--dev-b", SAMPLES / "dev.ud.conllu", "--beam", "2", "--iterations", "1",
                  "--folds", "2"],
        "arc-standard": ["--train", SAMPLES / "train.ud.conllu", "--dev", SAMPLES / "dev.ud.conllu", "--beam", "2",
                         "--iterations", "1", "--folds", "2", "--no-tokenizer"],
        "dep1": ["--parser", "dep1", "--train", SAMPLES / "train.ud.conllu", "--dev", SAMPLES / "dev.ud.conllu",
                 "--iterations", "1", "--gold-tags", "--no-tokenizer"],
    }
    runs["neural"] = ["--parser", "neural", "--train", SAMPLES / "train.sud.conllu", "--train-b", SAMPLES / "train.ud.conllu",
                      "--dev", SAMPLES / "dev.sud.conllu", "--dev-b", SAMPLES / "dev.ud.conllu", "--iterations", "1",
                      "--threads", "1", "--no-tokenizer"]
    rng = random.Random(7)
    trees = folder / "trees.mrg"
    trees.write_text("\n".join(f"( {random_tree(rng)})" for _ in range(60)) + "\n", encoding="utf-8")
    runs["constituency"] = ["--parser", "constituency", "--train", trees, "--dev", trees, "--iterations", "1", "--beam", "2",
                            "--folds", "2"]  # with its tagger, a part to remove
    dev = (SAMPLES / "dev.ud.conllu").read_text(encoding="utf-8").split("\n\n")
    other_train, other_dev = folder / "other-train.ud.conllu", folder / "other-dev.ud.conllu"
    other_train.write_text("\n\n".join(dev[:120]) + "\n\n", encoding="utf-8")
    other_dev.write_text("\n\n".join(dev[120:160]) + "\n\n", encoding="utf-8")
    runs["treebanks"] = [*_treebank("seq", "sud"), *_treebank("seq", "ud"), "--treebank", "other", "ud", other_train, other_dev,
                         "--iterations", "1", "--final-epochs", "0", "--threads", "1"]  # its own FEATS tagger each
    runs["constituency-neural"] = ["--parser", "constituency-neural", "--train", trees, "--dev", trees, "--iterations", "1",
                                   "--final-epochs", "0", "--threads", "1"]
    for name, args in runs.items():
        result = CliRunner().invoke(main, ["train", *map(str, args), "--model", str(folder / name)])
        if result.exit_code != 0:
            raise SystemExit(f"training the {name} model failed: {result.output[-1000:]}")
    result = CliRunner().invoke(main, ["compact", str(folder / "neural"), "--output", str(folder / "neural-compact")])
    if result.exit_code != 0:  # quantized arrays and their scales, as the shipped model has them
        raise SystemExit(f"compacting the neural model failed: {result.output[-1000:]}")
    return [str(folder / name) for name in runs] + [str(folder / "neural-compact")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--only", help="generators to run, comma-separated (their shares of --cases kept as they are)")
    args = parser.parse_args()
    shares = {kind: share for kind, share in SHARES.items() if not args.only or kind in args.only.split(",")}
    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="hetdep-fuzz-models-"))
    try:
        models = build_models(folder)
        tasks = []
        for kind, share in shares.items():
            total, size = round(args.cases * share), BATCH.get(kind, 500)
            tasks += [(kind, args.seed * 100_000 + k, min(size, total - k * size)) for k in range((total + size - 1) // size)]
        random.Random(args.seed).shuffle(tasks)
        totals: dict[str, Counter] = {kind: Counter() for kind in shares}
        examples: list[str] = []
        pending, attempts = list(tasks), Counter()
        most_threads = 0
        while pending:  # a worker that dies breaks the pool: the tasks it took down run again in a new one
            # Workers are spawned, not forked: the models were trained in this process, and a child forked
            # after PyTorch's OpenMP threads ran starts new native threads at every parallel region without
            # ever reusing them (13,000 to 21,000 in one worker within minutes, before this).
            with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_setup,
                                     initargs=(models,)) as pool:
                futures = [(pool.submit(run_batch, *task), task) for task in pending]
                pending = []
                for future, task in futures:
                    try:
                        kind, outcomes, found, threads = future.result()
                        most_threads = max(most_threads, threads)
                    except BrokenProcessPool:
                        attempts[task] += 1
                        if attempts[task] < 2:
                            pending.append(task)
                        else:  # it died twice: counted as a signal, its cases not run
                            totals[task[0]]["signal"] += 1
                            examples.append(f"{task[0]} seed {task[1]}: a worker process died running it, twice")
                        continue
                    totals[kind].update(outcomes)
                    examples += found
        cases = sum(sum(c.values()) for c in totals.values())
        outcomes = sorted({o for c in totals.values() for o in c}, key=lambda o: (o != "ok", o))
        print(f"{cases:,} cases in {time.perf_counter() - started:,.0f} s on {args.workers} processes (seed {args.seed}); "
              f"most native threads in a worker after a batch: {most_threads}")
        print(f"{'generator':12s}" + "".join(f"{o:>22s}" for o in outcomes))
        for kind, counts in totals.items():
            print(f"{kind:12s}" + "".join(f"{counts[o]:>22,}" for o in outcomes))
        print(f"{'all':12s}" + "".join(f"{sum(c[o] for c in totals.values()):>22,}" for o in outcomes))
        for line in examples[:40]:
            print(line)
        raise SystemExit(0 if all(set(c) <= {"ok"} for c in totals.values()) else 1)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
