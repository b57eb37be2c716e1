"""8-bit arithmetic for the network's products (issue 91): each bidirectional LSTM layer run by
onnxruntime's DynamicQuantizeLSTM, which multiplies int8 weights by inputs it quantizes to 8 bits
as it goes, with int32 sums (AVX-512 VNNI where the CPU has it). NumPy has no such product.

The weights are the compact model's own 8-bit rows (:mod:`hetdep.neural.quantized`: one scale
per output row, zero at zero), given to the runtime as inputs of a graph that holds none: the
graphs (one node each) depend on an LSTM's hidden size alone, so a model carries one small file
per size and one for every linear layer (DynamicQuantizeMatMul: the heads' first layers, the
taggers', a pretrained transformer's), written by ``hetdep compact --precision int8`` with the
``onnx`` library, and parsing needs onnxruntime only. The float32 forward pass (:class:`hetdep.neural.inference.BiLSTMLayer`)
is the reference these layers are tested against."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import numpy as np

from hetdep.learn.model_config import ModelFileError
from hetdep.neural.quantized import quantizable, quantized

GRAPHS = "int8"  # in a model's folder: the runtime's graphs, one per LSTM hidden size
PRECISIONS = ("int8", "float32")
# The CPU features of 8-bit products four times as dense as float32's (LLVM's names for them).
EIGHT_BIT_FEATURES = ("avx512vnni", "avxvnni", "i8mm", "dotprod")
TORCH_TO_ONNX_GATES = (0, 3, 1, 2)  # PyTorch's gates are input, forget, cell, output; ONNX's input, output, forget, cell


INPUTS = {"lstm": ["X", "W", "R", "B", "lengths", "W_scale", "W_zero", "R_scale", "R_zero"],  # each graph's, in order
          "matmul": ["A", "B", "B_scale", "B_zero", "bias"]}
MATMUL = "matmul.onnx"


def graph_path(folder: Path, hidden: int | None = None) -> Path:
    """The graph of an LSTM of ``hidden`` units, or (None) of a linear layer's product."""
    return folder / GRAPHS / (MATMUL if hidden is None else f"lstm-{hidden}.onnx")


