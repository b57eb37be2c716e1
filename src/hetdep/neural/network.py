"""The network: word and character embeddings, a shared BiLSTM encoder, tag heads, per-scheme
biaffine arc and label scorers (Dozat & Manning 2017's deep biaffine attention) and, for phrase
structure, a span scorer; for enhanced UD graphs, an edge and label scorer."""

from __future__ import annotations

import torch
from torch import nn
from torch.func import functional_call
from torch.nn.functional import dropout
from torch.nn.utils.rnn import pack_padded_sequence

from hetdep.neural.shape import Shape


class PaddedLSTM(nn.LSTM):
    """A bidirectional LSTM (``batch_first``) over padded sequences, read exactly as packed ones
    are: each sequence's backward direction starts at its own last item. PyTorch runs a packed
    sequence step by step; here each direction of each layer is one padded call (the backward one
    on each sequence reversed within its length): a training step on fr-sequoia batches, forward and
    backward, 1.05x faster on 2 cores (bench/training_step.py). Its parameters are nn.LSTM's, by
    name (saved models unchanged)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, batch_first=True, bidirectional=True, **kwargs)
        # One unidirectional layer per layer, on the meta device (no memory, no random draws): the
        # shape each call borrows, with this module's parameters put in (torch.func.functional_call).
        self.one_way = tuple(nn.LSTM(self.input_size if layer == 0 else 2 * self.hidden_size, self.hidden_size,
                                     batch_first=True, device="meta") for layer in range(self.num_layers))

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """(batch, longest, 2 hidden) for x (batch, longest, input) and each sequence's length
        (at least 1); zeros past each length."""
        positions = torch.arange(x.shape[1])[None, :]
        inside = positions < lengths[:, None]
        reversed_at = torch.where(inside, lengths[:, None] - 1 - positions, positions)[:, :, None]

        def flip(values):
            return values.gather(1, reversed_at.expand(-1, -1, values.shape[-1]))

        for layer in range(self.num_layers):
            if layer:
                x = dropout(x, self.dropout, self.training)
            both = [self._layer(layer, suffix, x if suffix == "" else flip(x)) for suffix in ("", "_reverse")]
            x = torch.cat([both[0], flip(both[1])], dim=-1)
        return x * inside[:, :, None]

    def _layer(self, layer: int, suffix: str, x: torch.Tensor) -> torch.Tensor:
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        borrowed = {f"{name}_l0": getattr(self, f"{name}_l{layer}{suffix}") for name in names}
        return functional_call(self.one_way[layer], borrowed, (x,))[0]


class CharEncoder(nn.Module):
    """A word's characters read by a BiLSTM: its last states both ways, projected to the word's size."""

    def __init__(self, shape: Shape):
        super().__init__()
        self.embedding = nn.Embedding(shape.chars, shape.char_dim, padding_idx=0)
        self.lstm = nn.LSTM(shape.char_dim, shape.char_hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * shape.char_hidden, shape.word_dim)

    def forward(self, chars: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """chars: (types, longest) character ids of distinct word forms; lengths: (types,). Packed:
        forms' lengths vary too much for :class:`PaddedLSTM` to pay (measured slower here)."""
        packed = pack_padded_sequence(self.embedding(chars), lengths.clamp(min=1), batch_first=True, enforce_sorted=False)
        _, (last, _) = self.lstm(packed)
        return self.out(torch.cat([last[0], last[1]], dim=-1))


class MLP(nn.Sequential):
    def __init__(self, size_in: int, size_out: int, dropout: float):
        super().__init__(nn.Linear(size_in, size_out), nn.LeakyReLU(0.1), nn.Dropout(dropout))


class Biaffine(nn.Module):
    """scores[b, i, j, o] = x_i^T W_o y_j with a bias column appended to both (o outputs)."""

    def __init__(self, size: int, outputs: int):
        super().__init__()
        self.outputs = outputs
        self.weight = nn.Parameter(torch.zeros(outputs, size + 1, size + 1))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        ones = x.new_ones(x.shape[:-1] + (1,))
        x, y = torch.cat([x, ones], -1), torch.cat([y, ones], -1)
        return torch.einsum("bix,oxy,bjy->bijo", x, self.weight, y)


class SchemeHead(nn.Module):
    """One scheme's scorers: arcs (dependent i, head j) and labels of the arc each word takes."""

    def __init__(self, size: int, labels: int, shape: Shape):
        super().__init__()
        self.arc_dependent = MLP(size, shape.arc_dim, shape.dropout)
        self.arc_head = MLP(size, shape.arc_dim, shape.dropout)
        self.label_dependent = MLP(size, shape.label_dim, shape.dropout)
        self.label_head = MLP(size, shape.label_dim, shape.dropout)
        self.arcs = Biaffine(shape.arc_dim, 1)
        self.labels = Biaffine(shape.label_dim, labels)

    def arc_scores(self, encoded: torch.Tensor) -> torch.Tensor:
        """(batch, dependent, head) scores."""
        return self.arcs(self.arc_dependent(encoded), self.arc_head(encoded)).squeeze(-1)

    def label_scores(self, encoded: torch.Tensor, heads: torch.Tensor) -> torch.Tensor:
        """(batch, dependent, label) scores of each word's arc to the given head."""
        dependent = self.label_dependent(encoded)
        head = self.label_head(encoded)
        chosen = head.gather(1, heads.unsqueeze(-1).expand(-1, -1, head.shape[-1]))
        ones = dependent.new_ones(dependent.shape[:-1] + (1,))
        x, y = torch.cat([dependent, ones], -1), torch.cat([chosen, ones], -1)
        return torch.einsum("bix,oxy,biy->bio", x, self.labels.weight, y)


