"""The list ops behind a graph ``TensorArray``; a list is a dense tensor ``[n, *element]``.

TensorFlow's TensorList ops hold a variant (a list of tensors); symgrad has no variant
dtype, so a list here is one dense tensor whose rows are the elements.  The op types keep
TF's names and input order: ``TensorListGetItem(list, index)``,
``TensorListSetItem(list, index, item)``, ``TensorListGather(list, indices)``,
``TensorListScatterIntoExistingList(list, values, indices)``.  ``resize`` lets a write
past the end grow the list (``dynamic_size``).  Run-time errors carry TF's texts.
symgrad adds ``TensorListAddItem(list, index, item)`` (the list with ``item`` added to one
row): a loop's gradient sums its reads of a list it captures with it, one row per
iteration, where ``sum + SetItem(zeros, i, g)`` would add a whole list of zeros each time.

The ops are linear in the list and the elements, and each one's gradient is built from
the others, so they differentiate to any order.  A write copies the list, O(n), unless
nothing else holds it: a plan's (or a fused loop's) in-place kernel then writes the row
into it (``inplace``), so a loop writing n rows costs O(n), not O(n²).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call, NotVectorizable
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
from symgrad.ops.array import gather, shape, slicing
from symgrad.ops.array import structure as array


def _get_item_infer(inputs: Sequence[Tensor]) -> Spec:
    buf = inputs[0]
    if buf.shape.rank is None:
        return TensorShape(None), buf.dtype
    return TensorShape(buf.shape.dims[1:]), buf.dtype  # type: ignore[index]


def _get_item_kernel(buf: np.ndarray, index: np.ndarray) -> np.ndarray:
    i, n = int(index), buf.shape[0]
    if not 0 <= i < n:
        raise InvalidArgumentError(f"Trying to access element {i} in a list with {n} elements.")
    return buf[i].copy()


def _grown_shape(buf: Tensor, index: Tensor, resize: bool) -> Spec:
    """A list that may grow has ``max(n, top index + 1)`` rows, when both are known."""
    if not resize or buf.shape.rank is None:
        return buf.shape, buf.dtype
    i, n = constant_value(index), buf.shape.dims[0]  # type: ignore[index]
    rows = None if i is None or n is None else max(n, int(np.max(i, initial=-1)) + 1)
    return TensorShape([rows, *buf.shape.dims[1:]]), buf.dtype  # type: ignore[index,misc]


def _set_item_infer(inputs: Sequence[Tensor], *, resize: bool) -> Spec:
    buf, _, item = inputs
    if buf.shape.rank is not None and not item.shape.is_compatible_with(buf.shape[1:]):
        raise ShapeError(f"item of shape {item.shape} does not fit a list of {buf.shape}")
    return _grown_shape(buf, inputs[1], resize)


def _grown(buf: np.ndarray, rows: int, resize: bool, what: str) -> np.ndarray:
    """A copy of ``buf`` with at least ``rows`` rows (new rows are zeros)."""
    n = buf.shape[0]
    if rows <= n:
        return buf.copy()
    if not resize:
        raise InvalidArgumentError(what)
    out = np.zeros((rows, *buf.shape[1:]), buf.dtype)
    out[:n] = buf
    return out


def _set_item_into(
    buf: np.ndarray, index: np.ndarray, item: np.ndarray, *, resize: bool, out: np.ndarray
) -> np.ndarray:
    """A write into ``out`` (``buf`` itself, held by nothing else) where the row exists."""
    i = int(index)
    if 0 <= i < buf.shape[0] and item.shape == buf.shape[1:]:
        out[i] = item
        return out
    return _set_item_kernel(buf, index, item, resize=resize)  # grows, or says what is wrong


def _set_item_kernel(
    buf: np.ndarray, index: np.ndarray, item: np.ndarray, *, resize: bool
) -> np.ndarray:
    i, n = int(index), buf.shape[0]
    bad = f"Trying to modify element {i} in a list with {n} elements."
    if i < 0:
        raise InvalidArgumentError(bad)
    if item.shape != buf.shape[1:] and buf.size == 0 and buf.ndim == item.ndim + 1:
        buf = np.zeros((n, *item.shape), buf.dtype)  # holds no values: the item's shape
    elif item.shape != buf.shape[1:]:
        raise InvalidArgumentError(
            "Tried to set a tensor with incompatible shape at a list index. Item element "
            f"shape: {list(item.shape)} list shape: {list(buf.shape[1:])}"
        )
    out = _grown(buf, i + 1, resize, bad)
    out[i] = item
    return out


def _add_item_infer(inputs: Sequence[Tensor]) -> Spec:
    return _set_item_infer(inputs, resize=False)


def _add_item_into(
    buf: np.ndarray, index: np.ndarray, item: np.ndarray, *, out: np.ndarray
) -> np.ndarray:
    i, n = int(index), buf.shape[0]
    if not 0 <= i < n:
        raise InvalidArgumentError(f"Trying to modify element {i} in a list with {n} elements.")
    out[i] += item
    return out


def _add_item_kernel(buf: np.ndarray, index: np.ndarray, item: np.ndarray) -> np.ndarray:
    return _add_item_into(buf, index, item, out=buf.copy())


def _gather_infer(inputs: Sequence[Tensor]) -> Spec:
    buf, idx = inputs
    if buf.shape.rank is None or idx.shape.rank is None:
        return TensorShape(None), buf.dtype
    return TensorShape([*idx.shape.dims, *buf.shape.dims[1:]]), buf.dtype  # type: ignore[index,misc]


def _gather_kernel(buf: np.ndarray, idx: np.ndarray) -> np.ndarray:
    n = buf.shape[0]
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        # TF's text, typo included
        raise InvalidArgumentError(
            f"Index {idx[bad].flat[0]} out o range; list only has {n} elements."
        )
    return buf[idx]


def _scatter_infer(inputs: Sequence[Tensor], *, resize: bool) -> Spec:
    return _grown_shape(inputs[0], inputs[2], resize)


def _scatter_into(
    buf: np.ndarray,
    values: np.ndarray,
    idx: np.ndarray,
    *,
    resize: bool,
    out: np.ndarray,
) -> np.ndarray:
    """A scatter into ``out`` (``buf`` itself, held by nothing else) where the rows exist."""
    flat = idx.reshape(-1)
    n = buf.shape[0]
    fits = not flat.size or (flat.min() >= 0 and flat.max() < n)
    if fits and values.size == flat.size * int(np.prod(buf.shape[1:])):
        out[flat] = values.reshape((flat.size, *buf.shape[1:]))
        return out
    return _scatter_kernel(buf, values, idx, resize=resize)  # grows, or says what is wrong


def _scatter_kernel(
    buf: np.ndarray, values: np.ndarray, idx: np.ndarray, *, resize: bool
) -> np.ndarray:
    n, flat = buf.shape[0], idx.reshape(-1)
    if flat.size and flat.min() < 0:
        raise InvalidArgumentError(
            f"Trying to modify element {flat.min()} in a list with {n} elements."
        )
    top = int(flat.max()) + 1 if flat.size else 0
    what = f"Operation expected a list with {n} elements but got a list with {top} elements."
    element = values.shape[values.ndim - buf.ndim + 1 :] if buf.ndim > 1 else ()
    if buf.size == 0 and element != buf.shape[1:]:
        buf = np.zeros((n, *element), buf.dtype)  # holds no values: the items' shape
    out = _grown(buf, top, resize, what)
    out[flat] = values.reshape((flat.size, *buf.shape[1:]))  # a repeated index: last wins
    return out


GET_ITEM = register_op(
    "TensorListGetItem",
    _get_item_infer,
    _get_item_kernel,
    cases=[Case([randn(4, 3), ints(2)], lambda b, i: b[i], name="row")],
)
SET_ITEM = register_op(
    "TensorListSetItem",
    _set_item_infer,
    _set_item_kernel,
    inplace=_set_item_into,
    cases=[
        Case(
            [randn(4, 3), ints(1), randn(3)],
            lambda b, i, v: np.concatenate([b[:1], v[None], b[2:]]),
            attrs={"resize": False},
            name="row",
        ),
        Case(
            [randn(2, 3), ints(3), randn(3)],
            lambda b, i, v: np.concatenate([b, np.zeros((1, 3), b.dtype), v[None]]),
            attrs={"resize": True},
            name="grows",
        ),
    ],
)
ADD_ITEM = register_op(
    "TensorListAddItem",
    _add_item_infer,
    _add_item_kernel,
    inplace=_add_item_into,
    cases=[
        Case(
            [randn(4, 3), ints(2), randn(3)],
            lambda b, i, v: b + np.eye(4, dtype=b.dtype)[2][:, None] * v,
            name="row",
        )
    ],
)
GATHER = register_op(
    "TensorListGather",
    _gather_infer,
    _gather_kernel,
    cases=[Case([randn(5, 3), ints([4, 0, 4])], lambda b, i: b[i], name="duplicates")],
)
SCATTER = register_op(
    "TensorListScatterIntoExistingList",
    _scatter_infer,
    _scatter_kernel,
    inplace=_scatter_into,
    cases=[
        Case(
            [randn(5, 3), randn(2, 3), ints([4, 1])],
            lambda b, v, i: np.stack([b[0], v[1], b[2], b[3], v[0]]),
            attrs={"resize": False},
            name="rows",
        ),
        Case(
            [randn(2, 3), randn(2, 3), ints([3, 0])],
            lambda b, v, i: np.stack([v[1], b[1], np.zeros(3, b.dtype), v[0]]),
            attrs={"resize": True},
            name="grows",
        ),
    ],
)


def get_item(buf: Tensor, index: Any, name: str | None = None) -> Tensor:
    return apply_op1("TensorListGetItem", [buf, _index(index)], name=name)


def set_item(buf: Tensor, index: Any, item: Tensor, resize: bool = False) -> Tensor:
    return apply_op1("TensorListSetItem", [buf, _index(index), item], {"resize": resize})


def add_item(buf: Tensor, index: Any, item: Tensor) -> Tensor:
    """``buf`` with ``item`` added to row ``index``."""
    return apply_op1("TensorListAddItem", [buf, _index(index), item])


def gather_items(buf: Tensor, indices: Any, name: str | None = None) -> Tensor:
    return apply_op1("TensorListGather", [buf, _index(indices)], name=name)


def scatter_items(buf: Tensor, values: Tensor, indices: Any, resize: bool = False) -> Tensor:
    ins = [buf, values, _index(indices)]
    return apply_op1("TensorListScatterIntoExistingList", ins, {"resize": resize})


def _index(value: Any) -> Tensor:
    return array.int_tensor(value, "index")


def _rows_of(g: Tensor, buf: Tensor) -> Tensor:
    """The first ``len(buf)`` rows of ``g`` (a gradient of a list that may have grown)."""
    return gather.gather(g, array.range(shape.shape(buf)[0]))


def _fit(g: Tensor, buf: Tensor) -> Tensor:
    """``g`` cut to ``buf``'s shape (its rows, and its elements' dims where ``buf`` held
    no values before a write gave it the item's shape)."""
    s = shape.shape(buf)
    return slicing.slice(g, array.zeros_like(s), s)


