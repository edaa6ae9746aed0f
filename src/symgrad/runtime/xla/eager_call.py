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
never builds it.  The call op is made while XLA computes; its value becomes a NumPy
array after.
"""

from __future__ import annotations

from typing import Any

from symgrad.core import context
from symgrad.core.context import current
from symgrad.core.eager import (
    EagerTensor,
    _caller_site,
    _getframe,
    _new_tensor,
    _scoped,
    _user_code,
    _weak,
)
from symgrad.core.graph import Graph, Tensor
from symgrad.core.shapes import TensorShape


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
    # A call that assigns leaves no recorded version current (see call_attrs).
    before = None if compiled.written else [v._version for v in cf.variables]
    values = compiled.start(arrays)
    if len(values) != 1:
        return _many(cf, graph, inputs, values, before)
    # XLA computes meanwhile.  The one output (a step's loss) as a light tensor, its op
    # (the one ``_hold_call`` makes) built when first read: ``_light``'s fields, with
    # ``graph.unique_name`` inlined (outside a name scope the counter's suffix is
    # formatted when read, as the eager fast path's) and the user's line taken lazily.
    # (Here, not in a helper: the user's frame is the caller of Function.__call__.)
    routes = cf._routes
    reads = routes[1] if routes is not None and routes[0] is graph else cf.route_reads(graph)
    shape = compiled.out_shape
    if shape is None:  # (a scalar's TensorShape is falsy: no ``or`` here)
        shape = _shape(compiled, cf._out_specs[0][0], values[0])
    attrs = compiled.attrs
    if attrs is None or before is not None:
        attrs = cf.call_attrs(len(inputs), before)
        if before is None:  # the same every call: copied (each op owns its dict)
            compiled.attrs = attrs
    else:
        attrs = attrs.copy()
    t = _new_tensor(EagerTensor)
    scopes = graph._scopes.__dict__
    names = graph._names_in_use
    count = names.get("partitionedcall", -1)
    if scopes["name"] or count < 0 or graph._suffixed:
        ref = _scoped(graph, t, "PartitionedCall")  # a scope, a new name, or a clash
    else:  # unique_name's eager branch: unique by the counter, so not in the index
        names["partitionedcall"] = count + 1
        t._name = "PartitionedCall"
        t._count = count
        ref = _weak(t)
    t._op = None
    t._value = value = values[0]
    t.dtype = cf._out_specs[0][1]
    t.shape = shape
    t._type = "PartitionedCall"
    t._inputs = (*inputs, *reads)
    t._attrs = attrs
    t.graph = graph
    override, deps = scopes["override"], scopes["control_deps"]
    t._override = override.get("PartitionedCall") if override else None
    t._control = tuple(deps) if deps else ()
    tb = ctx["frame"]
    if tb is not None:
        t._tb, t._at = tb, -1
    else:
        frame = _getframe(2)  # Function.__call__'s caller
        code = frame.f_code
        if code is _user_code[0]:  # the user's (the common case)
            t._tb, t._at = code, frame.f_lasti  # (file, line) when read
        else:
            t._tb, t._at = _caller_site(frame)
    report = compiled.report  # (the default device a GPU: TF names it)
    t._device = report if report is not None else ctx["device"]
    live = graph._live
    live.append(ref)
    if len(live) >= graph._sweep_at:
        graph.sweep()
    try:
        t._value = compiled.finish1(value)
    except BaseException:
        t._value = None  # (unreachable: drop the device array)
        raise
    return cf._pack([t])


def _shape(compiled: Any, traced: TensorShape, value: Any) -> TensorShape:
    """The output's shape: the traced one where it is the value's (kept: JAX's shape
    is slower to read), else the value's."""
    dims = traced.dims
    if dims is not None and None not in dims:
        compiled.out_shape = TensorShape.of_array(dims)  # type: ignore[arg-type]
        return compiled.out_shape  # type: ignore[no-any-return]
    return TensorShape.of_array(value.shape)


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
