"""``StridedSliceAdd``: a tensor with ``dy`` added into one strided slice of it.

symgrad's own op, made by a loop's gradient only.  A loop body that reads a slice of a
tensor it captures (``xs[t]`` in an RNN over time steps) has, at each iteration, the
gradient ``StridedSliceGrad(shape(xs), ..., dy)``: a tensor of ``xs``'s whole shape,
zeros but for one slice.  The gradient loop sums those into the gradient of ``xs``, so
every iteration would cost the size of ``xs`` twice (the zeros, then the sum) and a loop
over ``n`` steps O(n²).  ``total + StridedSliceGrad(...)`` is, value for value,
``StridedSliceAdd(total, begin, end, strides, dy)``, which a fused loop runs in place
(``inplace``): each iteration costs the slice alone.  The masks are StridedSlice's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.batching import Call, NotVectorizable
from symgrad.core.cases import Case, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array.slicing import _index, _plan, _prefixed_spec, _strided_slice
from symgrad.ops.core import static_ints

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _infer(inputs: Sequence[Tensor], **masks: int) -> Spec:
    total, *bes, dy = inputs
    dims = total.shape.dims
    b, e, st = (static_ints(t, "begin/end/strides") for t in bes)
    if dims is not None and None not in dims and b is not None and e is not None and st is not None:
        out = _plan(dims, b, e, st, masks)[1]  # type: ignore[arg-type]
        if not dy.shape.is_compatible_with(out):
            raise ShapeError(
                f"dy has shape {dy.shape} but the slice of a tensor of shape {dims} has shape {out}"
            )
    return TensorShape(dims), total.dtype


def _add_into(
    total: np.ndarray,
    b: np.ndarray,
    e: np.ndarray,
    s: np.ndarray,
    dy: np.ndarray,
    *,
    out: np.ndarray,
    **masks: int,
) -> np.ndarray:
    index, _ = _index(total.shape, b, e, s, masks)
    out[index] += np.reshape(dy, out[index].shape)
    return out


def _kernel(
    total: np.ndarray, b: np.ndarray, e: np.ndarray, s: np.ndarray, dy: np.ndarray, **masks: int
) -> np.ndarray:
    return _add_into(total, b, e, s, dy, out=total.copy(), **masks)


STRIDED_SLICE_ADD = register_op(
    "StridedSliceAdd",
    _infer,
    _kernel,
    inplace=_add_into,
    cases=[
        Case(  # total[1:, ::-2] += dy for a total of shape (4, 5)
            [randn(4, 5), ints([1, 0]), ints([0, 0]), ints([1, -2]), randn(3, 3)],
            lambda t, b, e, s, dy: _ref(t, dy),
            attrs={m: 0 for m in _MASKS} | {"begin_mask": 2, "end_mask": 3},
        ),
        Case(  # total[2] += dy: the row an RNN step reads
            [randn(4, 3), ints([2]), ints([3]), ints([1]), randn(3)],
            lambda t, b, e, s, dy: t + np.eye(4, dtype=t.dtype)[2][:, None] * dy,
            attrs={m: 0 for m in _MASKS} | {"shrink_axis_mask": 1},
            name="row",
        ),
    ],
)


def _ref(t: np.ndarray, dy: np.ndarray) -> np.ndarray:
    out = t.copy()
    out[1:, ::-2] += dy
    return out


def strided_slice_add(total: Tensor, grad_of_slice: Tensor) -> Tensor:
    """``total + grad_of_slice`` where ``grad_of_slice`` is a StridedSliceGrad of
    ``total``'s shape: one op that adds only its slice."""
    op = grad_of_slice.op
    _, b, e, s, dy = op.inputs
    return apply_op1("StridedSliceAdd", [total, b, e, s, dy], op.attrs)


@STRIDED_SLICE_ADD.gradient
def _grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None, None, Tensor]:
    """d total = g; d dy = the slice of g."""
    _, b, e, s, _ = op.inputs
    return grad, None, None, None, _strided_slice(grad, [b, e, s], op.attrs, None)


@STRIDED_SLICE_ADD.batching
def _batch(c: Call) -> list[Tensor]:
    if any(c.batched[1:4]):
        raise NotVectorizable(c.op, "batched slice bounds")
    spec, masks = _prefixed_spec(c, 1)
    return c.apply([c.full(0), *spec, c.full(4)], **masks)
