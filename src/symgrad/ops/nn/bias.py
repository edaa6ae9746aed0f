"""BiasAdd and BiasAddGrad, tf.nn.bias_add and xw_plus_b.

``BiasAdd`` adds a vector along the channel axis: the last one (``NHWC``, any ``N...C``)
or axis 1 (``NCHW``, any ``NC...``).  Its gradient for the bias is an op of its own, as in
TF (``BiasAddGrad``: sum over every other axis), whose gradient tiles back (TF's rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call, NotVectorizable, const
from symgrad.core.cases import Case, randn
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor, name_scope
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import kernel
from symgrad.ops.core import NUMERIC, check_dtype, convert_to_tensor, same_dtype
from symgrad.ops.linalg.matmul import matmul
from symgrad.ops.math import elementwise as math
from symgrad.ops.reduction import reduce as reduction


def _channel(rank: int, data_format: str) -> int:
    return 1 if data_format == "NCHW" else rank - 1


def _bias_shape(rank: int, data_format: str) -> list[int]:
    """Where the bias broadcasts: [-1] at the channel axis, 1 elsewhere."""
    shape = [1] * rank
    shape[_channel(rank, data_format)] = -1
    return shape


def _bias_add_kernel(x: np.ndarray, b: np.ndarray, *, data_format: str = "NHWC") -> np.ndarray:
    return x + (b if data_format != "NCHW" else b.reshape(_bias_shape(x.ndim, data_format)))


def _bias_add_grad_kernel(g: np.ndarray, *, data_format: str = "NHWC") -> np.ndarray:
    ch = _channel(g.ndim, data_format)
    return np.asarray(g.sum(axis=tuple(i for i in range(g.ndim) if i != ch)), g.dtype)


def _check_format(data_format: str) -> None:
    if data_format not in ("NHWC", "NCHW"):
        raise ShapeError(f"Invalid data format: {data_format!r} (expected NHWC or NCHW)")


def _bias_add_infer(inputs: Sequence[Tensor], *, data_format: str = "NHWC") -> Spec:
    x, b = inputs
    d = same_dtype(inputs, ("value", "bias"))
    check_dtype("BiasAdd", x, NUMERIC, "value")
    _check_format(data_format)
    if x.shape.rank is not None and x.shape.rank < 2:
        raise ShapeError(f"Input tensor must be at least 2D: {x.shape}")
    if b.shape.rank not in (None, 1):
        raise ShapeError(f"Biases must be 1D: {b.shape}")
    if x.shape.rank is None or b.shape.rank is None:
        return x.shape, d
    ch = _channel(x.shape.rank, data_format)
    c, n = x.shape[ch], b.shape[0]
    if c is not None and n is not None and c != n:
        raise ShapeError(
            "Must provide as many biases as the channel dimension of the input "
            f"tensor: {b.shape} vs. {x.shape}"
        )
    dims = list(x.shape.dims)  # type: ignore[arg-type]
    dims[ch] = c if c is not None else n
    return TensorShape(dims), d


def _bias_add_grad_infer(inputs: Sequence[Tensor], *, data_format: str = "NHWC") -> Spec:
    g = inputs[0]
    check_dtype("BiasAddGrad", g, NUMERIC, "out_backprop")
    _check_format(data_format)
    if g.shape.rank is None:
        return TensorShape([None]), g.dtype
    if g.shape.rank < 2:
        raise ShapeError(f"Input tensor must be at least 2D: {g.shape}")
    return TensorShape([g.shape[_channel(g.shape.rank, data_format)]]), g.dtype


def _ref(x: np.ndarray, b: np.ndarray, fmt: str = "NHWC") -> np.ndarray:
    return x + b.reshape(_bias_shape(x.ndim, fmt))


BIAS_ADD = register_op(
    "BiasAdd",
    _bias_add_infer,
    _bias_add_kernel,
    cases=[
        Case([randn(2, 3, 4), randn(4)], _ref),
        Case(
            [randn(2, 3, 4, 2), randn(3)],
            lambda x, b: _ref(x, b, "NCHW"),
            attrs={"data_format": "NCHW"},
            name="nchw",
        ),
    ],
)
BIAS_ADD_GRAD = register_op(
    "BiasAddGrad",
    _bias_add_grad_infer,
    _bias_add_grad_kernel,
    cases=[
        Case([randn(2, 3, 4)], lambda g: g.sum((0, 1))),
        Case(
            [randn(2, 3, 4, 2)],
            lambda g: g.sum((0, 2, 3)),
            attrs={"data_format": "NCHW"},
            name="nchw",
        ),
    ],
)


@BIAS_ADD.gradient
def _bias_add_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
    """d value = g; d bias = BiasAddGrad(g): g summed over every axis but the channel's."""
    return grad, apply_op1("BiasAddGrad", [grad], op.attrs)


