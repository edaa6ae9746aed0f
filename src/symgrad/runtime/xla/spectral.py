"""JAX lowerings of the FFT ops (``jax.numpy.fft``), Roll, LowerBound/UpperBound and
HistogramFixedWidth; lengths, shifts, axes and bin counts must be constants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from symgrad.runtime.xla.host import static

Table = dict[str, Callable[..., Any]]
_SUFFIX = {1: "", 2: "2D", 3: "3D"}


def _complex(fn: Callable[..., Any], rank: int) -> Callable[..., Any]:
    return lambda ctx, op, x: fn(x, axes=tuple(range(-rank, 0))).astype(x.dtype)


def _real(fn: Callable[..., Any], rank: int, out: Callable[[Any], Any]) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, x: Any, n: Any) -> Any:
        s = [int(v) for v in np.ravel(static(op, n, "fft_length"))]
        return fn(x, s=s, axes=tuple(range(-rank, 0))).astype(out(x.dtype))

    return lower


def _to_complex(d: Any) -> Any:
    return jnp.complex128 if d == jnp.float64 else jnp.complex64


def _to_real(d: Any) -> Any:
    return jnp.float64 if d == jnp.complex128 else jnp.float32


def _roll(ctx: Any, op: Any, x: Any, shift: Any, axis: Any) -> Any:
    s = [int(v) for v in np.ravel(static(op, shift, "shift"))]
    a = [int(v) % x.ndim for v in np.ravel(static(op, axis, "axis"))]
    return jnp.roll(x, s, a)


def _bound(side: str) -> Callable[..., Any]:
    def lower(ctx: Any, op: Any, seq: Any, values: Any) -> Any:
        out = op.attrs.get("out_type")
        rows = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(seq, values)
        return rows.astype(out.np)

    return lower


def _histogram(ctx: Any, op: Any, values: Any, value_range: Any, nbins: Any) -> Any:
    n = int(static(op, nbins, "nbins"))
    lo, hi = value_range[0], value_range[1]
    # TF divides in double; under XLA the widest float the values' dtype allows
    wide = jnp.promote_types(values.dtype, jnp.float32)
    step = (hi.astype(wide) - lo.astype(wide)) / n
    shifted = (jnp.maximum(values, lo) - lo).astype(wide)
    bins = jnp.minimum(shifted / step, n - 1).astype(jnp.int32).ravel()
    return jnp.bincount(bins, length=n).astype(op.attrs["dtype"].np)


def table() -> Table:
    out: Table = {
        "Roll": _roll,
        "LowerBound": _bound("left"),
        "UpperBound": _bound("right"),
        "HistogramFixedWidth": _histogram,
    }
    for rank, s in _SUFFIX.items():
        out[f"FFT{s}"] = _complex(jnp.fft.fftn, rank)
        out[f"IFFT{s}"] = _complex(jnp.fft.ifftn, rank)
        out[f"RFFT{s}"] = _real(jnp.fft.rfftn, rank, _to_complex)
        out[f"IRFFT{s}"] = _real(jnp.fft.irfftn, rank, _to_real)
    return out
