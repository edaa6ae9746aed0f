"""Shape utilities as ops: EnsureShape, ShapeN, BroadcastArgs, UnravelIndex.

``tf.ensure_shape`` checks a static shape when the graph is built (TF's shape-inference
text) and a value's shape when it runs (TF's kernel text); its gradient is the incoming
one.  ``tf.shape_n``, ``tf.broadcast_dynamic_shape`` and ``tf.unravel_index`` give
integer tensors: not differentiable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, fixed, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op, apply_op1, register_op
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.ops.core import check_dtype, convert_to_tensor

_INT = "its output is an integer tensor: not differentiable"
_INDEX = (dt.int32, dt.int64)


def _dims(shape: TensorShape) -> str:
    """A shape as TF's kernels print it: ``[2,?]``."""
    if shape.dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.dims) + "]"


# --------------------------------------------------------------------------------------
# EnsureShape


def _ensure_infer(inputs: Sequence[Tensor], *, shape: TensorShape) -> Spec:
    x = inputs[0]
    if x.shape.is_compatible_with(shape):
        return x.shape.merge_with(shape), x.dtype
    if x.eager_value is not None:  # TF's eager kernel text
        raise ShapeError(
            f"Shape of tensor input {_dims(x.shape)} is not compatible with "
            f"expected shape {_dims(shape)}."
        )
    if x.shape.rank != shape.rank:
        raise ShapeError(
            f"Shapes must be equal rank, but are {shape.rank} and {x.shape.rank}"
            f" for 'EnsureShape' with input shapes: {_dims(x.shape)}."
        )
    k = next(i for i, (a, b) in enumerate(zip(shape, x.shape)) if None not in (a, b) and a != b)
    raise ShapeError(
        f"Dimension {k} in both shapes must be equal, but are {shape[k]} and {x.shape[k]}. "
        f"Shapes are {_dims(shape)} and {_dims(x.shape)}."
    )


def _ensure_kernel(x: np.ndarray, *, shape: TensorShape) -> np.ndarray:
    if not TensorShape(x.shape).is_compatible_with(shape):
        raise InvalidArgumentError(
            f"Shape of tensor input {_dims(TensorShape(x.shape))} is not compatible with "
            f"expected shape {_dims(shape)}."
        )
    return x


ENSURE_SHAPE = register_op(
    "EnsureShape",
    _ensure_infer,
    _ensure_kernel,
    pass_through=True,
    batch="its check is of one example's shape, a batch has another",
    cases=[
        Case(
            [randn(3, 4)],
            lambda x: x,
            attrs={"shape": TensorShape([None, 4])},
            name="partial",
        )
    ],
)


