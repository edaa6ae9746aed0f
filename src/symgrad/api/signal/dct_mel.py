"""``dct``/``idct`` (types I-IV, norm None or 'ortho') and ``linear_to_mel_weight_matrix``,
written as TF's dct_ops and mel_ops write them (the DCT through ``rfft``/``irfft``)."""

from __future__ import annotations

import math as _math
from typing import Any

from symgrad.api.array_ops import linspace
from symgrad.api.signal.shape_ops import frame
from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.ops.array import joining
from symgrad.ops.array import shape as shapes
from symgrad.ops.array import structure as array
from symgrad.ops.array.slicing import pad
from symgrad.ops.cast_select import cast
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math.complex import complex, real
from symgrad.ops.math.elementwise import exp, log, maximum, minimum, rsqrt, sqrt
from symgrad.ops.signal.fft import irfft, rfft


def _validate(x: Tensor, dct_type: int, n: Any, axis: int, norm: Any) -> None:
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        last = (x.shape.dims or [None])[-1] if x.shape.rank else None
        if last is not None and last < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _weights(first: Tensor, factor: float, n: int) -> Tensor:
    return pad(shapes.expand_dims(first, 0), [[0, n - 1]], constant_values=first * factor)


def _dct(x: Tensor, kind: int, n: Any, norm: Any) -> Tensor:
    zero = convert_to_tensor(0.0, x.dtype)
    seq_len = int(x.shape.dims[-1])  # type: ignore[index,arg-type]
    if n is not None:
        if n <= seq_len:
            x = x[..., 0:n]
        else:
            rank = len(x.shape.dims or [])
            x = pad(x, [[0, 0]] * (rank - 1) + [[0, n - seq_len]])
    size = int(x.shape.dims[-1])  # type: ignore[index,arg-type]
    size_f = cast(size, x.dtype)
    if kind == 1:
        return real(rfft(joining.concat([x, x[..., -2:0:-1]], -1)))
    if kind == 2:
        arg = -array.range(size_f) * _math.pi * 0.5 / size_f
        scale = 2.0 * exp(complex(zero, arg))
        out = real(rfft(x, fft_length=[2 * size])[..., :size] * scale)
        if norm == "ortho":
            out = out * _weights(0.5 * rsqrt(size_f), _math.sqrt(2.0), size)
        return out
    if kind == 3:
        weights = _weights(sqrt(size_f), _math.sqrt(0.5), size) if norm == "ortho" else size_f
        x = x * weights
        scale = 2.0 * exp(complex(zero, array.range(size_f) * _math.pi * 0.5 / size_f))
        return real(irfft(scale * complex(x, zero), fft_length=[2 * size]))[..., :size]
    out = _dct(x, 2, 2 * size, None)[..., 1::2]
    if norm == "ortho":
        out = out * (_math.sqrt(0.5) * rsqrt(size_f))
    return out


def dct(
    input: Any,
    type: int = 2,
    n: Any = None,
    axis: int = -1,
    norm: Any = None,
    name: str | None = None,
) -> Tensor:
    """The discrete cosine transform of ``input``'s last axis (scipy.fftpack.dct's)."""
    x = convert_to_tensor(input)
    _validate(x, type, n, axis, norm)
    with name_scope(name, "dct"):
        return _dct(x, type, n, norm)


def idct(
    input: Any,
    type: int = 2,
    n: Any = None,
    axis: int = -1,
    norm: Any = None,
    name: str | None = None,
) -> Tensor:
    """The inverse DCT: ``dct`` of the inverse type (with ``norm='ortho'`` an inverse)."""
    x = convert_to_tensor(input)
    _validate(x, type, n, axis, norm)
    with name_scope(name, "dct"):
        return _dct(x, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm)


_BREAK_HZ, _HIGH_Q = 700.0, 1127.0


def _hertz_to_mel(hz: Tensor) -> Tensor:
    return _HIGH_Q * log(1.0 + hz / _BREAK_HZ)


def linear_to_mel_weight_matrix(
    num_mel_bins: int = 20,
    num_spectrogram_bins: int = 129,
    sample_rate: Any = 8000,
    lower_edge_hertz: float = 125.0,
    upper_edge_hertz: float = 3800.0,
    dtype: Any = dt.float32,
    name: str | None = None,
) -> Tensor:
    """``[num_spectrogram_bins, num_mel_bins]`` triangular weights taking a linear
    spectrogram to the mel scale (HTK's formula, TF's construction)."""
    d = dt.as_dtype(dtype)
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(
            f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz {upper_edge_hertz:.1f}"
        )
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if upper_edge_hertz > sample_rate / 2:
        raise ValueError(
            "upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
            f"Got {upper_edge_hertz} for sample_rate: {sample_rate}"
        )
    if not d.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {d!r}")
    with name_scope(name, "linear_to_mel_weight_matrix") as scope:
        rate = cast(sample_rate, d)
        lower = convert_to_tensor(lower_edge_hertz, d)
        upper = convert_to_tensor(upper_edge_hertz, d)
        zero = convert_to_tensor(0.0, d)
        linear = linspace(zero, rate / 2.0, num_spectrogram_bins)[1:]
        bins_mel = shapes.expand_dims(_hertz_to_mel(linear), 1)
        edges = frame(linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2), 3, 1)
        lo, center, hi = (
            shapes.reshape(t, [1, num_mel_bins]) for t in joining.split(edges, 3, axis=1)
        )
        lower_slopes = (bins_mel - lo) / (center - lo)
        upper_slopes = (hi - bins_mel) / (hi - center)
        weights = maximum(zero, minimum(lower_slopes, upper_slopes))
        return pad(weights, [[1, 0], [0, 0]], name=scope)
