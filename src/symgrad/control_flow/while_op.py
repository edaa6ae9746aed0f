"""The functional ops ``While`` and ``StatelessWhile``: the record of a graph
``while_loop`` (its public wrapper and eager loop are in ``while_loop``).

One op, ``StatelessWhile`` (``While`` when the body or condition has stateful ops, as
TF 2 chooses).  Its condition and body are traced into graphs of their own; the tensors
they capture are explicit inputs.  Its inputs are ``[counter, maximum, *loop_vars,
*cond_captures, *body_captures]``; the kernel runs the body's plan while the condition
holds (and ``counter < maximum`` when a maximum is given), as one generated loop where it
can (``runtime.fused_loop``).

Gradients (TF's while_v2 accumulators): with ``back_prop`` the op also outputs, for each
loop variable, the stack of its values at the start of every iteration (``[n, ...]``).  The
gradient of the loop is another ``While`` that counts the iterations down, reads that
iteration's values from the stacks, re-creates the body on them and applies its gradient
(so the body's other intermediates are recomputed, one iteration at a time, rather than
stored).  Gradients reaching a stack (from a higher-order pass) add to the gradient of the
loop variables of that iteration, so the gradient loop can itself be differentiated.
A variable the body reads is captured as one outer read (``function_reads``), where its
gradient, summed over the iterations, leaves the loop.  The batching rule (a jacobian
through a loop is one batched pass) is in ``control_flow_batch``.

Memory: the backward pass keeps each loop variable at every iteration, so memory is linear
in the trip count: n times the loop state for the forward stacks, plus the gradient loop's
own stacks of its variables (kept so that it can be differentiated again).  A variable the
body only sums into (``v + d``) gets no stack: no gradient reads it (``_stacked``), and a
plan that holds no gradient keeps no stack at all (``_while_narrow``).  A list buffer
(a ``TensorArray``) that grows, or whose rows the body reads, keeps its shape and the
rows the body reads instead: the extra outputs of a *recorder* (``tensor_array_grow``).
``bench/wl_while_memory.py`` measures a constant peak per iteration from n = 1,000 to 8,000.
"""

from __future__ import annotations

import functools
import operator
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad.autodiff.backprop import backprop, key
from symgrad.control_flow import fused_loop, tensor_array_grow
from symgrad.control_flow.control_flow_batch import while_rule
from symgrad.control_flow.function_reads import capture_reads, check_no_assign, read_values
from symgrad.control_flow.numerics_where import (
    MIRRORS,
    at_iteration,
    loop_name,
    note_recreated,
    numerics_error,
)
from symgrad.core import context
from symgrad.core import dtypes as dt
from symgrad.core.batching import NotVectorizable
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.gradient_registry import runs_user_code
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.op_registry import OPS, Spec, apply_op, register_op
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import gather
from symgrad.ops.array import structure as array
from symgrad.ops.core import convert_to_tensor, placeholder
from symgrad.ops.math import elementwise as math
from symgrad.ops.sparse.partial_sums import sum_with_parts
from symgrad.runtime.concrete_function import TENSOR, ConcreteFunction, FuncGraph, outer_control


def _trace(
    fn: Callable[[list[Tensor]], list[Any]], specs: Sequence[Spec], name: str, scope: str
) -> ConcreteFunction:
    """``fn`` traced on one placeholder per spec, its names in ``scope``; outer tensors it
    uses become captures."""
    graph = FuncGraph(name, control_flow=True, scope=scope)
    try:
        with context.stop_recording(), graph.as_default():
            inputs = [placeholder(d, s, "loop_var") for s, d in specs]
            outputs = []
            for y in fn(inputs):
                t = convert_to_tensor(y)
                outputs.append(graph.capture(t) if t.graph is not graph else t)
    finally:
        graph.tracing = False
    return ConcreteFunction(graph, inputs, [TENSOR] * len(outputs), outputs)


