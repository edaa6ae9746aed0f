"""Joining and splitting: ConcatV2, Pack, Unpack, Split, SplitV.

Each op is one record (shape rule, kernel, batching rule, op-table cases) with its
gradient rule beside it; the gradient of a join is a split of the upstream gradient, and
the gradient of a split a join.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call, NotVectorizable, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import (
    OPS,
    ShapeError,
    Spec,
    apply_op,
    apply_op1,
    default_name,
    register_op,
)
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import gather, slicing
from symgrad.ops.array import structure as array
from symgrad.ops.array_vjp import ZEROS_LIKE, int32s, kernel
from symgrad.ops.core import (
    check_dtype,
    constant,
    convert_n,
    convert_to_tensor,
    identity,
    normalize_axis,
    same_dtype,
    static_ints,
)
from symgrad.ops.math import elementwise as math_ops

# --------------------------------------------------------------------------------------
# ConcatV2


def _concat_dims(values: Sequence[Tensor], ax: int) -> list[int | None]:
    first = next(v for v in values if v.shape.dims is not None)
    out: list[int | None] = list(first.shape.dims)  # type: ignore[arg-type]
    out[ax] = 0
    for i, v in enumerate(values):
        dims = v.shape.dims
        if dims is None:
            out[ax] = None
            continue
        for j, d in enumerate(dims):
            if j == ax:
                out[ax] = None if out[ax] is None or d is None else out[ax] + d  # type: ignore[operator]
            elif d is not None and out[j] is not None and d != out[j]:
                raise ShapeError(
                    f"Dimension {j} in both shapes must be equal: shape[0] = "
                    f"{first.shape} vs. shape[{i}] = {v.shape} (concatenating "
                    f"along axis {ax})"
                )
            elif out[j] is None:
                out[j] = d
    return out


def _concat_infer(inputs: Sequence[Tensor], *, N: int) -> Spec:
    values = inputs[:-1]
    d = same_dtype(values, array.arg_names("values", N))
    ranks = {v.shape.rank for v in values if v.shape.rank is not None}
    if len(ranks) > 1:
        raise ShapeError(
            "all values must have the same rank, got shapes "
            + ", ".join(str(v.shape) for v in values)
        )
    if not ranks:
        return TensorShape(None), d
    r = ranks.pop()
    if r == 0:
        raise ShapeError("Can't concatenate scalars (use stack instead)")
    ax = array.scalar_axis(inputs[-1], r, "ConcatV2")
    return TensorShape([None] * r if ax is None else _concat_dims(values, ax)), d


CONCAT_V2 = register_op(
    "ConcatV2",
    _concat_infer,
    lambda *xs, N: np.concatenate(xs[:-1], axis=int(xs[-1])),
    cases=[
        Case(
            [randn(2, 3), randn(2, 1), randn(2, 4), ints(1)],
            lambda a, b, c, _: np.concatenate([a, b, c], 1),
            attrs={"N": 3},
        )
    ],
)
default_name("ConcatV2", "concat")


def concat(values: Sequence[Any], axis: Any, name: str = "concat") -> Tensor:
    """Join ``values`` along ``axis`` (op type ``ConcatV2``; one value is an Identity)."""
    ts = convert_n(values, "values")
    if not ts:
        raise ValueError("concat needs at least one value")
    if len(ts) == 1:
        return identity(ts[0], name=name)
    return apply_op1("ConcatV2", [*ts, array.int_tensor(axis, "axis")], {"N": len(ts)}, name)


@CONCAT_V2.gradient
def _concat_grad(op: Any, grad: Tensor) -> list[Tensor | None]:
    """dvalues[i] = slice of g along axis at values[i]'s offset; daxis = None."""
    values, axis = op.inputs[:-1], op.inputs[-1]
    r = values[0].shape.rank
    ax = static_ints(axis, "axis")
    sizes = None if ax is None or r is None else [v.shape[ax[0] % r] for v in values]
    if sizes is None or None in sizes:
        return [*split(grad, stack([gather_dim(v, axis) for v in values]), axis), None]
    out: list[Tensor | None] = []
    offset = 0
    for n in sizes:
        begin, size = [0] * r, [-1] * r  # type: ignore[operator]
        begin[ax[0] % r], size[ax[0] % r] = offset, n  # type: ignore[index,operator]
        out.append(slicing.slice(grad, begin, size))
        offset += n
    return [*out, None]


