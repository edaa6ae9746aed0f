"""The eager memory rule's sweep: drop the history no one can differentiate through.

``Graph.sweep`` calls this for the eager graph (docs/design.md, "Eager memory").  The
graph's live list holds ops and light eager tensors (``symgrad.core.eager``): a light
tensor is its own one-output op until its ``Operation`` is built, and the op after.
"""

from __future__ import annotations

import sys
from typing import Any

from symgrad.core import refcounts
from symgrad.core.eager import EagerTensor, frozen_light
from symgrad.core.graph import SOURCE_TYPES, Operation, Tensor


def live_nodes(live: list[Any]) -> list[Any]:
    """The live list's entries that are alive, oldest first: ops, and light tensors whose
    op is not built (a built one stands for its op)."""
    nodes = []
    for r in live:
        e = r()
        if e is not None:
            if type(e) is EagerTensor and e._op is not None:
                e = e._op
            nodes.append(e)
    e = None
    return nodes


def _node(t: Tensor) -> Any:
    """What produced ``t`` in the sweep's terms: its op, or ``t`` itself if light."""
    if type(t) is EagerTensor:
        op = t._op
        return t if op is None else op
    return t.op


def release_history(ops: list[Any], cache: dict[Any, Tensor] | None = None) -> None:  # noqa: C901
    """Replace each input edge of ``ops`` that no source is at or upstream of by a frozen
    constant of its value, dropping the reference to its producer.

    ``ops``: every live op (or light tensor, ``live_nodes``) of an eager graph, oldest
    first (so a producer comes before its consumers), held by this list only besides the
    graph's own references.  ``cache`` maps keys to tensors the graph holds that are not
    sources (the eager scalar cache): a cached tensor that looks held from outside is
    evicted from it, since the calls that use it hold it too; it is a source this time,
    and the next sweep sees whether the user really holds it.

    Sources (the ops "marked" below) are the ops with a tensor the user holds, ops some
    object outside the graph holds (a tape that recorded or watches them, a plan, a user
    reference to the op), symbolic ops (no value: fed by a placeholder), ops of a
    ``SOURCE_TYPES`` type, and every op downstream of a source.  Whether an object is held
    from outside is read from its reference count: the references the graph itself holds
    (a tensor in its consumers' input tuples and in ``cached``; an op by its live output
    tensors and other ops' control inputs) are counted and subtracted.  An input tuple
    referenced from outside (a user kept ``op.inputs``) makes its tensors held.  A light
    tensor is held from outside when referenced beyond this list and its consumers.
    """
    getrefcount, local_refs = sys.getrefcount, refcounts.LOCAL_REFS
    # References the graph holds to each tensor and to each op, by id.
    tensor_refs: dict[int, int] = {}
    op_refs: dict[int, int] = {}
    cached: dict[int, Any] = {}
    if cache:
        for key, tensor in cache.items():
            cached[id(tensor)] = key
            tensor_refs[id(tensor)] = tensor_refs.get(id(tensor), 0) + 1
    own_tuple = refcounts.LOCAL_REFS + 1  # an input tuple held by its op only (and the local)
    for op in ops:
        light = type(op) is EagerTensor
        ins = op._inputs if light else op.inputs
        if getrefcount(ins) <= own_tuple:
            for k in map(id, ins):
                tensor_refs[k] = tensor_refs.get(k, 0) + 1
        for k in map(id, op._control if light else op.control_inputs):
            op_refs[k] = op_refs.get(k, 0) + 1
    # No local may still hold a tensor or an op (a stray reference reads as "held").
    ins = tensor = None  # type: ignore[assignment]
    marked: set[int] = set()
    mark = marked.add
    for op in ops:
        if type(op) is EagerTensor:
            if _light_source(op, tensor_refs, marked, cache, cached):
                mark(id(op))
            continue
        if op.output_values is None or op.type in SOURCE_TYPES:
            mark(id(op))
            continue
        held = refcounts.LISTED_REFS + op_refs.get(id(op), 0)
        source = False
        for ref in op._outs:
            if ref is not None:
                t = ref()
                if t is not None:
                    held += 1  # the tensor's ``op``
                    if getrefcount(t) > local_refs + tensor_refs.get(id(t), 0):
                        source = True
                        if cache and id(t) in cached:
                            cache.pop(cached[id(t)], None)
                        t = None
                        break
                    t = None
        if not source:
            if getrefcount(op) > held:
                source = True
            else:
                for i in op.inputs:  # ``_node``, inlined
                    p = i.op if type(i) is not EagerTensor else (i._op or i)
                    if id(p) in marked:
                        source = True
                        break
                p = None
        if source:
            mark(id(op))
    _cut(ops, marked)


