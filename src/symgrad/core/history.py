"""The eager memory rule's sweep: drop the history no one can differentiate through.

``Graph.sweep`` calls this for the eager graph (docs/design.md, "Eager memory").  The
graph's live list holds ops and light eager tensors (``symgrad.core.eager``): a light
tensor is its own one-output op until its ``Operation`` is built, and the op after.
"""

from __future__ import annotations

import sys
import weakref
from collections import Counter
from itertools import chain
from operator import call as _call
from typing import Any

from symgrad.core import refcounts
from symgrad.core.eager import EagerTensor, frozen_light
from symgrad.core.graph import SOURCE_TYPES, Operation, Tensor


class Settled:
    """What a sweep leaves for the next one to skip (docs/design.md, "Eager memory").

    After a full sweep, each entry of the live list it walked that is still alive is
    marked or has its id in ``unmarked`` (a bare constant the scalar cache holds, mostly).
    Each marked one is a root (in ``roots``: marked for itself, as held, symbolic or of a
    source type) or has a marked producer, and no edge between marked ones is ever cut.
    So while every root is still a source, those entries stay marked: the next sweep walks
    only the entries added since (``incremental_sweep``).  ``n`` (``Graph.sweep`` sets it
    once the dead entries are dropped): how many entries at the front of the live list
    those are.
    """

    __slots__ = ("n", "roots", "unmarked")

    def __init__(self, roots: list[Any], unmarked: set[int]) -> None:
        self.n = 0
        self.roots = roots  # (weak reference, tensor id -> graph's references, op's)
        self.unmarked = unmarked


def sweep_history(
    live: list[Any], walked: int, settled: Settled | None, cache: dict[Any, Tensor]
) -> Settled:
    """``Graph.sweep``'s work on ``live[:walked]``: an incremental sweep where ``settled``
    allows one and it finds nothing to cut, else a full one (``release_history``)."""
    if settled is not None and incremental_sweep(live, walked, settled, cache):
        return settled
    ops = live_nodes(live[:walked])
    roots: list[Any] = []
    marked = release_history(ops, cache, roots)
    del ops  # ops whose last references were the edges just dropped die here
    # The entries still alive and not marked, by the entry's id (a built light tensor's
    # op is the node the sweep marked).
    entries = map(_call, live[:walked])
    unmarked = {id(e) for e in entries if e is not None and id(_entry_node(e)) not in marked}
    return Settled(roots, unmarked)


def _entry_node(e: Any) -> Any:
    return e._op or e if type(e) is EagerTensor else e


def incremental_sweep(live: list[Any], walked: int, settled: Settled, cache: Any) -> bool:
    """Whether the entries added since the last sweep, ``live[settled.n:walked]``, leave
    nothing to cut, given what ``settled`` says of the older ones.  Cuts nothing.

    True when every new entry alive is a bare constant (left unmarked: no edge from one
    is cut) or has a marked producer and no unmarked producer with history behind it, and
    every root of ``settled`` is still a source, judged as ``release_history`` judges one
    with the references the graph held to it then plus those the new entries and the cache
    hold now (consumers that died since make a root look released: that costs a full
    sweep, never a wrong cut).  A full sweep would then mark the same entries and cut
    nothing; so a program that keeps a long history alive (downstream of a held tensor)
    pays at each sweep for the entries added, not for the whole history.  Anything else (a
    new root, an edge to cut, a released root) is left to a full sweep.  The new bare
    constants join ``settled.unmarked``; an incremental sweep adds no root.
    """
    alive = set(map(id, map(_call, live[: settled.n])))
    alive.discard(id(None))
    unmarked = settled.unmarked & alive
    marked = alive - unmarked
    alive = set()
    new = list(map(_call, live[settled.n : walked]))
    tuples: list[Any] = []
    bare: set[int] = set()
    fresh: list[int] = []
    ok = _derived(new, marked, bare, tuples, fresh)
    new = []
    if not ok:
        return False
    # The new entries' references to what the checks below read: the roots' tensors and
    # ops, and the new bare constants.
    want = set(fresh)
    for ref, then, _ in settled.roots:
        want.update(then)
        want.add(id(ref()))
    refs = Counter(filter(want.__contains__, map(id, chain.from_iterable(tuples))))
    tuples = []
    for t in cache.values() if cache else ():
        refs[id(t)] += 1
    t = None
    if not all(_still_source(root, refs) for root in settled.roots):
        return False
    settled.roots = [root for root in settled.roots if root[0]() is not None]
    settled.unmarked = unmarked | bare
    # New consumers of a root's tensors are old at the next sweep: listed with its own.
    if any(refs[k] for _, then, _ in settled.roots for k in then):
        _consumers(list(map(_call, live[settled.n : walked])), settled.roots)
    if cache and fresh:
        _evict_held(cache, fresh, refs)
    return True


