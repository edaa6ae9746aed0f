"""The eager tape's backward pass: its records in reverse, gradients as arrays.

A ``GradientTape`` keeps what it recorded in recording order, which is a topological
order (an op is recorded after its inputs exist).  ``GradientTape.gradient`` hands the
records here when nothing else reads the backward pass: no tape records it (nested tapes
and a persistent tape used inside its block take ``backprop``, whose rules' ops they
record), no function is being traced, no output check (``check_numerics``) must see
every op, and every target is an output of a record.  Then:

1. ``backward_plan.plan_for``: the tape's wiring (written as it recorded: each tensor
   it knows numbered by a slot, each record's input and output slots), which slots
   answer for which sources and the targets' slots key a cached ``Plan``: the records a
   source reaches, in ``backprop``'s order (the same pending counts and queue, simulated
   once, so sums add in the same order), and for each the slots of the inputs a gradient
   must reach (the others are the general engine's ``skip_input_indices``);
2. ``_Pass.run``: the plan's steps.  Each output's gradients are summed as ``backprop``
   sums them (``AddN``'s kernel on arrays, or ``add_n`` / the sparse aggregation where a
   part is a tensor); then the op's array rule (``gradient_registry.array_rule_for``)
   runs on NumPy arrays where it has one and every incoming gradient is a dense array;
   else the op is materialised and its registered rule runs as ``backprop`` runs it
   (``apply_rule``), so that what leaves the pass is the tensor the rule makes, named
   as before.  Arrays become tensors only where they meet a rule.
   Array rules and sums run with NumPy's warnings off, as kernels do.

Tensors are keyed by ``tkey``: a light eager tensor by its id (its op may not exist), any
other tensor by its op's id and index; the tape numbers them by slot.  The tape holds
what the keys name.
"""

from __future__ import annotations

import weakref
from collections.abc import Collection, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any

import numpy as np

from symgrad.autodiff.backprop import apply_rule
from symgrad.autodiff.backward_plan import Plan, Wiring, plan_for
from symgrad.core import dtypes, op_registry
from symgrad.core.context import current
from symgrad.core.eager import ERRSTATE, ERRSTATE_IGNORE, EagerTensor, _light
from symgrad.core.eager_tensor import _site, op_name
from symgrad.core.graph import Operation, Tensor, get_default_graph
from symgrad.core.shapes import TensorShape
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math.add_n import add_n
from symgrad.ops.sparse.indexed_slices import aggregator

_ndarray = np.ndarray
_new_tensor = EagerTensor.__new__
_new_shape = TensorShape.__new__
_weak = weakref.ref
_aggregate = aggregator(add_n)


def tkey(t: Tensor) -> Any:
    """The key of ``t`` in a tape: a light eager tensor's id, else (op id, index)."""
    return id(t) if type(t) is EagerTensor else (id(t.op), t.value_index)


def op_of(record: Any) -> Operation:
    """A record's ``Operation`` (a light tensor's is built now)."""
    return record.op if type(record) is EagerTensor else record  # type: ignore[no-any-return]


class Spent:
    """The ops a used tape had recorded, without holding them (they are freed as TF's
    are): a weak reference to each record, an op or a light tensor, whose op, if built
    later (``why_none`` reads it), is found through it; and the ids of the light
    records' ops built by then, found even once their tensor is freed."""

    __slots__ = ("_ids", "_refs")

    def __init__(self, records: Collection[Any]) -> None:
        # (C loops: this runs at every gradient.  An ``Operation`` has no ``_op``: None;
        # an op is never false.)
        self._refs = list(map(weakref.ref, records))
        self._ids = frozenset(map(id, filter(None, map(getattr, records, _OP, _NONE))))

    def __contains__(self, op_id: object) -> bool:
        if op_id in self._ids:
            return True
        for ref in self._refs:
            r = ref()
            op = r._op if type(r) is EagerTensor else r
            if op is not None and id(op) == op_id:
                return True
        return False


_OP, _NONE = repeat("_op"), repeat(None)


def usable(records: dict[int, Any], targets: Sequence[Tensor]) -> bool:
    """May ``backward`` take this pass?  (``GradientTape.vjp`` has paused the tape and
    entered the targets' graph.)"""
    if current.recorders or ERRSTATE is None or op_registry.output_check is not None:
        return False
    for t in targets:
        if not t.graph.eager:
            return False
        r = records.get(id(t) if type(t) is EagerTensor else id(t.op))
        if r is None or (type(r) is EagerTensor) is not (type(t) is EagerTensor):
            return False
    return True


