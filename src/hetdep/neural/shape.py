"""The sizes of the network: what a saved model records so it can be built again, and the arrays
(by their ``state_dict`` names) a network of those sizes has, so a saved model is checked without PyTorch."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Shape:
    """The sizes of the network: what a saved model records so it can be built again."""

    words: int  # word vocabulary (0 padding, 1 unknown, 2 the root)
    chars: int  # character vocabulary (0 padding, 1 unknown)
    tags: tuple[int, ...]  # one size per tag head (UPOS, XPOS)
    labels: tuple[int, ...]  # one label set size per scheme
    word_dim: int = 100
    char_dim: int = 48
    char_hidden: int = 100  # per direction
    hidden: int = 300  # per direction, each encoder layer
    layers: int = 3
    arc_dim: int = 400
    label_dim: int = 100
    dropout: float = 0.33
    pretrained: int = 0  # rows of the frozen pretrained vector table (row 0: no vector), 0 without one
    pretrained_dim: int = 0
    treebanks: int = 0  # rows of the treebank embedding (a model of several treebanks), 0 without one
    treebank_dim: int = 0
    phrase_labels: int = 0  # labels of the span head, id 0 the empty one (no phrase); 0: no span head
    span_dim: int = 250
    encoder_layers: int = 0  # a pretrained transformer's states mixed (its embeddings and each layer), 0 without one
    encoder_dim: int = 0  # their size
    enhanced_labels: int = 0  # labels of the enhanced graph's head (hetdep.neural.enhanced); 0: no graph head

    @property
    def input_dim(self) -> int:
        """What the encoder reads of a word: its embedding, its spelling, its pretrained vector, its
        treebank's, its pretrained transformer's mixed states."""
        return 2 * self.word_dim + self.pretrained_dim + self.treebank_dim + self.encoder_dim

    def record(self) -> dict:
        return {**asdict(self), "tags": list(self.tags), "labels": list(self.labels)}

    @classmethod
    def from_record(cls, record: dict) -> "Shape":
        return cls(**{**record, "tags": tuple(record["tags"]), "labels": tuple(record["labels"])})

    def arrays(self) -> dict[str, tuple[int, ...]]:
        """Every parameter's name and shape, as the PyTorch network names them."""
        found = {"words.weight": (self.words, self.word_dim), "chars.embedding.weight": (self.chars, self.char_dim),
                 "chars.out.weight": (self.word_dim, 2 * self.char_hidden), "chars.out.bias": (self.word_dim,)}
        if self.pretrained:
            found["pretrained.weight"] = (self.pretrained, self.pretrained_dim)
        if self.treebanks:
            found["treebanks.weight"] = (self.treebanks, self.treebank_dim)
        if self.encoder_layers:
            found.update({"mix.weights": (self.encoder_layers,), "mix.scale": (1,)})
        found.update(_lstm("chars.lstm.", 0, self.char_dim, self.char_hidden))
        for layer in range(self.layers):
            found.update(_lstm("encoder.", layer, self.input_dim if layer == 0 else 2 * self.hidden, self.hidden))
        size = 2 * self.hidden
        for k, count in enumerate(self.tags):
            found.update({f"taggers.{k}.weight": (count, size), f"taggers.{k}.bias": (count,)})
        for s, count in enumerate(self.labels):
            found.update(_scorers_of(self, f"schemes.{s}", count))
        if self.enhanced_labels:
            found.update(_scorers_of(self, "graph", self.enhanced_labels))
        if self.phrase_labels:
            found.update({"spans.hidden.weight": (self.span_dim, size), "spans.hidden.bias": (self.span_dim,),
                          "spans.out.weight": (self.phrase_labels, self.span_dim), "spans.out.bias": (self.phrase_labels,)})
        return found


def _scorers_of(shape: Shape, prefix: str, labels: int) -> dict[str, tuple[int, ...]]:
    """A scheme head's (or the graph head's) arc and label scorers: their MLPs and biaffine weights."""
    size = 2 * shape.hidden
    found = {}
    for mlp, width in [("arc_dependent", shape.arc_dim), ("arc_head", shape.arc_dim),
                       ("label_dependent", shape.label_dim), ("label_head", shape.label_dim)]:
        found.update({f"{prefix}.{mlp}.0.weight": (width, size), f"{prefix}.{mlp}.0.bias": (width,)})
    found[f"{prefix}.arcs.weight"] = (1, shape.arc_dim + 1, shape.arc_dim + 1)
    found[f"{prefix}.labels.weight"] = (labels, shape.label_dim + 1, shape.label_dim + 1)
    return found


def _lstm(prefix: str, layer: int, size_in: int, hidden: int) -> dict[str, tuple[int, ...]]:
    """A bidirectional LSTM layer's parameters (gates stacked: 4 hidden rows)."""
    found = {}
    for direction in ("", "_reverse"):
        found.update({f"{prefix}weight_ih_l{layer}{direction}": (4 * hidden, size_in),
                      f"{prefix}weight_hh_l{layer}{direction}": (4 * hidden, hidden),
                      f"{prefix}bias_ih_l{layer}{direction}": (4 * hidden,),
                      f"{prefix}bias_hh_l{layer}{direction}": (4 * hidden,)})
    return found
