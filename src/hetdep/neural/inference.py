"""The trained network's forward pass in NumPy: all that parsing needs, so a trained neural model
parses without PyTorch (and starts without its import, about two seconds on a 2-core machine).
It computes what :class:`hetdep.neural.network.Network` computes in evaluation mode, from the same
arrays (its ``state_dict``), equal within float32 rounding (tests/test_neural.py)."""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

import numpy as np

from hetdep.neural.data import Batch

# The LSTMs' weights, by their names' starts: held transposed (a model's dequantized arrays come
# laid out so, hetdep.neural.quantized), read by the runtime alone in int8.
LSTM_WEIGHTS = ("chars.lstm.weight", "encoder.weight")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _leaky_relu(x: np.ndarray) -> np.ndarray:
    """PyTorch's LeakyReLU(0.1): for a slope below 1 the larger of x and 0.1 x, bit for bit
    ``np.where(x > 0, x, 0.1 x)`` in two passes where that took three."""
    scaled = np.float32(0.1) * x
    return np.maximum(x, scaled, out=scaled)


def lstm(x: np.ndarray, lengths: np.ndarray, w_ih_t: np.ndarray, bias: np.ndarray, w_hh_t: np.ndarray,
         reverse: bool) -> tuple[np.ndarray, np.ndarray]:
    """One direction of PyTorch's LSTM over padded rows (its weights transposed, its two biases
    summed): the outputs, 0 past each row's length, and each row's last state (after its last
    word, or its first for the backward direction). As PyTorch's packed sequences do, each step
    computes only the rows still running: with the rows sorted longest first, those are a prefix
    at every position, and the backward direction walks the positions from the last, a row
    starting (from a zero state) at its own last word. The input's part of every step is one
    matrix product before the steps."""
    order = np.argsort(-lengths, kind="stable")
    running = lengths[order]
    projected = _matmul(x[order], w_ih_t)
    projected += bias
    rows, steps, _ = projected.shape
    hidden = w_hh_t.shape[0]
    h = np.zeros((rows, hidden), dtype=np.float32)
    c = np.zeros((rows, hidden), dtype=np.float32)
    out = np.zeros((rows, steps, hidden), dtype=np.float32)
    active = (running[None, :] > np.arange(int(running[0]))[:, None]).sum(1)  # rows still running at each position
    positions = range(len(active) - 1, -1, -1) if reverse else range(len(active))
    for t in positions:
        k = int(active[t])
        gates = projected[:k, t]
        gates += h[:k] @ w_hh_t
        i, f = _sigmoid(gates[:, :hidden]), _sigmoid(gates[:, hidden:2 * hidden])
        g, o = np.tanh(gates[:, 2 * hidden:3 * hidden]), _sigmoid(gates[:, 3 * hidden:])
        c[:k] = f * c[:k] + i * g
        h[:k] = o * np.tanh(c[:k])
        out[:k, t] = h[:k]
    unsorted_out, unsorted_h = np.empty_like(out), np.empty_like(h)
    unsorted_out[order], unsorted_h[order] = out, h
    return unsorted_out, unsorted_h


