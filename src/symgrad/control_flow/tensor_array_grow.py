"""Gradients through a loop whose body reads a ``TensorArray`` that grows.

A ``While`` keeps, for its gradient, each loop variable's value at the start of every
iteration, stacked into one array ``[n, *shape]``.  A ``dynamic_size`` array that grows
inside the loop has a buffer with one more row each iteration: its values cannot be
stacked, and stacking a copy of the whole buffer per iteration would cost O(n²) anyway.
But the gradient needs little of it.  The gradient of the body re-creates the body on
each iteration's values (``while_op._while_grad``), and the list ops' gradients read
only the buffer's shape and the indices, never its values (``list_ops``).  The only
values of the buffer that the body's other ops use are the rows it reads.

So for a loop variable that the body uses only through list ops (reads, writes, and ops
that read its shape alone), and whose shape may change (its shape invariant is not fully
defined) or whose rows the body reads, the loop keeps per iteration its shape, and the
index and value of each read of it: O(rows read) numbers per iteration, linear in the
trip count in all.
These are extra outputs of the body (a second function on the body's graph, the
*recorder*), stacked by the kernel as it stacks the loop variables.  The gradient then
builds a stand-in buffer of the recorded shape: zeros with the recorded rows scattered
in.  The body replayed on it reads exactly the values it read going forward, and
differentiating it gives the buffer's gradient, which depends on nothing else.  TF's
while_v2 keeps what the gradient needs in accumulators in the same spirit.

Reads of the buffer after a write in the same iteration (``ta.write(i, v).read(k)``)
are kept too: a row the body wrote reads back through the write, any other row through
the stand-in, so each recorded row lands in the stand-in unless a read nearer the
buffer also read it.  A body that writes one buffer twice from the same value (two
branches of writes) and reads behind them is not handled this way, nor is any other use
of a growing buffer (``stack()`` in the body, an inner loop over it): those keep whole
values, and the kernel names the loop and variable if the shape changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from symgrad.autodiff.backprop import key
from symgrad.core import context
from symgrad.core.dtypes import DType
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Operation, Tensor
from symgrad.core.op_registry import OPS, Spec
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import gather, joining, shape
from symgrad.ops.array import structure as array
from symgrad.ops.array.list_ops import scatter_items
from symgrad.runtime.concrete_function import TENSOR, ConcreteFunction

_READS = ("TensorListGetItem", "TensorListGather")
_WRITES = ("TensorListSetItem", "TensorListScatterIntoExistingList")
# Ops whose gradient reads none of their inputs' values (GatherV2: not of its params).
_LINEAR = frozenset({"Add", "AddV2", "AddN", "Sub", "Neg", "Identity"})
# ... and those whose gradient reads none of input 0's values (GatherV2's params; a row
# added into a list: a gradient loop's sum of reads, ``partial_sums``)
_LINEAR_IN_0 = frozenset({"GatherV2", "TensorListAddItem"})


@dataclass(frozen=True)
class Grow:
    """The records of one varying loop variable ``var``: its shape is record ``first``,
    then each read ``k`` has its index at ``first + 1 + 2k`` and its value after that;
    ``depths[k]`` counts the writes between the loop variable and the buffer read."""

    var: int
    first: int
    depths: tuple[int, ...]


def plan(
    body: ConcreteFunction, kept: tuple[bool, ...]
) -> tuple[tuple[bool, ...], ConcreteFunction | None, tuple[Spec, ...], tuple[Grow, ...]]:
    """For a loop body and the variables its gradient reads (``kept``): which variables
    still need whole stacks, the recorder (None when no variable grows), the records'
    specs, and what the records of each varying variable are.  A buffer the body only
    writes has no reads to keep, but its shape is kept all the same, so that the
    gradient of each iteration has that iteration's rows."""
    uses: dict[tuple[int, int], list[Operation]] = {}
    for op in body.graph.get_operations():
        for t in {key(t): t for t in op.inputs}.values():
            uses.setdefault(key(t), []).append(op)
    found = []
    for i, k in enumerate(kept):
        var = body.inputs[1 + i]
        chain = None if var.shape.rank in (None, 0) else _chain_reads(var, uses)
        # a fixed-size buffer only written needs nothing: its gradient has all its rows
        if chain is not None and (k or (chain[1] and not var.shape.is_fully_defined())):
            found.append((i, chain[0]))
    if not found:
        return kept, None, (), ()
    n_vars = len(body.outputs)
    extra: list[Tensor] = []
    grows = []
    with context.stop_recording(), body.graph.as_default():
        for i, reads in found:
            grows.append(Grow(i, len(extra), tuple(d for d, _ in reads)))
            extra.append(shape.shape(body.inputs[1 + i]))
            for _, op in reads:
                extra += [op.inputs[1], op.outputs[0]]
    recorder = ConcreteFunction(
        body.graph,
        body.inputs,
        [TENSOR] * (n_vars + len(extra)),
        [
            *body.outputs,
            *extra,
        ],
    )
    growing = {i for i, _ in found}
    stacked = tuple(k and i not in growing for i, k in enumerate(kept))
    return stacked, recorder, tuple((t.shape, t.dtype) for t in extra), tuple(grows)