def _light_source(
    t: EagerTensor,
    tensor_refs: dict[int, int],
    marked: set[int],
    cache: Any,
    cached: dict[int, Any],
) -> bool:
    """Is light tensor ``t`` a source: of a source type, held, or downstream of one?"""
    if t._type in SOURCE_TYPES:
        return True
    # This list's entry, the caller's loop variable, our parameter, getrefcount's argument.
    if sys.getrefcount(t) > refcounts.LISTED_REFS + 1 + tensor_refs.get(id(t), 0):
        if cache and id(t) in cached:
            cache.pop(cached[id(t)], None)
        return True
    return any(id(_node(i)) in marked for i in t._inputs)  # type: ignore[union-attr]


def _cut(ops: list[Any], marked: set[int]) -> None:
    """Cut the edges from unmarked producers into marked ops.

    Only marked consumers need their edges cut: an unmarked op is held by nothing but
    its consumers' edges (else it would be marked), so cutting the marked ones' frees
    every unmarked op at once."""
    frozen: dict[tuple[int, int], Tensor] = {}
    for op in ops:
        if id(op) not in marked:
            continue
        light = type(op) is EagerTensor
        ins = op._inputs if light else op.inputs
        for i in ins:  # ``_node``, inlined
            p = i.op if type(i) is not EagerTensor else (i._op or i)
            if id(p) not in marked and not _bare(p):
                break
        else:
            continue
        new = []
        for i in ins:
            p = _node(i)
            if id(p) not in marked and not _bare(p):
                k2 = (id(p), i.value_index)
                const = frozen.get(k2)
                if const is None:
                    const = frozen[k2] = frozen_light(i) if p is i else _frozen(i)  # type: ignore[arg-type]
                i = const
            new.append(i)
        if light:
            op._inputs = tuple(new)
        else:
            op.inputs = tuple(new)


def _bare(p: Any) -> bool:
    """Is node ``p`` a constant with nothing behind it (no inputs, no control inputs)?
    An edge from one is never cut: a frozen constant in its place would free nothing
    (the value is shared), and a frozen one cut again would be remade at every sweep."""
    if type(p) is EagerTensor:  # light, its op not built
        return p._type == "Const" and not p._inputs and not p._control  # type: ignore[no-any-return]
    return p.type == "Const" and not p.inputs and not p.control_inputs  # type: ignore[no-any-return]


def _frozen(t: Tensor) -> Tensor:
    """A Const standing for eager tensor ``t``: same value (not copied), dtype, shape."""
    p = t.op
    i = t.value_index
    value = p.output_values[i]  # type: ignore[index]
    c = Operation.__new__(Operation)
    c.graph, c.type = p.graph, "Const"
    c.name = p.name if p.num_outputs == 1 else f"{p.name}/output_{i}"
    c.inputs = ()
    c._attrs = {"value": value, "dtype": p.output_dtypes[i]}
    c.output_dtypes, c.output_shapes = [p.output_dtypes[i]], [p.output_shapes[i]]
    c.output_values, c._outs = [value], [None]
    c._gradient_op_type, c.control_inputs = None, ()
    c.traceback, c.skip_input_indices = p.traceback, None
    c.device = p.device
    return c.output(0)
