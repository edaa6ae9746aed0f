"""Which written variables a compiled call donates: those XLA can update in place.

A donated variable's buffer is the output of its update, so XLA must finish every read
of the old value before writing the new one.  It knows that order only through the
dataflow: where a read of the old value is not an ancestor of the update, XLA copies
the old value aside on every call.  In the MLP step that is each hidden layer's weight,
which the gradient flowing to the layer below reads (``g @ w.T``) while the weight's
own update (``w - lr * h.T @ g``) does not wait for it: 4 MiB copied per step, about 3 %
of its time.  Not donating such a variable costs no memory over that copy (the new
value gets a fresh buffer where the copy took one) and saves the copying, so it is
donated only where the copy is not needed.

The test here is XLA's, on the symgrad graph: the variable is assigned once, by
``AssignVariableOp`` at the top level, and every op reading its old value (through
``Identity``-like ops too) is an ancestor of the assigned value.  A read XLA's fusion
adds (a fused op recomputing ``x + b`` where it reads ``b``) is not seen: that
variable keeps a copy, as before.  The choice changes no value, only the buffers.
"""

from __future__ import annotations

from typing import Any

from symgrad.core.op_registry import OPS

_PASS = frozenset({"Identity", "Snapshot", "StopGradient"})  # the value itself, unchanged


def copied(prog: Any) -> set[int]:
    """``id`` of each written variable whose update XLA would make on a copy."""
    steps = prog.steps
    producer = {k: i for i, step in enumerate(steps) for k in step[3]}
    writes: dict[int, list[int]] = {}
    for i, (op, *_rest) in enumerate(steps):
        var = op.attrs.get("var")
        if var is not None and OPS[op.type].variable != "read":
            writes.setdefault(id(var), []).append(i)
    out = set()
    for vid, at in writes.items():
        if len(at) != 1 or steps[at[0]][0].type != "AssignVariableOp":
            continue
        readers = _readers(steps, vid, at[0])
        if readers - _ancestors(steps, producer, at[0]):
            out.add(vid)
    return out


def _readers(steps: list[Any], vid: int, until: int) -> set[int]:
    """The steps before ``until`` that take the variable's old value as an input."""
    held: set[Any] = set()  # keys holding the old value
    found = set()
    for i in range(until):
        op, _, ins, outs, _ = steps[i]
        var = op.attrs.get("var")
        if var is not None and id(var) == vid and OPS[op.type].variable == "read":
            held.update(outs)
        elif any(k in held for k in ins):
            if op.type in _PASS:
                held.update(outs)
            else:
                found.add(i)
    return found


def _ancestors(steps: list[Any], producer: dict[Any, int], start: int) -> set[int]:
    """The steps the data inputs of step ``start`` depend on."""
    seen: set[int] = set()
    stack = [producer[k] for k in steps[start][2] if k in producer]
    while stack:
        i = stack.pop()
        if i not in seen:
            seen.add(i)
            stack += [producer[k] for k in steps[i][2] if k in producer]
    return seen