def _chain_reads(
    var: Tensor, uses: dict[Any, list[Operation]]
) -> tuple[list[tuple[int, Operation]], bool] | None:
    """The list reads of a loop variable that may change shape, with their depths, when
    the body uses it (and the buffers made from it) only through list ops, linear ops
    whose gradients do not read it (``_LINEAR``: as a gradient loop sums a buffer's
    gradients), ``cond`` branches that only write it, ``concat`` (a tensor grown row by
    row) and ops that read its shape alone; else None.  A buffer made by a linear
    op no longer has the variable's rows (depth None): nothing may read it.  With the
    reads, whether the body writes the variable."""
    reads: list[tuple[int, Operation]] = []
    todo: list[tuple[Tensor, int | None]] = [(var, 0)]
    seen: set[Any] = set()
    branched = wrote = False
    while todo:
        t, depth = todo.pop()
        if key(t) in seen:
            continue
        seen.add(key(t))
        writes = 0
        for op in uses.get(key(t), []):
            at = [n for n, x in enumerate(op.inputs) if key(x) == key(t)]
            if op.type in _READS and at == [0] and depth is not None:
                reads.append((depth, op))
            elif op.type in _WRITES and at == [0]:
                writes += 1
                wrote = True
                todo.append((op.outputs[0], None if depth is None else depth + 1))
            elif op.type in _LINEAR or (op.type in _LINEAR_IN_0 and at == [0]):
                todo.append((op.outputs[0], None))
            elif op.type == "ConcatV2" and len(op.inputs) - 1 not in at:
                wrote = True  # a tensor grown by concat: its gradient reads shapes alone
                todo.append((op.outputs[0], None))
            elif op.type in _BRANCHING and 0 not in at:
                carried = _written_in_branches(op, at)
                if carried is None:
                    return None
                wrote = True
                todo += [(op.outputs[m], None) for m in carried]
            elif not OPS[op.type].shape_only:
                return None
        branched = branched or (depth is not None and writes > 1)
    if branched and any(d for d, _ in reads):
        return None
    return reads, wrote


_BRANCHING = frozenset({"If", "StatelessIf", "Case", "StatelessCase"})


def _written_in_branches(op: Operation, at: list[int]) -> set[int] | None:
    """For an ``If`` / ``Case`` that takes a buffer as inputs ``at``: the outputs that
    carry it, when each branch only writes it (an AutoGraph ``if`` around ``ta.write``);
    else None.  The op's gradient then reads only the buffer's shape, as a write's does."""
    carried: set[int] = set()
    for branch, inputs in zip(op.get_attr("branches"), op.get_attr("maps"), strict=True):
        stand_ins = [ph for _, ph in branch.graph.captures.values()]  # as branch.captured
        places = [stand_ins[k] for k, n in enumerate(inputs) if 1 + n in at]
        reached = _written_only(branch, places)
        if reached is None:
            return None
        carried.update(m for m, t in enumerate(branch.outputs) if key(t) in reached)
    return carried


def _written_only(branch: ConcreteFunction, places: list[Tensor]) -> set[Any] | None:
    """The tensors a branch makes from ``places`` by writes alone, when it uses them in
    no other way than writes and ops that read their shape; else None."""
    uses: dict[Any, list[Operation]] = {}
    for op in branch.graph.get_operations():
        for t in op.inputs:
            uses.setdefault(key(t), []).append(op)
    reached, todo = set(), list(places)
    while todo:
        t = todo.pop()
        if key(t) in reached:
            continue
        reached.add(key(t))
        for op in uses.get(key(t), []):
            at = [n for n, x in enumerate(op.inputs) if key(x) == key(t)]
            if (op.type in _WRITES and at == [0]) or op.type == "Identity":
                todo.append(op.outputs[0])
            elif not OPS[op.type].shape_only:
                return None
    return reached


