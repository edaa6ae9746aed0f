"""``tf.image.resize`` as Keras's UpSampling2D calls it (``antialias=False``), for the
``bilinear`` and ``bicubic`` methods: each is a fixed linear map along the height and along
the width, so it is applied as two weight matrices (``einsum``), and its gradient is theirs.

The matrices are TF's kernels' weights: ``resize_bilinear`` and ``resize_bicubic`` with
``half_pixel_centers=True`` (source coordinate ``(i + 0.5) * in / out - 0.5``); bilinear
clamps the two taps into the image; bicubic is Keys' cubic (a = -0.5) read from TF's
1024-entry table, taps outside the image dropped and the rest renormalized.  Like TF, it
computes in float32 whatever the input's float type.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.ops.array import structure as array
from symgrad.ops.core import constant
from symgrad.ops.linalg.contraction import einsum

_TABLE = 1024


def _bilinear(in_size: int, out_size: int) -> np.ndarray:
    scale = in_size / out_size
    w = np.zeros((out_size, in_size), np.float32)
    for i in range(out_size):
        src = (i + 0.5) * scale - 0.5
        floor = math.floor(src)
        lerp = np.float32(src - floor)
        lower, upper = max(floor, 0), min(math.ceil(src), in_size - 1)
        w[i, lower] += np.float32(1) - lerp
        w[i, upper] += lerp
    return w


def _keys_table() -> np.ndarray:
    a = np.float32(-0.5)
    x = (np.arange(_TABLE + 1) / _TABLE).astype(np.float32)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + np.float32(1)
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return np.stack([near, far], axis=1).astype(np.float32)


def _bicubic(in_size: int, out_size: int) -> np.ndarray:
    table = _keys_table()
    scale = in_size / out_size
    w = np.zeros((out_size, in_size), np.float32)
    for i in range(out_size):
        src = np.float32((i + 0.5) * scale - 0.5)
        base = math.floor(src)
        offset = int(np.rint((src - base) * _TABLE))
        taps = [
            (base - 1, table[offset, 1]),
            (base, table[offset, 0]),
            (base + 1, table[_TABLE - offset, 0]),
            (base + 2, table[_TABLE - offset, 1]),
        ]
        kept = [(j, wt) for j, wt in taps if 0 <= j < in_size]
        total = np.float32(sum(wt for _, wt in kept))
        for j, wt in kept:
            w[i, j] += (
                np.float32(wt) / total if abs(total) >= 1000 * np.finfo(np.float32).tiny else wt
            )
    return w


_METHODS = {"bilinear": _bilinear, "bicubic": _bicubic}


def resize(images: Any, size: tuple[int, int], method: str) -> Any:
    """NHWC ``images`` resized to ``size`` (static sizes), as ``tf.image.resize``."""
    if method not in _METHODS:
        raise NotImplementedError(
            f"symgrad's UpSampling2D supports interpolation 'nearest', 'bilinear' and "
            f"'bicubic'; got interpolation='{method}'"
        )
    height, width = images.shape.as_list()[1:3]
    if height is None or width is None:
        raise ValueError("UpSampling2D with interpolation needs static height and width")
    x = array.cast(images, dt.float32)
    rows = constant(_METHODS[method](height, size[0]))
    cols = constant(_METHODS[method](width, size[1]))
    return einsum("bhwc,Hh,Ww->bHWc", x, rows, cols)
