"""Gathers and scatters: GatherV2, UnsortedSegmentSum, GatherNd, ScatterNd.

Each pair of ops that are one another's gradient lives here together: GatherV2 and
UnsortedSegmentSum, GatherNd and ScatterNd.  A gather on axis 0 has TF's sparse gradient
(an ``IndexedSlices`` of the gathered rows); the others are dense, and duplicate indices
accumulate when densified.  Each op is one record (shape rule, kernel, batching rule,
op-table cases) with its gradient rule beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import hooks
from symgrad.core.batching import Call, NotVectorizable, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import (
    ShapeError,
    Spec,
    apply_op1,
    constant_value,
    register_op,
)
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import joining, slicing
from symgrad.ops.array import structure as array
from symgrad.ops.core import check_dtype, convert_to_tensor, same_dtype, static_ints
from symgrad.ops.math import elementwise as math_ops


def _index_error(idx: np.ndarray, bad: np.ndarray, text: str) -> ValueError:
    """TF's message for the first bad index: ``indices[1] = 7 is not in [0, 5)``."""
    pos = tuple(np.argwhere(bad)[0])
    where_ = f"indices[{','.join(map(str, pos))}]" if pos else "indices"
    return ValueError(f"{where_} = {idx[pos]} {text}")


def _move_axis(x: Tensor, src: int, dst: int, rank: int) -> Tensor:
    """``x`` (of rank ``rank``) with axis ``src`` moved to ``dst``: for batching rules."""
    perm = list(range(rank))
    perm.insert(dst, perm.pop(src))
    return array.transpose(x, perm) if src != dst else x


# --------------------------------------------------------------------------------------
# GatherV2 and UnsortedSegmentSum (its gradient; duplicates accumulate)


def _gather_infer(inputs: Sequence[Tensor], *, batch_dims: int = 0) -> Spec:
    p, idx, a = inputs
    check_dtype("GatherV2", idx, array.INDEX, "indices")
    if p.shape.dims is None:
        return TensorShape(None), p.dtype
    if not p.shape.dims:
        raise ShapeError("params must be at least 1 dimensional, got a scalar")
    ax = array.scalar_axis(a, len(p.shape.dims), "GatherV2")
    if ax is None or idx.shape.dims is None:
        return TensorShape(None), p.dtype
    dims = list(p.shape.dims)
    return TensorShape(dims[:ax] + list(idx.shape.dims) + dims[ax + 1 :]), p.dtype


def _gather_kernel(
    p: np.ndarray, idx: np.ndarray, a: np.ndarray, *, batch_dims: int = 0
) -> np.ndarray:
    ax = int(a) % p.ndim
    if idx.ndim == 0 and ax == 0:  # one row (a loop reading its iteration's slice): index
        i = int(idx)
        if 0 <= i < p.shape[0]:
            return p[i].copy()
    bad = (idx < 0) | (idx >= p.shape[ax])
    if bad.any():
        raise _index_error(idx, bad, f"is not in [0, {p.shape[ax]})")
    return np.take(p, idx, axis=ax)


GATHER_V2 = register_op(
    "GatherV2",
    _gather_infer,
    _gather_kernel,
    cases=[
        Case(
            [randn(5, 3), ints([[1, 4], [1, 0], [1, 2]]), ints(0)],
            lambda p, i, a: np.take(p, i, int(a)),
            attrs={"batch_dims": 0},
            name="axis0_duplicates",
        )
    ],
)


def gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    axis: Any = None,
    batch_dims: int = 0,
    name: str | None = None,
) -> Tensor:
    """``params`` at ``indices`` along ``axis`` (default 0); out of range is an error."""
    if batch_dims:
        return _batch_gather(
            convert_to_tensor(params), array.int_tensor(indices, "indices"), axis, batch_dims, name
        )
    ins = [
        convert_to_tensor(params),
        array.int_tensor(indices, "indices"),
        array.int_tensor(0 if axis is None else axis, "axis"),
    ]
    return apply_op1("GatherV2", ins, {"batch_dims": 0}, name)


