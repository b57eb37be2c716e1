"""bench/README.md lists every benchmark script once, so a newcomer finds what measures what."""

from __future__ import annotations

import re
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def test_every_bench_script_is_listed_once():
    listed = re.findall(r"^\| `([\w.]+\.py)` \|", (BENCH / "README.md").read_text(encoding="utf-8"), re.M)
    scripts = sorted(path.name for path in BENCH.glob("*.py"))
    assert sorted(listed) == scripts, "bench/README.md and bench/*.py differ"
