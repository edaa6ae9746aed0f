"""Sums of gradients, some of which are zeros but for one part.

The gradient of a read of one part of a tensor is a tensor of the whole shape, zeros
but for that part: a list's row read (``TensorListSetItem`` of the gradient into zeros)
and a slice ``xs[t]`` (``StridedSliceGrad``).  Added to other gradients of the same
tensor, as backprop's aggregation does and as a loop's gradient does at every iteration
for a tensor the body captures, only that part needs adding: ``TensorListAddItem`` and
``StridedSliceAdd``, which a plan or a fused loop runs in place.  A loop over ``n`` rows
then costs ``n`` rows in its gradient, not ``n`` tensors of the whole shape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from symgrad.core.graph import Tensor
from symgrad.ops.array import list_ops
from symgrad.ops.array import structure as array
from symgrad.ops.array.strided_slice_add import strided_slice_add

DenseSum = Callable[[list[Tensor]], Tensor]


def added_part(t: Tensor) -> Callable[[Tensor], Tensor] | None:
    """Where ``t`` is zeros but for one part, the function adding that part to a total
    of ``t``'s shape; else None."""
    op = t.op
    row = op.type == "TensorListSetItem" and not op.get_attr("resize")
    if row and array.is_zeros(op.inputs[0]):
        return lambda total: list_ops.add_item(total, op.inputs[1], op.inputs[2])
    if op.type == "StridedSliceGrad":
        return lambda total: strided_slice_add(total, t)
    return None


def sum_with_parts(parts: Sequence[Tensor], dense_sum: DenseSum) -> Tensor:
    """``dense_sum(parts)``, with each part that is zeros but for one part added into the
    sum of the others as that part alone (where there are others to add it to)."""
    adds = [(t, added_part(t)) for t in parts]
    dense = [t for t, add in adds if add is None]
    if not dense or len(dense) == len(parts) or any(t.shape != dense[0].shape for t in parts):
        return dense_sum(list(parts))
    total = dense[0] if len(dense) == 1 else dense_sum(dense)
    for _, add in adds:
        if add is not None:
            total = add(total)
    return total
