"""Structure: Fill, Tile, BroadcastTo, Range, OneHot; and Cast, ZerosLike, SelectV2, Where
from ``ops/cast_select.py`` (re-exported: they sit below the families, see there).

Each op is one record (shape rule, kernel, traits, batching rule, op-table cases) with its
gradient rule beside it.  Attribute-like inputs (a reshape's shape, a tile's multiples)
are tensor inputs, as in TensorFlow, so ``op.inputs`` matches what TF users expect; their
gradients are None.

This module is also where sibling modules find the array ops (the shape family of
``ops.shape`` is re-exported here) and the helpers they share: ``INDEX``, ``int_tensor``,
``scalar_axis``, ``unknown_dims``, ``arg_names``, ``one_or_tuple``.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, const
from symgrad.core.cases import Case, fixed, ints, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.op_registry import (
    ShapeError,
    Spec,
    apply_op1,
    constant_value,
    default_name,
    register_op,
)
from symgrad.core.shapes import TensorShape, as_shape, broadcast_shapes
from symgrad.ops import array_vjp
from symgrad.ops.array import joining
from symgrad.ops.array.shape import expand_dims as expand_dims
from symgrad.ops.array.shape import invert_permutation as invert_permutation
from symgrad.ops.array.shape import rank as rank
from symgrad.ops.array.shape import reshape, shape, size, transpose
from symgrad.ops.array.shape import squeeze as squeeze
from symgrad.ops.cast_select import cast as cast
from symgrad.ops.cast_select import filled
from symgrad.ops.cast_select import is_zeros as is_zeros
from symgrad.ops.cast_select import ones_like as ones_like
from symgrad.ops.cast_select import where as where
from symgrad.ops.cast_select import zeros_like as zeros_like
from symgrad.ops.core import (
    check_dtype,
    constant,
    constant_value_as_shape,
    convert_to_tensor,
    normalize_axis,
    reduce,
    same_dtype,
    static_ints,
    unbroadcast,
)

INDEX = (dt.int32, dt.int64)


def int_tensor(value: Any, what: str) -> Tensor:
    """``value`` as an int32 (or int64) tensor: a shape, an axis, indices."""
    try:
        t = convert_to_tensor(value, dtype_hint=dt.int32)
    except (TypeError, ValueError) as e:
        raise type(e)(f"argument `{what}` must be int32 or int64: {e}") from None
    if t.dtype not in INDEX:
        given = t.name if isinstance(value, Tensor) else repr(value)
        raise TypeError(f"{what} must be int32 or int64, got {t.dtype.name} ({given})")
    return t


def scalar_axis(a: Tensor, rank: int, op_type: str) -> int | None:
    """The static, normalised value of a scalar axis input (None when not known)."""
    check_dtype(op_type, a, INDEX, "axis")
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


def arg_names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}[{i}]" for i in builtins.range(n)]


def one_or_tuple(outs: Sequence[np.ndarray]) -> Any:
    # A multi-output kernel with a single output returns it bare, as plans expect.
    return outs[0] if len(outs) == 1 else tuple(outs)


_INT_OUTPUT = "its output is an integer tensor: not differentiable"

# --------------------------------------------------------------------------------------
# Fill, zeros, ones


def _fill_infer(inputs: Sequence[Tensor]) -> Spec:
    dims, value = inputs
    check_dtype("Fill", dims, INDEX, "dims")
    if value.shape.rank not in (0, None):
        raise ShapeError(f"value must be a scalar, got shape {value.shape}")
    known = static_ints(dims, "dims")
    if known is not None and any(d < 0 for d in known):
        raise ShapeError(f"dims must be non-negative, got {known}")
    return TensorShape(known) if known is not None else constant_value_as_shape(dims), value.dtype


FILL = register_op(
    "Fill",
    _fill_infer,
    lambda d, v: np.full(tuple(d), v, dtype=v.dtype),
    cases=[Case([ints([2, 3]), randn()], lambda d, v: np.full(tuple(d), v))],
)


def fill(dims: Any, value: Any, name: str | None = None, layout: Any = None) -> Tensor:
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    return apply_op1("Fill", [int_tensor(dims, "dims"), convert_to_tensor(value)], name=name)


@FILL.gradient
def _fill_grad(op: Any, grad: Tensor) -> tuple[None, Tensor]:
    """dvalue = sum(g)."""
    return None, reduce("Sum", grad)


@FILL.batching
def _fill_batch(c: Call) -> list[Tensor]:
    c.only_batched(1)
    dims = c.ints(0)
    return [broadcast_to(reshape(c.xs[1], [c.k] + [1] * len(dims)), [c.k] + dims)]


def zeros(
    shape: Any, dtype: Any = dt.float32, name: str | None = None, layout: Any = None
) -> Tensor:
    """A tensor of zeros: a Const when small and built into a graph, else a Fill (as TF)."""
    return _filled(shape, 0, dtype, name or "zeros")


def ones(
    shape: Any, dtype: Any = dt.float32, name: str | None = None, layout: Any = None
) -> Tensor:
    """A tensor of ones: a Const when small and built into a graph, else a Fill (as TF)."""
    return _filled(shape, 1, dtype, name or "ones")


def _filled(shape: Any, value: int, dtype: Any, name: str) -> Tensor:
    """Graphs hold small constants as values but big ones as a Fill op, so a large
    ``zeros`` initial value costs no memory until it runs."""
    d = dt.as_dtype(dtype)
    if _symbolic(shape):  # a shape known only when run: [tf.shape(x)[1], 16] in a function
        return fill(int_tensor(shape, "shape"), constant(np.array(value, d.np)), name=name)
    static = _static(shape)
    sizes = [] if isinstance(static, TensorShape) else np.ravel(static).tolist()
    for n in sizes:
        if isinstance(n, int) and n < 0:
            raise InvalidArgumentError(  # TF's eager error (a ValueError here too)
                f"Dimension {n} must be >= 0 ({name}: argument `shape` = {sizes})"
            )
    dims = as_shape(static).as_list()
    if None in dims:
        raise ValueError(f"{name}: the shape must be fully defined, got {dims}")
    if not get_default_graph().eager:
        return filled(dims, value, d, name)
    return fill(dims, constant(np.array(value, d.np)), name=name)  # a bool's ones are True


def _symbolic(shape: Any) -> bool:
    """Whether ``shape`` (a tensor, or a list that holds tensors) has no constant value."""
    if isinstance(shape, Tensor):
        return constant_value(shape) is None
    return isinstance(shape, list | tuple) and any(
        isinstance(n, Tensor) and constant_value(n) is None for n in shape
    )


def _static(shape: Any) -> Any:
    if isinstance(shape, Tensor):
        return [int(i) for i in constant_value(shape)]  # type: ignore[union-attr]
    if isinstance(shape, list | tuple):  # ones([n]) with n a graph Const: its value
        return [_known_dim(n) for n in shape]
    return [shape] if isinstance(shape, int | np.integer) else shape


def _known_dim(n: Any) -> Any:
    """A shape entry's value when it is a tensor of known value (else as given)."""
    value = constant_value(n) if isinstance(n, Tensor) else None
    return n if value is None else int(value)


