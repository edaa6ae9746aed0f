"""Reductions (Sum, Mean, Max, Min, Prod, Any, All), ArgMax/ArgMin, and the scans
Cumsum/Cumprod that Prod's gradient is built from.

Each reduction takes its axes as a second, integer input (as TF records it) and a
``keep_dims`` attr.  Gradients reshape ``g`` to the kept-dims shape and broadcast back.
Integer reductions stay integer: an integer Mean divides with truncation, as TF does.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core import context as _context
from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import (
    COMPLEX,
    Case,
    complex_randn,
    distinct,
    fixed,
    ints,
    positive,
    randn,
    uniform,
)
from symgrad.core.eager import EagerTensor
from symgrad.core.fast_path import FastOp, fast_apply
from symgrad.core.gradient_registry import array_rule, no_gradient
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import OPS, OpDef, ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import gather as gather_ops
from symgrad.ops.array import joining
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import DIV, MUL, RESHAPE, int32s, kernel, sum_function
from symgrad.ops.array_vjp import SUM as SUM_A
from symgrad.ops.array_vjp import cast as cast_a
from symgrad.ops.core import (
    _FAST_CONST,
    NUMERIC,
    REAL,
    check_dtype,
    convert_to_tensor,
    static_ints,
)
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.math.complex import conj
from symgrad.ops.reduction import row_blocks

_FLOAT_INT = (np.float32, np.float64, np.int32, np.int64)


def _axes(x: np.ndarray, axis: np.ndarray | tuple[int, ...]) -> tuple[int, ...]:
    if type(axis) is tuple:  # normalised already (``array_vjp.unbroadcast``'s axes)
        return axis
    if not x.ndim:
        return (0,) * np.size(axis)
    return tuple((np.ravel(axis) % x.ndim).tolist())


def reduce_infer(
    op_type: str, allowed: Sequence[dt.DType] = NUMERIC, out_dtype: dt.DType | None = None
) -> Any:
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
                raise ShapeError(
                    f"Invalid reduction dimension {ax} for input with {n} "
                    f"dimensions (shape {x.shape})"
                )
            norm.add(ax % n if n else 0)
        if keep_dims:
            return TensorShape([1 if i in norm else s for i, s in enumerate(dims)]), d
        return TensorShape([s for i, s in enumerate(dims) if i not in norm]), d

    return infer


def reduction_kernel(fn: Any) -> Any:
    def kernel(x: np.ndarray, axis: np.ndarray, *, keep_dims: bool = False) -> Any:
        return _as_input_dtype(fn(x, axis=_axes(x, axis), keepdims=keep_dims), x)

    return kernel


def reduction_specialize(fn: Any) -> Any:
    """In a plan, constant axes of an input of known rank are normalised once."""

    def specialize(op: Any, consts: list[Any]) -> Any:
        axes = _static_axes(op, consts)
        if axes is None:
            return None
        keep = op.get_attr("keep_dims")

        def kernel(x: np.ndarray, _: Any) -> Any:
            return _as_input_dtype(fn(x, axis=axes, keepdims=keep), x)

        return kernel

    return specialize


def _static_axes(op: Any, consts: list[Any]) -> tuple[int, ...] | None:
    rank, axis = op.inputs[0].shape.rank, consts[1]
    if not rank or axis is None:
        return None
    return tuple((np.ravel(axis) % rank).tolist())


def _mean_specialize(op: Any, consts: list[Any]) -> Any:
    """A float Mean over axes of static size divides by a count known at compile time."""
    x, axes = op.inputs[0], _static_axes(op, consts)
    dims = x.shape.dims
    if axes is None or not x.dtype.is_floating or any(dims[a] is None for a in axes):
        return reduction_specialize(_mean)(op, consts)
    n, keep = math.prod(dims[a] for a in axes), op.get_attr("keep_dims")
    count = x.dtype.np.type(n)  # not an int: NumPy 1.x divides a float32 scalar by one in float64

    def kernel(x: np.ndarray, _: Any) -> np.ndarray:
        return np.asarray(np.add.reduce(x, axis=axes, dtype=x.dtype, keepdims=keep) / count)

    return kernel


def _as_input_dtype(out: Any, x: np.ndarray) -> np.ndarray:
    if type(out) is np.ndarray and out.dtype == x.dtype:
        return out
    return np.asarray(out).astype(x.dtype, copy=False)


def register_reduction(
    op_type: str, fn: Any, allowed: Sequence[dt.DType] = NUMERIC, specialize: Any = None
) -> OpDef:
    return register_op(
        op_type,
        reduce_infer(op_type, allowed),
        reduction_kernel(fn),
        specialize=specialize or reduction_specialize(fn),
        batch=_reduction_batch,
    )


def _reduction_batch(c: Call) -> list[Tensor]:
    """The reduced axes, shifted past the batch axis."""
    c.only_batched(0)
    r = c.rank(0)
    axes = sorted({c.axis(a, r) for a in c.ints(1)}) if r else []
    return c.apply([c.xs[0], batching.const(np.array(axes).reshape(-1), c.xs[1])])


def axis_tensor(input: Tensor, axis: Any) -> Tensor:
    """``axis=None`` means every axis, as TF; ints and lists become an int32 tensor."""
    if axis is None:
        r = input.shape.rank
        if r is None:
            return array.range(array.rank(input))  # type: ignore[attr-defined,no-any-return]
        axis = list(range(r))
    if isinstance(axis, Tensor):
        return axis
    return convert_to_tensor(
        np.asarray(axis, dtype=np.int32).reshape(-1) if not isinstance(axis, int) else axis,
        dt.int32,
    )


def reduce(op_type: str, input: Any, axis: Any, keepdims: bool, name: str | None) -> Tensor:
    """The reduction ``op_type``, for the public reductions (``reduce_mean``...), which
    alone call this, each directly: their caller, where the fast path looks for the
    user's line first, is two frames out of this one."""
    x = convert_to_tensor(input)
    if axis is None and name is None and not keepdims and type(x) in _TENSORS:
        t = _fast_all(op_type, x)  # the commonest eager call (``reduce_mean(loss)``)
        if t is not None:
            return t
    a = axis_tensor(x, axis)
    attrs = {"keep_dims": bool(keepdims)}
    if name is None and not keepdims:  # core/eager.py's light tensor, if it can
        f = _FAST.get(op_type)
        if f is None:
            f = _FAST[op_type] = FastOp(op_type, OPS[op_type].infer, (), None, OPS, {})
        # (keep_dims: its default; the user's line from the public reduction's caller on)
        t = fast_apply(f, (x, a), attrs, OPS[op_type].kernel, None, 4)
        if t is not None:
            return t
    return apply_op1(op_type, [x, a], attrs, name)