def _evict_held(cache: dict[Any, Tensor], fresh: list[int], refs: Counter[int]) -> None:
    """Evict from the scalar cache the new bare constants in it that look held, as a full
    sweep does (``release_history``: a call in flight holds the one it uses).  Exact for a
    new one: its consumers are new entries, whose references ``refs`` counts."""
    fresh_ids = set(fresh)
    for key in [k for k, t in cache.items() if id(t) in fresh_ids]:
        t: Any = cache[key]
        if sys.getrefcount(t) > refcounts.LOCAL_REFS + refs[id(t)]:
            del cache[key]
        t = None


def _derived(
    new: list[Any], marked: set[int], bare: set[int], tuples: list[Any], fresh: list[int]
) -> bool:
    """Mark (in ``marked``) each of ``new`` (entries, oldest first; None for dead ones)
    with a marked producer; put each bare constant's id in ``bare`` (and ``fresh`` if one
    of ``new``), and each marked entry's input tuple and control inputs in ``tuples``.
    False (stop) at the first entry alive that is neither, or that has an unmarked
    producer with history behind it."""
    add = marked.add
    for e in new:
        if e is None:
            continue
        if type(e) is EagerTensor and e._op is None:
            ins, ctl = e._inputs, e._control
            if not ins and not ctl and e._type == "Const":
                bare.add(id(e))
                fresh.append(id(e))
                continue
        else:
            op: Any = e._op if type(e) is EagerTensor else e
            if op.output_values is None:  # symbolic: a root
                return False
            ins, ctl = op.inputs, op.control_inputs
            if not ins and not ctl and op.type == "Const":
                bare.add(id(e))
                fresh.append(id(e))
                continue
        found = False
        for i in ins:  # type: ignore[union-attr]
            k = id(i) if type(i) is EagerTensor else id(i.op)
            if k in marked:
                found = True
            elif k not in bare:
                if not _bare(i._op or i if type(i) is EagerTensor else i.op):
                    return False
                bare.add(k)  # (a producer not listed too: ids of objects alive now)
        if not found:
            return False
        add(id(e))
        tuples.append(ins)
        if ctl:
            tuples.append(ctl)
    return True


def _still_source(root: tuple[Any, dict[int, list[Any]], int], refs: Counter[int]) -> bool:
    """Is ``root`` (of ``Settled.roots``) still a source, or dead?  ``refs``: references
    the new entries and the cache hold, by id; the older ones are its consumers' then
    (``_root``), counted in their input tuples now (a dead one holds none)."""
    ref, then, op_then = root
    e = ref()
    if e is None:
        return True  # dead: so is every entry marked through it (each holds its producer)
    getrefcount, local = sys.getrefcount, refcounts.LOCAL_REFS
    if type(e) is EagerTensor and e._op is None:
        if e._type in SOURCE_TYPES:
            return True
        return getrefcount(e) > local + _held_by(e, then) + refs[id(e)]
    op: Any = e._op if type(e) is EagerTensor else e
    e = None
    if op.output_values is None or op.type in SOURCE_TYPES:
        return True
    held = local + op_then + refs[id(op)]
    for r in op._outs:
        t = r() if r is not None else None
        if t is not None:
            if id(t) not in then:  # made since (its consumers are not all counted)
                return False
            held += 1  # the tensor's ``op``
            if getrefcount(t) > local + _held_by(t, then) + refs[id(t)]:
                return True
            t = None
    return getrefcount(op) > held


def _held_by(t: Tensor, then: dict[int, list[Any]]) -> int:
    """How many times the input tuples of ``t``'s consumers in ``then`` hold ``t`` now: a
    tuple held from outside (a user kept ``op.inputs``) does not count (``t`` is held)."""
    own_tuple = refcounts.LOCAL_REFS + 1
    n = 0
    consumers = then.get(id(t), [])
    consumers[:] = [r for r in consumers if r() is not None]  # the dead ones hold nothing
    for ref in consumers:
        c = ref()
        if c is None:
            continue
        light = type(c) is EagerTensor
        ins = c._inputs if light and c._op is None else (c._op if light else c).inputs
        c = None
        if sys.getrefcount(ins) <= own_tuple:
            n += [*map(id, ins)].count(id(t))  # (``==`` on tensors is elementwise)
    ins = None
    return n


