"""Parsing (or tagging) a corpus on a Dask cluster, in chunks of whole sentences that travel through Dask.

The input is read (raw text tokenized) in this process and cut into chunks as it is read; each
chunk is submitted as soon as it is cut, the first ones small (FIRST_CHUNK_WORDS, doubling up to
``chunk_words``) so that every worker starts at once, and at most AHEAD chunks per worker are
in flight, so memory stays bounded whatever the input's size. A chunk's sentences go to the
worker inside the task and its trees come back as text in the task's result: the workers need
no folder shared with this process.

A worker runs a job (``hetdep.models.opening.ParseJob``, ``hetdep.models.parsing.TagJob``: an object with
``open(threads, directory)``, which loads its models, and ``run(models, sentences)``, which gives
each sentence's output sentences and the counts). On an existing cluster (``--scheduler``) the
model folder's files are sent to every worker once (Dask's ``scatter``) and unpacked into a
folder of the worker's own, so the workers need not see this machine's files at all; a local
cluster's workers read the folder itself. A worker loads the models once per process and keeps
them, and parses one chunk at a time with as many threads as Dask gave it (``--nthreads``), as
one process with ``--threads`` does: its threads share one copy of the weights. The results are
written in input order as they arrive, so the output is byte-identical to a one-process run's,
and written whole or not at all.

A worker lost in the middle: the scheduler runs its chunks again elsewhere, and since a chunk's
result is taken once, no sentence is lost or written twice. Dask keeps one copy of scattered data
(its memory manager drops the others), so the model's files can be lost with a worker too: they
are then sent again (up to RESHIP times) and the chunks that needed them submitted again. An
error in a chunk names the input file and line, as in one process (each sentence carries its
path and line).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from hetdep.cluster.connect import ClusterChoice, connect, worker_peak_memory
from hetdep.errors import HetdepError
from hetdep.learn.vocab import ParseStats
from hetdep.threads import limit_blas_threads
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.outputs import output_files

CHUNK_WORDS = 10_000  # a few seconds of parsing on one thread: coarse enough to keep scheduling cheap
FIRST_CHUNK_WORDS = 500  # the first chunk's size; each next one twice the last, up to CHUNK_WORDS
AHEAD = 3  # chunks submitted and not yet written, per worker: one parsing, one waiting, one come back early
RESHIP = 3  # times the model's files are sent again after the workers holding them all died


@dataclass
class ChunkResult:
    """What a worker gives back for a chunk: the output files' text, the counts, and when it ran."""

    texts: tuple[str, ...]
    sentences: int
    stats: ParseStats
    started: float  # wall-clock seconds (time.time()) when the worker began the chunk
    finished: float
    loading: float  # seconds this task spent loading the models (0 once they are loaded)


@dataclass
class ClusterRun:
    """What a run on the cluster did: counts, each worker's peak memory, and where the time went
    (seconds from the start of the run)."""

    sentences: int = 0
    stats: ParseStats = field(default_factory=ParseStats)
    memory: dict[str, int] = field(default_factory=dict)
    connected: float = 0.0  # the cluster reached (a local one started)
    first_parsed: float = 0.0  # the first chunk done by a worker
    last_parsed: float = 0.0  # the last chunk done by a worker
    written: float = 0.0  # the output complete
    loading: float = 0.0  # the longest time a worker spent loading the models
    first_started: float = 0.0  # the first chunk's parse began (its models loaded)

    def overhead(self) -> float:
        """The seconds no chunk was being parsed: before the first chunk's parse began, and after the
        last chunk until the output was complete."""
        return self.first_started + (self.written - self.last_parsed)

    def timing_line(self) -> str:
        return (f"Dask timing: cluster reached at {self.connected:.1f} s, models loaded in {self.loading:.1f} s, "
                f"first chunk parsing from {self.first_started:.1f} s (done at {self.first_parsed:.1f} s), last chunk "
                f"done at {self.last_parsed:.1f} s, output written at {self.written:.1f} s: overhead "
                f"{self.overhead():.1f} s ({100 * self.overhead() / max(self.written, 1e-9):.1f}%)")


_opened: dict = {}  # this worker process's last job: its open models and its unpacked folder, if any
_one_chunk_at_a_time = threading.Lock()  # per process: its threads parse one chunk together


def _threads() -> int:
    """The threads Dask gave this worker (1 outside a worker)."""
    try:
        from distributed import get_worker

        return get_worker().state.nthreads
    except ValueError:
        return 1


def model_files(directory: str | Path) -> dict[str, bytes]:
    """Every file of a model folder, by its path inside it: what a worker without the folder needs."""
    root = Path(directory)
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def _unpacked(files: dict[str, bytes]) -> str:
    """A model folder's files written into a new folder of this worker's own (removed when it exits)."""
    folder = Path(tempfile.mkdtemp(prefix="hetdep-model."))
    atexit.register(shutil.rmtree, folder, True)
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return str(folder)


def _models_of(job, files: dict[str, bytes] | None):
    """The job's models in this worker process: loaded on its first chunk and kept (a worker of a
    long-lived cluster keeps one job's models at a time)."""
    if _opened.get("job") != job:
        if _opened.get("folder"):
            shutil.rmtree(_opened["folder"], ignore_errors=True)
        _opened.clear()
        folder = _unpacked(files) if files is not None else None
        limit_blas_threads(1)
        _opened.update(job=job, folder=folder, models=job.open(_threads(), folder))
    return _opened["models"]