def _value(g: Any) -> Any:
    """``g`` as a dense array where it is one (or an eager tensor's), else None."""
    if type(g) is _ndarray:
        return g
    if type(g) is EagerTensor:
        v = g._value
    elif type(g) is Tensor:
        v = g.eager_value
    elif isinstance(g, np.generic):  # a value an eager op may hold for a scalar
        v = g
    else:
        return None
    return v if v is None or type(v) is _ndarray else np.asarray(v)


def array_of(t: Tensor) -> np.ndarray | None:
    """An eager tensor's value as a dense array (None: no such value)."""
    return _value(t)  # type: ignore[no-any-return]


def _as_tensor(g: Any) -> Any:
    return convert_to_tensor(g) if isinstance(g, _ARRAYS) else g


_ARRAYS = (np.ndarray, np.generic)
_ARRAY = frozenset({np.ndarray})


def _total(parts: list[Any] | None) -> Any:
    """The sum of one tensor's gradients, as ``backprop`` sums them (with NumPy's
    warnings off: ``backward`` has turned them off)."""
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    if type(first) is _ndarray:
        for p in parts:
            if type(p) is not _ndarray or p.shape != first.shape or p.dtype != first.dtype:
                break
        else:  # AddN's kernel, as the op runs it
            out = first + parts[1]
            for p in parts[2:]:
                out += p
            return out
    return _aggregate([_as_tensor(p) for p in parts])


def backward(
    records: Sequence[Any],
    wiring: Sequence[Wiring],
    sources: tuple[tuple[int, ...], ...],
    targets: tuple[int, ...],
    seeds: Sequence[Any],
    n: int,
    at: tuple[Any, int],
) -> list[Any]:
    """Gradients of sum(target · seed) w.r.t. each of ``n`` sources, as ``backprop(...,
    use_override=False, sparse=True)``: a tape's ``records`` and their ``wiring`` (in
    recording order), each source's slots (by source index), the targets' slots;
    ``at``: the user's line that asked, as ``eager._caller_site`` gives it."""
    plan = plan_for(wiring, sources, targets)
    # slot -> its gradient so far, or where several can reach it, the list of them
    # (``Plan.multi``); the sink's, last, is never read.
    grads: list[Any] = [None] * (plan.slots + 1)
    for s, g in zip(plan.targets, seeds):
        if s >= 0:
            v = _value(g)
            if v is None:
                v = g
            if not plan.multi[s]:
                grads[s] = v
            elif grads[s] is None:
                grads[s] = [v]
            else:
                grads[s].append(v)
    pass_ = _Pass(plan, _site_here(at), records, grads)
    token = ERRSTATE.set(ERRSTATE_IGNORE)  # as kernels run (array rules, sums)
    try:
        pass_.run()
    finally:
        ERRSTATE.reset(token)
    for s in plan.late:  # a source's gradients, summed (each other source's: its one, or run's)
        grads[s] = _aggregate_out(grads[s])
    return _outputs(pass_, plan, n)


def _outputs(pass_: _Pass, plan: Plan, n: int) -> list[Any]:
    """Each source's gradient, as a tensor (None where none reached it), made at the
    user's line."""
    out: list[Any]
    if plan.lone is not None:  # (each source's one slot, no other source's)
        values = list(map(pass_.grads.__getitem__, plan.lone))
        if plan.makers is not None and _ARRAY.issuperset(map(type, values)):
            # (C loops, the common case: each an array one step's rule made, as ``made``
            # takes it)
            out = list(map(pass_.const, values, map(pass_.records.__getitem__, plan.makers)))
        else:
            out = list(map(pass_.made, plan.lone))
    else:
        tensor = pass_.tensor
        out = [tensor(keys[0]) if len(keys) == 1 else pass_.summed(keys) for keys in plan.keys_of]
    out += [None] * (n - len(out))  # the sources after the last one a slot answers for
    return out


