"""The eager fast path: a pure op run at the top level costs a kernel call and a light tensor.

``apply_op1`` (and ``apply_op``) hand an op here when the default graph is the eager one,
no output check is installed and the op is pure.  The fast path does what the general
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
has, so names in a scope stay unique among live ops (not for the elementwise fast path's
unscoped names that the counters make unique: ``_fast_light``).  Under tapes
(recorders that take one, ``record_light``) the light tensor is what each tape records;
for ``apply_op``'s callers (who want the op), or under another recorder, the
``Operation`` is built at once.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from math import copysign
from sys import _getframe
from typing import Any

import numpy as np

from symgrad.core import context as _context
from symgrad.core.context import current
from symgrad.core.devices import eager_name
from symgrad.core.errstate import ERRSTATE, ERRSTATE_IGNORE, _errstate_var, quiet_run  # noqa: F401
from symgrad.core.graph import _IN_PACKAGE, Graph, Operation, Tensor, user_frame, user_frame_of
from symgrad.core.shapes import TensorShape, as_shape, broadcast_shapes

# ERRSTATE, ERRSTATE_IGNORE: op_registry's run_kernel, plans and the backward pass use them
_new_op = Operation.__new__
_ndarray = np.ndarray


class EagerTensor(Tensor):
    """An eager op's one output, whose ``Operation`` is built when first read (``op``).

    Reads that need no op (value, dtype, shape, name, graph, device, printing, operators)
    are answered from the tensor's own fields.  ``_inputs`` is None once the op exists:
    the op holds the inputs then, and the memory sweep cuts the op's edges.
    """

    # ``dtype``, ``shape`` and ``graph`` are slots here, where Tensor has properties that
    # read the op: the shape rules read them for every op.  ``set_shape`` keeps the
    # shape and the op's (once built) the same.
    __slots__ = (
        "_attrs",
        "_control",
        "_device",
        "_inputs",
        "_name",
        "_op",
        "_override",
        "_tb",
        "_type",
        "_value",
        "dtype",
        "graph",
        "shape",
    )
    value_index = 0  # one output (shadows Tensor's slot, which stays unset)
    _attrs: dict[str, Any]
    _control: tuple[Operation, ...]
    _device: str
    _inputs: tuple[Tensor, ...] | None
    _name: str
    _op: Operation | None
    _override: str | None
    _tb: tuple[Any, int]  # (file, line), or (code, instruction) until built: _site
    _type: str
    _value: Any
    dtype: Any
    graph: Graph
    shape: TensorShape

    @property
    def op(self) -> Operation:  # type: ignore[override]
        op = self._op
        return op if op is not None else materialize(self)

    def set_shape(self, shape: Any) -> None:
        self.shape = self.shape.merge_with(as_shape(shape))
        if self._op is not None:
            self._op.output_shapes[0] = self.shape

    @property
    def name(self) -> str:
        return self._name + ":0"

    @property
    def device(self) -> str:
        return eager_name(self._device)  # type: ignore[no-any-return]

    @property
    def eager_value(self) -> Any:
        return self._value

    def has_value(self) -> bool:
        return True


_new_tensor = EagerTensor.__new__


def materialize(t: EagerTensor) -> Operation:
    """``t``'s op, built now as ``Operation(...)`` would have built it when ``t`` was made.

    Under the graph's sweep lock: the sweep reads and cuts ``t._inputs``, which building
    the op hands to it, so a build waits for a sweep in another thread to finish (and
    a second reader finds the op the first one built)."""
    with t.graph._sweeping:
        op = t._op
        return op if op is not None else _build(t)


def _build(t: EagerTensor) -> Operation:
    op = _new_op(Operation)
    op.graph = graph = t.graph
    op.type = t._type
    op.name = name = t._name
    op.inputs = t._inputs  # type: ignore[assignment]  # not None until built
    op._attrs = t._attrs
    op.output_dtypes = [t.dtype]
    op.output_shapes = [t.shape]
    op.output_values = [t._value]
    op._outs = [weakref.ref(t)]
    op._gradient_op_type = t._override
    op.control_inputs = t._control
    op.traceback = _site(t._tb)
    op.device = t._device
    op.skip_input_indices = None
    t._op, t._inputs = op, None
    by_name = graph._by_name
    ref = by_name.get(name)
    if ref is not None and ref() is t:  # the name now finds the op, held or not by t
        by_name[name] = weakref.ref(op)
    return op


def frozen_light(t: EagerTensor) -> EagerTensor:
    """A Const standing for ``t`` (not materialised) in the sweep: same name and value."""
    c = _new_tensor(EagerTensor)
    c._op, c._value, c.dtype, c.shape = None, t._value, t.dtype, t.shape
    c._name, c._type, c._inputs, c.graph = t._name, "Const", (), t.graph
    c._attrs = {"value": t._value, "dtype": t.dtype}
    c._override, c._control, c._tb, c._device = None, (), t._tb, t._device
    return c


class FastOp:
    """What ``light_unary``/``light_binary`` need of one elementwise op, made with its
    wrapper (``ops/core.py``): its type, its registered shape rule (the fast path runs only
    while the registry still holds that rule, whose checks it repeats inline), the ids of
    its allowed dtypes, its output dtype (a function of the input's for a unary op, a
    dtype or None for a binary one), and the registry's op and default-name tables."""

    __slots__ = ("infer", "named", "names", "ok", "ops", "out", "type")

    def __init__(self, op_type: str, infer: Any, ok: Any, out: Any, ops: Any, names: Any) -> None:
        self.type, self.infer, self.ok, self.out = op_type, infer, ok, out
        self.ops, self.names = ops, names
        self.named = ("", "")  # the default name last seen and its lower case (one object:
        # another thread sees both or neither)