def _root(e: Any, op: Any, op_refs: dict[int, int]) -> Any:
    """``Settled.roots``' record of ``e`` (a light tensor, with ``op`` None, or an op),
    marked for itself: its tensors' ids, with lists for their consumers (``_consumers``),
    and the control-input references to its op."""
    if op is None:
        return weakref.ref(e), {id(e): []}, 0
    then: dict[int, list[Any]] = {}
    for r in op._outs:
        t = r() if r is not None else None
        if t is not None:
            then[id(t)] = []
    t = None
    return weakref.ref(op), then, op_refs.get(id(op), 0)


def _consumers(ops: list[Any], roots: list[Any]) -> None:
    """Add to each root record's lists weak references to the consumers in ``ops`` (ops
    or light tensors, None for dead ones) of its tensors (after the cut: tuples are read
    at the next sweep)."""
    want: dict[int, list[Any]] = {}
    for _, then, _ in roots:
        want.update(then)
    if not want:
        return
    for op in ops:
        if op is None:
            continue
        if type(op) is EagerTensor:
            ins: Any = op._inputs if op._op is None else op._op.inputs
        else:
            ins = op.inputs
        for k in map(id, ins):
            if k in want:
                consumers, r = want[k], weakref.ref(op)  # (one per op: the same each time)
                if not consumers or consumers[-1] is not r:  # ``_held_by`` counts repeats
                    consumers.append(r)


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


def release_history(  # noqa: C901
    ops: list[Any], cache: dict[Any, Tensor] | None = None, roots: list[Any] | None = None
) -> set[int]:
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

    Returns the ids of the marked ops; ``roots``, if given, receives ``Settled.roots``'
    record of each op marked for itself (not for a marked producer).
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
    roots = [] if roots is None else roots
    # Bare constants marked for themselves (a cached scalar in flight looks held): roots
    # only once an op is marked through nothing else (``_through``).
    pending: dict[int, Any] = {}
    for op in ops:
        if type(op) is EagerTensor:
            if _through(op._inputs, marked, pending, roots):  # type: ignore[arg-type]
                mark(id(op))
            elif _light_source(op, tensor_refs, cache, cached):
                mark(id(op))
                _add_root(op, _root(op, None, op_refs), pending, roots)
            continue
        if _through(op.inputs, marked, pending, roots):
            mark(id(op))
            continue
        if op.output_values is None or op.type in SOURCE_TYPES:
            mark(id(op))
            roots.append(_root(op, op, op_refs))
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
        if source or getrefcount(op) > held:
            mark(id(op))
            _add_root(op, _root(op, op, op_refs), pending, roots)
    _cut(ops, marked)
    _consumers(ops, roots)
    marked.difference_update(pending)  # not roots: the next sweep counts them unmarked
    return marked


def _through(ins: Any, marked: set[int], pending: dict[int, Any], roots: list[Any]) -> bool:
    """Has an op with inputs ``ins`` a marked producer?  If its only ones are ``pending``
    bare constants, the first becomes a root: the op stays marked while it is held, and
    the next sweep checks that (a full one follows if it is not)."""
    via = 0
    for i in ins:  # ``_node``, inlined
        k = id(i.op if type(i) is not EagerTensor else (i._op or i))
        if k in marked:
            if k not in pending:
                return True
            via = via or k
    if via:
        roots.append(pending.pop(via))
    return bool(via)


def _add_root(op: Any, record: Any, pending: dict[int, Any], roots: list[Any]) -> None:
    """Put ``record`` (of ``op``, marked for itself) in ``roots``, or if ``op`` is a bare
    constant in ``pending``."""
    if _bare(op):
        pending[id(op)] = record
    else:
        roots.append(record)


def _light_source(
    t: EagerTensor, tensor_refs: dict[int, int], cache: Any, cached: dict[int, Any]
) -> bool:
    """Is light tensor ``t`` (not downstream of a source) a source: of a source type, or
    held?"""
    if t._type in SOURCE_TYPES:
        return True
    # This list's entry, the caller's loop variable, our parameter, getrefcount's argument.
    if sys.getrefcount(t) > refcounts.LISTED_REFS + 1 + tensor_refs.get(id(t), 0):
        if cache and id(t) in cached:
            cache.pop(cached[id(t)], None)
        return True
    return False


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
