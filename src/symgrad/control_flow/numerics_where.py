"""Where inside control flow the NaN/Inf check (``enable_check_numerics``) failed.

A loop or a branch runs its body's plan, so the check's error names an op of the body's
graph; these helpers add where that was: the loop and the iteration (counted from 0), the
branch (``true_fn``, ``false_fn``, ``branches[i]``), and, for the gradient of a loop, the
forward iteration it mirrors (the gradient loop counts down: its iteration for forward
iteration ``j`` reads the values ``j`` stacked).  ``MIRRORS`` maps each gradient op of a
loop or a branch op to its forward op, so the tools can also name the forward op a
re-created gradient op stands for (:func:`original`), with its own line.
"""

from __future__ import annotations

import weakref
from typing import Any

from symgrad.core import op_registry
from symgrad.core.errors import InvalidArgumentError
from symgrad.core.graph import Operation

# gradient While / If / Case op -> the forward op it is the gradient of
MIRRORS: weakref.WeakKeyDictionary[Operation, Operation] = weakref.WeakKeyDictionary()


def mirror(found: Any, op: Operation) -> None:
    """Note the branch op behind the gradients ``found`` as mirroring ``op``."""
    for t in found:
        g = getattr(t, "op", None)
        while g is not None and g.type == "Identity" and g.inputs:
            g = g.inputs[0].op
        if g is not None and g.type in ("If", "StatelessIf", "Case", "StatelessCase"):
            MIRRORS[g] = op
            return


def numerics_error(e: InvalidArgumentError) -> bool:
    """Whether ``e`` is the NaN/Inf check's (enable_check_numerics) error."""
    return op_registry.output_check is not None and (
        hasattr(e, "iterations") or e.message.startswith("!!! Detected Infinity or NaN")
    )


# What a gradient body's re-created forward value says of its iteration until the loop
# that runs it, which knows the forward iteration, writes it in (``at_iteration``).
FORWARD_ITERATION = " at the iteration this one mirrors"


# op of a gradient loop's body -> the forward body's op it re-creates (the replay's map;
# names alone mislead: the gradient body's own ops may reuse a forward op's name)
RECREATED: weakref.WeakKeyDictionary[Operation, Operation] = weakref.WeakKeyDictionary()


def note_recreated(pairs: Any) -> None:
    """Note ``(forward op, its re-creation)`` pairs (values, not inputs or constants)."""
    for forward, new in pairs:
        if new is not forward and forward.type not in ("Placeholder", "Const"):
            RECREATED[new] = forward


def owner_op(graph: Any) -> Operation | None:
    """The functional op whose body, recorder or branch is ``graph`` (errors only)."""
    outer = getattr(graph, "outer_graph", None)
    if outer is None:
        return None
    for op in outer.get_operations():
        for name in ("body", "recorder", "cond", "branches"):
            value = op.attrs.get(name)
            for f in value if isinstance(value, list | tuple) else [value]:
                if getattr(f, "graph", None) is graph:
                    return op
    return None


def loop_name(body: Any) -> str:
    """``While 'name'``: the loop op whose body this is."""
    op = owner_op(body.graph)
    return f"{op.type} '{op.name}'" if op is not None else "while_loop"


def at_iteration(
    e: InvalidArgumentError, loop: str, i: int, where: str, body: Any = None, state: Any = None
) -> InvalidArgumentError:
    """The check's error from inside a loop, naming the loop and the iteration where the
    value first appeared (for a gradient loop, the forward iteration it mirrors); outer
    loops prefix theirs."""
    inner: list[tuple[str, int]] = getattr(e, "iterations", [])
    head = f"{loop} iteration {i}"
    grad = owner_op(body.graph) if body is not None else None
    forward = MIRRORS.get(grad) if grad is not None else None
    if forward is not None and state:
        j = int(state[0]) - 1  # the count of iterations left, read before this step
        head = (
            f"{forward.type} '{forward.name}' iteration {j}, in its gradient "
            f"{loop} (backward iteration {i})"
        )
        e = InvalidArgumentError(e.message.replace(FORWARD_ITERATION, f" at iteration {j}"), e.op)
    if inner:
        text = f"{head} > {e.message}"
    else:
        kinds = e.message.rsplit("Tensor had ", 1)[-1].split(" values", 1)[0]
        op_type = getattr(e.op, "type", "?")
        text = f"{head}: op '{op_type}' in {where} produced {kinds}\n{e.message}"
    new = InvalidArgumentError(text, e.op)
    new.iterations = [(loop, i), *inner]  # type: ignore[attr-defined]
    return new


def in_branch(e: InvalidArgumentError, branches: Any, i: int, labels: list[str]) -> Exception:
    """The check's error from inside branch ``i``, naming it (``true_fn``, ...)."""
    if not numerics_error(e):
        return e
    op = owner_op(branches[i].graph)
    name = f"{op.type} '{op.name}'" if op is not None else "cond"
    forward = MIRRORS.get(op) if op is not None else None
    of = f" (the gradient of {forward.type} '{forward.name}')" if forward is not None else ""
    new = InvalidArgumentError(f"the {labels[i]} branch of {name}{of} > {e.message}", e.op)
    new.iterations = list(getattr(e, "iterations", []))  # type: ignore[attr-defined]
    return new


def original(op: Operation) -> Operation:
    """The op of a forward body or branch that ``op`` (re-created in the body or branch of
    its gradient op, under the same name) stands for; else ``op``."""
    grad = owner_op(op.graph)
    forward = MIRRORS.get(grad) if grad is not None else None
    if forward is None or grad is None:
        return op
    graphs = [f.graph for f in forward.attrs.get("branches", None) or [forward.get_attr("body")]]
    if "branches" in forward.attrs:
        k = [getattr(f, "graph", None) for f in grad.get_attr("branches")].index(op.graph)
        graphs = graphs[k : k + 1]
    for g in graphs:
        try:
            return original(g.get_operation_by_name(op.name))
        except KeyError:
            continue
    return op


# An eager loop runs its body as ordinary eager ops, so no body graph says which
# iteration made an op; while it runs, this recorder notes it for each op created, so a
# NaN in the gradient later (the tape's, after the loop) names the forward iteration.
EAGER_ITERATIONS: weakref.WeakKeyDictionary[Operation, list[tuple[str, int]]] = (
    weakref.WeakKeyDictionary()
)


class IterationTagger:
    """A recorder (``context.push_recorder``) that tags each op with ``(loop, iteration)``."""

    def __init__(self, loop: str) -> None:
        self.loop, self.iteration = loop, 0

    def record(self, op: Operation) -> None:
        EAGER_ITERATIONS.setdefault(op, []).append((self.loop, self.iteration))

    def variable_accessed(self, var: Any) -> None:
        """Reads are not this recorder's concern."""

    def would_record(self, inputs: Any, variables: Any) -> bool:
        return False  # it tags; it never asks for a function call to be replayed


def eager_iterations(op: Operation) -> str:
    """``" in while_loop body, iteration 5"`` for an op an eager loop made, else ``""``."""
    tags = EAGER_ITERATIONS.get(op)
    if not tags:
        return ""
    return " in " + " > ".join(f"{loop} body, iteration {i}" for loop, i in tags)