@GET_ITEM.gradient
def _get_item_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """d list = zeros with row i = g."""
    buf, index = op.inputs
    return set_item(array.zeros_like(buf), index, grad), None


@SET_ITEM.gradient
def _set_item_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, Tensor]:
    """d list = g with row i zeroed (its first len(list) rows); d item = g[i]."""
    buf, index, item = op.inputs
    d_buf = set_item(grad, index, array.zeros_like(item))
    if buf.shape.rank is None or not TensorShape(buf.shape.dims[1:]).is_fully_defined():
        d_buf = _fit(d_buf, buf)  # buf may have held no values and taken item's shape
    elif op.get_attr("resize"):
        d_buf = _rows_of(d_buf, buf)
    return d_buf, None, get_item(grad, index)


@ADD_ITEM.gradient
def _add_item_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, Tensor]:
    """d list = g; d item = g[i]."""
    return grad, None, get_item(grad, op.inputs[1])


@GATHER.gradient
def _gather_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """d list = the rows of g summed into their indices (repeats accumulate)."""
    buf, idx = op.inputs
    return gather.unsorted_segment_sum(grad, idx, shape.shape(buf)[0]), None


@SCATTER.gradient
def _scatter_grad(op: Any, grad: Tensor) -> tuple[Tensor, Tensor, None]:
    """d list = g with the scattered rows zeroed; d values = g[indices]."""
    buf, values, idx = op.inputs
    d_buf = scatter_items(grad, array.zeros_like(values), idx)
    if op.get_attr("resize"):
        d_buf = _rows_of(d_buf, buf)
    return d_buf, gather_items(grad, idx), None


