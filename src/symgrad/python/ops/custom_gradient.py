"""``tensorflow.python.ops.custom_gradient``: ``custom_gradient``, ``recompute_grad``,
``grad_pass_through`` and the helper TF's tests call, ``_get_dependent_variables``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symgrad.api.gradient_helpers import grad_pass_through, recompute_grad  # noqa: F401
from symgrad.autodiff.backprop import key
from symgrad.autodiff.custom_gradient import custom_gradient  # noqa: F401
from symgrad.core import nest
from symgrad.core.gradient_registry import gradient_registry
from symgrad.core.graph import Operation, Tensor


def _differentiable(op: Operation) -> bool:
    entry = gradient_registry.entry(op.type)
    return entry is not None and entry[0] is not None


def _get_dependent_variables(input_ops: Sequence[Any], output_ops: Sequence[Any]) -> list[Any]:
    """The trainable variables read between ``input_ops`` and ``output_ops``: those a
    gradient of the outputs could reach without passing through the inputs (walking
    only through ops that have a gradient and tensors of a differentiable dtype)."""
    stop = {key(t) for t in nest.flatten(input_ops) if isinstance(t, Tensor)}
    found: dict[int, Any] = {}
    seen: set[int] = set()
    stack = [t.op for t in nest.flatten(output_ops) if key(t) not in stop]
    while stack:
        op = stack.pop()
        if id(op) in seen or not _differentiable(op):
            continue
        seen.add(id(op))
        if op.type == "ReadVariableOp":
            var = op.get_attr("var")
            if var.trainable:
                found.setdefault(id(var), var)
        for t in op.inputs:
            if key(t) not in stop and t.dtype.is_differentiable:
                stack.append(t.op)
    return list(found.values())
