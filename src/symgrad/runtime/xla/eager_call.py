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

from symgrad.core.context import current, get_default_graph
from symgrad.core.eager import EagerTensor, _light
from symgrad.core.graph import Graph, Tensor
from symgrad.core.shapes import TensorShape


def call(cf: Any, args: list[Tensor]) -> Any:
    """``cf.call_flat(args)`` for a trace ``cf`` whose ``compiled`` is a ``Compiled``."""
    graph = get_default_graph()
    if current.recorders or not graph.eager:
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
    if len(values) == 1:
        out = _light_out(cf, graph, inputs, values[0], before)
        try:
            out._value = compiled.finish(values)[0]
        except BaseException:
            out._value = None  # (unreachable: drop the device array)
            raise
        return cf._pack([out])
    outs = cf._hold_call(graph, inputs, values, before)
    try:
        compiled.finish(values)  # in place: the op's output_values list
    except BaseException:
        if outs:
            outs[0].op.output_values = None  # no values, and nothing holds it
        raise
    return cf._pack(outs)


def _light_out(
    cf: Any, graph: Graph, inputs: list[Tensor], value: Any, before: list[int] | None
) -> EagerTensor:
    """The call op's one output as a light tensor holding ``value`` (a device array
    until ``finish``); its op is the one ``_hold_call`` would make."""
    spec = cf._out_specs[0]
    dims = spec[0].dims  # the traced shape, where it is the value's (JAX's shape is slower)
    return _light(  # type: ignore[no-any-return]
        graph,
        "PartitionedCall",
        graph.unique_name("PartitionedCall"),
        inputs + cf.route_reads(graph),
        cf.call_attrs(len(inputs), before),
        spec[1],
        TensorShape.of_array(dims if dims is not None and None not in dims else value.shape),
        value,
    )
