"""Reaching a Dask cluster: a local one of N worker processes, or an existing one by its address.

Dask is imported only here, and only when a command asks for workers: a one-process run starts
no cluster and pays nothing for it.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from hetdep.errors import HetdepError

# A local cluster's workers without two of Dask's defaults that slow parsing (measured on en-ewt, 33k
# words, one worker of 2 threads: 4.7 s against 3.3 s in one process; 3.2 s without both): glibc
# told to give memory back at every 64 KiB freed (MALLOC_TRIM_THRESHOLD_), which the parser's many
# small arrays pay for in system calls, and the statistical profiler, which takes Python's lock
# every 10 ms to read every thread's stack. Workers of an existing cluster: start them so (docs/archive.md).
PARSING_WORKERS = {
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    "distributed.worker.profile.enabled": False,
}


@dataclass(frozen=True)
class ClusterChoice:
    """``workers``: a local cluster of that many worker processes of ``threads`` threads each;
    ``scheduler``: the address of an existing cluster (``tcp://HOST:PORT``) instead, whose workers
    have the threads they were started with."""

    workers: int = 0
    scheduler: str | None = None
    threads: int = 1

    @property
    def wanted(self) -> bool:
        return self.workers > 0 or self.scheduler is not None

    def check(self) -> None:
        if self.wanted:
            from hetdep.extras import require

            require("cluster", "--workers and --scheduler (Dask)")
        if self.workers and self.scheduler:
            raise HetdepError("give --workers (a local cluster) or --scheduler (an existing one), not both")
        if self.scheduler and self.threads > 1:
            raise HetdepError("with --scheduler each worker uses the threads it was started with (dask worker --nthreads N): "
                              "drop --threads")


@contextmanager
def connect(choice: ClusterChoice, timeout: float = 10.0) -> Iterator[object]:
    """A ``distributed.Client`` for the chosen cluster, closed (and a local cluster stopped) at the end."""
    choice.check()
    from distributed import Client, LocalCluster

    if choice.scheduler:
        try:
            client = Client(choice.scheduler, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as error:
            raise HetdepError(f"cannot reach the Dask scheduler at {choice.scheduler}: {error}") from None
        try:
            if not client.scheduler_info().get("workers"):
                client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError) as error:
            client.close()
            raise HetdepError(f"the Dask scheduler at {choice.scheduler} has no workers ({error})") from None
        try:
            yield client
        finally:
            client.close()
        return
    import dask

    with dask.config.set(PARSING_WORKERS):
        cluster = LocalCluster(n_workers=choice.workers, threads_per_worker=choice.threads, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def worker_peak_memory(client) -> dict[str, int]:
    """Each worker process's peak resident memory so far, in bytes, by worker address."""
    return client.run(_peak_memory)


def _peak_memory() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux counts in KiB
