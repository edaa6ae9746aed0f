"""The eager fast path: a pure op run at the top level, at the lowest cost the IR allows.

``apply_op`` hands an op here when the default graph is the eager one, no output check
is installed and the op is pure.  The fast path does what the general path does for such
an op, with the same results (the same op name, traceback, shapes, values, graph entry),
minus the general path's branches:

* the inputs' values are gathered; an input without one, or of another graph, returns
  None and the general path takes the op (it captures, refuses or stays symbolic);
* the shape rule runs *before* the name is taken; if it raises, None is returned before
  any name is used, and the general path reruns it and reports the error as it always has
  (so a failing call leaves the name counters exactly as the general path would);
* the kernel runs with NumPy's floating-point warnings off; if it raises, None is
  returned, and the general path (which creates the op to name it in the error) reruns it:
  only pure ops come here, so running a failing kernel twice changes nothing;
* the ``Operation`` is built field by field (``Operation.__new__``), and added to the
  graph's weak name index and live list as ``Graph.add_op`` does, sweep included.

``apply_op`` then hands the op to the thread's recorders (tapes) as for any other op.
The op is still a full graph node: nothing here is lazy (docs/design.md, "What an eager
op costs").
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.context import current
from symgrad.core.graph import Graph, Operation, Tensor, user_frame
from symgrad.core.shapes import TensorShape


def _errstate_var() -> tuple[Any, Any]:
    """NumPy's error-state context variable and its all-"ignore" value, where it has one.

    Kernels run with floating-point warnings off (inf/nan are values, as in TF).  Setting
    the context variable directly costs a third of entering ``np.errstate`` each op.  It
    is private, so it is used only where the public API confirms, here, that setting it
    is what ``np.errstate(all="ignore")`` does and resetting it restores the caller's
    state; elsewhere (NumPy 1.x, a later change) ``run_kernel`` and plans use np.errstate.
    """
    try:
        from numpy._core import _ufunc_config

        var = _ufunc_config._extobj_contextvar  # type: ignore[attr-defined]
        with np.errstate(all="ignore"):
            ignore = var.get()
        with np.errstate(all="raise"):
            token = var.set(ignore)
            try:  # raises FloatingPointError where setting the variable did nothing
                quiet = np.geterr() == _IGNORED and np.divide(np.ones(1), 0.0)[0] == np.inf
            finally:
                var.reset(token)
            restored = np.geterr()["divide"] == "raise"
    except Exception:  # no such variable, or not one that works so
        return None, None
    return (var, ignore) if quiet and restored else (None, None)


_IGNORED = dict.fromkeys(("divide", "over", "under", "invalid"), "ignore")
ERRSTATE, ERRSTATE_IGNORE = _errstate_var()  # op_registry's run_kernel and plans use them
_new_op = Operation.__new__
_ndarray = np.ndarray


def run_now(
    graph: Graph,
    opdef: Any,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any],
    name: str,
    errstate: Any,
    ignore: Any,
) -> Operation | None:
    """The op, created and run eagerly; None where the general path must take it.

    ``name`` is the name asked for (or the default); ``errstate``/``ignore`` are NumPy's
    error-state variable and its all-"ignore" value (``op_registry.ERRSTATE``)."""
    args = []
    for t in inputs:
        p = t.op
        values = p.output_values
        if values is None or p.graph is not graph:
            return None
        args.append(values[t.value_index])
    try:
        specs = opdef.infer(inputs, **attrs) if attrs else opdef.infer(inputs)
    except Exception:
        return None  # the general path reports it, naming the op
    if type(specs) is not tuple:
        return None  # several outputs: the general path
    shape, dtype = specs
    token = errstate.set(ignore)
    try:
        out = opdef.kernel(*args, **attrs) if attrs else opdef.kernel(*args)
    except Exception:
        return None  # the general path reruns the (pure) kernel and reports the failure
    finally:
        errstate.reset(token)
    if type(out) is not _ndarray or out.dtype != dtype.np:
        if type(out) is tuple:
            return None
        out = np.asarray(out, dtype=dtype.np)
    if shape.dims != out.shape:  # the rule left a size open (or no rule ran)
        shape = TensorShape.of_array(out.shape)
    op = _make(graph, opdef.type, graph.unique_name(name), inputs, attrs, dtype, shape, out)
    for recorder in current.recorders:  # a tape sees the op as the general path hands it
        recorder.record(op)
    return op


def _make(
    graph: Graph,
    op_type: str,
    name: str,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any],
    dtype: Any,
    shape: TensorShape,
    value: Any,
) -> Operation:
    """A one-output eager op, as ``Operation(...)`` and ``graph.add_op`` make it."""
    scopes = graph._scopes
    op = _new_op(Operation)
    op.graph = graph
    op.type = op_type
    op.name = name
    op.inputs = tuple(inputs)
    op._attrs = attrs
    op.output_dtypes = [dtype]
    op.output_shapes = [shape]
    op.output_values = [value]
    op._outs = [None]
    override = scopes.override
    op._gradient_op_type = override.get(op_type) if override else None
    deps = scopes.control_deps
    op.control_inputs = tuple(deps) if deps else ()
    op.traceback = current.frame or user_frame()
    op.device = current.device
    op.skip_input_indices = None
    ref = weakref.ref(op)
    graph._by_name[name] = ref
    live = graph._live
    live.append(ref)
    if len(live) >= graph._sweep_at:
        graph.sweep()
    return op
