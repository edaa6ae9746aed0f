"""Shapes and structure: Shape, Reshape, Cast, Fill, ZerosLike, SelectV2, Transpose, ...

Attribute-like inputs (a reshape's shape, a transpose's perm) are tensor inputs, as in
TensorFlow, so ``op.inputs`` matches what TF users expect; their gradients are None.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as dt
from ..gradient_registry import RegisterGradient, no_gradient
from ..graph import Tensor, get_default_graph
from ..op_registry import (
    ShapeError,
    Spec,
    apply_op,
    constant_value,
    default_name,
    register_op,
)
from ..shapes import TensorShape, as_shape, broadcast_shapes
from .core import (
    ALL,
    FLOAT_COMPLEX,
    broadcast_infer,
    check_dtype,
    constant,
    convert_n,
    convert_to_tensor,
    normalize_axis,
    same_dtype,
    static_ints,
    unbroadcast,
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
    if sorted(perm) != list(builtins.range(len(dims))):
        raise ShapeError(f"perm {perm} is not a permutation of 0..{len(dims) - 1} for a tensor "
                         f"of shape {x.shape}")
    return TensorShape([dims[i] for i in perm]), x.dtype


register_op("Transpose", _transpose_infer, lambda x, p: np.transpose(x, p))


def transpose(a: Any, perm: Any = None, conjugate: bool = False, name: str | None = None) -> Tensor:
    """Permute axes (default: reverse them)."""
    from .complex import conj

    x = convert_to_tensor(a)
    if perm is None:
        r = x.shape.rank
        perm = list(builtins.range(r))[::-1] if r is not None else _reversed_axes(x)
    out = apply_op("Transpose", [x, _int_tensor(perm, "perm")], name=name)._output(0)
    return conj(out) if conjugate else out


def _reversed_axes(x: Tensor) -> Tensor:
    from .math import subtract

    return subtract(range(rank(x), 0, -1), 1)


@RegisterGradient("Transpose")
def _transpose_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = transpose(g, inverse(perm))."""
    perm = static_ints(op.inputs[1], "perm")
    if perm is None:
        return transpose(grad, invert_permutation(op.inputs[1])), None
    return transpose(grad, np.argsort(perm).tolist()), None


register_op("InvertPermutation", lambda i: (i[0].shape, i[0].dtype),
            lambda p: np.argsort(p).astype(p.dtype))
no_gradient("InvertPermutation")


def invert_permutation(x: Any, name: str | None = None) -> Tensor:
    """``y[x[i]] = i``: the inverse of a permutation of ``0 .. n-1``."""
    return apply_op("InvertPermutation", [_int_tensor(x, "x")], name=name)._output(0)


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
    """A tensor of zeros: a Const when small and built into a graph, else a Fill (as TF)."""
    return _filled(shape, 0, dtype, name or "zeros")


def ones(shape: Any, dtype: Any = dt.float32, name: str | None = None) -> Tensor:
    """A tensor of ones: a Const when small and built into a graph, else a Fill (as TF)."""
    return _filled(shape, 1, dtype, name or "ones")


_SMALL = 1000  # elements: TF's bound for a zeros/ones Const in a graph


def _filled(shape: Any, value: int, dtype: Any, name: str) -> Tensor:
    """Graphs hold small constants as values but big ones as a Fill op, so a large
    ``zeros`` initial value costs no memory until it runs."""
    d = dt.as_dtype(dtype)
    if isinstance(shape, Tensor) and constant_value(shape) is None:
        return fill(shape, constant(value, d), name=name)
    dims = as_shape(_static(shape)).as_list()
    if None in dims:
        raise ValueError(f"{name}: the shape must be fully defined, got {dims}")
    if math.prod(d for d in dims if d is not None) < _SMALL and not get_default_graph().eager:
        return constant(np.full(dims, value, d.np), name=name)
    return fill(dims, constant(value, d), name=name)


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
    return (None, unbroadcast(where(c, grad, z), x, (c, y)),
            unbroadcast(where(c, z, grad), y, (c, x)))


def _where_infer(inputs: Sequence[Tensor]) -> Spec:
    c = constant_value(inputs[0])  # the count is data-dependent: known only for constants
    return TensorShape([None if c is None else int(np.count_nonzero(c)),
                        inputs[0].shape.rank]), dt.int64


register_op("Where", _where_infer, lambda c: np.argwhere(c).astype(np.int64))
no_gradient("Where")


