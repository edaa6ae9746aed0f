"""Segment reductions: SegmentSum/Mean/Max/Min/Prod (sorted ids), UnsortedSegmentMax/Min/Prod,
and ``unsorted_segment_mean`` / ``sqrt_n``.

``segment_ids`` label the leading axes of ``data``; each output row reduces the rows with its
label.  As in TF: sorted segment ops need non-negative, non-decreasing ids and give 0 for an
empty segment (1 for Prod); the unsorted ones drop negative ids and give the reduction's
identity for an empty segment (the dtype's lowest value for Max, its highest for Min, 1 for
Prod).  UnsortedSegmentSum lives with GatherV2 in ``ops.gather``.  Gradient rules are TF's
(math_grad.py): ties of Max/Min share the gradient evenly, and Prod's handles zeros.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import Case, distinct, ints, randn, uniform
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import OpDef, ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import gather, joining
from symgrad.ops.array import structure as array
from symgrad.ops.core import REAL, check_dtype, convert_to_tensor, static_ints
from symgrad.ops.math.elementwise import equal, greater, greater_equal, logical_and, maximum, sqrt

# --------------------------------------------------------------------------------------
# Kernels: one scatter with a ufunc, then the empty segments filled


def _scatter(ufunc: Any, init: Any, data: np.ndarray, ids: np.ndarray, n: int) -> np.ndarray:
    out = np.full((n, *data.shape[ids.ndim :]), init, dtype=data.dtype)
    flat = ids.reshape(-1)
    rows = data.reshape((-1, *data.shape[ids.ndim :]))
    keep = flat >= 0
    ufunc.at(out, flat[keep], rows[keep])
    return out


def _counts(ids: np.ndarray, n: int, rank: int) -> np.ndarray:
    flat = ids.reshape(-1)
    c = np.bincount(flat[flat >= 0], minlength=n)
    return c.reshape((n,) + (1,) * (rank - ids.ndim))


def _limits(dtype: np.dtype) -> tuple[Any, Any]:
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min, info.max


def _reduce(kind: str, data: np.ndarray, ids: np.ndarray, n: int, sorted_: bool) -> np.ndarray:
    if kind == "sum":
        return _scatter(np.add, 0, data, ids, n)
    if kind == "prod":
        return _scatter(np.multiply, 1, data, ids, n)
    count = _counts(ids, n, data.ndim)
    if kind == "mean":
        s = _scatter(np.add, 0, data, ids, n)
        if data.dtype.kind in "iu":  # C division: truncation toward zero
            q = s // np.maximum(count, 1)
            return (q + ((s % np.maximum(count, 1) != 0) & (s < 0))).astype(data.dtype)
        return np.where(count > 0, s / np.maximum(count, 1), 0).astype(data.dtype)
    lo, hi = _limits(data.dtype)
    out = _scatter(
        np.maximum if kind == "max" else np.minimum, lo if kind == "max" else hi, data, ids, n
    )
    return np.where(count > 0, out, 0).astype(data.dtype) if sorted_ else out


def _sorted_kernel(kind: str) -> Any:
    def kernel(data: np.ndarray, ids: np.ndarray) -> np.ndarray:
        if ids.shape[0] != data.shape[0]:
            raise ValueError("segment_ids should be the same size as dimension 0 of input.")
        n = int(ids[-1]) + 1 if ids.size else 0
        if ids.size and ids.min() < 0:
            raise ValueError(
                f"Segment id {int(ids.min())} out of range [0, {n}), possibly "
                "because 'segment_ids' input is not sorted."
            )
        if np.any(np.diff(ids) < 0):
            raise ValueError("segment ids are not increasing")
        return _reduce(kind, data, ids, n, True)

    return kernel


def _unsorted_kernel(kind: str) -> Any:
    def kernel(data: np.ndarray, ids: np.ndarray, num: np.ndarray) -> np.ndarray:
        n = int(num)
        if data.shape[: ids.ndim] != ids.shape:
            raise ValueError(
                f"data.shape = {list(data.shape)} does not start with "
                f"segment_ids.shape = {list(ids.shape)}"
            )
        bad = np.argwhere(ids >= n)
        if bad.size:
            pos = ",".join(map(str, bad[0]))
            raise ValueError(f"segment_ids[{pos}] = {ids[tuple(bad[0])]} is out of range [0, {n})")
        return _reduce(kind, data, ids, n, False)

    return kernel


# --------------------------------------------------------------------------------------
# Shape rules and the batching rule


def _sorted_infer(op_type: str) -> Any:
    def infer(inputs: Sequence[Tensor]) -> Spec:
        data, ids = inputs
        check_dtype(op_type, data, REAL, "data")
        check_dtype(op_type, ids, array.INDEX, "segment_ids")
        if ids.shape.rank not in (None, 1):
            raise ShapeError(f"segment_ids must be a vector, got shape {ids.shape}")
        if data.shape.rank == 0:
            raise ShapeError("data must be at least rank 1, got a scalar")
        n, m = (None if t.shape.rank is None else t.shape[0] for t in (data, ids))
        if n is not None and m is not None and n != m:
            raise ShapeError(
                f"segment_ids should be the same size as dimension 0 of input: "
                f"{m} and {n} (data shape {data.shape})"
            )
        if data.shape.dims is None:
            return TensorShape(None), data.dtype
        known = static_ints(ids, "segment_ids")  # constant ids fix the number of segments
        count = (known[-1] + 1 if known else 0) if known is not None else None
        return TensorShape([count, *data.shape.dims[1:]]), data.dtype

    return infer


def _unsorted_infer(op_type: str) -> Any:
    def infer(inputs: Sequence[Tensor]) -> Spec:
        data, ids, num = inputs
        check_dtype(op_type, data, REAL, "data")
        check_dtype(op_type, ids, array.INDEX, "segment_ids")
        check_dtype(op_type, num, array.INDEX, "num_segments")
        n = static_ints(num, "num_segments")
        if data.shape.dims is None or ids.shape.dims is None:
            return TensorShape(None), data.dtype
        k = len(ids.shape.dims)
        if not TensorShape(data.shape.dims[:k]).is_compatible_with(ids.shape):
            raise ShapeError(
                f"data.shape = {data.shape} does not start with segment_ids.shape = {ids.shape}"
            )
        return TensorShape([None if n is None else n[0], *data.shape.dims[k:]]), data.dtype

    return infer


def _move_axis(x: Tensor, src: int, dst: int, rank: int) -> Tensor:
    perm = list(range(rank))
    perm.insert(dst, perm.pop(src))
    return array.transpose(x, perm) if src != dst else x


def _segment_batch(c: Call) -> list[Tensor]:
    """The ids label data's leading axes: the batch axis goes just after them, then back."""
    c.only_batched(0)
    k = c.rank(1)
    data = _move_axis(c.xs[0], 0, k, c.rank(0) + 1)
    (out,) = c.apply([data, *c.xs[1:]])
    return [_move_axis(out, 1, 0, c.rank(0) - k + 2)]