def functional_while(
    cond: Callable[[list[Tensor]], list[Any]],
    body: Callable[[list[Tensor]], list[Any]],
    loop_vars: list[Tensor],
    shapes: list[TensorShape] | None = None,
    maximum: Tensor | None = None,
    back_prop: bool = True,
    name: str | None = None,
    counter: Tensor | None = None,
    scope: str = "",
) -> list[Tensor]:
    """One ``While`` / ``StatelessWhile`` op over flat ``loop_vars``; its final values.

    ``cond`` and ``body`` take the flat list ``[counter, *loop_vars]`` (the int32 count of
    iterations run so far, then the variables) and return ``[pred]`` / the new variables;
    the names they make start in ``scope``.
    """
    shapes = [t.shape for t in loop_vars] if shapes is None else shapes
    counter = convert_to_tensor(0, dtype=dt.int32) if counter is None else counter
    maximum = convert_to_tensor(-1, dtype=dt.int32) if maximum is None else maximum
    specs: list[Spec] = [(TensorShape([]), dt.int32)] + [
        (s, t.dtype) for s, t in zip(shapes, loop_vars, strict=True)
    ]
    cond_f = _trace(lambda xs: cond(xs), specs, "while_cond", scope)
    body_f = capture_reads([_trace(lambda xs: body(xs), specs, "while_body", scope)])[0]
    if cond_f.outputs[0].dtype is not dt.bool_ or cond_f.outputs[0].shape.rank not in (None, 0):
        raise TypeError(
            f"cond must return a boolean scalar tensor, got "
            f"{cond_f.outputs[0].dtype.name} of shape {cond_f.outputs[0].shape}"
        )
    for t, s, out in zip(loop_vars, shapes, body_f.outputs, strict=True):
        if out.dtype is not t.dtype:
            raise TypeError(
                f"Loop var {t.name} enters the loop with type <dtype: '{t.dtype.name}'> but "
                f"has type <dtype: '{out.dtype.name}'> after 1 iteration. {t.name} type "
                "should remain constant."
            )
        if not s.is_compatible_with(out.shape) or (s.rank is not None and out.shape.rank is None):
            raise ValueError(
                f"Input tensor `{t.name}` enters the loop with shape {s}, but has shape "
                f"{out.shape} after one iteration. To allow the shape to vary across "
                "iterations, use the `shape_invariants` argument of tf.while_loop to "
                "specify a less-specific shape."
            )
    stateful = any(
        OPS[op.type].stateful for f in (cond_f, body_f) for op in f.graph.get_operations()
    )
    kept, recorder, records, grows = tensor_array_grow.plan(
        body_f, _stacked(body_f) if back_prop else ()
    )
    with outer_control([cond_f, body_f]):  # an outer op the loop depends on: once, first
        op = apply_op(
            "While" if stateful else "StatelessWhile",
            [counter, maximum, *loop_vars, *cond_f.captured, *body_f.captured],
            {
                "cond": cond_f,
                "body": body_f,
                "n_vars": len(loop_vars),
                "n_cond": len(cond_f.captured),
                "shapes": tuple(shapes),
                "accumulate": kept,
                "recorder": recorder,
                "records": records,
                "grows": grows,
            },
            name or "while",
        )
    return op.outputs[2 : 2 + len(loop_vars)]


def _while_infer(
    inputs: Sequence[Tensor],
    *,
    cond: ConcreteFunction,
    body: ConcreteFunction,
    n_vars: int,
    n_cond: int,
    shapes: tuple[TensorShape, ...],
    accumulate: tuple[bool, ...],
    recorder: ConcreteFunction | None,
    records: tuple[Spec, ...],
    grows: tuple[tensor_array_grow.Grow, ...],
) -> list[Spec]:
    scalar = TensorShape([])
    vars_ = inputs[2 : 2 + n_vars]
    specs: list[Spec] = [(scalar, dt.int32), (scalar, dt.int32)]
    specs += [(s, t.dtype) for s, t in zip(shapes, vars_, strict=True)]
    if accumulate:
        specs += [(_stacked_shape(s), t.dtype) for s, t in zip(shapes, vars_, strict=True)]
    specs += [(_stacked_shape(s), d) for s, d in records]
    return specs


def _stacked_shape(s: TensorShape) -> TensorShape:
    return TensorShape([None, *s.dims]) if s.rank is not None else TensorShape(None)  # type: ignore[misc]


