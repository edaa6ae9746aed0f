"""JAX lowerings of TF's shape helpers (EnsureShape, ShapeN, BroadcastArgs, UnravelIndex)
and TruncateMod.  Shapes are static under XLA, so EnsureShape checks when it compiles; the
dims of BroadcastArgs and UnravelIndex must be constants, as XLA's shapes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from symgrad.core import dtypes as dt
from symgrad.ops.array.shape_util import OPS_KERNELS
from symgrad.runtime.xla.host import static

Table = dict[str, Callable[..., Any]]


def _ensure_shape(ctx: Any, op: Any, x: Any) -> Any:
    OPS_KERNELS["EnsureShape"](np.empty(x.shape, np.bool_), shape=op.get_attr("shape"))
    return x


def _shape_n(ctx: Any, op: Any, *xs: Any) -> Any:
    out_type = op.attrs.get("out_type", dt.int32)
    out = tuple(np.array(x.shape, out_type.np) for x in xs)
    return out if len(out) != 1 else out[0]


def _broadcast_args(ctx: Any, op: Any, a: Any, b: Any) -> Any:
    return OPS_KERNELS["BroadcastArgs"](static(op, a, "s0"), static(op, b, "s1"))


def _unravel_index(ctx: Any, op: Any, idx: Any, dims: Any) -> Any:
    d = static(op, dims, "dims")
    OPS_KERNELS["UnravelIndex"](np.zeros(0, d.dtype), d)  # the dims' checks
    strides = np.cumprod([1, *d[:0:-1].tolist()])[::-1].astype(d.dtype)
    shape = (-1, *[1] * jnp.ndim(idx))
    q = jax.lax.div(idx[None], jnp.asarray(strides).reshape(shape))  # truncating, as C++
    return jax.lax.rem(q, jnp.asarray(d).reshape(shape))


def table() -> Table:
    return {
        "EnsureShape": _ensure_shape,
        "ShapeN": _shape_n,
        "BroadcastArgs": _broadcast_args,
        "UnravelIndex": _unravel_index,
        "TruncateMod": lambda ctx, op, x, y: jnp.fmod(x, y),  # C's fmod and %
    }