def _register(op_type: str, kind: str, sorted_: bool, cases: list[Case]) -> OpDef:
    if sorted_:
        return register_op(
            op_type, _sorted_infer(op_type), _sorted_kernel(kind), batch=_segment_batch, cases=cases
        )
    return register_op(
        op_type, _unsorted_infer(op_type), _unsorted_kernel(kind), batch=_segment_batch, cases=cases
    )


# --------------------------------------------------------------------------------------
# References for the rows: a Python loop over segments (the kernels have none)

_IDS = [0, 0, 2, 2, 2, 3]  # segment 1 is empty
_UIDS = [3, -1, 0, 2, 1, 3]  # a negative id is dropped


def _ref(kind: str, sorted_: bool) -> Any:
    def ref(data: np.ndarray, ids: np.ndarray, num: Any = None) -> np.ndarray:
        n = int(ids.max()) + 1 if num is None else int(num)
        rows = []
        for s in range(n):
            group = data[ids == s]
            if not len(group):
                lo, hi = _limits(data.dtype)
                empty = {"sum": 0, "mean": 0, "prod": 1, "max": lo, "min": hi}[kind]
                rows.append(np.full(data.shape[1:], 0 if sorted_ and kind != "prod" else empty))
                continue
            reduce: Any = {
                "sum": np.sum,
                "mean": np.mean,
                "prod": np.prod,
                "max": np.max,
                "min": np.min,
            }[kind]
            rows.append(reduce(group, axis=0))
        return np.array(rows, data.dtype)

    return ref


def _sorted_cases(kind: str, gen: Any) -> list[Case]:
    return [
        Case([gen(6, 3), ints(_IDS)], _ref(kind, True)),
        Case(
            [gen(6, 2, 3), ints(_IDS)],
            _ref(kind, True),
            dtypes=(np.float64, np.int32),
            order=0,
            name="rank3_int",
            note="forward only: integer data",
        ),
    ]


