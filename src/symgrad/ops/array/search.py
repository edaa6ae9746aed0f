"""LowerBound and UpperBound: ``tf.searchsorted`` on the rows of a sorted matrix.

``searchsorted`` reshapes both arguments to matrices over their last axis, as TF does, so
row ``i`` of ``values`` is looked up in row ``i`` of ``sorted_sequence``.  Integer outputs:
no gradient flows (TF registers none; the outputs are integers, so none is asked for).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.cases import Case, randn
from symgrad.core.gradient_registry import no_gradient
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import shape as shapes
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor, same_dtype


def _bound_op(op_type: str, side: Any) -> None:
    def infer(inputs: Sequence[Tensor], *, out_type: dt.DType = dt.int32) -> Spec:
        seq, values = inputs
        same_dtype(inputs, ("sorted_inputs", "values"))
        if out_type not in array.INDEX:
            raise TypeError(f"out_type must be int32 or int64, got {out_type.name}")
        for t, what in ((seq, "sorted_inputs"), (values, "values")):
            if t.shape.rank not in (None, 2):
                raise ShapeError(f"{what} must be a matrix, got shape {t.shape}")
        a, b = (seq.shape.dims or [None])[0], (values.shape.dims or [None])[0]
        if a is not None and b is not None and a != b:
            raise ShapeError("Leading dim_size of both tensors must match.")
        return TensorShape(values.shape.dims), out_type

    def kernel(seq: np.ndarray, values: np.ndarray, *, out_type: dt.DType = dt.int32) -> Any:
        if seq.shape[0] != values.shape[0]:
            raise ShapeError("Leading dim_size of both tensors must match.")
        out = np.empty(values.shape, out_type.np)
        for i in range(seq.shape[0]):  # one search per row: each row is its own sequence
            out[i] = np.searchsorted(seq[i], values[i], side=side)
        return out

    ref = lambda s, v: np.stack(  # noqa: E731
        [np.searchsorted(np.sort(r), x, side=side) for r, x in zip(s, v)]
    )
    seq = lambda rng, d: np.sort(rng.normal(size=(2, 5)), axis=1).astype(d)  # noqa: E731
    register_op(
        op_type,
        infer,
        kernel,
        batch="its rows already are the batch: searchsorted reshapes to them",
        cases=[
            Case(
                [seq, randn(2, 3)],
                ref,
                attrs={"out_type": dt.int32},
                order=0,
                note="integer output: not differentiable",
            )
        ],
    )


_bound_op("LowerBound", "left")
_bound_op("UpperBound", "right")
# Integer outputs: nothing flows back (integer tensors are constants to backprop anyway).
no_gradient("LowerBound")
no_gradient("UpperBound")


def searchsorted(
    sorted_sequence: Any,
    values: Any,
    side: str = "left",
    out_type: Any = dt.int32,
    name: str | None = None,
) -> Tensor:
    """Where each of ``values`` would go in the sorted last axis of ``sorted_sequence``
    (op type ``LowerBound`` for ``side='left'``, ``UpperBound`` for ``'right'``)."""
    seq, vals = convert_to_tensor(sorted_sequence), convert_to_tensor(values)
    seq2 = shapes.reshape(seq, [-1, shapes.shape(seq)[-1]])
    vals2 = shapes.reshape(vals, [-1, shapes.shape(vals)[-1]])
    if side not in ("left", "right"):
        raise ValueError(
            f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'."
        )
    op_type = "UpperBound" if side == "right" else "LowerBound"
    out = apply_op1(op_type, [seq2, vals2], {"out_type": dt.as_dtype(out_type)}, name)
    return shapes.reshape(out, shapes.shape(vals))
