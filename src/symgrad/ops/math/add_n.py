"""AddN: the sum of a list of same-shaped tensors (``tf.add_n``), the sum backprop uses.

One record (shape rule, kernel, batching rule, op-table case) with its gradient beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core import batching
from symgrad.core.cases import Case, randn
from symgrad.core.gradient_registry import array_rule
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.ops.core import NUMERIC, check_dtype, convert_n, same_dtype


def _addn_infer(inputs: Sequence[Tensor], **_: Any) -> Spec:
    if not inputs:
        raise ShapeError("AddN needs at least one input")
    d = same_dtype(inputs, [f"inputs[{i}]" for i in range(len(inputs))])
    check_dtype("AddN", inputs[0], NUMERIC, "inputs")
    shape = inputs[0].shape
    for t in inputs[1:]:
        if not shape.is_compatible_with(t.shape):
            raise ShapeError(f"all inputs must have the same shape, got {shape} and {t.shape}")
        shape = shape.merge_with(t.shape)
    return shape, d


def _addn_kernel(*xs: np.ndarray) -> np.ndarray:
    out = xs[0] + xs[1] if len(xs) > 1 else xs[0].copy()
    for x in xs[2:]:
        out += x
    return out


def add_n(inputs: Sequence[Any], name: str | None = None) -> Tensor:
    """Sum of a list of same-shaped tensors (op type ``AddN``)."""
    if not isinstance(inputs, list | tuple) or not inputs:
        raise ValueError("inputs must be a non-empty list of tensors of the same shape")
    return apply_op1("AddN", convert_n(inputs), name=name)


ADDN_DEF = register_op(
    "AddN",
    _addn_infer,
    _addn_kernel,
    elementwise=True,
    batch=batching.same_shape,
    cases=[Case([randn(3, 4)] * 3, lambda a, b, c: a + b + c, fn=lambda a, b, c: add_n([a, b, c]))],
)


@ADDN_DEF.gradient
def _addn_grad(op: Any, grad: Tensor) -> list[Tensor]:
    """Every input gets g."""
    return [grad] * len(op.inputs)


@array_rule("AddN")
def _addn_array(xs: Any, ys: Any, attrs: Any, grads: Any, needs: Any) -> list[Any]:
    return [grads[0]] * len(xs)
