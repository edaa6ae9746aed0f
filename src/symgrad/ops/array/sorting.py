"""TopKV2 and the sorts built on it: ``top_k``, ``sort``, ``argsort``.

As in TensorFlow, ``sort`` and ``argsort`` are ``top_k`` over the whole axis: an axis other
than the last is swapped to the end and back, and an ascending sort is a descending sort of
``-x`` (``-x - 1`` for signed integers, ``max - x`` for unsigned ones, so that the dtype's
minimum survives).  Ties keep their original order (lower index first) and NaN counts as
the smallest value, so an ascending sort puts NaN last, as TF's does.  TopKV2's gradient is
TF's: ``g`` scattered back to the positions the indices name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call
from symgrad.core.cases import Case, distinct, fixed, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import gather, joining
from symgrad.ops.array import structure as array
from symgrad.ops.core import REAL, check_dtype, convert_to_tensor, static_ints
from symgrad.ops.math.elementwise import equal, negative, subtract

_SORT_TYPES = REAL


def _top_k_infer(
    inputs: Sequence[Tensor], *, sorted: bool = True, index_type: dt.DType = dt.int32
) -> list[Spec]:
    x, k = inputs
    check_dtype("TopKV2", x, _SORT_TYPES, "input")
    check_dtype("TopKV2", k, array.INDEX, "k")
    if k.shape.rank not in (None, 0):
        raise ShapeError(f"k must be a scalar, got shape {k.shape}")
    if index_type not in array.INDEX:
        raise TypeError(f"index_type must be int32 or int64, got {index_type.name}")
    kv = static_ints(k, "k")
    if kv is not None and kv[0] < 0:
        raise ShapeError(f"Need k >= 0, got {kv[0]}")
    if x.shape.dims is None:
        return [(TensorShape(None), x.dtype), (TensorShape(None), index_type)]
    if not x.shape.dims:
        raise ShapeError(f"input must be >= 1-D, got shape {x.shape}")
    last = x.shape.dims[-1]
    if kv is not None and last is not None and last < kv[0]:
        raise ShapeError(f"input must have last dimension >= k = {kv[0]} but is {last}")
    shape = TensorShape([*x.shape.dims[:-1], None if kv is None else kv[0]])
    return [(shape, x.dtype), (shape, index_type)]


def _descending_order(x: np.ndarray) -> np.ndarray:
    """Indices sorting the last axis by decreasing value; ties by increasing index."""
    key = np.where(np.isnan(x), -np.inf, x) if x.dtype.kind == "f" else x
    n = x.shape[-1]
    backwards = np.argsort(key[..., ::-1], axis=-1, kind="stable")
    return n - 1 - backwards[..., ::-1]  # type: ignore[no-any-return]


def _top_k_kernel(
    x: np.ndarray, k: np.ndarray, *, sorted: bool = True, index_type: dt.DType = dt.int32
) -> tuple[np.ndarray, np.ndarray]:
    kk = int(k)
    if kk < 0:
        raise ValueError(f"Need k >= 0, got {kk}")
    if x.ndim == 0:
        raise ValueError(f"input must be >= 1-D, got shape {list(x.shape)}")
    if x.shape[-1] < kk:
        raise ValueError(f"input must have at least k columns. Had {x.shape[-1]}, needed {kk}")
    idx = _descending_order(x)[..., :kk]
    return np.take_along_axis(x, idx, -1), idx.astype(index_type.np)


def _top_k_ref(x: np.ndarray, k: Any) -> list[np.ndarray]:
    """A Python sort of each row (keys: value descending, then index)."""
    rows = x.reshape(-1, x.shape[-1]).tolist()
    order = [
        sorted(range(len(r)), key=lambda i, r=r: (-r[i], i))[: int(k)]  # type: ignore[misc]
        for r in rows
    ]
    idx = np.array(order, np.int64).reshape(*x.shape[:-1], int(k))
    return [np.take_along_axis(x, idx, -1), idx.astype(np.int32)]


TOP_K = register_op(
    "TopKV2",
    _top_k_infer,
    _top_k_kernel,
    cases=[
        Case(
            [distinct(2, 3, 5), ints(3)], _top_k_ref, attrs={"sorted": True, "index_type": dt.int32}
        ),
        Case(
            [fixed([[3.0, 1.0, 3.0, 2.0], [0.0, 5.0, 5.0, -1.0]]), ints(4)],
            _top_k_ref,
            attrs={"sorted": True, "index_type": dt.int32},
            order=0,
            name="ties",
            note="ties: the gradient is not continuous there",
        ),
    ],
)


def top_k(
    input: Any, k: Any = 1, sorted: bool = True, index_type: Any = dt.int32, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """The ``k`` largest entries of the last axis and their indices (``values, indices``);
    ``sorted=False`` gives the same (sorted) order, one TF allows for it."""
    x = convert_to_tensor(input)
    kt = k if isinstance(k, Tensor) else convert_to_tensor(k, dt.int32)
    op = apply_op(
        "TopKV2", [x, kt], {"sorted": bool(sorted), "index_type": dt.as_dtype(index_type)}, name
    )
    return TopKResult(op.output(0), op.output(1))


class TopKResult(tuple):  # type: ignore[type-arg]
    """``(values, indices)``, also readable by name, as TF's namedtuple ``TopKV2``."""

    def __new__(cls, values: Tensor, indices: Tensor) -> TopKResult:
        return super().__new__(cls, (values, indices))

    @property
    def values(self) -> Tensor:
        return self[0]  # type: ignore[no-any-return]

    @property
    def indices(self) -> Tensor:
        return self[1]  # type: ignore[no-any-return]


