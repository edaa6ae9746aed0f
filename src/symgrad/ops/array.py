"""Shapes and structure: Shape, Reshape, Cast, Fill, ZerosLike, SelectV2, Transpose, ...

Attribute-like inputs (a reshape's shape, a transpose's perm) are tensor inputs, as in
TensorFlow, so ``op.inputs`` matches what TF users expect; their gradients are None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as dt
from ..gradient_registry import RegisterGradient, no_gradient
from ..graph import Tensor
from ..op_registry import ShapeError, Spec, apply_op, constant_value, register_op
from ..shapes import TensorShape, as_shape, broadcast_shapes
from .core import (
    ALL, FLOAT_COMPLEX, INTS, broadcast_infer, check_dtype, constant, convert_n,
    convert_to_tensor, normalize_axis, same_dtype, static_ints, unbroadcast,
)

_INDEX = (dt.int32, dt.int64)


def _int_tensor(value: Any, what: str) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=dt.int32)
    if t.dtype not in _INDEX:
        raise TypeError(f"{what} must be int32 or int64, got {t.dtype.name}")
    return t


# --------------------------------------------------------------------------------------
# Shape, Size, Rank


def _shape_infer(inputs: Sequence[Tensor], *, out_type: dt.DType = dt.int32) -> Spec:
    return TensorShape([inputs[0].shape.rank]), out_type


register_op("Shape", _shape_infer, lambda x, *, out_type=dt.int32: np.array(x.shape, out_type.np))
register_op("Size", lambda i, *, out_type=dt.int32: (TensorShape([]), out_type),
            lambda x, *, out_type=dt.int32: np.array(x.size, out_type.np))
register_op("Rank", lambda i: (TensorShape([]), dt.int32), lambda x: np.array(x.ndim, np.int32))
for _t in ("Shape", "Size", "Rank"):
    no_gradient(_t)


def shape(input: Any, out_type: Any = dt.int32, name: str | None = None) -> Tensor:
    """The shape of ``input`` as a 1-D int tensor (a constant when statically known)."""
    t = convert_to_tensor(input)
    if t.shape.is_fully_defined() and not t.graph.eager:
        return constant(t.shape.as_list(), dt.as_dtype(out_type), name=name or "Shape")
    return apply_op("Shape", [t], {"out_type": dt.as_dtype(out_type)}, name)._output(0)


def size(input: Any, out_type: Any = dt.int32, name: str | None = None) -> Tensor:
    t = convert_to_tensor(input)
    return apply_op("Size", [t], {"out_type": dt.as_dtype(out_type)}, name)._output(0)


def rank(input: Any, name: str | None = None) -> Tensor:
    return apply_op("Rank", [convert_to_tensor(input)], name=name)._output(0)


# --------------------------------------------------------------------------------------
# Reshape, ExpandDims, Squeeze


def _reshape_target(known: list[int], in_shape: TensorShape) -> TensorShape:
    if known.count(-1) > 1:
        raise ShapeError(f"only one dimension of the new shape may be -1, got {known}")
    n = in_shape.num_elements()
    if -1 in known:
        rest = int(np.prod([d for d in known if d != -1]))
        if n is None:
            return TensorShape([None if d == -1 else d for d in known])
        if rest == 0 or n % rest:
            raise ShapeError(f"Cannot reshape a tensor with {n} elements to shape {known}")
        return TensorShape([n // rest if d == -1 else d for d in known])
    if n is not None and n != int(np.prod(known)):
        raise ShapeError(f"Cannot reshape a tensor with {n} elements to shape {known} "
                         f"({int(np.prod(known))} elements)")
    return TensorShape(known)


def _reshape_infer(inputs: Sequence[Tensor]) -> Spec:
    x, s = inputs
    check_dtype("Reshape", s, _INDEX, "shape")
    known = static_ints(s, "shape")
    if known is None:
        n = s.shape[0] if s.shape.rank == 1 else None
        return TensorShape(None if n is None else [None] * n), x.dtype
    return _reshape_target(known, x.shape), x.dtype


register_op("Reshape", _reshape_infer, lambda x, s: np.reshape(x, s))


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """``tensor`` with a new shape of the same number of elements; one -1 is inferred."""
    return apply_op("Reshape", [convert_to_tensor(tensor), _int_tensor(shape, "shape")],
                    name=name)._output(0)


@RegisterGradient("Reshape")
def _reshape_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = reshape(g, shape(x))."""
    x = op.inputs[0]
    return _reshape_like(grad, x), None


def _reshape_like(grad: Tensor, x: Tensor) -> Tensor:
    if x.shape.is_fully_defined():
        return grad if grad.shape.dims == x.shape.dims else reshape(grad, x.shape.as_list())
    return reshape(grad, shape(x))


def _expand_dims_infer(inputs: Sequence[Tensor]) -> Spec:
    x, a = inputs
    axis = static_ints(a, "axis")
    if axis is None or x.shape.dims is None:
        return TensorShape(None), x.dtype
    if len(axis) != 1:
        raise ShapeError(f"axis must be a scalar, got {axis}")
    dims = list(x.shape.dims)
    i = normalize_axis(axis[0], len(dims) + 1)
    return TensorShape(dims[:i] + [1] + dims[i:]), x.dtype


