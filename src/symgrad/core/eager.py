"""The eager fast path: a pure op run at the top level costs a kernel call and a light tensor.

``apply_op1`` (and ``apply_op``) hand an op here when the default graph is the eager one,
no output check is installed and the op is pure.  Wrappers take shorter ways in, each
giving what ``apply_op1`` would: the elementwise ones, MatMul, Relu, the reductions, Const
and ops of several outputs (``core/fast_path.py``), and the variable reads and updates
(``ops/state/variable_eager.py``).  The fast path does what the general
path does for such an op, with the same results (the same op name, traceback, shapes,
values, graph entry), minus the general path's branches:

* the inputs' values are gathered; an input without one, or of another graph, returns
  None and the general path takes the op (it captures, refuses or stays symbolic);
* the shape rule runs *before* the name is taken; if it raises, None is returned before
  any name is used, and the general path reruns it and reports the error as it always has
  (so a failing call leaves the name counters exactly as the general path would);
* the kernel runs with NumPy's floating-point warnings off; if it raises, None is
  returned, and the general path (which creates the op to name it in the error) reruns it:
  only pure ops come here, so running a failing kernel twice changes nothing.

What it returns.  Where no tape records on this thread and the caller wants one tensor
(``apply_op1``), an ``EagerTensor``: the value, dtype, shape and name, and what its
``Operation`` needs (type, inputs, attrs, traceback, device, override, control inputs).
Its ``op`` is built on first access (``materialize``), with the fields and graph entry
the op would have had if built at once; until then nothing else is built.  The name is
taken at once (the counters' order is the program's), and the tensor has a weak entry in
the graph's live list, as an op has, so the memory sweep sees it (``symgrad.core.history``)
and the graph finds it by name (``Graph._op_named``); and one in the name index, as an op
has, so names in a scope stay unique among live ops (only scoped names: unscoped ones are
unique by the counters that made them; ``fast_unary``, ``_light``).  Under tapes
(recorders that take one, ``record_light``) the light tensor is what each tape records;
for ``apply_op``'s callers (who want the op), or under another recorder, the
``Operation`` is built at once.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from sys import _getframe
from typing import Any

import numpy as np

from symgrad.core.context import current
from symgrad.core.eager_tensor import NO_ATTRS, EagerTensor, frozen_light, materialize  # noqa: F401
from symgrad.core.errstate import ERRSTATE, ERRSTATE_IGNORE, _errstate_var, quiet_run  # noqa: F401
from symgrad.core.graph import (
    _IN_PACKAGE,
    Graph,
    Operation,
    Tensor,
    _site_of,
    user_frame,
    user_frame_of,
)
from symgrad.core.shapes import TensorShape

# ERRSTATE, ERRSTATE_IGNORE: op_registry's run_kernel, plans and the backward pass use them
_new_op = Operation.__new__
_ndarray = np.ndarray
_new_tensor = EagerTensor.__new__
_weak = weakref.ref
# graph._IN_PACKAGE's get, bound once: called as ``_IN_PACKAGE.get(...)``, Python 3.11 makes
# a bound method at every call (no LOAD_METHOD for a name bound by an import).  The dict
# is only ever cleared in place, never replaced.
_in_package = _IN_PACKAGE.get
_user_code: list[Any] = [None]  # the code object of the last user frame the fast path saw
# The variable classes (ops/state fills it): an operand of one of these types is read
# (``_as_tensor``) by a wrapper's fast path, as ``convert_to_tensor`` reads it.
VARIABLE_TYPES: set[type] = set()


def _values(inputs: Sequence[Tensor], graph: Graph) -> list[Any] | None:
    """The values of ``inputs``, each of ``graph`` (as ``run_now`` gathers them); None
    where one has none (fed by a placeholder) or is another graph's."""
    args = []
    for t in inputs:
        if type(t) is EagerTensor:
            if t.graph is not graph:
                return None
            args.append(t._value)
            continue
        p = t.op
        values = p.output_values
        if values is None or p.graph is not graph:
            return None
        args.append(values[t.value_index])
    return args


def _scoped(graph: Graph, t: EagerTensor, base: str) -> Any:
    """The fast path's name for ``t`` where the counter alone does not make it: in a name
    scope, a name not yet in use, or one that may clash with a "<name>_<n>" in use; entered
    in the name index (scoped names are unique among the live ops).  ``t``'s weak entry."""
    t._name = name = graph.unique_name(base)
    t._count = 0
    graph._by_name[name] = ref = weakref.ref(t)
    return ref


def _scope_fields(t: EagerTensor, scopes: dict[str, Any]) -> None:
    """A light tensor's gradient override and control inputs, by the scopes in force
    (``scopes``: its graph's, a thread-local's ``__dict__``); ``t._type`` set."""
    override, deps = scopes["override"], scopes["control_deps"]
    t._override = override.get(t._type) if override else None
    t._control = tuple(deps) if deps else ()


