"""Whose unit of work runs next: a short request's before a long one's, so it is not stuck behind them.

The service parses a request in batches, one unit of work at a time on one of its worker threads.
Taken in order of arrival, the units of a few long requests filled the queue ahead of the many
short ones (with every 20th request 50 KB, short requests waited 4.2x as long as without the long
ones, bench/load_service.py). Here a free thread goes to the waiting unit of the request of the
smallest size class, the earliest among equals. Classes, not sizes: requests shorter than SHORT
characters are one class, taken in order of arrival (ordered by exact size, the largest of
1,000 short requests waited 105 s where arrival order kept every one under 28 s), and longer ones
a class per power of two. A long request is served when no shorter one waits, so under a flood
of short requests it waits longer; the bound on queued units and each batch's timeout still hold.
"""

from __future__ import annotations

import heapq
import itertools
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import AsyncIterator

import anyio

SHORT = 8192  # characters: requests shorter than this are one class, served in order of arrival


def size_class(size: int) -> int:
    """0 for a request shorter than SHORT, then one more for each doubling of its length."""
    return (size // SHORT).bit_length()


@dataclass(order=True)
class _Waiter:
    """A unit of work waiting for a thread, ordered by size class, then arrival."""

    size_class: int
    arrival: int
    event: anyio.Event = field(compare=False)
    state: str = field(default="waiting", compare=False)  # "given" a thread, or "gone" (cancelled)


class Turns:
    """``slots`` worker threads handed out smallest size class first, then by arrival."""

    def __init__(self, slots: int):
        self.free = slots
        self.waiting: list[_Waiter] = []  # a heap
        self.waiters = 0  # entries still "waiting"
        self.arrivals = itertools.count()

    @asynccontextmanager
    async def turn(self, size: int) -> AsyncIterator[None]:
        """Wait for a thread for a unit of work of a request of ``size`` characters; hold it inside the block."""
        if self.free and not self.waiters:
            self.free -= 1
        else:
            entry = _Waiter(size_class(size), next(self.arrivals), anyio.Event())
            heapq.heappush(self.waiting, entry)
            self.waiters += 1
            try:
                await entry.event.wait()
            except BaseException:  # cancelled while waiting: a thread given meanwhile goes to the next
                if entry.state == "given":
                    self._release()
                else:
                    self.waiters -= 1
                entry.state = "gone"
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self.waiting:
            entry = heapq.heappop(self.waiting)
            if entry.state == "waiting":
                entry.state = "given"
                self.waiters -= 1
                entry.event.set()
                return
        self.free += 1
