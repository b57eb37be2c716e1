"""The neural model's training step (loss, forward and backward) with its encoder read as padded
sequences (hetdep.neural.network.PaddedLSTM) against PyTorch's packed ones, on fr-sequoia's
training batches (UD + SUD, the recipe's network without its pretrained vectors), in words per
second and as a ratio.

    python bench/training_step.py [--batches 30] [--rounds 3] [--threads 2]

Both encoders hold the same weights; each round times every batch with one, then the other.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from hetdep.neural.data import Encoder, Vocabularies, batches_by_length
from hetdep.neural.network import Network
from hetdep.neural.shape import Shape
from hetdep.neural.training import NeuralOptions, _loss
from hetdep.treebank.conllu import read_conllu

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "fr-sequoia"


class PackedLSTM(torch.nn.Module):
    """The encoder as it was: PyTorch's bidirectional LSTM over packed sequences."""

    def __init__(self, lstm: torch.nn.LSTM):
        super().__init__()
        self.lstm = lstm

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        return pad_packed_sequence(self.lstm(packed)[0], batch_first=True, total_length=x.shape[1])[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", type=int, default=30, help="training batches timed (of about 500 words)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"bench/training_step.py: {DATA} is missing (the treebanks of ../shared/data)")
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    options = NeuralOptions()
    train = [list(read_conllu(DATA / f"train.{scheme}.conllu")) for scheme in ("ud", "sud")]
    vocabularies = Vocabularies.learn(train)
    shape = Shape(words=len(vocabularies.words), chars=len(vocabularies.chars), tags=tuple(map(len, vocabularies.tags)),
                  labels=tuple(map(len, vocabularies.labels)), hidden=options.hidden, layers=options.layers,
                  dropout=options.dropout)
    network = Network(shape).train()
    encoder = Encoder(vocabularies)
    generator = torch.Generator().manual_seed(1)
    chosen = batches_by_length([len(s) for s in train[0]], options.batch_words)[:args.batches]
    batches = [encoder.batch([[s[i] for i in batch] for s in train], options.word_dropout, generator, outputs=[0, 1]).tensors()
               for batch in chosen]
    words = sum(int(batch.lengths.sum()) - len(batch.lengths) for batch in batches)
    reference = torch.nn.LSTM(shape.input_dim, shape.hidden, num_layers=shape.layers, batch_first=True,
                              bidirectional=True, dropout=shape.dropout)
    reference.load_state_dict(network.encoder.state_dict())
    encoders = {"packed": PackedLSTM(reference), "padded": network.encoder}
    seconds = dict.fromkeys(encoders, 0.0)
    for _ in range(args.rounds):
        for name, module in encoders.items():
            network.encoder = module
            started = time.perf_counter()
            for batch in batches:
                network.zero_grad()
                _loss(network, batch).backward()
            seconds[name] += time.perf_counter() - started
    for name, spent in seconds.items():
        print(f"{name}: {args.rounds * words / spent:,.0f} words/s (training step, {args.threads} threads)")
    print(f"padded / packed: {seconds['packed'] / seconds['padded']:.2f}x")


if __name__ == "__main__":
    main()