@ENSURE_SHAPE.gradient
def _ensure_shape_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = g (TF's rule: the check is not repeated on the gradient)."""
    return grad


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Tensor:
    """``x``, checked to have a shape compatible with ``shape`` (None: any)."""
    t = convert_to_tensor(x)
    return apply_op1("EnsureShape", [t], {"shape": as_shape(shape)}, name)


# --------------------------------------------------------------------------------------
# ShapeN


def _shape_n_infer(inputs: Sequence[Tensor], *, out_type: dt.DType = dt.int32) -> list[Spec]:
    if not inputs:
        raise ShapeError("Value for attr 'N' of 0 must be at least minimum 1")
    return [(TensorShape([t.shape.rank]), out_type) for t in inputs]


SHAPE_N = register_op(
    "ShapeN",
    _shape_n_infer,
    lambda *xs, out_type=dt.int32: tuple(np.array(x.shape, out_type.np) for x in xs),
    batch="the shapes of one example's inputs are not a batch",
    cases=[
        Case(
            [randn(2, 3), randn(4)],
            lambda a, b: (np.array([2, 3], np.int32), np.array([4], np.int32)),
            order=0,
            note=_INT,
        )
    ],
)
SHAPE_N.no_gradient()


def shape_n(input: Any, out_type: Any = dt.int32, name: str | None = None) -> list[Tensor]:
    """The shapes of the tensors in ``input``, one 1-D int tensor each."""
    ts = [convert_to_tensor(x) for x in input]
    out = dt.as_dtype(out_type)
    return apply_op("ShapeN", ts, {"out_type": out}, name=name).outputs


# --------------------------------------------------------------------------------------
# BroadcastArgs


def _broadcast_args_infer(inputs: Sequence[Tensor]) -> Spec:
    a, b = inputs
    check_dtype("BroadcastArgs", a, _INDEX, "s0")
    if b.dtype != a.dtype:
        raise TypeError(
            f"Input 'r0' of 'BroadcastArgs' Op has type {b.dtype.name} that does not match "
            f"type {a.dtype.name} of argument 's0'."
        )
    for t in inputs:
        if t.shape.rank not in (None, 1):
            raise ShapeError(f"Shape must be rank 1 but is rank {t.shape.rank}")
    n = [t.shape[0] if t.shape.rank else None for t in inputs]
    known = [int(k) for k in n if k is not None]
    return TensorShape([max(known) if len(known) == 2 else None]), a.dtype


def _broadcast_args_kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    for i, s in enumerate((a, b)):
        if s.ndim != 1:
            raise InvalidArgumentError(f"In[{i}] must be a vector.{_dims(TensorShape(s.shape))}")
    try:
        out = np.broadcast_shapes(tuple(a.tolist()), tuple(b.tolist()))
    except ValueError:
        raise InvalidArgumentError(
            f"Incompatible shapes: {_dims(TensorShape(a.tolist()))} vs. "
            f"{_dims(TensorShape(b.tolist()))}"
        ) from None
    return np.array(out, a.dtype)


BROADCAST_ARGS = register_op(
    "BroadcastArgs",
    _broadcast_args_infer,
    _broadcast_args_kernel,
    batch="its inputs are shapes, not batches of examples",
    cases=[
        Case(
            [fixed(np.array([2, 1, 3], np.int32)), fixed(np.array([4, 1], np.int32))],
            lambda a, b: np.array([2, 4, 3], np.int32),
            order=0,
            note=_INT,
        )
    ],
)
BROADCAST_ARGS.no_gradient()


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Tensor:
    """The shape of ``shape_x`` and ``shape_y`` broadcast together, as a 1-D int tensor."""
    x = convert_to_tensor(shape_x, dtype_hint=dt.int32)
    y = shape_y if isinstance(shape_y, Tensor) else convert_to_tensor(shape_y, dtype=x.dtype)
    return apply_op1("BroadcastArgs", [x, y])


def broadcast_static_shape(shape_x: TensorShape, shape_y: TensorShape) -> TensorShape:
    """The broadcast of two ``TensorShape``s (unknown sizes broadcast optimistically)."""
    from symgrad.core.shapes import broadcast_shapes

    for s in (shape_x, shape_y):
        if not isinstance(s, TensorShape):
            raise AttributeError(f"'{type(s).__name__}' object has no attribute 'ndims'")
    out = broadcast_shapes(shape_x, shape_y)
    if out is None:
        raise ValueError(
            "Incompatible shapes for broadcasting. Two shapes are compatible if for each "
            "dimension pair they are either equal or one of them is 1. "
            f"Received: {shape_x} and {shape_y}."
        )
    return out


# --------------------------------------------------------------------------------------
# UnravelIndex


def _unravel_infer(inputs: Sequence[Tensor]) -> Spec:
    idx, dims = inputs
    check_dtype("UnravelIndex", idx, _INDEX, "indices")
    if dims.dtype != idx.dtype:
        raise TypeError(
            f"Input 'dims' of 'UnravelIndex' Op has type {dims.dtype.name} that does not "
            f"match type {idx.dtype.name} of argument 'indices'."
        )
    if idx.shape.rank not in (None, 0, 1):
        raise ShapeError(f'The indices can only be scalar or vector, got "{_dims(idx.shape)}"')
    if dims.shape.rank not in (None, 1):
        raise ShapeError(f'The indices can only be 1-D, got "{_dims(dims.shape)}"')
    n = dims.shape[0] if dims.shape.rank else None
    if idx.shape.dims is None:
        return TensorShape(None), idx.dtype
    return TensorShape([n, *idx.shape.dims]), idx.dtype


def _unravel_kernel(idx: np.ndarray, dims: np.ndarray) -> np.ndarray:
    for i, d in enumerate(dims.tolist()):
        if d == 0:
            raise InvalidArgumentError(
                f"Input dims cannot contain a dim of zero, but dims contains zero at index {i}"
            )
        if d < 0:
            raise InvalidArgumentError(f"Input dims cannot be negative. Got dim = {d} at index {i}")
    if np.any(idx >= np.prod(dims, dtype=np.int64)):
        raise InvalidArgumentError("index is out of bound as with dims")
    strides = np.cumprod([1, *dims[:0:-1].tolist()])[::-1].reshape((-1,) + (1,) * idx.ndim)
    q = np.fix(idx / strides).astype(idx.dtype)  # C++'s / and %: a negative index stays so
    return np.fmod(q, dims.reshape(strides.shape)).astype(idx.dtype)  # type: ignore[no-any-return]


UNRAVEL_INDEX = register_op(
    "UnravelIndex",
    _unravel_infer,
    _unravel_kernel,
    batch="an integer index op: no jacobian to batch",
    cases=[
        Case(
            [fixed(np.array([0, 5, 11], np.int32)), fixed(np.array([3, 4], np.int32))],
            lambda i, d: np.array([[0, 1, 2], [0, 1, 3]], np.int32),
            order=0,
            note=_INT,
        )
    ],
)
UNRAVEL_INDEX.no_gradient()


def unravel_index(indices: Any, dims: Any, name: str | None = None) -> Tensor:
    """The coordinates of flat ``indices`` in an array of shape ``dims`` (row-major)."""
    i = convert_to_tensor(indices, dtype_hint=dt.int32)
    d = dims if isinstance(dims, Tensor) or i.dtype not in _INDEX else None
    d = convert_to_tensor(dims, dtype=None if d is not None else i.dtype)
    return apply_op1("UnravelIndex", [i, d], name=name)


# The kernels by op type, for the XLA lowerings' compile-time checks.
OPS_KERNELS: dict[str, Callable[..., np.ndarray]] = {
    "EnsureShape": _ensure_kernel,
    "BroadcastArgs": _broadcast_args_kernel,
    "UnravelIndex": _unravel_kernel,
}
