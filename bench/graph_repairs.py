"""How a graph head's enhanced graphs come out on gold tokens (issue 90): their labelled F1
(ELAS) and that of the basic tree copied into DEPS, and how often the decoder had to make a graph
valid: words the head gave no edge, words the root could not reach (each then gets its basic
tree's edge, hetdep.neural.enhanced.decoded_graph).

    python bench/graph_repairs.py --model MODEL --gold ../shared/data/en-ewt/dev.ud.conllu [--sentences N]

The model parses the gold file's words (its tags and trees its own); its graph scheme's trees are
compared with the gold file's graphs, empty nodes' edges left out.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from hetdep.neural.enhanced import graph_f1, reached_from_root
from hetdep.neural.parser import NeuralParser
from hetdep.treebank.conllu import DEPS, read_conllu


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--model", required=True, type=Path)
    options.add_argument("--gold", required=True, type=Path)
    options.add_argument("--sentences", type=int, default=None, help="the first N sentences only")
    args = options.parse_args()
    parser = NeuralParser.load(args.model)
    if not parser.vocabularies.graph_heads:
        raise SystemExit(f"{args.model} has no graph head (train it with --enhanced)")
    slot = next(k for k, head in enumerate(parser.heads) if head in parser.vocabularies.graph_heads)
    gold = list(read_conllu(args.gold))[:args.sentences]
    parsed = [trees[slot] if isinstance(trees, tuple) else trees for trees in parser.parse(gold)]
    copied = [tree.with_column(DEPS, [f"{head}:{label}" for head, label in zip(tree.heads, tree.deprels)]) for tree in parsed]
    headless = unreached = words = 0
    for sentence, tree in zip(gold, parsed):
        batch = parser.encoder.batch([[sentence]], treebank=parser.treebank_index)
        n = len(sentence)
        probabilities = parser.network.edge_probabilities(parser.network.encode(batch))[0, :n + 1, :n + 1]
        likely = [[j for j in range(n + 1) if j != i and probabilities[i, j] > 0.5] for i in range(1, n + 1)]
        headless += sum(not heads for heads in likely)
        with_basic = [heads or [tree.heads[i]] for i, heads in enumerate(likely)]
        unreached += n + 1 - int(np.sum(reached_from_root(with_basic)))
        words += n
    print(f"{args.model} on {len(gold):,} sentences, {words:,} words of {args.gold} (gold tokens):")
    print(f"ELAS {graph_f1(gold, parsed):.2f}; its basic trees copied into DEPS {graph_f1(gold, copied):.2f}")
    print(f"words the head gave no edge: {headless:,} ({100 * headless / words:.2f}%); words the root could not reach "
          f"then: {unreached:,} ({100 * unreached / words:.2f}%); each given its basic tree's edge")


if __name__ == "__main__":
    main()