class _Consts:
    """Makes the gradient ``Const``\\s of one pass, as ``_light`` makes a light tensor, the
    fields they all share read once: the graph, its name index and live list, its scope's
    gradient override and control dependencies, the device, the user's line (``site``)."""

    __slots__ = ("by_name", "control", "device", "graph", "live", "override", "site")

    def __init__(self, graph: Any, site: tuple[Any, int]) -> None:
        self.graph, self.site = graph, site
        scopes = graph._scopes.__dict__
        override, deps = scopes["override"], scopes["control_deps"]
        self.override = override.get("Const") if override else None
        self.control = tuple(deps) if deps else ()
        self.device = current.device
        self.by_name, self.live = graph._by_name, graph._live

    def __call__(self, value: np.ndarray, record: Any) -> EagerTensor:
        graph = self.graph
        d = _DTYPES.get(value.dtype) or dtypes.as_dtype(value.dtype)
        attrs = {"value": value, "dtype": d}
        shape = _new_shape(TensorShape)  # ``TensorShape.of_array``, inlined (as below:
        shape.dims = value.shape  # a call's cost is a fifth of this function's)
        if record is None or not graph.eager:
            t = _light(graph, "Const", _scoped_name(graph, record), (), attrs, d, shape, value)
            t._tb, t._at = self.site  # (the pass's line, as below)
            return t
        # ``unique_name`` under that scope, inlined: unique among the live ops only.  (The
        # scope: ``op_name(record)``, inlined, formatted at once with the suffix.)
        if type(record) is not EagerTensor:
            name = full = record.name + "_grad/Const"
        elif record._count:
            name = full = f"{record._name}_{record._count}_grad/Const"
        else:
            name = full = record._name + "_grad/Const"
        by_name, count = self.by_name, 0
        while name in by_name and by_name[name]() is not None:
            count += 1
            name = f"{full}_{count}"
        t = _new_tensor(EagerTensor)  # ``_light``'s fields (one store a line: see there)
        t._op = None
        t._value = value
        t.dtype = d
        t.shape = shape
        t._name = name
        t._count = 0
        t._type = "Const"
        t._inputs = ()
        t._attrs = attrs
        t.graph = graph
        t._override = self.override
        t._control = self.control
        t._tb, t._at = self.site
        t._device = self.device
        by_name[name] = ref = _weak(t)  # (a scoped name: in the name index)
        live = self.live
        live.append(ref)
        if len(live) >= graph._sweep_at:
            graph.sweep()
        return t


def _site_here(at: tuple[Any, int]) -> tuple[Any, int]:
    """The user's line for what the pass makes, as a light tensor keeps it (``_tb``,
    ``_at``): the line a running gradient rule was asked for at (``current.frame``),
    else ``at``, the line that called into the package (``eager._caller_site``)."""
    where = current.frame
    return at if where is None else (where, -1)


def _scoped_name(graph: Any, record: Any) -> str:
    """``Graph.unique_name("Const")`` in ``record``'s ``_grad`` scope (if any)."""
    if record is None:
        return graph.unique_name("Const")  # type: ignore[no-any-return]
    where = op_name(record) if type(record) is EagerTensor else record.name
    outer = graph.set_name_scope(f"{where}_grad")
    try:
        return graph.unique_name("Const")  # type: ignore[no-any-return]
    finally:
        graph.set_name_scope(outer)


# The DType of a NumPy dtype, for the float dtypes gradients mostly have (else ``as_dtype``).
_DTYPES = {np.dtype(d.np): d for d in (dtypes.float16, dtypes.float32, dtypes.float64)}


def _aggregate_out(parts: list[Any] | None) -> Any:
    token = ERRSTATE.set(ERRSTATE_IGNORE)
    try:
        return _total(parts)
    finally:
        ERRSTATE.reset(token)