# Batching: the batch axis K goes behind the list axis, so that the op works on rows of
# K examples at once, and comes back to the front afterwards.


def _swap01(x: Tensor, rank: int) -> Tensor:
    return shape.transpose(x, [1, 0, *range(2, rank)])


def _index_unbatched(c: Call, i: int) -> None:
    if c.batched[i]:
        raise NotVectorizable(c.op, "a batched index")


@GET_ITEM.batching
def _get_item_batch(c: Call) -> list[Tensor]:
    _index_unbatched(c, 1)
    return [gather.gather(c.xs[0], c.xs[1], axis=1)]


@GATHER.batching
def _gather_batch(c: Call) -> list[Tensor]:
    _index_unbatched(c, 1)
    return [gather.gather(c.xs[0], c.xs[1], axis=1)]


@ADD_ITEM.batching
@SET_ITEM.batching
def _row_write_batch(c: Call) -> list[Tensor]:
    _index_unbatched(c, 1)
    r = c.rank(0) + 1
    out = c.apply([_swap01(c.full(0), r), c.xs[1], c.full(2)])[0]
    return [_swap01(out, r)]


@SCATTER.batching
def _scatter_batch(c: Call) -> list[Tensor]:
    _index_unbatched(c, 2)
    r = c.rank(0) + 1
    values = _swap01(c.full(1), c.rank(1) + 1)
    out = c.apply([_swap01(c.full(0), r), values, c.xs[2]])[0]
    return [_swap01(out, r)]