def stand_in(
    records: list[Tensor], grow: Grow, j: Tensor, invariant: TensorShape, dtype: DType
) -> Tensor:
    """The buffer of ``grow``'s variable at iteration ``j`` as the gradient sees it: the
    recorded shape, the recorded rows read, zeros elsewhere (no gradient reads them).
    Rows read behind a write go in first, deepest first, then those read straight from
    the variable, so the read nearest the variable wins; rows past the end (written in
    the iteration, then read) are cut off."""
    dims = gather.gather(records[grow.first], j)
    buf = array.zeros(dims, dtype)
    buf.set_shape(invariant)  # the loop's shape invariant: the rows are not static
    order = sorted(range(len(grow.depths)), key=lambda k: -grow.depths[k])
    derived = [k for k in order if grow.depths[k]]
    for k in derived:
        buf = _scatter(buf, records, grow, k, j, resize=True)
    if derived:
        buf = gather.gather(buf, array.range(dims[0]))
        buf.set_shape(invariant)
    for k in order[len(derived) :]:
        buf = _scatter(buf, records, grow, k, j, resize=False)
    return buf


def _scatter(
    buf: Tensor, records: list[Tensor], grow: Grow, k: int, j: Tensor, resize: bool
) -> Tensor:
    """``buf`` with the rows of read ``k`` at iteration ``j`` written in."""
    index = gather.gather(records[grow.first + 1 + 2 * k], j)
    value = gather.gather(records[grow.first + 2 + 2 * k], j)
    rank = buf.shape.rank - 1  # type: ignore[operator]
    # the value's trailing dims: a buffer that held no values takes them (list_ops)
    element = shape.shape(value)[array.rank(value) - rank :] if rank else shape.shape(buf)[1:]
    values = shape.reshape(value, joining.concat([[-1], element], 0))
    return scatter_items(buf, values, shape.reshape(index, [-1]), resize=resize)


def value_records(grow: Grow) -> list[int]:
    """The indices among the records of each read's value, in the order of ``depths``."""
    return [grow.first + 2 + 2 * k for k in range(len(grow.depths))]


def read_grads(op: Any, g_records: list[Tensor | None]) -> list[tuple[Tensor, Tensor]]:
    """The gradients reaching the recorded values of the body's reads (a higher-order
    pass): (the read in the body, the gradient of its stack)."""
    recorder = op.get_attr("recorder")
    if recorder is None:
        return []
    tensors = recorder.outputs[op.get_attr("n_vars") :]
    found = []
    for grow in op.get_attr("grows"):
        for r in value_records(grow):
            g = g_records[r]
            if g is not None:
                found.append((tensors[r], g))
    return found


def ragged(values: list[Any], loop: str, i: int) -> InvalidArgumentError:
    """The error for a gradient that needs, at every iteration, a value that changes
    shape: it names the loop, the variable and what to write instead."""
    k, s = next(
        (k, np.shape(v)) for k, v in enumerate(values) if np.shape(v) != np.shape(values[0])
    )
    what = f"loop variable {i}" if i >= 0 else f"a value read in the body (record {-1 - i})"
    shapes = f"shape {list(np.shape(values[0]))} at iteration 0, {list(s)} at iteration {k}"
    return _cannot(loop, what, shapes)


def check_stacks(op: Any) -> None:
    """An op run at once (eagerly) kept an empty stack for a variable that changed
    shape: its gradient, which would read it, names the loop and the variable."""
    if not op.outputs[0].has_value():
        return
    trips = int(op.outputs[0].numpy()) - int(op.inputs[0].numpy())
    n_vars, kept = op.get_attr("n_vars"), op.get_attr("accumulate")
    for i, (k, s) in enumerate(zip(kept, op.outputs[2 + n_vars : 2 + 2 * n_vars], strict=True)):
        if k and trips and s.shape[0] == 0:
            ends = op.inputs[2 + i].shape.as_list(), op.outputs[2 + i].shape.as_list()
            shapes = f"shape {ends[0]} on entry, {ends[1]} at exit"
            raise _cannot(f"{op.type} '{op.name}'", f"loop variable {i}", shapes)
    if op.get_attr("recorder") is not None:
        for k, r in enumerate(op.outputs[2 + 2 * n_vars :]):
            if trips and r.shape[0] == 0:
                what = f"a value read in the body (record {k})"
                raise _cannot(f"{op.type} '{op.name}'", what, "its shape varies")


def _cannot(loop: str, what: str, shapes: str) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"Cannot differentiate {loop}: {what} changes shape across iterations ({shapes}), "
        "and the gradient needs its value at every iteration. A growing TensorArray has a "
        "gradient when the loop body only reads it (read, gather), writes it (write, "
        "scatter) and asks its size; for other uses (stack() or concat() in the body, an "
        "inner loop over it, a second-order gradient) give it a fixed size "
        "(TensorArray(size=n, dynamic_size=False)), or carry the values you need as loop "
        "variables of a fixed shape.",
        None,
    )
