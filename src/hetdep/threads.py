"""Sentences on several threads, results in input order.

The compiled searches release the GIL (numba's ``nogil``), so threads of one process parse
sentences truly in parallel and share one copy of the model's weights; only the Python around
each search (encoding, building the output sentence) takes turns. Each sentence is parsed on
its own, as in one thread, so the output is the same whatever the number of threads.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Iterator, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

AHEAD = 8  # items in flight per thread: enough to keep every thread busy, few enough to stream
M_ARENA_MAX = -8  # glibc's mallopt parameter: how many malloc arenas there may be
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter: blocks from this size up are mapped on their own
MAPPED_FROM = 4 << 20  # bytes (tune_malloc)


def ordered_map(function: Callable[[Item], Result], items: Iterable[Item], threads: int) -> Iterator[Result]:
    """``function(item)`` for each item, on ``threads`` threads, yielded in input order.

    The input is read lazily, at most ``AHEAD * threads`` items ahead of what was yielded, so a
    long input streams in bounded memory. An exception raised for an item is raised here when
    that item's turn comes (the items before it yielded first, as in one thread). If the
    consumer stops early (an error downstream, Ctrl-C), items not yet started are cancelled.
    """
    if threads <= 1:
        yield from map(function, items)
        return
    pool = ThreadPoolExecutor(threads, thread_name_prefix="hetdep")
    pending: deque = deque()
    try:
        for item in items:
            pending.append(pool.submit(function, item))
            if len(pending) >= AHEAD * threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def usable_cores() -> int:
    """The cores this process may run on: those of its CPU affinity (``taskset``, a container's
    cpuset, a test worker's share), which ``os.cpu_count()`` ignores."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def limit_blas_threads(threads: int) -> None:
    """At most ``threads`` threads in NumPy's BLAS (the neural network's matrix products) from now on:
    its default, one per core, oversubscribes the cores when several threads each run products
    (the service's workers, or a parse beside other work). A process that parses (``hetdep parse``,
    a Dask worker) keeps one: the network's products are small, so on idle cores a second thread
    gains nothing (fr-sequoia test from raw text, 2 cores: 5.2-5.6 s either way, a third less CPU
    time with one), and on cores busy with other work OpenBLAS's threads wait on each other (the
    same parse beside a training: 113 s against 5.4 s; docs/speed.md)."""
    import numpy  # noqa: F401 - its BLAS is limited only once loaded
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=max(1, threads), user_api="blas")


def tune_malloc(threads: int) -> None:
    """Where the C library is glibc, fit its malloc to a parse on ``threads`` threads: at most that
    many arenas (two at least), and with more than one thread every block of ``MAPPED_FROM`` bytes
    or more mapped on its own.

    glibc gives each thread that contends for an arena one of its own (up to eight per core), each
    keeping what its thread freed. A parse's threads (its own, the runtime's, the weights' digest)
    held 40-50 MB more at the peak so: fr-sequoia test from raw text, `--threads 2`, 530-549 MB
    against 481-499 with two arenas, in the same seconds (MALLOC_ARENA_MAX, three rounds in turns).

    glibc also maps a block on its own only above a threshold that rises to the largest block
    freed (up to 32 MB): once a model's files are read, each batch's 4-8 MB arrays (the runtime's
    LSTM outputs and their copies) come from the arenas, where two threads' batches of varying
    sizes leave free pieces unused. With blocks from 4 MB mapped and unmapped whole, the same parse
    peaked at 380-407 MB against 394-438 (eight rounds in turns, MALLOC_MMAP_THRESHOLD_), in 3.45
    against 3.31 s (medians: the pages of each mapped block are cleared anew); from 2 MB, 368-377 MB
    for 11% more time. With one thread it gained little (355-362 MB against 363-382) for 10% more
    time (4.63-4.87 s against 4.23-4.29), so one thread keeps glibc's threshold. Another C library
    has no such calls, or none that does harm (musl's do nothing)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_ARENA_MAX, max(2, threads))
    if threads > 1:
        mallopt(M_MMAP_THRESHOLD, MAPPED_FROM)


def blas_kernels() -> str:
    """NumPy's BLAS and the kernels it runs, for speed figures: ``OPENBLAS_CORETYPE`` in the
    environment picks OpenBLAS's kernels (this project's machines set ``Haswell``, its AVX2 ones, on
    cores where its own choice is the AVX-512 ``SkylakeX``: the whole parse 1.12-1.16x slower,
    ``bench/blas_kernels.py``)."""
    import numpy  # noqa: F401 - its BLAS is described once loaded
    from threadpoolctl import threadpool_info

    found = [f"{info.get('internal_api', '?')} {info.get('version') or ''} ({info.get('architecture') or 'its own'} kernels)"
             for info in threadpool_info() if info.get("user_api") == "blas"]
    forced = os.environ.get("OPENBLAS_CORETYPE")
    return (", ".join(found) or "no BLAS found") + (f", OPENBLAS_CORETYPE={forced} from the environment" if forced else "")