def _where_indices(condition: Any, name: str | None) -> Tensor:
    return apply_op("Where", [convert_to_tensor(condition)], name=name)._output(0)




def _one_or_tuple(outs: Sequence[np.ndarray]) -> Any:
    # A multi-output kernel with a single output returns it bare, as plans expect.
    return outs[0] if len(outs) == 1 else tuple(outs)


def _scalar_axis(a: Tensor, rank: int, op_type: str) -> int | None:
    """The static, normalised value of a scalar axis input (None when not known)."""
    check_dtype(op_type, a, _INDEX, "axis")
    axis = static_ints(a, "axis")
    if axis is None:
        return None
    if len(axis) != 1:
        raise ShapeError(f"axis must be a scalar, got {axis}")
    return normalize_axis(axis[0], rank)


def unknown_dims(s: Tensor) -> TensorShape:
    """The static shape a 1-D shape tensor ``s`` of unknown value describes."""
    n = s.shape[0] if s.shape.rank == 1 else None
    return TensorShape(None if n is None else [None] * n)


def _names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}[{i}]" for i in builtins.range(n)]


# --------------------------------------------------------------------------------------
# Tile, BroadcastTo


def _tile_infer(inputs: Sequence[Tensor]) -> Spec:
    x, m = inputs
    check_dtype("Tile", m, _INDEX, "multiples")
    mult = static_ints(m, "multiples")
    r = x.shape.rank
    if r is None:
        return TensorShape(None if mult is None else [None] * len(mult)), x.dtype
    if mult is None:
        return TensorShape([None] * r), x.dtype
    if len(mult) != r or any(k < 0 for k in mult):
        raise ShapeError(f"multiples must be a vector of {r} non-negative ints, one per "
                         f"dimension of input (shape {x.shape}), got {mult}")
    dims = [None if d is None else d * k for d, k in zip(x.shape.dims, mult, strict=True)]  # type: ignore[arg-type]
    return TensorShape(dims), x.dtype


register_op("Tile", _tile_infer, lambda x, m: np.tile(x, tuple(m)) if x.ndim else x.copy())


def tile(input: Any, multiples: Any, name: str | None = None) -> Tensor:
    """Repeat ``input`` ``multiples[i]`` times along each axis ``i``."""
    return apply_op("Tile", [convert_to_tensor(input), _int_tensor(multiples, "multiples")],
                    name=name)._output(0)