# --------------------------------------------------------------------------------------
# Tile, BroadcastTo


def _tile_infer(inputs: Sequence[Tensor]) -> Spec:
    x, m = inputs
    check_dtype("Tile", m, INDEX, "multiples")
    mult = static_ints(m, "multiples")
    r = x.shape.rank
    if r is None:
        return TensorShape(None if mult is None else [None] * len(mult)), x.dtype
    if mult is None:
        return TensorShape([None] * r), x.dtype
    if len(mult) != r or any(k < 0 for k in mult):
        raise ShapeError(
            f"multiples must be a vector of {r} non-negative ints, one per "
            f"dimension of input (shape {x.shape}), got {mult}"
        )
    dims = [None if d is None else d * k for d, k in zip(x.shape.dims, mult, strict=True)]  # type: ignore[arg-type]
    return TensorShape(dims), x.dtype


TILE = register_op(
    "Tile",
    _tile_infer,
    lambda x, m: np.tile(x, tuple(m)) if x.ndim else x.copy(),
    cases=[Case([randn(2, 3, 4), ints([2, 1, 3])], lambda x, m: np.tile(x, m))],
)


def tile(input: Any, multiples: Any, name: str | None = None) -> Tensor:
    """Repeat ``input`` ``multiples[i]`` times along each axis ``i``."""
    return apply_op1(
        "Tile", [convert_to_tensor(input), int_tensor(multiples, "multiples")], name=name
    )