class GraphHead(SchemeHead):
    """The enhanced graph's scorers (Dozat & Manning 2018's for semantic dependencies): a scheme's
    arc and label scorers, each pair of words scored for an edge on its own (a sigmoid of the arc
    score, not a softmax over heads: a word may take several heads) and each edge labelled."""

    def edge_labels(self, encoded: torch.Tensor, rows: torch.Tensor, dependents: torch.Tensor,
                    heads: torch.Tensor) -> torch.Tensor:
        """(edges, label) scores of the edges given by their sentence row, dependent and head."""
        dependent = self.label_dependent(encoded)[rows, dependents]
        head = self.label_head(encoded)[rows, heads]
        ones = dependent.new_ones(dependent.shape[:-1] + (1,))
        x, y = torch.cat([dependent, ones], -1), torch.cat([head, ones], -1)
        return torch.einsum("ex,oxy,ey->eo", x, self.labels.weight, y)


def fenceposts(encoded: torch.Tensor) -> torch.Tensor:
    """(batch, 1 + longest, 2 hidden): at fencepost k (before word k + 1, 0..n) the forward state after
    word k (the root's at 0) beside the negated backward state at word k + 1 (zeros past the last word),
    so that a span's features [f_j - f_i; b_i - b_j] are fencepost j's minus fencepost i's."""
    hidden = encoded.shape[-1] // 2
    backward = torch.cat([encoded[:, 1:, hidden:], encoded.new_zeros(encoded.shape[0], 1, hidden)], 1)
    return torch.cat([encoded[:, :, :hidden], -backward], -1)


class SpanHead(nn.Module):
    """Phrase labels of spans (Stern et al. 2017; Kitaev & Klein 2018): an MLP over a span's
    fencepost difference (:func:`fenceposts`), one score per label (0: no phrase). The MLP's first
    layer is linear, so it is applied to each fencepost once and differenced: (batch, i, j, label)
    scores for every span at the cost of one product per span for the output layer."""

    def __init__(self, size: int, labels: int, shape: Shape):
        super().__init__()
        self.hidden = nn.Linear(size, shape.span_dim)
        self.out = nn.Linear(shape.span_dim, labels)
        self.dropout = nn.Dropout(shape.dropout)

    def forward(self, encoded: torch.Tensor) -> torch.Tensor:
        projected = fenceposts(encoded) @ self.hidden.weight.T
        spans = projected[:, None, :, :] - projected[:, :, None, :] + self.hidden.bias
        return self.out(self.dropout(torch.relu(spans)))


class ScalarMix(nn.Module):
    """A pretrained transformer's states of a word, its embeddings' and each layer's, mixed by
    learned weights (a softmax over the layers) and scaled (Peters et al. 2018): the syntax lies in
    some layers more than in others, and the mix finds which."""

    def __init__(self, layers: int):
        super().__init__()
        self.weights = nn.Parameter(torch.zeros(layers))
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        """(batch, position, hidden) from (batch, position, layer, hidden)."""
        return torch.einsum("bplh,l->bph", states, torch.softmax(self.weights, 0)) * self.scale


class Network(nn.Module):
    def __init__(self, shape: Shape):
        super().__init__()
        self.shape = shape
        self.words = nn.Embedding(shape.words, shape.word_dim, padding_idx=0)
        if shape.pretrained:  # frozen: a form unseen in training keeps the vector it was given
            self.pretrained = nn.Embedding(shape.pretrained, shape.pretrained_dim, padding_idx=0)
            self.pretrained.weight.requires_grad_(False)
        if shape.treebanks:
            self.treebanks = nn.Embedding(shape.treebanks, shape.treebank_dim)
        if shape.encoder_layers:
            self.mix = ScalarMix(shape.encoder_layers)
        self.chars = CharEncoder(shape)
        self.dropout = nn.Dropout(shape.dropout)
        self.encoder = PaddedLSTM(shape.input_dim, shape.hidden, num_layers=shape.layers,
                                  dropout=shape.dropout if shape.layers > 1 else 0.0)
        size = 2 * shape.hidden
        self.taggers = nn.ModuleList(nn.Linear(size, count) for count in shape.tags)
        self.schemes = nn.ModuleList(SchemeHead(size, count, shape) for count in shape.labels)
        if shape.phrase_labels:
            self.spans = SpanHead(size, shape.phrase_labels, shape)
        if shape.enhanced_labels:
            self.graph = GraphHead(size, shape.enhanced_labels, shape)

    def encode(self, batch) -> torch.Tensor:
        """(batch, 1 + longest sentence, 2 hidden) for a :class:`hetdep.neural.data.Batch` of tensors:
        position 0 is the root. Each distinct form of the batch is read once by the character encoder
        (``batch.types``: each position's row among them)."""
        spelled = self.chars(batch.chars, batch.char_lengths)[batch.types]
        read = [self.words(batch.words), spelled]
        if self.shape.pretrained:
            read.append(self.pretrained(batch.pretrained))
        if self.shape.treebanks:  # every word of a sentence reads its treebank's vector
            read.append(self.treebanks(batch.treebank)[:, None, :].expand(-1, batch.words.shape[1], -1))
        if self.shape.encoder_layers:  # the pretrained transformer's states, computed and kept frozen (Batch.transformer)
            read.append(self.mix(batch.transformer))
        embedded = self.dropout(torch.cat(read, dim=-1))
        return self.dropout(self.encoder(embedded, batch.lengths))