@array_rule("ConcatV2")
def _concat_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    values, g = xs[:-1], grads[0]
    r, out, offset = values[0].ndim, [], 0
    ax = int(np.ravel(xs[-1])[0]) % r
    for v, need in zip(values, needs, strict=False):
        n = v.shape[ax]
        begin, size = [0] * r, [-1] * r
        begin[ax], size[ax] = offset, n
        out.append(_SLICE(g, int32s(begin), int32s(size)) if need else None)
        offset += n
    return [*out, None]


_SLICE, _PACK = kernel("Slice"), kernel("Pack")


def gather_dim(x: Tensor, axis: Tensor) -> Tensor:
    """``shape(x)[axis]`` as a tensor (negative axes count from the end)."""
    s = array.shape(x, out_type=axis.dtype)
    return gather.gather(s, math_ops.floormod(axis, array.size(s, out_type=axis.dtype)))


@CONCAT_V2.batching
def _concat_batch(c: Call) -> list[Tensor]:
    n = len(c.xs) - 1
    if c.batched[n]:
        raise NotVectorizable(c.op, "the axis is not a constant")
    (axis,) = c.ints(n)
    values = [c.full(i) for i in range(n)]
    return c.apply([*values, const(c.axis(axis, c.rank(0)), c.xs[n])])


CONCAT_V2.add_cases(
    Case(
        [randn(3, 2), randn(3, 4)],
        lambda a, b: np.concatenate([a * a, b], -1),
        fn=lambda a, b: concat([a * a, b], -1),
        name="squared_negative_axis",
    )
)


# --------------------------------------------------------------------------------------
# Pack (stack) and Unpack (unstack)


def _pack_infer(inputs: Sequence[Tensor], *, N: int, axis: int) -> Spec:
    d = same_dtype(inputs, array.arg_names("values", N))
    s = inputs[0].shape
    for i, t in enumerate(inputs[1:], 1):
        if not s.is_compatible_with(t.shape):
            raise ShapeError(
                f"Shapes of all inputs must match: values[0].shape = "
                f"{inputs[0].shape} != values[{i}].shape = {t.shape}"
            )
        s = s.merge_with(t.shape)
    if s.dims is None:
        return TensorShape(None), d
    dims = list(s.dims)
    dims.insert(normalize_axis(axis, len(dims) + 1), N)
    return TensorShape(dims), d


PACK = register_op(
    "Pack",
    _pack_infer,
    lambda *xs, N, axis: np.stack(xs, axis=axis),
    cases=[
        Case(
            [randn(2, 4), randn(2, 4), randn(2, 4)],
            lambda *xs: np.stack(xs, 1),
            attrs={"N": 3, "axis": 1},
        )
    ],
)
default_name("Pack", "stack")


def stack(values: Sequence[Any], axis: int = 0, name: str = "stack") -> Tensor:
    """Stack same-shaped tensors along a new ``axis`` (op type ``Pack``)."""
    if axis == 0 and not any(
        isinstance(v, Tensor) or hasattr(v, "_as_tensor") or hasattr(v, "_dense_tensor")
        for v in values
    ):  # (a Variable has _as_tensor, an IndexedSlices _dense_tensor)
        return constant(values, name=name)  # TF folds a list of plain values to a Const
    ts = convert_n(values, "values")
    return apply_op1("Pack", ts, {"N": len(ts), "axis": int(axis)}, name)


@PACK.gradient
def _pack_grad(op: Any, grad: Tensor) -> list[Tensor]:
    """dvalues = unstack(g, axis)."""
    return unstack(grad, num=op.get_attr("N"), axis=op.get_attr("axis"))


@array_rule("Pack")
def _pack_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    parts = OPS["Unpack"].kernel(grads[0], num=attrs["N"], axis=attrs["axis"])
    parts = [parts] if type(parts) is not tuple else list(parts)
    return [np.asarray(p, dtype=grads[0].dtype) if n else None for p, n in zip(parts, needs)]


@PACK.batching
def _pack_batch(c: Call) -> list[Tensor]:
    axis = c.axis(c.op.get_attr("axis"), c.rank(0) + 1)
    return c.apply([c.full(i) for i in range(len(c.xs))], axis=axis)