def _while_kernel(
    *arrays: Any,
    cond: ConcreteFunction,
    body: ConcreteFunction,
    n_vars: int,
    n_cond: int,
    shapes: Any,
    accumulate: tuple[bool, ...],
    recorder: ConcreteFunction | None,
    records: tuple[Spec, ...],
    grows: tuple[tensor_array_grow.Grow, ...],
    strict: bool = False,
) -> tuple[Any, ...]:
    """The loop; with ``accumulate``, the stacks of the variables kept; with a
    ``recorder`` (the body with extra outputs), the stacks of those outputs.  ``strict``
    (in a plan, which keeps only the stacks a gradient reads): values that changed shape
    are an error rather than an empty stack."""
    counter, maximum = int(arrays[0]), int(arrays[1])
    first = list(arrays[2 : 2 + n_vars])
    caps = (list(arrays[2 + n_vars : 2 + n_vars + n_cond]), list(arrays[2 + n_vars + n_cond :]))
    limit = maximum if maximum >= 0 else sys.maxsize
    run = body if recorder is None else recorder
    n_rec = 0 if recorder is None else len(records)
    stacks = _new_stacks(accumulate, n_rec)
    done = fused_loop.run(cond, run, counter, limit, first, caps, stacks)
    if done is None:  # not fusable, or it raised: step by step, to name the failure
        stacks = _new_stacks(accumulate, n_rec)
        done = _run_stepwise(cond, run, counter, limit, first, caps, stacks)
    counter, state = done
    accs = []
    if accumulate:
        for i, (s, v) in enumerate(zip(stacks, first, strict=False)):
            accs.append(_stack(s, np.shape(v), np.asarray(v).dtype, body, i, strict))
    for k, (s, d) in enumerate(records):
        values = stacks[n_vars + k] if k < n_rec else None
        empty = tuple(n or 0 for n in s.dims or ())
        accs.append(_stack(values, empty, d.np, body, -1 - k, strict))
    return (np.int32(counter), np.int32(maximum), *state, *accs)


def _run_stepwise(
    cond: ConcreteFunction,
    body: ConcreteFunction,
    counter: int,
    limit: int,
    state: list[Any],
    caps: tuple[list[Any], list[Any]],
    stacks: list[Any],
) -> tuple[int, list[Any]]:
    """One run of the cond's plan and one of the body's per iteration (stateful loops,
    a NaN check, and the failures of a fused loop, named with their iteration)."""
    where = "cond"
    try:
        while counter < limit:
            c = np.int32(counter)
            where = "cond"
            if not cond.run_outputs([c, *state, *caps[0]])[0]:
                break
            for s, v in zip(stacks, state, strict=False):
                s.append(v)
            where = "body"
            outs = body.run_outputs([c, *state, *caps[1]])
            state = outs[: len(state)]
            for s, v in zip(stacks[len(state) :], outs[len(state) :], strict=True):
                s.append(v)  # the recorder's extra outputs
            counter += 1
    except InvalidArgumentError as e:
        if not numerics_error(e):
            raise
        raise at_iteration(e, loop_name(body), counter, where, body, state) from None
    return counter, state


def _stack(
    values: Any, shape: tuple[int, ...], dtype: Any, body: ConcreteFunction, i: int, strict: bool
) -> Any:
    """The values of one loop variable (``i``; a record ``-1 - i``) at each iteration,
    stacked; a variable not kept gets an empty stack.  A plan keeps stacks only for a
    gradient that reads them (``strict``), so there values that changed shape, which
    cannot be stacked, are that gradient's error; an op run at once (eagerly) keeps every
    stack, and its gradient checks them (``tensor_array_grow.check_stacks``).
    ``np.array`` of the list is ``np.stack`` at half the cost (a twentieth for scalars)."""
    if isinstance(values, list) and values:
        try:
            return np.array(values, dtype=dtype)
        except ValueError:
            if strict:
                raise tensor_array_grow.ragged(values, loop_name(body), i) from None
    return np.zeros((0, *shape), dtype)


class _Discard:
    """The stack of a loop variable the gradient never reads: appends keep nothing."""

    def append(self, value: Any) -> None:
        pass


def _new_stacks(accumulate: tuple[bool, ...], records: int) -> list[Any]:
    """One list per loop variable whose values the gradient reads, a ``_Discard`` for
    the others, then one list per record (the fused loop and the stepwise one append to
    each)."""
    return [[] if keep else _Discard() for keep in accumulate] + [[] for _ in range(records)]


# Ops that write into their first input (a TensorArray's buffer) without their gradient
# reading its values: a buffer only written in the body needs no per-iteration stack.
_WRITES = ("TensorListSetItem", "TensorListScatterIntoExistingList")
# Ops that add a part into their first input (a gradient loop's sum for a captured
# tensor, ``partial_sums``): summing into a variable reads none of its values either.
_ADDS_INTO_0 = ("TensorListAddItem", "StridedSliceAdd")


