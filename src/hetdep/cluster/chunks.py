"""Parsing (or tagging) a corpus on a Dask cluster, disk to disk in chunks of whole sentences.

The input is read (and raw text tokenized) in this process and cut into chunks of about
``chunk_words`` words, written as CoNLL-U files into a work folder beside the output; each
worker runs a job (``hetdep.models.parsing.ParseJob``, ``TagJob``: an object with ``open()``, which
loads its models, and ``run(models, sentences)``, which gives each sentence's output sentences and
the counts) over whole chunks (coarse tasks, not one
a sentence) with its own copy of the model, loaded once, and writes each chunk's result to a file
of its own, whole or not at all. When every chunk is done, the chunk outputs are joined in input
order into the output, which is then byte-identical to a one-process run's, and the work folder
is removed.

A worker lost in the middle: the scheduler runs its chunks again elsewhere, and since a chunk's
output is replaced whole, no sentence is lost or written twice. An error in a chunk names the
input file and line, as in one process (each chunk carries its sentences' original lines), and
the output is left as it was.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from hetdep.cluster.connect import ClusterChoice, connect, worker_peak_memory
from hetdep.errors import OutputError
from hetdep.learn.vocab import ParseStats
from hetdep.treebank.conllu import Sentence, output_files, read_conllu

CHUNK_WORDS = 50_000  # about a few seconds of parsing a chunk: coarse enough to keep scheduling cheap


@dataclass(frozen=True)
class Chunk:
    """One chunk's files and where its sentences came from."""

    number: int
    source: str  # the chunk's CoNLL-U file
    outputs: tuple[str, ...]  # where its trees go (two for a pair of schemes)
    path: str  # the input file its sentences were read from
    lines: tuple[int, ...]  # each sentence's first line there

    @property
    def sentences(self) -> int:
        return len(self.lines)


_opened = threading.local()  # a worker thread's open models, by job


def _open(job):
    """The models of a job in this worker thread, loaded on its first chunk."""
    cache = getattr(_opened, "cache", None)
    if cache is None:
        cache = _opened.cache = {}
    if job not in cache:
        cache[job] = job.open()
    return cache[job]


def process_chunk(job, chunk: Chunk) -> ParseStats:
    """A worker's task: run the job over one chunk file into its output file(s); returns the chunk's counts."""
    sentences = list(read_conllu(chunk.source))
    for sentence, line in zip(sentences, chunk.lines, strict=True):
        sentence.path, sentence.line = chunk.path, line
    results, stats = job.run(_open(job), sentences)
    with output_files(*chunk.outputs) as outs:
        for result in results:
            for out, tree in zip(outs, result):
                out.write(tree.to_text())
    return stats


def chunks_of(sentences: Iterable[Sentence], folder: Path, outputs: int, chunk_words: int) -> Iterator[Chunk]:
    """The sentences cut into chunks of about ``chunk_words`` words, each written to ``folder``."""
    batch: list[Sentence] = []
    words = 0
    number = 0
    for sentence in sentences:
        batch.append(sentence)
        words += len(sentence)
        if words >= chunk_words:
            yield _write_chunk(batch, folder, number, outputs)
            batch, words, number = [], 0, number + 1
    if batch:
        yield _write_chunk(batch, folder, number, outputs)


def _write_chunk(batch: list[Sentence], folder: Path, number: int, outputs: int) -> Chunk:
    source = folder / f"chunk-{number:06d}.conllu"
    source.write_text("".join(sentence.to_text() for sentence in batch), encoding="utf-8")
    return Chunk(number, str(source), tuple(str(folder / f"chunk-{number:06d}.out{k}") for k in range(outputs)),
                 batch[0].path, tuple(sentence.line for sentence in batch))


def _check_writable(path: str) -> Path:
    """The folder an output goes to, refused before any work if it cannot be written."""
    import os

    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise OutputError(path, f"cannot be written: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise OutputError(path, f"cannot be written: no permission to write in {folder}")
    return folder


def run_on_cluster(job, sentences: Iterable[Sentence], output_paths: list[str | None], cluster: ClusterChoice,
                   chunk_words: int = CHUNK_WORDS,
                   progress: Callable[[int], None] | None = None) -> tuple[int, ParseStats, dict[str, int]]:
    """Run ``job`` (see the module docstring) over ``sentences`` on the cluster; write
    its output to ``output_paths`` (one, or two for a pair of schemes; None: discarded). Returns
    the sentence count, the summed counts and each worker's peak memory in bytes;
    ``progress(n)``: n more sentences done."""
    from distributed import as_completed

    written = [path for path in output_paths if path not in (None, "-")]
    work_parent = _check_writable(written[0]) if written else Path(tempfile.gettempdir())
    for path in written[1:]:
        _check_writable(path)
    folder = Path(tempfile.mkdtemp(prefix=".hetdep-chunks.", dir=work_parent))
    stats = ParseStats()
    try:
        with connect(cluster) as client:
            futures, chunks = [], []
            for chunk in chunks_of(sentences, folder, len(output_paths), chunk_words):
                chunks.append(chunk)
                futures.append(client.submit(process_chunk, job, chunk, key=f"hetdep-{folder.name}-{chunk.number}", pure=False))
            try:
                for future in as_completed(futures):
                    chunk_stats = future.result()
                    stats.add(chunk_stats)
                    if progress:
                        progress(chunk_stats.sentences)
            except BaseException:
                client.cancel(futures)
                raise
            memory = worker_peak_memory(client)
        with output_files(*output_paths) as outs:
            for chunk in chunks:
                for out, part in zip(outs, chunk.outputs):
                    with open(part, encoding="utf-8") as data:
                        shutil.copyfileobj(data, out)
        return sum(chunk.sentences for chunk in chunks), stats, memory
    finally:
        shutil.rmtree(folder, ignore_errors=True)
