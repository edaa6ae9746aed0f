"""The eager fast path's wrappers: an elementwise op, MatMul, a reduction or a
several-output op called at the top level costs a kernel call and a light tensor.

``core/eager.py`` says what a light tensor is and when the general path makes one
(``run_now``); the wrappers here are the shorter ways in, each giving what ``apply_op1``
would: the elementwise ones (``fast_unary``, ``fast_binary``, which read a variable
operand as ``convert_to_tensor`` does), the others (``fast_apply``: MatMul, Relu, the
reductions, Const; ``fast_op``: an op of several outputs).  All end in ``_fast_tensor``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from math import copysign
from sys import _getframe
from typing import Any

import numpy as np

from symgrad.core import context as _context
from symgrad.core.context import current
from symgrad.core.eager import (
    ERRSTATE,
    VARIABLE_TYPES,
    EagerTensor,
    _caller_site,
    _enter,
    _op_site,
    _scope_fields,
    _scoped,
    _user_code,
    _values,
)
from symgrad.core.eager_tensor import NO_ATTRS
from symgrad.core.errstate import quiet_run
from symgrad.core.graph import Graph, Operation
from symgrad.core.shapes import TensorShape, broadcast_shapes

_new_op = Operation.__new__
_ndarray = np.ndarray
_new_tensor = EagerTensor.__new__
_weak = weakref.ref
_Eager = EagerTensor


class FastOp:
    """What ``fast_unary``/``fast_binary`` need of one elementwise op, made with its
    wrapper (``ops/core.py``): its type, its registered shape rule (the fast path runs only
    while the registry still holds that rule, whose checks it repeats inline), the ids of
    its allowed dtypes, its output dtype (a function of the input's for a unary op, a
    dtype or None for a binary one), and the registry's op and default-name tables.
    ``fast_apply``, ``fast_op`` and ``_fast_tensor`` read its type, rule and names only."""

    __slots__ = ("bcast", "infer", "memo", "named", "names", "ok", "okd", "ops", "out", "type")

    def __init__(self, op_type: str, infer: Any, ok: Any, out: Any, ops: Any, names: Any) -> None:
        self.type, self.infer, self.ok, self.out = op_type, infer, ok, out
        self.ops, self.names = ops, names
        self.named = ("", "")  # the default name last seen and its lower case (one object:
        # another thread sees both or neither)
        self.okd: Any = None  # the last input dtype found in ``ok`` (an identity test)
        self.memo: tuple[Any, Any, Any] = (None, None, None)  # fast_binary: (scalar, dtype,
        # its scalar-cache key): a literal such as ``y * 1.0001`` is one object each time
        self.bcast: dict[Any, Any] = {}  # fast_binary: broadcast_shapes' results by the two
        # sizes (``h + b``: every step the same few)


def set_checked(checked: bool) -> None:
    """``op_registry.set_output_check``: an installed output check turns the fast path off."""
    global _checked
    _checked = checked


_checked = False


def fast_unary(
    f: FastOp, general: Callable[..., Any], apply: Callable[..., Any]
) -> Callable[..., Any]:
    """``general(x, name=None)``, an elementwise wrapper (``ops/core.py``), with the fast
    path in front: where ``apply_op1(f.type, [x])`` would return a light tensor made by
    ``run_now``, that tensor made here (same name, value, shape, traceback, entries);
    else ``general``'s result, with no name taken before.  One function to the kernel
    and one to the tensor (``_fast_tensor``, shared with ``fast_binary``).  Under
    tapes (recorders that all take light tensors) each records the tensor made here, as
    ``run_now`` would hand it; under another recorder (or in a graph) it calls ``apply``
    (``apply_op1``) itself, as ``general`` would: one frame fewer for ``_light``'s walk."""
    op_type, ops, infer, out_dtype = f.type, f.ops, f.infer, f.out

    def wrapper(x: Any, name: str | None = None) -> Any:
        if type(x) is not EagerTensor or name is not None:
            return general(x, name)
        opdef = ops[op_type]
        graph = x.graph
        ctx = current.__dict__  # one thread-local read for five attributes
        d = x.dtype
        recs = ctx["recorders"]
        if (
            _checked
            or ERRSTATE is None
            or not opdef.fast
            or opdef.infer is not infer  # the fast path repeats that rule's checks
            or ctx["graphs"]  # not the top level,
            or graph is not _context._top_level  # or another graph's tensor,
            or (d is not f.okd and not _ok_dtype(f, d))  # or a dtype the general path reports,
            or (recs and ctx["heavy"])  # or a recorder that wants the op (context.py)
        ):
            return apply(op_type, [x], name=None)  # general's call for a tensor
        dtype = out_dtype(d) if out_dtype else d
        try:  # warnings off (core/errstate.py)
            out = (ctx["quiet_run"] or quiet_run(ctx))(opdef.kernel, x._value)
        except Exception:
            return general(x, name)  # reruns the (pure) kernel and reports the failure
        npd = dtype.np
        if type(out) is not _ndarray or (out.dtype is not npd and out.dtype != npd):
            if type(out) is tuple:
                return general(x, name)
            out = np.asarray(out, dtype=npd)
        shape = x.shape
        if shape.dims != out.shape:
            shape = TensorShape.of_array(out.shape)
        return _fast_tensor(f, graph, ctx, recs, out, dtype, shape, (x,))

    return wrapper