def _batch_axis(pd: list[int], idd: list[int], axis: Any, batch_dims: int) -> tuple[int, int]:
    """The normalised (batch_dims, axis) of a batched gather, checked as TF checks them."""
    b = batch_dims + len(idd) if batch_dims < 0 else batch_dims
    if not 0 <= b <= len(idd):
        raise InvalidArgumentError(
            f"Expected batch_dims in the range [{-len(idd)}, {len(idd)}], but got {batch_dims}"
        )
    known = [b] if axis is None else static_ints(array.int_tensor(axis, "axis"), "axis")
    if known is None:
        raise NotImplementedError(f"gather with batch_dims={batch_dims} needs a static axis")
    ax = int(known[0])
    if not b <= ax % len(pd):
        raise InvalidArgumentError(f"batch_dims ({b}) must be less than or equal to axis ({ax})")
    for i in range(b):
        if pd[i] != idd[i]:
            raise InvalidArgumentError(
                f"params.shape[{i}]: {pd[i]} should be equal to indices.shape[{i}]: {idd[i]}"
            )
    return b, ax % len(pd)


def _batch_gather(p: Tensor, idx: Tensor, axis: Any, batch_dims: int, name: str | None) -> Tensor:
    """``gather`` with ``batch_dims = b``: for each position of the b leading (batch) axes
    that params and indices share, gather along ``axis`` with that batch's indices.

    Built as a ``gather_nd`` whose coordinates are (batch position..., index), after
    moving ``axis`` to just after the batch axes; so every index is checked against its
    own axis and the gradient is gather_nd's (a scatter_nd).  Needs static shapes."""
    if not (p.shape.is_fully_defined() and idx.shape.is_fully_defined()):
        raise NotImplementedError(
            f"gather with batch_dims={batch_dims} needs fully defined shapes, got params "
            f"{p.shape} and indices {idx.shape}"
        )
    pd: list[int] = [d or 0 for d in p.shape.as_list()]  # fully defined: no None
    idd: list[int] = [d or 0 for d in idx.shape.as_list()]
    b, ax = _batch_axis(pd, idd, axis, batch_dims)
    perm = [*range(b), ax, *range(b, ax), *range(ax + 1, len(pd))]
    moved = array.transpose(p, perm) if ax != b else p
    coords = np.moveaxis(np.indices(idd[:b], dtype=idx.dtype.np), 0, -1)
    coords = np.broadcast_to(coords.reshape(idd[:b] + [1] * (len(idd) - b) + [b]), [*idd, b])
    nd = joining.concat([convert_to_tensor(coords), array.expand_dims(idx, -1)], -1)
    out = gather_nd(moved, nd, name=name)  # B + I + (params' other axes)
    n_i, n_pre = len(idd) - b, ax - b
    back = [*range(b), *range(b + n_i, b + n_i + n_pre), *range(b, b + n_i)]
    back += list(range(b + n_i + n_pre, len(pd) - 1 + n_i))
    return array.transpose(out, back) if n_pre and n_i else out


@GATHER_V2.gradient
def _gather_grad(op: Any, grad: Tensor) -> tuple[Any, None, None]:
    """dparams = IndexedSlices(g rows, flat indices, shape(params)) for axis 0 (as TF);
    other axes: unsorted_segment_sum of g at the gathered positions, moved to axis."""
    p, idx, a = op.inputs
    r, ax = p.shape.rank, static_ints(a, "axis")
    if ax is not None and ax[0] == 0:
        return gather_slices(p, idx, grad), None, None
    if r is None or ax is None:
        return _gather_grad_dynamic(p, idx, a, grad), None, None
    ax0 = ax[0] % r
    dims: Any = (
        p.shape.as_list() if p.shape.is_fully_defined() else array.shape(p, out_type=idx.dtype)
    )
    if isinstance(dims, list):
        g = array.reshape(grad, [*dims[:ax0], -1, *dims[ax0 + 1 :]])
    else:
        g = array.reshape(grad, joining.concat([dims[:ax0], [-1], dims[ax0 + 1 :]], 0))
    perm = [ax0, *range(ax0), *range(ax0 + 1, r)]
    seg = unsorted_segment_sum(
        array.transpose(g, perm) if ax0 else g, array.reshape(idx, [-1]), dims[ax0]
    )
    return (array.transpose(seg, np.argsort(perm).tolist()) if ax0 else seg), None, None


