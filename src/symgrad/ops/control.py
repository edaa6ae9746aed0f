"""Grouping and ordering: NoOp, group, control_dependencies, IdentityN."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symgrad.core import batching
from symgrad.core.cases import Case, randn
from symgrad.core.gradient_registry import no_gradient
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.op_registry import Spec, apply_op, register_op
from symgrad.ops.core import convert_to_tensor

register_op(
    "NoOp",
    lambda inputs: [],
    lambda: (),
    batch="no inputs: never depends on the batched seed",
    no_cases="no inputs and no outputs, nothing for a row to compare; "
    "tests/runtime/test_schedule.py and tests/runtime/test_rewrite.py run "
    "group() and control_dependencies",
)
no_gradient("NoOp")  # no outputs: nothing to differentiate


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


IDENTITY_N = register_op(
    "IdentityN",
    _identity_n_infer,
    lambda *xs: tuple(xs),
    batch=batching.same_shape,  # each output is its input: unbatched ones broadcast over K
    cases=[Case([randn(3, 4), randn(2)], lambda a, b: (a, b))],
)


def identity_n(input: Sequence[Any], name: str | None = None) -> list[Tensor]:
    return apply_op("IdentityN", [convert_to_tensor(x) for x in input], name=name).outputs


@IDENTITY_N.gradient
def _identity_n_grad(op: Any, *grads: Tensor) -> list[Tensor]:
    """Each input gets its output's gradient."""
    return list(grads)