def fast_binary(
    f: FastOp, general: Callable[..., Any], apply: Callable[..., Any], scalars: Any, scalar: Any
) -> Callable[..., Any]:
    """``fast_unary`` for a broadcasting binary op ``general(x, y, name=None)``: ``y`` a
    light tensor, or a Python scalar (a type in ``scalars``) whose eager constant is in the
    graph's scalar cache (``scalar``'s, ``_eager_scalar``; else ``general`` makes and
    caches it).  ``wrapper.reflected`` is its twin for the reflected operators, called
    as the method (``lr * g``: ``g.__rmul__(lr)``, no frame between it and the user),
    which takes its operands the other way round."""
    wrapper = _binary_wrapper(f, general, apply, scalars, scalar, False)
    wrapper.reflected = _binary_wrapper(  # type: ignore[attr-defined]
        f, general, apply, scalars, scalar, True
    )
    return wrapper


def _binary_wrapper(  # noqa: C901  (the op's one Python function: its branches inline)
    f: FastOp,
    general: Callable[..., Any],
    apply: Callable[..., Any],
    scalars: Any,
    scalar: Any,
    swapped: bool,
) -> Callable[..., Any]:
    """``fast_binary``'s wrapper (``swapped``: ``reflected``, its operands ``y`` and ``x``),
    whose light tensor takes the user's line from the wrapper's caller on.  Its operands: a light
    tensor ``t`` (whose graph and dtype the op takes) and ``s``, a light tensor or a
    Python scalar (its eager constant from the graph's scalar cache, as general's
    ``_eager_scalar`` makes it; not yet cached: general makes it): ``x`` and ``y``;
    ``y`` and ``x`` where ``x`` is the scalar (``2.0 * y``, and ``lr * g`` through
    ``reflected``); ``x`` and the read of the variable ``y`` (``h + b``: the read general's
    ``convert_n`` makes, before any other name).  Else general's result."""
    op_type, ops, infer, out_dtype = f.type, f.ops, f.infer, f.out

    def wrapper(x: Any, y: Any, name: str | None = None) -> Any:  # noqa: C901
        if swapped:  # ``y.__rmul__(x)``, its own operand first: the fast path takes a
            # Python scalar on the left only (``lr * g``), general anything else
            if type(x) is not EagerTensor or (ty := type(y)) not in scalars or name is not None:
                if name is not None:  # (as the method it is: self and other only)
                    raise TypeError(f"{op_type} reflected operator takes 2 arguments, not 3")
                return general(y, x)
            t, s, x, y = x, y, y, x
        else:
            t, s = x, y
            tx, ty = type(x), type(y)  # (ty: the type of s)
            if (
                tx is not EagerTensor
                or name is not None
                or (ty not in scalars and ty is not EagerTensor)
            ):
                if name is not None:
                    return general(x, y, name)
                if ty is EagerTensor and tx in scalars:  # the scalar on the left
                    t, s, ty = y, x, tx
                elif tx is EagerTensor and ty in VARIABLE_TYPES:  # (the user's line: the
                    y = s = y._read_up(4)  # wrapper's caller)
                    ty = type(y)
                    if ty is not EagerTensor:
                        return general(x, y, name)
                else:
                    return general(x, y, name)
        opdef = ops[op_type]
        graph = t.graph
        ctx = current.__dict__
        recs = ctx["recorders"]
        if (
            _checked
            or ERRSTATE is None
            or not opdef.fast
            or opdef.infer is not infer
            or ctx["graphs"]
            or graph is not _context._top_level
            or (recs and ctx["heavy"])
        ):  # general's calls for a tensor and a tensor or a Python scalar
            if t is not x:  # (the scalar on the left: general converts it)
                return general(x, y, name)
            return apply(op_type, [x, y if ty is EagerTensor else scalar(y, x.dtype)], name=None)
        d = t.dtype
        if ty is EagerTensor:
            c = s if s.graph is graph and s.dtype is d else None
        else:  # keyed as _eager_scalar keys it (its constant: of dtype d); the same scalar
            # object: the same key
            ms, md, key = f.memo
            if s is not ms or d is not md:
                key = (ty, s, id(d), copysign(1.0, s) if ty is float else 0.0)
                f.memo = (s, d, key)
            c = graph.scalar_cache.get(key)
        if c is None or (d is not f.okd and not _ok_dtype(f, d)):
            return general(x, y, name)
        sx = t.shape  # (a Python scalar's constant has shape (): the result has t's)
        if ty is EagerTensor and sx is not c.shape:  # broadcast_shapes' common cases, else
            sy = c.shape  # its result
            dx, dy = sx.dims, sy.dims
            if dx is None or dy is None or not (dx == dy or not dy):
                lone = dx == () and dy is not None  # a scalar and a tensor: the tensor's shape
                # (_broadcast's memo read here first: ``h + b`` every step)
                sx = sy if lone else f.bcast.get((dx, dy)) or _broadcast(f, sx, sy)  # type: ignore[assignment]
                if sx is None:
                    return general(x, y, name)
        if t is x:
            yv = c._value if type(c) is EagerTensor else c.eager_value  # (a tape's op)
        elif type(c) is EagerTensor:  # the scalar's constant, the left operand
            x, c, yv = c, t, t._value
        else:
            return general(x, y, name)
        dtype = out_dtype or d
        try:
            out = (ctx["quiet_run"] or quiet_run(ctx))(opdef.kernel, x._value, yv)
        except Exception:
            return general(x, y, name)
        npd = dtype.np
        if type(out) is not _ndarray or (out.dtype is not npd and out.dtype != npd):
            if type(out) is tuple:
                return general(x, y, name)
            out = np.asarray(out, dtype=npd)
        if sx.dims != out.shape:
            sx = TensorShape.of_array(out.shape)
        return _fast_tensor(f, graph, ctx, recs, out, dtype, sx, (x, c))

    return wrapper