def gather_slices(p: Any, idx: Tensor, grad: Tensor) -> Any:
    """The rows of ``grad`` (one per index, indices flattened) as slices of params' shape
    (an int32 shape, as TF's ``shape(params)``): the rule of GatherV2 on axis 0.  The
    ``IndexedSlices`` type belongs to the sparse family, a layer up, which provides it."""
    known = p.shape.dims
    if p.shape.is_fully_defined():
        dims: Any = convert_to_tensor(np.array(p.shape.as_list(), np.int32))
    else:
        dims = array.shape(p)
    tail: Any = list(known[1:]) if known is not None and None not in known[1:] else None
    if tail is None:
        tail = slicing.slice(dims, [1], [-1])
    size: Any = [idx.shape.num_elements()] if idx.shape.is_fully_defined() else None
    if size is None and isinstance(tail, list) and all(tail):
        size = [-1]  # the same count (grad has size(indices) rows), and a static tail
    if size is None:
        size = array.reshape(array.size(idx), [1])
    shape: Any = [*size, *tail] if isinstance(tail, list) and isinstance(size, list) else None
    if shape is None:
        shape = joining.concat([size, tail], 0)
    values = array.reshape(grad, shape)
    return hooks.hook("IndexedSlices")(values, array.reshape(idx, size), dims)


def _gather_grad_dynamic(p: Tensor, idx: Tensor, a: Tensor, grad: Tensor) -> Tensor:
    """The same rule built from shape ops, for an unknown params rank or axis."""
    dims = array.shape(p, out_type=a.dtype)
    ax = math_ops.floormod(a, array.size(dims, out_type=a.dtype))
    at = array.reshape(ax, [1])
    outer, inner = slicing.slice(dims, [0], at), slicing.slice(dims, math_ops.add(at, 1), [-1])
    g = array.reshape(grad, joining.concat([outer, [-1], inner], 0))
    perm = joining.concat(
        [at, array.range(ax), array.range(math_ops.add(ax, 1), array.size(dims, out_type=a.dtype))],
        0,
    )
    seg = unsorted_segment_sum(array.transpose(g, perm), array.reshape(idx, [-1]), gather(dims, ax))
    return array.transpose(seg, array.invert_permutation(perm))


@GATHER_V2.batching
def _gather_batch(c: Call) -> list[Tensor]:
    if c.op.get_attr("batch_dims") != 0:
        raise NotVectorizable(c.op, "batch_dims is not 0")
    (axis,) = c.ints(2)
    if c.batched[1]:
        return [_gather_batched_indices(c, axis)]
    c.only_batched(0)
    return c.apply([c.xs[0], c.xs[1], const(c.axis(axis, c.rank(0)), c.xs[2])])


def _gather_batched_indices(c: Call, axis: int) -> Tensor:
    """Example k gathers from its own params: the K params laid end to end along the
    gathered axis, each example's indices offset by k times that axis's length (which
    alone may be unknown, as in a loop's stack of values)."""
    r, ir = c.rank(0), c.rank(1)
    a = c.axis(axis, r) - 1
    dims = list(c.op.inputs[0].shape.dims or [])
    if any(d is None for i, d in enumerate(dims) if i != a):
        raise NotVectorizable(c.op, f"params have a partly unknown shape {c.op.inputs[0].shape}")
    p = c.xs[0] if c.batched[0] else c.full(0)
    n = dims[a] if dims[a] is not None else gather(array.shape(p, out_type=c.xs[1].dtype), a + 1)
    perm = [0, a + 1, *(i for i in range(1, r + 1) if i != a + 1)]
    flat = array.reshape(array.transpose(p, perm), [-1, *dims[:a], *dims[a + 1 :]])
    step = math_ops.multiply(const(np.arange(c.k), c.xs[1]), n)
    offsets = math_ops.add(array.reshape(step, [c.k] + [1] * ir), c.xs[1])
    # Out of its example's range, an index reads the example's first row, not the next
    # example's: a loop vectorised under a batched condition still runs the body for its
    # finished examples (their results are dropped), whose indices may have run past the end.
    inside = math_ops.logical_and(c.xs[1] >= 0, c.xs[1] < n)
    offsets = array.where(
        inside,
        offsets,
        array.broadcast_to(array.reshape(step, [c.k] + [1] * ir), array.shape(offsets)),
    )
    g = gather(flat, offsets)  # [K, *index dims, *dims before a, *dims after a]
    back = [0, *range(1 + ir, 1 + ir + a), *range(1, 1 + ir), *range(1 + ir + a, ir + r)]
    return array.transpose(g, back)


