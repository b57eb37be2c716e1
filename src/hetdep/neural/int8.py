"""8-bit arithmetic for the network's products (issue 91), through onnxruntime, which multiplies
int8 weights by inputs it quantizes to 8 bits as it goes, with int32 sums (AVX-512 VNNI where the
CPU has it): NumPy has no such product. Its DynamicQuantizeLSTM runs the character LSTM and the
encoder's layers after the first; its DynamicQuantizeMatMul every linear layer (the heads' first
layers, the taggers', a pretrained transformer's); its Gelu a transformer's activation (in
float32: NumPy's took as long as the 8-bit products). The encoder's first layer runs in the runtime's
float32 LSTM (one fused loop, faster than NumPy's steps) unless the model's record asks for 8 bits
(``compact --int8-first-layer``, as the shipped models do): its input joins vectors of unlike scales
(embeddings, spellings, pretrained vectors), which one 8-bit scale for the whole input blurs
(fr-gsd test, gold tokens: SUD / UD LAS 0.12 / 0.08 below float32 with it in int8, within 0.02
without), less so with the pretrained vectors scaled down in it (:func:`first_layer_scale`).

The weights are the compact model's own 8-bit rows (:mod:`hetdep.neural.quantized`: one scale
per output row, zero at zero), given to the runtime as inputs of graphs that hold none: a graph
(one node) depends on an LSTM's hidden size alone, so a model carries a few small files, written
by ``hetdep compact --precision int8`` with the ``onnx`` library (``hetdep[int8]``), and parsing
needs onnxruntime only. The float32 forward pass (:class:`hetdep.neural.inference.BiLSTMLayer`) is their reference."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import numpy as np

from hetdep.learn.model_config import ModelFileError
from hetdep.neural.quantized import quantizable, quantized

GRAPHS = "int8"  # in a model's folder: the runtime's graphs
INT8_FIRST_LAYER = "int8_first_layer"  # a model's record: its encoder's first LSTM layer in 8 bits too (compact --int8-first-layer)
# A model's record: the factor its pretrained vectors are multiplied by in the 8-bit first layer's input
# (and that layer's weights of them divided by), compact --int8-pretrained-scale.
INT8_PRETRAINED_SCALE = "int8_pretrained_scale"
PRECISIONS = ("int8", "float32")
# The CPU features of 8-bit products four times as dense as float32's (LLVM's names for them).
EIGHT_BIT_FEATURES = ("avx512vnni", "avxvnni", "i8mm", "dotprod")
TORCH_TO_ONNX_GATES = (0, 3, 1, 2)  # PyTorch's gates are input, forget, cell, output; ONNX's input, output, forget, cell
# Each kind of graph's inputs in order, then its outputs, with their element types and ranks: an
# 8-bit LSTM's, a float32 one's, a linear layer's.
SIGNATURES = {
    "lstm8": {"X": ("FLOAT", 3), "W": ("INT8", 3), "R": ("INT8", 3), "B": ("FLOAT", 2), "lengths": ("INT32", 1),
              "W_scale": ("FLOAT", 2), "W_zero": ("INT8", 2), "R_scale": ("FLOAT", 2), "R_zero": ("INT8", 2)},
    "lstm32": {"X": ("FLOAT", 3), "W": ("FLOAT", 3), "R": ("FLOAT", 3), "B": ("FLOAT", 2), "lengths": ("INT32", 1)},
    "matmul": {"A": ("FLOAT", 2), "B": ("INT8", 2), "B_scale": ("FLOAT", 1), "B_zero": ("INT8", 1), "bias": ("FLOAT", 1)},
    "gelu": {"X": ("FLOAT", 2)}}
OUTPUTS = {"lstm8": {"Y": ("FLOAT", 4), "Y_h": ("FLOAT", 3)}, "lstm32": {"Y": ("FLOAT", 4), "Y_h": ("FLOAT", 3)},
           "matmul": {"Y": ("FLOAT", 2)}, "gelu": {"Y": ("FLOAT", 2)}}
LINEARS_SKIPPED = ("chars.lstm.", "encoder.", "words.", "pretrained.", "chars.embedding", "treebanks.", "spans.")


def graph_name(kind: str, hidden: int | None = None) -> str:
    return kind if hidden is None else f"{kind}-{hidden}"


def graph_path(folder: Path, name: str) -> Path:
    return folder / GRAPHS / f"{name}.onnx"


def write_graphs(folder: Path, sizes: set[int], gelu: bool = False) -> None:
    """The runtime's graphs a model in ``folder`` parses with, every weight an input: both kinds of
    bidirectional LSTM for each hidden size in ``sizes``, the linear layers' product and, with
    ``gelu`` (a transformer's activation), the GELU. Built with ``onnx`` (at compact time only:
    importing it takes a second)."""
    from onnx import TensorProto, helper

    def write(node, kind: str, name: str) -> None:
        def described(tensors: dict) -> list:
            return [helper.make_tensor_value_info(given, getattr(TensorProto, element), [None] * rank)
                    for given, (element, rank) in tensors.items()]

        graph = helper.make_graph([node], name, described(SIGNATURES[kind]), described(OUTPUTS[kind]))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
        model.ir_version = 8  # what onnxruntime 1.14 and later read
        path = graph_path(folder, name)
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(model.SerializeToString())

    lstm8 = list(SIGNATURES["lstm8"])
    for hidden in sorted(sizes):
        node = helper.make_node("DynamicQuantizeLSTM", lstm8[:5] + ["", "", ""] + lstm8[5:], ["Y", "Y_h"],
                                domain="com.microsoft", direction="bidirectional", hidden_size=hidden)
        write(node, "lstm8", graph_name("lstm8", hidden))
        node = helper.make_node("LSTM", list(SIGNATURES["lstm32"]), ["Y", "Y_h"], direction="bidirectional", hidden_size=hidden)
        write(node, "lstm32", graph_name("lstm32", hidden))
    write(helper.make_node("DynamicQuantizeMatMul", list(SIGNATURES["matmul"]), ["Y"], domain="com.microsoft"), "matmul", "matmul")
    if gelu:
        write(helper.make_node("Gelu", ["X"], ["Y"], domain="com.microsoft"), "gelu", "gelu")


def _gates(array: np.ndarray) -> np.ndarray:
    """PyTorch's gate blocks (along the first axis) in ONNX's order."""
    blocks = np.split(array, 4, axis=0)
    return np.concatenate([blocks[k] for k in TORCH_TO_ONNX_GATES], 0)


class RuntimeLSTM:
    """A bidirectional LSTM layer in onnxruntime, in 8 bits or float32, from PyTorch's arrays of it
    (``weight_ih_l0``, ``weight_hh_l0_reverse``, ...): called as :class:`hetdep.neural.inference.BiLSTMLayer` is.
    ``input_scale`` (one factor an input column): the input multiplied by it and the input weights
    divided by it, the same layer in exact arithmetic, so that the runtime's one 8-bit scale for the
    whole input fits parts of unlike ranges (:func:`first_layer_scale`)."""

    def __init__(self, session, arrays: dict[str, np.ndarray], layer: int, eight_bit: bool,
                 input_scale: np.ndarray | None = None):
        self.session = session
        self.input_scale = input_scale
        feeds: dict[str, list] = {key: [] for key in ("W", "W_scale", "R", "R_scale", "B")}
        for name in (f"l{layer}", f"l{layer}_reverse"):
            for kind, key in (("ih", "W"), ("hh", "R")):
                weight = _gates(arrays[f"weight_{kind}_{name}"])  # rows: the output units
                if kind == "ih" and input_scale is not None:
                    weight = weight / input_scale[None, :]
                if eight_bit:
                    values, scale = quantized(weight)
                    feeds[key].append(np.ascontiguousarray(values.T))  # (inputs, 4 hidden), as DynamicQuantizeLSTM takes it
                    feeds[key + "_scale"].append(scale)
                else:
                    feeds[key].append(weight)  # (4 hidden, inputs), as LSTM takes it
            feeds["B"].append(np.concatenate([_gates(arrays[f"bias_ih_{name}"]), _gates(arrays[f"bias_hh_{name}"])]))
        self.feeds = {key: np.ascontiguousarray(np.stack(values)) for key, values in feeds.items() if values}
        if eight_bit:
            self.feeds["W_zero"] = np.zeros_like(self.feeds["W_scale"], dtype=np.int8)
            self.feeds["R_zero"] = np.zeros_like(self.feeds["R_scale"], dtype=np.int8)
        self.hidden = arrays[f"weight_hh_l{layer}"].shape[1]

    def __call__(self, x: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both directions' outputs side by side (batch, position, 2 hidden; 0 past each row's
        length) and their last states (batch, 2 hidden)."""
        batch, steps, _ = x.shape
        if self.input_scale is not None:
            x = x * self.input_scale
        y, y_h = self.session.run(None, {**self.feeds, "X": np.ascontiguousarray(x.transpose(1, 0, 2), dtype=np.float32),
                                         "lengths": lengths.astype(np.int32)})
        out = y.transpose(2, 0, 1, 3).reshape(batch, steps, 2 * self.hidden)  # (steps, 2, batch, hidden) -> side by side
        return out, y_h.transpose(1, 0, 2).reshape(batch, 2 * self.hidden)