def set_checked(checked: bool) -> None:
    """``op_registry.set_output_check``: an installed output check turns the fast path off."""
    global _checked
    _checked = checked


_checked = False


def light_unary(f: FastOp, x: EagerTensor) -> EagerTensor | None:
    """``apply_op1(f.type, [x])`` where it would return a light tensor made by ``run_now``
    (same name, value, shape, traceback, entries); None where it would not, before any
    name is taken: the wrapper then calls ``apply_op1``."""
    opdef = f.ops[f.type]
    if _checked or ERRSTATE is None or not opdef.fast or opdef.infer is not f.infer:
        return None
    graph = x.graph
    ctx = current.__dict__  # one thread-local read for four attributes
    if ctx["graphs"] or ctx["recorders"] or graph is not _context._top_level:
        return None  # not the top level (or a tape records, or another graph's tensor)
    d = x.dtype
    if id(d) not in f.ok:
        return None  # the general path reports it
    out_dtype = f.out
    dtype = out_dtype(d) if out_dtype else d
    try:  # warnings off (core/errstate.py)
        out = (ctx.get("quiet_run") or quiet_run(ctx))(opdef.kernel, x._value)
    except Exception:
        return None  # the general path reruns the (pure) kernel and reports the failure
    npd = dtype.np
    if type(out) is not _ndarray or (out.dtype is not npd and out.dtype != npd):
        if type(out) is tuple:
            return None
        out = np.asarray(out, dtype=npd)
    shape = x.shape
    if shape.dims != out.shape:
        shape = TensorShape.of_array(out.shape)
    return _fast_light(f, graph, ctx, (x,), dtype, shape, out)


def light_binary(f: FastOp, x: EagerTensor, y: Any) -> EagerTensor | None:
    """``light_unary`` for a broadcasting binary op: ``y`` a light tensor, or a Python
    scalar whose eager constant is in the graph's scalar cache (``_eager_scalar``'s)."""
    opdef = f.ops[f.type]
    if _checked or ERRSTATE is None or not opdef.fast or opdef.infer is not f.infer:
        return None
    graph = x.graph
    ctx = current.__dict__
    if ctx["graphs"] or ctx["recorders"] or graph is not _context._top_level:
        return None
    d = x.dtype
    if type(y) is not EagerTensor:  # a Python scalar, as _eager_scalar keys it
        sign = copysign(1.0, y) if type(y) is float else 0.0
        y = graph.scalar_cache.get((type(y), y, id(d), sign))
        if y is None:
            return None  # the wrapper makes the constant (and caches it)
        yv = y._value if type(y) is EagerTensor else y.eager_value  # (a tape's op)
    elif y.graph is not graph:
        return None
    else:
        yv = y._value
    if y.dtype is not d or id(d) not in f.ok:
        return None
    sx, sy = x.shape, y.shape
    if sx is not sy:  # broadcast_shapes' common cases, else its result
        dx, dy = sx.dims, sy.dims
        if dx is None or dy is None or not (dx == dy or not dy):
            sx = broadcast_shapes(sx, sy)  # type: ignore[assignment]
            if sx is None:
                return None
    dtype = f.out or d
    try:
        out = (ctx.get("quiet_run") or quiet_run(ctx))(opdef.kernel, x._value, yv)
    except Exception:
        return None
    npd = dtype.np
    if type(out) is not _ndarray or (out.dtype is not npd and out.dtype != npd):
        if type(out) is tuple:
            return None
        out = np.asarray(out, dtype=npd)
    if sx.dims != out.shape:
        sx = TensorShape.of_array(out.shape)
    return _fast_light(f, graph, ctx, (x, y), dtype, sx, out)


