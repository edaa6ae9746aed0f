"""``tensorflow.python.ops.cond_v2``: the functional cond that ``tf.cond`` builds on."""

from __future__ import annotations

from typing import Any

from symgrad.control_flow.cond import cond, switch_case


def cond_v2(pred: Any, true_fn: Any, false_fn: Any, name: str = "cond") -> Any:
    """TF's ``cond_v2.cond_v2``: ``tf.cond`` (one If / StatelessIf op in a graph)."""
    return cond(pred, true_fn, false_fn, name=name)


def indexed_case(
    branch_index: Any,
    branch_fns: Any,
    name: str = "indexed_case",
    lower_using_switch_merge: Any = None,
) -> Any:
    """TF's ``cond_v2.indexed_case``: ``tf.switch_case`` without a default (Case op)."""
    return switch_case(branch_index, branch_fns, name=name)


def get_func_graphs(op: Any) -> tuple[Any, ...]:
    """The branch graphs of an ``If`` (true, false) or ``Case`` op (TF's
    ``cond_v2.get_func_graphs``)."""
    return tuple(f.graph for f in op.get_attr("branches"))