PACK.add_cases(
    Case(
        [randn(2, 4), randn(2, 4)],
        lambda a, b: np.stack([a, b], -1),
        fn=lambda a, b: stack([a, b], -1),
        name="last_axis",
    )
)


def _unpack_infer(inputs: Sequence[Tensor], *, num: int, axis: int) -> list[Spec]:
    x = inputs[0]
    if x.shape.dims is None:
        return [(TensorShape(None), x.dtype)] * num
    dims = list(x.shape.dims)
    if not dims:
        raise ShapeError("value must be at least 1-D to unstack, got a scalar")
    a = normalize_axis(axis, len(dims))
    if dims[a] is not None and dims[a] != num:
        raise ShapeError(
            f"Dimension {a} of value (shape {x.shape}) has size {dims[a]}, but num = {num}"
        )
    del dims[a]
    return [(TensorShape(dims), x.dtype)] * num


UNPACK = register_op(
    "Unpack",
    _unpack_infer,
    lambda x, *, num, axis: array.one_or_tuple(list(np.moveaxis(x, axis, 0))),
    cases=[
        Case([randn(2, 3, 4)], lambda x: list(np.moveaxis(x, 1, 0)), attrs={"num": 3, "axis": 1})
    ],
)
default_name("Unpack", "unstack")


def unstack(
    value: Any, num: int | None = None, axis: int = 0, name: str = "unstack"
) -> list[Tensor]:
    """Split ``value`` along ``axis`` into a list of tensors of one rank less."""
    x = convert_to_tensor(value)
    dims = x.shape.dims
    if dims is not None and not -len(dims) <= axis < len(dims):
        raise ValueError(
            f"Argument `axis` = {axis} not in range [{-len(dims)}, {len(dims)}) "
            f"(unstack of a tensor of shape {x.shape})"
        )
    if num is None:
        num = dims[axis] if dims is not None else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return apply_op("Unpack", [x], {"num": int(num), "axis": int(axis)}, name).outputs


@UNPACK.gradient
def _unpack_grad(op: Any, *grads: Tensor) -> Tensor:
    """dx = stack(g_0 .. g_{n-1}, axis); unused outputs arrive as zeros."""
    return stack(list(grads), axis=op.get_attr("axis"))


@array_rule("Unpack")
def _unpack_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    gs = [ZEROS_LIKE(y) if g is None else g for g, y in zip(grads, ys, strict=True)]
    return [_PACK(*gs, N=len(gs), axis=int(attrs["axis"]))]


@UNPACK.batching
def _unpack_batch(c: Call) -> list[Tensor]:
    return c.apply([c.xs[0]], axis=c.axis(c.op.get_attr("axis"), c.rank(0)))


UNPACK.add_cases(
    Case(
        [randn(2, 3)],
        lambda x: (x * x)[1],
        fn=lambda x: unstack(x * x, num=2)[1],
        name="one_output_used",
    )
)


# --------------------------------------------------------------------------------------
# Split (equal parts) and SplitV (given sizes)


def _split_specs(x: Tensor, ax: int | None, sizes: Sequence[int | None]) -> list[Spec]:
    if x.shape.dims is None:
        return [(TensorShape(None), x.dtype)] * len(sizes)
    dims = list(x.shape.dims)
    if ax is None:
        return [(TensorShape([None] * len(dims)), x.dtype)] * len(sizes)
    return [(TensorShape(dims[:ax] + [n] + dims[ax + 1 :]), x.dtype) for n in sizes]


