"""8-bit weights for the compact models (``hetdep compact``): each row of a large array stored as
int8 values and one float32 scale, a quarter the size, widened back to float32 when the model opens.
The network's arrays (:mod:`hetdep.neural.parser`) and a carried transformer's
(:mod:`hetdep.neural.transformer`) share this one rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hetdep.learn.model_config import ModelFileError

SCALE = ".scale"  # a quantized array's companion: one scale per row (per vector along the last axis)
LARGEST_SCALE = np.finfo(np.float32).max / 128  # any int8 (-128 too) times a scale up to this is a finite float32
QUANTIZED_FROM = 4096  # smaller arrays (biases, layer norms, the character embeddings) stay float32


def quantizable(array: np.ndarray) -> bool:
    return array.ndim >= 2 and array.size >= QUANTIZED_FROM


def quantized(array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric 8-bit integers per row: each vector along the last axis is its int8 values times
    one float32 scale (its largest magnitude / 127)."""
    scale = np.abs(array).max(axis=-1) / 127
    safe = np.where(scale > 0, scale, 1)[..., None]
    return np.clip(np.rint(array / safe), -127, 127).astype(np.int8), scale.astype(np.float32)


def dequantized(values: np.ndarray, scale: np.ndarray, path: Path, transposed: bool = False) -> np.ndarray:
    """The float32 array of ``values`` and ``scale`` as :func:`quantized` wrote them, read from the
    file ``path``, its numbers finite; one line naming the file for anything quantizing cannot
    give. ``transposed``: a matrix laid out column by column (the same shape, its transpose
    contiguous), made in the same pass: the LSTMs' weights, which the forward pass holds transposed
    (copied once more, they took 12 ms of every start)."""
    if values.dtype != np.int8 or scale.shape != values.shape[:-1] or (transposed and values.ndim != 2):
        raise ModelFileError(f"{path}: a quantized array and its scales do not fit ({values.dtype}, "
                             f"{values.shape}, scales {scale.shape})")
    zero_rows = ~values.any(axis=-1)
    if (not np.isfinite(scale).all() or (scale < 0).any() or (scale > LARGEST_SCALE).any()
            or (scale[zero_rows] != 0).any()):
        raise ModelFileError(f"{path}: a quantized array's scales are not those quantizing gives "
                             "(finite, not negative, small enough that every weight is a float32, 0 exactly for a row of zeros)")
    if transposed:
        columns = np.empty(values.shape[::-1], dtype=np.float32)
        np.multiply(values.T, scale, out=columns, dtype=np.float32)
        return columns.T
    return np.multiply(values, scale[..., None], dtype=np.float32)  # one pass: each value made float32, then multiplied