def _plus(ts: list[Tensor]) -> Tensor:
    """A sum as ``a + b`` (AddV2): what ``_stacked`` knows as summing into a variable."""
    return functools.reduce(operator.add, ts)


def _stacked(body: ConcreteFunction) -> tuple[bool, ...]:
    """Which loop variables the gradient needs at every iteration's start: all but those
    whose value no gradient reads.  That is a value the body returns as it is, or only
    sums into (``v + d`` as v's next value, such as the gradient loop's sums for the
    captured tensors), or only writes rows into (a TensorArray's buffer in ``map_fn`` and
    ``scan``): the gradient of those passes through whatever the values were, so their
    stacks would never be read, and a written array costs no O(n²) memory."""
    uses: dict[tuple[int, int], list[Any]] = {}
    for op in body.graph.get_operations():
        for t in op.inputs:
            uses.setdefault(key(t), []).append(op)

    def unread(t: Tensor, out: Tensor) -> bool:
        for op in uses.get(key(t), []):
            into = op.type in _ADDS_INTO_0 and key(op.inputs[0]) == key(t)
            if op.type in ("Add", "AddV2") or into:
                ok = key(op.outputs[0]) == key(out) and key(out) not in uses
            else:
                ok = op.type in _WRITES and key(op.inputs[0]) == key(t)
                ok = ok and op.inputs[0].shape == op.outputs[0].shape  # not growing
                ok = ok and unread(op.outputs[0], out)  # and nothing reads what it wrote
            if not ok:
                return False
        return True

    return tuple(not unread(ph, out) for ph, out in zip(body.inputs[1:], body.outputs, strict=True))


def _while_narrow(op: Any, read: tuple[bool, ...]) -> dict[str, Any] | None:
    """A plan that reads none of a variable's stack (its gradient is not in the plan)
    runs the loop without keeping that variable's values: no append per iteration, no
    stack of them at the end.  What it keeps, a gradient reads (``strict``)."""
    kept: tuple[bool, ...] = op.get_attr("accumulate")
    n_vars = op.get_attr("n_vars")
    stacks = read[2 + n_vars : 2 + n_vars + len(kept)]
    narrowed = tuple(k and r for k, r in zip(kept, stacks, strict=True))
    recorder = op.get_attr("recorder") if any(read[2 + n_vars + len(kept) :]) else None
    return {**op.attrs, "accumulate": narrowed, "recorder": recorder, "strict": True}


WHILE = register_op(
    "While",
    _while_infer,
    _while_kernel,
    stateful=True,
    pure=False,
    narrow=_while_narrow,
)
STATELESS_WHILE = register_op("StatelessWhile", _while_infer, _while_kernel, narrow=_while_narrow)


_while_rule = while_rule(functional_while)


def _while_batch(c: Any) -> list[Tensor]:
    if c.op.get_attr("records"):
        raise NotVectorizable(c.op, "a loop variable that changes shape (a growing TensorArray)")
    return _while_rule(c)


WHILE.batching(_while_batch)
STATELESS_WHILE.batching(_while_batch)


