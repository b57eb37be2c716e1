"""What pruning costs one perceptron tagger (``hetdep compact --prune``): its whole folder pruned at
each share, its size and its accuracy on a file the model parsed (the network's UPOS and trees, as
the tagger reads them in use), against the gold file's column: whole FEATS and CoNLL 2018's UFeats
(universal features only), or the column's tags.

    python bench/tagger_pruning.py --model MODEL --tagger OUT/fr/tagger/feats --gold dev.sud.conllu [--shares 0,0.2,0.5]

``--tagger`` is the tagger as trained (a full model's, unpruned); ``--model`` parses ``--gold``
from its gold tokens (``hetdep parse --input``; its first scheme, or ``--treebank NAME``'s).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from hetdep.evaluation.conll18 import universal_features
from hetdep.learn.model_files import shrink_weights
from hetdep.models.compact import TAGGER, folder_bytes
from hetdep.models.pipeline import MORPHOLOGY_BEAM
from hetdep.tagger.tagger import Tagger
from hetdep.tagger.training import tag_accuracy
from hetdep.treebank.conllu import FEATS, Sentence, read_conllu


def pruned_copy(tagger: Path, share: float, where: Path) -> Path:
    """The tagger's folder (both directions) as ``hetdep compact --prune SHARE`` leaves it."""
    shutil.copytree(tagger, where)
    for config in sorted(where.rglob("config.json")):
        shrink_weights(config.parent, TAGGER, share)
    return where


def universal_accuracy(gold: list[Sentence], tagged: list[Sentence]) -> float:
    """Percentage of words whose universal features (CoNLL 2018's UFeats) match the gold ones."""
    pairs = [(a, b) for g, t in zip(gold, tagged, strict=True) for a, b in zip(g.column(FEATS), t.column(FEATS))]
    return 100 * sum(universal_features(a) == universal_features(b) for a, b in pairs) / len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="the model that parses --gold (a folder or a shipped name)")
    parser.add_argument("--tagger", type=Path, required=True, help="the tagger's folder, unpruned")
    parser.add_argument("--gold", type=Path, required=True, help="a gold file of the scheme the tagger learned")
    parser.add_argument("--treebank", help="a model of several treebanks: parse as this one")
    parser.add_argument("--shares", default="0,0.2,0.35,0.5", help="the shares to prune, comma-separated")
    args = parser.parse_args()
    gold = list(read_conllu(args.gold))
    with tempfile.TemporaryDirectory() as work:
        parsed_file = Path(work) / "parsed.conllu"
        subprocess.run(["hetdep", "parse", "--model", args.model, "--input", str(args.gold), "--output", str(parsed_file),
                        *(["--treebank", args.treebank] if args.treebank else [])], check=True)
        parsed = list(read_conllu(parsed_file))
        print(f"| share | MB | {args.gold.name}: whole | universal (UFeats) |")
        print("|---|---|---|---|")
        for share in (float(s) for s in args.shares.split(",")):
            folder = pruned_copy(args.tagger, share, Path(work) / f"pruned-{share:g}")
            tagger = Tagger.load(folder)
            tagger.set_beam(MORPHOLOGY_BEAM)
            tagged = list(tagger.tag(parsed))
            print(f"| {share:g} | {folder_bytes(folder) / 1e6:.1f} | {tag_accuracy(gold, tagged, tagger.column):.2f} | "
                  + (f"{universal_accuracy(gold, tagged):.2f} |" if tagger.column == "feats" else "- |"), flush=True)


if __name__ == "__main__":
    main()