def _split_infer(inputs: Sequence[Tensor], *, num_split: int) -> list[Spec]:
    a, x = inputs
    r = x.shape.rank
    ax = None if r is None else array.scalar_axis(a, r, "Split")
    n = None if ax is None else x.shape[ax]
    if n is not None and n % num_split:
        raise ShapeError(
            f"Number of ways to split should evenly divide the split dimension, "
            f"but got split_dim {ax} (size = {n}) and num_split {num_split}"
        )
    return _split_specs(x, ax, [None if n is None else n // num_split] * num_split)


def _resolve_sizes(sizes: list[int], n: int | None) -> list[int | None]:
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise ShapeError(
            f"size_splits may hold at most one -1 and no other negative value, got {sizes}"
        )
    known = sum(s for s in sizes if s != -1)
    if n is None:
        return [None if s == -1 else s for s in sizes]
    if known != n if -1 not in sizes else known > n:
        raise ShapeError(
            f"size_splits {sizes} must add up to {n}, the size of the split "
            f"dimension (with a -1 entry: at most {n})"
        )
    return [n - known if s == -1 else s for s in sizes]


def _splitv_infer(inputs: Sequence[Tensor], *, num_split: int) -> list[Spec]:
    x, s, a = inputs
    check_dtype("SplitV", s, array.INDEX, "size_splits")
    sizes = static_ints(s, "size_splits")
    if sizes is not None and len(sizes) != num_split:
        raise ShapeError(f"size_splits has {len(sizes)} entries but num_split = {num_split}")
    r = x.shape.rank
    ax = None if r is None else array.scalar_axis(a, r, "SplitV")
    n = None if ax is None else x.shape[ax]
    return _split_specs(x, ax, [None] * num_split if sizes is None else _resolve_sizes(sizes, n))


def _splitv_kernel(x: np.ndarray, s: np.ndarray, a: np.ndarray, *, num_split: int) -> Any:
    ax = int(a) % x.ndim
    sizes = _resolve_sizes([int(i) for i in s], x.shape[ax])
    return array.one_or_tuple(np.split(x, np.cumsum(sizes[:-1]), axis=ax))  # type: ignore[arg-type]


SPLIT = register_op(
    "Split",
    _split_infer,
    lambda a, x, *, num_split: array.one_or_tuple(np.split(x, num_split, axis=int(a))),
    cases=[Case([ints(1), randn(3, 4, 5)], lambda a, x: np.split(x, 2, 1), attrs={"num_split": 2})],
)
SPLIT_V = register_op(
    "SplitV",
    _splitv_infer,
    _splitv_kernel,
    cases=[
        Case(
            [randn(3, 4), ints([1, -1, 2]), ints(-1)],
            lambda x, s, a: np.split(x, [1, 2], -1),
            attrs={"num_split": 3},
        )
    ],
)
default_name("Split", "split")
default_name("SplitV", "split")


def split(
    value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None, name: str = "split"
) -> list[Tensor]:
    """Split into ``n`` equal parts (``Split``) or parts of the given sizes (``SplitV``)."""
    x = convert_to_tensor(value)
    if isinstance(num_or_size_splits, int | np.integer) and not isinstance(
        num_or_size_splits, bool
    ):
        if num_or_size_splits < 1:
            raise ValueError(f"num_or_size_splits must be >= 1, got {num_or_size_splits}")
        return apply_op(
            "Split",
            [array.int_tensor(axis, "axis"), x],
            {"num_split": int(num_or_size_splits)},
            name,
        ).outputs
    sizes = array.int_tensor(num_or_size_splits, "num_or_size_splits")
    if num is None:
        if sizes.shape.rank != 1 or sizes.shape[0] is None:
            raise ValueError(
                f"Cannot infer argument `num` from num_or_size_splits of shape "
                f"{sizes.shape}: pass num="
            )
        num = sizes.shape[0]
    return apply_op(
        "SplitV", [x, sizes, array.int_tensor(axis, "axis")], {"num_split": int(num)}, name
    ).outputs


@SPLIT.gradient
def _split_grad(op: Any, *grads: Tensor) -> tuple[None, Tensor]:
    """dx = concat(g_0 .. g_{n-1}, axis); unused outputs arrive as zeros."""
    return None, concat(list(grads), op.inputs[0])


@SPLIT_V.gradient
def _splitv_grad(op: Any, *grads: Tensor) -> tuple[Tensor, None, None]:
    """dx = concat(g_0 .. g_{n-1}, axis)."""
    return concat(list(grads), op.inputs[2]), None, None


@SPLIT.batching
def _split_batch(c: Call) -> list[Tensor]:
    c.only_batched(1)
    (axis,) = c.ints(0)
    return c.apply([const(c.axis(axis, c.rank(1)), c.xs[0]), c.xs[1]])


@SPLIT_V.batching
def _splitv_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    (axis,) = c.ints(2)
    return c.apply([c.xs[0], c.xs[1], const(c.axis(axis, c.rank(0)), c.xs[2])])


SPLIT.add_cases(
    Case(
        [randn(6, 2)],
        lambda x: np.split(x * x, 3)[2],
        fn=lambda x: split(x * x, 3)[2],
        name="one_output_used",
    )
)