@WHILE.gradient
@runs_user_code
def _while_grad(op: Any, *grads: Tensor | None) -> list[Tensor | None]:
    """A While counting the iterations down: each step re-creates the body on that
    iteration's values (read from the stacks; a growing buffer's stand-in built from
    its records, ``tensor_array_grow``) and applies its gradient."""
    n_vars, n_cond = op.get_attr("n_vars"), op.get_attr("n_cond")
    body_f: ConcreteFunction = op.get_attr("body")
    check_no_assign([body_f], f"{op.type} op '{op.name}'")
    ins = list(op.inputs)
    counter0, vars0, body_caps = ins[0], ins[2 : 2 + n_vars], ins[2 + n_vars + n_cond :]
    none: list[Tensor | None] = [None] * len(ins)
    if not op.get_attr("accumulate"):
        return none
    tensor_array_grow.check_stacks(op)
    stacks, records = op.outputs[2 + n_vars : 2 + 2 * n_vars], op.outputs[2 + 2 * n_vars :]
    g_vars, g_stacks = list(grads[2 : 2 + n_vars]), _nonzero(grads[2 + n_vars : 2 + 2 * n_vars])
    g_stacks = [g if k else None for g, k in zip(g_stacks, op.get_attr("accumulate"), strict=True)]
    g_reads = tensor_array_grow.read_grads(op, _nonzero(grads[2 + 2 * n_vars :]))
    dv = [i for i, t in enumerate(vars0) if t.dtype.is_differentiable]
    dc = [i for i, t in enumerate(body_caps) if t.dtype.is_differentiable]
    if not dv or (all(g is None for g in g_vars + g_stacks) and not g_reads):
        return none
    start = [
        g if g is not None else array.zeros_like(op.outputs[2 + i])
        for i, g in ((i, g_vars[i]) for i in dv)
    ]
    start += [array.zeros_like(body_caps[i]) for i in dc]
    remaining = op.outputs[0] - counter0

    def grad_cond(xs: list[Tensor]) -> list[Tensor]:
        return [math.greater(xs[1], 0)]

    def grad_body(xs: list[Tensor]) -> list[Tensor]:
        k, gv, gc = xs[1], xs[2 : 2 + len(dv)], xs[2 + len(dv) :]
        j = k - 1
        values = _values_at(op, stacks, records, j)
        caps = [get_default_graph().capture(t) for t in body_caps]  # sources, in this graph
        feeds = [counter0 + j, *values, *caps]
        mapping = body_f.replay(feeds, given=read_values(body_f, feeds), effects=False)
        note_recreated(  # the NaN check names these by the forward values they stand for
            (t.op, mapping[key(t)].op)
            for f_op in body_f.graph.get_operations()
            for t in f_op.outputs
            if key(t) in mapping
        )
        outs = [mapping[key(t)] for t in body_f.outputs]
        pairs = [(outs[i], g) for i, g in zip(dv, gv, strict=True)]
        pairs += [(mapping[key(t)], gather.gather(g, j)) for t, g in g_reads]
        sources = [values[i] for i in dv] + [caps[i] for i in dc]
        found = backprop([t for t, _ in pairs], [g for _, g in pairs], sources)
        new_gv: list[Tensor] = []
        for n, i in enumerate(dv):
            f = found[n]
            g = f if f is not None else array.zeros_like(values[i])
            if g_stacks[i] is not None:
                g = g + gather.gather(g_stacks[i], j)
            new_gv.append(g)
        new_gc = [  # a part of a captured tensor read (xs[t], a row) adds that part alone
            c if d is None else sum_with_parts([c, d], _plus)
            for c, d in zip(gc, found[len(dv) :], strict=True)
        ]
        return [k - 1, *new_gv, *new_gc]

    shapes = [
        vars0[i].shape if op.get_attr("shapes")[i].rank is None else op.get_attr("shapes")[i]
        for i in dv
    ] + [body_caps[i].shape for i in dc]
    outs = functional_while(
        lambda xs: grad_cond(xs),
        grad_body,
        [remaining, *start],
        [TensorShape([])] + shapes,
        name="while_grad",
    )
    MIRRORS[outs[0].op] = op
    result = none
    for n, i in enumerate(dv):
        result[2 + i] = outs[1 + n]
    for n, i in enumerate(dc):
        result[2 + n_vars + n_cond + i] = outs[1 + len(dv) + n]
    return result


def _nonzero(grads: Sequence[Tensor | None]) -> list[Tensor | None]:
    """The gradients of stacks that are not known to be zeros (backprop fills the
    gradients of outputs nothing reads with zeros)."""
    return [g if g is not None and not array.is_zeros(g) else None for g in grads]


def _values_at(op: Any, stacks: list[Tensor], records: list[Tensor], j: Tensor) -> list[Tensor]:
    """The loop variables at the start of iteration ``j``, as far as the gradient reads
    them: from the stacks, a growing buffer's stand-in from its records, and zeros for
    a variable whose values no gradient reads."""
    grows = {g.var: g for g in op.get_attr("grows")}
    values = []
    for i, (s, kept) in enumerate(zip(stacks, op.get_attr("accumulate"), strict=True)):
        like = op.outputs[2 + i]
        if i in grows:
            invariant = op.get_attr("shapes")[i]
            values.append(tensor_array_grow.stand_in(records, grows[i], j, invariant, like.dtype))
        else:
            values.append(gather.gather(s, j) if kept else array.zeros_like(like))
    return values


STATELESS_WHILE.gradient(_while_grad)
