"""A compiled trace's eager call: the XLA program on the inputs' arrays, and its call op.

``Function.__call__`` comes here for a trace with a compiled form (``jit_compile``) when
the call's signature is one it has seen.  At the eager top level with no tape active, the
program runs on the inputs' arrays and one ``PartitionedCall`` op holds its outputs, as
``ConcreteFunction._call_now`` makes it (no recorded values; the variables' versions),
with no other step on the way; anywhere else ``call_flat`` chooses the route (a tape, a
graph, a symbolic input).

A trace with one output (a step returning its loss) gets a light tensor
(``core.eager.EagerTensor``) whose ``op`` is built when first read, as an eager op's:
the same name, inputs, attributes, traceback and graph entry, so ``gradients`` and
``y.op`` see the call op they always saw, and a loop of steps that only reads the loss
never builds it.  The call op is made after the dispatch (while XLA computes, where the
dispatch is asynchronous); its value becomes a NumPy array after.
"""

from __future__ import annotations

from typing import Any

from symgrad.core import context
from symgrad.core.context import current
from symgrad.core.eager import EagerTensor
from symgrad.core.fast_path import FastOp, _fast_tensor
from symgrad.core.graph import Graph, Tensor
from symgrad.core.shapes import TensorShape

# The call op's fields for ``_fast_tensor``: its type and default name (no rule, dtypes
# or kernel: the compiled program is the kernel).
_CALL = FastOp("PartitionedCall", None, (), None, None, {})


def call(cf: Any, args: list[Tensor]) -> Any:
    """``cf.call_flat(args)`` for a trace ``cf`` whose ``compiled`` is a ``Compiled``."""
    ctx = current.__dict__  # (one thread-local read for the recorders and the graphs)
    graphs = ctx["graphs"]
    graph = graphs[-1] if graphs else context._top_level
    if ctx["recorders"] or not graph.eager:
        return cf.call_flat(args)
    inputs = args + cf.captured if cf.captured else args
    arrays = []
    for t in inputs:
        if type(t) is EagerTensor:  # its value, without building its op
            arrays.append(t._value)
            continue
        values = t.op.output_values
        if values is None:
            return cf.call_flat(args)
        arrays.append(values[t.value_index])
    compiled = cf.compiled
    again = compiled.again
    if again is None or again[0] is not graph:
        return _call(cf, compiled, graph, ctx, inputs, arrays)
    # A training step's call again in this graph: what its output's tensor needs, kept.
    value = compiled.start(arrays)[0]
    _, reads, dtype, shape, attrs = again
    t = _fast_tensor(_CALL, graph, ctx, (), value, dtype, shape, (*inputs, *reads), attrs.copy(), 3)
    return _finish(cf, compiled, t, value)


def _call(
    cf: Any, compiled: Any, graph: Graph, ctx: Any, inputs: list[Tensor], arrays: list[Any]
) -> Any:
    """``call``'s first call in a graph, and every call of a trace that only reads the
    variables or has several outputs."""
    # A call that assigns leaves no recorded version current (see call_attrs).
    before = None if compiled.written else [v._version for v in cf.variables]
    values = compiled.start(arrays)
    if len(values) != 1:
        return _many(cf, graph, inputs, values, before)
    # The one output (a step's loss) as a light tensor, its op (the one ``_hold_call``
    # makes) built when first read, made as the eager fast path makes its tensors (the
    # user's line: four frames out, Function.__call__'s caller).
    reads = cf.route_reads(graph)
    dtype = cf._out_specs[0][1]
    value = values[0]
    shape = _static(cf._out_specs[0][0])
    attrs = cf.call_attrs(len(inputs), before)
    if shape is None:
        shape = TensorShape.of_array(value.shape)
    elif before is None:  # all the same for each call in this graph: kept
        compiled.again = (graph, tuple(reads), dtype, shape, attrs)
        attrs = attrs.copy()  # (each op owns its dict)
    t = _fast_tensor(_CALL, graph, ctx, (), value, dtype, shape, (*inputs, *reads), attrs, 4)
    return _finish(cf, compiled, t, value)


def _finish(cf: Any, compiled: Any, t: EagerTensor, value: Any) -> Any:
    """The call's output ``t``, its value a NumPy array once XLA is done."""
    report = compiled.report  # (the default device a GPU: TF names it)
    if report is not None:
        t._device = report
    try:
        t._value = compiled.finish1(value)
    except BaseException:
        t._value = None  # (unreachable: drop the device array)
        raise
    return cf._pack([t])


def _static(traced: TensorShape) -> TensorShape | None:
    """The traced output shape where every size is known (JAX's shape is slower to read
    than a kept one), else None."""
    dims = traced.dims
    if dims is None or None in dims:
        return None
    return TensorShape.of_array(tuple(dims))  # type: ignore[arg-type]


def _many(
    cf: Any, graph: Graph, inputs: list[Tensor], values: list[Any], before: list[int] | None
) -> Any:
    """The outputs of a call with several: the call op, built now, holds them."""
    outs = cf._hold_call(graph, inputs, values, before)
    if outs and cf.compiled.report is not None:
        outs[0].op.device = cf.compiled.report
    try:
        cf.compiled.finish(values)  # in place: the op's output_values list
    except BaseException:
        if outs:
            outs[0].op.output_values = None  # no values, and nothing holds it
        raise
    return cf._pack(outs)