class Int8Linear:
    """``x @ weight.T + bias`` (PyTorch's Linear) through the runtime's DynamicQuantizeMatMul: the
    weight in 8 bits a row (its output units), ``x`` quantized as it goes."""

    def __init__(self, session, weight: np.ndarray, bias: np.ndarray | None):
        values, scale = quantized(weight)
        self.session = session
        self.feeds = {"B": np.ascontiguousarray(values.T), "B_scale": scale, "B_zero": np.zeros(len(scale), dtype=np.int8),
                      "bias": np.zeros(len(scale), dtype=np.float32) if bias is None else bias.astype(np.float32)}

    def __call__(self, x: np.ndarray) -> np.ndarray:
        flat = np.ascontiguousarray(x.reshape(-1, x.shape[-1]), dtype=np.float32)
        [y] = self.session.run(None, {**self.feeds, "A": flat})
        return y.reshape(x.shape[:-1] + y.shape[-1:])


class RuntimeGelu:
    """BERT's exact GELU through the runtime's Gelu (its vectorized error function: 8 times the
    speed of NumPy's passes, :func:`hetdep.neural.transformer._gelu`, which is its reference)."""

    def __init__(self, session):
        self.session = session

    def __call__(self, x: np.ndarray) -> np.ndarray:
        [y] = self.session.run(None, {"X": np.ascontiguousarray(x.reshape(-1, x.shape[-1]), dtype=np.float32)})
        return y.reshape(x.shape)


