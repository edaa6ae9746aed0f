"""Windows, STFT and its inverse, the DCT and the mel weight matrix: TF's compositions.

Each is written with the ops TF's own Python uses (fft_ops, window_ops, spectral_ops,
dct_ops, mel_ops), in the same order, so values are TF's and gradients follow from the
ops' rules.  Lengths must be known when the graph is built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.api.signal.shape_ops import _static_int, frame, overlap_and_add
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import joining
from symgrad.ops.array import shape as shapes
from symgrad.ops.array import structure as array
from symgrad.ops.array.slicing import pad
from symgrad.ops.cast_select import cast, where, zeros_like
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math.elementwise import cos, equal, square
from symgrad.ops.reduction.reduce import reduce_sum
from symgrad.ops.signal.fft import irfft, rfft


def _raised_cosine(
    name: str | None,
    default: str,
    window_length: Any,
    periodic: Any,
    dtype: Any,
    a: float,
    b: float,
) -> Tensor:
    d = dt.as_dtype(dtype)
    if not d.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {d!r}")
    with name_scope(name, default):
        length = convert_to_tensor(window_length, dt.int32)
        if length.shape.rank not in (None, 0):
            raise ValueError(f"Shape {length.shape} must have rank 0")
        n_static = _static_int(length, "window_length")
        if n_static == 1:
            return array.ones([1], d)
        p = cast(convert_to_tensor(periodic, dt.bool_), dt.int32)
        even = 1 - length % 2
        n = cast(length + p * even - 1, d)
        count = cast(array.range(length), d)
        cos_arg = convert_to_tensor(2 * np.pi, d) * count / n
        return cast(a - b * cos(cos_arg), d)


def hann_window(
    window_length: Any, periodic: Any = True, dtype: Any = dt.float32, name: str | None = None
) -> Tensor:
    """``0.5 - 0.5 cos(2πn / N)`` (N = length for a periodic window, length - 1 if not)."""
    return _raised_cosine(name, "hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(
    window_length: Any, periodic: Any = True, dtype: Any = dt.float32, name: str | None = None
) -> Tensor:
    """``0.54 - 0.46 cos(2πn / N)`` (N = length for a periodic window, length - 1 if not)."""
    return _raised_cosine(name, "hamming_window", window_length, periodic, dtype, 0.54, 0.46)


def _enclosing_power_of_two(value: Tensor) -> Tensor:
    v = _static_int(value, "frame_length")
    return convert_to_tensor(int(2 ** np.ceil(np.log(v) / np.log(2.0))), value.dtype)


WindowFn = Callable[..., Tensor] | None


def stft(
    signals: Any,
    frame_length: Any,
    frame_step: Any,
    fft_length: Any = None,
    window_fn: WindowFn = hann_window,
    pad_end: bool = False,
    name: str | None = None,
) -> Tensor:
    """The short-time Fourier transform: ``rfft`` of windowed frames of ``signals``."""
    with name_scope(name, "stft"):
        x = convert_to_tensor(signals)
        if x.shape.rank == 0:
            raise ValueError(f"Shape {x.shape} must have rank at least 1")
        length = convert_to_tensor(frame_length)
        step = convert_to_tensor(frame_step)
        n = _enclosing_power_of_two(length) if fft_length is None else convert_to_tensor(fft_length)
        framed = frame(x, length, step, pad_end=pad_end)
        if window_fn is not None:
            framed = framed * window_fn(length, dtype=framed.dtype)
        return rfft(framed, joining.stack([n]))


def inverse_stft_window_fn(
    frame_step: Any, forward_window_fn: Callable[..., Tensor] = hann_window, name: str | None = None
) -> Callable[..., Tensor]:
    """The window that makes ``inverse_stft`` invert ``stft`` with ``forward_window_fn``."""

    def inner(frame_length: Any, dtype: Any) -> Tensor:
        with name_scope(name, "inverse_stft_window_fn"):
            step = _static_int(convert_to_tensor(frame_step), "frame_step")
            length = _static_int(convert_to_tensor(frame_length), "frame_length")
            forward = forward_window_fn(length, dtype=dtype)
            denom = square(forward)
            overlaps = -(-length // step)
            denom = pad(denom, [(0, overlaps * step - length)])
            denom = shapes.reshape(denom, [overlaps, step])
            denom = reduce_sum(denom, 0, keepdims=True)
            denom = array.tile(denom, [overlaps, 1])
            denom = shapes.reshape(denom, [overlaps * step])[:length]
            return where(equal(denom, 0.0), zeros_like(forward), forward / denom)

    return inner


def inverse_stft(
    stfts: Any,
    frame_length: Any,
    frame_step: Any,
    fft_length: Any = None,
    window_fn: WindowFn = hann_window,
    name: str | None = None,
) -> Tensor:
    """Frames ``irfft`` of ``stfts``, windowed and overlap-added (TF's inverse_stft)."""
    with name_scope(name, "inverse_stft"):
        s = convert_to_tensor(stfts)
        if s.shape.rank is not None and s.shape.rank < 2:
            raise ValueError(f"Shape {s.shape} must have rank at least 2")
        length_t = convert_to_tensor(frame_length)
        length = _static_int(length_t, "frame_length")
        n = (
            _enclosing_power_of_two(length_t)
            if fft_length is None
            else convert_to_tensor(fft_length)
        )
        frames = irfft(s, joining.stack([n]))
        have = int(frames.shape.dims[-1])  # type: ignore[index,arg-type]
        if have > length:
            frames = frames[..., :length]
        elif have < length:
            rank = len(frames.shape.dims or [])
            frames = pad(frames, [[0, 0]] * (rank - 1) + [[0, length - have]])
        if window_fn is not None:
            frames = frames * window_fn(length_t, dtype=s.dtype.real_dtype)
        return overlap_and_add(frames, frame_step)
