"""A variable's read and update at the eager top level, without the general op path.

``ReadVariableOp`` and ``AssignVariableOp`` are stateful, so ``apply_op`` gives them its
general path (capture, shape rule, ``run_kernel``, ``Operation``).  At the top level
of an eager program, with a value at hand, each is one kernel call and one op, built
here as the general path builds it: the same name, attrs, shape, value, traceback and
graph entry, handed to the same recorders (a watched variable's read is recorded, so
the tape finds it), with the same errors.  Where the general path must take the op,
each function returns None (``update`` calls it itself): an uninitialised variable (its
read raises there, naming it), a value fed by a placeholder or of another graph, an
installed output check, NumPy 1.x (no error-state variable).  An update checks its value
before it writes (``_assign*``), so an update that fails leaves the variable as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.core import context as _context
from symgrad.core import op_registry
from symgrad.core.context import current
from symgrad.core.eager import (
    ERRSTATE,
    ERRSTATE_IGNORE,
    EagerTensor,
    _light,
    _make,
)
from symgrad.core.errors import OpError
from symgrad.core.errstate import quiet_run
from symgrad.core.fast_path import FastOp, _fast_tensor
from symgrad.core.graph import Graph, Operation, Tensor
from symgrad.core.shapes import TensorShape

_ndarray = np.ndarray
# The light read's name and type, as ``_fast_tensor`` takes them (no shape rule: the
# variable's own shape and dtype; ``read`` checks the value).
_READ = FastOp("ReadVariableOp", None, frozenset(), None, op_registry.OPS, {})
# The updates' light tensors by their default names (``Variable.assign*``'s).
_WRITES = {
    name: FastOp(
        "AssignVariableOp", None, frozenset(), None, op_registry.OPS, {"AssignVariableOp": name}
    )
    for name in ("Assign", "AssignAdd", "AssignSub")
}
# By an update's mode: its light tensor's FastOp and its kernel (``update``; the kernels
# and ``_unread`` are ``variables.py``'s and ``unread_variable.py``'s, set by ``register``).
_MODES: dict[str, tuple[FastOp, Callable[[Any, Any], np.ndarray]]] = {}
_unread: Callable[[Any, EagerTensor], Any]


def register(kernels: dict[str, Callable[[Any, Any], np.ndarray]], unread: Any) -> None:
    """Set ``update``'s kernels by mode and ``unread_now`` (``variables.py`` calls this: it
    and ``unread_variable.py`` import this module, which cannot import them)."""
    global _unread
    for mode, name in (
        ("assign", "Assign"),
        ("assign_add", "AssignAdd"),
        ("assign_sub", "AssignSub"),
    ):
        _MODES[mode] = (_WRITES[name], kernels[mode])
    _unread = unread


def read_up(var: Any, up: int) -> Tensor:
    """``Variable._read_up`` (this function is the method: the read takes one frame):
    a read of ``var`` (``value()``), its user's line looked for first ``up`` frames out
    of the read's ``_fast_tensor`` (3: the method's caller; ``value`` passes 4, its own
    caller; the matmul and elementwise wrappers pass their callers' depth).  In the eager
    graph it is made and run here: a light tensor whose op is built when first asked for
    (as ``apply_op1``'s), handed to the tapes that record (``record_light``, which notes
    the access as ``variable_accessed`` would); where another recorder records, the
    ReadVariableOp's output, handed to each, told of the access first (``accessed``).
    Else (another graph, or a check below fails) the general path's read, the recorders
    told of the access first."""
    ctx = current.__dict__  # one thread-local read for both
    graphs = ctx["graphs"]
    graph = graphs[-1] if graphs else _context._top_level  # (get_default_graph's)
    if graph.eager:
        value = var._value
        if (  # not uninitialised (the general path raises), no output check to run, not
            type(value) is _ndarray  # NumPy 1.x, and no conversion (run_kernel's) to make
            and op_registry.output_check is None
            and ERRSTATE is not None
            and (value.dtype is var._np_dtype or value.dtype == var._np_dtype)
        ):
            shape = var._shape if var._dims == value.shape else TensorShape.of_array(value.shape)
            recorders = ctx["recorders"]
            if not recorders or not ctx["heavy"]:  # (``_fast_tensor`` records it)
                return _fast_tensor(  # (up - 1: _fast_tensor is called from here)
                    _READ, graph, ctx, recorders, value, var._dtype, shape, (), {"var": var}, up - 1
                )
            accessed(var, recorders)
            name = graph.unique_name("ReadVariableOp")
            op = _make(graph, "ReadVariableOp", name, (), {"var": var}, var._dtype, shape, value)
            for recorder in recorders:
                recorder.record(op)
            return op.output(0)
    accessed(var, ctx["recorders"])
    return op_registry.apply_op("ReadVariableOp", [], {"var": var}, "ReadVariableOp").output(0)


def accessed(var: Any, recorders: list[Any]) -> None:
    """Tell ``recorders`` that ``var`` is read (a trainable one: a tape watching the
    variables it sees read watches it), before the read's op is made."""
    if recorders and var.trainable:
        for recorder in recorders:
            recorder.variable_accessed(var)


