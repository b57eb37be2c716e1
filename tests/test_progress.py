"""The run display: plain lines off a terminal, an ETA that leaves out the first (compiling) unit, stages in order."""

from __future__ import annotations

import io
import time

from hetdep import progress
from hetdep.progress import RunDisplay, Stage


def test_plain_lines_off_a_terminal_and_a_slow_start_announced_not_timed(monkeypatch):
    monkeypatch.setattr(progress, "SLOW_START", 0.05)
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    out = io.StringIO()
    display = RunDisplay([Stage("tagger", 10, "passes", stops_early=True), Stage("parser", 100, "passes")], out, interactive=False)
    display.start("tagger")
    time.sleep(0.1)  # the first unit: loading or compiling
    display.advance("tagger")
    for _ in range(9):
        display.advance("tagger")
    display.finish("tagger", "kept")
    text = out.getvalue()
    assert "\r" not in text
    assert "[1/2] tagger: 0.1 s loading or compiling" in text and "not counted in the ETA" in text
    rates = [float(line.split(" passes/s")[0].rsplit(", ", 1)[1].replace(",", "")) for line in text.splitlines() if "passes/s" in line]
    assert rates and min(rates) > 100  # nine fast units: the 0.1 s start is not in the rate
    assert "ETA at most" in text and "(later stages not counted)" in text
    assert text.splitlines()[-1].startswith("[1/2] tagger done in 0:00: kept")


def test_a_terminal_gets_one_redrawn_line(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    display = RunDisplay([Stage("parser", 5, "passes")], out)
    display.start("parser")
    for _ in range(5):
        display.advance("parser")
    display.finish("parser")
    assert "\r" in out.getvalue() and "[1/1] parser done" in out.getvalue()