class BiLSTMLayer(NamedTuple):
    """One bidirectional layer's arrays as the forward pass uses them, each direction's weights
    transposed and its two biases summed."""

    forward: tuple[np.ndarray, np.ndarray, np.ndarray]  # W_ih.T, bias, W_hh.T
    backward: tuple[np.ndarray, np.ndarray, np.ndarray]

    @classmethod
    def of(cls, arrays: dict, layer: int) -> "BiLSTMLayer":
        return cls(*((np.ascontiguousarray(arrays["weight_ih_" + name].T), arrays["bias_ih_" + name] + arrays["bias_hh_" + name],
                      np.ascontiguousarray(arrays["weight_hh_" + name].T)) for name in _directions(layer)))

    def weights(self, layer: int) -> dict[str, np.ndarray]:
        """The weights :meth:`of` read, by their names there, as views of this layer's transposed copies."""
        return {f"weight_{kind}_{name}": weights[k].T for name, weights in zip(_directions(layer), self)
                for kind, k in (("ih", 0), ("hh", 2))}

    def __call__(self, x: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both directions' outputs side by side, and their last states."""
        forward, last_forward = lstm(x, lengths, *self.forward, reverse=False)
        backward, last_backward = lstm(x, lengths, *self.backward, reverse=True)
        return np.concatenate([forward, backward], -1), np.concatenate([last_forward, last_backward], -1)


def _directions(layer: int) -> tuple[str, str]:
    """A layer's two directions as PyTorch's LSTM names their arrays (``weight_ih_l0``, ``weight_ih_l0_reverse``)."""
    return f"l{layer}", f"l{layer}_reverse"


def _matmul(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``x @ w`` for ``x`` of any number of leading dimensions, as one 2-D product (NumPy's
    stacked product of a 3-D array by a 2-D one takes twice as long)."""
    return (x.reshape(-1, x.shape[-1]) @ w).reshape(x.shape[:-1] + w.shape[-1:])


class _LabelWeights:
    """A label scorer's weights (labels, x, y), and for any set of its labels those labels'
    weights as one (x, labels * y) matrix (made once per set: a graph head's families)."""

    def __init__(self, weight: np.ndarray):
        self.weight, self.ids = weight, np.arange(len(weight))
        self._flat: dict[bytes, np.ndarray] = {}

    def flat(self, ids: np.ndarray) -> np.ndarray:
        key = ids.tobytes()
        if key not in self._flat:  # threads may make one twice: the same array
            self._flat[key] = np.ascontiguousarray(self.weight[ids].transpose(1, 0, 2).reshape(self.weight.shape[1], -1))
        return self._flat[key]


def _linear(x: np.ndarray, arrays: dict, name: str) -> np.ndarray:
    return _matmul(x, arrays[name + ".weight"].T) + arrays[name + ".bias"]


class NumpyNetwork:
    """The network's arrays (name -> float32 array, as its ``state_dict`` names them) and its
    forward pass: encoding, tags, arc scores, label scores. The LSTMs' weights are held once, as
    their layers' transposed copies (the arrays' LSTM weights are views of those, the same values):
    the shipped model's were 25 MB held twice."""

    def __init__(self, arrays: dict[str, np.ndarray], layers: int, tag_heads: int, schemes: int):
        # float32 and contiguous, the LSTMs' weights maybe as their transposes (then not copied below)
        self.arrays = {name: array if name.startswith(LSTM_WEIGHTS) and array.dtype == np.float32 and array.T.flags.c_contiguous
                       else np.ascontiguousarray(array, dtype=np.float32) for name, array in arrays.items()}
        self.layers, self.tag_heads, self.schemes = layers, tag_heads, schemes
        self.precision = "float32"  # of the LSTMs' and linear layers' products (use_products)
        self.products: dict = {}
        chars, encoder = self.lstm_arrays()
        self._chars = BiLSTMLayer.of(chars, 0)
        self._encoder = [BiLSTMLayer.of(encoder, layer) for layer in range(layers)]
        for prefix, held in [("chars.lstm.", [self._chars]), ("encoder.", self._encoder)]:
            for layer, lstm_layer in enumerate(held):  # each weight kept once: its name reads its layer's copy
                self.arrays.update({prefix + name: view for name, view in lstm_layer.weights(layer).items()})

    def lstm_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """The character LSTM's arrays and the encoder's, by PyTorch's names within each (``weight_ih_l0``...)."""
        return tuple({name.removeprefix(prefix): array for name, array in self.arrays.items() if name.startswith(prefix)}
                     for prefix in ("chars.lstm.", "encoder."))

    def use_products(self, chars, encoder: list, products: dict, precision: str) -> None:
        """Compute the character LSTM and the encoder's layers with ``chars`` and ``encoder`` (called
        as :class:`BiLSTMLayer` is) and the linear layers ``products`` names with its functions
        (``x -> x @ W.T + b``): :mod:`hetdep.neural.int8`'s, the float32 ones their reference. In
        int8 the runtime holds its own copies of the LSTMs' and those layers' weights: NumPy's
        float32 ones, read by nothing else, are let go (20 and 6 MB of the shipped fr's 45)."""
        self._chars, self._encoder, self.products, self.precision = chars, encoder, products, precision
        if precision == "int8":
            for name in [name for name in self.arrays
                         if name.startswith(LSTM_WEIGHTS) or (name.endswith(".weight") and name.removesuffix(".weight") in products)]:
                del self.arrays[name]

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        product = self.products.get(name)
        return _linear(x, self.arrays, name) if product is None else product(x)

    def encode(self, batch: Batch) -> np.ndarray:
        """(batch, 1 + longest sentence, 2 hidden), 0 past each sentence; position 0 is the root."""
        a = self.arrays
        lengths = np.maximum(batch.char_lengths, 1)
        _, last = self._chars(a["chars.embedding.weight"][batch.chars], lengths)
        spelled = self._linear(last, "chars.out")[batch.types]
        read = [a["words.weight"][batch.words], spelled]
        if "pretrained.weight" in a:
            read.append(a["pretrained.weight"][batch.pretrained])
        if "treebanks.weight" in a:
            rows = a["treebanks.weight"][batch.treebank]
            read.append(np.broadcast_to(rows[:, None, :], batch.words.shape + rows.shape[-1:]))
        if "mix.weights" in a:  # the pretrained transformer's states, mixed as ScalarMix mixes them
            mixed = np.exp(a["mix.weights"] - a["mix.weights"].max())
            read.append(np.einsum("bplh,l->bph", batch.transformer, mixed / mixed.sum()) * a["mix.scale"])
        x = np.concatenate(read, -1)
        for layer in self._encoder:
            x, _ = layer(x, batch.lengths)
        return x

    def tags(self, encoded: np.ndarray) -> list[np.ndarray]:
        """Per tag head, (batch, position, tag) log-probabilities, as float64."""
        return [_log_probabilities(self._linear(encoded, f"taggers.{k}").astype(np.float64)) for k in range(self.tag_heads)]

    def arc_scores(self, encoded: np.ndarray, scheme: int) -> np.ndarray:
        """(batch, dependent, head) log-probabilities of each head, as float64 for the decoders."""
        return _log_probabilities(self._biaffine_arcs(encoded, f"schemes.{scheme}").astype(np.float64))

    def _biaffine_arcs(self, encoded: np.ndarray, name: str) -> np.ndarray:
        """(batch, dependent, head) arc scores of the scorer ``name`` (a scheme head's, the graph head's)."""
        a = self.arrays
        dependent = _with_ones(_leaky_relu(self._linear(encoded, f"{name}.arc_dependent.0")))
        head = _with_ones(_leaky_relu(self._linear(encoded, f"{name}.arc_head.0")))
        return _matmul(dependent, a[f"{name}.arcs.weight"][0]) @ head.transpose(0, 2, 1)

    def labels(self, encoded: np.ndarray, scheme: int, heads: np.ndarray, root: int | None = None) -> np.ndarray:
        """(batch, dependent): the best label of each word's arc to its given head; ``root``: the
        label that a word on the root takes, and no other word (UD's and SUD's ``root``)."""
        a, name = self.arrays, f"schemes.{scheme}"
        dependent = _with_ones(_leaky_relu(self._linear(encoded, f"{name}.label_dependent.0")))
        head = _leaky_relu(self._linear(encoded, f"{name}.label_head.0"))
        chosen = _with_ones(np.take_along_axis(head, heads[:, :, None], axis=1))
        weight = a[f"{name}.labels.weight"]  # (labels, size + 1, size + 1)
        flat, chosen = dependent.reshape(-1, dependent.shape[-1]), chosen.reshape(-1, chosen.shape[-1])
        scores = np.empty((len(flat), weight.shape[0]), dtype=np.float32)
        for o in range(weight.shape[0]):  # a label at a time (a list of every label's products was 50 MB a batch),
            scores[:, o] = ((flat @ weight[o]) * chosen).sum(-1)  # in 2-D products, 2x faster than stacked ones
        if root is not None:
            scores[:, root] = -np.inf
        best = scores.argmax(-1).reshape(dependent.shape[:-1])
        return best if root is None else np.where(heads == 0, root, best)

    def edge_probabilities(self, encoded: np.ndarray) -> np.ndarray:
        """(batch, dependent, head): the graph head's probability of each enhanced edge."""
        return _sigmoid(self._biaffine_arcs(encoded, "graph"))

    def edge_labels(self, encoded: np.ndarray, rows: np.ndarray, dependents: np.ndarray, heads: np.ndarray,
                    groups: np.ndarray | None = None, families: list[np.ndarray] = ()) -> np.ndarray:
        """The best label of each enhanced edge given by its sentence row, dependent and head; with
        ``groups``, of each edge's family of labels (``families[group]``: their ids; -1: all)."""
        dependent = _with_ones(_leaky_relu(self._linear(encoded[rows, dependents], "graph.label_dependent.0")))
        head = _with_ones(_leaky_relu(self._linear(encoded[rows, heads], "graph.label_head.0")))
        groups = np.full(len(rows), -1) if groups is None else groups
        best = np.empty(len(rows), dtype=np.int64)
        for group in np.unique(groups).tolist():
            at = np.flatnonzero(groups == group)
            ids = self._graph_labels.ids if group < 0 else families[group]
            flat = self._graph_labels.flat(ids)
            projected = (dependent[at] @ flat).reshape(len(at), len(ids), -1)  # one product
            best[at] = ids[np.einsum("eoy,ey->eo", projected, head[at]).argmax(-1)]
        return best

    @cached_property
    def _graph_labels(self) -> "_LabelWeights":
        return _LabelWeights(self.arrays["graph.labels.weight"])


    def span_scores(self, encoded: np.ndarray, n: int) -> np.ndarray:
        """(fencepost i, fencepost j, label) scores of one sentence's spans (``encoded``: its row, ``n``
        words), each label's against the empty label's (0), as float64 for the chart (spans with
        i >= j are computed and not read): :class:`hetdep.neural.network.SpanHead`'s products, each
        fencepost projected once."""
        a = self.arrays
        hidden = encoded.shape[-1] // 2
        backward = np.concatenate([encoded[1:n + 1, hidden:], np.zeros((1, hidden), dtype=encoded.dtype)])
        projected = np.concatenate([encoded[:n + 1, :hidden], -backward], -1) @ a["spans.hidden.weight"].T
        spans = np.maximum(projected[None, :, :] - projected[:, None, :] + a["spans.hidden.bias"], 0)
        scores = _linear(spans, a, "spans.out").astype(np.float64)
        return scores - scores[..., :1]


def _with_ones(x: np.ndarray) -> np.ndarray:
    return np.concatenate([x, np.ones(x.shape[:-1] + (1,), dtype=x.dtype)], -1)


def _log_probabilities(scores: np.ndarray) -> np.ndarray:
    return scores - _logsumexp(scores)


def _logsumexp(scores: np.ndarray) -> np.ndarray:
    top = scores.max(-1, keepdims=True)
    return top + np.log(np.exp(scores - top).sum(-1, keepdims=True))