_FAST: dict[str, FastOp] = {}  # the fast path's record of each reduction, made when first used


def _fast_all(op_type: str, x: Tensor) -> Tensor | None:
    """``reduce(op_type, x, None, False, None)`` for a light ``x``, as the general lines
    make it (an axis ``Const`` of ``range(rank)``, then the reduction), without their
    conversions: the axis array is one read-only array per rank (a ``Const``'s value is
    read-only, ``constant``), the reduction's spec is the registered rule's, found once
    per (type, dtype, rank), and its kernel gets the axes as the tuple ``_axes`` makes.
    None (no name taken) where the rule refuses the dtype or the fast path cannot run:
    the general lines then make the Const (if not made here) and report."""
    f = _FAST.get(op_type)
    dims = x.shape.dims
    if f is None or dims is None or x.graph is not _context._top_level:
        return None  # (the first call of a type takes the general lines, which make f)
    r = len(dims)
    memo = _ALL.get((op_type, r))
    if memo is None:
        arr = np.arange(r, dtype=np.int32)
        arr.flags.writeable = False
        axes = tuple(range(r))  # (the registry's kernel, as the general path runs it)
        run = lambda v, _: OPS[op_type].kernel(v, axes)  # noqa: E731
        memo = _ALL[(op_type, r)] = (arr, run, {}, (TensorShape.of_array(arr.shape), dt.int32))
    arr, run, specs, const = memo  # (const: the Const's rule's result for arr, fast_apply's
    # as long as the registry holds that rule)
    a = fast_apply(_FAST_CONST, (), {"value": arr, "dtype": dt.int32}, None, const, 5)
    if a is None:
        return None
    spec = specs.get(x.dtype)
    if spec is None:
        try:
            spec = f.infer((x, a))
        except Exception:
            return apply_op1(op_type, [x, a], {"keep_dims": False})  # its error, as before
        specs[x.dtype] = spec
    t = fast_apply(f, (x, a), {"keep_dims": False}, run, spec, 5)
    return t if t is not None else apply_op1(op_type, [x, a], {"keep_dims": False})


