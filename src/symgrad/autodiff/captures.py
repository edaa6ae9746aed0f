"""``gradients()`` inside a traced function, through the function's captures.

A traced function sees an outer tensor through a capture placeholder.  TensorFlow's
``gradients`` treats such a placeholder as the outer tensor itself: the walk crosses from
the function's graph into the graph enclosing it (not into eager values, which have no
history to cross), and the ``ys`` may come from any of the enclosing graphs.  So
``gradients(y, x)`` in an inner function, with ``y`` computed there from an outer
``t = f(x)``, is ``dy/dt · dt/dx``.  Here that is one ``backprop`` per round: the
gradients reaching capture placeholders become the seeds of the outer tensors they stand
for in the next round, until no capture gets one.  Every gradient op is built in the
default (innermost) graph, which captures the outer tensors the rules read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symgrad.autodiff.backprop import backprop, key
from symgrad.core.graph import Graph, Tensor, get_default_graph
from symgrad.ops.math.elementwise import add


def _chain(graph: Graph) -> list[Graph]:
    """``graph`` and the graphs enclosing it, innermost first."""
    out = [graph]
    while getattr(out[-1], "outer_graph", None) is not None:
        out.append(out[-1].outer_graph)  # type: ignore[attr-defined]
    return out


def graph_of_ys(ys: Sequence[Tensor], one_graph: Any) -> Graph:
    """The graph to differentiate in: the ys' one graph, or, inside a traced function,
    the default graph when every y belongs to it or to a graph enclosing it (as TF)."""
    graphs = {id(y.graph) for y in ys}
    default = get_default_graph()
    if len(graphs) > 1 and graphs <= {id(g) for g in _chain(default)}:
        return default
    return one_graph(ys)


def stand_in(graph: Graph, t: Any) -> Any:
    """The capture standing for outer tensor ``t`` in traced ``graph``, else ``t`` itself."""
    hit = getattr(graph, "captures", {}).get(key(t)) if isinstance(t, Tensor) else None
    return t if hit is None else hit[1]


def stand_ins(targets: Sequence[Tensor], sources: Sequence[Any]) -> list[Any]:
    """A tape's sources as the targets' traced function sees them: a tape made inside a
    function and watching an outer tensor differentiates w.r.t. its capture (as TF's)."""
    if not targets or targets[0].graph.eager:  # an eager graph captures nothing
        return list(sources)
    return [stand_in(targets[0].graph, s) for s in sources]


def _crosses(graph: Graph) -> bool:
    outer = getattr(graph, "outer_graph", None)
    return outer is not None and not outer.eager


def backprop_through_captures(
    graph: Graph,
    targets: Sequence[Tensor],
    seeds: Sequence[Tensor],
    xs: Sequence[Any],
    stop_ops: set[int],
    aggregate: Any,
) -> list[Tensor | None]:
    """Gradients of ``sum(target · seed)`` w.r.t. ``xs`` (as given, maybe outer tensors).

    An outer ``x`` seen through a graph whose enclosing graph is eager is matched by its
    capture there (the walk cannot cross into eager values)."""
    chain = _chain(graph)
    caps = [c for g in chain if _crosses(g) for c in getattr(g, "captures", {}).values()]
    sources: list[Any] = list(xs)
    owner = list(range(len(xs)))
    for i, x in enumerate(xs):
        for g in chain:
            hit = getattr(g, "captures", {}).get(key(x)) if isinstance(x, Tensor) else None
            if hit is not None and not _crosses(g):
                sources.append(hit[1])
                owner.append(i)
    total: list[Tensor | None] = [None] * len(xs)
    targets, seeds = list(targets), list(seeds)
    while targets:
        found = backprop(
            targets,
            seeds,
            sources + [ph for _, ph in caps],
            stop_ops=stop_ops,
            aggregate=aggregate,
            sparse=not caps,  # IndexedSlices where no capture's gradient must be summed
        )
        for i, d in zip(owner, found[: len(sources)]):
            if d is not None:
                prev = total[i]
                total[i] = d if prev is None else add(prev, d)
        nxt = [(outer, d) for (outer, _), d in zip(caps, found[len(sources) :]) if d is not None]
        targets, seeds = [o for o, _ in nxt], [d for _, d in nxt]
    return total
