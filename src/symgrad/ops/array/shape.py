"""Shape and layout: Shape, Size, Rank, Reshape, ExpandDims, Squeeze, Transpose, ...

Each op is one record (shape rule, kernel, traits, batching rule, op-table cases) with its
gradient rule beside it.  ``ops.array`` re-exports the wrappers, so siblings find every
array op there.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import int32s, kernel, reshape_like
from symgrad.ops.core import (
    check_dtype,
    constant,
    constant_value_as_shape,
    convert_to_tensor,
    normalize_axis,
    static_ints,
)
from symgrad.ops.math import complex as complex_ops
from symgrad.ops.math import elementwise as math_ops

_INT_OUTPUT = "its output is an integer tensor: not differentiable"

# --------------------------------------------------------------------------------------
# Shape, Size, Rank: known from the input's shape alone


def _shape_infer(inputs: Sequence[Tensor], *, out_type: dt.DType = dt.int32) -> Spec:
    return TensorShape([inputs[0].shape.rank]), out_type


SHAPE = register_op(
    "Shape",
    _shape_infer,
    lambda x, *, out_type=dt.int32: np.array(x.shape, out_type.np),
    shape_only=True,
)
SIZE = register_op(
    "Size",
    lambda i, *, out_type=dt.int32: (TensorShape([]), out_type),
    lambda x, *, out_type=dt.int32: np.array(x.size, out_type.np),
    shape_only=True,
)
RANK = register_op(
    "Rank",
    lambda i: (TensorShape([]), dt.int32),
    lambda x: np.array(x.ndim, np.int32),
    shape_only=True,
)
for _opdef in (SHAPE, SIZE, RANK):
    _opdef.no_gradient()


def shape(input: Any, out_type: Any = None, name: str | None = None) -> Tensor:
    """The shape of ``input`` as a 1-D int tensor (a constant when statically known)."""
    t = convert_to_tensor(input)
    out = dt.int32 if out_type is None else dt.as_dtype(out_type)
    if t.shape.is_fully_defined() and not t.graph.eager:
        return constant(t.shape.as_list(), out, name=name or "Shape")
    return apply_op1("Shape", [t], {"out_type": out}, name)


def size(input: Any, out_type: Any = None, name: str | None = None) -> Tensor:
    t = convert_to_tensor(input)
    out = dt.int32 if out_type is None else dt.as_dtype(out_type)
    return apply_op1("Size", [t], {"out_type": out}, name)


def rank(input: Any, name: str | None = None) -> Tensor:
    return apply_op1("Rank", [convert_to_tensor(input)], name=name)


# Every example of a batch has the same shape: the unbatched answer, K times.
@SHAPE.batching
def _shape_batch(c: Call) -> list[Tensor]:
    dims = c.dims(0)
    out = const(dims, c.op.attrs.get("out_type", dt.int32))
    return [array.broadcast_to(out, [c.k, len(dims)])]


@SIZE.batching
def _size_batch(c: Call) -> list[Tensor]:
    n = const(int(np.prod(c.dims(0))), c.op.attrs.get("out_type", dt.int32))
    return [array.broadcast_to(n, [c.k])]


@RANK.batching
def _rank_batch(c: Call) -> list[Tensor]:
    return [array.broadcast_to(const(c.rank(0), dt.int32), [c.k])]


SHAPE.add_cases(
    Case(
        [randn(2, 3, 4)], lambda x: np.array(x.shape, np.int32), fn=shape, order=0, note=_INT_OUTPUT
    )
)
SIZE.add_cases(
    Case([randn(2, 3, 4)], lambda x: np.array(x.size, np.int32), fn=size, order=0, note=_INT_OUTPUT)
)
RANK.add_cases(
    Case([randn(2, 3, 4)], lambda x: np.array(x.ndim, np.int32), fn=rank, order=0, note=_INT_OUTPUT)
)


# --------------------------------------------------------------------------------------
# Reshape, ExpandDims, Squeeze: views of the input's buffer


def _reshape_target(known: list[int], in_shape: TensorShape) -> TensorShape:
    if known.count(-1) > 1:
        raise ShapeError(f"only one dimension of the new shape may be -1, got {known}")
    for i, d in enumerate(known):
        if d < -1:
            raise ShapeError(f"Size {i} must be non-negative, not {d} (new shape {known})")
    n = in_shape.num_elements()
    if -1 in known:
        rest = math.prod(d for d in known if d != -1)
        if n is None:
            return TensorShape([None if d == -1 else d for d in known])
        if rest == 0 or n % rest:
            raise ShapeError(f"Cannot reshape a tensor with {n} elements to shape {known}")
        return TensorShape([n // rest if d == -1 else d for d in known])
    if n is not None and n != math.prod(known):
        raise ShapeError(
            f"Cannot reshape a tensor with {n} elements to shape {known} "
            f"({math.prod(known)} elements)"
        )
    return TensorShape(known)


def _reshape_infer(inputs: Sequence[Tensor]) -> Spec:
    x, s = inputs
    check_dtype("Reshape", s, array.INDEX, "shape")
    if s.shape.rank not in (None, 1):
        raise ShapeError(f"sizes input must be 1-D, not {s.shape} (argument `shape` of reshape)")
    known = static_ints(s, "shape")
    if known is None:
        return constant_value_as_shape(s), x.dtype
    return _reshape_target(known, x.shape), x.dtype


def _same_shape_forwards(op: Any, consts: list[Any]) -> int | None:
    """A reshape to the shape it already has returns its input."""
    a, b = op.inputs[0].shape, op.output_shapes[0]
    return 0 if a.is_fully_defined() and a.dims == b.dims else None


RESHAPE = register_op(
    "Reshape",
    _reshape_infer,
    lambda x, s: np.reshape(x, s),
    view=True,
    forwards=_same_shape_forwards,
    cases=[Case([randn(2, 3, 4), ints([4, -1])], lambda x, s: x.reshape(s))],
)


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """``tensor`` with a new shape of the same number of elements; one -1 is inferred."""
    return apply_op1(
        "Reshape", [convert_to_tensor(tensor), array.int_tensor(shape, "shape")], name=name
    )


@RESHAPE.gradient
def _reshape_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = reshape(g, shape(x))."""
    return _reshape_like(grad, op.inputs[0]), None


