"""Grouping and ordering: NoOp, group, control_dependencies, IdentityN."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..gradient_registry import RegisterGradient
from ..graph import Operation, Tensor, get_default_graph
from ..op_registry import Spec, apply_op, register_op
from .core import convert_to_tensor

register_op("NoOp", lambda inputs: [], lambda: ())


def no_op(name: str | None = None) -> Operation:
    return apply_op("NoOp", [], name=name)


def group(*inputs: Any, name: str | None = None) -> Operation:
    """One op that, when run, runs every op (or the op of every tensor) in ``inputs``."""
    ops = [getattr(i, "op", i) for i in inputs]
    for o in ops:
        if not isinstance(o, Operation):
            raise TypeError(f"group() expects ops or tensors, got {o!r}")
    with get_default_graph().control_dependencies(ops):
        return apply_op("NoOp", [], name=name or "group_deps")


def control_dependencies(control_inputs: Sequence[Any] | None) -> Any:
    """``with control_dependencies([a]):`` ops created inside run after ``a``."""
    return get_default_graph().control_dependencies(control_inputs)


def _identity_n_infer(inputs: Sequence[Tensor]) -> list[Spec]:
    return [(t.shape, t.dtype) for t in inputs]


register_op("IdentityN", _identity_n_infer, lambda *xs: tuple(xs))


def identity_n(input: Sequence[Any], name: str | None = None) -> list[Tensor]:
    return apply_op("IdentityN", [convert_to_tensor(x) for x in input], name=name).outputs


@RegisterGradient("IdentityN")
def _identity_n_grad(op: Any, *grads: Tensor) -> list[Tensor]:
    """Each input gets its output's gradient."""
    return list(grads)
