"""Roll: ``tf.roll`` (``tf.manip.roll``), shifting entries cyclically along axes.

A repeated axis adds its shifts, as TF's kernel.  The gradient rolls back by ``-shift``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, constant_value, register_op
from symgrad.ops.array import structure as array
from symgrad.ops.core import check_dtype, convert_to_tensor
from symgrad.ops.math.elementwise import negative


def _check(shift: Any, axis: Any, rank: int | None) -> None:
    """TF's texts for a shift or axis of the wrong shape, or an axis out of range."""
    s, a = np.asarray(shift), np.asarray(axis)
    if s.ndim > 1:
        raise ShapeError(f"shift must be a scalar or a 1-D vector. Found: {list(s.shape)}")
    if a.ndim > 1:
        raise ShapeError(f"axis must be a scalar or a 1-D vector. Found: {list(a.shape)}")
    if s.size != a.size:
        raise ShapeError("shift and axis must have the same size")
    if rank is not None:
        for k in a.ravel().tolist():
            if not -rank <= k < rank:
                raise ShapeError(f"axis {k} is out of range")


def _roll_infer(inputs: Sequence[Tensor]) -> Spec:
    x, shift, axis = inputs
    check_dtype("Roll", shift, array.INDEX, "shift")
    check_dtype("Roll", axis, array.INDEX, "axis")
    if x.shape.rank == 0:
        raise ShapeError("input must be 1-D or higher")
    s, a = constant_value(shift), constant_value(axis)
    if s is not None and a is not None:
        _check(s, a, x.shape.rank)
    return x.shape, x.dtype


def _roll_kernel(x: np.ndarray, shift: np.ndarray, axis: np.ndarray) -> np.ndarray:
    _check(shift, axis, x.ndim)
    if x.size == 0:
        return x.copy()
    axes = [int(k) % x.ndim for k in np.ravel(axis)]
    return np.roll(x, [int(k) for k in np.ravel(shift)], axes)


def _roll_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    rank = c.rank(0)
    axes = [c.axis(a, rank) for a in c.ints(2)]
    axis = const(axes if c.xs[2].shape.rank else axes[0], c.xs[2])
    return c.apply([c.xs[0], c.xs[1], axis])


ROLL = register_op(
    "Roll",
    _roll_infer,
    _roll_kernel,
    batch=_roll_batch,
    cases=[
        Case([randn(3, 5), ints(2), ints(1)], lambda x, s, a: np.roll(x, 2, 1), name="scalar"),
        Case(
            [randn(2, 3, 5), ints([1, -2, 4]), ints([0, 2, -1])],
            lambda x, s, a: np.roll(x, [1, -2, 4], [0, 2, 2]),
            name="repeated axis",
        ),
    ],
)


@ROLL.gradient
def _roll_grad(op: Any, grad: Tensor) -> tuple[Tensor, None, None]:
    """dx = roll(g, -shift, axis)."""
    return apply_op1("Roll", [grad, negative(op.inputs[1]), op.inputs[2]]), None, None


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Tensor:
    """``input`` with its entries moved ``shift`` places along ``axis`` (cyclically)."""
    x = convert_to_tensor(input)
    s = convert_to_tensor(shift, dtype_hint=dt.int32)
    a = convert_to_tensor(axis, dtype_hint=dt.int32)
    return apply_op1("Roll", [x, s, a], name=name)