@cache
def unavailable() -> str | None:
    """Why this machine parses in float32 whatever the model asks (None: it can run int8): the
    runtime not installed, or a CPU without dense 8-bit products, on which int8 gains nothing."""
    if importlib.util.find_spec("onnxruntime") is None:
        return "onnxruntime, a dependency of hetdep's, is not installed (pip install onnxruntime)"
    from llvmlite import binding  # numba's: the host CPU's features, on every system

    features = binding.get_host_cpu_features()
    if not any(features.get(name) for name in EIGHT_BIT_FEATURES):
        return f"this CPU has no dense 8-bit products ({' or '.join(EIGHT_BIT_FEATURES)})"
    return None


def sessions(folder: Path, names: set[str]) -> dict[str, object]:
    """The runtime's session of each graph ``names`` names in the model ``folder``, one line naming
    the file for a missing or damaged one. One thread each: the parser's own threads run batches at once."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 3  # its warnings are not the user's
    options.enable_cpu_mem_arena = False  # an arena keeps the largest batch's memory for good: 95 MB more at the peak
    opened = {}
    for name in sorted(names):
        path = graph_path(folder, name)
        try:
            opened[name] = onnxruntime.InferenceSession(path.read_bytes(), options, providers=["CPUExecutionProvider"])
        except FileNotFoundError:
            raise ModelFileError(f"{path}: missing (a model compacted for int8 carries the runtime's graphs; "
                                 "compact it again with --precision int8)") from None
        except Exception as error:  # noqa: BLE001 -- onnxruntime raises its own kinds for a graph it cannot read
            raise ModelFileError(f"{path}: not a graph of the runtime ({type(error).__name__}): a damaged model directory") from None
        given = [found.name for found in opened[name].get_inputs()]
        if given != list(SIGNATURES[name.split("-")[0]]) or opened[name].get_modelmeta().graph_name != name:
            raise ModelFileError(f"{path}: not hetdep's graph {name} (a damaged model directory)")
    return opened


def first_layer_scale(arrays: dict[str, np.ndarray], factor: float) -> np.ndarray | None:
    """The encoder's first layer's input scale (:class:`RuntimeLSTM`) that multiplies the pretrained
    vectors by ``factor`` (None for 1): a few of a table's vectors reach large values (the shipped
    fr's 33, its own embeddings' 5), and the batch's 8-bit step, set by the largest, blurred the
    rest (fr-gsd test from raw text, the first layer in 8 bits: UPOS 0.08 and UD LAS 0.06 below
    float32 unscaled, 0.05 and 0.05 at 0.33). The input is laid out as
    :meth:`hetdep.neural.inference.NumpyNetwork.encode` joins it: words, spellings, pretrained vectors, then the rest."""
    if factor == 1.0 or "pretrained.weight" not in arrays:
        return None
    start = arrays["words.weight"].shape[1] + arrays["chars.out.weight"].shape[0]
    width = arrays["pretrained.weight"].shape[1]
    scale = np.ones(arrays["encoder.weight_ih_l0"].shape[1], dtype=np.float32)
    scale[start:start + width] = factor
    return scale


def runs_gelu(parser) -> bool:
    """Whether the parser's network reads a transformer whose activation is BERT's exact GELU."""
    transformer = parser.encoder.transformer
    return transformer is not None and transformer.architecture.activation == "gelu"


def run_in_int8(parser, folder: Path) -> None:
    """Set the NumPy network of ``parser`` (a :class:`hetdep.neural.parser.NeuralParser` of the
    model in ``folder``) and the transformer it reads to run their products in the runtime, in
    int8 but for the encoder's first layer, unless its record asks for that too (:func:`unavailable`
    says whether it can)."""
    network = parser.network
    chars, encoder = network.lstm_arrays()
    chars_size, size = chars["weight_hh_l0"].shape[1], encoder["weight_hh_l0"].shape[1]
    transformer = parser.encoder.transformer
    gelu = runs_gelu(parser)
    eight_bit = [number > 0 or bool(parser.record.get(INT8_FIRST_LAYER)) for number in range(network.layers)]
    kinds = [graph_name("lstm8" if eight else "lstm32", size) for eight in eight_bit]
    opened = sessions(folder, {graph_name("lstm8", chars_size), "matmul", *kinds} | ({"gelu"} if gelu else set()))
    scale = first_layer_scale(network.arrays, float(parser.record.get(INT8_PRETRAINED_SCALE, 1.0))) if eight_bit[0] else None
    layers = [RuntimeLSTM(opened[kind], encoder, number, eight, scale if number == 0 else None)
              for number, (kind, eight) in enumerate(zip(kinds, eight_bit))]
    linears = sorted(name.removesuffix(".weight") for name, array in network.arrays.items()  # not the biaffine scorers' 3-d ones
                     if name.endswith(".weight") and array.ndim == 2 and quantizable(array) and not name.startswith(LINEARS_SKIPPED))
    products = {name: Int8Linear(opened["matmul"], network.arrays[f"{name}.weight"], network.arrays.get(f"{name}.bias"))
                for name in linears}
    network.use_products(RuntimeLSTM(opened[graph_name("lstm8", chars_size)], chars, 0, True), layers, products, "int8")
    if gelu:
        transformer.activate = RuntimeGelu(opened["gelu"])
    if transformer is not None:
        transformer.products = {name: Int8Linear(opened["matmul"], transformer.weights[f"{name}.weight"],
                                                 transformer.weights[f"{name}.bias"]) for name in transformer.linear_names()}
