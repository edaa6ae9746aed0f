"""ReverseV2: ``tf.reverse`` (``tf.compat.v1.reverse_v2``), flipping the listed axes.

Its gradient reverses the incoming gradient along the same axes (a flip is its own
inverse and its own transpose).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.core.batching import Call, const
from symgrad.core.cases import Case, ints, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import (
    ShapeError,
    Spec,
    apply_op1,
    constant_value,
    register_op,
)
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor


def _axes(axis: np.ndarray, rank: int) -> list[int]:
    """``axis`` normalised to [0, rank), with TF's texts for a bad or repeated axis."""
    if axis.ndim != 1:
        raise ShapeError(f"'dims' must be 1-dimension, not {axis.ndim}")
    out = []
    for k, a in enumerate(axis.tolist()):
        if not -rank <= a < rank:
            raise ShapeError(f"'axis'[{k}] = {a} is out of valid range [0, {rank - 1}")
        if a % rank in out:
            raise ShapeError(f"axis {a % rank} specified more than once.")
        out.append(a % rank)
    return out


def _reverse_infer(inputs: list[Tensor]) -> Spec:
    x, axis = inputs
    value = constant_value(axis)
    if value is not None and x.shape.rank is not None:
        _axes(np.asarray(value), x.shape.rank)
    return x.shape, x.dtype


def _reverse_kernel(x: np.ndarray, axis: np.ndarray) -> np.ndarray:
    return np.flip(x, tuple(_axes(np.asarray(axis), x.ndim))).copy() if x.ndim else x.copy()


def _reverse_batch(c: Call) -> list[Tensor]:
    c.only_batched(0)
    rank = c.rank(0)
    return c.apply([c.xs[0], const([c.axis(a, rank) for a in c.ints(1)], c.xs[1])])


REVERSE = register_op(
    "ReverseV2",
    _reverse_infer,
    _reverse_kernel,
    batch=_reverse_batch,
    cases=[
        Case([randn(3, 4), ints([1])], lambda x, a: np.flip(x, 1), name="last"),
        Case([randn(2, 3, 4), ints([0, -1])], lambda x, a: np.flip(x, (0, 2)), name="two axes"),
    ],
)


@REVERSE.gradient
def _reverse_grad(op: Any, grad: Tensor) -> tuple[Tensor, None]:
    """dx = reverse(g, axis): a flip is its own transpose."""
    return apply_op1("ReverseV2", [grad, op.inputs[1]]), None


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    """Reverse ``tensor`` along each axis in the 1-D list ``axis`` (op type ``ReverseV2``)."""
    x, a = convert_to_tensor(tensor), array.int_tensor(axis, "axis")
    return apply_op1("ReverseV2", [x, a], name=name)
