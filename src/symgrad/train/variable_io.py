"""Reading and writing variables wherever they live, for checkpoints and optimizers.

A variable made at top level is set by assigning it there (the assign runs at once); one in
a graph is set by one Session run of a group of assigns fed by placeholders.  Either way the
values are checked first, so a bad value changes no variable.
"""

from __future__ import annotations

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
    by_graph: dict[int, list[tuple[Variable, np.ndarray]]] = {}
    for v, value in pairs:
        by_graph.setdefault(id(v.graph), []).append((v, value))
    for items in by_graph.values():
        graph = items[0][0].graph
        with graph.as_default():
            if graph.eager:
                for v, value in items:
                    v.assign(value)
                continue
            feeds, ops = {}, []
            for v, value in items:
                p = placeholder(v.dtype, v.shape)
                feeds[p] = value
                ops.append(v.assign(p).op)
            restore = group(*ops, name="restore_all")
        sess = session if session is not None and session.graph is graph else Session(graph=graph)
        sess.run(restore, feed_dict=feeds)
