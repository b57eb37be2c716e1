"""One progress display for a long run made of stages (tokenizer, tagger, jackknifing, parser).

Each stage counts its own units (sentence passes, folds, iterations) against a known most.
A stage of fine units (sentences) measures its rate from its second unit on, so the one-off
loading or compiling of compiled loops in its first unit never enters an ETA (it is announced
instead when it takes a while). The ETA covers the stages whose speed is measured, says when
later stages are left out, and says "at most" when a stage may stop early (patience). On a
terminal one line is redrawn in place (by tqdm); elsewhere (a log file, a pipe) plain lines are
written, one per tenth of a stage at most every few seconds, and one when a stage ends.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TextIO

SLOW_START = 2.0  # seconds: a first unit slower than this was loading or compiling code
PLAIN_EVERY = 5.0  # seconds between plain lines at least


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else f"{seconds // 60}:{seconds % 60:02d}"


@dataclass
class Stage:
    name: str
    total: int  # most units the stage can take
    unit: str
    stops_early: bool = False  # may end before ``total`` (patience): its ETA is a bound
    fine: bool = True  # units of a fraction of a second (sentences), so a slow first one was compiling
    done: int = 0
    started: float | None = None
    timed_from: float | None = None  # when the first unit ended: rates are measured from there
    timed_done: int = 0
    finished: bool = False
    rate: float | None = None
    extra: dict = field(default_factory=dict)


def counted_on_terminal(sentences: Iterable) -> Iterable:
    """``sentences`` counted by tqdm's bar on a terminal, as they are elsewhere (a pipe, a log), as
    tqdm's ``disable=None`` leaves them, but without importing tqdm there: its import (with
    importlib.metadata's) took 18 ms of a one-sentence parse."""
    if not sys.stderr.isatty():
        return sentences
    from tqdm import tqdm

    return tqdm(sentences, unit="sent", mininterval=1.0)


def figure(value: float) -> str:
    """A score or a rate for a person: two decimals, a small number (a learning rate) in its first
    figures rather than 0.00."""
    return f"{value:.2f}" if value == 0 or abs(value) >= 0.1 else f"{value:.2g}"


class RunDisplay:
    def __init__(self, stages: list[Stage], stream: TextIO | None = None, interactive: bool | None = None):
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty() if interactive is None else interactive
        self.stages = {stage.name: stage for stage in stages}
        self.order = [stage.name for stage in stages]
        self._bar = None
        self._last_plain = 0.0
        self._last_tenth = -1

    # what stages call

    def log(self, line: str) -> None:
        if self._bar is not None:
            self._bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def start(self, name: str) -> None:
        stage = self.stages[name]
        stage.started = time.perf_counter()
        if self.interactive:
            from tqdm import tqdm

            self._bar = tqdm(total=stage.total, unit=stage.unit, file=self.stream, leave=False, mininterval=0.5,
                             bar_format="{desc}")
        self._show(stage)

    def advance(self, name: str, units: int = 1, **extra) -> None:
        stage = self.stages[name]
        now = time.perf_counter()
        if stage.timed_from is None and not stage.fine:  # coarse units: timed from the stage's start
            stage.timed_from = stage.started
        if stage.timed_from is None:
            stage.timed_from = now
            if now - stage.started > SLOW_START:
                self.log(f"{self._prefix(stage)}: {now - stage.started:.1f} s loading or compiling the compiled loops "
                         "(compiled once per machine, cached after); not counted in the ETA")
        else:
            stage.timed_done += units
            stage.rate = stage.timed_done / max(now - stage.timed_from, 1e-9)
        stage.done = min(stage.done + units, stage.total)
        stage.extra.update(extra)
        if self._bar is not None:
            self._bar.update(units)
        self._show(stage)

    def finish(self, name: str, note: str = "", interrupted: bool = False) -> None:
        """The stage's last line: done, or (``interrupted``) stopped before its end, never called done."""
        stage = self.stages[name]
        stage.finished = True
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        seconds = time.perf_counter() - (stage.started or time.perf_counter())
        self.log(f"{self._prefix(stage)} {'interrupted after' if interrupted else 'done in'} {_clock(seconds)}"
                 + (f": {note}" if note else ""))
        self._last_tenth = -1

    def perceptron_progress(self, name: str, score: str = "UAS", log_iterations: bool = True, shown: str = "dev_UAS"):
        """A tqdm-like factory for the training loops' ``progress`` (one bar per iteration): the
        stage's units are sentence passes, and the last iteration's dev score (the loop's postfix
        ``shown``; a tagger's accuracy travels as its UAS) is shown as ``score``, and with
        ``log_iterations`` written as a line."""
        display = self

        class _Iteration:
            def __init__(self, total: int, desc: str = "", unit: str = ""):
                self.desc, self.dev = desc, None
                display.stages[name].extra["at"] = desc

            def update(self, n: int = 1) -> None:
                display.advance(name, n)

            def set_postfix(self, **postfix) -> None:
                self.dev = display.stages[name].extra[f"dev {score}"] = postfix.get(shown)

            def close(self) -> None:
                if self.dev is not None and log_iterations:
                    display.log(f"{display._prefix(display.stages[name])}: {self.desc} done, dev {score} {self.dev}")

        return _Iteration

    # the display

    def _prefix(self, stage: Stage) -> str:
        return f"[{self.order.index(stage.name) + 1}/{len(self.order)}] {stage.name}"

    def eta(self) -> tuple[float, bool, bool]:
        """Seconds left in the stages whose speed is measured, whether that covers every stage left,
        and whether it is a bound (a stage that may stop early is counted in full)."""
        left, complete, bound = 0.0, True, False
        for name in self.order:
            stage = self.stages[name]
            if stage.finished:
                continue
            rate = stage.rate
            if rate is None:
                complete = False
                continue
            left += (stage.total - stage.done) / rate
            bound |= stage.stops_early
        return left, complete, bound

    def line(self, stage: Stage) -> str:
        parts = [f"{self._prefix(stage)}", f"{stage.done:,}/{stage.total:,} {stage.unit}"]
        if stage.rate:
            parts.append(f"{stage.rate:,.1f} {stage.unit}/s" if stage.rate >= 1 else f"{1 / stage.rate:,.1f} s each")
        parts += [f"{key.replace('_', ' ')} {value}" for key, value in stage.extra.items()]
        left, complete, bound = self.eta()
        if stage.rate:
            parts.append(f"ETA {'at most ' if bound else ''}{_clock(left)}" + ("" if complete else " (later stages not counted)"))
        return ", ".join(parts)

    def _show(self, stage: Stage) -> None:
        if self._bar is not None:
            self._bar.set_description_str(self.line(stage), refresh=False)
            return
        tenth = 10 * stage.done // max(stage.total, 1)
        now = time.perf_counter()
        if tenth > self._last_tenth and now - self._last_plain >= PLAIN_EVERY or stage.done == 0:
            self._last_tenth, self._last_plain = tenth, now
            print(self.line(stage), file=self.stream, flush=True)