def write_graphs(folder: Path, sizes: set[int]) -> None:
    """The runtime's graphs a model in ``folder`` parses with: a bidirectional DynamicQuantizeLSTM
    for each LSTM size in ``sizes`` and one DynamicQuantizeMatMul for every linear layer, every
    weight an input. Built with ``onnx`` (at compact time only: importing it takes a second)."""
    from onnx import TensorProto, helper

    def tensor(name: str, kind: int, rank: int):
        return helper.make_tensor_value_info(name, kind, [None] * rank)

    def write(node, name: str, inputs: list, outputs: list, path: Path) -> None:
        model = helper.make_model(helper.make_graph([node], name, inputs, outputs),
                                  opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
        model.ir_version = 8  # what onnxruntime 1.14 and later read
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(model.SerializeToString())

    for hidden in sorted(sizes):
        inputs = [tensor("X", TensorProto.FLOAT, 3), tensor("W", TensorProto.INT8, 3), tensor("R", TensorProto.INT8, 3),
                  tensor("B", TensorProto.FLOAT, 2), tensor("lengths", TensorProto.INT32, 1),
                  tensor("W_scale", TensorProto.FLOAT, 2), tensor("W_zero", TensorProto.INT8, 2),
                  tensor("R_scale", TensorProto.FLOAT, 2), tensor("R_zero", TensorProto.INT8, 2)]
        node = helper.make_node("DynamicQuantizeLSTM", ["X", "W", "R", "B", "lengths", "", "", "", "W_scale", "W_zero",
                                                        "R_scale", "R_zero"], ["Y", "Y_h"], domain="com.microsoft",
                                direction="bidirectional", hidden_size=hidden)
        write(node, f"lstm-{hidden}", inputs, [tensor("Y", TensorProto.FLOAT, 4), tensor("Y_h", TensorProto.FLOAT, 3)],
              graph_path(folder, hidden))
    inputs = [tensor("A", TensorProto.FLOAT, 2), tensor("B", TensorProto.INT8, 2), tensor("B_scale", TensorProto.FLOAT, 1),
              tensor("B_zero", TensorProto.INT8, 1), tensor("bias", TensorProto.FLOAT, 1)]
    node = helper.make_node("DynamicQuantizeMatMul", ["A", "B", "B_scale", "B_zero", "bias"], ["Y"], domain="com.microsoft")
    write(node, "matmul", inputs, [tensor("Y", TensorProto.FLOAT, 2)], graph_path(folder))


def _gates(array: np.ndarray) -> np.ndarray:
    """PyTorch's gate blocks (along the first axis) in ONNX's order."""
    blocks = np.split(array, 4, axis=0)
    return np.concatenate([blocks[k] for k in TORCH_TO_ONNX_GATES], 0)


class Int8LSTM:
    """A bidirectional LSTM layer in onnxruntime, from PyTorch's arrays of it (``weight_ih_l0``,
    ``weight_hh_l0_reverse``, ...): called as :class:`hetdep.neural.inference.BiLSTMLayer` is."""

    def __init__(self, session, arrays: dict[str, np.ndarray], layer: int):
        self.session = session
        names = (f"l{layer}", f"l{layer}_reverse")
        feeds: dict[str, list] = {key: [] for key in ("W", "W_scale", "R", "R_scale", "B")}
        for name in names:
            for kind, key in (("ih", "W"), ("hh", "R")):
                values, scale = quantized(_gates(arrays[f"weight_{kind}_{name}"]))  # rows: the output units
                feeds[key].append(np.ascontiguousarray(values.T))  # (inputs, 4 hidden), as the runtime takes it
                feeds[key + "_scale"].append(scale)
            feeds["B"].append(np.concatenate([_gates(arrays[f"bias_ih_{name}"]), _gates(arrays[f"bias_hh_{name}"])]))
        self.feeds = {key: np.ascontiguousarray(np.stack(values)) for key, values in feeds.items()}
        self.feeds["W_zero"] = np.zeros_like(self.feeds["W_scale"], dtype=np.int8)
        self.feeds["R_zero"] = np.zeros_like(self.feeds["R_scale"], dtype=np.int8)
        self.hidden = self.feeds["R"].shape[1]

    def __call__(self, x: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both directions' outputs side by side (batch, position, 2 hidden; 0 past each row's
        length) and their last states (batch, 2 hidden)."""
        batch, steps, _ = x.shape
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

@cache
def unavailable() -> str | None:
    """Why this machine parses in float32 whatever the model asks (None: it can run int8): the
    runtime not installed, or a CPU without dense 8-bit products, on which int8 gains nothing."""
    if importlib.util.find_spec("onnxruntime") is None:
        return "onnxruntime is not installed (pip install 'hetdep[int8]')"
    from llvmlite import binding  # numba's: the host CPU's features, on every system

    features = binding.get_host_cpu_features()
    if not any(features.get(name) for name in EIGHT_BIT_FEATURES):
        return f"this CPU has no dense 8-bit products ({' or '.join(EIGHT_BIT_FEATURES)})"
    return None


def sessions(folder: Path, sizes: set[int]) -> dict[int | None, object]:
    """The runtime's session of each LSTM size's graph in the model ``folder`` and (None) of the
    linear layers', one line naming the file for a missing or damaged one. One thread each: the
    parser's own threads run batches at once."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 3  # its warnings are not the user's
    options.enable_cpu_mem_arena = False  # an arena keeps the largest batch's memory for good: 95 MB more at the peak
    opened = {}
    for hidden in [None, *sorted(sizes)]:
        path = graph_path(folder, hidden)
        try:
            opened[hidden] = onnxruntime.InferenceSession(path.read_bytes(), options, providers=["CPUExecutionProvider"])
        except FileNotFoundError:
            raise ModelFileError(f"{path}: missing (a model compacted for int8 carries the runtime's graphs; "
                                 "compact it again with --precision int8)") from None
        except Exception as error:  # noqa: BLE001 -- onnxruntime raises its own kinds for a graph it cannot read
            raise ModelFileError(f"{path}: not a graph of the runtime ({type(error).__name__}): a damaged model directory") from None
        names = [given.name for given in opened[hidden].get_inputs()]
        kind, name = ("matmul", "matmul") if hidden is None else ("lstm", f"lstm-{hidden}")
        if names != INPUTS[kind] or opened[hidden].get_modelmeta().graph_name != name:
            what = "a linear layer" if hidden is None else f"an LSTM of {hidden} units"
            raise ModelFileError(f"{path}: not hetdep's graph of {what} (a damaged model directory)")
    return opened


def run_in_int8(parser, folder: Path) -> None:
    """Set the NumPy network of ``parser`` (a :class:`hetdep.neural.parser.NeuralParser` of the
    model in ``folder``) and the transformer it reads to run their LSTMs and linear layers in int8
    through the runtime (:func:`unavailable` says whether it can)."""
    network = parser.network
    chars, encoder = network.lstm_arrays()
    opened = sessions(folder, {chars["weight_hh_l0"].shape[1], encoder["weight_hh_l0"].shape[1]})

    def layer(arrays: dict, number: int) -> Int8LSTM:
        return Int8LSTM(opened[arrays[f"weight_hh_l{number}"].shape[1]], arrays, number)

    linears = {name.removesuffix(".weight") for name, array in network.arrays.items()
               if name.endswith(".weight") and array.ndim == 2 and quantizable(array)
               and not name.startswith(("chars.lstm.", "encoder.", "words.", "pretrained.", "chars.embedding", "treebanks.", "spans."))}
    products = {name: Int8Linear(opened[None], network.arrays[f"{name}.weight"], network.arrays.get(f"{name}.bias"))
                for name in sorted(linears)}
    network.use_products(layer(chars, 0), [layer(encoder, number) for number in range(network.layers)], products, "int8")
    transformer = parser.encoder.transformer
    if transformer is not None:
        transformer.products = {name: Int8Linear(opened[None], transformer.weights[f"{name}.weight"],
                                                 transformer.weights[f"{name}.bias"]) for name in transformer.linear_names()}
