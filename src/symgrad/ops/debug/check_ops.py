"""TF's small helpers over existing ops: ``saturate_cast``, ``realdiv``,
``math.is_non_decreasing``/``is_strictly_increasing``, ``math.polyval`` and
``math.accumulate_n``.

Each is what TF's Python builds (check_ops.py, math_ops.py), so values,
gradients and errors are TF's; no new op types.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.ops.array import structure as array
from symgrad.ops.array.slicing import strided_slice
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math import complex as complex_ops
from symgrad.ops.math import elementwise as math
from symgrad.ops.math.add_n import add_n
from symgrad.ops.math.elementwise import divide as _divide
from symgrad.ops.reduction.reduce import reduce_all

__all__ = [
    "accumulate_n",
    "is_non_decreasing",
    "is_strictly_increasing",
    "polyval",
    "realdiv",
    "saturate_cast",
]


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """``value`` cast to ``dtype``, clamped first to the range both dtypes hold."""
    with name_scope(name, "saturate_cast") as scope:
        x = convert_to_tensor(value, name="value")
        out = dt.as_dtype(dtype)
        if x.dtype.is_complex:
            if out.is_complex:
                return _clamped_complex(x, out, scope)
            x = complex_ops.real(x)
        in_np = x.dtype.np
        lo = in_np.type(np.maximum(x.dtype.min, out.real_dtype.min))
        if np.array([lo, out.real_dtype.min], _promoted(in_np, out))[0] < out.real_dtype.min:
            lo = np.nextafter(lo, in_np.type(0), dtype=in_np)
        hi = in_np.type(np.minimum(float(x.dtype.max), float(out.real_dtype.max)))
        if np.array([hi, out.real_dtype.max], _promoted(in_np, out))[0] > out.real_dtype.max:
            hi = np.nextafter(hi, in_np.type(0), dtype=in_np)
        x = math.maximum(math.minimum(x, convert_to_tensor(hi, x.dtype)), lo)
        return array.cast(x, out, name=scope)


def _promoted(in_np: np.dtype, out: dt.DType) -> Any:
    try:
        return np.promote_types(in_np, out.real_dtype.np)
    except TypeError:
        return float


def _clamped_complex(x: Tensor, out: dt.DType, scope: str) -> Tensor:
    lo, hi = float(out.real_dtype.min), float(out.real_dtype.max)
    r, i = complex_ops.real(x), complex_ops.imag(x)
    if x.dtype.real_dtype.max > hi:
        r = math.maximum(math.minimum(r, hi), lo)
        i = math.maximum(math.minimum(i, hi), lo)
    return array.cast(complex_ops.complex(r, i), out, name=scope)


def realdiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y for real or complex floating tensors (TF's ``RealDiv`` op)."""
    return _divide(x, y, name=name)


def _diff(x: Any) -> Tensor:
    """x flattened, then x[1:] - x[:-1] (empty for fewer than two entries)."""
    t = convert_to_tensor(x, name="x")
    if not (t.dtype.is_integer or t.dtype.is_floating or t.dtype.is_complex):
        raise TypeError(f"Expected x to be numeric, instead found: {t}")
    flat = array.reshape(t, [-1])
    return math.subtract(strided_slice(flat, [1], [0], end_mask=1), strided_slice(flat, [0], [-1]))


def is_non_decreasing(x: Any, name: str | None = None) -> Tensor:
    """True when x's entries (flattened, row-major) never decrease; True for < 2 entries."""
    with name_scope(name, "is_non_decreasing"):
        d = _diff(x)
        return reduce_all(math.less_equal(convert_to_tensor(0, d.dtype), d))


def is_strictly_increasing(x: Any, name: str | None = None) -> Tensor:
    """True when x's entries (flattened, row-major) always increase; True for < 2 entries."""
    with name_scope(name, "is_strictly_increasing"):
        d = _diff(x)
        return reduce_all(math.less(convert_to_tensor(0, d.dtype), d))


def polyval(coeffs: Any, x: Any, name: str | None = None) -> Tensor:
    """coeffs[0]·x^(n-1) + ... + coeffs[n-1], by Horner's rule (zeros for no coeffs)."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with name_scope(name, "polyval") as scope:
        t = convert_to_tensor(x, name="x")
        if not coeffs:
            return array.zeros_like(t, name=scope)
        cs = [convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = cs[0]
        for c in cs[1:]:
            p = c + p * t
        return p


def accumulate_n(
    inputs: Any, shape: Any = None, tensor_dtype: Any = None, name: str | None = None
) -> Tensor:
    """The sum of ``inputs`` (TF 2's ``accumulate_n`` is ``add_n`` after TF's checks)."""
    error = ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise error
    ts = [convert_to_tensor(x) for x in inputs]
    if any(t.dtype != ts[0].dtype for t in ts):
        raise error
    merged = TensorShape(None) if shape is None else as_shape(shape)
    for t in ts:
        merged = merged.merge_with(t.shape)
    if tensor_dtype is not None and dt.as_dtype(tensor_dtype) != ts[0].dtype:
        raise TypeError(
            f"The `tensor_dtype` argument is {dt.as_dtype(tensor_dtype)}, but `input` is of "
            f"type {ts[0].dtype}. These must be equal. Try casting the input to the desired "
            "type."
        )
    return add_n(ts, name=name)
