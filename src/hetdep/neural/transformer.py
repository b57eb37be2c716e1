"""A pretrained transformer encoder of the BERT family (BERT, RoBERTa, XLM-R, CamemBERT, DistilBERT,
MiniLM) read from a folder in Hugging Face's layout and run in NumPy: each word's vector at every
layer, for the network to mix (issue 89's ``--encoder``). Parsing needs no PyTorch: the forward
pass here equals ``transformers``' within float32 rounding (tests/test_transformer.py), from the
same ``*.safetensors`` weights and the ``tokenizer.json`` pieces (``tokenizers``, made for them).

A word's vector is the mean of its pieces' (UDPipe 2's and spaCy's choice); a word the tokenizer
makes no piece of (a control character, a lone combining mark) reads the unknown piece, so no
word is ever dropped. A sentence longer than the encoder's positions is read in overlapping
windows, each piece taking its vector from the window where it lies farthest from an edge: never
cut."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hetdep.errors import HetdepError
from hetdep.neural.quantized import SCALE, dequantized, quantized

# Each architecture: the prefix its checkpoints may put before the encoder's names, and how its
# positions are counted (RoBERTa's family skips padding_idx + 1 positions, and has one token type).
ARCHITECTURES = {"bert": "bert.", "roberta": "roberta.", "xlm-roberta": "roberta.", "camembert": "roberta.",
                 "distilbert": "distilbert."}
OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert")
ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "relu")
# The first, last and unknown pieces of each family's vocabularies (a tokenizer without its
# family's is another model's).
SPECIAL = {"bert": ("[CLS]", "[SEP]", "[UNK]"), "distilbert": ("[CLS]", "[SEP]", "[UNK]")}
SPECIAL.update({kind: ("<s>", "</s>", "<unk>") for kind in OFFSET_POSITIONS})


FILES = ("config.json", "tokenizer.json", "*.safetensors")  # what a model folder carries of the encoder it reads


class EncoderFolderError(HetdepError):
    """An encoder folder that cannot be read: a missing or damaged file, an unknown architecture,
    weights that do not fit the config, a tokenizer that does not fit the vocabulary."""


@dataclass(frozen=True)
class Architecture:
    """What config.json says of the encoder, checked."""

    kind: str
    layers: int
    hidden: int
    heads: int
    positions: int  # pieces one window reads, its first and last special pieces included
    activation: str
    eps: float
    offset: int  # the first position's id (RoBERTa's family: padding_idx + 1)

    @classmethod
    def read(cls, folder: Path) -> "Architecture":
        path = folder / "config.json"
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise EncoderFolderError(f"{path}: missing (an encoder folder in Hugging Face's layout has config.json, "
                                     "model.safetensors and tokenizer.json)") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise EncoderFolderError(f"{path}: not a readable encoder configuration ({error})") from None
        kind = config.get("model_type") if isinstance(config, dict) else None
        if kind not in ARCHITECTURES:
            raise EncoderFolderError(f"{path}: model_type {kind!r} is not an encoder hetdep reads "
                                     f"({', '.join(ARCHITECTURES)})")
        distil = kind == "distilbert"
        names = ("n_layers", "dim", "n_heads", "max_position_embeddings") if distil else (
            "num_hidden_layers", "hidden_size", "num_attention_heads", "max_position_embeddings")
        values = [config.get(name) for name in names]
        if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values) or values[1] % values[2]:
            raise EncoderFolderError(f"{path}: {', '.join(names)} must be positive whole numbers, the heads dividing the size")
        activation = config.get("activation" if distil else "hidden_act", "gelu")
        if activation not in ACTIVATIONS:
            raise EncoderFolderError(f"{path}: activation {activation!r} is not one of {', '.join(ACTIVATIONS)}")
        offset = int(config.get("pad_token_id", 1)) + 1 if kind in OFFSET_POSITIONS else 0
        eps = float(config.get("layer_norm_eps", 1e-12))
        return cls(kind, values[0], values[1], values[2], values[3] - offset, activation, eps, offset)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centered = x - mean
    variance = (centered * centered).mean(-1, keepdims=True)
    return centered / np.sqrt(variance + eps) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x (1 + erf(x / sqrt 2)) / 2, its error function to about 2e-7 (Abramowitz &
    Stegun 7.1.26; NumPy has none), in float32 and in place on one new array: a pass a step (in
    float64 it took a third of MiniLM's time; with a new array a step, twice this one's)."""
    scaled = x * np.float32(1 / np.sqrt(2.0))
    z = np.abs(scaled)
    t = z * np.float32(0.3275911)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coefficient)
        poly *= t
    with np.errstate(over="ignore"):  # past 1.8e19, z * z is inf and exp(-inf) the 0 it should be
        np.multiply(z, z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # 1 - erf(|x| / sqrt 2)
    np.subtract(np.float32(1.0), poly, out=poly)
    np.copysign(poly, scaled, out=poly)
    poly += np.float32(1.0)
    poly *= x
    poly *= np.float32(0.5)
    return poly


def _activation(x: np.ndarray, name: str) -> np.ndarray:
    if name == "gelu":
        return _gelu(x)
    if name == "relu":
        return np.maximum(x, 0)
    return 0.5 * x * (1.0 + np.tanh(np.float32(np.sqrt(2.0 / np.pi)) * (x + np.float32(0.044715) * x ** 3)))


BATCH_PIECES = 2048  # padded pieces a batch of windows computes at once


def _batches(lengths: list[int]) -> list[list[int]]:
    """Consecutive runs of ``lengths`` (sorted), each of at most BATCH_PIECES padded pieces."""
    batches: list[list[int]] = []
    for k, length in enumerate(lengths):
        if batches and (len(batches[-1]) + 1) * length <= BATCH_PIECES:
            batches[-1].append(k)
        else:
            batches.append([k])
    return batches


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(-1, keepdims=True)
    np.exp(x, out=x)
    return x / x.sum(-1, keepdims=True)


@dataclass(frozen=True)
class Window:
    """Pieces of one sentence the transformer reads at once: ``ids`` (the special pieces around
    those from ``start``), of which the states of pieces ``first`` to ``last`` are kept."""

    sentence: int
    start: int
    first: int
    last: int
    ids: list[int]

    @property
    def kept(self) -> slice:
        """The kept pieces' positions in ``ids``."""
        return slice(1 + self.first - self.start, 1 + self.last - self.start)


class TransformerEncoder:
    """The encoder's weights (name -> float32 array, without the checkpoint's prefix) and its
    forward pass, with the pieces of its tokenizer."""

    def __init__(self, architecture: Architecture, weights: dict[str, np.ndarray], tokenizer, folder: Path):
        self.architecture, self.weights, self.tokenizer, self.folder = architecture, weights, tokenizer, folder
        self.tuned = False  # weights fine-tuned since they were read (hetdep.neural.fine_tune): the folder's are not theirs
        self.products: dict = {}  # a linear layer's name -> its product in int8 (hetdep.neural.int8); others in float32
        self.activate = None  # the activation in the runtime (hetdep.neural.int8), else _activation's
        vocabulary = tokenizer.get_vocab()
        special = SPECIAL[architecture.kind]
        if not all(piece in vocabulary for piece in special):
            raise EncoderFolderError(f"{folder / 'tokenizer.json'}: its vocabulary lacks the special pieces of a "
                                     f"{architecture.kind} encoder ({' '.join(special)}): it is another model's tokenizer")
        self.first, self.last, self.unknown = (vocabulary[piece] for piece in special)
        rows = self._embedding("word_embeddings").shape[0]
        if max(vocabulary.values()) >= rows:
            raise EncoderFolderError(f"{folder / 'tokenizer.json'}: pieces up to id {max(vocabulary.values())}, and the "
                                     f"weights have {rows} rows: this tokenizer is not the encoder's")

    @classmethod
    def load(cls, folder: str | Path) -> "TransformerEncoder":
        """The encoder of ``folder``; one line naming the file for anything missing, damaged or unfit."""
        from hetdep.extras import require

        require("transformer", "a pretrained transformer encoder")
        from safetensors import SafetensorError
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = Path(folder)
        if not folder.is_dir():
            raise EncoderFolderError(f"{folder}: no such encoder folder")
        architecture = Architecture.read(folder)
        files = sorted(folder.glob("*.safetensors"))
        if not files:
            raise EncoderFolderError(f"{folder}: no *.safetensors weights (PyTorch's .bin files are not read: they are pickles)")
        weights: dict[str, np.ndarray] = {}
        prefix = ARCHITECTURES[architecture.kind]
        for path in files:
            try:
                arrays = load_file(str(path))
            except (SafetensorError, OSError, ValueError) as error:
                raise EncoderFolderError(f"{path}: damaged weights ({error})") from None
            weights.update({name.removeprefix(prefix): array for name, array in _widened(arrays, path).items()})
        path = folder / "tokenizer.json"
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as error:  # noqa: BLE001 -- the tokenizers library raises its own kinds for a bad file
            raise EncoderFolderError(f"{path}: {'missing' if not path.exists() else 'not a tokenizer'} "
                                     f"({type(error).__name__})") from None
        encoder = cls(architecture, weights, tokenizer, folder)
        encoder.check_shapes()
        return encoder

    def save_weights(self, folder: Path, quantize: bool) -> None:
        """Write the weights into ``folder``'s one model.safetensors (replacing its others): a
        fine-tuned encoder's in float32, or as ``hetdep compact`` ships them (``quantize``): each
        matrix in 8 bits a row (:mod:`hetdep.neural.quantized`), a quarter the size, the vectors,
        biases and layer norms in float32."""
        from safetensors.numpy import save_file

        arrays: dict[str, np.ndarray] = {}
        for name, array in self.weights.items():
            if quantize and array.ndim == 2:
                arrays[name], arrays[name + SCALE] = quantized(array)
            else:
                arrays[name] = np.ascontiguousarray(array)
        written = folder / "model.safetensors.partial"
        save_file(arrays, str(written))
        for path in folder.glob("*.safetensors"):
            path.unlink()
        written.rename(folder / "model.safetensors")

    # names of the arrays, by architecture

    def _name(self, layer: int, part: str) -> str:
        distil = self.architecture.kind == "distilbert"
        names = {"query": ("attention.q_lin", "attention.self.query"), "key": ("attention.k_lin", "attention.self.key"),
                 "value": ("attention.v_lin", "attention.self.value"), "out": ("attention.out_lin", "attention.output.dense"),
                 "norm1": ("sa_layer_norm", "attention.output.LayerNorm"), "up": ("ffn.lin1", "intermediate.dense"),
                 "down": ("ffn.lin2", "output.dense"), "norm2": ("output_layer_norm", "output.LayerNorm")}
        return f"{'transformer' if distil else 'encoder'}.layer.{layer}.{names[part][0 if distil else 1]}"

    def _embedding(self, name: str) -> np.ndarray:
        try:
            return self.weights[f"embeddings.{name}.weight"]
        except KeyError:
            raise EncoderFolderError(f"{self.folder}: the weights lack embeddings.{name} (not a "
                                     f"{self.architecture.kind} encoder's weights)") from None

    def check_shapes(self) -> None:
        """Refuse weights whose names or shapes do not fit the config, in one line naming the folder."""
        a = self.architecture
        wanted = {"embeddings.word_embeddings.weight": (None, a.hidden),
                  "embeddings.position_embeddings.weight": (a.positions + a.offset, a.hidden),
                  "embeddings.LayerNorm.weight": (a.hidden,), "embeddings.LayerNorm.bias": (a.hidden,)}
        for layer in range(a.layers):
            for part in ("query", "key", "value", "out"):
                wanted[f"{self._name(layer, part)}.weight"] = (a.hidden, a.hidden)
                wanted[f"{self._name(layer, part)}.bias"] = (a.hidden,)
            for part in ("norm1", "norm2"):
                wanted[f"{self._name(layer, part)}.weight"] = wanted[f"{self._name(layer, part)}.bias"] = (a.hidden,)
            wanted[f"{self._name(layer, 'up')}.weight"] = (None, a.hidden)
            wanted[f"{self._name(layer, 'down')}.weight"] = (a.hidden, None)
        for name, shape in wanted.items():
            array = self.weights.get(name)
            if array is None or array.ndim != len(shape) or any(s is not None and s != t for s, t in zip(shape, array.shape)):
                found = "missing" if array is None else f"of shape {array.shape}"
                raise EncoderFolderError(f"{self.folder}: weight {name} is {found}, where config.json wants "
                                         f"{tuple('any' if s is None else s for s in shape)}")

    # pieces

    def pieces(self, words: list[str]) -> tuple[list[int], list[int]]:
        """Each word's pieces, without special pieces: (piece ids, each piece's word); a word of no
        piece gets the unknown one."""
        encoded = self.tokenizer.encode(words, is_pretokenized=True, add_special_tokens=False)
        owners = encoded.word_ids
        ids, owner = [], []
        k = 0
        for word in range(len(words)):
            start = k
            while k < len(owners) and owners[k] == word:
                ids.append(encoded.ids[k])
                owner.append(word)
                k += 1
            if k == start:
                ids.append(self.unknown)
                owner.append(word)
        return ids, owner

    def windows(self, count: int) -> list[tuple[int, int, int, int]]:
        """(start, end, first kept, end of kept) of each window over ``count`` pieces: a window holds
        at most the encoder's positions less its two special pieces; windows overlap by half, and each
        piece is kept from the one where it lies farthest from an edge."""
        size = self.architecture.positions - 2
        if count <= size:
            return [(0, count, 0, count)]
        stride = size // 2
        starts = list(range(0, count - size, stride)) + [count - size]
        kept = []
        for k, start in enumerate(starts):
            first = 0 if k == 0 else (start + starts[k - 1] + size) // 2
            last = count if k == len(starts) - 1 else (starts[k + 1] + start + size) // 2
            kept.append((start, start + size, first, last))
        return kept

    # the forward pass

    def hidden_states(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(layers + 1, batch, length, hidden): the embeddings, then each layer's output, for piece ids
        (batch, length) and their mask (1: a piece, 0: padding)."""
        a, w = self.architecture, self.weights
        positions = (np.cumsum(mask, 1) * mask + a.offset - (1 if a.offset else 0)) if a.offset else \
            np.broadcast_to(np.arange(ids.shape[1]), ids.shape)
        x = self._embedding("word_embeddings")[ids] + w["embeddings.position_embeddings.weight"][positions]
        if "embeddings.token_type_embeddings.weight" in w:
            x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], a.eps).astype(np.float32)
        states = [x]
        masked = np.where(mask[:, None, None, :] > 0, 0.0, np.finfo(np.float32).min).astype(np.float32)
        for layer in range(a.layers):
            x = self._layer(x, masked, layer)
            states.append(x)
        return np.stack(states)

    def linear_names(self) -> list[str]:
        """Each layer's linear layers, by the names of their weights without ``.weight``."""
        return [self._name(layer, part) for layer in range(self.architecture.layers)
                for part in ("query", "key", "value", "out", "up", "down")]

    def _linear(self, x: np.ndarray, layer: int, part: str) -> np.ndarray:
        name = self._name(layer, part)
        if name in self.products:
            return self.products[name](x)
        shaped = x.reshape(-1, x.shape[-1]) @ self.weights[f"{name}.weight"].T + self.weights[f"{name}.bias"]
        return shaped.reshape(x.shape[:-1] + shaped.shape[-1:])

    def _layer(self, x: np.ndarray, masked: np.ndarray, layer: int) -> np.ndarray:
        a, w = self.architecture, self.weights
        batch, length, _ = x.shape
        size = a.hidden // a.heads

        def heads(values):
            return values.reshape(batch, length, a.heads, size).transpose(0, 2, 1, 3)

        q, k, v = (heads(self._linear(x, layer, part)) for part in ("query", "key", "value"))
        attention = _softmax(q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + masked)
        context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, length, a.hidden)
        norm1, norm2 = self._name(layer, "norm1"), self._name(layer, "norm2")
        x = _layer_norm(x + self._linear(context, layer, "out"), w[f"{norm1}.weight"], w[f"{norm1}.bias"], a.eps)
        up = self._linear(x, layer, "up")
        up = self.activate(up) if self.activate is not None else _activation(up, a.activation)
        return _layer_norm(x + self._linear(up, layer, "down"), w[f"{norm2}.weight"], w[f"{norm2}.bias"], a.eps)

    def reading(self, sentences: list[list[str]]) -> tuple[list[Window], list[np.ndarray]]:
        """Each sentence's windows, as the transformer reads them, and each sentence's pieces' words."""
        units, owners = [], []
        for number, words in enumerate(sentences):
            ids, owner = self.pieces(list(words))
            owners.append(np.array(owner, dtype=np.int64))
            for start, end, first, last in self.windows(len(ids)):
                units.append(Window(number, start, first, last, [self.first, *ids[start:end], self.last]))
        return units, owners

    def word_layers(self, sentences: list[list[str]]) -> list[np.ndarray]:
        """Per sentence, (layers + 1, words, hidden): each word's vector at every layer, the mean of
        its pieces' (read in windows when the sentence has more pieces than the encoder's positions)."""
        out = []
        for (vectors, owner), words in zip(self.piece_layers(sentences), sentences):  # a word's pieces follow one another
            if not words:
                out.append(vectors)  # (layers, 0, hidden)
                continue
            counts = np.bincount(owner, minlength=len(words))
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            out.append(np.add.reduceat(vectors, starts, axis=1) / counts.astype(np.float32)[None, :, None])
        return out

    def piece_layers(self, sentences: list[list[str]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per sentence, its pieces' states at every layer (layers + 1, pieces, hidden) and each
        piece's word."""
        units, owners = self.reading(sentences)
        layers = self.architecture.layers + 1
        pieces = [np.zeros((layers, len(owner), self.architecture.hidden), dtype=np.float32) for owner in owners]
        units.sort(key=lambda unit: len(unit.ids))  # batches of like lengths: little padding to compute
        for chosen in _batches([len(unit.ids) for unit in units]):
            longest = len(units[chosen[-1]].ids)
            ids = np.zeros((len(chosen), longest), dtype=np.int64)
            mask = np.zeros((len(chosen), longest), dtype=np.int64)
            for row, k in enumerate(chosen):
                ids[row, :len(units[k].ids)], mask[row, :len(units[k].ids)] = units[k].ids, 1
            states = self.hidden_states(ids, mask)
            for row, k in enumerate(chosen):
                unit = units[k]
                pieces[unit.sentence][:, unit.first:unit.last] = states[:, row, unit.kept]
        return list(zip(pieces, owners))


def _widened(arrays: dict[str, np.ndarray], path: Path) -> dict[str, np.ndarray]:
    """A weights file's arrays in float32: an 8-bit one (``hetdep compact``'s) widened by its scales."""
    out = {}
    for name, array in arrays.items():
        if name.endswith(SCALE) and name.removesuffix(SCALE) in arrays:
            continue
        if array.dtype == np.int8:
            if name + SCALE not in arrays:
                raise EncoderFolderError(f"{path}: the 8-bit weight {name} has no scales ({name}{SCALE})")
            out[name] = dequantized(array, arrays[name + SCALE], path)
        else:
            out[name] = np.asarray(array, dtype=np.float32)
    return out


def carried_transformer(folder: Path, shape) -> TransformerEncoder | None:
    """The pretrained transformer a network of ``shape`` reads, which its model folder carries in
    ``folder``, checked against the network's sizes; None for a network that reads none."""
    from hetdep.learn.model_config import ModelFileError

    if not shape.encoder_layers:
        return None
    if not folder.is_dir():
        raise ModelFileError(f"{folder}: missing: the network reads a pretrained transformer its folder carries there "
                             "(a damaged model directory)")
    transformer = TransformerEncoder.load(folder)
    if (transformer.architecture.layers + 1, transformer.architecture.hidden) != (shape.encoder_layers, shape.encoder_dim):
        raise ModelFileError(f"{folder}: not the transformer the network was trained on (its layers and size differ)")
    return transformer