def write(
    graph: Graph,
    v: Tensor,
    attrs: dict[str, Any],
    name: str,
    update: Callable[[Any, Any], np.ndarray],
) -> Operation | EagerTensor | None:
    """The AssignVariableOp writing ``v`` (checked by the caller) into ``attrs["var"]``
    by ``update``, made and run in the eager ``graph`` (None: not here).  Where nothing
    records, its light tensor (the op built when first asked for: ``UnreadVariable.op``),
    as ``apply_op1``'s; else the op, recorded."""
    if ERRSTATE is None or op_registry.output_check is not None:
        return None
    if type(v) is EagerTensor:
        if v.graph is not graph:
            return None
        value = v._value
    else:
        p = v.op
        values = p.output_values
        if values is None or p.graph is not graph:
            return None  # fed by a placeholder, or another graph's: the general path
        value = values[v.value_index]
    var = attrs["var"]
    out = _run(graph, v, value, attrs, name, update)
    shape = var._shape if var._dims == out.shape else TensorShape.of_array(out.shape)
    ctx = current.__dict__
    recorders = ctx["recorders"]
    if not recorders:  # (the user's line: looked for from ``Variable._write`` out)
        f = _WRITES.get(name)
        if f is not None:
            return _fast_tensor(f, graph, ctx, (), out, var._dtype, shape, (v,), attrs, 3)
        name = graph.unique_name(name)
        return _light(graph, "AssignVariableOp", name, (v,), attrs, var._dtype, shape, out)
    name = graph.unique_name(name)
    op = _make(graph, "AssignVariableOp", name, (v,), attrs, var._dtype, shape, out)
    for recorder in recorders:
        recorder.record(op)
    return op


def update(var: Any, value: Any, mode: str, name: str | None, read_value: bool = True) -> Any:
    """``Variable._write`` (this function is the method: the update takes one frame):
    ``var.assign*(value)`` (``mode``) in one step, where it surely makes ``write``'s light
    tensor: ``value`` a light tensor of the top level of the variable's dtype and shape,
    no name asked for, nothing recording (no access to tell), no output check, not a
    tf.distribute variable.  Then, as TF's, the variable read where used
    (``read_value``), else the update's op.  Else ``Variable._write_general``."""
    ctx = current.__dict__
    if (
        name is not None
        or type(value) is not EagerTensor
        or value.dtype is not var._dtype
        or value.shape.dims != var._dims
        or ctx["recorders"]  # (write records the op)
        or ctx["graphs"]
        or (graph := value.graph) is not _context._top_level
        or ERRSTATE is None
        or op_registry.output_check is not None
        or var._strategy is not None  # (a replica's write goes to its strategy)
    ):
        return var._write_general(value, mode, name, read_value)
    f, kernel = _MODES[mode]
    attrs = {"var": var, "mode": mode}
    try:  # warnings off, as for the fast path's kernels (core/errstate.py)
        out = (ctx["quiet_run"] or quiet_run(ctx))(kernel, var, value._value)
    except Exception as e:
        failure = _failure(graph, value, attrs, f.names["AssignVariableOp"], e)
        if failure is e:
            raise
        raise failure from e
    # ``out`` has the variable's shape (``value``'s, fully known).  The user's line:
    # looked for from the caller of ``assign*`` (which calls this method) out.
    t = _fast_tensor(f, graph, ctx, (), out, var._dtype, var._shape, (value,), attrs, 3)
    return _unread(var, t) if read_value else t.op


def _run(
    graph: Graph,
    v: Tensor,
    value: Any,
    attrs: dict[str, Any],
    name: str,
    update: Callable[[Any, Any], np.ndarray],
) -> np.ndarray:
    """``update(var, value)`` with NumPy's warnings off; a failure reported as the
    general path reports it."""
    token = ERRSTATE.set(ERRSTATE_IGNORE)
    try:
        return update(attrs["var"], value)
    except Exception as e:
        failure = _failure(graph, v, attrs, name, e)
        if failure is e:
            raise
        raise failure from e
    finally:
        ERRSTATE.reset(token)


def _failure(graph: Graph, v: Tensor, attrs: dict[str, Any], name: str, e: Exception) -> Any:
    """What the general path raises where an update's kernel raised ``e``: ``e`` itself,
    an OpError (the value's check), or the kernel's failure reported naming the op; the
    name the failed op took is taken, as there."""
    name = graph.unique_name(name)
    if isinstance(e, OpError):
        return e
    var = attrs["var"]
    op = Operation(graph, "AssignVariableOp", name, [v], attrs, [var.dtype], [var.shape])
    return op_registry._failed(op, e)