def _broadcast(f: FastOp, sx: Any, sy: Any) -> TensorShape | None:
    """``broadcast_shapes(sx, sy)``, remembered by the two sizes for ``f`` (the sizes of
    ``h + b`` are the same few every step; a few hundred pairs at most are kept)."""
    memo = f.bcast
    key = (sx.dims, sy.dims)
    shape = memo.get(key)
    if shape is None:
        shape = broadcast_shapes(sx, sy)
        if shape is not None and None not in key:  # (an unknown rank is not remembered)
            if len(memo) >= 256:
                memo.clear()
            memo[key] = shape
    return shape


def fast_apply(
    f: FastOp,
    inputs: tuple[Any, ...],
    attrs: dict[str, Any],
    run: Callable[..., Any] | None,
    spec: Any = None,
    up: int = 3,
) -> EagerTensor | None:
    """``apply_op1(f.type, inputs, attrs)``'s light tensor for a wrapper that is not an
    elementwise one (MatMul, Relu, a reduction, Const), made as ``fast_unary`` makes one:
    the registered shape rule (``f.infer``, still the registry's), then ``run(*values)``,
    the kernel bound to ``attrs``, with warnings off (an op without inputs: ``run`` None,
    the registry's kernel called with ``attrs``).  None where the general path must take
    the op (an input without a value or of another graph, a recorder that wants the op,
    a rule or kernel that raises, several outputs), before any name is taken.
    The user's line is looked for from the frame ``up`` out of ``_fast_tensor`` on (3:
    the wrapper's caller).  ``spec``: the rule's result for these inputs, where the
    caller has it (memoised from the rule itself)."""
    opdef = f.ops[f.type]
    ctx = current.__dict__
    recs = ctx["recorders"]
    graph = inputs[0].graph if inputs else _context._top_level
    if (
        _checked
        or ERRSTATE is None
        or not opdef.fast
        or opdef.infer is not f.infer
        or ctx["graphs"]
        or graph is not _context._top_level
        or (recs and ctx["heavy"])
    ):
        return None
    n = len(inputs)  # _values' common cases, inlined: MatMul, a reduction; Relu; Const
    if n == 2 and type(inputs[0]) is _Eager and type(inputs[1]) is _Eager:
        a, b = inputs
        if b.graph is not graph:
            return None
        args = [a._value, b._value]
    elif n == 1 and type(inputs[0]) is _Eager:
        args = [inputs[0]._value]  # (of graph: the op's)
    elif not n:
        args = []
    else:
        args = _values(inputs, graph)  # type: ignore[assignment]
        if args is None:
            return None
    try:
        if spec is None:
            spec = f.infer(inputs, **attrs) if attrs else f.infer(inputs)
            if type(spec) is not tuple:
                return None
        if run is None:
            out = opdef.kernel(**attrs)
        else:
            out = (ctx["quiet_run"] or quiet_run(ctx))(run, *args)
    except Exception:
        return None  # the general path reruns the rule or the (pure) kernel and reports
    shape, dtype = spec
    npd = dtype.np
    if type(out) is not _ndarray or (out.dtype is not npd and out.dtype != npd):
        if type(out) is tuple:
            return None
        out = np.asarray(out, dtype=npd)
    if shape.dims != out.shape:
        shape = TensorShape.of_array(out.shape)
    return _fast_tensor(f, graph, ctx, recs, out, dtype, shape, inputs, attrs or NO_ATTRS, up)