@RESHAPE.batching
@array_rule("Reshape")
def _reshape_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [reshape_like(grads[0], xs[0].shape), None]


@RESHAPE.batching
def _reshape_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    return c.apply([c.xs[0], const([c.k] + c.out_dims(), c.xs[1])])


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
    if not -len(dims) - 1 <= axis[0] <= len(dims):  # TF's text (the input's rank)
        raise ShapeError(
            f"Tried to expand dim index {axis[0]} for tensor with {len(dims)} dimensions."
        )
    i = normalize_axis(axis[0], len(dims) + 1)
    return TensorShape(dims[:i] + [1] + dims[i:]), x.dtype


EXPAND_DIMS = register_op(
    "ExpandDims",
    _expand_dims_infer,
    lambda x, a: np.expand_dims(x, int(a)),
    view=True,
    cases=[Case([randn(3, 4), ints(-2)], lambda x, a: np.expand_dims(x, int(a)))],
)


def expand_dims(input: Any, axis: int, name: str | None = None) -> Tensor:
    """Insert a dimension of size 1 at ``axis`` (negative counts from the end)."""
    return apply_op1(
        "ExpandDims", [convert_to_tensor(input), array.int_tensor(axis, "axis")], name=name
    )


@EXPAND_DIMS.gradient
def _expand_dims_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = reshape(g, shape(x))."""
    return _reshape_like(grad, op.inputs[0]), None


@EXPAND_DIMS.batching
@array_rule("ExpandDims")
def _expanddims_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [reshape_like(grads[0], xs[0].shape), None]


@EXPAND_DIMS.batching
def _expand_dims_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    (axis,) = c.ints(1)
    return c.apply([c.xs[0], const(c.axis(axis, c.rank(0) + 1), c.xs[1])])


def _squeeze_infer(inputs: Sequence[Tensor], *, squeeze_dims: tuple[int, ...] = ()) -> Spec:
    x = inputs[0]
    if x.shape.dims is None:
        return TensorShape(None), x.dtype
    dims = list(x.shape.dims)
    if not squeeze_dims:
        # As TF: an unknown size may be 1 or not, so the rank is unknown until it runs.
        return TensorShape(None if None in dims else [d for d in dims if d != 1]), x.dtype
    axes = {normalize_axis(a, len(dims)) for a in squeeze_dims}
    for a in axes:
        if dims[a] not in (1, None):
            raise ShapeError(
                f"Can not squeeze dim[{a}], expected a dimension of 1, "
                f"got {dims[a]} (input shape {x.shape})"
            )
    return TensorShape([d for i, d in enumerate(dims) if i not in axes]), x.dtype


def _squeeze_kernel(x: np.ndarray, *, squeeze_dims: tuple[int, ...] = ()) -> np.ndarray:
    return np.squeeze(x, axis=tuple(squeeze_dims) if squeeze_dims else None)


SQUEEZE = register_op(
    "Squeeze",
    _squeeze_infer,
    _squeeze_kernel,
    view=True,
    cases=[Case([randn(3, 1, 4, 1)], lambda x: np.squeeze(x, 1), attrs={"squeeze_dims": (1,)})],
)


def squeeze(input: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """Remove dimensions of size 1 (all of them, or those in ``axis``)."""
    try:
        axes = (
            ()
            if axis is None
            else tuple(
                [operator.index(axis)] if hasattr(axis, "__index__") else map(operator.index, axis)
            )
        )
    except TypeError:
        raise TypeError(
            f"squeeze argument `axis` must be an int or a list of ints, got {axis!r}"
        ) from None
    return apply_op1("Squeeze", [convert_to_tensor(input)], {"squeeze_dims": axes}, name)


@SQUEEZE.gradient
def _squeeze_grad(op: Any, grad: Tensor) -> Tensor:
    """dx = reshape(g, shape(x))."""
    return _reshape_like(grad, op.inputs[0])


@array_rule("Squeeze")
def _squeeze_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [reshape_like(grads[0], xs[0].shape)]


@SQUEEZE.batching
def _squeeze_batch(c: Call) -> list[Tensor]:
    dims = c.dims(0)
    axes = c.op.get_attr("squeeze_dims") or [i for i, d in enumerate(dims) if d == 1]
    return c.apply([c.xs[0]], squeeze_dims=tuple(c.axis(a, len(dims)) for a in axes))


SQUEEZE.add_cases(Case([randn(3, 1, 4, 1)], np.squeeze, fn=squeeze, name="all"))


# --------------------------------------------------------------------------------------
# Transpose, InvertPermutation


def _transpose_infer(inputs: Sequence[Tensor]) -> Spec:
    x, p = inputs
    perm = static_ints(p, "perm")
    if perm is None or x.shape.dims is None:
        return TensorShape(None if x.shape.dims is None else [None] * len(x.shape.dims)), x.dtype
    dims = x.shape.dims
    if sorted(perm) != list(range(len(dims))):
        raise ShapeError(
            f"perm {perm} is not a permutation of 0..{len(dims) - 1} for a tensor "
            f"of shape {x.shape}"
        )
    return TensorShape([dims[i] for i in perm]), x.dtype


TRANSPOSE = register_op(
    "Transpose",
    _transpose_infer,
    lambda x, p: np.transpose(x, p),
    cases=[Case([randn(2, 3, 4), ints([2, 0, 1])], lambda x, p: np.transpose(x, p))],
)


def transpose(
    a: Any, perm: Any = None, conjugate: bool = False, name: str | None = "transpose"
) -> Tensor:
    """Permute axes (default: reverse them)."""
    x = convert_to_tensor(a)
    if perm is None:
        r = x.shape.rank
        perm = list(range(r))[::-1] if r is not None else _reversed_axes(x)
    out = apply_op1("Transpose", [x, array.int_tensor(perm, "perm")], name=name)
    return complex_ops.conj(out) if conjugate else out


def _reversed_axes(x: Tensor) -> Tensor:
    return math_ops.subtract(array.range(rank(x), 0, -1), 1)


@TRANSPOSE.gradient
def _transpose_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = transpose(g, inverse(perm))."""
    perm = static_ints(op.inputs[1], "perm")
    if perm is None:
        return transpose(grad, invert_permutation(op.inputs[1])), None
    return transpose(grad, np.argsort(perm).tolist()), None


