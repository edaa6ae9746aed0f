"""``frame``, ``overlap_and_add``, ``fftshift`` and ``ifftshift``: TF's compositions.

``frame`` is TF's gather of sub-frames (the gcd of frame length and step), so its graph and
gradient (a GatherV2's) are TF's; ``overlap_and_add`` is TF's pad, reshape, transpose and
sum.  Both need the signal's shape and the lengths known when the graph is built.
"""

from __future__ import annotations

import math as _math
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import constant_value
from symgrad.ops.array import gather as gathering
from symgrad.ops.array import shape as shapes
from symgrad.ops.array.roll import roll
from symgrad.ops.array.slicing import pad, strided_slice
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.reduction.reduce import reduce_sum


def _static_int(t: Tensor, what: str) -> int:
    v = constant_value(t)
    if v is None:
        raise NotImplementedError(f"symgrad's tf.signal needs `{what}` known when building")
    if np.ndim(v) != 0:
        raise ValueError(f"Shape {list(np.shape(v))} must have rank 0")
    return int(v)


def _static_shape(t: Tensor, what: str) -> list[int]:
    dims = t.shape.dims
    if dims is None or any(d is None for d in dims):
        raise NotImplementedError(f"symgrad's tf.signal needs the shape of `{what}` known")
    return [int(d) for d in dims]  # type: ignore[arg-type]


def frame(
    signal: Any,
    frame_length: Any,
    frame_step: Any,
    pad_end: bool = False,
    pad_value: Any = 0,
    axis: Any = -1,
    name: str | None = None,
) -> Tensor:
    """``signal``'s ``axis`` cut into frames of ``frame_length`` every ``frame_step``."""
    with name_scope(name, "frame"):
        x = convert_to_tensor(signal)
        if x.shape.rank == 0:
            raise ValueError(f"Shape {x.shape} must have rank at least 1")
        length = _static_int(convert_to_tensor(frame_length), "frame_length")
        step = _static_int(convert_to_tensor(frame_step), "frame_step")
        ax = _static_int(convert_to_tensor(axis), "axis")
        dims = _static_shape(x, "signal")
        ax = list(range(len(dims)))[ax]  # TF's own check: IndexError for a bad axis
        outer, samples, inner = dims[:ax], dims[ax], dims[ax + 1 :]
        if pad_end:
            value = convert_to_tensor(pad_value, x.dtype)
            frames = -(-samples // step)
            extra = max(0, length + step * (frames - 1) - samples)
            paddings = [[0, 0]] * len(outer) + [[0, extra]] + [[0, 0]] * len(inner)
            x = pad(x, paddings, constant_values=value)
            samples += extra
        else:
            frames = max(0, 1 + (samples - length) // step)
        sub = _math.gcd(length, step)
        per_frame, per_hop, count = length // sub, step // sub, samples // sub
        sliced = strided_slice(x, [0] * len(dims), [*outer, count * sub, *inner])
        subframes = shapes.reshape(sliced, [*outer, count, sub, *inner])
        selector = (np.arange(frames) * per_hop)[:, None] + np.arange(per_frame)[None, :]
        picked = gathering.gather(subframes, selector.astype(np.int32), axis=ax)
        return shapes.reshape(picked, [*outer, frames, length, *inner])


def overlap_and_add(signal: Any, frame_step: Any, name: str | None = None) -> Tensor:
    """Frames ``[..., frames, frame_length]`` added back together ``frame_step`` apart."""
    with name_scope(name, "overlap_and_add"):
        x = convert_to_tensor(signal)
        if x.shape.rank is not None and x.shape.rank < 2:
            raise ValueError(f"Shape {x.shape} must have rank at least 2")
        step_t = convert_to_tensor(frame_step)
        if not step_t.dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {step_t.dtype!r}")
        step = _static_int(step_t, "frame_step")
        dims = _static_shape(x, "signal")
        outer, frames, length = dims[:-2], dims[-2], dims[-1]
        out_len = length + step * (frames - 1)
        if step == length:
            return shapes.reshape(x, [*outer, out_len], name="fast_path")
        segments = -(-length // step)
        paddings = [[0, 0]] * len(outer) + [[0, segments], [0, segments * step - length]]
        x = shapes.reshape(pad(x, paddings), [*outer, frames + segments, segments, step])
        k = len(outer)
        x = shapes.transpose(x, [*range(k), k + 1, k, k + 2])
        x = shapes.reshape(x, [*outer, (frames + segments) * segments, step])
        x = x[..., : (frames + segments - 1) * segments, :]
        x = shapes.reshape(x, [*outer, segments, frames + segments - 1, step])
        x = shapes.reshape(reduce_sum(x, -3), [*outer, (frames + segments - 1) * step])
        return x[..., :out_len]


def _shift(x: Any, axes: Any, sign: int, default: str, name: str | None) -> Tensor:
    with name_scope(name, default) as scope:
        t = convert_to_tensor(x)
        dims = _static_shape(t, "x")
        if axes is None:
            axes = list(range(len(dims)))
            shift: Any = [sign * (d // 2) for d in dims]
        elif isinstance(axes, int):
            shift = sign * (dims[axes] // 2)
        else:
            axes = [a + len(dims) if a < 0 else a for a in np.ravel(axes).tolist()]
            shift = [sign * (dims[a] // 2) for a in axes]
        return roll(t, convert_to_tensor(shift, dt.int32), axes, name=scope)


def fftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """``x`` rolled so the zero frequency is in the middle (``numpy.fft.fftshift``)."""
    return _shift(x, axes, 1, "fftshift", name)


def ifftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """The inverse of ``fftshift`` (``numpy.fft.ifftshift``)."""
    return _shift(x, axes, -1, "ifftshift", name)
