"""TensorScatterUpdate, TensorScatterAdd, TensorScatterSub, TensorScatterMax and
TensorScatterMin (``tf.tensor_scatter_nd_*``).

A copy of ``tensor`` whose slices at nd-``indices`` (the last axis of ``indices`` is a
position in ``tensor``'s leading axes, as in GatherNd) are replaced by, added to or
subtracted from by ``updates``: the functional way TF 2 programs fill a table in a loop
(dynamic programming, beam search).  Each op is one record; the three share a shape
rule, a kernel and a batching rule (the batch index joins each index tuple), and each
has its gradient rule beside it (gather_nd of the gradient for the updates).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import joining
from symgrad.ops.array import structure as array
from symgrad.ops.array.gather import _nd_depth, gather_nd, scatter_nd
from symgrad.ops.core import convert_to_tensor, same_dtype
from symgrad.ops.math import elementwise as math_ops


def _dims(s: TensorShape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in s.as_list()) + "]"


def _infer(op_type: str) -> Callable[[Sequence[Tensor]], Spec]:
    def infer(inputs: Sequence[Tensor]) -> Spec:
        t, idx, u = inputs
        same_dtype([t, u], ("tensor", "updates"))
        k = _nd_depth(op_type, idx, t.shape.rank)
        if k is None or None in (t.shape.rank, idx.shape.rank, u.shape.rank):
            return t.shape, t.dtype
        outer, inner = idx.shape.dims[:-1], t.shape.dims[k:]  # type: ignore[index]
        if not u.shape.is_compatible_with([*outer, *inner]):
            n = len(outer)
            if u.shape.rank == n + len(inner) and TensorShape(outer).is_compatible_with(
                u.shape.dims[:n]  # type: ignore[index]
            ):
                raise ShapeError(
                    f"The inner {len(inner)} dimensions of output.shape={_dims(t.shape)} must "
                    f"match the inner {u.shape.rank - n} dimensions of "
                    f"updates.shape={_dims(u.shape)}"
                )
            raise ShapeError(
                f"updates must have shape indices.shape[:-1] + tensor.shape[{k}:] = "
                f"{[*outer, *inner]}, but got {u.shape}"
            )
        return t.shape, t.dtype

    return infer


def _kernel(kind: str) -> Callable[..., np.ndarray]:
    def kernel(t: np.ndarray, idx: np.ndarray, u: np.ndarray) -> np.ndarray:
        out = np.array(t, copy=True)
        k = idx.shape[-1]
        rows = idx.reshape(-1, k)
        bad = ((rows < 0) | (rows >= np.array(t.shape[:k], np.int64))).any(axis=-1)
        if bad.any():
            i = int(np.argmax(bad))
            raise InvalidArgumentError(
                f"indices[{i}] = {rows[i].tolist()} does not index into shape "
                f"[{','.join(map(str, t.shape))}]"
            )
        pos = tuple(rows.T)
        values = u.reshape(len(rows), *t.shape[k:])
        if kind == "update":
            out[pos] = values  # duplicates: the last one is kept (TF leaves it unspecified)
        elif kind in _FOLDS:
            _FOLDS[kind].at(out, pos, values)
        else:
            np.add.at(out, pos, values if kind == "add" else -values)
        return out

    return kernel


_FOLDS = {"max": np.maximum, "min": np.minimum}


def _ref(kind: str) -> Callable[..., np.ndarray]:
    def ref(t: np.ndarray, idx: np.ndarray, u: np.ndarray) -> np.ndarray:
        out = t.copy()
        for i, v in zip(idx.reshape(-1, idx.shape[-1]), u.reshape(-1, *t.shape[idx.shape[-1] :])):
            p = tuple(i)
            if kind in _FOLDS:
                out[p] = _FOLDS[kind](out[p], v)
                continue
            out[p] = v if kind == "update" else out[p] + v if kind == "add" else out[p] - v
        return out

    return ref


def _batch(c: Call) -> list[Tensor]:
    """Each index tuple gets the example's position in front: one op over the batch."""
    idx_dims = c.dims(1)
    lead = idx_dims[:-1]
    coord = np.arange(c.k).reshape([c.k] + [1] * (len(lead) + 1))
    coord = np.broadcast_to(coord, [c.k, *lead, 1])
    indices = joining.concat([const(coord, c.xs[1]), c.full(1)], -1)
    return c.apply([c.full(0), indices, c.full(2)])