@RegisterGradient("Tile")
def _tile_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = sum over the m axes of g reshaped to [m0, d0, m1, d1, ...]."""
    from .reduction import reduce_sum

    x, m = op.inputs
    mult = static_ints(m, "multiples")
    if mult is not None and x.shape.is_fully_defined():
        pairs: Any = [v for pair in zip(mult, x.shape.as_list(), strict=True) for v in pair]
        axes: Any = list(builtins.range(0, 2 * len(mult), 2))
    else:
        from .joining import stack

        pairs = reshape(transpose(stack([m, shape(x, out_type=m.dtype)])), [-1])
        axes = range(0, size(pairs), 2)  # type: ignore[call-overload]
    return reduce_sum(reshape(grad, pairs), axes), None


def _broadcast_to_infer(inputs: Sequence[Tensor]) -> Spec:
    x, s = inputs
    check_dtype("BroadcastTo", s, _INDEX, "shape")
    target = static_ints(s, "shape")
    if target is None:
        return unknown_dims(s), x.dtype
    out = broadcast_shapes(x.shape, TensorShape(target))
    if out is None or (out.dims is not None and len(out.dims) != len(target)) or (
            out.dims is not None and any(o != t for o, t in zip(out.dims, target, strict=True)
                                         if o is not None)):
        raise ShapeError(f"Unable to broadcast tensor of shape {x.shape} to tensor of shape "
                         f"{TensorShape(target)}")
    return TensorShape(target), x.dtype


register_op("BroadcastTo", _broadcast_to_infer,
            lambda x, s: np.array(np.broadcast_to(x, tuple(s))))


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """``input`` broadcast to ``shape`` (NumPy's rules)."""
    return apply_op("BroadcastTo", [convert_to_tensor(input), _int_tensor(shape, "shape")],
                    name=name)._output(0)


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = unbroadcast(g, shape(x))."""
    return unbroadcast(grad, op.inputs[0]), None


# --------------------------------------------------------------------------------------
# Range, OneHot (not differentiable)

_RANGE_DTYPES = (dt.int32, dt.int64, dt.float16, dt.float32, dt.float64)


def _range_count(start: Any, limit: Any, delta: Any) -> int:
    if delta == 0:
        raise ShapeError("Requires delta != 0")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        sign = "<=" if delta > 0 else ">="
        raise ShapeError(f"Requires start {sign} limit when delta {'>' if delta > 0 else '<'} "
                         f"0: {start}/{limit}")
    if isinstance(start + limit + delta, int | np.integer):
        return int((abs(limit - start) + abs(delta) - 1) // abs(delta))
    return int(np.ceil(abs((limit - start) / delta)))


def _range_infer(inputs: Sequence[Tensor], *, Tidx: dt.DType) -> Spec:
    for t, n in zip(inputs, ("start", "limit", "delta"), strict=True):
        if t.shape.rank not in (0, None):
            raise ShapeError(f"{n} must be a scalar, got shape {t.shape}")
    values = [constant_value(t) for t in inputs]
    if any(v is None for v in values):
        return TensorShape([None]), Tidx
    return TensorShape([_range_count(*(v.item() for v in values))]), Tidx  # type: ignore[union-attr]


def _range_kernel(start: Any, limit: Any, delta: Any, *, Tidx: dt.DType) -> np.ndarray:
    n = _range_count(start.item(), limit.item(), delta.item())
    return (start + np.arange(n, dtype=Tidx.np) * delta).astype(Tidx.np)


register_op("Range", _range_infer, _range_kernel)
default_name("Range", "range")
no_gradient("Range")


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001
          name: str = "range") -> Tensor:
    """``[start, start + delta, ...)`` up to ``limit``; ints give int32, floats float32."""
    if limit is None:
        start, limit = 0, start
    ts = [convert_to_tensor(v) for v in (start, limit, delta)]
    for t in ts:
        check_dtype("Range", t, _RANGE_DTYPES, "start/limit/delta")
    d = dt.as_dtype(dtype) if dtype is not None else max(
        (t.dtype for t in ts), key=_RANGE_DTYPES.index)
    ts = [cast(t, d) for t in ts]
    return apply_op("Range", ts, {"Tidx": d}, name)._output(0)


def _one_hot_infer(inputs: Sequence[Tensor], *, axis: int) -> Spec:
    idx, depth, on, off = inputs
    check_dtype("OneHot", idx, (dt.uint8, dt.int32, dt.int64), "indices")
    check_dtype("OneHot", depth, (dt.int32,), "depth")
    d = same_dtype([on, off], ("on_value", "off_value"))
    n = static_ints(depth, "depth")
    if n is not None and n[0] < 0:
        raise ShapeError(f"depth must be non-negative, got {n[0]}")
    if idx.shape.dims is None:
        return TensorShape(None), d
    dims = list(idx.shape.dims)
    if not -1 <= axis <= len(dims):
        raise ShapeError(f"Expected axis to be -1 or between [0, {len(dims)}]. But received: "
                         f"{axis}")
    dims.insert(len(dims) if axis == -1 else axis, None if n is None else n[0])
    return TensorShape(dims), d


def _one_hot_kernel(idx: np.ndarray, depth: np.ndarray, on: np.ndarray, off: np.ndarray, *,
                    axis: int) -> np.ndarray:
    hot = idx[..., None] == np.arange(int(depth))
    out = np.where(hot, on, off).astype(on.dtype)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


register_op("OneHot", _one_hot_infer, _one_hot_kernel)
default_name("OneHot", "one_hot")
no_gradient("OneHot")


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: int | None = None, dtype: Any = None, name: str | None = None) -> Tensor:
    """``on_value`` where ``indices`` selects a position along a new ``depth`` axis."""
    hint = dt.as_dtype(dtype) if dtype is not None else None
    on, off = (None if v is None else convert_to_tensor(v, dtype_hint=hint)
               for v in (on_value, off_value))
    d = hint or next((t.dtype for t in (on, off) if t is not None), dt.float32)
    on = on if on is not None else convert_to_tensor(1, d)
    off = off if off is not None else convert_to_tensor(0, d)
    ins = [_int_tensor(indices, "indices"), convert_to_tensor(depth, dt.int32), on, off]
    return apply_op("OneHot", ins, {"axis": -1 if axis is None else int(axis)}, name)._output(0)