class _Pass:
    """One backward pass's state: its plan, the tape's records, the slots' gradients
    (``grads``: a source's, its total once the pass is done), the user's line (``site``:
    as a light tensor keeps it, ``_site_here``)."""

    def __init__(
        self, plan: Plan, site: tuple[Any, int], records: Sequence[Any], grads: list[Any]
    ) -> None:
        self.plan = plan
        self.records = records
        self.grads = grads
        self.site = site
        self.caller = ERRSTATE.get()  # NumPy's error state outside the pass
        self.made_by: dict[int, Any] = {}  # a list's source slot -> the record whose rule fed it
        self.tensors: dict[int, Any] = {}  # a source's slot -> its gradient as a tensor
        self.const = _Consts(get_default_graph(), site)  # what makes those tensors

    def tensor(self, s: int) -> Any:
        """``made(s)``, the same one for a slot asked for twice."""
        t = self.tensors.get(s)
        if t is None:
            t = self.tensors[s] = self.made(s)
        return t

    def made(self, s: int) -> Any:
        """Source slot ``s``'s gradient as a tensor (None: none reached it): an array
        becomes a light ``Const`` named in the ``<op>_grad`` scope of the op whose rule
        made it (alone), as the registered rule's op would be, so that ``forward_op_of``
        finds that op."""
        g = self.grads[s]
        if type(g) is not _ndarray:
            if not isinstance(g, _ARRAYS):
                return g
            g = np.asarray(g)
        j = self.plan.maker[s]
        return self.const(g, self.records[j] if j >= 0 else self.made_by.get(s))

    def summed(self, keys: tuple[int, ...]) -> Any:
        """The gradient of a source several slots answer for (a variable read more than
        once), as a tensor made at the user's line (None: none reached it)."""
        grads = self.grads
        parts = [s for s in keys if grads[s] is not None]
        if not parts:
            return None
        if len(parts) == 1:
            return self.tensor(parts[0])
        ctx = current
        frame, ctx.frame = ctx.frame, self.where()
        try:
            return _as_tensor(_aggregate_out([grads[s] for s in parts]))
        finally:
            ctx.frame = frame

    def where(self) -> tuple[str, int]:
        """The user's line as (file, line), found once (the registered rules ask per op)."""
        if self.site[1] >= 0:
            self.site = (_site(*self.site), -1)
        return self.site[0]  # type: ignore[no-any-return]

    def run(self) -> None:
        """The plan's steps (``backprop``'s order): sum each output's gradients, apply the
        rule, pass its results on."""
        records, grads, made_by = self.records, self.grads, self.made_by
        plan = self.plan
        multi, is_source = plan.multi, plan.is_source
        for j, rule, needs, ins_s, outs_s, skip, one, fan in plan.steps:
            outs: list[Any] | None
            if one >= 0:  # one output, its gradient held alone (most ops)
                g = grads[one]
                if g is None:
                    continue
                grads[one] = None
                outs = [g]
            else:
                outs = self.gathered(outs_s)
                if outs is None:
                    continue
            r = records[j]
            dxs = None if rule is None else _by_array_rule(rule, r, outs, needs)
            if dxs is None:  # no array rule, or a value that is no dense array
                dxs = self.registered(r, outs, skip)
            if not fan:  # each input's slot holds one gradient, from this step alone (so
                for s, dx in zip(ins_s, dxs):  # None where it has none); the sink's: dropped
                    grads[s] = dx
                continue
            for s, dx in zip(ins_s, dxs):
                if dx is None:
                    continue
                if not multi[s]:
                    grads[s] = dx
                    continue
                got = grads[s]
                if is_source[s]:
                    made_by[s] = None if got is not None else r  # None: a sum
                if got is None:
                    grads[s] = [dx]
                else:
                    got.append(dx)

    def gathered(self, outs_s: tuple[int, ...]) -> list[Any] | None:
        """Each of the output slots' gradients summed (None: none reached that output),
        a source's total kept in its slot; None where none reached any."""
        grads, plan = self.grads, self.plan
        outs = []
        flowing = False
        for s in outs_s:
            g = grads[s]
            if plan.multi[s]:
                g = _total(g)
            grads[s] = g if plan.is_source[s] else None
            if g is not None:
                flowing = True
            outs.append(g)
        return outs if flowing else None

    def registered(self, r: Any, outs: list[Any], skip: tuple[int, ...]) -> Any:
        """The gradients for ``r``'s inputs by its registered rule, called as ``backprop``
        calls it, with NumPy's error state as the caller had it."""
        outs = [_as_tensor(g) for g in outs]
        saved = ERRSTATE.set(self.caller)
        try:
            return apply_rule(op_of(r), outs, False, skip, self.where())
        finally:
            ERRSTATE.reset(saved)


def _by_array_rule(rule: Any, r: Any, outs: list[Any], needs: Any) -> Any:
    """The gradients for record ``r``'s inputs by its array rule; None where it does not
    apply: an input with no value, or a gradient that is no dense array."""
    ins: Any
    if type(r) is EagerTensor:
        ins = r._inputs
        if ins is None:  # (its op built: the op holds them)
            ins = r._op.inputs  # type: ignore[union-attr]
        ys = [r._value]
    else:
        ins = r.inputs
        ys = r.output_values
    try:  # (a C loop: every input a light tensor, which always has a value)
        xs = list(map(_VALUE, ins))
    except AttributeError:  # an op's output (a ``Tensor``, no ``_value``): its value, if any
        xs = [t.eager_value for t in ins]
        if any(v is None for v in xs):
            return None
    gs: Any = outs
    if not _DENSE.issuperset(map(type, outs)):  # (a C loop) a gradient that is no array
        gs = _arrays_of(outs)
        if gs is None:
            return None
    return rule(xs, ys, r._attrs, gs, needs)


_VALUE = attrgetter("_value")
_DENSE = frozenset({_ndarray, type(None)})


def _arrays_of(grads: list[Any]) -> list[Any] | None:
    """The gradients as dense arrays (None stays None); None: one is no dense array."""
    out = []
    for g in grads:
        v = g if g is None else _value(g)
        if g is not None and v is None:
            return None
        out.append(v)
    return out
