"""PlaceholderWithDefault: a tensor that is its input unless a Session run feeds it.

TF1 programs use it for values that are usually fixed but may be overridden per run (a
dropout rate, a batch of test data).  The kernel is the identity; a feed replaces the
output as it replaces any tensor's.  The output's static shape is the declared ``shape``
(which may leave sizes open) in a graph; at top level the op runs at once, so, like any
eager tensor, its shape is the default value's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symgrad.core.batching import Call
from symgrad.core.cases import Case, randn
from symgrad.core.graph import Tensor
from symgrad.core.op_registry import ShapeError, Spec, apply_op1, register_op
from symgrad.core.shapes import TensorShape, as_shape
from symgrad.ops.core import convert_to_tensor


def _infer(inputs: Sequence[Tensor], *, shape: TensorShape) -> Spec:
    x = inputs[0]
    if not x.shape.is_compatible_with(shape):
        raise ShapeError(
            f"the default value's shape {x.shape} is not compatible with the declared shape {shape}"
        )
    return shape, x.dtype


PLACEHOLDER_WITH_DEFAULT = register_op(
    "PlaceholderWithDefault",
    _infer,
    lambda x, *, shape: x,
    pass_through=True,
    # Declared shapes fully known here (the op table wants exact static shapes from known
    # inputs); open sizes and feeding are tested in tests/train/test_variable_scope.py.
    cases=[
        Case([randn(2, 3)], lambda x: x, attrs={"shape": TensorShape([2, 3])}),
        Case([randn(4)], lambda x: x, fn=lambda x: placeholder_with_default(x, TensorShape([4]))),
    ],
)


@PLACEHOLDER_WITH_DEFAULT.batching
def _placeholder_with_default_batch(c: Call) -> list[Tensor]:
    """Unfed, it is its input: the batched input with the batch axis before the declared
    shape (rank unknown stays unknown)."""
    shape = c.op.get_attr("shape")
    dims = None if shape.dims is None else [c.k, *shape.dims]
    return c.apply([c.full(0)], shape=TensorShape(dims))


@PLACEHOLDER_WITH_DEFAULT.gradient
def _placeholder_with_default_grad(op: Any, grad: Tensor) -> Tensor:
    """The default gets the gradient unchanged (TF's ``_IdGrad``)."""
    return grad


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """``input`` unless fed: ``sess.run(y, {p: value})`` overrides it for one run."""
    x = convert_to_tensor(input)
    return apply_op1(
        "PlaceholderWithDefault", [x], {"shape": as_shape(shape)}, name or "PlaceholderWithDefault"
    )