@TOP_K.gradient
def _top_k_grad(op: Any, grad: Tensor, _: Any) -> tuple[Tensor, None]:
    """dx = g scattered to the positions in ``indices`` (rows flattened), 0 elsewhere.

    TF also returns a zero for ``k``; an integer input gets None here.
    """
    x, idx = op.inputs[0], op.outputs[1]
    d = idx.dtype
    kdim = idx.shape.dims[-1] if idx.shape.dims else None
    k: Any = kdim if kdim is not None else array.shape(idx, out_type=d)[-1]
    pos = array.reshape(idx, [-1, k] if kdim is not None else joining.stack([-1, k]))
    if x.shape.is_fully_defined():
        dims = x.shape.as_list()
        rows: Any = int(np.prod(dims[:-1]))
        last: Any = dims[-1]
        offsets: Any = (np.arange(rows)[:, None] * last).astype(d.np)
        size: Any = [rows * last]
        shape_x: Any = dims
    else:
        shape_x = array.shape(x, out_type=d)
        last, rows = shape_x[-1], array.shape(pos, out_type=d)[0]
        offsets = array.expand_dims(array.range(0, rows * last, last, dtype=d), -1)
        size = array.reshape(rows * last, [1])
    flat = array.reshape(pos + offsets, [-1, 1])
    dx = gather.scatter_nd(flat, array.reshape(grad, [-1]), size)
    return array.reshape(dx, shape_x), None


@TOP_K.batching
def _top_k_batch(c: Call) -> list[Tensor]:
    """TopKV2 works on the last axis: the batch axis in front changes nothing."""
    c.only_batched(0)
    return c.apply(c.xs)


# --------------------------------------------------------------------------------------
# sort, argsort


def _swap_last(x: Tensor, axis: int) -> Any:
    """The permutation swapping ``axis`` with the last axis (None: it is the last one);
    built from ops when the rank is not static, as TF does."""
    rank = x.shape.rank
    if rank is None:
        if axis == -1:
            return None
        r = array.rank(x)
        a = array.int_tensor(axis, "axis") % r
        i = array.range(r)
        return array.where(equal(i, a), r - 1, array.where(equal(i, r - 1), a, i))
    axis = axis % rank if rank else 0
    if axis == rank - 1:
        return None
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return perm


def _descending(values: Tensor, axis: int, argsort: bool) -> Tensor:
    perm = _swap_last(values, axis)
    x = values if perm is None else array.transpose(values, perm)
    n = x.shape.dims[-1] if x.shape.dims and x.shape.dims[-1] is not None else array.shape(x)[-1]
    top, idx = top_k(x, n)
    out = idx if argsort else top
    return out if perm is None else array.transpose(out, perm)


def _sort(values: Any, axis: Any, direction: str, argsort: bool) -> Tensor:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(
            "Argument `direction` should be one of ASCENDING, DESCENDING. "
            f"Received: direction={direction}"
        )
    if isinstance(axis, Tensor):
        v = static_ints(axis, "axis")
        if v is None or len(v) != 1:
            raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
        axis = v[0]
    x = convert_to_tensor(values)
    check_dtype("sort", x, _SORT_TYPES, "values")
    if x.shape.rank == 0:
        raise ValueError(f"sort needs a tensor of rank >= 1, got shape {x.shape}")
    if direction == "DESCENDING":
        return _descending(x, int(axis), argsort)
    if x.dtype.np.kind == "u":
        top = np.asarray(np.iinfo(x.dtype.np).max, x.dtype.np)
        out = _descending(subtract(top, x), int(axis), argsort)
        return out if argsort else subtract(top, out)
    if x.dtype.is_integer:
        out = _descending(negative(x) - 1, int(axis), argsort)
        return out if argsort else negative(out) - 1
    out = _descending(negative(x), int(axis), argsort)
    return out if argsort else negative(out)


def sort(
    values: Any, axis: Any = -1, direction: str = "ASCENDING", name: str | None = None
) -> Tensor:
    """``values`` sorted along ``axis``; its gradient flows through TopKV2."""
    return _sort(values, axis, direction, False)


def argsort(
    values: Any,
    axis: Any = -1,
    direction: str = "ASCENDING",
    stable: bool = False,
    name: str | None = None,
) -> Tensor:
    """The int32 indices that sort ``values`` along ``axis`` (always stable, as TF's)."""
    return _sort(values, axis, direction, True)


TOP_K.add_cases(
    Case(
        [randn(3, 4, 2)],
        lambda x: np.sort(x, axis=1),
        fn=lambda x: sort(x, axis=1),
        name="sort_axis1",
    ),
    Case(
        [randn(2, 5)],
        lambda x: -np.sort(-x, -1),
        fn=lambda x: sort(x, direction="DESCENDING"),
        name="sort_descending",
    ),
    Case(
        [distinct(4, 3)],
        lambda x: np.argsort(x, 0, kind="stable").astype(np.int32),
        fn=lambda x: argsort(x, axis=0),
        order=0,
        name="argsort",
        note="integer indices: not differentiable",
    ),
)