@TILE.gradient
def _tile_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = sum over the m axes of g reshaped to [m0, d0, m1, d1, ...]."""
    x, m = op.inputs
    mult = static_ints(m, "multiples")
    if mult is not None and x.shape.is_fully_defined():
        pairs: Any = [v for pair in zip(mult, x.shape.as_list(), strict=True) for v in pair]
        axes: Any = list(builtins.range(0, 2 * len(mult), 2))
    else:
        pairs = reshape(transpose(joining.stack([m, shape(x, out_type=m.dtype)])), [-1])
        axes = range(0, size(pairs), 2)  # type: ignore[call-overload]
    return reduce("Sum", reshape(grad, pairs), axes), None


@array_rule("Tile")
def _tile_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    mult = [int(i) for i in np.ravel(xs[1])]
    pairs = [v for pair in zip(mult, xs[0].shape, strict=True) for v in pair]
    g = array_vjp.RESHAPE(grads[0], array_vjp.int32s(pairs))
    return [array_vjp.SUM(g, array_vjp.int32s(list(builtins.range(0, 2 * len(mult), 2)))), None]


@TILE.batching
def _tile_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    return c.apply([c.xs[0], const([1] + c.ints(1), c.xs[1])])


TILE.add_cases(
    Case(
        [randn(2, 4)],
        lambda x: np.tile(x * x, (3, 2)),
        fn=lambda x: tile(x * x, [3, 2]),
        name="squared",
    )
)


def _broadcast_to_infer(inputs: Sequence[Tensor]) -> Spec:
    x, s = inputs
    check_dtype("BroadcastTo", s, INDEX, "shape")
    target = static_ints(s, "shape")
    if target is None:
        return unknown_dims(s), x.dtype
    out = broadcast_shapes(x.shape, TensorShape(target))
    if (
        out is None
        or (out.dims is not None and len(out.dims) != len(target))
        or (
            out.dims is not None
            and any(o != t for o, t in zip(out.dims, target, strict=True) if o is not None)
        )
    ):
        raise ShapeError(
            f"Unable to broadcast tensor of shape {x.shape} to tensor of shape "
            f"{TensorShape(target)}"
        )
    return TensorShape(target), x.dtype


BROADCAST_TO = register_op(
    "BroadcastTo",
    _broadcast_to_infer,
    lambda x, s: np.array(np.broadcast_to(x, tuple(s))),
    cases=[Case([randn(3, 1), ints([2, 3, 4])], lambda x, s: np.broadcast_to(x, s))],
)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """``input`` broadcast to ``shape`` (NumPy's rules)."""
    return apply_op1(
        "BroadcastTo", [convert_to_tensor(input), int_tensor(shape, "shape")], name=name
    )


@BROADCAST_TO.gradient
def _broadcast_to_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = unbroadcast(g, shape(x))."""
    return unbroadcast(grad, op.inputs[0]), None


@array_rule("BroadcastTo")
def _broadcast_to_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [array_vjp.unbroadcast_all(grads[0], xs[0].shape), None]


@BROADCAST_TO.batching
def _broadcast_to_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    target = c.ints(1)
    return c.apply([c.aligned(0, len(target)), const([c.k] + target, c.xs[1])])


# --------------------------------------------------------------------------------------
# Range, OneHot (not differentiable)

_RANGE_DTYPES = (dt.int32, dt.int64, dt.float16, dt.float32, dt.float64)


def _range_count(start: Any, limit: Any, delta: Any) -> int:
    if delta == 0:
        raise ShapeError(f"Requires delta != 0: {delta}")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        sign = "<=" if delta > 0 else ">="
        raise ShapeError(
            f"Requires start {sign} limit when delta {'>' if delta > 0 else '<'} 0: {start}/{limit}"
        )
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


RANGE = register_op(
    "Range",
    _range_infer,
    _range_kernel,
    batch="its length follows from its inputs' values: the examples of a "
    "batch would give outputs of different lengths",
)
default_name("Range", "range")
RANGE.no_gradient()


def range(
    start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range"
) -> Tensor:
    """``[start, start + delta, ...)`` up to ``limit``; ints give int32, floats float32."""
    if limit is None:
        start, limit = 0, start
    want = dt.as_dtype(dtype) if dtype is not None else None
    # As TF: Python values are converted to ``dtype`` (0.5 is no int32), tensors are cast.
    ts = [v if isinstance(v, Tensor) else convert_to_tensor(v, want) for v in (start, limit, delta)]
    for t in ts:
        check_dtype("Range", t, _RANGE_DTYPES, "start/limit/delta")
    d = (
        dt.as_dtype(dtype)
        if dtype is not None
        else max((t.dtype for t in ts), key=_RANGE_DTYPES.index)
    )
    ts = [cast(t, d) for t in ts]
    return apply_op1("Range", ts, {"Tidx": d}, name)


_ARANGE = "a sequence of values, not a function of them"
RANGE.add_cases(
    Case(
        [],
        lambda: np.arange(2, 11, 3, dtype=np.int32),
        fn=lambda: range(2, 11, 3),
        order=0,
        note=_INT_OUTPUT,
    ),
    Case(
        [fixed(2.0, np.float32), fixed(-1.2, np.float32)],
        lambda a, b: np.arange(a, b, -0.5),
        fn=lambda a, b: range(a, b, -0.5),
        dtypes=(np.float32,),
        order=0,
        diff=[],
        name="float_negative",
        note=_ARANGE,
    ),
)


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
        raise ShapeError(
            f"Expected axis to be -1 or between [0, {len(dims)}]. But received: {axis}"
        )
    dims.insert(len(dims) if axis == -1 else axis, None if n is None else n[0])
    return TensorShape(dims), d


def _one_hot_kernel(
    idx: np.ndarray, depth: np.ndarray, on: np.ndarray, off: np.ndarray, *, axis: int
) -> np.ndarray:
    hot = idx[..., None] == np.arange(int(depth))
    out = np.where(hot, on, off).astype(on.dtype)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


ONE_HOT = register_op("OneHot", _one_hot_infer, _one_hot_kernel)
default_name("OneHot", "one_hot")
ONE_HOT.no_gradient()


def one_hot(
    indices: Any,
    depth: Any,
    on_value: Any = None,
    off_value: Any = None,
    axis: int | None = None,
    dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    """``on_value`` where ``indices`` selects a position along a new ``depth`` axis."""
    hint = dt.as_dtype(dtype) if dtype is not None else None
    on, off = (
        None if v is None else convert_to_tensor(v, dtype_hint=hint) for v in (on_value, off_value)
    )
    d = hint or next((t.dtype for t in (on, off) if t is not None), dt.float32)
    on = on if on is not None else convert_to_tensor(1, d)
    off = off if off is not None else convert_to_tensor(0, d)
    try:
        depth_t = convert_to_tensor(depth, dt.int32)
    except (TypeError, ValueError) as e:
        raise type(e)(f"one_hot argument `depth` must be an int32 scalar: {e}") from None
    ins = [int_tensor(indices, "indices"), depth_t, on, off]
    return apply_op1("OneHot", ins, {"axis": -1 if axis is None else int(axis)}, name)


@ONE_HOT.batching
def _one_hot_batch(c: Call) -> list[Tensor]:
    """Batched indices: a new axis counted from the front moves one place right."""
    c.only_batched(0)
    axis = c.op.get_attr("axis")
    return c.apply(c.xs, axis=axis if axis == -1 else axis + 1)


def _one_hot_ref(idx: np.ndarray, depth: int) -> np.ndarray:
    return (idx[..., None] == np.arange(depth)).astype(np.float32)


_INDICES = "its inputs are indices and constants"
ONE_HOT.add_cases(
    Case(
        [ints([[0, 3, 5], [2, -1, 1]])],
        lambda i: _one_hot_ref(i, 4),
        fn=lambda i: one_hot(i, 4),
        order=0,
        note=_INDICES,
    ),
    Case(
        [ints([0, 3, 1])],
        lambda i: np.moveaxis(np.where(_one_hot_ref(i, 4), 2.0, -1.0), -1, 0),
        fn=lambda i: one_hot(i, 4, 2.0, -1.0, axis=0),
        order=0,
        name="axis0_on_off",
        note=_INDICES,
    ),
)
