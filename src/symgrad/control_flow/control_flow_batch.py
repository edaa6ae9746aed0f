"""Batching rules of the functional ops ``If`` / ``Case`` / ``While`` (see ``batching``).

A jacobian through a cond or a loop is then one batched reverse pass, as for any op.
Both rules rebuild the op with branch or body graphs that are themselves vectorised
(``vectorized``: the graph re-created on the new inputs and handed to
``autodiff.vectorize``).

* ``If`` / ``Case``: with an unbatched selector, the same op chooses among vectorised
  branches.  With a batched one, every branch runs batched and each example takes its
  own branch's result by ``where`` (stateless ops only: the others' effects must not run).
* ``While``: loop variables that depend on a batched input carry the batch axis through
  every iteration.  If the condition depends on one, examples may need different trip
  counts: the loop runs while any example's condition holds, and an example whose
  condition failed keeps its values (``where``), so each gets its own iterations.

The rules are made by factories taking the op's builder, so that this module needs
neither ``cond`` nor ``while_loop`` (which import it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.autodiff.backprop import key
from symgrad.autodiff.vectorize import vectorize
from symgrad.core import dtypes as dt
from symgrad.core.batching import Call, NotVectorizable, known_dims
from symgrad.core.graph import Tensor, get_default_graph
from symgrad.core.shapes import TensorShape
from symgrad.ops.array import shape as shape_ops
from symgrad.ops.array import structure as array
from symgrad.ops.core import placeholder
from symgrad.ops.math import elementwise as math_ops
from symgrad.ops.reduction import reduce as reduction
from symgrad.runtime.concrete_function import ConcreteFunction

Rule = Callable[[Call], list[Tensor]]


def _local(t: Tensor) -> Tensor:
    graph = get_default_graph()
    return t if t.op.graph is graph else graph.capture(t)


def vectorized(
    f: ConcreteFunction,
    outer: Sequence[Tensor],
    batched: Sequence[bool],
    k: int,
    batch_out: Sequence[bool] | None = None,
) -> list[Tensor]:
    """``f``'s outputs re-created in the current graph on ``outer`` (one tensor per feed
    of ``f``), where the batched ones carry K examples along a new first axis.  Outputs
    get that axis (tiled where they do not depend on a batched input), except those that
    ``batch_out`` marks False, which must not depend on one: they stay as they are."""
    local = [_local(t) for t in outer]
    stand_ins = [
        placeholder(ph.dtype, ph.shape, "batch_stand_in") if b else t
        for ph, t, b in zip(f._feeds, local, batched, strict=True)
    ]
    mapping = f.replay(stand_ins)
    outs = [mapping[key(t)] for t in f.outputs]
    which = [True] * len(outs) if batch_out is None else list(batch_out)
    chosen = [t for t, w in zip(outs, which, strict=True) if w]
    seeds = [s for s, b in zip(stand_ins, batched, strict=True) if b]
    full = [t for t, b in zip(local, batched, strict=True) if b]
    if not seeds:  # the same for every example
        done = [array.broadcast_to(t, [k, *known_dims(t.op, t, "an output")]) for t in chosen]
    else:
        done = vectorize(seeds, full, chosen)  # type: ignore[assignment]
    it = iter(done)
    return [next(it) if w else t for t, w in zip(outs, which, strict=True)]


# --------------------------------------------------------------------------------------
# If / Case


def branches_rule(functional: Callable[..., Any]) -> Rule:
    """The rule of ``If`` / ``Case``; ``functional`` builds such an op (``cond._functional``)."""

    def rule(c: Call) -> list[Tensor]:
        branches, maps = c.op.get_attr("branches"), c.op.get_attr("maps")
        ins, batched = c.xs[1:], c.batched[1:]

        def args(m: Sequence[int]) -> tuple[list[Tensor], list[bool], int]:
            return [ins[j] for j in m], [batched[j] for j in m], c.k

        if not c.batched[0]:
            fns = [functools.partial(vectorized, f, *args(m)) for f, m in zip(branches, maps)]
            names = [f"branches[{i}]" for i in range(len(fns))]
            return list(functional(c.op.type, c.xs[0], fns, names, "vectorize", "pfor"))
        if _effects(branches):
            raise NotVectorizable(c.op, "a batched selector would run every branch's effects")
        results = [vectorized(f, *args(m)) for f, m in zip(branches, maps, strict=True)]
        return _select(c, results)

    return rule


def _select(c: Call, results: list[list[Tensor]]) -> list[Tensor]:
    """Each example's output from the branch its selector picks (Case: out of range
    picks the last branch)."""
    index, n = c.xs[0], len(results)
    if c.op.type in ("If", "StatelessIf"):
        index = array.where(index, 0, 1)
    index = array.where(math_ops.logical_and(index >= 0, index < n), index, n - 1)
    outs = []
    for j in range(len(c.op.outputs)):
        which = _along(index, results[-1][j])
        out = results[-1][j]
        for i in range(n - 2, -1, -1):
            out = array.where(math_ops.equal(which, i), results[i][j], out)
        outs.append(out)
    return outs


def _effects(fns: Sequence[ConcreteFunction]) -> bool:
    """Has one of ``fns`` a stateful op other than a variable read (which may run more
    often than the program says without changing anything)?"""
    return any(op.type != "ReadVariableOp" for f in fns for op in f.graph.stateful_ops)


def _along(v: Tensor, like: Tensor) -> Tensor:
    """``v`` ([K]) shaped to broadcast against ``like`` ([K, ...])."""
    return shape_ops.reshape(v, [-1] + [1] * ((like.shape.rank or 1) - 1))


# --------------------------------------------------------------------------------------
# While


def _depends(f: ConcreteFunction, flags: Sequence[bool]) -> list[bool]:
    """Which outputs of ``f`` depend on the feeds that ``flags`` marks (one per feed)."""
    hit = {id(ph.op) for ph, b in zip(f._feeds, flags, strict=True) if b}
    for op in f.graph.get_operations():  # in creation order: producers come first
        if any(id(t.op) in hit for t in op.inputs):
            hit.add(id(op))
    return [id(t.op) in hit for t in f.outputs]


def _batched_vars(c: Call) -> tuple[list[bool], bool]:
    """Which loop variables get the batch axis, and whether examples may stop apart."""
    n_vars, n_cond = c.op.get_attr("n_vars"), c.op.get_attr("n_cond")
    if any(c.batched[:2]):
        raise NotVectorizable(c.op, "a batched iteration counter or maximum")
    caps_b = list(c.batched[2 + n_vars + n_cond :])
    b = list(c.batched[2 : 2 + n_vars])
    while True:  # a variable the body computes from a batched one is batched too
        dep = _depends(c.op.get_attr("body"), [False, *b, *caps_b])
        grown = [x or d for x, d in zip(b, dep, strict=True)]
        if grown == b:
            break
        b = grown
    cond_b = list(c.batched[2 + n_vars : 2 + n_vars + n_cond])
    masked = _depends(c.op.get_attr("cond"), [False, *b, *cond_b])[0]
    if masked and _effects([c.op.get_attr("cond"), c.op.get_attr("body")]):
        raise NotVectorizable(c.op, "examples would run different iterations of effects")
    return ([True] * n_vars if masked else b), masked


def while_rule(functional_while: Callable[..., list[Tensor]]) -> Rule:
    """The rule of ``While``; ``functional_while`` builds one (``while_loop``'s)."""

    def rule(c: Call) -> list[Tensor]:
        n_vars, n_cond = c.op.get_attr("n_vars"), c.op.get_attr("n_cond")
        cond_f, body_f = c.op.get_attr("cond"), c.op.get_attr("body")
        b, masked = _batched_vars(c)
        cond_caps, body_caps = c.xs[2 + n_vars : 2 + n_vars + n_cond], c.xs[2 + n_vars + n_cond :]
        cond_flags = [False, *b, *c.batched[2 + n_vars : 2 + n_vars + n_cond]]
        body_flags = [False, *b, *c.batched[2 + n_vars + n_cond :]]

        def active(xs: list[Tensor]) -> Tensor:  # xs: counter, counts, variables
            return vectorized(cond_f, [xs[0], *xs[2:], *cond_caps], cond_flags, c.k)[0]

        def body(xs: list[Tensor]) -> list[Tensor]:
            new = vectorized(body_f, [xs[0], *xs[2:], *body_caps], body_flags, c.k, b)
            if not masked:
                return [xs[1], *new]
            on = active(xs)
            new = [array.where(_along(on, t), t, x) for t, x in zip(new, xs[2:], strict=True)]
            return [xs[1] + array.cast(on, dt.int32), *new]

        def cond(xs: list[Tensor]) -> list[Tensor]:
            if masked:
                return [reduction.reduce_any(active(xs))]
            args = [xs[0], *xs[2:], *cond_caps]
            return vectorized(cond_f, args, cond_flags, c.k, [False])

        counts = array.broadcast_to(c.xs[0], [c.k])  # each example's iterations, if masked
        init = [counts, *(c.full(2 + i) if x else c.xs[2 + i] for i, x in enumerate(b))]
        outs = functional_while(
            cond,
            body,
            init,
            _shapes(c, b),
            c.xs[1],
            bool(c.op.get_attr("accumulate")),
            "pfor",
            c.xs[0],
        )
        return _batched_outputs(c, outs[0].op, b, masked)

    return rule


def _shapes(c: Call, b: list[bool]) -> list[TensorShape]:
    shapes = [TensorShape([c.k])]
    for x, s in zip(b, c.op.get_attr("shapes"), strict=True):
        if x and s.rank is None:
            raise NotVectorizable(c.op, "a batched loop variable has an unknown rank")
        shapes.append(TensorShape([c.k, *s.dims]) if x else s)
    return shapes


def _batched_outputs(c: Call, op: Any, b: list[bool], masked: bool) -> list[Tensor]:
    """The new loop's outputs in the batched layout, batch axis first everywhere.  Its
    extra variable (each example's iteration count) stands for the counter when masked.
    Stacks ``[n, K, ...]`` become ``[K, n, ...]`` (when masked, n is the longest trip
    count: an example's own iterations come first, which is what a gradient reads)."""
    n = len(b)
    outs = list(op.outputs)
    picked = [outs[2] if masked else outs[0], outs[1], *outs[3 : 3 + n]]
    if op.get_attr("accumulate"):
        picked += outs[4 + n :]
    result = []
    for j, (t, x) in enumerate(zip(picked, [masked, False, *b, *b], strict=False)):
        if x:
            if j >= 2 + n:
                t = shape_ops.transpose(t, [1, 0, *range(2, t.shape.rank or 2)])
            result.append(t)
            continue
        if t.shape.rank is None:
            raise NotVectorizable(c.op, "an output has an unknown rank")
        result.append(array.tile(shape_ops.expand_dims(t, 0), [c.k] + [1] * t.shape.rank))
    return result