def _caller_site(frame: Any) -> tuple[Any, int]:
    """The fast path's traceback from the wrapper's caller ``frame`` out: ``user_frame``'s
    walk, keeping the user's line as (code, instruction); unknown files go to it.  (Each
    ``f_back`` read makes a frame object: read once a frame.)"""
    while True:
        code = frame.f_code
        if code is not _user_code[0]:
            known = _in_package(code.co_filename)
            if known is None:
                return user_frame_of(frame), -1
            if known:
                back = frame.f_back
                if back is not None:
                    frame = back
                    continue
            else:
                _user_code[0] = code  # (a file's class never changes)
        return code, frame.f_lasti


def _op_site(frame: Any) -> tuple[str, int]:
    """``user_frame_of(frame)`` for an op made at once by the fast path (``fast_op``): a
    user's frame read at once (``_site_of``), its code remembered as ``_caller_site``
    remembers it; another frame walked out of."""
    code = frame.f_code
    if code is not _user_code[0]:
        if _in_package(code.co_filename) is not False:
            return user_frame_of(frame)
        _user_code[0] = code  # (a file's class never changes)
    return _site_of(frame, code.co_filename)


def run_now(
    graph: Graph,
    opdef: Any,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any],
    name: str,
    errstate: Any,
    ignore: Any,
    light: bool = False,
) -> Any:
    """The op (``light``: its light tensor, when no tape records), created and run
    eagerly; None where the general path must take it.

    ``name`` is the name asked for (or the default); ``errstate``/``ignore`` are NumPy's
    error-state variable and its all-"ignore" value (``op_registry.ERRSTATE``)."""
    args = _values(inputs, graph)
    if args is None:
        return None
    try:
        specs = opdef.infer(inputs, **attrs) if attrs else opdef.infer(inputs)
    except Exception:
        return None  # the general path reports it, naming the op
    if type(specs) is not tuple:  # several outputs: the general path, from now on at once
        opdef.fast = False  # (it would run the shape rule again; this op type has several)
        return None
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
    recorders = current.recorders
    if light and not recorders:
        return _light(graph, opdef.type, graph.unique_name(name), inputs, attrs, dtype, shape, out)
    return _recorded(recorders, light, graph, opdef.type, name, inputs, attrs, dtype, shape, out)


def _recorded(
    recorders: list[Any],
    light: bool,
    graph: Graph,
    op_type: str,
    name: str,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any],
    dtype: Any,
    shape: TensorShape,
    value: Any,
) -> Any:
    """``run_now``'s result under recorders: a light tensor each one records, where all
    take one (tapes: ``record_light``) and the caller wants one; else the op, recorded."""
    if light and not current.heavy:  # _light's walk starts at apply_op1 here
        t = _light(graph, op_type, graph.unique_name(name), inputs, attrs, dtype, shape, value)
        for recorder in recorders:
            recorder.record_light(t)
        return t
    op = _make(graph, op_type, graph.unique_name(name), inputs, attrs, dtype, shape, value)
    for recorder in recorders:  # a tape sees the op as the general path hands it
        recorder.record(op)
    return op


def _light(
    graph: Graph,
    op_type: str,
    name: str,
    inputs: Sequence[Tensor],
    attrs: dict[str, Any],
    dtype: Any,
    shape: TensorShape,
    value: Any,
) -> EagerTensor:
    """A light tensor, entered in the graph's live list as an op is, and in its name index
    where the name is scoped: an unscoped eager name is unique by the counters that made
    it (``Graph.unique_name``), and ``Graph._op_named`` finds it in the live list, as the
    fast path's; the index then stays small for the sweep."""
    t = _new_tensor(EagerTensor)
    t._op = None
    t._value = value
    t.dtype = dtype
    t.shape = shape
    t._name = name
    t._count = 0
    t._type = op_type
    t._inputs = tuple(inputs)
    t._attrs = attrs
    t.graph = graph
    scopes = graph._scopes.__dict__  # one thread-local read for two attributes
    if scopes["override"] or scopes["control_deps"]:
        _scope_fields(t, scopes)
    else:  # (the common case: no gradient_override_map, no control_dependencies)
        t._override = None
        t._control = ()
    ctx = current.__dict__
    tb = ctx["frame"]
    if tb is not None:
        t._tb, t._at = tb, -1
    else:  # user_frame(_FRAMES_IN)'s line, as (code, instruction) until read: _site
        frame = _getframe(_FRAMES_IN)
        code = frame.f_code
        if code is _user_code[0]:
            t._tb, t._at = code, frame.f_lasti
        else:
            t._tb, t._at = _caller_site(frame)
    t._device = ctx["device"]
    ref = _weak(t)  # as _enter does (inlined: this runs for every light op)
    if "/" in name:  # scoped: unique among the live ops by the index (Graph.unique_name)
        graph._by_name[name] = ref
    live = graph._live
    live.append(ref)
    if len(live) >= graph._sweep_at:
        graph.sweep()
    return t


# The package's frames between user_frame and the wrapper: _light, run_now, apply_op1.
_FRAMES_IN = 3


def _enter(graph: Graph, name: str, ref: Any) -> None:
    """``Graph.add_op``'s eager branch: the weak entries, and the sweep when due."""
    graph._by_name[name] = ref
    live = graph._live
    live.append(ref)
    if len(live) >= graph._sweep_at:
        graph.sweep()


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
    _enter(graph, name, weakref.ref(op))
    return op