@array_rule("BiasAdd")
def _bias_add_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    g = grads[0]
    return [g if needs[0] else None, _BIAS_ADD_GRAD(g, **attrs) if needs[1] else None]


_BIAS_ADD_GRAD = kernel("BiasAddGrad")


@BIAS_ADD_GRAD.gradient
def _bias_add_grad_grad(op: Any, grad: Tensor) -> Tensor:
    """d out_backprop = grad reshaped to broadcast along the channel axis and tiled (TF)."""
    g = op.inputs[0]
    rank = g.shape.rank
    if rank is None:
        raise ValueError("BiasAddGrad's gradient needs out_backprop of known rank")
    fmt = op.attrs.get("data_format", "NHWC")
    shape = array.shape(g)
    ch = _channel(rank, fmt)
    expanded = array.reshape(grad, _bias_shape(rank, fmt))
    multiples = shape * const([0 if i == ch else 1 for i in range(rank)], shape.dtype) + const(
        [1 if i == ch else 0 for i in range(rank)], shape.dtype
    )
    return array.tile(expanded, multiples)


@BIAS_ADD.batching
def _bias_add_batch(c: Call) -> list[Tensor]:
    """Batched value only: the examples are more rows of the batch; a batched bias is
    added with a broadcasting AddV2 (one bias per example)."""
    rank, fmt = c.rank(0), c.op.attrs.get("data_format", "NHWC")
    if not c.batched[1]:
        dims = c.dims(0)
        y = c.apply([array.reshape(c.xs[0], [c.k * dims[0]] + dims[1:]), c.xs[1]])[0]
        return [array.reshape(y, [c.k] + dims)]
    shape = [c.k] + [1] * rank
    shape[1 + _channel(rank, fmt)] = -1
    return [math.add(c.aligned(0, rank), array.reshape(c.xs[1], shape))]


@BIAS_ADD_GRAD.batching
def _bias_add_grad_batch(c: Call) -> list[Tensor]:
    """Each example's sum over its axes but the channel's."""
    if not c.batched[0]:
        raise NotVectorizable(c.op, "no batched input")
    rank = c.rank(0)
    ch = 1 + _channel(rank, c.op.attrs.get("data_format", "NHWC"))
    return [reduction.reduce_sum(c.xs[0], [i for i in range(1, rank + 1) if i != ch])]


def bias_add(
    value: Any, bias: Any, data_format: str | None = None, name: str | None = None
) -> Tensor:
    """value + bias along the channel axis (op type ``BiasAdd``)."""
    with name_scope(name, "BiasAdd"):
        attrs = {}
        if data_format is not None:
            if data_format.startswith("NC"):
                attrs["data_format"] = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                attrs["data_format"] = "NHWC"
            else:
                raise ValueError(
                    "`data_format` must be of the form `N...C` or `NC...`. "
                    f"Received: data_format={data_format}"
                )
        x = convert_to_tensor(value)
        b = convert_to_tensor(bias, dtype_hint=x.dtype)
        return apply_op1("BiasAdd", [x, b], attrs or {"data_format": "NHWC"})


def xw_plus_b(x: Any, weights: Any, biases: Any, name: str | None = None) -> Tensor:
    """matmul(x, weights) + biases (``MatMul`` then ``BiasAdd``, as TF1's xw_plus_b)."""
    with name_scope(name, "xw_plus_b"):
        x = convert_to_tensor(x)
        mm = matmul(x, convert_to_tensor(weights, dtype_hint=x.dtype))
        return bias_add(mm, convert_to_tensor(biases, dtype_hint=x.dtype))