# (type, rank) -> the axis array, the kernel on the tuple of axes, the rule's spec by dtype,
# and the axis Const's spec
_ALL: dict[tuple[str, int], tuple[Any, Any, dict[Any, Any], Any]] = {}
_TENSORS = (EagerTensor, Tensor)  # a light tensor, or an op's output (several outputs')


def _mean(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
    n = math.prod(map(x.shape.__getitem__, axis))  # (no list built: one call a reduction)
    s = np.add.reduce(x, axis=axis, dtype=x.dtype, keepdims=keepdims)  # type: ignore[call-overload]
    if x.dtype.kind not in "iu":
        # Empty groups give nan, as in TF (kernels run with NumPy's warnings off).
        return s / n  # type: ignore[no-any-return]
    if n == 0:
        return np.zeros_like(s)
    q = s // n  # C-style division truncates toward zero; floor division rounds down
    return q + ((s % n != 0) & (s < 0))  # type: ignore[no-any-return]


def _extreme(fn: Any) -> Any:
    def f(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> Any:
        if x.size:
            return fn(x, axis=axis, keepdims=keepdims)
        # TF reduces an empty group to the identity: -inf (lowest) for Max, +inf for Min.
        info = np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype)
        init = info.min if fn is np.max else info.max
        if x.dtype.kind == "f":
            init = -np.inf if fn is np.max else np.inf
        return fn(x, axis=axis, keepdims=keepdims, initial=init)

    return f


def _sum(x: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> Any:
    # The folded sum (``_fold_of``) is for a float contiguous array; its shape part is
    # tested first, once a (shape, axes) pair: on a bias gradient's small array it says None.
    if type(axis) is tuple:
        fold = _fold_of(x.shape, axis)
        if fold is not None and x.dtype.kind == "f" and x.flags.c_contiguous:
            return _sum_leading(x, axis, keepdims, fold)
    return np.add.reduce(x, axis=axis, dtype=x.dtype, keepdims=keepdims)  # type: ignore[call-overload]


@functools.lru_cache(maxsize=256)
def _fold_of(shape: tuple[int, ...], axis: tuple[int, ...]) -> int | None:
    """For a float sum over the leading axes of a contiguous array with a short rest (a
    bias gradient: [N, H, W, C] over N, H, W), how many rows to lay side by side
    (``row_blocks``): on [32, 26, 26, 32] float32 that took a quarter of the time.  None:
    not such a sum.  Decided once a (shape, axes) pair, as it depends on nothing else."""
    k = len(axis)
    if not 0 < k < len(shape) or axis != tuple(range(k)):
        return None
    return row_blocks.fold(math.prod(shape[:k]), math.prod(shape[k:]))


def _sum_leading(x: np.ndarray, axis: tuple[int, ...], keepdims: bool, f: int) -> Any:
    """The sum over leading rows as partial sums of f rows side by side, then their sum."""
    inner = x.shape[len(axis) :]
    part = np.add.reduce(x.reshape(-1, f * math.prod(inner)), axis=0, dtype=x.dtype)
    total = np.add.reduce(part.reshape(f, -1), axis=0, dtype=x.dtype).reshape(inner)
    return total.reshape((1,) * len(axis) + inner) if keepdims else total


SUM = register_reduction("Sum", _sum)
sum_function(_sum, OPS["Sum"].kernel)  # unbroadcast's bias-gradient sums
MEAN = register_reduction("Mean", _mean, specialize=_mean_specialize)
MAX = register_reduction("Max", _extreme(np.max), REAL)
MIN = register_reduction("Min", _extreme(np.min), REAL)
PROD = register_reduction(
    "Prod", lambda x, axis, keepdims: np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
)
ANY = register_reduction("Any", np.any, (dt.bool_,))
ALL = register_reduction("All", np.all, (dt.bool_,))
no_gradient("Any")
no_gradient("All")


def reduce_sum(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Sum over ``axis`` (None: all axes; negative axes count from the end)."""
    return reduce("Sum", input_tensor, axis, keepdims, name)


def reduce_mean(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Mean over ``axis``; integer tensors use integer division, as TF."""
    return reduce("Mean", input_tensor, axis, keepdims, name)


def reduce_max(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Maximum over ``axis``; a NaN in a group makes the group's result NaN."""
    return reduce("Max", input_tensor, axis, keepdims, name)


def reduce_min(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Minimum over ``axis``; a NaN in a group makes the group's result NaN."""
    return reduce("Min", input_tensor, axis, keepdims, name)


def reduce_prod(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Product over ``axis``."""
    return reduce("Prod", input_tensor, axis, keepdims, name)


def reduce_any(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Logical or over ``axis`` of a bool tensor."""
    return reduce("Any", input_tensor, axis, keepdims, name)


def reduce_all(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Logical and over ``axis`` of a bool tensor."""
    return reduce("All", input_tensor, axis, keepdims, name)


# Op-table rows: every way of giving the axes through the public functions, and the op
# applied by type with its axes as an input and ``keep_dims`` as an attr.

_AXES = [
    ("all", None, False),
    ("int", 1, False),
    ("neg", -1, False),
    ("list", [0, 2], False),
    ("keepdims", [0, -1], True),
]


def _axis_cases(fn: Any, ref: Any, gen: Any, by_type: Case) -> list[Case]:
    return [
        Case(
            [gen],
            lambda x, a=axis, k=keep: ref(x, axis=_np_axes(a), keepdims=k),
            fn=lambda x, a=axis, k=keep: fn(x, axis=a, keepdims=k),
            dtypes=_FLOAT_INT,
            name=name,
        )
        for name, axis, keep in _AXES
    ] + [by_type]


def _by_type(ref: Any, x: Any, axes: Any, keep: bool) -> Case:
    return Case(
        [x, ints(axes)],
        lambda x, a: ref(x, axis=_np_axes(a), keepdims=keep),
        attrs={"keep_dims": keep},
        name="by_type",
    )


def _np_axes(a: Any) -> tuple[int, ...] | None:
    return None if a is None else tuple(np.atleast_1d(a).tolist())


def _mean_ref(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    if x.dtype.kind in "iu":  # TF: integer sum, then division truncated toward zero
        s = np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
        n = x.size // max(s.size, 1)
        return (np.sign(s) * (np.abs(s) // n)).astype(x.dtype)  # type: ignore[no-any-return]
    return np.mean(x, axis=axis, keepdims=keepdims)  # type: ignore[no-any-return]


_BOOL = "bool: not differentiable"
SUM.add_cases(
    *_axis_cases(
        reduce_sum, np.sum, uniform(-4, 4, 2, 3, 4), _by_type(np.sum, randn(2, 3, 4), [0, -1], True)
    )
)
MEAN.add_cases(
    *_axis_cases(
        reduce_mean,
        _mean_ref,
        uniform(-9, 9, 2, 3, 4),
        _by_type(_mean_ref, randn(2, 3, 4), [0, -1], True),
    )
)
MAX.add_cases(
    *_axis_cases(
        reduce_max, np.max, distinct(2, 3, 4), _by_type(np.max, distinct(2, 3, 4), [0, 2], False)
    )
)
MIN.add_cases(
    *_axis_cases(
        reduce_min, np.min, distinct(2, 3, 4), _by_type(np.min, distinct(2, 3, 4), 1, False)
    )
)
PROD.add_cases(
    *_axis_cases(
        reduce_prod,
        np.prod,
        uniform(0.5, 1.5, 2, 3, 4),
        _by_type(np.prod, uniform(0.5, 1.5, 2, 3, 4), [0, -1], True),
    ),
    Case(
        [uniform(-3, 3, 2, 3, 4)],
        lambda x: np.prod(x, 1),
        fn=lambda x: reduce_prod(x, [1]),
        dtypes=(np.int32,),
        order=0,
        name="int",
        note="integer: not differentiable",
    ),
    Case(
        [complex_randn(3, 2)],
        lambda x: np.prod(x, 0),
        fn=lambda x: reduce_prod(x, 0),
        dtypes=COMPLEX,
        name="complex",
    ),
)
ANY.add_cases(
    Case(
        [fixed([[True, False, False], [False, False, False]])],
        lambda x: np.any(x, 1),
        fn=lambda x: reduce_any(x, 1),
        dtypes=(np.bool_,),
        order=0,
        note=_BOOL,
    )
)
ALL.add_cases(
    Case(
        [fixed([[True, True, False], [True, True, True]])],
        lambda x: np.all(x, -1, keepdims=True),
        fn=lambda x: reduce_all(x, -1, keepdims=True),
        dtypes=(np.bool_,),
        order=0,
        note=_BOOL,
    )
)


def kept_dims_shape(x: Tensor, axis: Tensor) -> list[int] | Tensor:
    """x's shape with the reduced axes set to 1 (static when possible)."""
    axes = static_ints(axis, "axis")
    dims = x.shape.dims
    if dims is not None and axes is not None:
        n = len(dims)
        norm = {a % n for a in axes} if n else set()
        kept = [1 if i in norm else d for i, d in enumerate(dims)]
        if kept.count(None) <= 1:  # one unknown size: reshape infers it
            return [-1 if d is None else d for d in kept]  # type: ignore[misc]
    return apply_op1("ReducedShape", [array.shape(x), axis])


def _reduced_shape_kernel(s: np.ndarray, a: np.ndarray) -> np.ndarray:
    out = s.copy()
    if len(s):
        out[np.asarray(a, dtype=np.int64).reshape(-1) % len(s)] = 1
    return out


register_op(
    "ReducedShape",
    lambda i: (TensorShape([i[0].shape[0]]), i[0].dtype),
    _reduced_shape_kernel,
    batch="integer shape arithmetic (of a Shape), not a function of the batched seed's values",
    cases=[
        Case(
            [ints([2, 3, 4, 5]), ints([1, -1])],
            lambda s, a: np.array([2, 1, 4, 1], np.int32),
            order=0,
            note="integer shapes in and out",
        )
    ],
)
no_gradient("ReducedShape")


def broadcast_to_input(op: Any, grad: Tensor) -> Tensor:
    """g reshaped to the kept-dims shape and broadcast to the input's shape."""
    x, axis = op.inputs
    g = array.reshape(grad, kept_dims_shape(x, axis))
    if x.shape.is_fully_defined() and g.shape.dims == x.shape.dims:
        return g
    return g * array.ones_like(x)


@SUM.gradient
def _sum_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = broadcast of g over the reduced axes."""
    return broadcast_to_input(op, grad), None


@array_rule("Sum")
def _sum_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [_to_input(xs[0], xs[1], grads[0]), None]


def _to_input(x: np.ndarray, axis: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``broadcast_to_input`` on arrays: g reshaped to the kept-dims shape, then broadcast."""
    n = x.ndim
    flat = axis.ravel() if type(axis) is np.ndarray else np.ravel(axis)
    norm = {a % n for a in flat.tolist()} if n else set()
    kept = tuple([1 if i in norm else d for i, d in enumerate(x.shape)])
    # The Reshape kernel's view (``np.reshape``), without its wrapper: a Mean's rule runs
    # once a training step and this took half of it.
    g = g.reshape(kept) if type(g) is np.ndarray else RESHAPE(g, int32s(kept))
    if g.shape == x.shape:
        return g
    if g.dtype == x.dtype and g.ndim:  # Mul's and OnesLike's kernels, without their wrappers
        return np.multiply(g, np.ones_like(x))  # type: ignore[no-any-return]
    return MUL(g, _ONES_LIKE(x))


@MEAN.gradient
def _mean_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = broadcast of g / (number of elements reduced into each output)."""
    x, y = op.inputs[0], op.outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        n_in, n_out = x.shape.num_elements(), y.shape.num_elements()
        factor: Any = np.asarray(n_in // max(n_out, 1) or 1, x.dtype.np)  # type: ignore[operator]
    else:
        factor = array.cast(array.size(x), x.dtype) / array.cast(
            math_ops.maximum(array.size(y), 1), x.dtype
        )
    return broadcast_to_input(op, grad) / factor, None


@array_rule("Mean")
def _mean_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    x, g = xs[0], grads[0]
    factor = np.asarray(x.size // max(ys[0].size, 1) or 1, x.dtype)
    if g.ndim == 0 and x.ndim and g.dtype == x.dtype and x.dtype.kind not in "iu":
        # Every axis reduced (``reduce_mean(loss)``): the broadcast holds g everywhere,
        # so each element's quotient is g / factor, divided once (the rule's bits).
        # (``np.full``'s body, without its Python frame: an empty array, then the copy)
        out = np.empty(x.shape, x.dtype)
        np.copyto(out, np.true_divide(g, factor), casting="unsafe")
        return [out, None]
    g = _to_input(x, xs[1], g)
    if x.dtype.kind in "iu":  # ``divide`` casts integers to float64 first
        g, factor = cast_a(g, dt.float64), cast_a(factor, dt.float64)
    elif g.ndim and g.dtype == factor.dtype:  # RealDiv's kernel, without its wrapper
        return [np.true_divide(g, factor), None]
    return [DIV(g, factor), None]


_ONES_LIKE = kernel("OnesLike")


def _min_or_max_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = g · (x == y) / count of (x == y) per group: ties split evenly, NaN gives NaN."""
    x, axis = op.inputs
    kept = kept_dims_shape(x, axis)
    y = array.reshape(op.outputs[0], kept)
    indicators = array.cast(math_ops.equal(x, y), grad.dtype)
    count = array.reshape(reduce_sum(indicators, axis), kept)
    return indicators / count * array.reshape(grad, kept), None


MAX.gradient(_min_or_max_grad)
MIN.gradient(_min_or_max_grad)


def _min_or_max_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    (x, axis), g = xs, grads[0]
    n = x.ndim
    norm = {int(a) % n for a in np.ravel(axis)} if n else set()
    kept = int32s([1 if i in norm else d for i, d in enumerate(x.shape)])
    y = RESHAPE(ys[0], kept)
    indicators = cast_a(_EQUAL(x, y), dt.as_dtype(g.dtype))
    count = RESHAPE(SUM_A(indicators, axis, keep_dims=False), kept)
    if indicators.dtype.kind in "iu":  # the rule's float64 quotient times integer g
        raise TypeError(f"Max/Min gradient: integer gradient {g.dtype} is not differentiable")
    return [MUL(DIV(indicators, count), RESHAPE(g, kept)), None]


array_rule("Max")(_min_or_max_array)
array_rule("Min")(_min_or_max_array)
_EQUAL = kernel("Equal", np.bool_)


def _reduced_and_other(x: Tensor, axis: Tensor) -> tuple[Any, Any, Any]:
    """The reduced axes, the others, and the permutation putting the reduced ones first:
    lists when the rank and axes are static, else int32 tensors (as TF builds them)."""
    axes, n = static_ints(axis, "axis"), x.shape.rank
    if axes is not None and n is not None:
        reduced = sorted({a % n for a in axes}) if n else []
        other = [i for i in range(n) if i not in reduced]
        return reduced, other, reduced + other
    rank = array.rank(x)
    red = math_ops.floormod(array.reshape(array.cast(axis, dt.int32), [-1]) + rank, rank)
    idx = array.range(rank)
    kept = math_ops.logical_not(
        reduce_any(math_ops.equal(array.expand_dims(idx, 1), array.expand_dims(red, 0)), 1)
    )
    rest = array.cast(array.reshape(array.where(kept), [-1]), dt.int32)
    return red, rest, joining.concat([red, rest], 0)


@PROD.gradient
def _prod_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = g · conj(product of the group's other elements), by exclusive cumprods both ways."""
    x, axis = op.inputs
    reduced, other, perm = _reduced_and_other(x, axis)
    g = broadcast_to_input(op, grad)
    if isinstance(reduced, list) and not reduced:
        return g, None
    xt = array.transpose(x, perm)
    if x.shape.is_fully_defined() and isinstance(perm, list):
        dims = x.shape.as_list()
        rows: Any = [int(np.prod([dims[i] for i in ax])) for ax in (reduced, other)]
    else:
        shape = array.shape(x)
        rows = joining.stack([reduce_prod(gather_ops.gather(shape, ax)) for ax in (reduced, other)])
    flat = array.reshape(xt, rows)
    others = cumprod(flat, 0, exclusive=True) * cumprod(flat, 0, exclusive=True, reverse=True)
    others = array.reshape(
        others, xt.shape.as_list() if xt.shape.is_fully_defined() else array.shape(xt)
    )
    inverse = (
        np.argsort(perm).tolist() if isinstance(perm, list) else array.invert_permutation(perm)
    )
    return g * conj(array.transpose(others, inverse)), None


# --------------------------------------------------------------------------------------
# ArgMax, ArgMin


def _arg_infer(op_type: str) -> Any:
    def infer(inputs: Sequence[Tensor], *, output_type: dt.DType = dt.int64) -> Spec:
        x, a = inputs
        check_dtype(op_type, x, REAL, "input")
        check_dtype(op_type, a, (dt.int32, dt.int64), "dimension")
        if output_type not in (dt.int32, dt.int64):
            raise TypeError(f"output_type must be int32 or int64, got {output_type.name}")
        if a.shape.rank not in (None, 0):
            raise ShapeError(f"dimension must be a scalar, got shape {a.shape}")
        axes, dims = static_ints(a, "dimension"), x.shape.dims
        if dims is None or axes is None:
            return TensorShape(
                None if dims is None else [None] * max(len(dims) - 1, 0)
            ), output_type
        n = len(dims)
        if not -n <= axes[0] < n:
            raise ShapeError(f"Expected dimension in the range [{-n}, {n}), but got {axes[0]}")
        return TensorShape([d for i, d in enumerate(dims) if i != axes[0] % n]), output_type

    return infer


def _arg_kernel(fn: Any) -> Any:
    def kernel(x: np.ndarray, a: np.ndarray, *, output_type: dt.DType = dt.int64) -> Any:
        ax = int(a) % x.ndim
        if x.shape[ax] == 0:
            raise ValueError(f"Reduction axis {int(a)} is empty in shape {list(x.shape)}")
        return fn(x, axis=ax).astype(output_type.np)

    return kernel


def _along_axis_batch(c: Call) -> list[Tensor]:
    """The axis (a scalar input), shifted past the batch axis."""
    c.only_batched(0)
    (axis,) = c.ints(1)
    return c.apply([c.xs[0], batching.const(c.axis(axis, c.rank(0)), c.xs[1])])


_INDEX = "integer indices: not differentiable"
register_op(
    "ArgMax",
    _arg_infer("ArgMax"),
    _arg_kernel(np.argmax),
    batch=_along_axis_batch,
    cases=[
        Case(
            [distinct(3, 4, 2)],
            lambda x: np.argmax(x, 1),
            fn=lambda x: argmax(x, 1),
            dtypes=_FLOAT_INT,
            order=0,
            note=_INDEX,
        ),
        Case(
            [distinct(4, 3)],
            lambda x: np.argmax(x, 0).astype(np.int32),
            fn=lambda x: argmax(x, output_type=dt.int32),
            order=0,
            name="int32",
            note=_INDEX,
        ),
    ],
)
register_op(
    "ArgMin",
    _arg_infer("ArgMin"),
    _arg_kernel(np.argmin),
    batch=_along_axis_batch,
    cases=[
        Case(
            [distinct(3, 4, 2)],
            lambda x: np.argmin(x, -1),
            fn=lambda x: argmin(x, -1),
            dtypes=_FLOAT_INT,
            order=0,
            note=_INDEX,
        )
    ],
)
no_gradient("ArgMax")
no_gradient("ArgMin")


def _arg(op_type: str, input: Any, axis: Any, output_type: Any, name: str | None) -> Tensor:
    x = convert_to_tensor(input)
    a = (
        axis
        if isinstance(axis, Tensor)
        else convert_to_tensor(0 if axis is None else axis, dt.int32)
    )
    return apply_op1(op_type, [x, a], {"output_type": dt.as_dtype(output_type)}, name)


def argmax(
    input: Any, axis: Any = None, output_type: Any = dt.int64, name: str | None = None
) -> Tensor:
    """Index of the largest value along ``axis`` (default 0); the first one on ties."""
    return _arg("ArgMax", input, axis, output_type, name)


def argmin(
    input: Any, axis: Any = None, output_type: Any = dt.int64, name: str | None = None
) -> Tensor:
    """Index of the smallest value along ``axis`` (default 0); the first one on ties."""
    return _arg("ArgMin", input, axis, output_type, name)


# --------------------------------------------------------------------------------------
# Cumsum, Cumprod (scans along one axis; ``exclusive`` shifts in the identity)


def _scan_infer(op_type: str) -> Any:
    def infer(inputs: Sequence[Tensor], *, exclusive: bool = False, reverse: bool = False) -> Spec:
        x, a = inputs
        check_dtype(op_type, x, NUMERIC)
        check_dtype(op_type, a, (dt.int32, dt.int64), "axis")
        axes, n = static_ints(a, "axis"), x.shape.rank
        if axes is not None and n is not None and not -n <= axes[0] < n:
            raise ShapeError(
                f"axis {axes[0]} is out of range for a tensor of rank {n} "
                f"(expected {-n} <= axis < {n})"
            )
        return x.shape, x.dtype

    return infer


def _scan_kernel(fn: Any, identity: int) -> Any:
    def kernel(
        x: np.ndarray, a: np.ndarray, *, exclusive: bool = False, reverse: bool = False
    ) -> np.ndarray:
        m = np.moveaxis(x, int(a) % max(x.ndim, 1), 0)
        m = m[::-1] if reverse else m
        out = fn(m, axis=0, dtype=x.dtype)
        if exclusive:
            out = np.concatenate([np.full_like(out[:1], identity), out[:-1]])
        return np.moveaxis(out[::-1] if reverse else out, 0, int(a) % max(x.ndim, 1))

    return kernel


def _scan_ref(fn: Any, identity: int, axis: int) -> Any:
    """NumPy's exclusive, reverse scan along ``axis`` (the axis input is ignored)."""

    def ref(x: np.ndarray, _: Any) -> np.ndarray:
        m = np.moveaxis(x, axis, 0)[::-1]
        out = fn(m, axis=0)
        out = np.concatenate([np.full_like(out[:1], identity), out[:-1]])
        return np.moveaxis(out[::-1], 0, axis)

    return ref


_EXCLUSIVE_REVERSE = {"exclusive": True, "reverse": True}
CUMSUM = register_op(
    "Cumsum",
    _scan_infer("Cumsum"),
    _scan_kernel(np.cumsum, 0),
    batch=_along_axis_batch,
    cases=[
        Case(
            [uniform(-4, 4, 3, 4, 2)],
            lambda x: np.cumsum(x, 1),
            fn=lambda x: cumsum(x, 1),
            dtypes=_FLOAT_INT,
        ),
        Case(
            [randn(3, 4, 2), ints(-1)],
            _scan_ref(np.cumsum, 0, 2),
            attrs=_EXCLUSIVE_REVERSE,
            name="exclusive_reverse",
        ),
    ],
)
CUMPROD = register_op(
    "Cumprod",
    _scan_infer("Cumprod"),
    _scan_kernel(np.cumprod, 1),
    batch=_along_axis_batch,
    cases=[
        Case([positive(4, 3)], lambda x: np.cumprod(x, 0), fn=lambda x: cumprod(x, 0)),
        Case(
            [positive(3, 4), ints(1)],
            _scan_ref(np.cumprod, 1, 1),
            attrs=_EXCLUSIVE_REVERSE,
            name="exclusive_reverse",
        ),
    ],
)


def _scan(
    op_type: str, x: Any, axis: Any, exclusive: bool, reverse: bool, name: str | None
) -> Tensor:
    a = axis if isinstance(axis, Tensor) else convert_to_tensor(axis, dt.int32)
    return apply_op1(
        op_type,
        [convert_to_tensor(x), a],
        {"exclusive": bool(exclusive), "reverse": bool(reverse)},
        name,
    )


def cumsum(
    x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    """Cumulative sum along ``axis`` (op type ``Cumsum``)."""
    return _scan("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(
    x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    """Cumulative product along ``axis`` (op type ``Cumprod``)."""
    return _scan("Cumprod", x, axis, exclusive, reverse, name)


@CUMSUM.gradient
def _cumsum_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = cumsum(g) in the opposite direction, same exclusivity."""
    return _scan(
        "Cumsum", grad, op.inputs[1], op.get_attr("exclusive"), not op.get_attr("reverse"), None
    ), None


@CUMPROD.gradient
def _cumprod_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = reverse cumsum(conj(y) · g) / conj(x), 0 where x = 0 (TF's rule: wrong at zeros)."""
    x, axis = op.inputs
    ex, rev = op.get_attr("exclusive"), op.get_attr("reverse")
    out = _scan("Cumsum", conj(op.outputs[0]) * grad, axis, ex, not rev, None)
    zero = math_ops.equal(x, array.zeros_like(x))
    safe = array.where(zero, array.ones_like(x), x)
    return array.where(zero, array.zeros_like(x), out / conj(safe)), None