register_op("ExpandDims", _expand_dims_infer, lambda x, a: np.expand_dims(x, int(a)))


def expand_dims(input: Any, axis: int, name: str | None = None) -> Tensor:
    """Insert a dimension of size 1 at ``axis`` (negative counts from the end)."""
    return apply_op("ExpandDims", [convert_to_tensor(input), _int_tensor(axis, "axis")],
                    name=name)._output(0)


@RegisterGradient("ExpandDims")
def _expand_dims_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = reshape(g, shape(x))."""
    return _reshape_like(grad, op.inputs[0]), None


def _squeeze_infer(inputs: Sequence[Tensor], *, squeeze_dims: tuple[int, ...] = ()) -> Spec:
    x = inputs[0]
    if x.shape.dims is None:
        return TensorShape(None), x.dtype
    dims = list(x.shape.dims)
    if not squeeze_dims:
        return TensorShape([d for d in dims if d != 1]), x.dtype
    axes = {normalize_axis(a, len(dims)) for a in squeeze_dims}
    for a in axes:
        if dims[a] not in (1, None):
            raise ShapeError(f"Can not squeeze dim[{a}], expected a dimension of 1, "
                             f"got {dims[a]} (input shape {x.shape})")
    return TensorShape([d for i, d in enumerate(dims) if i not in axes]), x.dtype


def _squeeze_kernel(x: np.ndarray, *, squeeze_dims: tuple[int, ...] = ()) -> np.ndarray:
    return np.squeeze(x, axis=tuple(squeeze_dims) if squeeze_dims else None)


register_op("Squeeze", _squeeze_infer, _squeeze_kernel)


def squeeze(input: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """Remove dimensions of size 1 (all of them, or those in ``axis``)."""
    axes = () if axis is None else tuple([axis] if isinstance(axis, int) else axis)
    return apply_op("Squeeze", [convert_to_tensor(input)], {"squeeze_dims": axes},
                    name)._output(0)


@RegisterGradient("Squeeze")
def _squeeze_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = reshape(g, shape(x))."""
    return _reshape_like(grad, op.inputs[0])


# --------------------------------------------------------------------------------------
# Transpose


def _transpose_infer(inputs: Sequence[Tensor]) -> Spec:
    x, p = inputs
    perm = static_ints(p, "perm")
    if perm is None or x.shape.dims is None:
        return TensorShape(None if x.shape.dims is None else [None] * len(x.shape.dims)), x.dtype
    dims = x.shape.dims
    if sorted(perm) != list(range(len(dims))):
        raise ShapeError(f"perm {perm} is not a permutation of 0..{len(dims) - 1} for a tensor "
                         f"of shape {x.shape}")
    return TensorShape([dims[i] for i in perm]), x.dtype


register_op("Transpose", _transpose_infer, lambda x, p: np.transpose(x, p))


def transpose(a: Any, perm: Any = None, conjugate: bool = False, name: str | None = None) -> Tensor:
    """Permute axes (default: reverse them)."""
    from .complex import conj

    x = convert_to_tensor(a)
    if perm is None:
        if x.shape.rank is None:
            raise ValueError("transpose needs perm= for a tensor of unknown rank")
        perm = list(range(x.shape.rank))[::-1]
    out = apply_op("Transpose", [x, _int_tensor(perm, "perm")], name=name)._output(0)
    return conj(out) if conjugate else out


@RegisterGradient("Transpose")
def _transpose_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = transpose(g, inverse(perm))."""
    perm = static_ints(op.inputs[1], "perm")
    if perm is None:
        raise NotImplementedError("Transpose gradient needs a static perm")
    return transpose(grad, list(np.argsort(perm))), None


# --------------------------------------------------------------------------------------
# Cast


def _cast_infer(inputs: Sequence[Tensor], *, SrcT: dt.DType, DstT: dt.DType) -> Spec:
    return inputs[0].shape, DstT


def _cast_kernel(x: np.ndarray, *, SrcT: dt.DType, DstT: dt.DType) -> np.ndarray:
    if x.dtype.kind == "c" and DstT.np.kind != "c":
        x = x.real  # TF keeps the real part
    return x.astype(DstT.np)


register_op("Cast", _cast_infer, _cast_kernel)


def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Convert ``x`` to ``dtype`` (complex -> real keeps the real part, as TF)."""
    t = convert_to_tensor(x)
    d = dt.as_dtype(dtype)
    if t.dtype is d:
        return t
    return apply_op("Cast", [t], {"SrcT": t.dtype, "DstT": d}, name)._output(0)


@RegisterGradient("Cast")
def _cast_grad(op: Any, grad: Tensor) -> Tensor | None:
    """cast(g, source dtype) between float/complex types; None otherwise (int cuts the path)."""
    src, dst = op.get_attr("SrcT"), op.get_attr("DstT")
    if src in FLOAT_COMPLEX and dst in FLOAT_COMPLEX:
        return cast(grad, src)
    return None


