"""Reading and writing variables wherever they live, for checkpoints and optimizers.

A variable made at top level is set by assigning it there (the assign runs at once); one in
a graph is set by one Session run of a group of assigns fed by placeholders.  Either way the
values are checked first, so a bad value changes no variable.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad.core.graph import Graph
from symgrad.ops.control import group
from symgrad.ops.core import placeholder
from symgrad.ops.state.variables import Variable
from symgrad.runtime.session import Session


def outermost(graph: Graph) -> Graph:
    """Where a variable made now lives: a traced function's variables live outside it."""
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph  # type: ignore[attr-defined]
    return graph


def check_values(pairs: Sequence[tuple[str, Variable, np.ndarray]]) -> None:
    """Raise one ValueError listing every value whose shape or dtype its variable refuses."""
    problems = []
    for key, v, value in pairs:
        if not v.shape.is_fully_defined() or tuple(value.shape) != tuple(v.shape.as_list()):
            problems.append(
                f"{key}: the checkpoint has shape {tuple(value.shape)}, variable "
                f"{v.name} has shape {v.shape}"
            )
        elif np.dtype(value.dtype) != v.dtype.np:
            problems.append(
                f"{key}: the checkpoint has dtype {value.dtype}, variable {v.name} "
                f"has dtype {v.dtype.name}"
            )
    if problems:
        raise ValueError("Cannot restore: " + "; ".join(problems) + ". No variable was changed.")


def assign_values(pairs: Sequence[tuple[Variable, np.ndarray]], session: Any = None) -> None:
    """Set each variable to its value: directly at top level, by a Session run of one group
    of assigns in a graph."""
    for items in _by_graph(pairs):
        graph = items[0][0].graph
        if graph.eager:
            with graph.as_default():
                for v, value in items:
                    v.assign(value)
            continue
        holders, restore = restore_ops(graph, [v for v, _ in items])
        feeds = {p: value for p, (_, value) in zip(holders, items)}
        sess = session if session is not None and session.graph is graph else Session(graph=graph)
        sess.run(restore, feed_dict=feeds)


def _by_graph(pairs: Sequence[tuple[Variable, Any]]) -> list[list[tuple[Variable, Any]]]:
    by_graph: dict[int, list[tuple[Variable, Any]]] = {}
    for v, value in pairs:
        by_graph.setdefault(id(v.graph), []).append((v, value))
    return list(by_graph.values())


def prepare_restore(variables: Sequence[Variable]) -> None:
    """Make the restore ops of the graph variables among ``variables`` now (``Saver``)."""
    for items in _by_graph([(v, None) for v in variables]):
        if not items[0][0].graph.eager:
            restore_ops(items[0][0].graph, [v for v, _ in items])


_RESTORES: weakref.WeakKeyDictionary[Graph, dict[tuple[int, ...], Any]] = (
    weakref.WeakKeyDictionary()
)


def restore_ops(graph: Graph, variables: Sequence[Variable]) -> tuple[list[Any], Any]:
    """The placeholders and the ``restore_all`` group that set ``variables`` in ``graph``,
    made once per set of variables (as TF's Saver makes its restore ops when it is made,
    so a finalized graph can still restore)."""
    made = _RESTORES.setdefault(graph, {})
    key = tuple(id(v) for v in variables)
    if key not in made:
        with graph.as_default():
            holders = [placeholder(v.dtype, v.shape) for v in variables]
            ops = [v.assign(p).op for v, p in zip(variables, holders)]
            made[key] = holders, group(*ops, name="restore_all"), list(variables)
    holders, restore, _ = made[key]  # (the variables held: their ids stay theirs)
    return holders, restore
