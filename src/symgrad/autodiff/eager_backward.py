"""The eager tape's backward pass: its records in reverse, gradients as arrays.

A ``GradientTape`` keeps what it recorded in recording order, which is a topological
order (an op is recorded after its inputs exist).  ``GradientTape.gradient`` hands the
records here when nothing else reads the backward pass: no tape records it (nested tapes
and a persistent tape used inside its block take ``backprop``, whose rules' ops they
record), no function is being traced, no output check (``check_numerics``) must see
every op, and every target is an output of a record.  Then:

1. ``_forward``: one pass over the records finds those a source reaches, and for each
   the keys of the inputs a gradient must reach (the others are the general engine's
   ``skip_input_indices``);
2. ``_Pass.run``: the records between sources and targets in ``backprop``'s order
   (``_order``: the same pending counts and queue, so sums add in the same order).  Each
   output's gradients are summed as ``backprop`` sums them (``AddN``'s kernel on arrays,
   or ``add_n`` / the sparse aggregation where a part is a tensor); then the op's array
   rule (``gradient_registry.array_rule_for``) runs on NumPy arrays where it has one and
   every incoming gradient is a dense array; else the op is materialised and its
   registered rule runs as ``backprop`` runs it (``apply_rule``), as it does for the
   records whose inputs include a source, so that what leaves the pass is the tensor the
   rule makes, named as before.  Arrays become tensors only where they meet a rule.
   Array rules and sums run with NumPy's warnings off, as kernels do.

Tensors are keyed by ``tkey``: a light eager tensor by its id (its op may not exist), any
other tensor by its op's id and index.  The tape holds what the keys name.
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import numpy as np

from symgrad.autodiff.backprop import apply_rule
from symgrad.core import dtypes, op_registry
from symgrad.core.context import current
from symgrad.core.eager import ERRSTATE, ERRSTATE_IGNORE, EagerTensor, _light
from symgrad.core.eager_tensor import op_name
from symgrad.core.gradient_registry import array_rule_for
from symgrad.core.graph import Operation, Tensor, get_default_graph, user_frame
from symgrad.core.shapes import TensorShape
from symgrad.ops.core import convert_to_tensor
from symgrad.ops.math.add_n import add_n
from symgrad.ops.sparse.indexed_slices import aggregator
from symgrad.ops.state.variables import Variable

_ndarray = np.ndarray
_aggregate = aggregator(add_n)


def tkey(t: Tensor) -> Any:
    """The key of ``t`` in a tape: a light eager tensor's id, else (op id, index)."""
    return id(t) if type(t) is EagerTensor else (id(t.op), t.value_index)


def op_of(record: Any) -> Operation:
    """A record's ``Operation`` (a light tensor's is built now)."""
    return record.op if type(record) is EagerTensor else record  # type: ignore[no-any-return]


class Spent:
    """The ids of the ops a used tape had recorded, without holding them (they are freed
    as TF's are): an op's id, and for a light record a weak reference, so that its op,
    if built later (``why_none`` reads it), is found too."""

    __slots__ = ("_ids", "_light")

    def __init__(self, records: Collection[Any]) -> None:
        light = [r for r in records if type(r) is EagerTensor]
        ops = [r._op for r in light if r._op is not None]
        ops += [r for r in records if type(r) is not EagerTensor]
        self._ids = frozenset(map(id, ops))
        self._light = list(map(weakref.ref, light))  # C loops: this runs at every gradient

    def __contains__(self, op_id: object) -> bool:
        if op_id in self._ids:
            return True
        for ref in self._light:
            t = ref()
            if t is not None and t._op is not None and id(t._op) == op_id:
                return True
        return False


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


def _out_keys(r: Any) -> tuple[Any, ...]:
    if type(r) is EagerTensor:
        return (id(r),)
    return tuple((id(r), i) for i in range(len(r.output_dtypes)))


# An active record: the record, its inputs, the keys of the inputs a gradient must reach
# (None for the others), and the keys of its outputs.
Active = list[tuple[Any, tuple[Tensor, ...], list[Any], tuple[Any, ...]]]