def _record(op_type: str, kind: str) -> Any:
    return register_op(
        op_type,
        _infer(op_type),
        _kernel(kind),
        batch=_batch,
        cases=[
            Case([randn(5, 3), ints([[1], [3]]), randn(2, 3)], _ref(kind)),
            Case([randn(4, 2, 3), ints([[3, 1], [0, 0], [2, 1]]), randn(3, 3)], _ref(kind)),
        ],
    )


TENSOR_SCATTER_UPDATE = _record("TensorScatterUpdate", "update")
TENSOR_SCATTER_ADD = _record("TensorScatterAdd", "add")
TENSOR_SCATTER_SUB = _record("TensorScatterSub", "sub")
TENSOR_SCATTER_MAX = _record("TensorScatterMax", "max")
TENSOR_SCATTER_MIN = _record("TensorScatterMin", "min")


@TENSOR_SCATTER_UPDATE.gradient
def _update_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, Tensor]:
    """dtensor = g with the updated slices zeroed; dupdates = gather_nd(g, indices)."""
    idx, u = op.inputs[1], op.inputs[2]
    zeros = array.zeros_like(u)
    return tensor_scatter_nd_update(grad, idx, zeros), None, gather_nd(grad, idx)


@TENSOR_SCATTER_ADD.gradient
def _add_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, Tensor]:
    """dtensor = g; dupdates = gather_nd(g, indices)."""
    return grad, None, gather_nd(grad, op.inputs[1])


@TENSOR_SCATTER_SUB.gradient
def _sub_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, Tensor]:
    """dtensor = g; dupdates = -gather_nd(g, indices)."""
    return grad, None, math_ops.negative(gather_nd(grad, op.inputs[1]))


@TENSOR_SCATTER_MAX.gradient
@TENSOR_SCATTER_MIN.gradient
def _max_min_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, Tensor]:
    """TF's rule: the gradient goes to every input equal to the output, split evenly
    between ties (the tensor's entry and the updates that reached it)."""
    x, idx, y = op.inputs
    out = op.outputs[0]
    x_ind = array.cast(math_ops.equal(x, out), grad.dtype)
    y_ind = array.cast(math_ops.equal(y, gather_nd(out, idx)), grad.dtype)
    ys_ind = scatter_nd(idx, y_ind, array.shape(x, out_type=idx.dtype))
    ind = math_ops.add(x_ind, ys_ind)  # every entry >= 1
    dx = math_ops.divide(math_ops.multiply(grad, x_ind), ind)
    dy = math_ops.multiply(gather_nd(math_ops.divide(grad, ind), idx), y_ind)
    return dx, None, dy


def _apply(op_type: str, tensor: Any, indices: Any, updates: Any, name: str | None) -> Tensor:
    t = convert_to_tensor(tensor)
    u = updates if isinstance(updates, Tensor) else convert_to_tensor(updates, t.dtype)
    ins = [t, array.int_tensor(indices, "indices"), u]
    return apply_op1(op_type, ins, name=name)


def tensor_scatter_nd_update(
    tensor: Any, indices: Any, updates: Any, name: str | None = None
) -> Tensor:
    """``tensor`` with the slices at ``indices`` replaced by ``updates``.

    >>> import symgrad as tf
    >>> tf.tensor_scatter_nd_update([1.0, 2.0, 3.0], [[2]], [9.0]).numpy().tolist()
    [1.0, 2.0, 9.0]
    """
    return _apply("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_nd_add(
    tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "", name: str | None = None
) -> Tensor:
    """``tensor`` with ``updates`` added at ``indices`` (duplicates add)."""
    return _apply("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_nd_sub(
    tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "", name: str | None = None
) -> Tensor:
    """``tensor`` with ``updates`` subtracted at ``indices`` (duplicates add up)."""
    return _apply("TensorScatterSub", tensor, indices, updates, name)


def tensor_scatter_nd_max(
    tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "", name: str | None = None
) -> Tensor:
    """``tensor`` with each slice at ``indices`` the maximum of it and ``updates``."""
    return _apply("TensorScatterMax", tensor, indices, updates, name)


def tensor_scatter_nd_min(
    tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "", name: str | None = None
) -> Tensor:
    """``tensor`` with each slice at ``indices`` the minimum of it and ``updates``."""
    return _apply("TensorScatterMin", tensor, indices, updates, name)