def fast_op(
    f: FastOp, inputs: tuple[Any, ...], run: Callable[..., Any], scope: str | None = None
) -> Operation | None:
    """``apply_op(f.type, inputs)``'s eager op for an op of several outputs and no attrs
    (SoftmaxCrossEntropyWithLogits), made and run as ``_make`` makes a one-output op
    (the fields of ``Operation(...)``, the graph's entries, each recorder handed the op),
    without ``_general``'s branches; None where the general path must take it (as
    ``fast_apply``), before any name is taken.  ``scope``: the op is named as in
    ``with name_scope(scope):`` (the scope's name made unique, then the op's in it),
    where its wrapper would have entered that scope for nothing else."""
    ctx = current.__dict__
    graph = inputs[0].graph
    if (
        _checked
        or ERRSTATE is None
        or f.ops[f.type].infer is not f.infer
        or ctx["graphs"]
        or graph is not _context._top_level
    ):
        return None
    args = _values(inputs, graph)
    if args is None:
        return None
    try:
        specs = f.infer(inputs)
        outs = (ctx["quiet_run"] or quiet_run(ctx))(run, *args)
    except Exception:
        return None  # the general path reruns the rule or the (pure) kernel and reports
    if type(specs) is not list or type(outs) is not tuple or len(outs) != len(specs):
        return None
    shapes, dtypes, values = [], [], []
    for (shape, dtype), out in zip(specs, outs):
        out = out if type(out) is _ndarray and out.dtype == dtype.np else np.asarray(out, dtype.np)
        shapes.append(shape if shape.dims == out.shape else TensorShape.of_array(out.shape))
        dtypes.append(dtype)
        values.append(out)
    op = _new_op(Operation)
    op.graph, op.type, op.inputs, op._attrs = graph, f.type, inputs, {}
    base = f.names.get(f.type, f.type)
    if scope is None:
        op.name = name = graph.unique_name(base)
    else:  # (NameScope.__enter__'s name, set while the op's is taken: nothing else runs)
        scopes = graph._scopes
        outer = scopes.name
        scopes.name = graph.unique_name(scope)
        try:
            op.name = name = graph.unique_name(base)
        finally:
            scopes.name = outer
    op.output_dtypes, op.output_shapes, op.output_values = dtypes, shapes, values
    op._outs = [None] * len(values)
    scopes = graph._scopes.__dict__
    override, deps = scopes["override"], scopes["control_deps"]
    op._gradient_op_type = override.get(f.type) if override else None
    op.control_inputs = tuple(deps) if deps else ()
    op.traceback = ctx["frame"] or _op_site(_getframe(2))  # the wrapper's caller on
    op.device, op.skip_input_indices = ctx["device"], None
    _enter(graph, name, weakref.ref(op))
    for recorder in ctx["recorders"]:
        recorder.record(op)
    return op