@array_rule("Transpose")
def _transpose_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    inverse = np.argsort([int(i) for i in np.ravel(xs[1])]).tolist()
    return [_TRANSPOSE(grads[0], int32s(inverse)), None]


_TRANSPOSE = kernel("Transpose")


@TRANSPOSE.batching
def _transpose_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    perm = [0] + [c.axis(p, c.rank(0)) for p in c.ints(1)]
    return c.apply([c.xs[0], const(perm, c.xs[1])])


TRANSPOSE.add_cases(Case([randn(2, 3, 4)], np.transpose, fn=transpose, name="default"))

INVERT_PERMUTATION = register_op(
    "InvertPermutation",
    lambda i: (i[0].shape, i[0].dtype),
    lambda p: np.argsort(p).astype(p.dtype),
    batch="a batch of permutations needs an inverse per row, which no op here computes",
)
INVERT_PERMUTATION.no_gradient()


def invert_permutation(x: Any, name: str | None = None) -> Tensor:
    """``y[x[i]] = i``: the inverse of a permutation of ``0 .. n-1``."""
    return apply_op1("InvertPermutation", [array.int_tensor(x, "x")], name=name)


INVERT_PERMUTATION.add_cases(
    Case(
        [ints([2, 0, 3, 1])],
        np.argsort,
        fn=invert_permutation,
        dtypes=(np.int32,),
        order=0,
        note=_INT_OUTPUT,
    )
)