GATHER_V2.add_cases(
    Case(
        [randn(2, 5, 3), ints([4, 0, 4, 2])],
        lambda p, i: np.take(p, i, 1),
        fn=lambda p, i: gather(p, i, axis=1),
        name="axis1",
    ),
    Case(
        [randn(2, 4), ints(3)],
        lambda p, i: np.take(p * p, i, -1),
        fn=lambda p, i: gather(p * p, i, axis=-1),
        name="squared_scalar_index",
    ),
)


def _uss_infer(inputs: Sequence[Tensor]) -> Spec:
    data, ids, n = inputs
    check_dtype("UnsortedSegmentSum", ids, array.INDEX, "segment_ids")
    check_dtype("UnsortedSegmentSum", n, array.INDEX, "num_segments")
    num = static_ints(n, "num_segments")
    if num is not None and num[0] < 0:
        raise ShapeError(f"Input num_segments == {num[0]} must not be negative.")
    if data.shape.dims is None or ids.shape.dims is None:
        return TensorShape(None), data.dtype
    k = len(ids.shape.dims)
    if not TensorShape(data.shape.dims[:k]).is_compatible_with(ids.shape):
        raise ShapeError(
            f"segment_ids.shape = {ids.shape} must be a prefix of data.shape = {data.shape}"
        )
    return TensorShape([None if num is None else num[0], *data.shape.dims[k:]]), data.dtype


def _uss_kernel(data: np.ndarray, ids: np.ndarray, n: np.ndarray) -> np.ndarray:
    count = int(n)
    if count < 0:
        raise ValueError(f"Input num_segments == {count} must not be negative.")
    if (ids >= count).any():
        raise _index_error(ids, ids >= count, f"is out of range [0, {count}) (segment_ids)")
    rows = data.reshape((-1, *data.shape[ids.ndim :]))
    flat = ids.reshape(-1)
    out = np.zeros((count, *data.shape[ids.ndim :]), data.dtype)
    np.add.at(out, flat[flat >= 0], rows[flat >= 0])  # TF drops negative ids
    return out


def _segment_sum_ref(data: np.ndarray, ids: np.ndarray, n: Any) -> np.ndarray:
    out = np.zeros((int(n), *data.shape[ids.ndim :]), data.dtype)
    np.add.at(out, ids, data)
    return out


UNSORTED_SEGMENT_SUM = register_op(
    "UnsortedSegmentSum",
    _uss_infer,
    _uss_kernel,
    cases=[Case([randn(5, 3), ints([3, 0, 3, 1, 3]), ints(4)], _segment_sum_ref)],
)


