"""The house rules a test can check (docs/layout.md): a module over 450 lines says why at its top."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LONGEST = 450


def test_every_module_over_450_lines_says_why_at_its_top():
    lines = {path: path.read_text(encoding="utf-8").splitlines()
             for folder in ("src", "bench") for path in sorted((ROOT / folder).rglob("*.py"))}
    silent = [f"{path.relative_to(ROOT)}: {len(text)} lines" for path, text in lines.items() if len(text) > LONGEST
              and f"(Over {LONGEST} lines:" not in "\n".join(text[:8])]
    assert not silent, "\n".join(silent)
