"""Reductions: Sum, Mean (Max, Min, Prod, Any, All, ArgMax, ArgMin join here).

Each reduction takes its axes as a second, integer input (as TF records it) and a
``keep_dims`` attr.  Gradients reshape ``g`` to the kept-dims shape and broadcast back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as dt
from ..gradient_registry import RegisterGradient
from ..graph import Tensor
from ..op_registry import ShapeError, Spec, apply_op, register_op
from ..shapes import TensorShape
from . import array
from .core import NUMERIC, check_dtype, convert_to_tensor, static_ints


def _axes(x: np.ndarray, axis: np.ndarray) -> tuple[int, ...]:
    return tuple(int(a) % x.ndim if x.ndim else 0 for a in np.ravel(axis))


def reduce_infer(op_type: str, allowed: Sequence[dt.DType] = NUMERIC,
                 out_dtype: dt.DType | None = None) -> Any:
    """The shape rule shared by every reduction: drop (or keep as 1) the reduced axes."""
    def infer(inputs: Sequence[Tensor], *, keep_dims: bool = False) -> Spec:
        x, a = inputs
        check_dtype(op_type, x, allowed, "input")
        check_dtype(op_type, a, (dt.int32, dt.int64), "axis")
        d = out_dtype or x.dtype
        axes = static_ints(a, "axis")
        if x.shape.dims is None:
            return TensorShape(None), d
        dims = list(x.shape.dims)
        if axes is None:
            return TensorShape([None] * len(dims) if keep_dims else None), d
        n = len(dims)
        norm = set()
        for ax in axes:
            if not -max(n, 1) <= ax < max(n, 1):
                raise ShapeError(f"Invalid reduction dimension {ax} for input with {n} "
                                 f"dimensions (shape {x.shape})")
            norm.add(ax % n if n else 0)
        if keep_dims:
            return TensorShape([1 if i in norm else s for i, s in enumerate(dims)]), d
        return TensorShape([s for i, s in enumerate(dims) if i not in norm]), d
    return infer


def reduction_kernel(fn: Any) -> Any:
    def kernel(x: np.ndarray, axis: np.ndarray, *, keep_dims: bool = False) -> Any:
        return np.asarray(fn(x, axis=_axes(x, axis), keepdims=keep_dims)).astype(x.dtype,
                                                                                  copy=False)
    return kernel


def axis_tensor(input: Tensor, axis: Any) -> Tensor:
    """``axis=None`` means every axis, as TF; ints and lists become an int32 tensor."""
    if axis is None:
        r = input.shape.rank
        if r is None:
            return array.range(array.rank(input))  # type: ignore[attr-defined,no-any-return]
        axis = list(range(r))
    if isinstance(axis, Tensor):
        return axis
    return convert_to_tensor(np.asarray(axis, dtype=np.int32).reshape(-1)
                             if not isinstance(axis, int) else axis, dt.int32)


def reduce(op_type: str, input: Any, axis: Any, keepdims: bool, name: str | None) -> Tensor:
    x = convert_to_tensor(input)
    return apply_op(op_type, [x, axis_tensor(x, axis)], {"keep_dims": bool(keepdims)},
                    name)._output(0)


register_op("Sum", reduce_infer("Sum"), reduction_kernel(np.sum))
register_op("Mean", reduce_infer("Mean"), reduction_kernel(np.mean))


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Sum over ``axis`` (None: all axes; negative axes count from the end)."""
    return reduce("Sum", input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                name: str | None = None) -> Tensor:
    """Mean over ``axis``; integer tensors use integer division, as TF."""
    return reduce("Mean", input_tensor, axis, keepdims, name)


def kept_dims_shape(x: Tensor, axis: Tensor) -> list[int] | Tensor:
    """x's shape with the reduced axes set to 1 (static when possible)."""
    axes = static_ints(axis, "axis")
    if x.shape.is_fully_defined() and axes is not None:
        dims = x.shape.as_list()
        n = len(dims)
        norm = {a % n for a in axes} if n else set()
        return [1 if i in norm else d for i, d in enumerate(dims)]  # type: ignore[misc]
    return apply_op("ReducedShape", [array.shape(x), axis])._output(0)


def _reduced_shape_kernel(s: np.ndarray, a: np.ndarray) -> np.ndarray:
    out = s.copy()
    if len(s):
        out[np.asarray(a, dtype=np.int64).reshape(-1) % len(s)] = 1
    return out


register_op("ReducedShape", lambda i: (TensorShape([i[0].shape[0]]), i[0].dtype),
            _reduced_shape_kernel)


def broadcast_to_input(op: Any, grad: Tensor) -> Tensor:
    """g reshaped to the kept-dims shape and broadcast to the input's shape."""
    x, axis = op.inputs
    g = array.reshape(grad, kept_dims_shape(x, axis))
    if x.shape.is_fully_defined() and g.shape.dims == x.shape.dims:
        return g
    return g * array.ones_like(x)


@RegisterGradient("Sum")
def _sum_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = broadcast of g over the reduced axes."""
    return broadcast_to_input(op, grad), None


@RegisterGradient("Mean")
def _mean_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = broadcast of g / (number of elements reduced into each output)."""
    x, y = op.inputs[0], op.outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        n_in, n_out = x.shape.num_elements(), y.shape.num_elements()
        factor: Any = np.asarray(n_in // max(n_out, 1) or 1, x.dtype.np)  # type: ignore[operator]
    else:
        from .math import maximum

        factor = array.cast(array.size(x), x.dtype) / array.cast(
            maximum(array.size(y), 1), x.dtype)
    return broadcast_to_input(op, grad) / factor, None
