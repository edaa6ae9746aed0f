"""``enable_check_numerics()``: fail at the first op that outputs NaN or Inf.

As TensorFlow's ``tf.debugging.enable_check_numerics``: once enabled, every float output
of every op that runs (eagerly, in a ``Session`` or in a traced ``function``) is checked,
and the first one holding a NaN or an Inf raises ``InvalidArgumentError`` naming the op,
its type, where the user's code created it and, for an op built by a gradient rule
(name scope ``.../<op>_grad/...``), the forward op it is the gradient of.

The check is installed as the op registry's declared output check
(``op_registry.set_output_check``), which the eager op constructor tests once per op and
a plan once per run (a run with a check installed wraps each step's kernel), so a
disabled check costs nothing per op.  The setting is process-wide.  Ops that only move
data (Reshape, Identity, ConcatV2 ...) are not checked, as in TensorFlow: a NaN is
reported where it is made, not where it is copied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.control_flow.numerics_where import (
    EAGER_ITERATIONS,
    FORWARD_ITERATION,
    RECREATED,
    eager_iterations,
    original,
    owner_op,
)
from symgrad.core import hooks, op_registry
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Operation
from symgrad.tools.explain import forward_op_of

# TF's SAFE_OPS (check_numerics_callback.py) plus sources: they make no new numbers.
SAFE_OPS = frozenset(
    {
        "Concat",
        "ConcatV2",
        "ExpandDims",
        "Fill",
        "Gather",
        "GatherV2",
        "Identity",
        "IdentityN",
        "Pack",
        "Reshape",
        "Slice",
        "Split",
        "SplitV",
        "Squeeze",
        "StridedSlice",
        "Tile",
        "Transpose",
        "Unpack",
        "Const",
        "Placeholder",
        "ReadVariableOp",
        "StopGradient",
        "PreventGradient",
    }
)


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Raise ``InvalidArgumentError`` at the first op whose float output has a NaN or Inf.

    The arguments exist for TensorFlow compatibility and are ignored.
    """
    op_registry.set_output_check(check_outputs)


def disable_check_numerics() -> None:
    """Undo :func:`enable_check_numerics`."""
    op_registry.set_output_check(None)


def check_numerics_enabled() -> bool:
    return op_registry.output_check is check_outputs


def check_outputs(
    op: Operation, outputs: Sequence[Any], inputs: Sequence[Any], mode: str = "eagerly-executing"
) -> None:
    """Raise if any float output of ``op`` holds a NaN or an Inf (an ``OutputCheck``)."""
    if op.type in SAFE_OPS:
        return
    for i, v in enumerate(outputs):
        a = np.asarray(v)
        if a.dtype.kind in "fc" and not np.isfinite(a).all():
            raise _error(op, i, a, inputs, mode)


def _error(
    op: Operation, index: int, a: np.ndarray, inputs: Sequence[Any], mode: str
) -> InvalidArgumentError:
    """The check's error; for the gradient of an op an eager loop made, headed by the
    forward iteration it is the gradient of (a function's loop says it in its own way)."""
    text = _message(op, index, a, inputs, mode)
    owner = forward_op_of(op)
    tags = EAGER_ITERATIONS.get(original(owner)) if owner is not None else None
    if not tags or EAGER_ITERATIONS.get(op):
        return InvalidArgumentError(text, op)
    where = " > ".join(f"{loop} iteration {i}" for loop, i in tags)
    head = f"{where}, in its gradient: op '{op.type}' produced {_kinds(a)}"
    error = InvalidArgumentError(f"{head}\n{text}", op)
    error.iterations = list(tags)  # type: ignore[attr-defined]
    return error