def _start(chunk: list[Sentence]) -> str:
    """Where a chunk begins in the input, as FILE:LINE."""
    return f"{chunk[0].path}:{chunk[0].line}"


def _ship(client, files: dict[str, bytes] | None):
    """The model folder's files sent to every worker, as one Dask datum under a key of this run's
    own (a dict's names would become keys shared by every run on the cluster)."""
    return None if files is None else client.scatter([files], broadcast=True, hash=False)[0]


def process_chunk(job, sentences: list[Sentence], files: dict[str, bytes] | None = None) -> ChunkResult:
    """A worker's task: run the job over one chunk; its output files' text and counts. ``files``:
    the model folder's files, when the worker may not see the folder."""
    with _one_chunk_at_a_time:
        loading = time.perf_counter()
        models = _models_of(job, files)
        loading = time.perf_counter() - loading
        started = time.time()
        results, stats = job.run(models, sentences)
        texts: list[list[str]] = []
        for result in results:
            if not texts:
                texts = [[] for _ in result]
            for parts, tree in zip(texts, result):
                parts.append(tree.to_text())
        return ChunkResult(tuple("".join(parts) for parts in texts), len(sentences), stats, started, time.time(), loading)


def chunks_of(sentences: Iterable[Sentence], chunk_words: int, first_words: int = FIRST_CHUNK_WORDS) -> Iterator[list[Sentence]]:
    """The sentences cut into chunks, the first of about ``first_words`` words, each next twice
    the last, up to about ``chunk_words``."""
    batch: list[Sentence] = []
    words, size = 0, min(first_words, chunk_words)
    for sentence in sentences:
        batch.append(sentence)
        words += len(sentence)
        if words >= size:
            yield batch
            batch, words, size = [], 0, min(2 * size, chunk_words)
    if batch:
        yield batch


def run_on_cluster(job, sentences: Iterable[Sentence], output_paths: list[str | None], cluster: ClusterChoice,
                   chunk_words: int = CHUNK_WORDS, progress: Callable[[int], None] | None = None,
                   files: dict[str, bytes] | None = None) -> ClusterRun:
    """Run ``job`` (see the module docstring) over ``sentences`` on the cluster; write its output to
    ``output_paths`` (one, or two for a pair of schemes; None: discarded). ``files``: the model
    folder's files (:func:`model_files`), sent to the workers instead of its path; by default
    sent to an existing cluster's workers. ``progress(n)``: n more sentences done."""
    from distributed import KilledWorker, as_completed
    from distributed.client import FutureCancelledError

    begun = time.time()
    run = ClusterRun()
    if files is None and cluster.scheduler:
        files = model_files(job.model_dir)
    with output_files(*output_paths) as outs, connect(cluster) as client:
        run.connected = time.time() - begun
        shipped = _ship(client, files)
        limit = AHEAD * max(1, len(client.nthreads()))
        name = f"hetdep-{uuid.uuid4().hex}"
        pending = as_completed()
        # a future's key: its chunk's place in the input, and which sending of the files it was given
        numbers: dict[str, tuple[int, int]] = {}
        batches: dict[int, list[Sentence]] = {}  # a chunk's sentences, until its result has come
        done: dict[int, ChunkResult] = {}
        cut = iter(enumerate(chunks_of(sentences, chunk_words)))
        submitted = written = reshipped = 0

        def submit(number: int) -> None:
            key = f"{name}-{number}-{reshipped}"  # a chunk runs again only with files sent again
            future = client.submit(process_chunk, job, batches[number], shipped, key=key, pure=False)
            numbers[key] = number, reshipped
            pending.add(future)

        timings: list[tuple[float, float, float]] = []  # each chunk's start, end and model loading (not its text)
        try:
            while True:
                while submitted - written < limit:
                    chunk = next(cut, None)
                    if chunk is None:
                        break
                    number, batches[number] = chunk
                    submit(number)
                    submitted += 1
                if pending.is_empty():
                    break
                future = next(pending)
                number, sent = numbers.pop(future.key)
                try:
                    done[number] = future.result()
                except KilledWorker as error:
                    raise HetdepError(f"the Dask workers died each time they parsed the chunk of sentences from "
                                      f"{_start(batches[number])} on: {error}") from None
                except FutureCancelledError:
                    # the model's files were lost with the worker that held them: sent again, and the
                    # chunks that needed them run again (a cancellation for any other reason is raised)
                    if shipped is None or (sent == reshipped and shipped.status == "finished"):
                        raise
                    if sent == reshipped:
                        if reshipped == RESHIP:
                            raise HetdepError(f"the Dask workers holding the model's files died {RESHIP + 1} "
                                              f"times before the chunk of sentences from {_start(batches[number])} "
                                              "was parsed") from None
                        reshipped += 1
                        shipped = _ship(client, files)
                    submit(number)
                    continue
                del batches[number]
                while written in done:  # in input order, as soon as the chunks before have come
                    result = done.pop(written)
                    for out, text in zip(outs, result.texts):
                        out.write(text)
                    run.sentences += result.sentences
                    run.stats.add(result.stats)
                    timings.append((result.started, result.finished, result.loading))
                    written += 1
                    if progress:
                        progress(result.sentences)
        except BaseException:
            client.cancel(list(pending.futures))
            raise
        run.memory = worker_peak_memory(client)
    run.written = time.time() - begun
    if timings:
        started, ended, loading = zip(*timings)
        run.first_started, run.first_parsed = min(started) - begun, min(ended) - begun
        run.last_parsed, run.loading = max(ended) - begun, max(loading)
    return run