def _fast_light(
    f: FastOp, graph: Graph, ctx: Any, inputs: tuple[Any, ...], dtype: Any, shape: Any, value: Any
) -> EagerTensor:
    """``_light`` with ``graph.unique_name`` of the default name inlined (outside a name
    scope) and the user's line taken lazily (``_site``)."""
    base = f.names.get(f.type, f.type)
    named = f.named
    if base is not named[0]:
        named = f.named = (base, base.lower())
    scopes = graph._scopes.__dict__
    names = graph._names_in_use
    key = named[1]
    count = names.get(key, -1)
    if scopes["name"] or count < 0 or graph._suffixed:
        name = graph.unique_name(base)  # a scope, a new name, or a "<name>_<n>" in use
        index = True  # a scoped name is unique among the live ops in the name index
    else:  # unique_name's eager branch for an unscoped name in use, none "<name>_<n>"
        names[key] = count + 1
        name = f"{base}_{count}"  # (count >= 1: the name was taken before)
        index = False  # unique by the counter: the graph finds it in the live list
    t = _new_tensor(EagerTensor)
    t._op = None
    t._value = value
    t.dtype = dtype
    t.shape = shape
    t._name = name
    t._type = op_type = f.type
    t._inputs = inputs
    t._attrs = {}
    t.graph = graph
    override = scopes["override"]
    t._override = override.get(op_type) if override else None
    deps = scopes["control_deps"]
    t._control = tuple(deps) if deps else ()
    tb = ctx["frame"]
    if tb is None:  # user_frame's walk, inlined; unknown files go to it
        frame = _getframe(3)  # the wrapper's caller (we are called by light_*)
        while frame.f_back is not None:
            known = _IN_PACKAGE.get(frame.f_code.co_filename)
            if known is False:
                break
            if known is None:
                tb = user_frame_of(frame)
                break
            frame = frame.f_back
        if tb is None:  # (code, instruction): _site turns it into (file, line) when built
            tb = (frame.f_code, frame.f_lasti)
    t._tb = tb
    t._device = ctx["device"]
    ref = weakref.ref(t)
    if index:
        graph._by_name[name] = ref
    live = graph._live
    live.append(ref)
    if len(live) >= graph._sweep_at:
        graph.sweep()
    return t


def _site(tb: tuple[Any, int]) -> tuple[str, int]:
    """A light tensor's traceback as (file, line): ``_caller``'s (code, instruction) turned
    into the line ``frame.f_lineno`` read then would have given."""
    code, lasti = tb
    if type(code) is str:
        return tb
    for start, end, line in code.co_lines():
        if start <= lasti < end:
            return code.co_filename, line
    return code.co_filename, None  # type: ignore[return-value]  # as f_lineno: no line


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
    if light:
        for recorder in recorders:
            if not getattr(recorder, "takes_light", False):
                break
        else:  # user_frame walks this frame too (_FRAMES_IN counts run_now's callers)
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
    """A light tensor, entered in the graph's name index and live list as an op is."""
    t = _new_tensor(EagerTensor)
    t._op = None
    t._value = value
    t.dtype = dtype
    t.shape = shape
    t._name = name
    t._type = op_type
    t._inputs = tuple(inputs)
    t._attrs = attrs
    t.graph = graph
    scopes = graph._scopes
    override = scopes.override
    t._override = override.get(op_type) if override else None
    deps = scopes.control_deps
    t._control = tuple(deps) if deps else ()
    t._tb = current.frame or user_frame(_FRAMES_IN)
    t._device = current.device
    ref = weakref.ref(t)  # as _enter does (inlined: this runs for every light op)
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