def unsorted_segment_sum(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """``out[i] = sum of data[j] with segment_ids[j] == i``; negative ids are dropped."""
    ids = array.int_tensor(segment_ids, "segment_ids")
    n = convert_to_tensor(num_segments, None if isinstance(num_segments, Tensor) else ids.dtype)
    return apply_op1("UnsortedSegmentSum", [convert_to_tensor(data), ids, n], name=name)


@UNSORTED_SEGMENT_SUM.gradient
def _uss_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """ddata = gather(g, segment_ids), zero where an id is negative."""
    data, ids, _ = op.inputs
    known = constant_value(ids)
    if known is not None and (known >= 0).all():
        return gather(grad, ids), None, None
    picked = gather(grad, math_ops.maximum(ids, 0))
    if data.shape.rank is None or ids.shape.rank is None:
        raise NotImplementedError("UnsortedSegmentSum gradient needs static ranks")
    inner = data.shape.rank - ids.shape.rank
    keep = array.reshape(
        math_ops.greater_equal(ids, 0), joining.concat([array.shape(ids), [1] * inner], 0)
    )
    return array.where(keep, picked, array.zeros_like(picked)), None, None


@UNSORTED_SEGMENT_SUM.batching
def _uss_batch(c: Call) -> list[Tensor]:
    """The segment ids index the leading axes of data: the batch axis goes just after them."""
    c.only_batched(0)
    ids = c.rank(1)
    data = _move_axis(c.xs[0], 0, ids, c.rank(0) + 1)
    (out,) = c.apply([data, c.xs[1], c.xs[2]])
    return [_move_axis(out, 1, 0, c.rank(0) - ids + 2)]


UNSORTED_SEGMENT_SUM.add_cases(
    Case(
        [randn(4, 2), ints([2, -1, 0, 2])],
        lambda d, i: _segment_sum_ref(d[i >= 0], i[i >= 0], 3),
        fn=lambda d, i: unsorted_segment_sum(d, i, 3),
        name="negative_ids_dropped",
    )
)


# --------------------------------------------------------------------------------------
# GatherNd and ScatterNd: each is the other's gradient


def _nd_depth(op_type: str, idx: Tensor, rank: int | None) -> int | None:
    check_dtype(op_type, idx, array.INDEX, "indices")
    if idx.shape.rank == 0:
        raise ShapeError("indices must be at least 1-D (the last axis indexes into params)")
    k = None if idx.shape.rank is None else idx.shape[-1]
    if k is not None and rank is not None and k > rank:
        raise ShapeError(
            f"index innermost dimension length must be <= params rank; saw: {k} vs. {rank}"
        )
    return k


def _check_nd(idx: np.ndarray, dims: Sequence[int]) -> None:
    bad = ((idx < 0) | (idx >= np.array(dims, np.int64))).any(axis=-1)
    if bad.any():
        pos = tuple(np.argwhere(bad)[0])
        raise ValueError(
            f"indices[{','.join(map(str, pos))}] = {idx[pos].tolist()} does not "
            f"index into param shape {list(dims)}"
        )


def _gather_nd_infer(inputs: Sequence[Tensor], *, batch_dims: int = 0) -> Spec:
    p, idx = inputs
    k = _nd_depth("GatherNd", idx, p.shape.rank)
    if k is None or p.shape.dims is None:
        return TensorShape(None), p.dtype
    return TensorShape([*idx.shape.dims[:-1], *p.shape.dims[k:]]), p.dtype  # type: ignore[index]


def _gather_nd_kernel(p: np.ndarray, idx: np.ndarray, *, batch_dims: int = 0) -> np.ndarray:
    k = idx.shape[-1]
    _check_nd(idx, p.shape[:k])
    if not k:
        return np.array(np.broadcast_to(p, idx.shape[:-1] + p.shape))
    return p[tuple(np.moveaxis(idx, -1, 0))]


GATHER_ND = register_op(
    "GatherNd",
    _gather_nd_infer,
    _gather_nd_kernel,
    cases=[
        Case(
            [randn(3, 4, 2), ints([[2, 1], [0, 3], [2, 1]])],
            lambda p, i: p[tuple(np.moveaxis(i, -1, 0))],
            attrs={"batch_dims": 0},
        )
    ],
)


def gather_nd(
    params: Any,
    indices: Any,
    batch_dims: int = 0,
    name: str | None = None,
    bad_indices_policy: str = "",
) -> Tensor:
    """``out[i...] = params[indices[i..., :]]`` (the last axis of indices is a position)."""
    if batch_dims:
        raise NotImplementedError("gather_nd with batch_dims != 0 is not implemented")
    ins = [convert_to_tensor(params), array.int_tensor(indices, "indices")]
    return apply_op1("GatherNd", ins, {"batch_dims": 0}, name)


@GATHER_ND.gradient
def _gather_nd_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dparams = scatter_nd(indices, g, shape(params)) (duplicates add)."""
    p, idx = op.inputs
    dims = p.shape.as_list() if p.shape.is_fully_defined() else array.shape(p, out_type=idx.dtype)
    return scatter_nd(idx, grad, dims), None


@GATHER_ND.batching
def _gather_nd_batch(c: Call) -> list[Tensor]:
    """The index tuples address params' leading ``depth`` axes: the batch axis follows them."""
    c.only_batched(0)
    if c.op.get_attr("batch_dims") != 0:
        raise NotVectorizable(c.op, "batch_dims is not 0")
    depth, lead = c.dims(1)[-1], c.rank(1) - 1
    (out,) = c.apply([_move_axis(c.xs[0], 0, depth, c.rank(0) + 1), c.xs[1]])
    return [_move_axis(out, lead, 0, lead + 1 + c.rank(0) - depth)]


def _scatter_nd_infer(inputs: Sequence[Tensor]) -> Spec:
    idx, u, s = inputs
    check_dtype("ScatterNd", s, array.INDEX, "shape")
    same_dtype([idx, s], ("indices", "shape"))
    dims = static_ints(s, "shape")
    k = _nd_depth("ScatterNd", idx, None if dims is None else len(dims))
    if dims is None:
        return array.unknown_dims(s), u.dtype
    if k is not None and idx.shape.dims is not None:
        want = [*idx.shape.dims[:-1], *dims[k:]]
        if not u.shape.is_compatible_with(want):
            raise ShapeError(
                f"updates must have shape indices.shape[:-1] + shape[{k}:] = "
                f"{want}, but got {u.shape}"
            )
    return TensorShape(dims), u.dtype


def _scatter_nd_kernel(idx: np.ndarray, u: np.ndarray, s: np.ndarray) -> np.ndarray:
    out = np.zeros(tuple(s), u.dtype)
    k = idx.shape[-1]
    _check_nd(idx, out.shape[:k])
    np.add.at(out, tuple(np.moveaxis(idx, -1, 0)), u)
    return out


def _scatter_nd_ref(idx: np.ndarray, u: np.ndarray, shape: np.ndarray) -> np.ndarray:
    out = np.zeros(tuple(shape), u.dtype)
    np.add.at(out, tuple(np.moveaxis(idx, -1, 0)), u)
    return out


SCATTER_ND = register_op(
    "ScatterNd",
    _scatter_nd_infer,
    _scatter_nd_kernel,
    cases=[Case([ints([[1], [3], [1]]), randn(3, 3), ints([4, 3])], _scatter_nd_ref)],
)


def scatter_nd(
    indices: Any, updates: Any, shape: Any, bad_indices_policy: str = "", name: str | None = None
) -> Tensor:
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates add)."""
    idx = array.int_tensor(indices, "indices")
    s = convert_to_tensor(shape, None if isinstance(shape, Tensor) else idx.dtype)
    return apply_op1("ScatterNd", [idx, convert_to_tensor(updates), s], name=name)


@SCATTER_ND.gradient
def _scatter_nd_grad(op: Any, grad: Tensor) -> tuple[None, Tensor, None]:
    """dupdates = gather_nd(g, indices)."""
    return None, gather_nd(grad, op.inputs[0]), None


@SCATTER_ND.batching
def _scatter_nd_batch(c: Call) -> list[Tensor]:
    c.only_batched(1)
    depth, lead = c.dims(0)[-1], c.rank(0) - 1
    shape = c.ints(2)
    updates = _move_axis(c.xs[1], 0, lead, c.rank(1) + 1)
    wide = const(shape[:depth] + [c.k] + shape[depth:], c.xs[2])
    (out,) = c.apply([c.xs[0], updates, wide])
    return [_move_axis(out, depth, 0, len(shape) + 1)]