def _message(op: Operation, index: int, a: np.ndarray, inputs: Sequence[Any], mode: str) -> str:
    lines = [
        f'!!! Detected Infinity or NaN in output {index} of {mode} op "{op.type}" '
        f"(# of outputs: {op.num_outputs}) !!!",
        f"  op: {op.describe()}",
        f"  dtype: {op.output_dtypes[index].name}",
        f"  shape: {a.shape}",
    ]
    owner = forward_op_of(op)
    if owner is not None:
        forward = original(owner)
        lines.append(
            "  this op computes part of the gradient of "
            f"{forward.describe()}{eager_iterations(forward)}"
        )
    for j, (t, v) in enumerate(zip(op.inputs, inputs)):
        lines.append(f"  input {j} ({input_name(t)}): {_summary(v)}")
    lines.append(f": Tensor had {_kinds(a)} values")
    return "\n".join(lines)


def _kinds(a: np.ndarray) -> str:
    parts = [a.real, a.imag] if a.dtype.kind == "c" else [a]
    found = []
    if any(np.isneginf(p).any() for p in parts):
        found.append("-Inf")
    if any(np.isposinf(p).any() for p in parts):
        found.append("+Inf")
    if any(np.isnan(p).any() for p in parts):
        found.append("NaN")
    return found[0] if len(found) == 1 else ", ".join(found[:-1]) + " and " + found[-1]


def _summary(v: Any) -> str:
    if v is None:
        return "<no value>"
    a = np.asarray(v)
    if a.size <= 8:
        return np.array2string(a, separator=", ") if a.ndim else str(a)
    text = f"shape {a.shape}"
    if a.dtype.kind in "fc":
        text += f", {int(np.isnan(a).sum())} NaN, {int(np.isinf(a).sum())} Inf"
        finite = a[np.isfinite(a)]
        if finite.size and a.dtype.kind == "f":
            text += f", finite range [{finite.min()}, {finite.max()}]"
    return text


def input_name(t: Any) -> str:
    """A body's or branch's input as the user knows it: ``x:0 (loop variable 1)``,
    ``w:0 (captured)``, a gradient loop's read of a forward value by the loop variable;
    other tensors by their name."""
    op = t.op
    if EAGER_ITERATIONS.get(op):  # an eager loop's value: its iteration
        return f"{t.name} (made{eager_iterations(op)})"
    if op.type == "ReadVariableOp":
        return f"{op.get_attr('var').name} (variable)"
    if op.type == "GatherV2" and op.inputs[0].op.type == "Placeholder":
        stacked = _outer_of(op.inputs[0])
        loop = stacked.op if stacked is not None else None
        if loop is not None and loop.type in ("While", "StatelessWhile"):
            i = stacked.value_index - 2 - loop.get_attr("n_vars")  # type: ignore[union-attr]
            if 0 <= i < loop.get_attr("n_vars"):
                return f"{loop.inputs[2 + i].name} (loop variable {i}{FORWARD_ITERATION})"
    forward = RECREATED.get(op)
    if forward is not None and forward.type == "ReadVariableOp":
        return f"{forward.get_attr('var').name} (captured)"
    if forward is not None:  # re-created in a gradient body: the forward value it stands for
        return f"{t.name} (the forward value of {forward.type} '{forward.name}'{FORWARD_ITERATION})"
    if op.type != "Placeholder":
        return t.name
    outer = _outer_of(t)
    if outer is not None:
        return f"{input_name(outer)} (captured)"
    loop = owner_op(op.graph)
    f = loop.attrs.get("body") if loop is not None else None
    if f is not None and loop is not None and t in f.inputs[1:]:
        i = f.inputs.index(t) - 1
        return f"{loop.inputs[2 + i].name} (loop variable {i})"
    return t.name


def _outer_of(t: Any) -> Any:
    """The outer tensor a capture placeholder stands for, or None."""
    for outer, ph in getattr(t.op.graph, "captures", {}).values():
        if ph is t:
            return outer
    return None


hooks.provide("enable_check_numerics", enable_check_numerics)
hooks.provide("disable_check_numerics", disable_check_numerics)