def _fast_tensor(
    f: FastOp,
    graph: Graph,
    ctx: Any,
    recs: Any,
    out: Any,
    dtype: Any,
    shape: Any,
    inputs: Any,
    attrs: dict[str, Any] = NO_ATTRS,
    up: int = 2,
) -> EagerTensor:
    """The fast path's light tensor for ``f``'s value ``out``: ``_light``'s fields, with
    ``graph.unique_name`` of the default name inlined (outside a name scope the counter's
    suffix is formatted when read, ``op_name``) and the user's line taken lazily
    (``_site``) from the frame ``up`` out on (the wrapper's caller), recorded by the
    light tapes in ``recs``."""
    op_type = f.type
    base = f.names.get(op_type, op_type)
    seen, key = f.named
    if base is not seen:
        f.named = (base, key := base.lower())
    scopes = graph._scopes.__dict__
    names = graph._names_in_use
    count = names.get(key, -1)
    t = _new_tensor(EagerTensor)
    if scopes["name"] or count < 0 or graph._suffixed:
        ref = _scoped(graph, t, base)  # a scope, a new name, or "<name>_<n>" in use
    else:  # unique_name's eager branch: unique by the counter (count >= 1), so not in
        names[key] = count + 1  # the name index (the graph finds it in _live)
        t._name = base
        t._count = count
        ref = _weak(t)
    t._op = None  # (one store a line: four targets would build and unpack a tuple)
    t._value = out
    t.dtype = dtype
    t.shape = shape
    t._type = op_type
    t._inputs = inputs
    t._attrs = attrs
    t.graph = graph
    if scopes["override"] or scopes["control_deps"]:
        _scope_fields(t, scopes)
    else:  # (the common case: no gradient_override_map, no control_dependencies)
        t._override = None
        t._control = ()
    if ctx["frame"] is None:
        frame = _getframe(up)  # the wrapper's caller
        code = frame.f_code
        if code is _user_code[0]:  # the user's (the common case): (file, line) when read
            t._tb = code  # (_site)
            t._at = frame.f_lasti
        else:
            t._tb, t._at = _caller_site(frame)
    else:
        t._tb, t._at = ctx["frame"], -1
    t._device = ctx["device"]
    live = graph._live
    live.append(ref)
    if len(live) >= graph._sweep_at:
        graph.sweep()
    if recs:  # tapes only (checked by the wrapper): each records t, as _recorded's
        for recorder in recs:
            recorder.record_light(t)
    return t


def _ok_dtype(f: FastOp, d: Any) -> bool:
    """Does ``f`` take inputs of dtype ``d``?  Remembered as ``f.okd`` if so."""
    if id(d) in f.ok:
        f.okd = d
        return True
    return False