def _forward(
    records: Iterable[Any], source_of: dict[Any, list[int]], var_index: dict[int, list[int]]
) -> tuple[Active, dict[Any, int]]:
    """The records some source reaches, in order, and the index of each one's output
    keys; a recorded read of a source variable becomes a source."""
    reached = set(source_of)
    active: Active = []
    producer: dict[Any, int] = {}
    for r in records:
        light = type(r) is EagerTensor
        if var_index and (r._type if light else r.type) == "ReadVariableOp":
            var = id(r._attrs["var"])
            if var in var_index:
                k = id(r) if light else (id(r), 0)
                source_of.setdefault(k, []).extend(var_index[var])
                reached.add(k)
        if light:
            op = r._op
            ins = r._inputs if op is None else op.inputs
        else:
            ins = r.inputs
        keys: list[Any] = []
        wanted = False
        for t in ins:
            k = id(t) if type(t) is EagerTensor else (id(t.op), t.value_index)
            if k in reached and t.dtype.is_differentiable:
                wanted = True
                keys.append(k)
            else:
                keys.append(None)
        if wanted:
            outs = (id(r),) if light else _out_keys(r)
            for k in outs:
                producer[k] = len(active)
            active.append((r, ins, keys, outs))
            reached.update(outs)
    return active, producer


def _order(
    active: Active, producer: dict[Any, int], targets: Sequence[Tensor]
) -> tuple[Any, list[int]]:
    """``backprop``'s schedule over the active records: those the targets depend on,
    the number of their consumer edges that must report, and the records ready first
    (the targets', latest first), so that gradients are summed in ``backprop``'s order."""
    pending = [-1] * len(active)  # -1: not between a source and a target
    for t in targets:
        at = producer.get(tkey(t))
        if at is not None:
            pending[at] = 0
    get = producer.get
    for j in range(len(active) - 1, -1, -1):  # consumers come after their producers
        if pending[j] >= 0:
            for k in active[j][2]:
                p = get(k)
                if p is not None:
                    n = pending[p]
                    pending[p] = n + 1 if n > 0 else 1
    ready = deque(j for j in range(len(active) - 1, -1, -1) if pending[j] == 0)
    return ready, pending


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
    records: Iterable[Any],
    targets: Sequence[Tensor],
    seeds: Sequence[Tensor],
    sources: Sequence[Any],
) -> list[Any]:
    """Gradients of sum(target · seed) w.r.t. each source (a Tensor, a Variable, or
    anything else: None), as ``backprop(..., use_override=False, sparse=True)``."""
    source_of: dict[Any, list[int]] = {}
    var_index: dict[int, list[int]] = {}
    for i, s in enumerate(sources):
        if isinstance(s, Tensor):
            source_of.setdefault(tkey(s), []).append(i)
        elif isinstance(s, Variable):
            var_index.setdefault(id(s), []).append(i)
    active, producer = _forward(records, source_of, var_index)
    grads: dict[Any, list[Any]] = {}
    for t, g in zip(targets, seeds):
        v = _value(g)
        grads.setdefault(tkey(t), []).append(g if v is None else v)
    pass_ = _Pass(source_of, current.frame or user_frame())
    token = ERRSTATE.set(ERRSTATE_IGNORE)  # as kernels run (array rules, sums)
    try:
        pass_.run(active, producer, targets, grads)
    finally:
        ERRSTATE.reset(token)
    results = pass_.results
    for k in source_of:  # each source's total once: a source may be asked for twice
        if k not in results:
            got = grads.pop(k, None)
            results[k] = got[0] if got and len(got) == 1 else _aggregate_out(got)
    ctx = current
    frame, ctx.frame = ctx.frame, pass_.where  # the tensors made here: the user's line
    try:
        return _outputs(pass_, source_of, len(sources))
    finally:
        ctx.frame = frame


def _outputs(pass_: _Pass, source_of: dict[Any, list[int]], n: int) -> list[Any]:
    """Each source's gradient, as a tensor (None where none reached it)."""
    results = pass_.results
    keys_of: list[list[Any]] = [[] for _ in range(n)]  # source i -> its keys, in order
    for k, idx in source_of.items():
        for i in idx:
            if not keys_of[i] or keys_of[i][-1] is not k:  # (a key listed twice: once)
                keys_of[i].append(k)
    out: list[Any] = []
    for keys in keys_of:
        parts = [(k, results[k]) for k in keys if results[k] is not None]
        if not parts:
            out.append(None)
        elif len(parts) == 1:
            out.append(pass_.tensor(*parts[0]))
        else:
            out.append(_as_tensor(_aggregate_out([p for _, p in parts])))
    return out