def _unsorted_cases(kind: str, gen: Any) -> list[Case]:
    return [
        Case(
            [gen(6, 3), ints(_UIDS), ints(4)],
            _ref(kind, False),
            note="no empty segment: its identity (the dtype's lowest value for Max) "
            "would swamp the finite differences",
        ),
        Case(
            [gen(6, 2, 3), ints(_UIDS), ints(6)],
            _ref(kind, False),
            dtypes=(np.int64,),
            order=0,
            name="int_empty",
            note="forward only: integer data, segments 4 and 5 empty",
        ),
    ]


def _smooth(*shape: int) -> Any:
    """Away from 0, where Prod's rule switches case."""
    return uniform(0.5, 1.5, *shape)


SEGMENT_SUM = _register("SegmentSum", "sum", True, _sorted_cases("sum", randn))
SEGMENT_MEAN = _register("SegmentMean", "mean", True, _sorted_cases("mean", randn))
SEGMENT_MAX = _register("SegmentMax", "max", True, _sorted_cases("max", distinct))
SEGMENT_MIN = _register("SegmentMin", "min", True, _sorted_cases("min", distinct))
SEGMENT_PROD = _register("SegmentProd", "prod", True, _sorted_cases("prod", _smooth))
UNSORTED_MAX = _register("UnsortedSegmentMax", "max", False, _unsorted_cases("max", distinct))
UNSORTED_MIN = _register("UnsortedSegmentMin", "min", False, _unsorted_cases("min", distinct))
UNSORTED_PROD = _register("UnsortedSegmentProd", "prod", False, _unsorted_cases("prod", _smooth))


def _sorted(op_type: str, data: Any, segment_ids: Any, name: str | None) -> Tensor:
    ids = array.int_tensor(segment_ids, "segment_ids")
    return apply_op1(op_type, [convert_to_tensor(data), ids], name=name)


def _unsorted(
    op_type: str, data: Any, segment_ids: Any, num_segments: Any, name: str | None
) -> Tensor:
    ids = array.int_tensor(segment_ids, "segment_ids")
    n = convert_to_tensor(num_segments, None if isinstance(num_segments, Tensor) else ids.dtype)
    return apply_op1(op_type, [convert_to_tensor(data), ids, n], name=name)


