"""The language guard's false alarms and detections, per sentence of 3 words or more: French test
sentences of fr-sequoia, fr-gsd and fr-parisstories (it should flag at most 1%) against en-ewt and
zh-beginner test sentences (at least 95%), judged by the shipped model's guard on the gold words (its thresholds were chosen on the dev sets).

    python bench/language_guard.py [--model MODEL] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hetdep.models.names import find_model
from hetdep.models.opening import open_models
from hetdep.treebank.conllu import read_conllu

SETS = {"fr-sequoia": "fr", "fr-gsd": "fr", "fr-parisstories": "fr", "en-ewt": "en", "zh-beginner": "zh"}
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="model directory or name (default: the shipped model)")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    models = open_models(find_model(args.model), tag_input=False)
    guard = models.guard
    print(f"model {models.model_dir} (language {guard.language}); sentences of 3 words or more, test sets")
    print("| test set | language | sentences | flagged | share |")
    print("|---|---|---|---|---|")
    pooled = {}
    for name, language in SETS.items():
        sentences = [s for s in read_conllu(args.data / name / "test.ud.conllu") if len(s) >= 3]
        started = time.perf_counter()
        flagged = sum(guard.looks_like(sentence) is not None for sentence in sentences)
        seconds = time.perf_counter() - started
        same = language == guard.language
        total = pooled.setdefault(same, [0, 0])
        total[0], total[1] = total[0] + flagged, total[1] + len(sentences)
        print(f"| {name} | {language} | {len(sentences)} | {flagged} | {100 * flagged / len(sentences):.2f}% "
              f"({1000 * seconds / len(sentences):.2f} ms a sentence) |")
    for same, (flagged, count) in sorted(pooled.items(), reverse=True):
        print(f"{'the model' if same else 'other'} languages, pooled: {flagged} of {count} flagged, {100 * flagged / count:.2f}%")


if __name__ == "__main__":
    main()