def _const(value: np.ndarray, record: Any) -> EagerTensor:
    """A light ``Const`` holding ``value``, in ``record``'s ``_grad`` scope (if any)."""
    graph = get_default_graph()
    if record is None or not graph.eager:
        name = _scoped_name(graph, record)
    else:  # ``unique_name`` under that scope, inlined: unique among the live ops only
        where = op_name(record) if type(record) is EagerTensor else record.name
        name = full = f"{where}_grad/Const"
        by_name, count = graph._by_name, 0
        while name in by_name and by_name[name]() is not None:
            count += 1
            name = f"{full}_{count}"
    d = _DTYPES.get(value.dtype) or dtypes.as_dtype(value.dtype)
    attrs = {"value": value, "dtype": d}
    return _light(graph, "Const", name, (), attrs, d, TensorShape.of_array(value.shape), value)


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
    """One backward pass's state: the sources' keys, their gradients once summed, the
    user's line, and the array rules found."""

    def __init__(self, source_of: dict[Any, list[int]], where: Any) -> None:
        self.source_of = source_of
        self.results: dict[Any, Any] = {}
        self.where = where
        self.rules: dict[str, Any] = {}
        self.caller = ERRSTATE.get()  # NumPy's error state outside the pass
        self.made_by: dict[Any, Any] = {}  # a source's key -> the record whose rule fed it
        self.tensors: dict[Any, Any] = {}  # a source's key -> its gradient as a tensor

    def tensor(self, k: Any, g: Any) -> Any:
        """Source ``k``'s gradient ``g`` as a tensor (the same one for a source asked for
        twice): an array becomes a light ``Const`` named in the ``<op>_grad`` scope of
        the op whose rule made it (alone), as the registered rule's op would be, so that
        ``forward_op_of`` finds that op."""
        if not isinstance(g, _ARRAYS):
            return g
        t = self.tensors.get(k)
        if t is None:
            t = self.tensors[k] = _const(np.asarray(g), self.made_by.get(k))
        return t

    def run(
        self,
        active: Active,
        producer: dict[Any, int],
        targets: Sequence[Tensor],
        grads: dict[Any, list[Any]],
    ) -> None:
        """The records in ``backprop``'s order: sum each output's gradients, apply the
        rule, pass its results on, release producers whose consumers all reported."""
        ready, pending = _order(active, producer, targets)
        source_of, results, arrays, made_by = (
            self.source_of,
            self.results,
            self.arrays,
            self.made_by,
        )
        pop, get = grads.pop, producer.get
        while ready:
            r, ins, keys, outk = active[ready.popleft()]
            outs = []
            flowing = False
            for k in outk:
                got = pop(k, None)
                g = None if got is None else got[0] if len(got) == 1 else _total(got)
                if k in source_of:
                    results[k] = g
                if g is not None:
                    flowing = True
                outs.append(g)
            if flowing:
                dxs = arrays(r, ins, outs, keys)
                if dxs is None:
                    dxs = self.registered(r, outs, keys)
                for k, dx in zip(keys, dxs):
                    if k is not None and dx is not None:
                        if k in source_of:
                            made_by[k] = None if k in grads else r  # None: a sum
                        got = grads.get(k)
                        if got is None:
                            grads[k] = [dx]
                        else:
                            got.append(dx)
            for k in keys:
                if k is not None:
                    p = get(k)
                    if p is not None:
                        n = pending[p] - 1
                        pending[p] = n
                        if n == 0:
                            ready.append(p)

    def arrays(self, r: Any, ins: tuple[Tensor, ...], outs: list[Any], keys: list[Any]) -> Any:
        """The gradients for ``r``'s inputs by its array rule; None where none applies:
        no rule, a gradient that is no dense array, or one that leaves the pass here (the
        registered rule then makes the source's gradient, named in its ``<op>_grad``
        scope as before, which ``forward_op_of`` reads)."""
        light = type(r) is EagerTensor
        op_type = r._type if light else r.type
        rule = self.rules.get(op_type, False)
        if rule is False:
            rule = self.rules[op_type] = array_rule_for(op_type)
        if rule is None:
            return None
        needs = [k is not None for k in keys]
        grads = []
        for g in outs:
            if g is not None and type(g) is not _ndarray:
                g = _value(g)
                if g is None:
                    return None
            grads.append(g)
        xs = []
        for t in ins:  # the values the registered rule's kernels would be given
            v = t._value if type(t) is EagerTensor else t.eager_value
            if v is None:
                return None
            xs.append(v)
        return rule(xs, [r._value] if light else r.output_values, r._attrs, grads, needs)

    def registered(self, r: Any, outs: list[Any], keys: list[Any]) -> Any:
        """The gradients for ``r``'s inputs by its registered rule, called as ``backprop``
        calls it, with NumPy's error state as the caller had it."""
        skip = tuple(i for i, k in enumerate(keys) if k is None)
        outs = [_as_tensor(g) for g in outs]
        saved = ERRSTATE.set(self.caller)
        try:
            return apply_rule(op_of(r), outs, False, skip, self.where)
        finally:
            ERRSTATE.reset(saved)