def segment_sum(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Sum of the rows of ``data`` with each (sorted) segment id; 0 for an empty segment."""
    return _sorted("SegmentSum", data, segment_ids, name)


def segment_mean(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Mean of the rows of ``data`` with each (sorted) segment id; 0 for an empty segment."""
    return _sorted("SegmentMean", data, segment_ids, name)


def segment_max(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Maximum of the rows of ``data`` with each (sorted) segment id; 0 for an empty one."""
    return _sorted("SegmentMax", data, segment_ids, name)


def segment_min(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Minimum of the rows of ``data`` with each (sorted) segment id; 0 for an empty one."""
    return _sorted("SegmentMin", data, segment_ids, name)


def segment_prod(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Product of the rows of ``data`` with each (sorted) segment id; 1 for an empty one."""
    return _sorted("SegmentProd", data, segment_ids, name)


def unsorted_segment_max(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Maximum per segment id; the dtype's lowest value for an empty segment."""
    return _unsorted("UnsortedSegmentMax", data, segment_ids, num_segments, name)


def unsorted_segment_min(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Minimum per segment id; the dtype's highest value for an empty segment."""
    return _unsorted("UnsortedSegmentMin", data, segment_ids, num_segments, name)


def unsorted_segment_prod(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Product per segment id; 1 for an empty segment."""
    return _unsorted("UnsortedSegmentProd", data, segment_ids, num_segments, name)


def _then_ones(lead: Any, x: Tensor, ids: Tensor) -> Any:
    """The shape ``lead`` followed by a 1 for each axis ``x`` has beyond ``ids``' rank: a
    per-segment (or per-id) quantity shaped to broadcast against x's rows.  Static when
    the ranks are, else built from Rank ops as TF does."""
    if x.shape.rank is not None and ids.shape.rank is not None:
        extra = [1] * (x.shape.rank - ids.shape.rank)
        return lead + extra if isinstance(lead, list) else joining.concat([lead, extra], 0)
    count = array.expand_dims(array.rank(x) - array.rank(ids), 0)
    return joining.concat([lead, array.ones(count, dt.int32)], 0)


def _segment_counts(data: Tensor, ids: Tensor, n: Any) -> Tensor:
    """The number of rows in each segment (at least 1), shaped to broadcast against the sum."""
    count = gather.unsorted_segment_sum(array.ones_like(ids, dtype=data.dtype), ids, n)
    return maximum(array.reshape(count, _then_ones([-1], data, ids)), 1)


def unsorted_segment_mean(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Mean per segment id (a sum over a count, as TF builds it); 0 for an empty segment."""
    x, ids = convert_to_tensor(data), array.int_tensor(segment_ids, "segment_ids")
    total = gather.unsorted_segment_sum(x, ids, num_segments)
    return total / _segment_counts(x, ids, num_segments)


def unsorted_segment_sqrt_n(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Sum per segment id over the square root of its count; 0 for an empty segment."""
    x, ids = convert_to_tensor(data), array.int_tensor(segment_ids, "segment_ids")
    total = gather.unsorted_segment_sum(x, ids, num_segments)
    return total / sqrt(_segment_counts(x, ids, num_segments))


# --------------------------------------------------------------------------------------
# Gradients (TF's rules)


@SEGMENT_SUM.gradient
def _segment_sum_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """ddata = gather(g, ids)."""
    return gather.gather(grad, op.inputs[1]), None


@SEGMENT_MEAN.gradient
def _segment_mean_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """ddata = gather(g / count, ids)."""
    data, ids = op.inputs
    ones = array.reshape(array.ones_like(ids, dtype=grad.dtype), _then_ones([-1], data, ids))
    return gather.gather(grad / segment_sum(ones, ids), ids), None


def _min_or_max_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """The selected entries share g evenly: g / count(selected), gathered where selected."""
    data, ids = op.inputs
    selected = equal(data, gather.gather(op.outputs[0], ids))
    count = segment_sum(array.cast(selected, grad.dtype), ids)
    shared = gather.gather(grad / count, ids)
    return array.where(selected, shared, array.zeros_like(data)), None


SEGMENT_MAX.gradient(_min_or_max_grad)
SEGMENT_MIN.gradient(_min_or_max_grad)


def _prod_parts(op: Any, prod: Any, ids: Tensor, gather_ids: Tensor) -> tuple[Tensor, Tensor]:
    """(segments with at most one zero, d prod / d data): TF's three cases of zeros."""
    data = op.inputs[0]
    zero = equal(data, array.zeros_like(data))
    nonzero = array.where(zero, array.ones_like(data), data)
    others = prod(nonzero)
    with_zero = gather.gather(others, gather_ids)
    divided = gather.gather(op.outputs[0], gather_ids) / nonzero
    return zero, array.where(zero, with_zero, divided)


@SEGMENT_PROD.gradient
def _segment_prod_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """g · prod / x, or the product of the others at a lone zero; 0 with two zeros."""
    _data, ids = op.inputs
    zero, partial = _prod_parts(op, lambda x: segment_prod(x, ids), ids, ids)
    zeros = segment_sum(array.cast(zero, dt.int32), ids)
    g = array.where(greater(zeros, 1), array.zeros_like(grad), grad)
    return gather.gather(g, ids) * partial, None


def _gather_drop_negatives(params: Tensor, ids: Tensor) -> tuple[Tensor, Tensor]:
    """params gathered at the ids, 0 where an id is negative; and the mask of valid ids
    (shaped to broadcast against the gathered rows)."""
    picked = gather.gather(params, maximum(ids, array.zeros_like(ids)))
    lead = ids.shape.as_list() if ids.shape.is_fully_defined() else array.shape(ids)
    shape = _then_ones(lead, picked, ids)
    valid = array.reshape(greater_equal(ids, 0), shape)
    return array.where(valid, picked, array.zeros_like(picked)), valid


def _unsorted_min_or_max_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """As for sorted segments, with negative ids dropped."""
    data, ids, num = op.inputs
    outputs, valid = _gather_drop_negatives(op.outputs[0], ids)
    selected = logical_and(equal(data, outputs), valid)
    count = gather.unsorted_segment_sum(array.cast(selected, grad.dtype), ids, num)
    shared, _ = _gather_drop_negatives(grad / count, ids)
    return array.where(selected, shared, array.zeros_like(shared)), None, None


UNSORTED_MAX.gradient(_unsorted_min_or_max_grad)
UNSORTED_MIN.gradient(_unsorted_min_or_max_grad)


@UNSORTED_PROD.gradient
def _unsorted_prod_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """As SegmentProd's, with negative ids dropped."""
    _data, ids, num = op.inputs
    clipped = maximum(ids, array.zeros_like(ids))
    zero, partial = _prod_parts(op, lambda x: unsorted_segment_prod(x, ids, num), ids, clipped)
    zeros = gather.unsorted_segment_sum(array.cast(zero, dt.int32), ids, num)
    g = array.where(greater(zeros, 1), array.zeros_like(grad), grad)
    picked, _ = _gather_drop_negatives(g, ids)
    return picked * partial, None, None