# --------------------------------------------------------------------------------------
# Fill, zeros, ones, ZerosLike, OnesLike


def _fill_infer(inputs: Sequence[Tensor]) -> Spec:
    dims, value = inputs
    check_dtype("Fill", dims, _INDEX, "dims")
    if value.shape.rank not in (0, None):
        raise ShapeError(f"value must be a scalar, got shape {value.shape}")
    known = static_ints(dims, "dims")
    if known is not None and any(d < 0 for d in known):
        raise ShapeError(f"dims must be non-negative, got {known}")
    return TensorShape(known) if known is not None else TensorShape(None), value.dtype


register_op("Fill", _fill_infer, lambda d, v: np.full(tuple(d), v, dtype=v.dtype))


def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    return apply_op("Fill", [_int_tensor(dims, "dims"), convert_to_tensor(value)],
                    name=name)._output(0)


@RegisterGradient("Fill")
def _fill_grad(op: Any, grad: Tensor) -> tuple[None, Tensor]:
    """dvalue = sum(g)."""
    from .reduction import reduce_sum

    return None, reduce_sum(grad)


def zeros(shape: Any, dtype: Any = dt.float32, name: str | None = None) -> Tensor:
    d = dt.as_dtype(dtype)
    if isinstance(shape, Tensor) and constant_value(shape) is None:
        return fill(shape, constant(0, d), name=name)
    return constant(np.zeros(as_shape(_static(shape)).as_list(), d.np), name=name or "zeros")


def ones(shape: Any, dtype: Any = dt.float32, name: str | None = None) -> Tensor:
    d = dt.as_dtype(dtype)
    if isinstance(shape, Tensor) and constant_value(shape) is None:
        return fill(shape, constant(1, d), name=name)
    return constant(np.ones(as_shape(_static(shape)).as_list(), d.np), name=name or "ones")


def _static(shape: Any) -> Any:
    if isinstance(shape, Tensor):
        return [int(i) for i in constant_value(shape)]  # type: ignore[union-attr]
    return [shape] if isinstance(shape, int | np.integer) else shape


register_op("ZerosLike", lambda i: (i[0].shape, i[0].dtype), np.zeros_like)
register_op("OnesLike", lambda i: (i[0].shape, i[0].dtype), np.ones_like)
no_gradient("ZerosLike")
no_gradient("OnesLike")


def zeros_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """Zeros with ``input``'s shape (and dtype unless given)."""
    t = convert_to_tensor(input)
    d = dt.as_dtype(dtype) if dtype is not None else t.dtype
    if t.shape.is_fully_defined() and not t.graph.eager:
        return constant(np.zeros(t.shape.as_list(), d.np), name=name or "zeros_like")
    out = apply_op("ZerosLike", [t], name=name)._output(0)
    return cast(out, d) if d is not t.dtype else out


def ones_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """Ones with ``input``'s shape (and dtype unless given)."""
    t = convert_to_tensor(input)
    d = dt.as_dtype(dtype) if dtype is not None else t.dtype
    if t.shape.is_fully_defined() and not t.graph.eager:
        return constant(np.ones(t.shape.as_list(), d.np), name=name or "ones_like")
    out = apply_op("OnesLike", [t], name=name)._output(0)
    return cast(out, d) if d is not t.dtype else out


# --------------------------------------------------------------------------------------
# SelectV2 (tf.where with three arguments)


def _select_infer(inputs: Sequence[Tensor]) -> Spec:
    c, x, y = inputs
    check_dtype("SelectV2", c, (dt.bool_,), "condition")
    d = same_dtype([x, y], ("x", "y"))
    check_dtype("SelectV2", x, ALL, "x")
    return broadcast_infer("SelectV2", inputs), d


register_op("SelectV2", _select_infer, lambda c, x, y: np.where(c, x, y))


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Elementwise ``x if condition else y`` with broadcasting (op type ``SelectV2``)."""
    if x is None and y is None:
        return _where_indices(condition, name)
    if x is None or y is None:
        raise ValueError("x and y must both be given, or neither")
    c = convert_to_tensor(condition)
    a, b = convert_n((x, y))
    return apply_op("SelectV2", [c, a, b], name=name)._output(0)


@RegisterGradient("SelectV2")
def _select_grad(op: Any, grad: Tensor) -> tuple[None, Tensor, Tensor]:
    """(None, where(c, g, 0), where(c, 0, g)), each un-broadcast to its input."""
    c, x, y = op.inputs
    z = zeros_like(grad)
    return (None, unbroadcast(where(c, grad, z), x), unbroadcast(where(c, z, grad), y))


register_op("Where", lambda i: (TensorShape([None, i[0].shape.rank]), dt.int64),
            lambda c: np.argwhere(c).astype(np.int64))
no_gradient("Where")


def _where_indices(condition: Any, name: str | None) -> Tensor:
    return apply_op("Where", [convert_to_tensor(condition)], name=name)._output(0)


__all__ = ["INTS", "broadcast_shapes", "same_dtype"]
